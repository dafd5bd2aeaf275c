"""The pure-Python search engine: the fallback when no ``rg`` binary is available.

It walks the tree the way ripgrep does (sorted by name, depth first, symlinks never
followed, ignore files via :mod:`filewright.policy.gitignore`) and reads files the way ripgrep
does (UTF-16 with a BOM is transcoded, a UTF-8 BOM is dropped, a file with a NUL byte
is binary and skipped).  Patterns use Python's :mod:`re` dialect.
"""

from __future__ import annotations

import os
import re
from collections import deque
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from filewright.core import regexes
from filewright.policy.gitignore import DirRules, Overrides, Verdict
from filewright.search.anchored import iter_lines, open_real_dir, open_subdir
from filewright.search.results import WINDOW_CHARS


def walk(
    directory: Path,
    overrides: Overrides | None,
    rules: DirRules | None,
    *,
    with_ignored: bool = False,
) -> Iterator[tuple[bytes, bool]]:
    """Yield ``(relative path, ignored)`` for the regular files under ``directory``
    (see :func:`walk_at`)."""
    for rel, ignored, _dir_fd, _name in walk_at(
        directory, overrides, rules, with_ignored=with_ignored
    ):
        yield rel, ignored


def walk_at(
    directory: Path,
    overrides: Overrides | None,
    rules: DirRules | None,
    *,
    with_ignored: bool = False,
) -> Iterator[tuple[bytes, bool, int, bytes]]:
    """Yield ``(relative path, ignored, parent directory fd, name)`` for the regular files
    under ``directory``; the fd is valid until the next item.

    Order is ripgrep's ``--sort path``.  Entries an override excludes are skipped (a
    directory with all it holds).  With ``rules`` set, ignored entries are skipped too,
    unless ``with_ignored``: then their files are yielded with ``ignored=True`` (for
    counting what the ignore files hid).  The walk goes by directory descriptors opened
    without following links (:mod:`filewright.search.anchored`), from the real
    ``directory`` down: symlinks and special files are never yielded, symlinked
    directories never entered, and a directory swapped for a symlink mid-walk is not
    followed.
    """
    try:
        top = open_real_dir(directory)
    except OSError:
        return
    # Depth first without recursion (a tree may be deeper than Python's stack): a stack
    # of (dir fd, absolute dir, relative dir, its rules, whether ignored, sorted entries).
    stack = [_open_dir(top, os.fsencode(directory), b"", rules, False)]
    try:
        while stack:
            dir_fd, abs_dir, rel_dir, dir_rules, ignored, entries = stack[-1]
            entry = next(entries, None)
            if entry is None:
                os.close(dir_fd)
                stack.pop()
                continue
            name = entry.name
            rel = rel_dir + b"/" + name if rel_dir else name
            try:
                is_dir = entry.is_dir(follow_symlinks=False)
            except OSError:
                continue
            if overrides is not None and overrides.match(rel, is_dir) is Verdict.EXCLUDE:
                continue
            hidden = ignored
            if not hidden and dir_rules is not None and dir_rules.is_ignored(rel, is_dir):
                if not with_ignored:
                    continue
                hidden = True
            if is_dir:
                try:
                    sub_fd = open_subdir(dir_fd, name)
                except OSError:
                    continue  # gone, or swapped for a link since it was listed
                sub = abs_dir + b"/" + name
                sub_rules = (
                    dir_rules.child(sub, rel, dir_fd=sub_fd)
                    if dir_rules is not None and not hidden
                    else dir_rules
                )
                stack.append(_open_dir(sub_fd, sub, rel, sub_rules, hidden))
            elif entry.is_file(follow_symlinks=False):
                yield rel, hidden, dir_fd, name
    finally:
        for frame in stack:
            os.close(frame[0])


_DirFrame = tuple[int, bytes, bytes, DirRules | None, bool, Iterator[os.DirEntry[bytes]]]


def _open_dir(
    dir_fd: int, abs_dir: bytes, rel_dir: bytes, rules: DirRules | None, ignored: bool
) -> _DirFrame:
    """A walk frame: the directory's entries sorted by name (none if unreadable)."""
    try:
        with os.scandir(dir_fd) as it:
            entries = sorted(it, key=lambda e: os.fsencode(e.name))
    except OSError:
        entries = []
    names: Iterator[Any] = iter(_Named(os.fsencode(e.name), e) for e in entries)
    return dir_fd, abs_dir, rel_dir, rules, ignored, names


class _Named:
    """A directory entry listed by descriptor, with its name as bytes."""

    __slots__ = ("_entry", "name")

    def __init__(self, name: bytes, entry: os.DirEntry[str]) -> None:
        self.name = name
        self._entry = entry

    def is_dir(self, *, follow_symlinks: bool = False) -> bool:
        return self._entry.is_dir(follow_symlinks=follow_symlinks)

    def is_file(self, *, follow_symlinks: bool = False) -> bool:
        return self._entry.is_file(follow_symlinks=follow_symlinks)


