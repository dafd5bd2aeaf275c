"""The `default` toolset's `read`: a range of lines, the last `tail` lines, or lines
counted from the end (a negative `offset`). Loaded by name when first called
(`Toolset.by_name`); the reading is `read.readers`'."""

from __future__ import annotations

from typing import TYPE_CHECKING

from filewright.core.result import Failure, OperationFailed, Result
from filewright.read.readers import read_any, render_outcome
from filewright.toolsets.common import read_result

if TYPE_CHECKING:
    from filewright.tools.base import Toolset
    from filewright.toolsets.default_params import ReadParams


def read(ts: Toolset, p: ReadParams) -> Result:
    return read_tail_or_range(ts, p.path, p.offset, p.limit, p.tail)


def read_tail_or_range(
    toolset: Toolset, path: str, offset: int | None, limit: int | None, tail: int | None
) -> Result:
    """`read` with a negative offset (counted from the end) or `tail` (last N lines)."""
    if offset == 0:
        return toolset.failed(
            Failure("invalid", path, {"message": "offset must not be 0 (1 is the first line)"}),
            path,
        )
    if tail is not None and offset is not None:
        return toolset.failed(
            Failure("invalid", path, {"message": "give offset or tail, not both"}), path
        )
    if offset is not None and offset < 0:
        tail = -offset
        if limit is not None and limit < tail:
            return _from_the_end(toolset, path, tail, limit)
        offset = None
    return read_result(toolset, path, offset=offset, limit=limit, tail=tail, style="default")


def _from_the_end(toolset: Toolset, path: str, back: int, limit: int) -> Result:
    """`limit` lines starting `back` lines before the end: the first of the last `back`
    lines found from the end, then read forwards from there (or, in a file too large to
    count its lines, the first `limit` of the last `back`)."""

    first = read_result(toolset, path, tail=back, style="default")
    start = first.data.get("start_line") if first.ok else None
    if not isinstance(start, int):
        return first
    if start >= 1:
        return read_result(toolset, path, offset=start, limit=limit, style="default")
    try:
        outcome = read_any(toolset.engine, path, tail=back, limit=None)
    except OperationFailed as exc:
        return toolset.failed(exc.failure, path)
    s = outcome.text
    if s is None:
        return first
    outcome.text = s.replace(
        lines=s.lines[:limit], end=s.start + min(limit, len(s.lines)) - 1, truncated=True
    )
    return Result(True, render_outcome(outcome, "default"), outcome.data())
