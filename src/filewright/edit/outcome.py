"""What an edit computes: the new text (`Edited`) or a failure value (`EditFailure`).

Failure codes are listed in `filewright.edit.edits`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Edited:
    """A successful edit.

    ``changed_lines`` is the smallest 1-based inclusive line range of the NEW text covering
    every change (found from the common prefix and suffix of old and new text); for a
    pure deletion it is the line where text was removed, and ``None`` when that point is
    past the last line (deletion at the end of the file) or nothing changed.
    """

    text: str
    replacements: int
    strategy: str
    changed_lines: tuple[int, int] | None
    steps: tuple[str, ...] = ()
    notes: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class EditFailure:
    """A refused edit: a code from the module docstring and structured ``detail``."""

    code: str
    detail: dict[str, Any] = field(default_factory=dict)


Result = Edited | EditFailure


def _common_prefix(a: str, b: str, known: int = 0) -> int:
    """The length of the longest common prefix; `known`: a length known to be common."""
    lo, hi = known, min(len(a), len(b))
    while lo < hi:  # binary search on C-speed slice comparisons
        mid = (lo + hi + 1) // 2
        if a[lo:mid] == b[lo:mid]:
            lo = mid
        else:
            hi = mid - 1
    return lo


def _common_suffix(a: str, b: str, limit: int, known: int = 0) -> int:
    """The length of the longest common suffix, at most `limit`; `known`: a length known
    to be common."""
    lo, hi = min(known, limit), limit
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if a[len(a) - mid : len(a) - lo] == b[len(b) - mid : len(b) - lo]:
            lo = mid
        else:
            hi = mid - 1
    return lo


def changed_range(
    before: str, after: str, same: tuple[int, int] = (0, 0)
) -> tuple[int, int] | None:
    """1-based inclusive line range of ``after`` covering every change from ``before``.
    ``same``: lengths of a head and a tail the caller knows the texts share (an edit
    copied them unchanged), where the search for the common ones starts."""
    if before == after:
        return None
    p = _common_prefix(before, after, same[0])
    s = _common_suffix(before, after, min(len(before), len(after)) - p, same[1])
    end = len(after) - s
    first = after.count("\n", 0, p) + 1
    if end <= p:  # pure deletion
        if p >= len(after) and (not after or after.endswith("\n")):
            return None
        return first, first
    return first, after.count("\n", 0, end - 1) + 1


def edited(
    before: str, after: str, n: int, strategy: str, same: tuple[int, int] = (0, 0), **kw: Any
) -> Result:
    if after == before:
        return EditFailure("no_change", {"strategy": strategy})
    return Edited(after, n, strategy, changed_range(before, after, same), **kw)
