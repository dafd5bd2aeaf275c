"""Which lines a scope names: the blocks that ``@@`` lines of a patch point at (pure).

A scope is the text of a line that opens a block (``def total(items):``, ``class Cart``,
``## Install``, ``[tool.ruff]``); stacked scopes nest, outer first. :func:`scope_blocks`
answers the 0-based line ranges ``[first, last]`` the innermost scope names inside the
outer ones, or a :class:`ScopeMissing` naming the first scope that names nothing there.

A line names a scope when, with typographic look-alikes folded, runs of spaces collapsed
and its indentation set aside, it starts with the scope's text (``def f`` names
``def f(x):`` but not ``def foo():``); only when no line starts with it, a line that holds
it as whole words (``function foo()`` in ``export function foo() {``) does.

The block a line opens, by what the line is:

- a Markdown heading (``#`` to ``######``, then a space): to the line before the next
  heading of the same or a higher level (``## B`` spans its ``###`` subsections; a
  ``# comment`` inside a fenced code block is no heading);
- a TOML / INI table header (``[b]``, ``[[bin]]``) with nothing indented under it: to the
  line before the next table header that is not one of its sub-tables (``[b.c]`` is in
  ``[b]``);
- a line with lines indented deeper after it: by indentation, to the last line indented
  deeper (a lone opening bracket on the next line and the closing ``}`` / ``end`` line
  included);
- any other line (a top-level line with nothing indented under it, as in an unindented
  file): from that line to the end of the enclosing block (the end of the file for the
  outermost scope), as the reference appliers read an ``@@`` line: what follows it.

Blank lines right after a block belong to it (a hunk's blank context at its edge).
"""

from __future__ import annotations

import bisect
import itertools
import re
from collections.abc import Sequence
from dataclasses import dataclass

from filewright.edit.normalize import collapse_spaces, fold_typography

_HEADING = re.compile(r"^(#{1,6})(?:\s|$)")
_TABLE = re.compile(r"^\[\[?([^\[\]]+)\]\]?\s*(?:[#;].*)?$")
_OPENERS = frozenset("{([")
_CLOSERS = ("}", ")", "]", "end", "fi", "done", "esac")


@dataclass(frozen=True)
class ScopeMissing:
    """The scope (``scope``, at ``depth`` 0 for the outermost) that names no line where
    it was looked for (``within``: the outer scopes it had to be inside)."""

    scope: str
    depth: int
    within: tuple[str, ...]


def norm(line: str) -> str:
    """A line as scopes compare it: typography folded, spaces collapsed, stripped."""
    return collapse_spaces(fold_typography(line)).strip()


def _word(c: str) -> bool:
    return c.isalnum() or c == "_"


def _starts(line: str, scope: str) -> bool:
    if not line.startswith(scope):
        return False
    rest = line[len(scope) :]
    return not rest or not _word(rest[0]) or not _word(scope[-1])


def _holds(line: str, scope: str) -> bool:
    i = line.find(scope)
    while i != -1:
        before = line[i - 1] if i else ""
        after = line[i + len(scope) : i + len(scope) + 1]
        if not (before and _word(before) and _word(scope[0])) and not (
            after and _word(after) and _word(scope[-1])
        ):
            return True
        i = line.find(scope, i + 1)
    return False


def _indent(line: str) -> int:
    expanded = line.expandtabs(4)
    return len(expanded) - len(expanded.lstrip())


def _heading_level(line: str) -> int:
    found = _HEADING.match(line)
    return len(found.group(1)) if found else 0


def _indented_block(lines: list[str], s: int, stop: int) -> int:
    """Last line of the block line ``s`` opens by indentation (``s`` when none)."""
    base = _indent(lines[s])
    e = s
    for j in range(s + 1, stop + 1):
        line = lines[j]
        stripped = line.strip()
        if not stripped:
            continue
        if _indent(line) <= base:
            if set(stripped) <= _OPENERS and e == s:
                e = j  # a brace on its own line after the header
                continue
            if e > s and any(_starts(stripped, c) for c in _CLOSERS):  # "end", not "endpoint"
                e = j
            break
        e = j
    return e


