"""Result wording shared by several toolsets (formatting only; no file logic).

Reading goes through `filewright.read.readers`: the engine decides what a file is and reads
it; these helpers only choose a style and word the outcome or the failure.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from filewright.core.progress import report_progress
from filewright.core.result import OperationFailed, Result
from filewright.read.readers import (
    DEFAULT_LIMIT,
    MAX_LINE_CHARS,
    ReadOutcome,
    TextSlice,
    notices,
    numbered,
    read_any,
    render_outcome,
)

if TYPE_CHECKING:
    from filewright.fs.paths import Location
    from filewright.search.results import GlobResult, GrepResult, ListResult
    from filewright.tools.base import Toolset

__all__ = [
    "DEFAULT_LIMIT",
    "MAX_LINE_CHARS",
    "locations_text",
    "number_lines",
    "read_result",
    "read_text_result",
]

BINARY_TEXT = "Cannot display content of binary file: {path}"
# Reader failures the shared message catalogue has no words for.
READ_FAILURE_TEXT = "Cannot read {path}: {message}"
READ_FAILURE_CODES = frozenset({"encrypted", "corrupt", "invalid_notebook", "page_out_of_range"})


def number_lines(lines: list[str], start: int) -> str:
    """`cat -n` style: right-aligned line number, a tab, the line."""
    return numbered(lines, start, len(str(start + len(lines) - 1)))


def locations_text(
    locations: list[dict[str, object]],
    heading: str,
    line_label: Callable[[object], str],
    more: Callable[[int], str],
    limit: int = 10,
) -> str:
    """Where each occurrence is, with its numbered context (from `edit.suggest.locations`),
    in a toolset's own words: ``heading``, then ``line_label(line)`` and the context per
    place, then ``more(count)`` for the places past ``limit``; empty without places."""
    if not locations:
        return ""
    parts = [heading]
    for where in locations[:limit]:
        parts.append(line_label(where["line"]))
        parts += [f"    {line}" for line in str(where["context"]).split("\n")]
    if len(locations) > limit:
        parts.append(more(len(locations) - limit))
    return "\n\n" + "\n".join(parts)


def read_result(
    toolset: Toolset,
    path: str,
    *,
    offset: int | None = None,
    limit: int | None = None,
    pages: str | None = None,
    max_output_chars: int | None = None,
    style: str = "default",
    formatter: Callable[[list[str], int], str] | None = None,
    tail: int | None = None,
) -> Result:
    """Read any file (text, image, PDF, notebook) and word the result in `style`
    (`tail`: only the last N lines of a text file, streamed from its end).

    `formatter`, when given, numbers text lines instead of the style's own numbering
    (the style's notices are still added). Binary files get `BINARY_TEXT`.
    """
    try:
        outcome = read_any(
            toolset.engine,
            path,
            offset=offset or 1,
            limit=limit or DEFAULT_LIMIT,
            pages=pages,
            max_output_chars=max_output_chars,
            tail=tail,
        )
    except OperationFailed as exc:
        result = toolset.failed(exc.failure, path)
        if exc.failure.code == "binary":
            result.text = BINARY_TEXT.format(path=path)
        elif exc.failure.code in READ_FAILURE_CODES:
            message = exc.failure.detail.get("message", exc.failure.code)
            result.text = READ_FAILURE_TEXT.format(path=path, message=message)
        return result
    return Result(True, _text(outcome, style, formatter), outcome.data())


def _text(
    outcome: ReadOutcome, style: str, formatter: Callable[[list[str], int], str] | None
) -> str:
    s: TextSlice | None = outcome.text
    if formatter is None or s is None:
        return render_outcome(outcome, style)
    body = (
        formatter(s.lines, s.start) if s.lines else ("(empty file)" if s.total_lines == 0 else "")
    )
    notes = notices(s)
    return "\n\n".join([body, "\n".join(notes)]) if notes else body


def read_text_result(
    toolset: Toolset,
    path: str,
    *,
    offset: int | None,
    limit: int | None,
    formatter: Callable[[list[str], int], str],
) -> Result:
    """Read a file's lines [offset, offset+limit) numbered by `formatter` (kept for callers
    of the earlier API; images, PDFs and notebooks are read too)."""
    return read_result(toolset, path, offset=offset, limit=limit, formatter=formatter)


def search_progress(matches: int) -> None:
    """Progress of a long search, for surfaces that listen (MCP progress notifications)."""
    report_progress(matches, None, f"{matches} matching lines so far")


def listing_result(loc: Location, result: ListResult, text: str) -> Result:
    """A directory listing as a tool result: the text plus its entries as data."""
    entries = [{"name": e.name, "is_dir": e.is_dir} for e in result.entries]
    data = {"path": str(loc.path), "entries": entries, "ignored_count": result.ignored_count}
    return Result(True, text, data)


def glob_result(loc: Location, result: GlobResult, text: str, files: list[str]) -> Result:
    """Files found by a glob as a tool result (a failure for an invalid pattern)."""
    if result.error:
        return Result(False, text, {"error": "invalid_pattern", "path": str(loc.path)})
    data = {
        "path": str(loc.path),
        "files": files,
        "total": result.total,
        "truncated": result.truncated,
        "ignored_count": result.ignored_count,
    }
    return Result(True, text, data)


def grep_result(loc: Location, result: GrepResult, text: str) -> Result:
    """Matching lines as a tool result (a failure for an invalid pattern)."""
    if result.error:
        return Result(False, text, {"error": "invalid_pattern", "path": str(loc.path)})
    matches = [
        {"file": f.path, "line": m.line, "text": m.text}
        for f in result.files
        for m in f.matches
        if not m.is_context
    ]
    data = {
        "path": str(loc.path),
        "matches": matches,
        "total_matches": result.total_matches,
        "truncated": result.truncated,
    }
    return Result(True, text, data)
