"""Find the text a model meant: exact first, then a fixed ladder of normalisations.

The ladder, strict to loose.  :func:`find` stops at the FIRST level that finds at least one
region; a region only ever counts when it is *equal* to ``old`` after the level's
normalisation (similarity is never used here, see :mod:`filewright.edit.suggest` for hints):

 1. ``exact``               -- substring search (every occurrence, see "Overlaps" below).
 2. ``line_endings``        -- ``old`` carried ``\\r``/``\\r\\n`` while the text has none.
 3. ``trailing_whitespace`` -- whole lines, trailing whitespace ignored.
 4. ``indentation``         -- plus leading whitespace set aside, but the file's indentation
                               must equal old's plus ONE uniform offset (tabs expanded at
                               width 4, 8 or 2), so relative indentation is preserved.
 5. ``blank_lines``         -- plus blank lines inside the block ignored on both sides.
 6. ``inner_spaces``        -- plus runs of spaces/tabs inside lines compare as one space;
                               a single-line ``old`` may also match inside a line.
 7. ``typography``          -- plus curly quotes, dashes, minus, special spaces (NBSP, narrow
                               NBSP, full-width space), the ellipsis and full-width/CJK
                               punctuation, letters and digits folded to ASCII.
 8. ``unescape``            -- ``old`` sent over-escaped (``\\n``, ``\\t``, ``\\"``, ``\\'``,
                               ``\\\\``): unescaped, then levels 1-7 retried.
 9. ``line_numbers``        -- every line of ``old`` carries a consecutive line-number
                               prefix copied from a read: stripped (also after unescaping),
                               then levels 1-7 retried.
10. ``trim_blank_lines``    -- stray blank lines around ``old`` trimmed (also after the two
                               transforms above), then levels 1-7 retried.

``MatchOutcome.strategy`` names the level that matched; ``MatchOutcome.steps`` lists the
transforms and the whitespace level used inside them, e.g. ``("line_numbers",
"indentation")``.  A transform loosens only what it says: ``old`` trimmed of stray blank
lines still starts and ends at a line boundary where it did.

:func:`filewright.edit.replacement.adapt_replacement` decides what is written at a match, by the rule of
:mod:`filewright.edit.carry`: every line (and blank line) that ``old`` and ``new`` agree on
modulo the normalisations comes out byte-identical to the file; only what the model changed
is changed, in the file's style where that is unambiguous; where it cannot be carried
without guessing, :class:`~filewright.edit.carry.CannotCarry` is raised and the edit is
refused with the real text.

Overlaps: every level finds every place ``old`` fits, overlapping ones included (``"x\nx\n"``
fits ``"x\nx\nx\n"`` at line 1 and at line 2).  :class:`MatchOutcome` keeps the leftmost
non-overlapping ones as ``regions`` (what a replace-all replaces, as ``str.replace`` does) and
the others as ``overlapped``.  A counted edit (``max_matches`` not ``None``) counts every
place: one whose old text also fits overlapping its one non-overlapping occurrence is
ambiguous (issue 29: the model's text fits two places; never pick one), and places that
overlap can never all be replaced, whatever count was expected.

Levels 3-7 compare whole lines (old's first and last line must be whole file lines), and
each is linear: the text's normalised lines are indexed once per level, candidates are
anchored on old's rarest line and then verified.
"""

from __future__ import annotations

import bisect
from collections.abc import Sequence
from dataclasses import dataclass, field

from filewright.edit.normalize import (
    LinePrefix,
    LineSpec,
    char_fold,
    char_fold_with_map,
    indent_offset,
    norm_line,
    strip_line_numbers,
    trim_blank_lines,
    unescape,
)
from filewright.edit.scopes import ScopeMissing, Spans, scope_ranges
from filewright.edit.textindex import Hit, Region, TextIndex, anchored, untrim

LADDER: tuple[str, ...] = (
    "exact",
    "line_endings",
    "trailing_whitespace",
    "indentation",
    "blank_lines",
    "inner_spaces",
    "typography",
    "spelling",
    "flattened",
    "punctuation_spacing",
    "unescape",
    "line_numbers",
    "trim_blank_lines",
)

#: The line-based levels, cumulative.
LINE_SPECS: tuple[LineSpec, ...] = (
    LineSpec("trailing_whitespace"),
    LineSpec("indentation", indent=True),
    LineSpec("blank_lines", indent=True, skip_blank=True),
    LineSpec("inner_spaces", indent=True, skip_blank=True, collapse=True),
    LineSpec("typography", indent=True, skip_blank=True, collapse=True, typo=True),
    LineSpec("spelling", indent=True, skip_blank=True, collapse=True, typo=True, spell=True),
    LineSpec(
        "flattened", indent=True, skip_blank=True, collapse=True, typo=True, spell=True, flat=True
    ),
    LineSpec(
        "punctuation_spacing",
        indent=True,
        skip_blank=True,
        collapse=True,
        typo=True,
        spell=True,
        flat=True,
        punct=True,
    ),
)
SPECS: dict[str, LineSpec] = {s.name: s for s in LINE_SPECS}


