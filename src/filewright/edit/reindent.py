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

from filewright.edit.normalize import (
    TYPOGRAPHIC_CHARS,
    LineSpec,
    char_fold_with_map,
    fold_typography,
    fold_typography_with_map,
    indent_offset,
    leading_ws,
    norm_line,
    ws_width,
)

_MAX_TYPO_REGION = 20_000
_MIN_RUN = 2


def _fold_map(s: str, typo: bool, collapse: bool) -> tuple[str, list[int]]:
    if collapse:
        return char_fold_with_map(s, typo=typo)
    if typo:
        return fold_typography_with_map(s)
    return s, list(range(len(s)))


def _aligned(m: list[int], k: int, size: int) -> bool:
    """Does the folded block ``[k, k+size)`` start and end on whole source groups?"""
    start_ok = k == 0 or m[k - 1] != m[k]
    end_ok = k + size == len(m) or m[k + size - 1] != m[k + size]
    return start_ok and end_ok


def restore_runs(source: str, new: str, *, typo: bool, collapse: bool) -> str:
    """Write runs of ``new`` that equal ``source`` after folding exactly as ``source`` has them.

    Folding is the level's: typography folded and/or space runs collapsed.  Runs are the
    matching blocks (at least two folded characters, on whole characters of both sides) of
    a SequenceMatcher between the folded texts; the rest of ``new`` is left as given.
    """
    if len(source) > _MAX_TYPO_REGION:
        return new
    fs, fm = _fold_map(source, typo, collapse)
    ns, nm = _fold_map(new, typo, collapse)
    fm_end, nm_end = [*fm, len(source)], [*nm, len(new)]
    out: list[str] = []
    npos = 0
    for a0, b0, size0 in SequenceMatcher(None, fs, ns, autojunk=False).get_matching_blocks():
        a, b, size = a0, b0, size0
        while size >= _MIN_RUN and not (_aligned(fm, a, size) and _aligned(nm, b, size)):
            if not (a == 0 or fm[a - 1] != fm[a]) or not (b == 0 or nm[b - 1] != nm[b]):
                a, b, size = a + 1, b + 1, size - 1
            else:
                size -= 1
        if size < _MIN_RUN:
            continue
        out.append(new[npos : nm[b]])
        last = fm[a + size - 1]  # a run ends after its last char (and the spaces it stands for)
        out.append(source[fm[a] : fm_end[a + size] if source[last] in " \t" else last + 1])
        npos = nm_end[b + size]
    out.append(new[npos:])
    return "".join(out)


def restore_typography(region_text: str, new: str, old: str = "") -> str:
    """Give ``new`` the file's typography.

    If ``old`` used typographic characters and the file's region uses none, they were
    noise: ``new`` is folded to ASCII.  Otherwise runs of ``new`` equal to the region after
    folding get the region's quotes and dashes back (:func:`restore_runs`).
    """
    if not any(c in TYPOGRAPHIC_CHARS for c in region_text):
        if any(c in TYPOGRAPHIC_CHARS for c in old):
            return fold_typography(new)
        return new
    return restore_runs(region_text, new, typo=True, collapse=False)


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


def _fill_gap(gap: list[str], gap_norm: list[str], pending: list[str]) -> list[str]:
    """File lines between two anchors, with ``pending`` (new lines) in place of old ones.

    The gap's non-blank lines matched old lines that ``new`` dropped or rewrote; they give
    way to ``pending``.  The file's blank lines around them stay; with no such lines, the
    new lines go first and the blank lines after them (an added line joins the block above).
    """
    idx = [g for g, x in enumerate(gap_norm) if x]
    if not idx:
        return pending + gap
    return gap[: idx[0]] + pending + gap[idx[-1] + 1 :]


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
    fold = spec.typo or spec.collapse
    # trailing whitespace in old that the file never has is noise: drop it from new lines
    noise_trail = any(x != x.rstrip() for x in olines if x.strip()) and all(
        x == x.rstrip() for x in flines if x.strip()
    )

    def changed(line: str, fline: str) -> str:
        """A line of new that replaces file line ``fline`` one for one."""
        if not line.strip():
            return line
        line = reindent(line)
        ws = line[: len(line) - len(line.lstrip())]
        content = line[len(ws) :].rstrip()
        if fold:
            content = restore_runs(fline.strip(), content, typo=spec.typo, collapse=spec.collapse)
        return ws + content + fline[len(fline.rstrip()) :]

    def inserted(line: str) -> str:
        line = reindent(line)
        return line.rstrip() if noise_trail else line

    nlines = new_body.split("\n")
    # new line -> (old line, unchanged?): equal runs, and line-for-line replacements
    mapped: dict[int, tuple[int, bool]] = {}
    sm = SequenceMatcher(None, olines, nlines, autojunk=False)
    for tag, i1, i2, j1, j2 in sm.get_opcodes():
        if tag == "equal" or (tag == "replace" and i2 - i1 == j2 - j1):
            for k in range(i2 - i1):
                mapped[j1 + k] = (i1 + k, tag == "equal")

    out: list[str] = []
    pending: list[str] = []  # changed or inserted lines of new since the last anchor
    prev_f: int | None = None  # file line of the last anchor (a line of new mapped to old)
    for j, line in enumerate(nlines):
        o, same = mapped.get(j, (None, False))
        if o is not None and o in align and (same or line.strip()):
            f = align[o]
            if spec.skip_blank and prev_f is not None:
                out.extend(_fill_gap(flines[prev_f + 1 : f], fnorm[prev_f + 1 : f], pending))
            else:
                out.extend(pending)
            out.append(flines[f] if same else changed(line, flines[f]))
            pending, prev_f = [], f
            continue
        if o is not None and same and not onorm[o] and spec.skip_blank:
            continue  # old's own blank lines are noise at this level: the file's are kept
        pending.append(inserted(line))
    out.extend(pending)
    body = "\n".join(out)
    if spec.typo:
        body = restore_typography("\n".join(flines), body, "\n".join(olines))
    return body
