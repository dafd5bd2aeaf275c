"""Apply a V4A file's hunks to its text: every hunk placed, or none (pure).

Each hunk's expected lines (context and removed) are looked up in the ORIGINAL text:

1. as whole lines, exactly; if that finds nothing,
2. through the recovery ladder (`filewright.edit.matching`: trailing whitespace,
   indentation, blank lines, spacing, typography, ...), with blank context lines at the
   hunk's edges set aside (they stay as the file has them); only regions that cover whole
   lines (a missing indentation aside) count.

A hunk that matches in more than one place is narrowed, in turn, by what the patch says
about where it is: ``*** End of File`` (the match that ends the file), its ``@@`` scope
lines (matches inside the block of a line that starts with the scope text, nested scopes
inside each other's blocks), and the order of hunks (after the previous hunk of the same
file). Each narrowing is used only when it leaves at least one match; if more than one
remains the hunk is refused with every location, never applied at the first. A unique
match is applied even where a scope line was not found: the context decides.

A hunk with no context and no removed lines adds its lines at the end of the file; with
an ``@@`` scope but no context it is refused, since appliers disagree about where such
lines go (after the scope line, or at the end of the file).

Failures are `EditFailure` values: ``patch_no_match`` (``hunk``, ``patch_line``,
``expected``, ``closest``), ``patch_ambiguous`` (``hunk``, ``patch_line``, ``count``,
``locations``), ``patch_overlap`` (two hunks claim the same lines),
``patch_no_context`` (added lines with a scope but no context).
"""

from __future__ import annotations

import bisect
import itertools
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from filewright.edit.carry import CannotCarry
from filewright.edit.matching import LADDER, MatchOutcome, Region, find
from filewright.edit.normalize import collapse_spaces, fold_typography
from filewright.edit.outcome import Edited, EditFailure, Result, edited
from filewright.edit.patch_parse import Hunk
from filewright.edit.replacement import adapt_replacement

_MAX_LOCATIONS = 20  # places listed for an ambiguous hunk (``count`` says how many there are)


@dataclass(frozen=True)
class _Splice:
    """Replace ``text[start:end]`` with ``new``; ``lines`` is the 0-based line range."""

    start: int
    end: int
    new: str
    lines: tuple[int, int]
    strategy: str


@dataclass(frozen=True)
class _Candidate:
    """A place a hunk's expected lines match: 0-based lines ``[first, last)``."""

    first: int
    last: int
    region: Region | None = None  # set for ladder matches


class _Text:
    """The text, its lines (without the phantom line after a final newline), line starts."""

    def __init__(self, text: str) -> None:
        self.text = text
        lines = text.split("\n")
        self.ends_with_newline = text.endswith("\n")
        if self.ends_with_newline:
            lines.pop()
        self.lines = lines
        starts, pos = [], 0
        for line in lines:
            starts.append(pos)
            pos += len(line) + 1
        self.starts = starts

    def offset(self, line: int) -> int:
        """Offset where 0-based ``line`` starts (len(text) past the last line)."""
        return self.starts[line] if line < len(self.starts) else len(self.text)

    def line_end(self, line: int) -> int:
        """Offset just past the content of 0-based ``line`` (before its newline)."""
        return self.starts[line] + len(self.lines[line])


def apply_hunks(text: str, hunks: tuple[Hunk, ...] | list[Hunk]) -> Result:
    """The text with every hunk applied, or the first hunk's failure (nothing applied)."""
    t = _Text(text)
    splices: list[_Splice] = []
    prev_end = 0
    for number, hunk in enumerate(hunks, 1):
        placed = _place(t, hunk, number, splices, prev_end)
        if isinstance(placed, EditFailure):
            return placed
        if placed is None:
            continue
        splices.append(placed)
        prev_end = placed.lines[1]
    splices.sort(key=lambda s: (s.start, s.end))
    for a, b in itertools.pairwise(splices):
        if b.start < a.end:
            return EditFailure("patch_overlap", {"lines": [a.lines[0] + 1, b.lines[0] + 1]})
    out, pos = [], 0
    for s in splices:
        out.append(text[pos : s.start])
        out.append(s.new)
        pos = s.end
    out.append(text[pos:])
    new_text = "".join(out)
    if text and not text.endswith("\n") and new_text.endswith("\n"):
        new_text = new_text[:-1]  # the file ended without a newline: so does the result
    strategy = max((s.strategy for s in splices), key=_rank, default="exact")
    result = edited(text, new_text, len(splices), strategy)
    if isinstance(result, EditFailure):  # the hunks change nothing: not an error for a patch
        return Edited(text, 0, strategy, None)
    return result


