"""What is written where the ladder matched: the inverse of the matched normalisation.

:func:`adapt_replacement` undoes the transforms the ladder applied to ``old`` (line endings,
escapes, line-number prefixes, stray blank lines) on ``new``, then carries the model's change
onto the real text by the rule of :mod:`filewright.edit.carry`.  Pure functions.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from filewright.edit.carry import carry_lines, fold_noise
from filewright.edit.matching import SPECS, MatchOutcome, Region, split_edges
from filewright.edit.normalize import (
    LineSpec,
    collapse_spaces,
    drop_punct_spaces,
    fold_spelling,
    fold_typography,
    leading_ws,
    strip_line_numbers_like,
    trim_blank_lines_like,
    unescape,
    ws_width,
)
from filewright.edit.reindent import restore_runs, restore_typography


def _continue_indent(text: str, region: Region, old: str, new: str) -> str:
    """Exact level: indent ``new``'s continuation lines like the line ``old`` was taken from.

    Only when ``old`` is one whole line without its indentation (the model worked relative
    to column 0) and every continuation line of ``new`` is indented less than that line
    (as written, it would fall out of the block).  Otherwise ``new`` is left as given.
    """
    if "\n" in old.rstrip(" \t\n") or "\n" not in new:
        return new  # (blank lines after the one line are the ones the file has there)
    ls = text.rfind("\n", 0, region.start) + 1
    ws = text[ls : region.start]
    le = text.find("\n", region.start)
    if not ws or ws.strip() or (le != -1 and le > region.end):
        return new
    first, *rest = new.split("\n")
    width = ws_width(ws, 4)
    if not any(x.strip() for x in rest):
        return new
    if any(ws_width(leading_ws(x), 4) >= width for x in rest if x.strip()):
        return new
    return "\n".join([first, *(ws + x if x.strip() else x for x in rest)])


def _strip_ends(s: str, lead: bool, trail: bool) -> str:
    """``s`` without one leading newline (if ``lead``) and one trailing one (if ``trail``)."""
    s = s[1:] if lead and s.startswith("\n") else s
    return s[:-1] if trail and s.endswith("\n") else s


def keep_line_breaks(old: str, new: str) -> str:
    """``new`` with the line break ``old`` has at either end, where ``new`` forgot it and
    is not blank: the rule :func:`adapt_replacement` applies at every level, for a change
    made without the file's text at hand (a streamed one), so that lines stay lines."""
    if not new.strip():
        return new
    if old.endswith("\n") and not new.endswith("\n"):
        new += "\n"
    if old.startswith("\n") and not new.startswith("\n"):
        new = "\n" + new
    return new


def _restore_cosmetics(source: str, changed: str) -> str:
    """Runs of ``changed`` equal to ``source`` modulo typography and space runs, as ``source``
    has them (the model's cosmetic slips on a line it changed)."""
    if source == changed or not source.strip():
        return changed
    return restore_runs(source, changed, typo=True, collapse=True)


def _restore_typography(source: str, changed: str) -> str:
    """Runs of ``changed`` equal to ``source`` modulo typography only, as ``source`` has them."""
    if source == changed or not source.strip():
        return changed
    return restore_runs(source, changed, typo=True, collapse=False)


def _key_fold(spec: LineSpec) -> Callable[[str], str] | None:
    """What the level folds beyond the cosmetic normalisations, to tell a line the model
    kept from one it changed (its spelling, its spacing next to punctuation)."""
    if spec.punct:
        return lambda k: drop_punct_spaces(collapse_spaces(fold_typography(fold_spelling(k))))
    if spec.spell:
        return lambda k: collapse_spaces(fold_typography(fold_spelling(k)))
    return None


_EXACT_BASES = ("exact", "line_endings", "none")
_NON_SPACE = re.compile(r"\S")


def replacement_for(outcome: MatchOutcome, text: str, new: str) -> Callable[[Region], str]:
    """:func:`adapt_replacement` for the regions of one match outcome, computed once per
    distinct surroundings: at the exact levels it reads of ``text`` only the region, the
    character after it and the indentation before it on its line (any other text there
    counts as none), so regions alike in those get the same answer (a replace_all over
    50,000 one-line matches carries one change, not 50,000)."""
    if outcome.base not in _EXACT_BASES:
        return lambda region: adapt_replacement(outcome, region, text, new)
    cache: dict[tuple[str, str], str] = {}

    def at(region: Region) -> str:
        ls = text.rfind("\n", 0, region.start) + 1
        indented = _NON_SPACE.search(text, ls, region.start) is None
        key = (text[ls : region.start] if indented else "", text[region.start : region.end + 1])
        found = cache.get(key)
        if found is None:
            found = cache[key] = adapt_replacement(outcome, region, text, new)
        return found

    return at


