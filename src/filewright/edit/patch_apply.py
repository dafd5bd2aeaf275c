"""Apply a V4A file's hunks to its text: every hunk placed, or none (pure).

Each hunk's expected lines (context and removed) are looked up in the ORIGINAL text:

1. as whole lines, exactly; if that finds nothing,
2. through the recovery ladder (`filewright.edit.matching`: trailing whitespace,
   indentation, blank lines, spacing, typography, ...), with blank context lines at the
   hunk's edges set aside (they stay as the file has them); only regions that cover whole
   lines (a missing indentation aside) count.

A hunk's ``@@`` scope lines are a constraint, at both steps: only matches in the block
they name count (:mod:`filewright.edit.scopes`: by indentation, Markdown heading level,
TOML table; nested scopes inside each other's blocks): a match that starts in it, or
whose changed lines lie in it (context may reach beyond); a scope that names no line
refuses the hunk (``patch_scope_not_found``, naming the scope). A hunk that still
matches in more than one place is narrowed by ``*** End of File`` (the match that ends
the file) and the order of hunks (after the previous hunk of the same file), each used
only when it leaves at least one match; if more than one remains the hunk is refused
with every location, never applied at the first.

What is written: context lines stay as the file has them, byte for byte; added lines
are the model's, in the file's indentation style, with the trailing whitespace the model
gave them (never the trailing whitespace of the removed lines they replace).

A hunk with no context and no removed lines adds its lines at the end of the file; with
an ``@@`` scope but no context it is refused, since appliers disagree about where such
lines go (after the scope line, or at the end of the file), unless it is marked ``*** End
of File`` and the file's last line is in the scope's block.

Failures are `EditFailure` values: ``patch_no_match`` (``hunk``, ``patch_line``,
``expected``, ``closest``), ``patch_ambiguous`` (``hunk``, ``patch_line``, ``count``,
``locations``), ``patch_overlap`` (two hunks claim the same lines),
``patch_no_context`` (added lines with a scope but no context), ``patch_scope_not_found``
(``hunk``, ``patch_line``, ``scope``, ``within``, ``closest``).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from types import ModuleType

from filewright.edit.carry import CannotCarry
from filewright.edit.matching import LADDER, MatchOutcome, Region, find
from filewright.edit.outcome import Edited, EditFailure, Result, edited
from filewright.edit.patch_parse import Hunk
from filewright.edit.replacement import adapt_replacement
from filewright.edit.scopes import ScopeMissing, Spans, scope_blocks
from filewright.edit.textindex import TextIndex

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
        # the ladder's per-level indexes, shared by every hunk; its lines and starts too
        self.index = ix = TextIndex(text)
        self.ends_with_newline = text.endswith("\n")
        n = len(ix.lines) - self.ends_with_newline
        self.lines = ix.lines[:n]
        self.starts = ix.starts[:n]

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
    blocks = scope_blocks(t.lines, hunk.scopes) if hunk.scopes else None
    if isinstance(blocks, ScopeMissing):
        return _scope_missing(t, hunk, number, blocks)
    if not old:
        # added lines only: at the end of the file, which must be in the scope if it has one
        if blocks is not None and not (
            hunk.end_of_file
            and t.lines
            and Spans(blocks).contains(len(t.lines) - 1, len(t.lines) - 1)
        ):
            return EditFailure(
                "patch_no_context",
                {"hunk": number, "patch_line": hunk.patch_line, "scope": list(hunk.scopes)},
            )
        return _append(t, new)
    cands, outcome = _in_scope(t, _exact(t, old), blocks, hunk.lines), None
    kinds = [k for k, _ in hunk.lines]
    if not cands:
        trimmed = _trim_blank_context(hunk)
        old_t = [x for k, x in trimmed if k != "+"]
        cands, outcome = _ladder(t, old_t, hunk.scopes)
        if not cands and blocks is not None:  # context from before the scope's line?
            cands, outcome = _ladder(t, old_t, ())
            cands = _in_scope(t, cands, blocks, trimmed)
            outcome = outcome if cands else None
        new = [x for k, x in trimmed if k != "-"]
        kinds = [k for k, _ in trimmed]
        if outcome is None:
            return _no_match(t, hunk, number, "\n".join(old), blocks)
    cands = [c for c in cands if not any(_overlaps(c, s.lines) for s in taken)]
    if not cands:
        return _no_match(t, hunk, number, "\n".join(old), blocks)
    cands = _narrow(t, hunk, cands, prev_end)
    if len(cands) > 1:
        spans = [(t.offset(c.first), c.first + 1, c.last) for c in cands[:_MAX_LOCATIONS]]
        return EditFailure(
            "patch_ambiguous",
            {
                "hunk": number,
                "patch_line": hunk.patch_line,
                "count": len(cands),
                "locations": _suggest().locations(t.text, spans),
                **({"scope": list(hunk.scopes)} if hunk.scopes else {}),
            },
        )
    c = cands[0]
    if outcome is None:
        return _line_splice(t, c.first, c.last, new, "exact")
    try:
        return _ladder_splice(t, c, outcome, new, kinds)
    except CannotCarry as exc:  # matched, but the change cannot be carried over unguessed
        failure = _no_match(t, hunk, number, "\n".join(old), blocks)
        failure.detail["uncertain"] = exc.reason
        return failure


def _trim_blank_context(hunk: Hunk) -> list[tuple[str, str]]:
    """The hunk's lines without the blank context lines at its two edges."""
    lines = list(hunk.lines)
    while lines and lines[0][0] == " " and not lines[0][1].strip():
        lines.pop(0)
    while lines and lines[-1][0] == " " and not lines[-1][1].strip():
        lines.pop()
    return lines


