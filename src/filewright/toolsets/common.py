"""Result wording shared by several toolsets (formatting only; no file logic)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from filewright.result import Failure, OperationFailed, Result

if TYPE_CHECKING:
    from filewright.toolsets.base import Toolset

DEFAULT_LIMIT = 2000
MAX_LINE_CHARS = 2000


def number_lines(lines: list[str], start: int) -> str:
    """`cat -n` style: right-aligned line number, a tab, the line."""
    if not lines:
        return ""
    width = len(str(start + len(lines) - 1))
    return "\n".join(f"{start + i:>{width}}\t{line}" for i, line in enumerate(lines))


def read_text_result(
    toolset: Toolset,
    path: str,
    *,
    offset: int | None,
    limit: int | None,
    formatter: Callable[[list[str], int], str],
) -> Result:
    """Read a text file's lines [offset, offset+limit) and word the result."""
    engine = toolset.engine
    try:
        loc, _ = engine.locate(path, purpose="read", expect="file")
        if not loc.exists:
            return toolset.failed(Failure("not_found", path, {}), path)
        tf, _state = engine.load_text(loc)
    except OperationFailed as exc:
        return toolset.failed(exc.failure, path)
    engine.record_read(loc, tf.hash)
    lines = tf.text.split("\n")
    if tf.trailing_newline or tf.text == "":
        lines = lines[:-1]
    total = len(lines)
    start = offset or 1
    count = limit or DEFAULT_LIMIT
    if total and start > total:
        return toolset.failed(
            Failure("line_out_of_range", path, {"line": start, "lines": total}), path
        )
    chosen = lines[start - 1 : start - 1 + count]
    cut = [ln if len(ln) <= MAX_LINE_CHARS else ln[:MAX_LINE_CHARS] + " ... [truncated]" for ln in chosen]
    text = formatter(cut, start) if cut else "(empty file)"
    end = start + len(chosen) - 1
    truncated = end < total
    if truncated:
        text += f"\n\n[Showing lines {start}-{end} of {total}. Use offset={end + 1} to read more.]"
    return Result(
        True,
        text,
        {
            "path": str(loc.path),
            "total_lines": total,
            "start_line": start,
            "end_line": end,
            "truncated": truncated,
            "encoding": tf.encoding_label,
            "hash": tf.hash,
        },
    )
