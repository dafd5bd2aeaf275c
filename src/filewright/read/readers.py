"""Reading anything an agent points at: text by line ranges, images, PDFs, notebooks.

Disk access and formatting are separate. `read_any` resolves a path through the engine
(sandbox and policy), decides by content what the file is (`media.sniff`), reads it with
the matching reader and returns a `ReadOutcome`; `read_lines` does the same for text
only. The `format_*` functions and `notices` turn a `TextSlice` into what a model sees,
in each toolset's style, and never touch the disk; `render_outcome` words images, PDFs
and notebooks. Toolsets only choose a style and their own words for failures.

Limits: `DEFAULT_LIMIT` lines per read and `MAX_LINE_CHARS` characters per line (both
2000), an optional output budget in characters, the workspace's `max_file_bytes` for
whole-file operations (a text read with no line limit, PDFs, notebooks), and
`media.IMAGE_MAX_BYTES` (5 MB) for images. Ranges of text files of any size are
streamed with flat memory (see `textread` and `linestream`).

Inside a tool call, every reader here also makes its result within the call's output
budget (`core.budget.output_left`: text characters and content bytes, across every file
the call reads) and counts what it returned against it: a call that reads thirty files
or one gigabyte-long line returns no more than the budget, and reads no more than it needs.
"""

from __future__ import annotations

import binascii
import hashlib
import os
from typing import TYPE_CHECKING, Any

from filewright.core import budget, inline
from filewright.core.record import Record
from filewright.core.result import OperationFailed, fail
from filewright.engine.workspace import disk_failures
from filewright.fs import fsio
from filewright.fs.fingerprint import fingerprint
from filewright.fs.paths import Location
from filewright.read.media import (
    IMAGE_MAX_BYTES,
    PDF_MAX_CHARS,
    PDF_MAX_PAGES,
    Image,
    MediaError,
    PdfText,
    image_block_anthropic,
    image_block_mcp,
    image_from_bytes,
    inline_data_gemini,
    render_notebook,
    sniff,
)
from filewright.read.textformat import (
    format_claude,
    format_default,
    format_gemini,
    format_numbered,
    format_plain,
    notices,
    numbered,
    with_notices,
)
from filewright.read.textread import (
    CUT_MARKER,
    DEFAULT_LIMIT,
    MAX_LINE_CHARS,
    TAIL_COUNT_BYTES,
    TextSlice,
    human_size,
    read_lines_fd,
    read_upto,
)

if TYPE_CHECKING:
    from filewright.engine.workspace import Engine
    from filewright.fs.textfile import TextFile

PDF_INLINE_MAX_BYTES = 20 * 1024 * 1024  # Gemini's limit for inline request data
NOTEBOOK_MAX_BYTES = 16 * 1024 * 1024
"""The largest notebook read (its JSON is parsed whole: a few times its size in memory)."""
_SNIFF_BYTES = 4096
_READ_WHOLE_BYTES = 64 << 10
"""Files up to this size are read whole before they are sniffed (a text among them is
then split from those bytes; an image or a PDF is read again by its reader). One that
has grown past it by then is read as a larger file is (its head, then its reader)."""


# -- the workspace side: find, open, size-check ----------------------------------------


def locate_file(engine: Engine, target: str | Location) -> Location:
    """Resolve a path for reading (policy checked) and require an existing file."""
    if isinstance(target, Location):
        loc = target
    else:
        loc, _access = engine.locate(target, purpose="read", expect="file")
    if loc.is_dir:
        raise fail("is_directory", loc.given, message=f"path is a directory: {loc.given}")
    if not loc.exists:
        raise fail("not_found", loc.given, message=f"file not found: {loc.given}")
    return loc


class open_file:  # used as a function: `with open_file(engine, loc) as (fd, size):`
    """Open a regular file without following swapped symlinks; gives (fd, size) and
    closes it at the end of the `with` (a class: no generator to set up per read)."""

    __slots__ = ("fd", "loc")

    def __init__(self, engine: Engine, loc: Location) -> None:
        self.loc = loc
        self.fd = -1

    def __enter__(self) -> tuple[int, int]:
        with disk_failures(self.loc.given):
            self.fd, st = fsio.open_with_stat(self.loc)
        return self.fd, st.st_size

    def __exit__(self, *_exc: object) -> None:
        os.close(self.fd)


