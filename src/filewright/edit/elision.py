"""Elision lines: ``old`` and ``new`` that skip unchanged lines with the same ``...`` line.

Models shorten a long ``old_string`` by writing ``...`` or ``// ... existing code ...``
where lines they do not change stand, and write the same line at the same place in
``new_string`` (Aider calls them "dotdotdots").  When ``old`` as a whole is found nowhere,
:func:`split_elided` cuts both at those lines into pieces; :func:`place` finds ``old``'s
pieces in order, each exactly once after the one before (each through the whole ladder,
:func:`filewright.edit.matching.find`); the lines between them are the file's and stay as
they are, and each piece is replaced by its counterpart of ``new``.  A piece found in two
places after the one before is an ambiguity listing both; ``new`` text that stands where
``old`` has nothing (before a leading ``...``) cannot be placed: refused.  Pure functions.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass

from filewright.edit.matching import MatchOutcome, Region, find
from filewright.edit.placeholders import is_placeholder
from filewright.edit.textindex import TextIndex

_BARE = re.compile(
    r"^\s*(?://+|#+|--|/\*+|<!--|\{/\*)?\s*(?:\.{3,}|\u2026+)\s*(?:\*+/|-->|\*/\})?\s*$"
)


def is_elision(line: str) -> bool:
    """Is ``line`` a line that stands for lines left out (``...``, ``// ... existing code``)?"""
    return bool(_BARE.match(line)) or is_placeholder(line)


def _pieces(s: str) -> tuple[list[str], list[str]]:
    """``s`` cut at its elision lines: the pieces (whole lines, each with the line break
    before the next elision line) and the elision lines (stripped)."""
    lines = s.split("\n")
    pieces: list[str] = []
    marks: list[str] = []
    start = 0
    for i, line in enumerate(lines):
        if line.strip() and is_elision(line):
            pieces.append("\n".join(lines[start:i]) + ("\n" if i > start else ""))
            marks.append(" ".join(line.split()))
            start = i + 1
    pieces.append("\n".join(lines[start:]))
    return pieces, marks


def split_elided(old: str, new: str) -> list[tuple[str, str]] | None:
    """The (old piece, new piece) pairs when ``old`` and ``new`` have the same elision lines
    in the same order (None otherwise, or when a piece of ``new`` stands where ``old`` has
    none: nothing says where it goes)."""
    if "..." not in old and "\u2026" not in old and "existing" not in old:
        return None
    opieces, omarks = _pieces(old)
    npieces, nmarks = _pieces(new)
    if not omarks or omarks != nmarks:
        return None
    pairs = list(zip(opieces, npieces, strict=True))
    if any(not o.strip() and n.strip() for o, n in pairs):
        return None
    if not any(o.strip() for o, _ in pairs):
        return None
    return [(o, n) for o, n in pairs if o.strip()]


@dataclass
class Placed:
    """Where each piece of ``old`` was found: its outcome and region, in text order; or,
    when a piece fits no place or several, ``failed`` (``"no_match"`` or ``"ambiguous"``)
    with the outcome that says so."""

    found: list[tuple[MatchOutcome, Region, str]]
    failed: str | None = None
    outcome: MatchOutcome | None = None


def place(text: str, pairs: list[tuple[str, str]]) -> Placed:
    """Find the pieces of ``old`` in order, each exactly once after the one before."""
    found: list[tuple[MatchOutcome, Region, str]] = []
    after = 0
    ix = TextIndex(text)  # each level's index built once for all the pieces
    for old, new in pairs:
        out = find(text, old, max_matches=None, index=ix)
        regions = [r for r in out.places if r.start >= after]  # overlapping ones count too
        if not regions:
            return Placed(found, "no_match", out)
        if len(regions) > 1:
            return Placed(
                found, "ambiguous", dataclasses.replace(out, regions=regions, overlapped=[])
            )
        found.append((out, regions[0], new))
        after = regions[0].end
    return Placed(found)
