"""Inverse normalisations for line-based matches: keep the file consistent after an edit.

:func:`adapt_lines` rewrites the replacement for a region matched at a line level:

* a line of ``new`` that is unchanged from ``old`` (by a line diff of ``old`` and ``new``)
  is written exactly as the file has it: its indentation, trailing whitespace, inner
  spacing and typography all stay;
* blank lines the file has between two such unchanged lines, which ``old`` dropped, are
  kept; blank lines ``old`` invented (the file has none there) are not added;
* every other line is re-indented: an indentation string seen in ``old`` becomes the file's
  string for it, others get their width shifted by the matched uniform offset and are
  written in the file's tab/space style;
* at the typography level, runs of text equal to the file's after folding get the file's
  curly quotes, dashes and special spaces back (:func:`restore_typography`).
"""

from __future__ import annotations

from difflib import SequenceMatcher

from filewright.normalize import (
    LineSpec,
    fold_typography_with_map,
    indent_offset,
    leading_ws,
    norm_line,
    ws_width,
)

_MAX_TYPO_REGION = 20_000
_MIN_RUN = 2


def restore_typography(region_text: str, new: str) -> str:
    """Give runs of ``new`` equal to the folded file text the file's typographic characters.

    Only runs of at least three characters that SequenceMatcher aligns with the folded region
    are touched; anything else in ``new`` is left as given.
    """
    folded, idx = fold_typography_with_map(region_text)
    if folded == region_text or len(region_text) > _MAX_TYPO_REGION:
        return new
    out = list(new)
    sm = SequenceMatcher(None, folded, new, autojunk=False)
    for a, b, size in sm.get_matching_blocks():
        if size < _MIN_RUN:
            continue
        k = 0
        while k < size:
            oi = idx[a + k]
            ch = region_text[oi]
            if ch == "\u2026":
                whole = (
                    k + 3 <= size and idx[a + k + 2] == oi and (a + k == 0 or idx[a + k - 1] != oi)
                )
                if whole:
                    out[b + k : b + k + 3] = ["\u2026", "", ""]
                    k += 3
                    continue
            elif ch != folded[a + k]:
                out[b + k] = ch
            k += 1
    return "".join(out)


def _reindenter(flines: list[str], olines: list[str], align: dict[int, int], onorm: list[str]):
    pairs = [(leading_ws(flines[f]), leading_ws(olines[o])) for o, f in align.items() if onorm[o]]
    tab, delta = indent_offset(pairs) or (4, 0)
    wsmap: dict[str, str] = {}
    for f, o in pairs:
        wsmap.setdefault(o, f)
    tabbed = sum(f.startswith("\t") for f, _ in pairs)
    spaced = sum(f.startswith(" ") for f, _ in pairs)
    use_tabs = tabbed > spaced

    def reindent(line: str) -> str:
        if not line.strip():
            return line
        ws = leading_ws(line)
        rest = line[len(ws) :]
        if ws in wsmap:
            return wsmap[ws] + rest
        w = max(0, ws_width(ws, tab) + delta)
        if use_tabs:
            return "\t" * (w // tab) + " " * (w % tab) + rest
        return " " * w + rest

    return reindent


def adapt_lines(flines: list[str], olines: list[str], new_body: str, spec: LineSpec) -> str:
    """Rewrite ``new_body`` for a block whose file lines ``flines`` matched ``olines``."""
    fnorm = [norm_line(x, spec) for x in flines]
    onorm = [norm_line(x, spec) for x in olines]
    if spec.skip_blank:
        fnb = [i for i, x in enumerate(fnorm) if x]
        onb = [k for k, x in enumerate(onorm) if x]
    else:
        fnb = list(range(len(flines)))
        onb = list(range(len(olines)))
    align = dict(zip(onb, fnb, strict=False))
    reindent = _reindenter(flines, olines, align, onorm)

    nlines = new_body.split("\n")
    # new line -> (old line, unchanged?): equal runs, and line-for-line replacements
    mapped: dict[int, tuple[int, bool]] = {}
    sm = SequenceMatcher(None, olines, nlines, autojunk=False)
    for tag, i1, i2, j1, j2 in sm.get_opcodes():
        if tag == "equal" or (tag == "replace" and i2 - i1 == j2 - j1):
            for k in range(i2 - i1):
                mapped[j1 + k] = (i1 + k, tag == "equal")

    out: list[str] = []
    pending: list[str] = []  # new lines since the last unchanged line we anchored on
    pending_clean = True  # pending holds only unchanged blank lines of old
    prev: tuple[int, int] | None = None  # (old index, file index) of that line
    for j, line in enumerate(nlines):
        o, same = mapped.get(j, (None, False))
        if o is not None and o in align and (same or line.strip()):
            f = align[o]
            gap_ok = (
                prev is not None
                and pending_clean
                and all(not onorm[k] for k in range(prev[0] + 1, o))
                and f > prev[1]
            )
            if gap_ok and prev is not None:
                out.extend(flines[prev[1] + 1 : f])
            else:
                out.extend(pending)
            out.append(flines[f] if same else reindent(line))
            pending, pending_clean, prev = [], True, (o, f)
            continue
        if o is None or onorm[o] or not same:
            pending_clean = False
            pending.append(reindent(line))
        else:
            pending.append(line)  # an unchanged blank line of old
    out.extend(pending)
    body = "\n".join(out)
    if spec.typo:
        body = restore_typography("\n".join(flines), body)
    return body