def _in_scope(
    t: _Text,
    cands: list[_Candidate],
    blocks: list[tuple[int, int]] | None,
    lines: tuple[tuple[str, str], ...] | list[tuple[str, str]],
) -> list[_Candidate]:
    """The candidates in the scope's blocks: those that start in one (their first non-blank
    line; where the reference appliers look for a hunk, after its ``@@`` line) or whose
    changed lines lie in one (the removed lines, the line above added ones); context
    lines may reach beyond the block."""
    if blocks is None:
        return cands
    spans = Spans(blocks)
    olds = [x for k, x in lines if k != "+"]
    changed: list[int] = []  # indexes into the hunk's old lines
    seen = 0  # old lines before this hunk line
    for k, _ in lines:
        if k == "-":
            changed.append(seen)
        elif k == "+":
            changed.append(max(0, seen - 1))  # the line above (the first, at the top)
        if k != "+":
            seen += 1
    non_blank = [i for i, x in enumerate(olds) if x.strip()]
    out = []
    for c in cands:
        span = range(c.first, c.last)
        body = [j for j in span if t.lines[j].strip()]
        if body and spans.contains(body[0], body[0]):
            out.append(c)
            continue
        # the hunk's old lines onto the file's: one for one, or by their non-blank lines
        # where the ladder set blank lines aside
        if len(span) == len(olds):
            files = [span[i] for i in changed]
        else:
            where = dict(zip(non_blank, body, strict=False))
            found = [where.get(i) for i in changed]
            files = [f for f in found if f is not None] if None not in found else []
        if files and spans.contains(min(files), max(files)):
            out.append(c)
    return out


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


def _ladder(
    t: _Text, old: list[str], scopes: tuple[str, ...]
) -> tuple[list[_Candidate], MatchOutcome | None]:
    """Ladder matches of ``old`` that start inside ``scopes`` and cover whole lines (a
    missing indentation aside)."""
    if not any(x.strip() for x in old):
        return [], None
    outcome = find(t.text, "\n".join(old), max_matches=None, scope=scopes, index=t.index)
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
    if len(cands) > 1 and prev_end:
        cands = keep([c for c in cands if c.first >= prev_end])
    return cands


