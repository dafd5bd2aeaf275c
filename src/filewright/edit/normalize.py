"""Meaning-preserving normalisations used by the matching ladder (pure functions).

Two kinds of normalisation live here:

* **line normalisations** (:class:`LineSpec`): how one line is compared at a given ladder
  level: trailing whitespace dropped, leading whitespace set aside (indentation is then
  checked separately for a uniform offset), runs of spaces collapsed, typographic
  lookalikes folded to ASCII.  Blank lines may additionally be skipped by the block matcher.
* **string transforms** applied to the whole ``old`` (and, inverted, to ``new``): unescaping
  over-escaped text, stripping line-number prefixes copied from a read, trimming stray
  blank lines around the string.

Nothing here does I/O; everything is linear in the size of its input.
"""

from __future__ import annotations

import itertools
import re
import unicodedata
from dataclasses import dataclass

# --------------------------------------------------------------------------- typography

#: Single characters folded to one ASCII character.
_TYPO_SINGLE: dict[str, str] = {
    "\u2018": "'",  # left single quote
    "\u2019": "'",  # right single quote / apostrophe
    "\u201a": "'",  # single low-9 quote
    "\u201b": "'",  # single high-reversed-9 quote
    "\u2032": "'",  # prime
    "\u201c": '"',  # left double quote
    "\u201d": '"',  # right double quote
    "\u201e": '"',  # double low-9 quote
    "\u201f": '"',  # double high-reversed-9 quote
    "\u2033": '"',  # double prime
    "\u2010": "-",  # hyphen
    "\u2011": "-",  # non-breaking hyphen
    "\u2012": "-",  # figure dash
    "\u2013": "-",  # en dash
    "\u2014": "-",  # em dash
    "\u2015": "-",  # horizontal bar
    "\u2212": "-",  # minus sign
    "\u00a0": " ",  # no-break space
    "\u202f": " ",  # narrow no-break space
    "\u2007": " ",  # figure space
    "\u2009": " ",  # thin space
    "\u200a": " ",  # hair space
    "\u3000": " ",  # ideographic (full-width) space
    "\u3001": ",",  # ideographic comma 、
    "\u3002": ".",  # ideographic full stop 。
    "\uff61": ".",  # half-width ideographic full stop
    "\uff64": ",",  # half-width ideographic comma
    "\u300c": '"',  # corner brackets 「」『』 (quotation marks in CJK text)
    "\u300d": '"',
    "\u300e": '"',
    "\u300f": '"',
}
#: Full-width forms of ASCII (U+FF01-U+FF5E: ，。：；（）！？Ａ１ ...) fold to ASCII (NFKC width).
_TYPO_SINGLE.update({chr(c): chr(c - 0xFEE0) for c in range(0xFF01, 0xFF5F)})
_TYPO_TABLE = str.maketrans(_TYPO_SINGLE)
_ELLIPSIS = "\u2026"
TYPOGRAPHIC_CHARS = frozenset(_TYPO_SINGLE) | {_ELLIPSIS}


_CJK = "\u2e80-\u2fff\u3040-\u30ff\u3100-\u31ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff"
_HAS_CJK = re.compile(f"[{_CJK}]")
#: Spaces a model puts around punctuation it wrote in ASCII inside CJK text ("目录, 然后"
#: for "目录，然后"): after folding, on lines with CJK characters, spaces after ASCII
#: punctuation and before opening brackets and quotes are dropped (full-width forms have
#: none), and so are spaces between a CJK character and punctuation.
_CJK_PUNCT_SPACE = re.compile(
    r"(?<=[,.;:!?)\]\"'])[ \t]+(?=\S)|(?<=\S)[ \t]+(?=[(\[\"'])"
    rf"|(?<=[{_CJK}])[ \t]+(?=[,.;:!?)])"
)