@dataclass(frozen=True)
class MatchOutcome:
    """What :func:`find` found, and what :func:`adapt_replacement` needs to invert it.

    ``regions`` are non-overlapping and in text order (leftmost first, as ``str.replace``
    takes them); ``overlapped`` are the other places ``old`` fits, each overlapping a
    region.  ``strategy`` is the ladder level
    that matched (``"none"`` when nothing did), ``steps`` the transforms and whitespace
    level used, ``old`` the effective ``old`` that matched (after transforms).
    ``error`` is ``"empty_old"`` when ``old`` was empty (the caller decides what that means),
    ``"scope_not_found"`` when a scope names no line (``missing_scope`` says which).
    """

    regions: list[Region]
    strategy: str
    steps: tuple[str, ...] = ()
    old: str = ""
    base: str = "none"
    max_matches: int | None = 1
    crlf: bool = False
    unescaped: bool = False
    prefix: LinePrefix | None = None
    trimmed: tuple[int, int] = (0, 0)
    mid_line: bool = False
    leading_nl: bool = False
    trailing_nl: bool = False
    error: str | None = None
    missing_scope: ScopeMissing | None = None
    # per region: (content start, content end, leading newline included, trailing included)
    spans: dict[Region, tuple[int, int, bool, bool]] = field(default_factory=dict, repr=False)
    overlapped: list[Region] = field(default_factory=list)

    @property
    def count(self) -> int:
        """Number of non-overlapping regions found (what a replace-all replaces)."""
        return len(self.regions)

    @property
    def places(self) -> list[Region]:
        """Every place ``old`` fits, overlapping ones included, in text order."""
        if not self.overlapped:
            return self.regions
        return sorted(self.regions + self.overlapped, key=lambda r: (r.start, r.end))

    @property
    def ok(self) -> bool:
        """True when at least one region was found and, for a counted edit, no more places
        than ``max_matches`` and none overlapping another."""
        return self.count >= 1 and not self.ambiguous

    @property
    def ambiguous(self) -> bool:
        """True for a counted edit (``max_matches`` not ``None``) when more places were
        found than it allows, or places that overlap (they cannot all be replaced)."""
        if self.max_matches is None:
            return False
        return bool(self.overlapped) or self.count > self.max_matches


# --------------------------------------------------------------------------- base levels


def _exact(ix: TextIndex, old: str, name: str) -> Hit | None:
    text = ix.text
    pos = text.find(old)
    if pos == -1:
        return None
    regions = []
    while pos != -1:  # every occurrence, overlapping ones too (split in `find`)
        end = pos + len(old)
        regions.append(Region(pos, end, ix.line_of(pos) + 1, ix.line_of(max(pos, end - 1)) + 1))
        pos = text.find(old, pos + 1)
    return Hit(name, regions)


def split_edges(old: str) -> tuple[list[str], bool, bool] | None:
    """``old``'s lines without one leading and one trailing newline, and whether it had
    them; ``None`` when nothing but whitespace is left."""
    lead = old.startswith("\n")
    body = old[1:] if lead else old
    trail = body.endswith("\n")
    body = body[:-1] if trail else body
    if not body.strip():
        return None
    return body.split("\n"), lead, trail


_ANCHOR_KEYS = 8


def _block_matches(ix: TextIndex, olines: list[str], spec: LineSpec) -> list[tuple[int, int]]:
    """Whole-line blocks equal to ``olines`` at ``spec``'s level, as 0-based line ranges."""
    onorm = [norm_line(x, spec) for x in olines]
    if spec.skip_blank:
        if not onorm[0] or not onorm[-1]:
            return []  # stray blank lines at the edges are the trim level's business
        keep = [k for k, x in enumerate(onorm) if x]
    else:
        keep = list(range(len(onorm)))
    seq = [onorm[k] for k in keep]
    longest = max(seq, key=len, default="")
    if not ix.may_hold(spec, longest):
        return []  # (before the level's index is built)
    hay, pos = ix.level(spec)
    # anchor on the rarest of (up to 8 of the longest of) old's lines: counted and located
    # with C-speed list.count / list.index, no index of the whole text is built
    keys = sorted({x for x in seq if x}, key=len, reverse=True)[:_ANCHOR_KEYS]
    if not keys:
        return []
    counts = {x: hay.count(x) for x in keys}
    key = min(keys, key=lambda x: counts[x])
    if counts[key] == 0:
        return []
    anchor = seq.index(key)
    hits: list[int] = []
    p = -1
    for _ in range(counts[key]):
        p = hay.index(key, p + 1)
        hits.append(p)
    m = len(seq)
    out: list[tuple[int, int]] = []
    lines = ix.lines
    for p in hits:
        s = p - anchor
        if s < 0 or s + m > len(hay) or hay[s : s + m] != seq:
            continue
        if spec.indent and not spec.flat:
            pairs = [(_lead(lines[pos[s + j]]), _lead(olines[keep[j]])) for j in range(m) if seq[j]]
            if indent_offset(pairs) is None:
                continue
        out.append((pos[s], pos[s + m - 1]))
    return out


