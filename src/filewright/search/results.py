"""Result types of the search engine and the match collector both engines feed.

Both grep engines (ripgrep and pure Python) report what they find, file by file and line
by line, to one :class:`MatchCollector`; it applies the match cap, cuts long lines and
decides what "truncated" keeps, so the two engines cannot differ in those rules.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

Visible = Callable[[str, bool], bool]
"""Policy callback: gets a path relative to the searched directory (posix separators)
and whether that entry is a directory (required: a rule such as ``secrets/`` hides only
a directory); ``False`` means the path must not appear in any result nor be read."""

ProgressCallback = Callable[[int], None]
"""Receives the number of matching lines found so far (a heartbeat for long searches)."""


def always_visible(_path: str, _is_dir: bool) -> bool:
    """The default :data:`Visible`: every path may be shown."""
    return True


def visible_files(visible: Visible, rels: list[bytes]) -> list[bytes]:
    """The paths of ``rels`` (relative bytes paths of files) that ``visible`` lets
    through; in bulk (each directory judged once) when it offers ``files``, as
    :class:`filewright.policy.visibility.Visibility` does."""
    if visible is always_visible:
        return rels
    bulk = getattr(visible, "files", None)
    if bulk is not None:
        kept: list[bytes] = bulk(rels)
        return kept
    return [rel for rel in rels if visible(os.fsdecode(rel), False)]


def hidden_names(visible: Visible, files: list[str], dirs: list[str]) -> set[str]:
    """Which entries of the searched directory itself ``visible`` keeps out: ``files``
    judged as files, ``dirs`` as directories (a link, which may be either, goes in both
    and is out when either is); in bulk when it offers ``hidden_names``."""
    if visible is always_visible:
        return set()
    bulk = getattr(visible, "hidden_names", None)
    if bulk is not None:
        hidden: set[str] = bulk("", files, dirs)
        return hidden
    return {n for n in files if not visible(n, False)} | {d for d in dirs if not visible(d, True)}


def visible_names(visible: Visible, rel_dir: str = "") -> Callable[[str], bool] | None:
    """The test ``visible`` makes of the names of files directly in ``rel_dir`` (relative
    to the searched directory; "" for itself), None when it lets every name through:
    judged once for the directory when it offers ``in_directory``."""
    if visible is always_visible:
        return None
    per_dir = getattr(visible, "in_directory", None)
    if per_dir is not None:
        test: Callable[[str], bool] | None = per_dir(rel_dir)
        return test
    prefix = rel_dir + "/" if rel_dir else ""
    return lambda name: visible(prefix + name, False)


def sort_key(rel: bytes) -> bytes:
    """Key ordering paths like ripgrep's ``--sort path`` (component by component)."""
    return rel.replace(b"/", b"\x00")


@dataclass(frozen=True, slots=True)
class LineMatch:
    """One line of grep output: a matching line, or a context line around one."""

    line: int
    """1-based line number."""
    text: str
    """The line without its line ending, cut to ``max_line_chars`` (with a note saying how
    many characters were cut)."""
    is_context: bool = False


@dataclass(slots=True)
class FileMatches:
    """The lines found in one file, in line order."""

    path: str
    """Relative to the searched directory, posix separators."""
    matches: list[LineMatch] = field(default_factory=list)


@dataclass(slots=True)
class GrepResult:
    """What :func:`filewright.search.grep.grep` found."""

    files: list[FileMatches]
    """Files with at least one match, in path order (as ``rg --sort path``)."""
    total_matches: int
    """Matching lines returned (context lines not counted)."""
    truncated: bool
    """More matching lines existed than ``max_matches``; the first ones in path order
    were kept."""
    engine: str
    """``"rg"`` or ``"python"``: the engine that produced the result."""
    error: str | None = None
    """Set (and nothing found) when the pattern or include glob is invalid."""
    files_searched: int | None = None
    """Files read and searched, when cheaply known: the Python engine counts them;
    ripgrep's JSON statistics only count files with output, so the rg engine reports
    ``None``, as does any search stopped at the cap."""