def _cjk_space_spans(folded: str) -> list[tuple[int, int]]:
    """Spans of ``folded`` (already typography-folded) that CJK spacing drops."""
    spans: list[tuple[int, int]] = []
    pos = 0
    for line in folded.split("\n"):
        if not line.isascii() and _HAS_CJK.search(line):
            spans += [(pos + m.start(), pos + m.end()) for m in _CJK_PUNCT_SPACE.finditer(line)]
        pos += len(line) + 1
    return spans


def fold_typography(s: str) -> str:
    """Fold curly quotes, dashes, special spaces, the ellipsis and full-width forms to ASCII.

    Full-width (CJK) punctuation, letters and digits fold by width as NFKC does, plus the
    ideographic full stop and comma and the corner brackets used as quotation marks; spaces
    between such punctuation and CJK characters are dropped (the ASCII forms' spacing).
    """
    if s.isascii():
        return s  # nothing to fold (the common case, at C speed)
    if len(s) > 4096 and "\n" in s:  # fold only the lines that are not ASCII
        s = "\n".join(x if x.isascii() else x.translate(_TYPO_TABLE) for x in s.split("\n"))
    else:
        s = s.translate(_TYPO_TABLE)
    if _ELLIPSIS in s:
        s = s.replace(_ELLIPSIS, "...")
    if not s.isascii() and (spans := _cjk_space_spans(s)):
        parts, last = [], 0
        for a, b in spans:
            parts.append(s[last:a])
            last = b
        parts.append(s[last:])
        s = "".join(parts)
    return s


def fold_typography_with_map(s: str) -> tuple[str, list[int]]:
    """Like :func:`fold_typography`, also returning, per folded char, its index in ``s``."""
    if s.isascii():  # every character it folds is non-ASCII: nothing to fold
        return s, list(range(len(s)))
    out: list[str] = []
    idx: list[int] = []
    for i, ch in enumerate(s):
        if ch == _ELLIPSIS:
            out.append("...")
            idx.extend((i, i, i))
        else:
            out.append(_TYPO_SINGLE.get(ch, ch))
            idx.append(i)
    folded = "".join(out)
    if folded.isascii():
        return folded, idx
    drop = {k for a, b in _cjk_space_spans(folded) for k in range(a, b)}
    if not drop:
        return folded, idx
    keep = [k for k in range(len(folded)) if k not in drop]
    return "".join(folded[k] for k in keep), [idx[k] for k in keep]


# --------------------------------------------------------------------------- spelling

#: A character written as an escape: ``\\u00e9``, ``\\U0001F600``, ``\\xe9``, ``&#233;``,
#: ``&#xE9;``.
_ESCAPED_CHAR = re.compile(
    r"\\u([0-9a-fA-F]{4})|\\U([0-9a-fA-F]{8})|\\x([0-9a-fA-F]{2})|&#(\d{1,7});|&#[xX]([0-9a-fA-F]{1,6});"
)
#: ASCII stand-ins for typographic characters (those :func:`fold_typography` does not fold).
_STAND_INS: dict[str, str] = {
    "\u2192": "->",  # rightwards arrow
    "\u2190": "<-",  # leftwards arrow
    "\u21d2": "=>",  # rightwards double arrow
    "\u2264": "<=",  # less-than or equal
    "\u2265": ">=",  # greater-than or equal
    "\u2260": "!=",  # not equal
    "\u2022": "*",  # bullet
    "\u00a9": "(c)",  # copyright
    "\u00ae": "(r)",  # registered
    "\u2122": "(tm)",  # trade mark
}


def _escaped(m: re.Match[str]) -> str:
    hexa = m.group(1) or m.group(2) or m.group(3) or m.group(5)
    code = int(hexa, 16) if hexa else int(m.group(4))
    # only characters beyond ASCII and its controls: an escaped newline, quote or letter is
    # the file's own text (a string's \\x0a, an entity's &#10;), not another spelling
    return chr(code) if 0xA0 <= code <= 0x10FFFF else m.group(0)