def entry_size(engine: Engine, loc: Location) -> int:
    """The size of what `loc` leads to, stat'ed by descriptors without opening it
    (`fsio.stat_entry`); the disk's refusals as `open_file` words them."""
    with disk_failures(loc.given):
        return fsio.stat_entry(loc).st_size


def _check_size(size: int, cap: int, path: str, what: str) -> None:
    """Refuse a whole-file read above `cap` bytes, saying how big the file is."""
    if size > cap:
        raise fail(
            "too_large",
            path,
            size=size,
            limit=cap,
            message=f"{what} is {size} bytes ({human_size(size)}), over the {human_size(cap)} limit",
        )


def _read_capped(fd: int, size: int, cap: int, path: str, what: str) -> bytes:
    """The whole file, refused above `cap` bytes (also if it grows while being read)."""
    _check_size(size, cap, path, what)
    chunks: list[bytes] = []
    offset = 0
    while chunk := os.pread(fd, 1 << 20, offset):
        chunks.append(chunk)
        offset += len(chunk)
        _check_size(offset, cap, path, what)
    return b"".join(chunks)


def _limit(engine: Engine, name: str, default: int) -> int:
    value = getattr(engine.workspace, name, None)
    return value if isinstance(value, int) and value > 0 else default


# -- reading ---------------------------------------------------------------------------


def read_lines(
    engine: Engine,
    target: str | Location,
    start: int = 1,
    limit: int | None = DEFAULT_LIMIT,
    *,
    tail: int | None = None,
    max_line_chars: int = MAX_LINE_CHARS,
    max_output_chars: int | None = None,
    count_total: bool | None = None,
    record: bool = True,
) -> TextSlice:
    """Lines [start, start+limit) — or the last `tail` lines — of a text file.

    The read is recorded in the ledger unless `record` is false: the whole file's sha256,
    or above `max_file_bytes` its fingerprint (`fs.fingerprint`).
    Raises OperationFailed: not_found, is_directory, binary, too_large,
    line_out_of_range, invalid, and the engine's path and policy codes.
    """
    loc = locate_file(engine, target)
    max_line_chars, max_output_chars = _within_call(max_line_chars, max_output_chars)
    with open_file(engine, loc) as (fd, size):
        out = _text_slice(
            engine, loc, fd, size, start, limit, tail, max_line_chars, max_output_chars, count_total
        )
    budget.spend_output(sum(map(len, out.lines)))
    if record and out.hash is not None:
        engine.record_read(loc, out.hash)
    return out


OUTPUT_USED_UP = "[not read: this call's output budget ({limit} characters) is used up]"
CUT_AT_BUDGET = "\n[cut: this call's output budget ({limit} characters) is used up]"


def whole_text(engine: Engine, target: str | Location, *, record: bool = True) -> TextFile:
    """A text file's whole content (up to `max_file_bytes`), for a tool that returns it
    whole; refused (too_large) when the call's output budget is already used up, so a
    call naming a file thirty times reads it only while it may still return it. The
    caller gives what it returns to `take_output`."""
    loc = locate_file(engine, target)
    if budget.output_left() == 0:
        limit = budget.output_limit()
        raise fail("too_large", loc.given, limit=limit, message=OUTPUT_USED_UP.format(limit=limit))
    text, _state = engine.load_text(loc)
    if record:
        engine.record_read(loc, text.hash)
    return text


def media_bytes(engine: Engine, target: str | Location, *, image: bool) -> bytes:
    """A media file's bytes for a content block: an image within the image limit, any
    file within the call's output budget (and `max_file_bytes`); refused (too_large)
    above them, before it is read. Counted against the call's output budget."""
    loc = locate_file(engine, target)
    cap = budget.within_output(engine.workspace.max_file_bytes) or 0
    if image:
        cap = min(cap, _limit(engine, "max_image_bytes", IMAGE_MAX_BYTES))
    with open_file(engine, loc) as (fd, size):
        data = _read_capped(fd, size, cap, loc.given, "the image" if image else "the file")
    budget.spend_output(len(data))
    return data


def take_output(text: str) -> tuple[str, bool]:
    """`text` as much of it as the call may still return (with a note when cut), counted
    against the call's output budget; and whether it was cut."""
    left = budget.output_left()
    if left is None or len(text) <= left:
        budget.spend_output(len(text))
        return text, False
    budget.spend_output(left)
    return text[:left] + CUT_AT_BUDGET.format(limit=budget.output_limit()), True