def _rank(strategy: str) -> int:
    return LADDER.index(strategy) if strategy in LADDER else 0


def _place(
    t: _Text, hunk: Hunk, number: int, taken: list[_Splice], prev_end: int
) -> _Splice | EditFailure | None:
    old, new = hunk.old_lines, hunk.new_lines
    if not hunk.changes:
        return None
    if not old:
        if hunk.scopes and not hunk.end_of_file:
            return EditFailure(
                "patch_no_context",
                {"hunk": number, "patch_line": hunk.patch_line, "scope": list(hunk.scopes)},
            )
        return _append(t, new)
    cands, outcome = _exact(t, old), None
    if not cands:
        old_t, new_t = _trim_blank_context(hunk)
        cands, outcome = _ladder(t, old_t)
        new = new_t
        if outcome is None:
            return _no_match(t, hunk, number, "\n".join(old))
    cands = [c for c in cands if not any(_overlaps(c, s.lines) for s in taken)]
    if not cands:
        return _no_match(t, hunk, number, "\n".join(old))
    cands = _narrow(t, hunk, cands, prev_end)
    if len(cands) > 1:
        from filewright.edit.suggest import locations  # rapidfuzz: loaded on failure only

        spans = [(t.offset(c.first), c.first + 1, c.last) for c in cands[:_MAX_LOCATIONS]]
        return EditFailure(
            "patch_ambiguous",
            {
                "hunk": number,
                "patch_line": hunk.patch_line,
                "count": len(cands),
                "locations": locations(t.text, spans),
            },
        )
    c = cands[0]
    if outcome is None:
        return _line_splice(t, c.first, c.last, new, "exact")
    try:
        return _ladder_splice(t, c, outcome, new)
    except CannotCarry as exc:  # matched, but the change cannot be carried over unguessed
        failure = _no_match(t, hunk, number, "\n".join(old))
        failure.detail["uncertain"] = exc.reason
        return failure


def _trim_blank_context(hunk: Hunk) -> tuple[list[str], list[str]]:
    """(old, new) without the blank context lines at the hunk's two edges."""
    lines = list(hunk.lines)
    while lines and lines[0][0] == " " and not lines[0][1].strip():
        lines.pop(0)
    while lines and lines[-1][0] == " " and not lines[-1][1].strip():
        lines.pop()
    return [x for k, x in lines if k != "+"], [x for k, x in lines if k != "-"]


def _overlaps(c: _Candidate, lines: tuple[int, int]) -> bool:
    a, b = lines
    if a == b:  # an insertion point
        return c.first < a < c.last
    return c.first < b and a < c.last


def _append(t: _Text, new: list[str]) -> _Splice:
    """Lines added at the end of the file."""
    end = len(t.text)
    body = "".join(x + "\n" for x in new)
    if t.text and not t.ends_with_newline:
        body = "\n" + body
    n = len(t.lines)
    return _Splice(end, end, body, (n, n), "exact")


def _exact(t: _Text, old: list[str]) -> list[_Candidate]:
    m, lines = len(old), t.lines
    out: list[_Candidate] = []
    first = old[0]
    i = -1
    while True:
        try:
            i = lines.index(first, i + 1)
        except ValueError:
            return out
        if i + m > len(lines):
            return out
        if lines[i : i + m] == old:
            out.append(_Candidate(i, i + m))


def _ladder(t: _Text, old: list[str]) -> tuple[list[_Candidate], MatchOutcome | None]:
    """Ladder matches of ``old`` that cover whole lines (a missing indentation aside)."""
    if not any(x.strip() for x in old):
        return [], None
    outcome = find(t.text, "\n".join(old), max_matches=None)
    cands = []
    for r in outcome.regions:
        first, last = r.start_line - 1, r.end_line
        if first >= len(t.lines):
            continue
        last = min(last, len(t.lines))
        before = t.text[t.offset(first) : r.start]
        after = t.text[r.end : t.line_end(last - 1)]
        if before.strip() or after.strip():
            continue  # part of a line: a hunk speaks of whole lines
        cands.append(_Candidate(first, last, r))
    if not cands:
        return [], None
    return cands, outcome


def _narrow(t: _Text, hunk: Hunk, cands: list[_Candidate], prev_end: int) -> list[_Candidate]:
    def keep(sub: list[_Candidate]) -> list[_Candidate]:
        return sub if sub else cands

    if len(cands) > 1 and hunk.end_of_file:
        cands = keep([c for c in cands if c.last == len(t.lines)])
    if len(cands) > 1 and hunk.scopes:
        inside = _inside(_scope_blocks(t.lines, hunk.scopes))
        cands = keep([c for c in cands if inside(c.first)])
    if len(cands) > 1 and prev_end:
        cands = keep([c for c in cands if c.first >= prev_end])
    return cands


