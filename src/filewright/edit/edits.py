"""Pure edit operations: ``(text, arguments) -> Edited | EditFailure``.

Every function takes the whole (``"\\n"``-normalised) text and returns either the new text
(:class:`Edited`) or a failure value (:class:`EditFailure`); none does I/O and none raises for
a bad edit.  Failure codes:

``no_match``          ``old`` not found at any ladder level; ``detail["closest"]`` lists up to
                      3 ``{"start_line", "end_line", "text", "similarity", "differs"}``.
                      Also when ``old`` matched through a normalisation but the change cannot
                      be carried onto the real text without guessing
                      (:mod:`filewright.edit.carry`): ``detail["uncertain"]`` says why and
                      ``closest`` holds the matched real lines.
``ambiguous``         more matches than allowed; ``detail`` has ``count``, ``strategy``,
                      ``locations`` (``{"line", "column", "context"}``), and
                      ``overlapping: True`` when some of the places overlap (a counted edit
                      counts them all: ``old`` fits there too, and overlapping places cannot
                      all be replaced).
``count_mismatch``    ``expected`` given and a different number found (``expected``,
                      ``found``, ``strategy``, ``locations``; ``overlapping`` as above).
``no_change``         the edit would leave the text as it is.
``invalid_regex``     the pattern or the replacement template is invalid (``error``).
``marker_not_found``  a span marker is missing (``marker``: ``start``/``end``/``search_after``,
                      ``context``, ``search_from_line``, ``closest``).
``empty_old``         ``old`` (or a marker) is empty: the caller decides (create/append).
``line_out_of_range`` ``insert_at_line`` beyond the last line (``line``, ``line_count``).
``too_large``         the result would pass the size budget (:mod:`filewright.core.budget`):
                      refused before it is built (``size`` reached, ``limit``).
``placeholder``       ``new`` (or a whole-file content) holds an omission placeholder such as
                      ``// rest of methods ...`` that the replaced text does not have
                      (``placeholder``: the first, ``placeholders``: all;
                      :mod:`filewright.edit.placeholders`).
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from filewright.core import budget, regexes
from filewright.edit.carry import CannotCarry
from filewright.edit.elision import place, split_elided
from filewright.edit.matching import LADDER, find
from filewright.edit.outcome import Edited, EditFailure, Result, changed_range, edited
from filewright.edit.placeholders import omission_placeholders
from filewright.edit.replacement import adapt_replacement, replacement_for
from filewright.edit.spans import replace_span
from filewright.edit.suggest import closest, locations, real_text

# --------------------------------------------------------------------------- replace


def replace(
    text: str,
    old: str,
    new: str,
    *,
    replace_all: bool = False,
    expected: int | None = None,
    fuzzy: bool = True,
    placeholders: bool = True,
) -> Result:
    """Replace ``old`` with ``new`` using the matching ladder (exact only if ``fuzzy=False``).

    One match is required unless ``replace_all`` (any number ≥ 1, the leftmost
    non-overlapping ones, as ``str.replace``) or ``expected`` (exactly that many places,
    none overlapping another) says otherwise.  A single or counted edit counts every place
    ``old`` fits, overlapping ones included: ``"x\nx\n"`` in ``"x\nx\nx\n"`` is two places
    and refused, with both shown.  ``new`` is inserted literally (no ``$1``/``\\g<0>``/backslash
    processing) after the inverse of the matched normalisation.  A result equal to the
    input is refused as ``no_change``. ``placeholders=False`` skips the omission
    placeholder check (a caller that checks them against the whole file itself).
    """
    if old == "":
        return EditFailure("empty_old", {})
    if (
        placeholders
        and (found := omission_placeholders(new, old))
        and (
            found := [x for x in found if x not in text]  # the file's own comment is no omission
        )
    ):
        return placeholder_failure(found)
    allow = expected if expected is not None else (None if replace_all else 1)
    out = find(text, old, max_matches=allow, fuzzy=fuzzy)
    if out.count == 0 and fuzzy and allow == 1 and (pairs := split_elided(old, new)):
        return _replace_elided(text, old, pairs)
    if out.count == 0:
        tried = list(LADDER) if fuzzy else ["exact"]
        return EditFailure("no_match", {"closest": closest(text, old), "strategies_tried": tried})
    # a counted edit counts every place old fits, overlapping ones too (matching.find)
    places = out.regions if allow is None else out.places
    where = [(r.start, r.start_line, r.end_line) for r in places]
    if expected is not None and len(places) != expected:
        return EditFailure(
            "count_mismatch",
            {
                "expected": expected,
                "found": len(places),
                "strategy": out.strategy,
                "locations": locations(text, where),
                **({"overlapping": True} if out.overlapped else {}),
            },
        )
    if out.ambiguous:
        return EditFailure(
            "ambiguous",
            {
                "count": len(places),
                "strategy": out.strategy,
                "locations": locations(text, where),
                **({"overlapping": True} if out.overlapped else {}),
            },
        )
    parts: list[str] = []
    pos = size = 0
    replacement = replacement_for(out, text, new)
    for r in out.regions:
        parts.append(text[pos : r.start])
        try:
            parts.append(replacement(r))
        except CannotCarry as e:
            return EditFailure(
                "no_match",
                {
                    "closest": [real_text(text, r.start_line, r.end_line, old, e.reason)],
                    "strategies_tried": list(LADDER),
                    "uncertain": e.reason,
                },
            )
        size += len(parts[-2]) + len(parts[-1])
        if budget.over(size):
            return too_large(size)
        pos = r.end
    parts.append(text[pos:])
    if budget.over(size + len(parts[-1])):
        return too_large(size + len(parts[-1]))
    same = (out.regions[0].start, len(text) - pos)  # (copied unchanged around the places)
    return edited(text, "".join(parts), out.count, out.strategy, same, steps=out.steps)


def _replace_elided(text: str, old: str, pairs: list[tuple[str, str]]) -> Result:
    """``old`` and ``new`` that skip the same lines with the same elision lines
    (:mod:`filewright.edit.elision`): each piece replaced where it is, the lines between
    left as the file has them."""
    placed = place(text, pairs)
    if placed.failed == "ambiguous":
        assert placed.outcome is not None
        out = placed.outcome
        where = [(r.start, r.start_line, r.end_line) for r in out.regions]
        return EditFailure(
            "ambiguous",
            {"count": out.count, "strategy": "elision", "locations": locations(text, where)},
        )
    if placed.failed:
        tried = [*LADDER, "elision"]
        return EditFailure("no_match", {"closest": closest(text, old), "strategies_tried": tried})
    parts: list[str] = []
    pos = 0
    for out, r, new in placed.found:
        parts.append(text[pos : r.start])
        try:
            parts.append(adapt_replacement(out, r, text, new))
        except CannotCarry as e:
            return EditFailure(
                "no_match",
                {
                    "closest": [real_text(text, r.start_line, r.end_line, old, e.reason)],
                    "strategies_tried": [*LADDER, "elision"],
                    "uncertain": e.reason,
                },
            )
        pos = r.end
    parts.append(text[pos:])
    steps = ("elision", *dict.fromkeys(o.strategy for o, _, _ in placed.found))
    return edited(text, "".join(parts), 1, "elision", steps=steps)


def too_large(size: int) -> EditFailure:
    """The failure of an edit whose result would pass the size budget."""
    limit = budget.current() or 0
    return EditFailure(
        "too_large",
        {
            "size": size,
            "limit": limit,
            "message": f"the edited file would hold more than {limit} characters "
            f"(at least {size}); nothing was changed",
        },
    )


def placeholder_failure(found: list[str]) -> EditFailure:
    """The refusal of a change whose new text holds omission placeholders (``found``)."""
    return EditFailure("placeholder", {"placeholder": found[0], "placeholders": found})


def overwrite(text: str | None, content: str) -> Result | str:
    """The new content of a whole-file write: ``content``, unless it holds omission
    placeholders that the current ``text`` (``None``: a new file) does not have."""
    if found := omission_placeholders(content, text or ""):
        return placeholder_failure(found)
    return content


def replace_first(text: str, old: str, new: str) -> Result:
    """Replace the first exact occurrence of ``old`` literally (no uniqueness check)."""
    if old == "":
        return EditFailure("empty_old", {})
    i = text.find(old)
    if i < 0:
        return EditFailure(
            "no_match", {"closest": closest(text, old), "strategies_tried": ["exact"]}
        )
    return edited(text, text[:i] + new + text[i + len(old) :], 1, "exact", steps=("exact",))


# --------------------------------------------------------------------------- regex


def replace_regex(
    text: str,
    pattern: str,
    repl: str,
    *,
    count: int | None = None,
    literal_replacement: bool = False,
    flags: int = re.MULTILINE,
) -> Result:
    """Regex replace of the first ``count`` matches (``None`` or ``0``: all).

    ``repl`` is a ``re`` template (``\\1``, ``\\g<name>``) unless ``literal_replacement``.
    A bad pattern or template gives ``invalid_regex`` with ``re``'s message.
    """
    try:
        rx = regexes.compile(pattern, flags)
    except regexes.error as e:
        return EditFailure("invalid_regex", {"pattern": pattern, "error": str(e)})
    template: str | Callable[[Any], str] = (lambda _m: repl) if literal_replacement else repl
    limit = budget.current()
    if limit is not None:
        template = _budgeted(template, len(text), limit)
    try:
        after, n = regexes.subn(rx, template, text, count=count or 0)
    except (regexes.error, IndexError) as e:
        return EditFailure("invalid_regex", {"pattern": pattern, "error": f"replacement: {e}"})
    except regexes.RegexTimeout as e:
        return EditFailure("invalid_regex", {"pattern": pattern, "error": str(e)})
    except budget.ResultTooLarge as e:
        return too_large(e.size)
    if n == 0:
        return EditFailure("no_match", {"pattern": pattern, "closest": []})
    return edited(text, after, n, "regex", steps=("regex",))


_EXPANSIONS_KEPT = 64
"""Distinct expansions `_budgeted` keeps for reuse (they are in the result anyway)."""


def _budgeted(template: str | Callable[[Any], str], start: int, limit: int) -> Callable[[Any], str]:
    """A replacement callback that expands ``template`` per match and stops the
    substitution (ResultTooLarge) once the result would pass ``limit`` characters.

    A template's expansion depends on the match's groups alone, so one already made for
    the same groups is reused (a template that repeats a group thousands of times, on
    thousands of equal matches, is expanded once, not built again up to the limit)."""
    size = [start]
    made: dict[tuple[Any, ...], str] = {}

    def expand(m: Any) -> str:
        if callable(template):
            out = template(m)
        else:
            key = (m.group(0), *m.groups())
            kept = made.get(key)
            if kept is None:
                kept = m.expand(template)
                if len(made) < _EXPANSIONS_KEPT:
                    made[key] = kept
            out = kept
        size[0] += len(out) - (m.end() - m.start())
        if size[0] > limit:
            raise budget.ResultTooLarge(size[0], limit)
        return out

    return expand


# --------------------------------------------------------------------------- insert / append


def line_count(text: str) -> int:
    """Number of lines: a final newline ends the last line; ``""`` has none."""
    if not text:
        return 0
    return text.count("\n") + (0 if text.endswith("\n") else 1)


def insert_at_line(text: str, line: int, new: str) -> Result:
    """Insert ``new`` as whole line(s) AFTER line ``line`` (0 = at the top).

    ``new`` gets a line break after it unless it already ends with one.  At the end of a
    file that has no trailing newline, a newline is added before ``new`` and the file still
    ends without one.
    """
    n = line_count(text)
    if line < 0 or line > n:
        return EditFailure("line_out_of_range", {"line": line, "line_count": n})
    if new == "":
        return EditFailure("no_change", {"strategy": "insert"})
    block = new if new.endswith("\n") else new + "\n"
    if line == n and text and not text.endswith("\n"):
        after = text + "\n" + block[:-1]
    else:
        pos = 0
        for _ in range(line):
            pos = text.index("\n", pos) + 1
        after = text[:pos] + block + text[pos:]
    return edited(text, after, 1, "insert", steps=("insert",))


def append(text: str, new: str) -> Edited:
    """Append ``new`` exactly as given (no separator added)."""
    after = text + new
    return Edited(after, 1 if new else 0, "append", changed_range(text, after), ("append",))


# --------------------------------------------------------------------------- batch


class Op(Protocol):
    """A batch operation: anything with ``apply(text) -> Edited | EditFailure``."""

    def apply(self, text: str) -> Result: ...


@dataclass(frozen=True)
class Replace:
    """Batch op for :func:`replace`."""

    old: str
    new: str
    replace_all: bool = False
    expected: int | None = None
    fuzzy: bool = True

    def apply(self, text: str) -> Result:
        return replace(
            text,
            self.old,
            self.new,
            replace_all=self.replace_all,
            expected=self.expected,
            fuzzy=self.fuzzy,
        )


@dataclass(frozen=True)
class RegexReplace:
    """Batch op for :func:`replace_regex`."""

    pattern: str
    repl: str
    count: int | None = None
    literal_replacement: bool = False

    def apply(self, text: str) -> Result:
        return replace_regex(
            text,
            self.pattern,
            self.repl,
            count=self.count,
            literal_replacement=self.literal_replacement,
        )


@dataclass(frozen=True)
class SpanReplace:
    """Batch op for :func:`filewright.edit.spans.replace_span`."""

    start_marker: str
    end_marker: str
    new: str
    search_after: str | None = None
    keep_markers: bool | None = None
    start_is_regex: bool = False

    def apply(self, text: str) -> Result:
        return replace_span(
            text,
            self.start_marker,
            self.end_marker,
            self.new,
            search_after=self.search_after,
            keep_markers=self.keep_markers,
            start_is_regex=self.start_is_regex,
        )


@dataclass(frozen=True)
class InsertAtLine:
    """Batch op for :func:`insert_at_line`."""

    line: int
    new: str

    def apply(self, text: str) -> Result:
        return insert_at_line(text, self.line, self.new)


@dataclass(frozen=True)
class Append:
    """Batch op for :func:`append`."""

    new: str

    def apply(self, text: str) -> Result:
        return append(text, self.new)


def apply_batch(text: str, ops: Sequence[Op | Callable[[str], Result]]) -> Result:
    """Apply ``ops`` in order, each to the previous result; all or nothing.

    The first failure is returned with its own code and ``detail["edit_index"]`` (0-based)
    added; the input text is then untouched (pure function).  On success ``replacements``
    is the sum and ``notes["strategies"]`` lists each op's strategy.
    """
    if not ops:
        return EditFailure("no_change", {"strategy": "batch", "edit_index": None})
    cur = text
    total = 0
    strategies: list[str] = []
    for i, op in enumerate(ops):
        res = op.apply(cur) if hasattr(op, "apply") else op(cur)  # type: ignore[operator,union-attr]
        if isinstance(res, EditFailure):
            return EditFailure(res.code, {**res.detail, "edit_index": i})
        cur = res.text
        total += res.replacements
        strategies.append(res.strategy)
    return edited(
        text, cur, total, "batch", steps=tuple(strategies), notes={"strategies": strategies}
    )


# --------------------------------------------------------------------------- diff


def unified_diff(old: str, new: str, path: str, context: int = 3) -> str:
    """Unified diff of two texts with ``a/path`` / ``b/path`` headers ("" when equal).

    A last line without a newline is marked ``\\ No newline at end of file`` as git does.
    """
    if old == new:
        return ""
    out = []
    for line in difflib.unified_diff(
        old.splitlines(keepends=True),
        new.splitlines(keepends=True),
        f"a/{path}",
        f"b/{path}",
        n=context,
    ):
        if line.endswith("\n"):
            out.append(line)
        else:
            out.append(line + "\n\\ No newline at end of file\n")
    return "".join(out)


__all__ = [
    "Append",
    "EditFailure",
    "Edited",
    "InsertAtLine",
    "RegexReplace",
    "Replace",
    "SpanReplace",
    "append",
    "apply_batch",
    "changed_range",
    "insert_at_line",
    "line_count",
    "replace",
    "replace_first",
    "replace_regex",
    "replace_span",
    "unified_diff",
]
