"""The `claude` toolset's Read: the engine's readers, worded exactly as the claude seed's.

Text is `formatWithLineNumbers`'s output (numbers padded to the widest shown, a tab, the
line; 2000 lines by default; lines over 2000 characters cut with ` ... [truncated]`;
`(empty file)` when no line is shown, an offset past the end included); when the read
stopped short (`metadata.truncated`), a blank line, the seed's metadata as one
`metadata: {...}` line and filewright's notice of how to read on follow (not with the
option `plain=True`). Every file read (images and PDFs too) is recorded for Write. Images are `[Image file: NAME]` with the file as a data URL in `imageData`
(and as an image in `data["images"]`, for surfaces that pass images on); notebooks are
`formatNotebook`'s text; PDFs are read as text page by page (see docs/deviations.md).
`data` carries the seed's metadata names with the seed's values (totalLines, fileSize,
encoding, mimeType, readLines, truncated) and, besides them, what filewright knows more
(`notices`, the true `total_lines`, `encoding_confidence`, ...).

With the toolset option `list_directories=True` (off by default; the MCP server turns it
on, where a model has no other way to see what a root holds), Read of a directory lists
it one level deep, as Claude Code's LS tool would: `- /abs/dir/` then one `  - name` line
per entry (directories with a trailing `/`), gitignored and hidden entries left out.
"""

from __future__ import annotations

import base64
import os
from typing import TYPE_CHECKING, Any, Protocol

from filewright import search
from filewright.core import inline
from filewright.core.result import Failure, OperationFailed, Result
from filewright.fs.textfile import content_hash
from filewright.read import readers
from filewright.toolsets.claude import messages as M
from filewright.toolsets.claude import seed

if TYPE_CHECKING:
    from filewright.engine.workspace import Engine
    from filewright.fs.paths import Location

IMAGE_EXTENSIONS = (".png", ".jpg", ".jpeg", ".gif", ".bmp", ".webp")


MAX_LISTED = 1000


class ReadingToolset(Protocol):
    """What reading needs of the claude toolset: its engine, options and failure wording."""

    engine: Engine
    options: dict[str, Any]

    def read_failure(self, failure: Failure, path: str, **extra: Any) -> Result: ...


def read_file(
    toolset: ReadingToolset, path: str, offset: int | None, limit: int | None, max_bytes: int
) -> Result:
    """Read `path` for the claude seed: any kind; a text file over `max_bytes` is read
    in the requested range by streaming, as the seed's StreamReader does (other kinds
    over it are refused)."""
    engine = toolset.engine
    start = offset or 1
    try:
        loc = readers.locate_file(engine, path)
        size, kind = readers.entry_size(engine, loc), ""
        if size > max_bytes:  # (only then is the file opened twice)
            with readers.open_file(engine, loc) as (fd, size):
                kind = readers.sniff(os.pread(fd, 8192, 0), loc.name).kind
        if size > max_bytes and kind not in ("text", "binary"):
            raise OperationFailed(Failure("too_large", path, {"size": size, "limit": max_bytes}))
        ext = seed.extname(path)
        if ext == ".ipynb":
            return _notebook(engine, loc, path, size, max_bytes)
        outcome = readers.read_any(
            engine,
            loc,
            offset=start,
            limit=limit or M.DEFAULT_LIMIT,
            max_line_chars=M.MAX_LINE_LENGTH,
        )
    except OperationFailed as exc:
        if exc.failure.code == "is_directory" and toolset.options.get("list_directories"):
            return list_directory(toolset, path)
        if exc.failure.code == "line_out_of_range":
            return _past_the_end(exc.failure, path)
        return toolset.read_failure(exc.failure, path, mime=seed.mime_type(path))
    if outcome.image is not None:
        return _image(engine, loc, outcome, path, max_bytes)
    if outcome.pdf is not None:  # the seed's Read records every file it reads
        engine.record_read(loc, _raw(engine, loc, max_bytes)[1])
    result = _result(outcome, path, plain=bool(toolset.options.get("plain")))
    if size > max_bytes:
        result.data["streamed"] = True
    return result


def list_directory(toolset: ReadingToolset, path: str) -> Result:
    """Read of a directory (`list_directories` on): its entries, one level deep."""
    inline.leave("a directory listing")  # as many entries as the directory holds
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
        return toolset.read_failure(exc.failure, path)
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