def _within_call(max_line_chars: int, max_output_chars: int | None) -> tuple[int, int | None]:
    """A reader's limits lowered to the output the tool call has left."""
    out = budget.within_output(max_output_chars)
    return (max_line_chars if out is None else max(1, min(max_line_chars, out))), out


def _text_slice(
    engine: Engine,
    loc: Location,
    fd: int,
    size: int,
    start: int,
    limit: int | None,
    tail: int | None,
    max_line_chars: int,
    max_output_chars: int | None,
    count_total: bool | None,
    data: bytes | None = None,
) -> TextSlice:
    """The lines asked for from an open text file, with the hash the ledger records: the
    whole file's sha256, or above `max_file_bytes` its fingerprint (fs.fingerprint).
    `data`: the whole file, when it has been read already."""
    cap = engine.workspace.max_file_bytes
    out = read_lines_fd(
        fd,
        size,
        start,
        limit,
        tail=tail,
        max_line_chars=max_line_chars,
        max_output_chars=max_output_chars,
        count_total=count_total,
        hash_limit=cap,
        whole_limit=cap,
        path=loc.given,
        prefer_chinese=engine.workspace.locale == "zh",
        data=data,
    )
    if size > cap:
        out.hash = fingerprint(fd, os.fstat(fd))
    return out


class ReadOutcome(Record):
    """What `read_any` read. `kind` is "text", "image", "pdf" or "notebook".

    Exactly one of `text` (a TextSlice), `image`, `pdf` or `notebook` (the rendered
    notebook) is set. `cut` says a PDF's or notebook's text is longer than the output
    budget `max_output_chars`, so `render_outcome` shows only that much of it.
    """

    _fields = (
        "kind",
        "loc",
        "size",
        "mime_type",
        "text",
        "image",
        "pdf",
        "notebook",
        "cells",
        "hash",
        "cut",
        "max_output_chars",
    )
    __slots__ = _fields
    kind: str
    loc: Location
    size: int
    mime_type: str
    text: TextSlice | None
    image: Image | None
    pdf: PdfText | None
    notebook: str | None
    cells: int
    hash: str | None
    cut: bool
    max_output_chars: int | None

    def __init__(
        self,
        kind: str,
        loc: Location,
        size: int,
        mime_type: str,
        text: TextSlice | None = None,
        image: Image | None = None,
        pdf: PdfText | None = None,
        notebook: str | None = None,
        cells: int = 0,
        hash: str | None = None,
        cut: bool = False,
        max_output_chars: int | None = None,
    ) -> None:
        self.kind = kind
        self.loc = loc
        self.size = size
        self.mime_type = mime_type
        self.text = text
        self.image = image
        self.pdf = pdf
        self.notebook = notebook
        self.cells = cells
        self.hash = hash
        self.cut = cut
        self.max_output_chars = max_output_chars

    def data(self) -> dict[str, Any]:
        """Structured, JSON-serialisable result data (images under "images")."""
        out: dict[str, Any] = {
            "path": str(self.loc.path),
            "kind": self.kind,
            "size": self.size,
            "mime_type": self.mime_type,
        }
        if self.text is not None:
            out.update(self.text.data())
        if self.image is not None:
            out["images"] = [self.image.to_dict()]
            out["width"], out["height"] = self.image.width, self.image.height
        if self.pdf is not None:
            out["page_count"] = self.pdf.page_count
            out["pages"] = [n for n, _ in self.pdf.pages]
            out["has_text"] = self.pdf.has_text
            out["more_pages"] = self.pdf.more_pages
            if self.pdf.cut is not None:
                out["extraction_cut"] = self.pdf.cut
        if self.notebook is not None:
            out["cells"] = self.cells
        if self.kind in ("pdf", "notebook"):
            out["truncated"] = self.cut or bool(self.pdf and (self.pdf.more_pages or self.pdf.cut))
        if self.hash is not None:
            out["hash"] = self.hash
        return out


