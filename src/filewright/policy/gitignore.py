"""Ignore rules with ripgrep's exact semantics, in pure Python.

filewright searches with ripgrep when it can and with a pure-Python walker when it
cannot; both must return the same files.  This module reproduces what decides *which*
files ripgrep searches (with globs from :mod:`filewright.policy.globs`):

* **ignore files** (the ``ignore`` crate): ``.gitignore``, ``.ignore`` and ``.rgignore``
  in every directory, gitignore line syntax, last matching line wins within a file, the
  deepest directory with a matching line wins, and ``.rgignore`` beats ``.ignore`` beats
  ``.gitignore``.  Global gitignore, ``.git/info/exclude`` and ignore files in parents of
  the search directory are *not* read (filewright passes ``--no-ignore-global
  --no-ignore-exclude --no-ignore-parent`` to ripgrep); instead the caller may name an
  ``ignore_root`` (the workspace root) whose ignore files, and those of the directories
  between it and the search directory, also apply.
* **overrides** (``--glob`` / ``--iglob``): a glob list in gitignore syntax where a plain
  glob *includes* and ``!glob`` excludes; when any including glob exists, files matching
  none are excluded.

Paths handed to this module are ``bytes``, relative, with ``/`` separators.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import Enum
from pathlib import Path
from typing import cast

import regex as _regex  # no catastrophic backtracking on pathological globs

from filewright.policy.globs import GlobError, glob_to_regex

__all__ = [
    "IGNORE_FILE_KINDS",
    "DirRules",
    "GlobError",
    "IgnoreGlob",
    "IgnoreSpec",
    "Overrides",
    "PathFilter",
    "Verdict",
    "parse_ignore_line",
    "root_rules",
]

IGNORE_FILE_KINDS: tuple[str, ...] = (".rgignore", ".ignore", ".gitignore")
"""Ignore file names, highest precedence first (as ripgrep ranks them)."""
_KIND_NAMES = tuple(b"/" + os.fsencode(n) for n in IGNORE_FILE_KINDS)
_KIND_FILES = tuple(os.fsencode(n) for n in IGNORE_FILE_KINDS)
_EFFECTIVE_IDS = os.access in os.supports_effective_ids


# ------------------------------------------------------------------ gitignore lines


@dataclass(frozen=True, slots=True)
class IgnoreGlob:
    """One parsed line of an ignore file (or one override glob)."""

    original: str
    body: bytes
    """Unanchored regex source (without its case flag)."""
    regex: re.Pattern[bytes]
    whitelist: bool
    only_dir: bool
    basename: bool
    """Matches the last path component (globset's basename strategy: a ``**/name``
    glob without ``/`` or classes in ``name``) rather than the whole path."""
    case_insensitive: bool


def parse_ignore_line(line: str, *, case_insensitive: bool = False) -> IgnoreGlob | None:
    """Parse one gitignore-syntax line the way ripgrep's ``ignore`` crate does.

    Returns ``None`` for blank lines and comments.  Raises :class:`GlobError` when the
    glob is invalid (ripgrep skips such lines with a warning; callers do the same).
    """
    if line.startswith("#"):
        return None
    if not line.endswith("\\ "):
        line = line.rstrip()
    if not line:
        return None
    original = line
    whitelist = False
    absolute = False
    if line.startswith(("\\!", "\\#")):
        line = line[1:]
        absolute = line.startswith("/")
    else:
        if line.startswith("!"):
            whitelist = True
            line = line[1:]
        if line.startswith("/"):
            line = line[1:]
            absolute = True
    only_dir = False
    if line.endswith("/"):
        only_dir = True
        line = line[:-1]
        if line.endswith("\\"):
            line = line[:-1]
    actual = line
    if not absolute and "/" not in line and not (actual.startswith("**/") or actual == "**"):
        actual = "**/" + actual
    if actual.endswith("/**"):
        actual += "/*"
    rest = actual[3:]
    basename = actual.startswith("**/") and bool(rest) and not any(c in rest for c in "/[")
    body = glob_to_regex(rest if basename else actual).encode("ascii")
    flags = re.IGNORECASE if case_insensitive else 0
    regex = _regex.compile(b"^(?:" + body + rb")\Z", flags)
    return IgnoreGlob(original, body, regex, whitelist, only_dir, basename, case_insensitive)


def _combine(globs: Iterable[IgnoreGlob]) -> re.Pattern[bytes] | None:
    parts = [(b"(?i:" if g.case_insensitive else b"(?:") + g.body + b")" for g in globs]
    return _regex.compile(b"^(?:" + b"|".join(parts) + rb")\Z") if parts else None


class IgnoreSpec:
    """The globs of one ignore file (or one override list), in file order."""

    __slots__ = ("_pre", "globs")

    def __init__(self, globs: Sequence[IgnoreGlob]) -> None:
        self.globs = tuple(globs)
        # Prefilters: does any glob match?  (basename regex, path regex) for files and
        # for directories (directory-only globs cannot match a file).
        self._pre = tuple(
            (
                _combine(g for g in self.globs if g.basename and (is_dir or not g.only_dir)),
                _combine(g for g in self.globs if not g.basename and (is_dir or not g.only_dir)),
            )
            for is_dir in (False, True)
        )

    @classmethod
    def from_lines(cls, lines: Iterable[str], *, case_insensitive: bool = False) -> IgnoreSpec:
        """Build a spec from ignore-file lines, skipping blank, comment and invalid lines."""
        globs = []
        for line in lines:
            try:
                g = parse_ignore_line(line, case_insensitive=case_insensitive)
            except GlobError:
                continue
            if g is not None:
                globs.append(g)
        return cls(globs)

    @classmethod
    def from_file(cls, path: bytes, dir_fd: int | None = None) -> IgnoreSpec | None:
        """Read an ignore file; ``None`` when it is absent, unreadable or has no globs.
        With ``dir_fd``, ``path`` is the file's name in that directory (a walk holding
        the directory's descriptor: the kernel does not walk a deep path from ``/`` again
        for each of the three names asked in every directory).

        Like ripgrep, reading stops at the first line that is not valid UTF-8.
        """
        # Most directories have no ignore file: asking first is cheaper than a failed
        # open (no exception).
        if not os.access(path, os.F_OK, dir_fd=dir_fd, effective_ids=_EFFECTIVE_IDS):
            return None
        try:
            fd = os.open(path, os.O_RDONLY, dir_fd=dir_fd)
        except OSError:
            return None
        try:
            with os.fdopen(fd, "rb") as fh:
                data = fh.read()
        except OSError:
            return None
        lines = []
        for i, raw in enumerate(data.split(b"\n")):
            try:
                line = raw.decode("utf-8")
            except UnicodeDecodeError:
                break
            if i == 0:
                line = line.lstrip("\ufeff")
            lines.append(line.removesuffix("\r"))
        spec = cls.from_lines(lines)
        return spec if spec.globs else None

    @property
    def has_file_globs(self) -> bool:
        """Whether any glob can match a file (not only directories)."""
        return any(self._pre[False])

    @property
    def file_path_prefilter(self) -> re.Pattern[bytes] | None:
        """One regex matching the paths any non-basename glob can match as a file."""
        return self._pre[False][1]

    def match(self, rel: bytes, is_dir: bool, base: bytes | None = None) -> bool | None:
        """``True`` = ignored, ``False`` = whitelisted (``!``), ``None`` = no line matches.

        ``base`` is the last component of ``rel`` when the caller already has it.
        """
        base_re, path_re = self._pre[is_dir]
        if base is None:
            base = rel.rpartition(b"/")[2]
        if not (
            (base_re is not None and base_re.match(base) is not None)
            or (path_re is not None and path_re.match(rel) is not None)
        ):
            return None
        for g in reversed(self.globs):
            if (is_dir or not g.only_dir) and g.regex.match(base if g.basename else rel):
                return not g.whitelist
        return None


class Verdict(Enum):
    """What an override list says about a path."""

    NONE = 0
    INCLUDE = 1
    EXCLUDE = 2


class Overrides:
    """ripgrep's ``--glob`` / ``--iglob`` list: globs include, ``!globs`` exclude."""

    __slots__ = ("_has_includes", "_spec")

    def __init__(self, globs: Sequence[tuple[str, bool]]) -> None:
        """``globs``: (glob, case_insensitive) pairs, later ones taking precedence."""
        parsed = []
        for glob, ci in globs:
            g = parse_ignore_line(glob, case_insensitive=ci)
            if g is not None:
                parsed.append(g)
        self._spec = IgnoreSpec(parsed)
        self._has_includes = any(not g.whitelist for g in parsed)

    def match(self, rel: bytes, is_dir: bool) -> Verdict:
        """Verdict for a path (a file matching no include glob is excluded)."""
        m = self._spec.match(rel, is_dir)
        if m is None:
            if self._has_includes and not is_dir:
                return Verdict.EXCLUDE
            return Verdict.NONE
        return Verdict.INCLUDE if m else Verdict.EXCLUDE