def fold_spelling_with_map(s: str) -> tuple[str, list[int]]:
    """``s`` with every character in one spelling, and per output char its index in ``s``.

    Escapes of characters beyond ASCII (``\\u00e9``, ``&#233;``) are decoded, combining
    marks composed (NFC), ASCII
    stand-ins written for arrows, comparison signs, bullets and marks (``→`` as ``->``).
    """
    out: list[str] = []
    idx: list[int] = []

    def push(ch: str, i: int) -> None:
        if out and unicodedata.combining(ch):
            composed = unicodedata.normalize("NFC", out[-1] + ch)
            if len(composed) == 1:
                out[-1] = composed
                return
        rep = _STAND_INS.get(ch, ch)
        out.extend(rep)
        idx.extend([i] * len(rep))

    pos = 0
    for m in _ESCAPED_CHAR.finditer(s):
        for i in range(pos, m.start()):
            push(s[i], i)
        ch = _escaped(m)
        if len(ch) == 1:
            push(ch, m.start())
            pos = m.end()
        else:  # (left as written: its characters are the text's own)
            pos = m.start()
            for i in range(pos, m.end()):
                push(s[i], i)
            pos = m.end()
    for i in range(pos, len(s)):
        push(s[i], i)
    return "".join(out), idx


def is_plain(line: str) -> bool:
    """Is ``line`` already in one spelling (ASCII without escapes)?"""
    return line.isascii() and "\\" not in line and "&#" not in line


_STAND_IN_TABLE = str.maketrans(_STAND_INS)


def fold_spelling(s: str) -> str:
    """:func:`fold_spelling_with_map` without the map, on a whole text at once."""
    if is_plain(s):
        return s
    if "\\" in s or "&#" in s:
        s = _ESCAPED_CHAR.sub(_escaped, s)
    if not s.isascii():
        s = unicodedata.normalize("NFC", s).translate(_STAND_IN_TABLE)
    return s


# --------------------------------------------------------------------------- punctuation

PUNCT = "()[]{}<>,;:=+-*/%&|!^~?."
"""The punctuation next to which :func:`drop_punct_spaces` drops spaces."""
_SPACE_BEFORE_PUNCT = re.compile(r" (?=[" + re.escape(PUNCT) + r"])")
_SPACE_AFTER_PUNCT = re.compile(r"(?<=[" + re.escape(PUNCT) + r"]) ")


def drop_punct_spaces(s: str) -> str:
    """Spaces next to punctuation dropped (after :func:`collapse_spaces`): the spacing
    models change around brackets, commas and operators (``f( a, b )`` as ``f(a,b)``)."""
    if " " not in s:
        return s
    return _SPACE_AFTER_PUNCT.sub("", _SPACE_BEFORE_PUNCT.sub("", s))


def drop_punct_spaces_with_map(s: str, idx: list[int]) -> tuple[str, list[int]]:
    """:func:`drop_punct_spaces` of ``s`` (one space per run), carrying ``idx`` along."""
    keep = [
        k
        for k, ch in enumerate(s)
        if ch != " " or not ((k and s[k - 1] in PUNCT) or (k + 1 < len(s) and s[k + 1] in PUNCT))
    ]
    return "".join(s[k] for k in keep), [idx[k] for k in keep]


# --------------------------------------------------------------------------- spaces

_SPACE_RUN = re.compile(r"[ \t]{2,}|\t")  # runs that are not already one space


def collapse_spaces(s: str) -> str:
    """Collapse every run of spaces/tabs to one space."""
    return _SPACE_RUN.sub(" ", s)


def collapse_spaces_with_map(s: str) -> tuple[str, list[int]]:
    """Like :func:`collapse_spaces`, also returning, per output char, its index in ``s``."""
    out: list[str] = []
    idx: list[int] = []
    prev_space = False
    for i, ch in enumerate(s):
        if ch in " \t":
            if prev_space:
                continue
            prev_space = True
            out.append(" ")
        else:
            prev_space = False
            out.append(ch)
        idx.append(i)
    return "".join(out), idx