def adapt_replacement(outcome: MatchOutcome, region: Region, text: str, new: str) -> str:
    """Apply the inverse of ``outcome``'s normalisation to ``new`` for ``region``.

    In order: line endings normalised (if ``new`` has ``\\r`` and the text has none); ``new`` unescaped (if
    ``old`` was); line-number prefixes of the style ``old`` carried stripped; as many
    stray blank lines trimmed as ``old`` had.  Then the carry rule
    (:func:`filewright.edit.carry.carry_lines`) over the matched file lines, at every level
    (at the exact level on whole-line regions, after :func:`_continue_indent` gave a one-line
    ``old`` sent without its indentation the line's indentation on ``new``'s further lines;
    there, a change that is only cosmetic is written as given).  A mid-line match gets the
    file's typography back at the typography level.  Raises
    :class:`~filewright.edit.carry.CannotCarry` when the change cannot be carried.
    """
    if "\r" in new and (outcome.crlf or "\r" not in text):
        new = new.replace("\r\n", "\n").replace("\r", "\n")
    if outcome.unescaped:
        new = unescape(new)
    if outcome.prefix is not None:
        new = strip_line_numbers_like(new, outcome.prefix)
    if outcome.trimmed != (0, 0):
        new = trim_blank_lines_like(new, *outcome.trimmed)
    if outcome.base in _EXACT_BASES:
        new = _continue_indent(text, region, outcome.old, new)
        if text[region.end : region.end + 1] not in ("", "\n") and not outcome.old.endswith("\n"):
            return _restore_typography(outcome.old, new)  # ends inside a line: no line rules
        region_text = text[region.start : region.end]  # old, or old up to its line's end
        # old sent without the indentation its first line has in the file: carry whole lines
        ls = text.rfind("\n", 0, region.start) + 1
        ws = text[ls : region.start]
        if ws.strip() or outcome.old[:1] in (" ", "\t", "\n"):
            ws = ""
        given = new if not ws or new[:1] in (" ", "\t") else ws + new
        # where old ends with a newline (a whole line), the line structure stays; where it
        # does not, the newlines new has at that end are its literal text
        o_lead, o_trail = outcome.old.startswith("\n"), outcome.old.endswith("\n")
        n_lead = o_lead and (given.startswith("\n") or bool(given.strip()))
        n_trail = o_trail and (given.endswith("\n") or bool(given.strip()))
        f_body = _strip_ends(ws + region_text, o_lead, o_trail)
        n_body = _strip_ends(given, o_lead, o_trail)
        carried = "\n".join(
            carry_lines(
                f_body.split("\n"),
                _strip_ends(ws + outcome.old, o_lead, o_trail).split("\n"),
                n_body.split("\n"),
                restore=_restore_cosmetics,
                restore_typography_only=_restore_typography,
                literal=True,
                literal_edges=(not o_lead, not o_trail),
            )
        )
        carried = ("\n" if n_lead else "") + carried + ("\n" if n_trail else "")
        if not carried.startswith(ws):
            return new  # the first line moved: only the given text can say where
        carried = carried[len(ws) :]
        # only cosmetic differences: that cosmetic change is what the model asked for, with
        # the line breaks at old's ends kept (a forgotten one would join two lines)
        return keep_line_breaks(outcome.old, new) if carried == region_text else carried
    span = outcome.spans.get(region)
    if span is None:  # mid-line match
        if outcome.base == "typography":
            return restore_typography(text[region.start : region.end], new, outcome.old)
        mid = SPECS.get(outcome.base)
        if mid is not None and (mid.spell or mid.punct):  # the file's spelling and spacing
            return restore_runs(
                text[region.start : region.end],
                new,
                typo=True,
                collapse=True,
                spell=mid.spell,
            )
        return new
    cs, ce, lead_in, trail_in = span
    lead = outcome.leading_nl and new.startswith("\n")
    body = new[1:] if lead else new
    # old ended with its last line's newline: lines stay lines even when new forgot its own
    trail = outcome.trailing_nl and (body.endswith("\n") or bool(body.strip()))
    body = body[:-1] if body.endswith("\n") and outcome.trailing_nl else body
    split = split_edges(outcome.old)
    olines = split[0] if split else [outcome.old]
    spec = SPECS[outcome.base]
    restore = _restore_cosmetics
    if spec.spell or spec.punct:

        def restore(source: str, changed: str) -> str:
            if source == changed or not source.strip():
                return changed
            return restore_runs(source, changed, typo=True, collapse=True, **folds)

        # (spaces next to punctuation are not restored: a changed line's spacing is the
        # model's, half the file's and half its own would be neither)
        folds = {"spell": spec.spell}
    region_text = text[cs:ce]
    flines, nlines = region_text.split("\n"), body.split("\n")
    how: dict[str, Any] = {"restore": restore, "flat": spec.flat, "fold": _key_fold(spec)}
    body = "\n".join(carry_lines(flines, olines, nlines, **how))
    if body == region_text:  # nothing but blank lines changed: that is what was asked
        body = "\n".join(carry_lines(flines, olines, nlines, keep_gaps=False, **how))
    if spec.typo:
        body = fold_noise(region_text, body, outcome.old)
    return ("\n" if lead and lead_in else "") + body + ("\n" if trail and trail_in else "")