def read_any(
    engine: Engine,
    path: str | Location,
    *,
    offset: int = 1,
    limit: int | None = DEFAULT_LIMIT,
    tail: int | None = None,
    pages: str | None = None,
    max_line_chars: int = MAX_LINE_CHARS,
    max_output_chars: int | None = None,
    count_total: bool | None = None,
    image_max_bytes: int | None = None,
    pdf_max_pages: int = PDF_MAX_PAGES,
    record: bool = True,
) -> ReadOutcome:
    """Read whatever `path` is, deciding by content: text, image, PDF or notebook.

    `offset`/`limit`/`tail` apply to text, `pages` ("3", "1-5", "2,4-6") to PDFs,
    `max_output_chars` to text, PDFs and notebooks. The image cap defaults to the
    workspace's `max_image_bytes` if it has one, else 5 MB. Text files and notebooks are
    recorded in the read ledger. Raises OperationFailed with the codes of `read_lines`
    plus: encrypted, corrupt, invalid_notebook, page_out_of_range.
    """
    loc = locate_file(engine, path)
    cap = engine.workspace.max_file_bytes
    max_line_chars, max_output_chars = _within_call(max_line_chars, max_output_chars)
    out = _read_any(engine, loc, cap, offset, limit, tail, pages, max_line_chars,
                    max_output_chars, count_total, image_max_bytes, pdf_max_pages)  # fmt: skip
    budget.spend_output(_returned(out))
    if record and out.hash is not None:
        engine.record_read(loc, out.hash)
    return out


def _returned(out: ReadOutcome) -> int:
    """What a read returns, as the output budget counts it."""
    kind = out.kind
    if kind == "text":
        shown = len("".join(out.text.lines)) if out.text else 0  # (faster than sum(map(len)))
    elif kind == "image":
        shown = out.size
    elif kind == "pdf":
        shown = len(out.pdf.render()) if out.pdf else 0
    else:
        shown = len(out.notebook or "") if kind == "notebook" else 0
    return shown if out.max_output_chars is None else min(shown, out.max_output_chars)


def _read_any(
    engine: Engine,
    loc: Location,
    cap: int,
    offset: int,
    limit: int | None,
    tail: int | None,
    pages: str | None,
    max_line_chars: int,
    max_output_chars: int | None,
    count_total: bool | None,
    image_max_bytes: int | None,
    pdf_max_pages: int,
) -> ReadOutcome:
    with open_file(engine, loc) as (fd, size):
        # A small file is read whole at once: its head is sniffed, and a text reads its
        # lines from the same bytes (one read instead of two).
        data = read_upto(fd, size, _READ_WHOLE_BYTES) if size <= _READ_WHOLE_BYTES else None
        head = os.pread(fd, _SNIFF_BYTES, 0) if data is None else data[:_SNIFF_BYTES]
        found = sniff(head, loc.name)
        out = ReadOutcome(found.kind, loc, size, found.mime_type, max_output_chars=max_output_chars)
        if found.kind == "binary":
            raise fail(
                "binary",
                loc.given,
                mime_type=found.mime_type,
                format=found.description,
                message=f"binary file ({found.description})",
            )
        if found.kind == "image":
            image_cap = image_max_bytes or _limit(engine, "max_image_bytes", IMAGE_MAX_BYTES)
            image_cap = min(image_cap, max_output_chars or image_cap)
            out.image = image_from_bytes(
                _read_capped(fd, size, image_cap, loc.given, "the image"), found.mime_type
            )
            return out
        if found.kind == "pdf":
            inline.leave("a PDF's text")  # pypdf's parse: not bounded by the file's size
            # deferred: pypdf: heavy, loaded only for a PDF
            from filewright.read.pdf import extract_pdf

            _check_size(size, cap, loc.given, "the PDF")
            with os.fdopen(os.dup(fd), "rb") as stream:
                chars = min(max_output_chars or PDF_MAX_CHARS, PDF_MAX_CHARS) + 1
                out.pdf = _media(
                    lambda: extract_pdf(stream, pages, max_pages=pdf_max_pages, max_chars=chars),
                    loc.given,
                )
            out.cut = _over(out.pdf.render(), max_output_chars)
            return out
        if found.kind == "notebook":
            raw = _read_capped(fd, size, min(cap, NOTEBOOK_MAX_BYTES), loc.given, "the notebook")
            out.notebook, out.cells = _media(lambda: render_notebook(raw), loc.given)
            out.cut = _over(out.notebook, max_output_chars)
            out.hash = hashlib.sha256(raw).hexdigest()
        else:
            out.kind, out.mime_type = "text", "text/plain"
            out.text = _text_slice(
                engine, loc, fd, size, offset, limit, tail, max_line_chars, max_output_chars,
                count_total, data,
            )  # fmt: skip
            out.hash = out.text.hash
    return out