def char_fold(s: str, *, typo: bool, spell: bool = False, punct: bool = False) -> str:
    """The within-line fold of the mid-line (substring) levels: collapse spaces, maybe
    spelling, typography and the spaces next to punctuation."""
    if spell:
        s = fold_spelling(s)
    if typo:
        s = fold_typography(s)
    s = collapse_spaces(s)
    return drop_punct_spaces(s) if punct else s


def char_fold_with_map(
    s: str, *, typo: bool, spell: bool = False, punct: bool = False
) -> tuple[str, list[int]]:
    """:func:`char_fold` plus, per output char, the index of the source char in ``s``."""
    m0 = list(range(len(s)))
    if spell and not is_plain(s):
        s, m0 = fold_spelling_with_map(s)
    if typo:
        folded, m1 = fold_typography_with_map(s)
    else:
        folded, m1 = s, list(range(len(s)))
    collapsed, m2 = collapse_spaces_with_map(folded)
    out, idx = collapsed, [m0[m1[j]] for j in m2]
    return drop_punct_spaces_with_map(out, idx) if punct else (out, idx)


# --------------------------------------------------------------------------- line specs


@dataclass(frozen=True)
class LineSpec:
    """How lines are compared at one line-based ladder level (levels are cumulative)."""

    name: str
    indent: bool = False  # compare content without leading whitespace; offset must be uniform
    skip_blank: bool = False  # blank lines inside the block are ignored on both sides
    collapse: bool = False  # runs of spaces/tabs inside a line compare as one space
    typo: bool = False  # typographic lookalikes fold to ASCII
    spell: bool = False  # escapes decoded, normal form composed, ASCII stand-ins
    flat: bool = False  # indentation set aside without a uniform offset (flattened)
    punct: bool = False  # spaces next to punctuation dropped


def norm_line(line: str, spec: LineSpec) -> str:
    """Normalise one line (no newline in it) for comparison at ``spec``'s level."""
    if spec.spell:
        line = fold_spelling(line)
    if spec.typo:
        line = fold_typography(line)
    line = line.rstrip()
    if spec.indent:
        line = line.lstrip()
    if spec.collapse:
        line = collapse_spaces(line)
    if spec.punct:
        line = drop_punct_spaces(line)
    return line


def canonical_lines(s: str, spec: LineSpec) -> list[str]:
    """The normalised lines of ``s`` as ``spec`` compares them (blank lines dropped if skipped).

    One trailing newline is ignored.  Used by tests to check that a region really equals
    ``old`` after normalisation.
    """
    if s.endswith("\n"):
        s = s[:-1]
    lines = [norm_line(x, spec) for x in s.split("\n")]
    if spec.skip_blank:
        lines = [x for x in lines if x]
    return lines


# --------------------------------------------------------------------------- indentation


def leading_ws(line: str) -> str:
    """The leading whitespace of ``line``."""
    return line[: len(line) - len(line.lstrip())]


def ws_width(ws: str, tab: int) -> int:
    """Display width of leading whitespace with tab stops every ``tab`` columns."""
    w = 0
    for ch in ws:
        w = (w // tab + 1) * tab if ch == "\t" else w + 1
    return w


_TAB_WIDTHS = (4, 8, 2)


def indent_offset(pairs: list[tuple[str, str]]) -> tuple[int, int] | None:
    """Find ``(tab_width, delta)`` so that every file indent = old indent + delta.

    ``pairs`` holds ``(file_ws, old_ws)`` for the non-blank lines of a candidate block.
    Returns ``None`` when no tab width gives a uniform offset (relative indentation
    differs, so the block means something else).
    """
    has_tab = any("\t" in f or "\t" in o for f, o in pairs)
    for tab in _TAB_WIDTHS if has_tab else _TAB_WIDTHS[:1]:
        deltas = {ws_width(f, tab) - ws_width(o, tab) for f, o in pairs}
        if len(deltas) <= 1:
            return tab, (deltas.pop() if deltas else 0)
    return None


# --------------------------------------------------------------------------- escapes

_ESCAPE = re.compile(r"\\([nt\"'\\])")
_ESCAPES = {"n": "\n", "t": "\t", '"': '"', "'": "'", "\\": "\\"}


def unescape(s: str) -> str:
    """Decode ``\\n``, ``\\t``, ``\\"``, ``\\'`` and ``\\\\`` sent literally (one pass)."""
    if "\\" not in s:
        return s
    return _ESCAPE.sub(lambda m: _ESCAPES[m.group(1)], s)


# --------------------------------------------------------------------------- line numbers

#: Prefix styles that reads produce: ``cat -n`` (``   12\t``), Claude Code (``12→``),
#: tables (``  12 | ``), ``L12:`` and ``grep -n`` (``12:``).  Ordered most specific first.
LINE_PREFIXES: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("tab", re.compile(r"^ *(\d+)\t")),
    ("arrow", re.compile(r"^ *(\d+)\u2192")),
    ("pipe", re.compile(r"^ *(\d+) ?\| ?")),
    ("L", re.compile(r"^L(\d+): ?")),
    ("colon", re.compile(r"^ *(\d+): ?")),
)