def _lead(line: str) -> str:
    return line[: len(line) - len(line.lstrip())]


def _line_hit(ix: TextIndex, old: str, spec: LineSpec) -> Hit | None:
    split = split_edges(old)
    if split is None:
        return None
    olines, lead, trail = split
    blocks = _block_matches(ix, olines, spec)
    regions: list[Region] = []
    spans: dict[Region, tuple[int, int, bool, bool]] = {}
    lines, starts = ix.lines, ix.starts
    for a, b in blocks:  # overlapping blocks too (split in `find`)
        cs, ce = starts[a], starts[b] + len(lines[b])
        lead_in = lead and a > 0
        trail_in = trail and b < len(lines) - 1
        start, end = cs - lead_in, ce + trail_in
        r = Region(start, end, a + 1, b + 1)
        regions.append(r)
        spans[r] = (cs, ce, lead_in, trail_in)
    if spec.collapse and len(olines) == 1 and not lead and not trail:
        taken = {r.start_line for r in regions}
        extra = [r for r in _mid_line(ix, old, spec) if r.start_line not in taken]
        regions = sorted(regions + extra, key=lambda r: r.start)
    if not regions:
        return None
    mid = any(r not in spans for r in regions)
    return Hit(spec.name, regions, mid, lead, trail, spans)


def _mid_line(ix: TextIndex, old: str, spec: LineSpec) -> list[Region]:
    """Single-line ``old`` found inside lines after collapsing spaces (and folding typography)."""
    fold = {"typo": spec.typo, "spell": spec.spell, "punct": spec.punct}
    needle = char_fold(old, **fold)
    if not needle.strip():
        return []
    folded, fstarts = ix.folded(spec)
    out: list[Region] = []
    hit = folded.find(needle)
    while hit != -1:
        li = bisect.bisect_right(fstarts, hit) - 1
        line = ix.lines[li]
        fline, cmap = char_fold_with_map(line, **fold)
        off = hit - fstarts[li]
        last = off + len(needle)
        ok_start = off == 0 or cmap[off - 1] != cmap[off]
        ok_end = last == len(cmap) or cmap[last - 1] != cmap[last]
        if ok_start and ok_end and fline[off:last] == needle:
            s = cmap[off]
            e = cmap[last] if last < len(cmap) else len(line)
            base = ix.starts[li]
            out.append(Region(base + s, base + e, li + 1, li + 1))
        hit = folded.find(needle, hit + 1)  # overlapping ones too (split in `find`)
    return out


def _split_overlaps(regions: list[Region]) -> tuple[list[Region], list[Region]]:
    """``regions`` (every place, in text order) as the leftmost non-overlapping ones and
    the others (each overlapping one kept before it)."""
    kept: list[Region] = []
    other: list[Region] = []
    last_end = -1
    for r in sorted(regions, key=lambda r: (r.start, r.end)):
        if r.start < last_end:
            other.append(r)
        else:
            kept.append(r)
            last_end = r.end
    return kept, other


_Within = Spans | None  # offset ranges a region must start in (None: anywhere)


def _try_base(ix: TextIndex, old: str, crlf: bool, within: _Within = None) -> Hit | None:
    hit = _inside(ix, _exact(ix, old, "line_endings" if crlf else "exact"), within)
    if hit:
        return hit
    for spec in LINE_SPECS:
        hit = _inside(ix, _line_hit(ix, old, spec), within)
        if hit:
            return hit
    return None


def _inside(ix: TextIndex, hit: Hit | None, within: _Within) -> Hit | None:
    """``hit`` with only its regions that start in a range of ``within`` (their first
    character that is not whitespace; ``None`` when none does)."""
    if hit is None or within is None:
        return hit
    text = ix.text

    def first(r: Region) -> int:
        p = r.start
        while p < r.end and text[p] in " \t\r\n":
            p += 1
        return p

    keep = [r for r in hit.regions if within.contains(first(r), first(r))]
    if not keep:
        return None
    hit.regions = keep
    hit.mid_line = any(r not in hit.spans for r in keep)
    return hit


# --------------------------------------------------------------------------- the ladder


