"""list_directory: the entries of one directory, for the listing tools."""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Sequence
from pathlib import Path

from filewright.policy.gitignore import root_rules
from filewright.policy.globs import GlobError, compile_glob
from filewright.search.results import Entry, ListResult, Visible, always_visible, visible_names


def _name_matcher(globs: Sequence[str]) -> Callable[[bytes], bool]:
    regexes = []
    for g in globs:
        try:
            regexes.append(compile_glob(g))
        except GlobError:
            regexes.append(re.compile(re.escape(os.fsencode(g)) + rb"\Z"))
    return lambda name: any(r.match(name) for r in regexes)


def _dir_inside(link: str, root: Path) -> bool:
    """Whether symlink ``link`` resolves to a directory inside ``root``."""
    try:
        target = Path(os.path.realpath(link))
        return target.is_dir() and target.is_relative_to(root.resolve())
    except (OSError, ValueError):
        return False


def list_directory(
    directory: Path,
    *,
    ignore: list[str] | None = None,
    respect_gitignore: bool = True,
    visible: Visible = always_visible,
    ignore_root: Path | None = None,
    symlink_root: Path | None = None,
) -> ListResult:
    """The entries of one directory: directories first, then files, each group by
    case-insensitive name.

    ``ignore`` globs (matched against names) drop entries; with ``respect_gitignore``,
    entries hidden by ignore files, and ``.git``, are dropped and counted in
    ``ignored_count``.  Entries the policy hides are dropped and not counted.
    """
    directory = Path(directory)
    skip = _name_matcher(ignore or [])
    rules = root_rules(directory, ignore_root) if respect_gitignore else None
    entries: list[Entry] = []
    ignored = 0
    shown = visible_names(visible)
    with os.scandir(directory) as it:
        for e in it:
            if not shown(e.name):
                continue
            name_b = os.fsencode(e.name)
            if skip(name_b):
                continue
            try:
                is_dir = e.is_dir(follow_symlinks=False)
                is_link = e.is_symlink()
            except OSError:
                continue
            if rules is not None and (e.name == ".git" or rules.is_ignored(name_b, is_dir)):
                ignored += 1
                continue
            if is_link:
                is_dir = _dir_inside(e.path, symlink_root or directory)
            entries.append(Entry(e.name, is_dir, is_link))
    entries.sort(key=lambda en: (not en.is_dir, en.name.casefold(), en.name))
    return ListResult(entries, ignored)
