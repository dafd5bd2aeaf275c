"""The text a ladder level searches, and the hits it finds (pure).

:class:`TextIndex` holds a text's lines, line starts and per-level indexes, computed once;
:class:`Region` is a matched region of the original text; :class:`Hit` what one ladder
level found.  :func:`anchored` and :func:`untrim` are the two rules for blank lines
trimmed from ``old``'s edges: a trimmed ``old`` still starts and ends at a line boundary
where it did, and blank lines that the file has at that place are given back to the
region (they are part of what ``old`` names).
"""

from __future__ import annotations

import bisect
import dataclasses
import re
from dataclasses import dataclass, field

from filewright.edit.normalize import (
    PUNCT,
    LineSpec,
    char_fold,
    collapse_spaces,
    drop_punct_spaces,
    fold_spelling,
    fold_typography,
    norm_line,
)

_NOT_PLAIN = re.compile(r"[^\x00-\x7f]|\\|&#")
COUNTED_LOOKUPS = 4
"""Line lookups a `TextIndex` answers by counting newlines before it builds its line table."""


@dataclass(frozen=True)
class Region:
    """A matched region of the ORIGINAL text: offsets ``[start, end)``, 1-based lines."""

    start: int
    end: int
    start_line: int
    end_line: int


class TextIndex:
    """Lazily computed, cached views of the text: lines, offsets, per-level indexes."""

    def __init__(self, text: str) -> None:
        self.text = text
        self._lines: list[str] | None = None
        self._starts: list[int] | None = None
        self._counted = 0
        self._norm: dict[tuple[bool, ...], tuple[list[str], list[int]]] = {}
        self._joined: dict[str, str] = {}
        self._folded: dict[tuple[bool, bool, bool], tuple[str, list[int]]] = {}

    @property
    def lines(self) -> list[str]:
        if self._lines is None:
            self._lines = self.text.split("\n")
        return self._lines

    @property
    def starts(self) -> list[int]:
        if self._starts is None:
            starts = [0]
            pos = 0
            for line in self.lines[:-1]:
                pos += len(line) + 1
                starts.append(pos)
            self._starts = starts
        return self._starts

    def line_of(self, offset: int) -> int:
        """0-based line index containing ``offset``.

        The first few lookups count the newlines before ``offset`` (in C: one place in a
        big file needs no line table); from the `COUNTED_LOOKUPS`-th on, the line starts
        are built once and searched (a count per lookup over 50,000 places of a
        replace_all was quadratic: 9.7 s)."""
        if self._starts is None and offset >= 0 and self._counted < COUNTED_LOOKUPS:
            self._counted += 1
            return self.text.count("\n", 0, offset)
        return bisect.bisect_right(self.starts, offset) - 1

    def level(self, spec: LineSpec) -> tuple[list[str], list[int]]:
        """(haystack of normalised lines, haystack position -> line index) for ``spec``.

        The spelling and punctuation levels are derived from the level below them (only
        the lines that spelling can change are normalised again; spaces next to
        punctuation are dropped in one pass over the joined lines), so each costs about a
        pass over the text, not a normalisation of every line from the start.
        """
        key = (spec.indent, spec.skip_blank, spec.collapse, spec.typo, spec.spell, spec.punct)
        cached = self._norm.get(key)
        if cached is not None:
            return cached
        if spec.punct:
            hay, pos = self.level(dataclasses.replace(spec, punct=False))
            hay = drop_punct_spaces("\n".join(hay)).split("\n") if hay else []
        elif spec.spell and spec.typo and spec.collapse and spec.indent and spec.skip_blank:
            hay, pos = self.level(dataclasses.replace(spec, spell=False, flat=False))
            hay = list(hay)
            lines, starts = self.lines, self.starts
            last = -1
            for m in _NOT_PLAIN.finditer(self.text):  # the lines spelling can change
                li = bisect.bisect_right(starts, m.start()) - 1
                if li == last:
                    continue
                last = li
                k = bisect.bisect_left(pos, li)
                if k < len(pos) and pos[k] == li:
                    hay[k] = norm_line(lines[li], spec)
        else:
            t = self.text
            if spec.spell:
                t = fold_spelling(t)
            if spec.typo:
                t = fold_typography(t)
            if spec.collapse:
                t = collapse_spaces(t)
            raw = t.split("\n")
            norm = [x.strip() for x in raw] if spec.indent else [x.rstrip() for x in raw]
            if spec.punct:
                norm = [drop_punct_spaces(x) for x in norm]
            if spec.skip_blank:
                pos = [i for i, x in enumerate(norm) if x]
                hay = [norm[i] for i in pos]
            else:
                pos = list(range(len(norm)))
                hay = norm
        self._norm[key] = (hay, pos)
        return hay, pos

    def may_hold(self, spec: LineSpec, key: str) -> bool:
        """Can a line of the text equal ``key`` at ``spec``'s level?  For the punctuation
        level, asked before its index is built: one regex search (``key`` with optional
        spaces next to its punctuation) over the level below, whose index exists already."""
        if not spec.punct:
            return True
        below = dataclasses.replace(spec, punct=False)
        joined = self._joined.get(below.name)
        if joined is None:
            joined = self._joined[below.name] = "\n".join(self.level(below)[0])
        pattern = "".join(" ?" + re.escape(c) + " ?" if c in PUNCT else re.escape(c) for c in key)
        return re.search(pattern, joined) is not None

    def folded(self, spec: LineSpec) -> tuple[str, list[int]]:
        """The whole text char-folded as ``spec`` folds it (for mid-line matches) and its
        line starts."""
        key = (spec.typo, spec.spell, spec.punct)
        cached = self._folded.get(key)
        if cached is None:
            f = char_fold(self.text, typo=spec.typo, spell=spec.spell, punct=spec.punct)
            starts = [0]
            i = f.find("\n")
            while i != -1:
                starts.append(i + 1)
                i = f.find("\n", i + 1)
            cached = self._folded[key] = (f, starts)
        return cached