def _media(call: Any, path: str) -> Any:
    try:
        return call()
    except MediaError as exc:
        raise fail(exc.code, path, message=exc.message, **exc.detail) from None


_PDF_CUT = {
    "output": f"[Text extraction stopped at {PDF_MAX_CHARS} characters; ask for fewer pages.]",
    "content": "[Text extraction stopped: the pages' content is too large to extract in one "
    "read; ask for fewer pages.]",
    "time": "[Text extraction stopped: it took too long; ask for fewer pages.]",
}


def _over(text: str, budget: int | None) -> bool:
    return budget is not None and len(text) > budget


def pdf_inline(
    engine: Engine, target: str | Location, *, max_bytes: int = PDF_INLINE_MAX_BYTES
) -> dict[str, Any]:
    """The raw PDF as a Gemini `inlineData` part (mime application/pdf, base64 data)."""
    loc = locate_file(engine, target)
    with open_file(engine, loc) as (fd, size):
        raw = _read_capped(fd, size, max_bytes, loc.given, "the PDF")
    if b"%PDF-" not in raw[:1024]:
        raise fail("binary", loc.given, message="not a PDF file")
    return {
        "inlineData": {
            "mimeType": "application/pdf",
            "data": binascii.b2a_base64(raw, newline=False).decode("ascii"),
        }
    }


# -- formatting (pure; the text styles are `textformat`'s) ---------------------------


_STYLES = {"claude": format_claude, "gemini": format_gemini}


def render_outcome(outcome: ReadOutcome, style: str = "default") -> str:
    """The model-facing text of any outcome; text uses `format_<style>`."""
    if outcome.text is not None:
        return _STYLES.get(style, format_default)(outcome.text)
    name = outcome.loc.path.name
    if outcome.image is not None:
        img = outcome.image
        dims = f", {img.width}x{img.height} pixels" if img.width is not None else ""
        return f"[Image file: {name} ({img.mime_type}{dims}, {human_size(img.size)})]"
    if outcome.pdf is not None:
        pdf = outcome.pdf
        shown = [n for n, _ in pdf.pages]
        span = f"{shown[0]}-{shown[-1]}" if shown else "none"
        head = f"[PDF file: {name}, {pdf.page_count} page(s); showing pages {span}]"
        if not pdf.has_text and pdf.cut is not None:
            return f"{head}\n{_PDF_CUT[pdf.cut]}"
        if not pdf.has_text:
            return (
                f"{head}\nThe PDF has no extractable text on these pages (it may consist of scanned "
                "images)."
            )
        body = pdf.render()
        notes = []
        if outcome.cut and outcome.max_output_chars is not None:
            body = body[: outcome.max_output_chars]
            notes.append(
                f"[Output limit of {outcome.max_output_chars} characters reached; ask for fewer "
                "pages to see the rest.]"
            )
        if pdf.cut is not None and not (outcome.cut and pdf.cut == "output"):
            notes.append(_PDF_CUT[pdf.cut])
        if pdf.more_pages:
            notes.append(
                f"[The PDF has {pdf.page_count} pages; showing the first {len(shown)}. Use "
                f"pages='{len(shown) + 1}-{min(pdf.page_count, 2 * len(shown))}' to read more.]"
            )
        return with_notices(f"{head}\n{body}", notes)
    text = outcome.notebook or ""
    if outcome.cut and outcome.max_output_chars is not None:
        text = text[: outcome.max_output_chars] + (
            f"\n\n[Output limit of {outcome.max_output_chars} characters reached; the notebook is "
            f"{len(text)} characters long.]"
        )
    return text


__all__ = [
    "CUT_MARKER",
    "DEFAULT_LIMIT",
    "IMAGE_MAX_BYTES",
    "MAX_LINE_CHARS",
    "PDF_INLINE_MAX_BYTES",
    "TAIL_COUNT_BYTES",
    "Image",
    "OperationFailed",
    "ReadOutcome",
    "TextSlice",
    "entry_size",
    "format_claude",
    "format_default",
    "format_gemini",
    "format_numbered",
    "format_plain",
    "image_block_anthropic",
    "image_block_mcp",
    "inline_data_gemini",
    "locate_file",
    "notices",
    "numbered",
    "open_file",
    "pdf_inline",
    "read_any",
    "read_lines",
    "render_outcome",
    "with_notices",
]