def _norm(line: str) -> str:
    return collapse_spaces(fold_typography(line)).strip()


def _starts_scope(line: str, scope: str) -> bool:
    n = _norm(line)
    if not n.startswith(scope):
        return False
    rest = n[len(scope) :]
    return not rest or not (rest[0].isalnum() or rest[0] == "_") or not scope[-1:].isalnum()


def _indent(line: str) -> int:
    return len(line.expandtabs(4)) - len(line.expandtabs(4).lstrip())


_OPENERS = frozenset("{([")
_CLOSERS = ("}", ")", "]", "end", "fi", "done", "esac")


def _block(lines: list[str], s: int) -> tuple[int, int]:
    """Lines ``[s, e]`` of the block that line ``s`` opens: until a line indented no more
    than it (a lone opening bracket excepted; a closing one included)."""
    base = _indent(lines[s])
    e = s
    for j in range(s + 1, len(lines)):
        line = lines[j]
        if not line.strip():
            continue
        stripped = line.strip()
        if _indent(line) <= base:
            if set(stripped) <= _OPENERS:
                e = j
                continue
            if stripped.startswith(_CLOSERS):
                e = j
            break
        e = j
    return s, e


def _inside(blocks: list[tuple[int, int]]) -> Callable[[int], bool]:
    """A test of whether a line lies in one of ``blocks`` (sorted), in O(log n)."""
    starts = [a for a, _ in blocks]
    reach = list(itertools.accumulate((b for _, b in blocks), max))

    def test(line: int) -> bool:
        k = bisect.bisect_right(starts, line) - 1
        return k >= 0 and reach[k] >= line

    return test


def _union(blocks: list[tuple[int, int]]) -> Iterator[int]:
    """Each line of the (sorted, possibly nested) blocks once."""
    nxt = 0
    for a, b in blocks:
        yield from range(max(a, nxt), b + 1)
        nxt = max(nxt, b + 1)


def _scope_blocks(lines: list[str], scopes: tuple[str, ...]) -> list[tuple[int, int]]:
    """The blocks of the innermost scope lines that sit inside blocks of the outer ones
    (empty when a scope is not found: then the scopes do not narrow)."""
    blocks: list[tuple[int, int]] = [(0, len(lines) - 1)]
    for scope in scopes:
        want = _norm(scope)
        found = {_block(lines, j) for j in _union(blocks) if want and _starts_scope(lines[j], want)}
        if not found:
            return []
        blocks = sorted(found)
    return blocks


def _line_splice(t: _Text, first: int, last: int, new: list[str], strategy: str) -> _Splice:
    """Replace whole lines ``[first, last)``, newlines included, with ``new``'s lines.

    Every line written ends with a newline; `apply_hunks` takes the last one off again
    when the file had none, so its final-newline state is kept."""
    start, end = t.offset(first), t.offset(last)
    return _Splice(start, end, "".join(x + "\n" for x in new), (first, last), strategy)


def _ladder_splice(t: _Text, c: _Candidate, outcome: MatchOutcome, new: list[str]) -> _Splice:
    assert c.region is not None
    if not new:
        return _line_splice(t, c.first, c.last, [], outcome.strategy)
    r = c.region
    rep = adapt_replacement(outcome, r, t.text, "\n".join(new))
    return _Splice(r.start, r.end, rep, (c.first, c.last), outcome.strategy)


def _no_match(t: _Text, hunk: Hunk, number: int, expected: str) -> EditFailure:
    """Not found: with the closest real text (inside the hunk's scope first, if it has one)."""
    from filewright.edit.suggest import closest  # rapidfuzz: loaded on failure only

    hints = closest(t.text, expected, limit=6)
    if hunk.scopes:
        inside = _inside(_scope_blocks(t.lines, hunk.scopes))

        def later(hint: dict[str, object]) -> bool:
            """Hints outside the scope, or not close, after close ones inside it."""
            line = int(hint["start_line"]) - 1  # type: ignore[call-overload]
            close = float(hint["similarity"]) >= 0.5  # type: ignore[arg-type]
            return not (close and inside(line))

        hints.sort(key=later)
    return EditFailure(
        "patch_no_match",
        {
            "hunk": number,
            "patch_line": hunk.patch_line,
            "expected": expected,
            "closest": hints[:3],
        },
    )