def _text_metadata(
    path: str, size: int, total: int, shown: int, encoding: str, truncated: bool, start: int
) -> dict[str, Any]:
    return {
        "totalLines": seed.seed_total_lines(start, shown, total, truncated),
        "fileSize": size,
        "encoding": encoding,
        "mimeType": seed.mime_type(path),
        "readLines": shown,
        "truncated": truncated,
    }


def _result(outcome: readers.ReadOutcome, path: str, *, plain: bool = False) -> Result:
    """The seed's `{content, metadata}`: the content, and when the read stopped short
    (`metadata.truncated`) the metadata and filewright's notice saying how to read on."""
    data: dict[str, Any] = outcome.data()
    notes: list[str] = []
    s = outcome.text
    if s is not None:
        text = seed.format_with_line_numbers(s.lines, s.start)
        total = s.total_lines if s.total_lines is not None else s.end
        meta = _text_metadata(
            path, outcome.size, total, len(s.lines), s.encoding, s.truncated, s.start
        )
        notes = readers.notices(s)
        if notes:
            data["notices"] = notes
    else:  # a PDF, read as text (docs/deviations.md)
        text = readers.render_outcome(outcome, "claude")
        lines = text.count("\n") + 1
        meta = {
            "totalLines": lines,
            "fileSize": outcome.size,
            "encoding": "binary",
            "mimeType": seed.mime_type(path),
            "readLines": lines,
            "truncated": bool(data.get("truncated")),
        }
    data.update(meta)
    if meta["truncated"] and not plain:  # the seed's result whole, then what it lacks
        text = text + "\n\n" + M.joined(M.metadata_text(meta), *notes)
    return Result(True, text, data)


def _past_the_end(failure: Failure, path: str) -> Result:
    """An offset past the last line: the seed's loop shows no line, so `(empty file)`."""
    total = int(failure.detail.get("lines") or 0)
    data = {
        "path": path,
        "totalLines": total,
        "readLines": 0,
        "truncated": False,
        "mimeType": seed.mime_type(path),
        "notices": [f"offset {failure.detail.get('line')} is past the end ({total} lines)"],
    }
    return Result(True, "(empty file)", data)


def _raw(engine: Engine, loc: Location, max_bytes: int) -> tuple[bytes, str]:
    state = engine.read_bytes(loc, max_bytes=max_bytes)

    return state.data, content_hash(state.data)


def _image(
    engine: Engine, loc: Location, outcome: readers.ReadOutcome, path: str, max_bytes: int
) -> Result:
    """`handleImageFile`: `[Image file: NAME]`, the file as a data URL in `imageData`."""
    raw, digest = _raw(engine, loc, max_bytes)
    engine.record_read(loc, digest)  # the seed's Read records every file it reads
    mime = seed.mime_type(path)
    if mime == seed.UNKNOWN_MIME and outcome.image is not None:
        mime = outcome.image.mime_type  # an image the seed's list does not name
    data: dict[str, Any] = outcome.data()
    data.update(
        totalLines=0,
        fileSize=outcome.size,
        encoding="binary",
        mimeType=mime,
        readLines=0,
        truncated=False,
        imageData=f"data:{mime};base64,{base64.b64encode(raw).decode('ascii')}",
    )
    return Result(True, f"[Image file: {os.path.basename(path)}]", data)


def _notebook(engine: Engine, loc: Location, path: str, size: int, max_bytes: int) -> Result:
    """`handleNotebookFile`: `formatNotebook`'s text; the seed's notebook metadata."""
    raw, digest = _raw(engine, loc, min(max_bytes, readers.NOTEBOOK_MAX_BYTES))
    try:
        text = seed.format_notebook(seed.parse_notebook(raw))
    except ValueError as exc:  # JSON.parse's SyntaxError, or no cells to walk
        message = str(exc)
        return M.failure("UNKNOWN_ERROR", message, "invalid_notebook")
    engine.record_read(loc, digest)
    text, cut = readers.take_output(text)  # within the call's output budget
    lines = len(text.split("\n"))
    data = {
        "path": str(loc.path),
        "kind": "notebook",
        "hash": digest,
        "totalLines": lines,
        "fileSize": size,
        "encoding": "utf-8",
        "mimeType": "application/x-ipynb+json",
        "readLines": lines,
        "truncated": cut,
    }
    return Result(True, text, data)