def _variants(old: str) -> list[tuple[str, str, tuple[str, ...], dict[str, object]]]:
    """(level, transformed old, steps, inverse info) for the transform levels, in order."""
    out: list[tuple[str, str, tuple[str, ...], dict[str, object]]] = []
    u = unescape(old)
    if u != old:
        out.append(("unescape", u, ("unescape",), {"unescaped": True}))
    bases: list[tuple[str, tuple[str, ...], dict[str, object]]] = [(old, (), {})]
    if u != old:
        bases.append((u, ("unescape",), {"unescaped": True}))
    numbered: list[tuple[str, tuple[str, ...], dict[str, object]]] = []
    for s, steps, info in bases:
        stripped = strip_line_numbers(s)
        if stripped and stripped[0] != s:
            numbered.append(
                (stripped[0], (*steps, "line_numbers"), {**info, "prefix": stripped[1]})
            )
    out.extend(("line_numbers", s, st, info) for s, st, info in numbered)
    for s, steps, info in bases + numbered:
        t, n_lead, n_trail = trim_blank_lines(s)
        if t != s and t.strip():
            info2 = {**info, "trimmed": (n_lead, n_trail)}
            out.append(("trim_blank_lines", t, (*steps, "trim_blank_lines"), info2))
    return out


def find(
    text: str,
    old: str,
    *,
    max_matches: int | None = 1,
    fuzzy: bool = True,
    scope: Sequence[str] = (),
    index: TextIndex | None = None,
) -> MatchOutcome:
    """Find ``old`` in ``text`` with the ladder (see module docstring).

    ``max_matches`` is how many places the caller accepts (``None``: any number, the
    leftmost non-overlapping ones replaced); it only decides :attr:`MatchOutcome.ok` /
    :attr:`MatchOutcome.ambiguous` (a counted edit counts overlapping places and refuses
    them); every place of the first matching level is always reported (``regions`` and
    ``overlapped``).  ``fuzzy=False`` tries the
    exact level only.  ``scope`` (the lines that open the enclosing blocks, outer first:
    a patch's ``@@`` lines) is a constraint: only regions that start in the block it
    names count (their first non-blank character), at every level (a level whose regions
    all start outside is passed over); a scope that names no line gives
    ``error="scope_not_found"``.

    ``index`` is a :class:`TextIndex` of this same ``text`` kept by a caller that searches
    it several times (a patch's hunks, elided pieces): each level's index is then built
    once per text, not once per call.  One of another text is ignored.
    """
    if old == "":
        return MatchOutcome([], "none", max_matches=max_matches, error="empty_old")
    crlf = "\r" in old and "\r" not in text
    if crlf:
        old = old.replace("\r\n", "\n").replace("\r", "\n")
    ix = index if index is not None and index.text is text else TextIndex(text)
    within: _Within = None
    if any(s.strip() for s in scope):
        ranges = scope_ranges(ix.lines, ix.starts, scope)
        if isinstance(ranges, ScopeMissing):
            return MatchOutcome(
                [], "none", old=old, max_matches=max_matches, crlf=crlf,
                error="scope_not_found", missing_scope=ranges,
            )  # fmt: skip
        within = Spans(ranges)
    if not fuzzy:
        hit = _inside(ix, _exact(ix, old, "line_endings" if crlf else "exact"), within)
        if hit is None:
            return MatchOutcome([], "none", old=old, max_matches=max_matches, crlf=crlf)
        kept, other = _split_overlaps(hit.regions)
        return MatchOutcome(
            kept, hit.base, (hit.base,), old, hit.base, max_matches, crlf, overlapped=other
        )
    hit = _try_base(ix, old, crlf, within)
    level, eff = "", old
    steps: tuple[str, ...] = ()
    info: dict[str, object] = {}
    if hit is None:
        for level, eff, steps, info in _variants(old):  # noqa: B007
            hit = anchored(ix, _try_base(ix, eff, False, within), eff, info)
            if hit:
                eff = untrim(ix, hit, eff, info)
                break
    if hit is None:
        return MatchOutcome([], "none", old=old, max_matches=max_matches, crlf=crlf)
    kept, other = _split_overlaps(hit.regions)
    return MatchOutcome(
        regions=kept,
        overlapped=other,
        strategy=level or hit.base,
        steps=(*steps, hit.base),
        old=eff,
        base=hit.base,
        max_matches=max_matches,
        crlf=crlf,
        unescaped=bool(info.get("unescaped")),
        prefix=info.get("prefix"),  # type: ignore[arg-type]
        trimmed=info.get("trimmed", (0, 0)),  # type: ignore[arg-type]
        mid_line=hit.mid_line,
        leading_nl=hit.leading_nl,
        trailing_nl=hit.trailing_nl,
        spans=hit.spans,
    )