@dataclass(frozen=True)
class LinePrefix:
    """A detected line-number prefix style and the numbers it carried."""

    style: str
    first: int
    last: int


def strip_line_numbers(s: str) -> tuple[str, LinePrefix] | None:
    """Strip copied line-number prefixes when EVERY line carries one of one style.

    Numbers must be consecutive and ascending (as in a read), which keeps text that merely
    starts with digits safe.  One trailing newline is preserved.
    """
    trail = s.endswith("\n")
    body = s[:-1] if trail else s
    lines = body.split("\n")
    for style, pat in LINE_PREFIXES:
        matches = [pat.match(x) for x in lines]
        if not all(matches):
            continue
        nums = [int(m.group(1)) for m in matches if m]
        if any(b != a + 1 for a, b in itertools.pairwise(nums)):
            continue
        stripped = [x[m.end() :] for x, m in zip(lines, matches, strict=True) if m]
        out = "\n".join(stripped) + ("\n" if trail else "")
        return out, LinePrefix(style, nums[0], nums[-1])
    return None


def strip_line_numbers_like(new: str, prefix: LinePrefix) -> str:
    """Inverse for ``new``: strip ``prefix``-style numbers near the range ``old`` carried.

    A line loses its prefix only if it has the same style and its number lies within the
    numbers of ``old`` widened by the length of ``new``; other lines are left as given.
    """
    pat = dict(LINE_PREFIXES)[prefix.style]
    lines = new.split("\n")
    slack = len(lines) + 1
    lo, hi = prefix.first - slack, prefix.last + slack
    out = []
    for line in lines:
        m = pat.match(line)
        if m and lo <= int(m.group(1)) <= hi:
            line = line[m.end() :]
        out.append(line)
    return "\n".join(out)


# --------------------------------------------------------------------------- blank lines

_LEAD_BLANK = re.compile(r"\A(?:[ \t]*\n)+")
_TRAIL_BLANK = re.compile(r"(?:\n[ \t]*)+\Z")


def trim_blank_lines(s: str) -> tuple[str, int, int]:
    """Remove whitespace-only lines around ``s``; return it and the newlines removed each side."""
    lead = _LEAD_BLANK.match(s)
    n_lead = lead.group(0).count("\n") if lead else 0
    if lead:
        s = s[lead.end() :]
    trail = _TRAIL_BLANK.search(s)
    n_trail = trail.group(0).count("\n") if trail else 0
    if trail:
        s = s[: trail.start()]
    return s, n_lead, n_trail


def trim_blank_lines_like(new: str, n_lead: int, n_trail: int) -> str:
    """Inverse for ``new``: drop up to as many blank lines as were trimmed from ``old``."""
    if n_lead:
        m = re.match(r"\A(?:[ \t]*\n){1," + str(n_lead) + "}", new)
        if m:
            new = new[m.end() :]
    if n_trail:
        m = re.search(r"(?:\n[ \t]*){1," + str(n_trail) + r"}\Z", new)
        if m:
            new = new[: m.start()]
    return new
