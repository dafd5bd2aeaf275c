"""Restore the file's cosmetics on replacement text (pure functions).

:func:`restore_runs` writes runs of a replacement that equal the file's text after a
level's folding (typography, space runs) exactly as the file has them;
:func:`restore_typography` does it for a mid-line match at the typography level.  The
line-by-line rule that decides which lines are the file's and which the model's is in
:mod:`filewright.edit.carry`.
"""

from __future__ import annotations

from difflib import SequenceMatcher

from filewright.edit.normalize import (
    TYPOGRAPHIC_CHARS,
    char_fold_with_map,
    fold_typography,
    fold_typography_with_map,
)

_MAX_TYPO_REGION = 20_000
_MIN_RUN = 2


def _fold_map(
    s: str, typo: bool, collapse: bool, spell: bool = False, punct: bool = False
) -> tuple[str, list[int]]:
    if collapse:
        return char_fold_with_map(s, typo=typo, spell=spell, punct=punct)
    if typo:
        return fold_typography_with_map(s)
    return s, list(range(len(s)))


def _aligned(m: list[int], k: int, size: int) -> bool:
    """Does the folded block ``[k, k+size)`` start and end on whole source groups?"""
    start_ok = k == 0 or m[k - 1] != m[k]
    end_ok = k + size == len(m) or m[k + size - 1] != m[k + size]
    return start_ok and end_ok


def restore_runs(
    source: str, new: str, *, typo: bool, collapse: bool, spell: bool = False, punct: bool = False
) -> str:
    """Write runs of ``new`` that equal ``source`` after folding exactly as ``source`` has them.

    Folding is the level's: typography folded and/or space runs collapsed (and, with
    them, escapes and normal forms with ``spell``, spaces next to punctuation with ``punct``).  Runs are the
    matching blocks (at least two folded characters, on whole characters of both sides) of
    a SequenceMatcher between the folded texts; the rest of ``new`` is left as given.
    """
    if len(source) > _MAX_TYPO_REGION:
        return new
    if not (collapse or spell or punct) and source.isascii() and new.isascii():
        return new  # typography folds only non-ASCII characters: every run is new's already
    fs, fm = _fold_map(source, typo, collapse, spell, punct)
    ns, nm = _fold_map(new, typo, collapse, spell, punct)
    fm_end, nm_end = [*fm, len(source)], [*nm, len(new)]
    out: list[str] = []
    npos = 0
    for a0, b0, size0 in SequenceMatcher(None, fs, ns, autojunk=False).get_matching_blocks():
        a, b, size = a0, b0, size0
        # a single character is a run when it is a look-alike (the file's "。" for ".")
        least = 1 if size == 1 and source[fm[a]] in TYPOGRAPHIC_CHARS else _MIN_RUN
        while size >= least and not (_aligned(fm, a, size) and _aligned(nm, b, size)):
            if not (a == 0 or fm[a - 1] != fm[a]) or not (b == 0 or nm[b - 1] != nm[b]):
                a, b, size = a + 1, b + 1, size - 1
            else:
                size -= 1
        if size < least:
            continue
        out.append(new[npos : nm[b]])
        last = fm[a + size - 1]  # a run ends after its last char (and the spaces it stands for,
        # the rest of an escape, the combining marks composed with it)
        end = fm_end[a + size] if source[last] in " \t" else last + 1
        while end < fm_end[a + size] and source[end] not in " \t":
            end += 1
        out.append(source[fm[a] : end])
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