def block(lines: list[str], s: int, stop: int | None = None) -> tuple[int, int]:
    """Lines ``[s, e]`` of the block line ``s`` opens, not past line ``stop``."""
    stop = len(lines) - 1 if stop is None else stop
    line = lines[s]
    level = _heading_level(line)
    if level:
        e = stop
        fenced = False  # a "# comment" in a fenced code block is no heading
        for j in range(s + 1, stop + 1):
            if lines[j].lstrip().startswith(("```", "~~~")):
                fenced = not fenced
                continue
            other = 0 if fenced else _heading_level(lines[j])
            if other and other <= level:
                e = j - 1
                break
        return s, e
    e = _indented_block(lines, s, stop)
    table = _TABLE.match(line.strip())
    if e == s and table:
        name = table.group(1).strip()
        e = stop
        for j in range(s + 1, stop + 1):
            header = _TABLE.match(lines[j].strip())
            sub = header is not None and header.group(1).strip().startswith(name + ".")
            if header and not sub and _indent(lines[j]) <= _indent(line):
                e = j - 1
                break
        return s, e
    if e == s:
        return s, stop  # a line that opens no block: what follows it
    while e < stop and not lines[e + 1].strip():
        e += 1
    return s, e


def scope_blocks(lines: list[str], scopes: Sequence[str]) -> list[tuple[int, int]] | ScopeMissing:
    """The blocks (0-based, inclusive, sorted) the innermost of ``scopes`` names inside
    the blocks of the outer ones; every line when ``scopes`` is empty."""
    outer: list[tuple[int, int]] = [(0, len(lines) - 1)] if lines else []
    named: list[str] = []
    for depth, scope in enumerate(s for s in scopes if s.strip()):
        want = norm(scope)
        found: set[tuple[int, int]] = set()
        key = max(re.findall(r"\w+", want), key=len, default="")
        for test in (_starts, _holds):
            for a, b in outer:
                for j in range(a, b + 1):
                    line = lines[j]
                    # (a cheap test before folding: an ASCII line without the key cannot)
                    if (key in line or not line.isascii()) and test(norm(line), want):
                        found.add(block(lines, j, b))
            if found:
                break
        if not found:
            return ScopeMissing(scope.strip(), depth, tuple(named))
        outer = sorted(found)
        named.append(scope.strip())
    return outer


def scope_ranges(
    lines: list[str], starts: list[int], scopes: Sequence[str]
) -> list[tuple[int, int]] | ScopeMissing:
    """The blocks of :func:`scope_blocks` as offset ranges ``[start, end]`` of their lines'
    content, in the text whose ``lines`` start at ``starts``."""
    blocks = scope_blocks(lines, scopes)
    if isinstance(blocks, ScopeMissing):
        return blocks
    return [(starts[a], starts[b] + len(lines[b])) for a, b in blocks]


class Spans:
    """Ranges ``(a, b)``, asked whether one holds or meets a range, in O(log n)."""

    def __init__(self, ranges: list[tuple[int, int]]) -> None:
        ordered = sorted(ranges)
        self.starts = [a for a, _ in ordered]
        self.reach = list(itertools.accumulate((b for _, b in ordered), max))

    def contains(self, lo: int, hi: int) -> bool:
        """Whether one range ``[a, b]`` has ``a <= lo`` and ``hi <= b``."""
        k = bisect.bisect_right(self.starts, lo) - 1
        return k >= 0 and self.reach[k] >= hi

    def overlaps(self, lo: int, hi: int) -> bool:
        """Whether one half-open range ``[a, b)`` meets ``[lo, hi)``."""
        k = bisect.bisect_left(self.starts, hi) - 1
        return k >= 0 and self.reach[k] > lo