def _line_splice(t: _Text, first: int, last: int, new: list[str], strategy: str) -> _Splice:
    """Replace whole lines ``[first, last)``, newlines included, with ``new``'s lines.

    Every line written ends with a newline; `apply_hunks` takes the last one off again
    when the file had none, so its final-newline state is kept."""
    start, end = t.offset(first), t.offset(last)
    return _Splice(start, end, "".join(x + "\n" for x in new), (first, last), strategy)


def _ladder_splice(
    t: _Text, c: _Candidate, outcome: MatchOutcome, new: list[str], kinds: list[str]
) -> _Splice:
    assert c.region is not None
    if not new:
        return _line_splice(t, c.first, c.last, [], outcome.strategy)
    r = c.region
    rep = adapt_replacement(outcome, r, t.text, "\n".join(new))
    new_kinds = [k for k in kinds if k != "-"]
    rep = _added_trailing(rep, new, new_kinds, t.lines[c.first : c.last], outcome.old)
    end = r.end
    line_end = t.line_end(c.last - 1)
    if [k for k in kinds if k != "+"][-1:] == ["-"] and not t.text[end:line_end].strip():
        end = max(end, line_end)  # the whitespace that ended a removed line goes with it
    return _Splice(r.start, end, rep, (c.first, c.last), outcome.strategy)


def _trail(line: str) -> str:
    return line[len(line.rstrip()) :]


def _added_trailing(rep: str, new: list[str], kinds: list[str], flines: list[str], old: str) -> str:
    """``rep`` with each added line ending in the whitespace the model gave it, not in that
    of the file line it replaced (a Markdown hard break removed stays removed). Where the
    model's context shows trailing whitespace the file's lines lack (a slip), added lines
    end in none. Lines are paired by order of the non-blank ones; unchanged if they do not
    pair up."""
    out = rep.split("\n")
    at = [i for i, x in enumerate(out) if x.strip()]
    given = [(x, k) for x, k in zip(new, kinds, strict=True) if x.strip()]
    if len(at) != len(given):
        return rep
    slip = all(not _trail(x) for x in flines) and any(_trail(x) for x in old.split("\n"))
    for i, (x, k) in zip(at, given, strict=True):
        if k == "+":
            out[i] = out[i].rstrip() + ("" if slip else _trail(x))
    return "\n".join(out)


def _suggest() -> ModuleType:
    """`filewright.edit.suggest` (rapidfuzz), needed only to explain a hunk that failed."""
    from filewright.edit import suggest  # rapidfuzz: loaded on failure only

    return suggest


def _no_match(
    t: _Text, hunk: Hunk, number: int, expected: str, blocks: list[tuple[int, int]] | None
) -> EditFailure:
    """Not found: with the closest real text (inside the hunk's scope first, if it has one)."""
    hints = _suggest().closest(t.text, expected, limit=6)
    detail: dict[str, object] = {"hunk": number, "patch_line": hunk.patch_line}
    if blocks is not None:
        scope_in = Spans(blocks)

        def later(hint: dict[str, object]) -> bool:
            """Hints outside the scope, or not close, after close ones inside it."""
            line = int(hint["start_line"]) - 1  # type: ignore[call-overload]
            close = float(hint["similarity"]) >= 0.5  # type: ignore[arg-type]
            return not (close and scope_in.contains(line, line))

        hints.sort(key=later)
        detail["scope"] = list(hunk.scopes)
        detail["scope_lines"] = [[a + 1, b + 1] for a, b in blocks[:_MAX_LOCATIONS]]
    detail.update({"expected": expected, "closest": hints[:3]})
    return EditFailure("patch_no_match", detail)


def _scope_missing(t: _Text, hunk: Hunk, number: int, missing: ScopeMissing) -> EditFailure:
    """A scope that names no line (inside the outer scopes): with the closest lines."""
    hints = [
        h
        for h in _suggest().closest(t.text, missing.scope, limit=3)
        if h["start_line"] == h["end_line"]
    ]
    return EditFailure(
        "patch_scope_not_found",
        {
            "hunk": number,
            "patch_line": hunk.patch_line,
            "scope": missing.scope,
            "within": list(missing.within),
            "closest": hints,
        },
    )
