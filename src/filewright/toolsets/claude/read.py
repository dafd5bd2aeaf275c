"""The `claude` toolset's Read: the engine's readers, worded as the claude seed shows.

Text comes back numbered `cat -n` style (numbers padded to the widest shown, a tab, the
line), 2000 lines by default, lines over 2000 characters cut with ` ... [truncated]`,
`(empty file)` for an empty file, and a note saying how to read on when lines were left
out. Images come back as images (`data["images"]`), PDFs as text page by page, notebooks
cell by cell. `data` carries the seed's metadata names: totalLines, fileSize, encoding,
mimeType, readLines, truncated.

With the toolset option `list_directories=True` (off by default; the MCP server turns it
on, where a model has no other way to see what a root holds), Read of a directory lists
it one level deep, as Claude Code's LS tool would: `- /abs/dir/` then one `  - name` line
per entry (directories with a trailing `/`), gitignored and hidden entries left out.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any, Protocol

from filewright.core.result import Failure, OperationFailed, Result
from filewright.read import readers
from filewright.toolsets.claude import messages as M

if TYPE_CHECKING:
    from filewright.engine.workspace import Engine


MAX_LISTED = 1000


class ReadingToolset(Protocol):
    """What reading needs of the claude toolset: its engine, options and failure wording."""

    engine: Engine
    options: dict[str, Any]

    def fail_with(self, failure: Failure, path: str, **extra: Any) -> Result: ...


def read_file(
    toolset: ReadingToolset, path: str, offset: int | None, limit: int | None, max_bytes: int
) -> Result:
    """Read `path` for the claude seed: any kind; a text file over `max_bytes` is read
    in the requested range by streaming, as the seed's StreamReader does (other kinds
    over it are refused)."""
    engine = toolset.engine
    try:
        loc = readers.locate_file(engine, path)
        with readers.open_file(engine, loc) as (fd, size):
            kind = readers.sniff(os.pread(fd, 8192, 0), loc.name).kind if size > max_bytes else ""
        if size > max_bytes and kind not in ("text", "binary"):
            return toolset.fail_with(
                Failure("too_large", path, {"size": size, "limit": max_bytes}), path
            )
        outcome = readers.read_any(
            engine,
            loc,
            offset=offset or 1,
            limit=limit or M.DEFAULT_LIMIT,
            max_line_chars=M.MAX_LINE_LENGTH,
        )
    except OperationFailed as exc:
        if exc.failure.code == "is_directory" and toolset.options.get("list_directories"):
            return list_directory(toolset, path)
        mime = exc.failure.detail.get("mime_type") or M.mime_type(path, "application/octet-stream")
        return toolset.fail_with(exc.failure, path, mime=mime)
    result = _result(outcome, path)
    if size > max_bytes:
        result.data["streamed"] = True
    return result


def list_directory(toolset: ReadingToolset, path: str) -> Result:
    """Read of a directory (`list_directories` on): its entries, one level deep."""
    from filewright import search

    engine = toolset.engine
    try:
        loc = engine.locate_dir(path)
        found = search.list_directory(
            loc.real,
            visible=engine.visibility(loc),
            ignore_root=loc.root,
            symlink_root=loc.root,
        )
    except OperationFailed as exc:
        return toolset.fail_with(exc.failure, path)
    entries = found.entries[:MAX_LISTED]
    lines = [f"- {str(loc.path).rstrip('/')}/"]
    lines += [f"  - {e.name}{'/' if e.is_dir else ''}" for e in entries]
    if len(found.entries) > MAX_LISTED:
        lines.append(f"  ({len(found.entries) - MAX_LISTED} more entries not shown)")
    data = {
        "path": str(loc.path),
        "kind": "directory",
        "entries": [{"name": e.name, "is_dir": e.is_dir} for e in entries],
        "total": len(found.entries),
        "ignored": found.ignored_count,
    }
    return Result(True, "\n".join(lines), data)


def _result(outcome: readers.ReadOutcome, path: str) -> Result:
    text = readers.render_outcome(outcome, "claude")
    data: dict[str, Any] = outcome.data()
    slice_ = outcome.text
    if slice_ is not None:
        meta = {
            "totalLines": slice_.total_lines,
            "encoding": slice_.encoding,
            "mimeType": M.mime_type(path),
            "readLines": len(slice_.lines),
            "truncated": slice_.truncated,
        }
    elif outcome.image is not None:
        meta = {
            "totalLines": 0,
            "encoding": "binary",
            "mimeType": outcome.image.mime_type,
            "readLines": 0,
            "truncated": False,
        }
    else:
        lines = text.count("\n") + 1
        meta = {
            "totalLines": lines,
            "encoding": "utf-8" if outcome.kind == "notebook" else "binary",
            "mimeType": outcome.mime_type,
            "readLines": lines,
            "truncated": bool(data.get("truncated")),
        }
    data.update(meta, fileSize=outcome.size)
    return Result(True, text, data)