# ---------------------------------------------------------------- directory rules

_GLOB_SYNTAX = frozenset("*?[]{},\\")

_Quick = tuple[
    tuple[bytes, ...],
    frozenset[bytes],
    "re.Pattern[bytes] | None",
    tuple[tuple[bytes, int, "re.Pattern[bytes]"], ...],
]


def _literal_shape(g: IgnoreGlob) -> tuple[bool, bytes] | None:
    """``(True, suffix)`` for a basename glob ``*suffix``, ``(False, name)`` for a plain
    name, ``None`` for any other glob syntax (or a case-insensitive glob)."""
    if g.case_insensitive:
        return None
    text = g.original[1:] if g.whitelist else g.original
    text = text.removeprefix("**/")
    star = text.startswith("*")
    lit = text[1:] if star else text
    if not (star or lit) or any(c in _GLOB_SYNTAX for c in lit) or lit.endswith("/"):
        return None
    return star, lit.encode("utf-8", "surrogateescape")


@dataclass(frozen=True, slots=True)
class _Level:
    """One directory's ignore file: paths are matched as ``prefix + rel[strip:]``."""

    prefix: bytes
    strip: int
    spec: IgnoreSpec


class DirRules:
    """Ignore files in force inside one directory: one tuple of levels per kind (in
    :data:`IGNORE_FILE_KINDS` order), deepest directory first."""

    __slots__ = ("_file_checks", "_quick", "levels")

    def __init__(self, levels: tuple[tuple[_Level, ...], ...] = ((), (), ())) -> None:
        self.levels = levels
        self._file_checks = tuple(
            (lv.prefix, lv.strip, lv.spec)
            for kind in levels
            for lv in kind
            if lv.spec.has_file_globs
        )
        self._quick: _Quick | None = None  # built on first use

    def _quick_test(self) -> _Quick:
        """What :meth:`is_file_ignored` tries first, to find that no line of any level
        matches a file: the basename globs of every level at once (a base name reads
        the same at every level), as suffix and name tests for the commonest shapes
        (``*.log``, ``.DS_Store``) and one regex for the others, then each level's
        prefilter for its path globs."""
        suffixes: list[bytes] = []
        names: set[bytes] = set()
        others: list[IgnoreGlob] = []
        for _, _, spec in self._file_checks:
            for g in spec.globs:
                if g.basename and not g.only_dir:
                    shape = _literal_shape(g)
                    if shape is None:
                        others.append(g)
                    elif shape[0]:
                        suffixes.append(shape[1])
                    else:
                        names.add(shape[1])
        paths = tuple(
            (prefix, strip, pre)
            for prefix, strip, spec in self._file_checks
            if (pre := spec.file_path_prefilter) is not None
        )
        self._quick = (tuple(suffixes), frozenset(names), _combine(others), paths)
        return self._quick

    def child(
        self,
        abs_dir: bytes,
        rel_dir: bytes = b"",
        *,
        prefix: bytes = b"",
        dir_fd: int | None = None,
    ) -> DirRules:
        """Rules inside ``abs_dir``: its own ignore files on top of ours.

        ``rel_dir`` is the directory relative to the search root (``b""`` for the root);
        ``prefix`` is the search root relative to ``abs_dir`` + ``/`` for directories
        above the root. ``dir_fd``: a descriptor of ``abs_dir`` (its ignore files are
        then read through it).
        """
        strip = len(rel_dir) + 1 if rel_dir else 0
        new = []
        changed = False
        for kind, name in enumerate(_KIND_NAMES):
            if dir_fd is None:
                spec = IgnoreSpec.from_file(abs_dir + name)
            else:
                spec = IgnoreSpec.from_file(_KIND_FILES[kind], dir_fd)
            lv = self.levels[kind]
            if spec is not None:
                lv = (_Level(prefix, strip, spec), *lv)
                changed = True
            new.append(lv)
        return DirRules(tuple(new)) if changed else self

    def is_ignored(self, rel: bytes, is_dir: bool) -> bool:
        """Whether ``rel`` (relative to the search root) is ignored by these rules."""
        if not is_dir:
            return self.is_file_ignored(rel, rel.rpartition(b"/")[2])
        for levels in self.levels:
            for lv in levels:
                path = lv.prefix + rel[lv.strip :] if lv.prefix or lv.strip else rel
                m = lv.spec.match(path, True)
                if m is not None:
                    return m
        return False

    def is_file_ignored(self, rel: bytes, base: bytes) -> bool:
        """Whether the file ``rel`` (last component ``base``) is ignored by these rules."""
        if not self._file_checks:
            return False
        suffixes, names, base_re, paths = self._quick or self._quick_test()
        if not (
            base.endswith(suffixes)
            or base in names
            or (base_re is not None and base_re.match(base) is not None)
        ):
            for prefix, strip, pre in paths:
                if pre.match(prefix + rel[strip:] if prefix or strip else rel) is not None:
                    break
            else:
                return False  # no line of any level matches: the common case
        for prefix, strip, spec in self._file_checks:
            m = spec.match(prefix + rel[strip:] if prefix or strip else rel, False, base)
            if m is not None:
                return m
        return False

    @property
    def whitelists_over_deeper(self) -> bool:
        """Whether a ``!`` line here could decide for a path that a deeper ignore file
        also matches: one in a ``.rgignore`` or ``.ignore``, which outrank every
        ``.gitignore``.  (A ``.gitignore`` line loses to any deeper matching line.)"""
        return any(g.whitelist for kind in self.levels[:-1] for lv in kind for g in lv.spec.globs)

    @property
    def empty(self) -> bool:
        """True when no ignore file applies."""
        return not any(self.levels)