@dataclass(slots=True)
class GlobResult:
    """What :func:`filewright.search.glob` found."""

    paths: list[str]
    """Matching files relative to the searched directory, newest modification first
    (ties: path order), at most ``max_results``."""
    truncated: bool
    total: int
    """Matching files before the cap."""
    ignored_count: int
    """Files matching the pattern that ignore files (.gitignore, .ignore, .rgignore)
    excluded; 0 when ignore files are not respected."""
    engine: str
    error: str | None = None


@dataclass(frozen=True, slots=True)
class Entry:
    """One entry of a directory listing."""

    name: str
    is_dir: bool
    is_symlink: bool = False


@dataclass(slots=True)
class ListResult:
    """What :func:`filewright.search.list_directory` found."""

    entries: list[Entry]
    """Directories first, then files; each group in case-insensitive name order."""
    ignored_count: int
    """Entries hidden by ignore files (including ``.git``); not counting ``ignore`` globs
    or paths the policy hides."""
    total: int | None = None
    """Entries listed before a ``limit`` kept the first ones (None: all are in
    ``entries``)."""


def cut_line(text: str, max_chars: int, more: int = 0) -> str:
    """Strip the line ending and cut ``text`` to ``max_chars`` characters with a note.

    ``more`` counts characters of the line already cut off after ``text`` (an engine that
    keeps only a line's start passes how much it left out)."""
    if not more:
        if text.endswith("\n"):
            text = text[:-1]
        if text.endswith("\r"):
            text = text[:-1]
    if len(text) + more > max_chars:
        text = f"{text[:max_chars]}... [{len(text) + more - max_chars} more characters]"
    return text


WINDOW_CHARS = 65536
"""How much of a matching line the engines keep, so that a match far into a long line
(minified JS, one-line JSON) can be shown in a window around it."""


def match_window(text: str, column: int, width: int, max_chars: int, more: int = 0) -> str:
    """``max_chars`` characters of the line ``text`` around the match at ``column`` (0-based,
    ``width`` characters long), with notes on what was left out before and after."""
    if text.endswith("\n") and not more:
        text = text[:-1]
    lead = max_chars // 4 if width < max_chars else 0
    lo = max(0, min(column - lead, len(text) - max_chars))
    window = text[lo : lo + max_chars]
    after = len(text) - lo - len(window) + more
    head = f"[{lo} characters before] ..." if lo else ""
    tail = f"... [{after} more characters]" if after > 0 else ""
    return head + window + tail


class MatchCollector:
    """Gathers grep lines under a cap on matching lines.

    Feed it ``begin(path)``, then ``line(...)`` for each match or context line in line
    order, then ``end()``.  ``line`` returns ``False`` when one match more than the cap
    arrives: the search must stop.  What is kept then is the first ``max_matches``
    matching lines, with their before-context and the after-context of the last kept
    match (up to ``context`` lines), exactly as if the output had been cut there.
    """

    def __init__(
        self,
        *,
        max_matches: int,
        max_line_chars: int,
        context: int,
        on_progress: ProgressCallback | None = None,
        locate: Callable[[str], tuple[int, int] | None] | None = None,
    ) -> None:
        self.max_matches = max_matches
        # (column, width) of the first match in a line: a long matching line is shown
        # in a window around it rather than by its start
        self.locate = locate
        self.max_line_chars = max_line_chars
        self.context = context
        self.files: list[FileMatches] = []
        self.total = 0
        self.truncated = False
        self._current: FileMatches | None = None
        self._last_match = 0
        self._on_progress = on_progress
        self._last_report = time.monotonic()

    def begin(self, path: str) -> None:
        """Start the lines of file ``path``."""
        self._current = FileMatches(path)
        self._last_match = 0

    def line(self, number: int, text: str, is_context: bool, more: int = 0) -> bool:
        """Add one line of the current file (``more``: characters cut off after ``text``);
        ``False`` means the cap was exceeded."""
        cur = self._current
        assert cur is not None
        if not is_context:
            if self.total >= self.max_matches:
                self.truncated = True
                limit = self._last_match + self.context if self._last_match else 0
                cur.matches = [m for m in cur.matches if m.line <= limit]
                self.end()
                return False
            self.total += 1
            self._last_match = number
        cur.matches.append(LineMatch(number, self._shown(text, is_context, more), is_context))
        return True

    def _shown(self, text: str, is_context: bool, more: int) -> str:
        """The line as shown: cut to `max_line_chars`; a match past that, in a window."""
        limit = self.max_line_chars
        if is_context or self.locate is None or len(text) + more <= limit:
            return cut_line(text, limit, more)
        try:
            found = self.locate(text)
        except Exception:  # a pattern the Python dialect cannot run: the line's start
            found = None
        if found is None or found[0] + found[1] <= limit:
            return cut_line(text, limit, more)
        return match_window(text, found[0], found[1], limit, more)

    def end(self) -> None:
        """Close the current file (kept only if it has a matching line)."""
        cur = self._current
        self._current = None
        if cur is not None and any(not m.is_context for m in cur.matches):
            self.files.append(cur)
            if self._on_progress is not None:
                now = time.monotonic()
                if now - self._last_report >= 0.05:
                    self._last_report = now
                    self._on_progress(self.total)

    def result(self, engine: str, files_searched: int | None) -> GrepResult:
        """The collected result, files in path order."""
        self.files.sort(key=lambda f: sort_key(f.path.encode("utf-8", "surrogateescape")))
        if self._on_progress is not None:
            self._on_progress(self.total)
        return GrepResult(
            files=self.files,
            total_matches=self.total,
            truncated=self.truncated,
            engine=engine,
            files_searched=None if self.truncated else files_searched,
        )


