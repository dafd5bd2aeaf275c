"""list_directory: the entries of one directory, for the listing tools."""

from __future__ import annotations

import heapq
import os
import re
from collections.abc import Callable, Sequence
from pathlib import Path

from filewright.policy.gitignore import root_rules
from filewright.policy.globs import GlobError, compile_glob
from filewright.search.anchored import open_real_dir
from filewright.search.results import Entry, ListResult, Visible, always_visible, hidden_names


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


def _key(name: str, is_dir: bool) -> str:
    """An entry's sort key: "0" for a directory ("1" for a file), the case-folded name,
    NUL, the name (NUL sorts first: a name before the longer names it starts)."""
    return ("0" if is_dir else "1") + name.casefold() + "\0" + name


def _plain_keys(
    found: list[os.DirEntry[str]],
    names: list[str],
    links: set[str],
    directory: Path,
    symlink_root: Path,
) -> list[str] | None:
    """Every entry's sort key, in bulk (None if an entry's type cannot be read)."""
    try:
        dirs = [e.is_dir(follow_symlinks=False) for e in found]
        for e in found:
            if e.is_symlink():
                links.add(e.name)
    except OSError:
        links.clear()
        return None
    keys = [
        f"0{n.casefold()}\0{n}" if d else f"1{n.casefold()}\0{n}"
        for n, d in zip(names, dirs, strict=True)
    ]
    if links:
        for i, name in enumerate(names):
            if name in links:
                keys[i] = _key(name, _dir_inside(os.path.join(directory, name), symlink_root))
    return keys


def list_directory(
    directory: Path,
    *,
    ignore: list[str] | None = None,
    respect_gitignore: bool = True,
    visible: Visible = always_visible,
    ignore_root: Path | None = None,
    symlink_root: Path | None = None,
    limit: int | None = None,
) -> ListResult:
    """The entries of one directory: directories first, then files, each group by
    case-insensitive name; only the first ``limit`` of them when given (``total`` says
    how many there are).

    ``ignore`` globs (matched against names) drop entries; with ``respect_gitignore``,
    entries hidden by ignore files, and ``.git``, are dropped and counted in
    ``ignored_count``.  Entries the policy hides are dropped and not counted.
    """
    directory = Path(directory)
    skip = _name_matcher(ignore) if ignore else None
    rules = root_rules(directory, ignore_root) if respect_gitignore else None
    if rules is not None and rules.empty:
        rules = None
    # By descriptor, opened without following links from / down: a directory swapped for
    # a symlink (to outside) since it was resolved is refused, never listed.
    dir_fd = open_real_dir(directory)
    try:
        with os.scandir(dir_fd) as it:
            found = list(it)
    finally:
        os.close(dir_fd)
    names = [e.name for e in found]
    # The policy judges each entry as what it is (a rule `secrets/` hides only a
    # directory); a link, or an entry whose type cannot be read, as both.
    files: list[str] = []
    dirs: list[str] = []
    for e in found:
        try:
            kind = 2 if e.is_symlink() else int(e.is_dir(follow_symlinks=False))
        except OSError:
            kind = 2
        if kind != 1:
            files.append(e.name)
        if kind != 0:
            dirs.append(e.name)
    hidden = hidden_names(visible, files, dirs)
    git = respect_gitignore and ".git" in names
    links: set[str] = set()
    keys: list[str] | None = None
    if not (hidden or git or skip is not None or rules is not None):
        keys = _plain_keys(found, names, links, directory, symlink_root or directory)
    ignored = 0
    if keys is None:
        keys = []
        for e in found:
            name = e.name
            if hidden and name in hidden:
                continue
            if skip is not None and skip(os.fsencode(name)):
                continue
            try:
                is_dir = e.is_dir(follow_symlinks=False)
                is_link = e.is_symlink()
            except OSError:
                continue
            if git and name == ".git":
                ignored += 1
                continue
            if rules is not None and rules.is_ignored(os.fsencode(name), is_dir):
                ignored += 1
                continue
            if is_link:
                is_dir = _dir_inside(os.path.join(directory, name), symlink_root or directory)
                links.add(name)
            keys.append(_key(name, is_dir))
    total = len(keys)
    if limit is not None and limit < total:
        keys = heapq.nsmallest(max(0, limit), keys)
    else:
        keys.sort()
    entries = []
    for key in keys:
        name = key[key.index("\0") + 1 :]
        entries.append(Entry(name, key[0] == "0", name in links))
    return ListResult(entries, ignored, total)