@dataclass
class Hit:
    """What one ladder level found: its name, regions and how they sit in lines."""

    base: str
    regions: list[Region]
    mid_line: bool = False
    leading_nl: bool = False
    trailing_nl: bool = False
    spans: dict[Region, tuple[int, int, bool, bool]] = field(default_factory=dict)


def anchored(ix: TextIndex, hit: Hit | None, eff: str, info: dict[str, object]) -> Hit | None:
    """Keep the regions that still start/end at a line boundary where ``old`` did.

    Trimming blank lines loosens blank lines around ``old`` and nothing else: an ``old``
    that ended with a newline (a whole last line) must still end at a line end (trailing
    whitespace aside), one that began with a newline must still begin at a line start
    (indentation aside).
    """
    if hit is None:
        return None
    trimmed: tuple[int, int] = info.get("trimmed", (0, 0))  # type: ignore[assignment]
    n_lead, n_trail = trimmed
    text = ix.text
    if not (n_lead or n_trail) or (eff.startswith("\n") and eff.endswith("\n")):
        return hit

    def ends_line(r: Region) -> bool:
        nl = text.find("\n", r.end)
        return not text[r.end : len(text) if nl == -1 else nl].strip()

    def starts_line(r: Region) -> bool:
        return not text[text.rfind("\n", 0, r.start) + 1 : r.start].strip()

    keep = [
        r
        for r in hit.regions
        if (not n_trail or eff.endswith("\n") or ends_line(r))
        and (not n_lead or eff.startswith("\n") or starts_line(r))
    ]
    if not keep:
        return None
    if n_trail and hit.base in ("exact", "line_endings"):
        # the match covers the whole last line: the trailing whitespace it stopped before too
        def to_line_end(r: Region) -> Region:
            nl = text.find("\n", r.end)
            return Region(r.start, len(text) if nl == -1 else nl, r.start_line, r.end_line)

        keep = [to_line_end(r) for r in keep]
    hit.regions = keep
    hit.mid_line = any(r not in hit.spans for r in keep)
    return hit


def edge_lines(ix: TextIndex, r: Region, n_lead: int, n_trail: int) -> tuple[int, int] | None:
    """The 0-based lines that begin and end ``r`` widened by the blank lines that ``old``'s
    trimmed edges stand for, or ``None`` when the file does not have them there.

    ``n_trail`` newlines after the region's last line: the region's line ends, the next
    ``n_trail - 1`` lines are blank and one more line follows; ``n_lead`` likewise before
    its first line (``old`` then began at the end of the line before them).
    """
    lines = ix.lines
    a, b = r.start_line - 1, r.end_line - 1
    if n_trail:
        if b + n_trail >= len(lines) or any(lines[k].strip() for k in range(b + 1, b + n_trail)):
            return None
        if ix.text[r.end : ix.starts[b] + len(lines[b])].strip():
            return None
    if n_lead:
        if a - n_lead < 0 or any(lines[k].strip() for k in range(a - n_lead + 1, a)):
            return None
        if ix.text[ix.starts[a] : r.start].strip():
            return None
    return a, b


def untrim(ix: TextIndex, hit: Hit, eff: str, info: dict[str, object]) -> str:
    """Give the blank lines trimmed from ``old``'s edges back where the file has them.

    ``old`` ending (or beginning) with blank lines that the file has at that place names
    them: the region covers them and ``new`` keeps what it wrote around them (lines added
    after a trailing blank line come after it, not before the file's).  Only when every
    region has them; otherwise the trimmed match stands (the blank lines were stray).
    Returns the effective ``old``; ``info["trimmed"]``, the regions and spans are updated.
    """
    trimmed: tuple[int, int] = info.get("trimmed", (0, 0))  # type: ignore[assignment]
    n_lead, n_trail = trimmed
    if not (n_lead or n_trail) or eff.startswith("\n") or eff.endswith("\n"):
        return eff
    if hit.mid_line and hit.base not in ("exact", "line_endings"):
        return eff
    edges = [edge_lines(ix, r, n_lead, n_trail) for r in hit.regions]
    if any(e is None for e in edges):
        return eff
    lines, starts = ix.lines, ix.starts
    regions: list[Region] = []
    spans: dict[Region, tuple[int, int, bool, bool]] = {}
    for r, e in zip(hit.regions, edges, strict=True):
        assert e is not None
        a, b = e
        # old began at the end of the line before its blank lines, ends at a line start
        start = starts[a - n_lead + 1] - 1 if n_lead else r.start
        end = starts[b + n_trail] if n_trail else r.end
        new = Region(start, end, r.start_line, r.end_line)
        regions.append(new)
        cs, ce = hit.spans[r][:2] if r in hit.spans else (r.start, r.end)
        if n_lead:
            cs = starts[a - n_lead + 1]
        if n_trail:
            ce = starts[b + n_trail - 1] + len(lines[b + n_trail - 1])
        spans[new] = (cs, ce, bool(n_lead), bool(n_trail))
    if any(x.start < y.end for x, y in zip(regions[1:], regions, strict=False)):
        return eff
    hit.regions = regions
    hit.spans = spans if hit.spans else {}
    hit.leading_nl, hit.trailing_nl = bool(n_lead), bool(n_trail)
    info["trimmed"] = (0, 0)
    return "\n" * n_lead + eff + "\n" * n_trail