def root_rules(directory: Path, ignore_root: Path | None = None) -> DirRules:
    """Rules at the search root: its own ignore files, plus those of ``ignore_root`` and
    of every directory between it and ``directory`` when ``ignore_root`` contains it."""
    rules = DirRules()
    if ignore_root is not None and ignore_root != directory:
        try:
            parts = directory.relative_to(ignore_root).parts
        except ValueError:
            parts = ()
        for k in range(len(parts)):
            prefix = os.fsencode("/".join(parts[k:])) + b"/"
            rules = rules.child(os.fsencode(ignore_root.joinpath(*parts[:k])), prefix=prefix)
    return rules.child(os.fsencode(directory))


class PathFilter:
    """Answers "is this file ignored?" for paths relative to a search root, loading and
    caching each directory's ignore files on the way.

    Used to post-filter the files ripgrep reached through an including ``--glob``
    (which, in ripgrep, takes precedence over ignore files).
    """

    def __init__(self, directory: Path, ignore_root: Path | None = None) -> None:
        self._dir = os.fsencode(directory) + b"/"
        self._cache: dict[bytes, DirRules | None] = {b"": root_rules(directory, ignore_root)}

    def rules(self, d: bytes) -> DirRules | None:
        """Rules inside directory ``d``, or ``None`` when ``d`` or a parent is ignored."""
        missing = []
        cur = d
        while (hit := self._cache.get(cur, _UNKNOWN)) is _UNKNOWN:
            missing.append(cur)
            cur = cur.rpartition(b"/")[0]
        rules: DirRules | None = hit  # type: ignore[assignment]
        # Several levels down from what is known (a deep tree): each is entered through
        # its parent's descriptor and asked for its ignore files by name, not by
        # absolute path (which the kernel walks from / again for each name asked).
        fd = _open_dir(self._dir + cur) if len(missing) > 1 and rules is not None else None
        try:
            for sub in reversed(missing):
                if rules is not None:
                    if fd is not None:
                        fd = _open_dir(sub.rpartition(b"/")[2], fd)
                    if rules.is_ignored(sub, True):
                        rules = None
                    else:
                        rules = rules.child(self._dir + sub, sub, dir_fd=fd)
                self._cache[sub] = rules
        finally:
            if fd is not None:
                os.close(fd)
        return rules

    def is_ignored(self, rel: bytes, is_dir: bool = False) -> bool:
        """Whether ``rel`` or any directory above it is ignored."""
        d, _, base = rel.rpartition(b"/")
        cached = self._cache.get(d, _UNKNOWN)
        rules = self.rules(d) if cached is _UNKNOWN else cast("DirRules | None", cached)
        if rules is None:
            return True
        if is_dir:
            return rules.is_ignored(rel, True)
        return rules.is_file_ignored(rel, base)

    def split_files(self, rels: Iterable[bytes]) -> tuple[list[bytes], list[bytes]]:
        """``(kept, ignored)``: the file paths ``rels`` split as :meth:`is_ignored` would,
        each list in the order given.

        Quicker than asking path by path when the files of a directory come together (as
        ``rg --files`` lists them): a directory's rules are looked up once per run, and
        whole runs need no test when everything or nothing there can be ignored.
        """
        kept: list[bytes] = []
        ignored: list[bytes] = []
        last: bytes | None = None
        rules: DirRules | None = None
        sink: list[bytes] | None = None  # where the run's files go without a test
        literal = False  # only "*suffix" / "name" lines: the first test is inlined
        suffixes: tuple[bytes, ...] = ()
        names: frozenset[bytes] = frozenset()
        for rel in rels:
            d, _, base = rel.rpartition(b"/")
            if d != last:
                last = d
                hit = self._cache.get(d, _UNKNOWN)
                rules = self.rules(d) if hit is _UNKNOWN else hit  # type: ignore[assignment]
                if rules is None:
                    sink = ignored
                elif not rules._file_checks:
                    sink = kept
                else:
                    sink = None
                    suffixes, names, base_re, paths = rules._quick or rules._quick_test()
                    literal = base_re is None and not paths
            if sink is not None:
                sink.append(rel)
            elif literal and not (base.endswith(suffixes) or base in names):
                kept.append(rel)
            elif rules.is_file_ignored(rel, base):  # type: ignore[union-attr]
                ignored.append(rel)
            else:
                kept.append(rel)
        return kept, ignored


_UNKNOWN = object()


def _open_dir(path: bytes, parent: int | None = None) -> int | None:
    """A descriptor of directory ``path`` (following links, as a path lookup does; a
    name in ``parent``, which is closed); None when it cannot be opened."""
    try:
        return os.open(path, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC, dir_fd=parent)
    except OSError:
        return None
    finally:
        if parent is not None:
            os.close(parent)