def read_file(path: bytes) -> bytes | None:
    """Read a file without following a symlink at its last component (``None`` on error)."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_BINARY", 0))
    except OSError:
        return None
    try:
        with os.fdopen(fd, "rb") as fh:
            return fh.read()
    except OSError:
        return None


def searchable_text(data: bytes) -> str | None:
    """A file's text as ripgrep searches it, or ``None`` for a binary file.

    A UTF-16 BOM means UTF-16 (transcoded), a UTF-8 BOM is dropped, and a file holding a
    NUL byte anywhere (after transcoding) is binary.  (ripgrep alone skips a file when
    a NUL shows up in its first read and, for a later NUL, reports the matches before
    it; where that boundary falls depends on the buffer size left over from the files
    the same thread searched before, so filewright treats every file with a NUL as
    binary, in both engines.)
    """
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        text = data.decode("utf-16", "replace")
        return None if "\x00" in text else text
    if b"\x00" in data:
        return None
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    return data.decode("utf-8", "replace")


def is_binary_file(path: bytes) -> bool:
    """Whether the file at ``path`` is binary (see :func:`searchable_text`)."""
    data = read_file(path)
    return data is None or searchable_text(data) is None


_NO_PREFILTER = re.compile(r"\\[AZ]|\(\?<?[=!]")


class LineSearcher:
    """A compiled grep pattern in Python's dialect, matched line by line like ripgrep."""

    def __init__(self, pattern: str, *, case_sensitive: bool, fixed_strings: bool) -> None:
        """Compile; raises :class:`re.error` for an invalid pattern."""
        source = re.escape(pattern) if fixed_strings else pattern
        flags = 0 if case_sensitive else re.IGNORECASE
        # Python's syntax, run by the `regex` engine with a time limit: a model's pattern
        # must not hang the search by backtracking (regexes.RegexTimeout instead).
        self.line_re = regexes.compile(source, flags)
        # A whole-file search with ^/$ at line boundaries finds every file that has a
        # matching line, unless the pattern looks at what surrounds a line.
        self.file_re = (
            None if _NO_PREFILTER.search(source) else regexes.compile(source, flags | re.MULTILINE)
        )

    def search(
        self, text: str, context: int, max_matches: int | None = None
    ) -> list[tuple[int, str, bool]]:
        """``(line number, line, is_context)`` for matching lines (the first
        ``max_matches``) and their context."""
        if self.file_re is not None and regexes.search(self.file_re, text) is None:
            return []
        lines = text.split("\n")
        if lines and lines[-1] == "":
            lines.pop()
        rx = self.line_re
        hits = []
        for i, line in enumerate(lines):
            if regexes.search(rx, line) is not None:
                hits.append(i)
                if max_matches is not None and len(hits) >= max_matches:
                    break
        if not context or not hits:
            return [(i + 1, lines[i], False) for i in hits]
        wanted: set[int] = set()
        for i in hits:
            wanted.update(range(max(0, i - context), min(len(lines), i + context + 1)))
        hit_set = set(hits)
        return [(i + 1, lines[i], i not in hit_set) for i in sorted(wanted)]

    def search_stream(
        self, fd: int, context: int, max_line_chars: int, max_matches: int
    ) -> list[tuple[int, str, bool, int]]:
        """Like :meth:`search`, streaming the file at ``fd`` line by line: ``(line
        number, line start, is_context, characters cut off)``, lines kept to
        ``max_line_chars`` characters, at most ``max_matches`` matching lines (the rest of
        the file is still read for a NUL). A line longer than
        :data:`~filewright.search.anchored.LINE_LIMIT_BYTES` is searched in its start.
        Raises :class:`~filewright.search.anchored.Binary` for a file with a NUL."""

        rx = self.line_re
        out: list[tuple[int, str, bool, int]] = []
        before: deque[tuple[int, str, int]] = deque(maxlen=max(context, 1))
        after = 0
        last_out = 0
        matches = 0
        number = 0
        for raw, rest in iter_lines(fd):
            number += 1
            if matches >= max_matches and not after:
                continue  # only looking for a NUL now
            text = raw.decode("utf-8", "replace")
            hit = matches < max_matches and regexes.search(rx, text) is not None
            kept = text[: (WINDOW_CHARS if hit else max_line_chars) + 1]
            more = len(text) - len(kept) + rest
            if hit:
                matches += 1
                if context:
                    out.extend((n, t, True, m) for n, t, m in before if n > last_out)
                    before.clear()
                out.append((number, kept, False, more))
                last_out = number
                after = context
            elif after:
                out.append((number, kept, True, more))
                last_out = number
                after -= 1
            elif context:
                before.append((number, kept, more))
        return out