class LineSink(Protocol):
    """What an engine feeds, file by file: ``begin``, ``line``... (``False`` = stop), ``end``."""

    def begin(self, path: str) -> None: ...

    def line(self, number: int, text: str, is_context: bool, more: int = 0) -> bool: ...

    def end(self) -> None: ...


class RawCollector:
    """Keeps every line as reported, in any file order, up to a budget of matching lines.

    For ripgrep's fast parallel (unordered) run: when it completes within the budget, the
    files are replayed in path order into a :class:`MatchCollector`, which gives the same
    result as a search in path order would.
    """

    def __init__(
        self, budget: int, on_progress: ProgressCallback | None = None, report_cap: int = 0
    ) -> None:
        self.budget = budget
        self.report_cap = report_cap
        self.matches = 0
        self.files: list[tuple[str, list[tuple[int, str, bool, int]]]] = []
        self._current: tuple[str, list[tuple[int, str, bool, int]]] | None = None
        self._on_progress = on_progress
        self._last_report = time.monotonic()

    def begin(self, path: str) -> None:
        """Start the lines of file ``path``."""
        self._current = (path, [])

    def line(self, number: int, text: str, is_context: bool, more: int = 0) -> bool:
        """Keep one line; ``False`` once the budget of matching lines is exceeded."""
        if not is_context:
            self.matches += 1
            if self.matches > self.budget:
                return False
        assert self._current is not None
        self._current[1].append((number, text, is_context, more))
        return True

    def end(self) -> None:
        """Close the current file (kept only if it has a matching line)."""
        cur = self._current
        self._current = None
        if cur is not None and any(not ctx for _, _, ctx, _ in cur[1]):
            self.files.append(cur)
            if self._on_progress is not None:
                now = time.monotonic()
                if now - self._last_report >= 0.05:
                    self._last_report = now
                    self._on_progress(min(self.matches, self.report_cap))

    def replay(self, into: MatchCollector) -> None:
        """Feed the kept files, in path order, into ``into`` (which applies the cap)."""
        self.files.sort(key=lambda f: sort_key(f[0].encode("utf-8", "surrogateescape")))
        for path, lines in self.files:
            into.begin(path)
            if not all(into.line(n, text, ctx, more) for n, text, ctx, more in lines):
                return
            into.end()


def existing_dir(directory: Path | str) -> Path:
    """`directory` as a Path; NotADirectoryError when it is not one."""
    directory = Path(directory)
    if not directory.is_dir():
        raise NotADirectoryError(f"not a directory: {directory}")
    return directory
