"""What a file is by its content, and readers for images, PDFs and Jupyter notebooks.

`sniff` looks at a file's first bytes (magic numbers; the name is only a hint) and says
whether it is an image, a PDF, a notebook, a known binary format, or possibly text.
Images become base64 with their MIME type and, where the header says so cheaply, their
size in pixels; converters shape them for MCP, Anthropic and Gemini. PDFs are extracted
page by page with pypdf (imported only when a PDF is read). Notebooks are rendered cell
by cell with their text outputs. Everything here is pure: bytes in, values out.
"""

from __future__ import annotations

import binascii
import json
import re
import struct
from collections.abc import Iterable
from typing import Any

from filewright.core.record import Frozen, Record

IMAGE_MAX_BYTES = 5 * 1024 * 1024
PDF_MAX_PAGES = 50  # pages extracted when no range is given
# A PDF's budgets, whatever it holds (one content stream can be shared by every page, and
# pypdf needs about 1.7 µs and 50 bytes of memory per byte of content it extracts from):
PDF_MAX_CHARS = 200_000  # text extracted per read (when the caller gives no smaller budget)
PDF_MAX_CONTENT_BYTES = 256 << 10  # decoded page content parsed per read (~25-50 text pages)
PDF_DEADLINE_S = 4.0  # extraction stops between content operators after this long
OUTPUT_MAX_CHARS = 10_000  # per notebook output
# A notebook is parsed whole: its containers ({ and [, counted in the raw bytes, an upper
# bound) cost ~100-200 bytes each once parsed, so their number is capped, not just bytes.
NOTEBOOK_MAX_CONTAINERS = 500_000

IMAGE_TYPES = ("image/png", "image/jpeg", "image/gif", "image/webp", "image/bmp")
_BMP_HEADER_SIZES = {12, 16, 40, 52, 56, 64, 108, 124}
_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")


class MediaError(Exception):
    """A file could not be read as what it is. `code` is a Failure code."""

    def __init__(self, code: str, message: str, **detail: Any) -> None:
        self.code = code
        self.message = message
        self.detail = detail
        super().__init__(message)


class Sniff(Frozen):
    """What a file's first bytes say it is.

    `kind`: "image", "pdf", "notebook", "binary", or "text" (not a known format; the
    text reader decides). `description` names a binary format for messages.
    """

    _fields = ("kind", "mime_type", "description")
    __slots__ = _fields
    kind: str
    mime_type: str
    description: str

    def __init__(self, kind: str, mime_type: str = "text/plain", description: str = "") -> None:
        self._set(kind, mime_type, description)


# (offset, magic, mime type, description) of binary formats that are not read as text.
_BINARY_MAGIC: tuple[tuple[int, bytes, str, str], ...] = (
    (0, b"PK\x03\x04", "application/zip", "ZIP archive"),
    (0, b"PK\x05\x06", "application/zip", "ZIP archive"),
    (0, b"\x7fELF", "application/x-executable", "ELF executable"),
    (0, b"\x1f\x8b", "application/gzip", "gzip archive"),
    (0, b"BZh", "application/x-bzip2", "bzip2 archive"),
    (0, b"\xfd7zXZ\x00", "application/x-xz", "xz archive"),
    (0, b"7z\xbc\xaf\x27\x1c", "application/x-7z-compressed", "7-Zip archive"),
    (0, b"\x28\xb5\x2f\xfd", "application/zstd", "zstd archive"),
    (0, b"Rar!\x1a\x07", "application/vnd.rar", "RAR archive"),
    (257, b"ustar", "application/x-tar", "tar archive"),
    (0, b"SQLite format 3\x00", "application/vnd.sqlite3", "SQLite database"),
    (0, b"\xca\xfe\xba\xbe", "application/java-vm", "Java class or Mach-O binary"),
    (0, b"\xcf\xfa\xed\xfe", "application/x-mach-binary", "Mach-O binary"),
    (0, b"\xce\xfa\xed\xfe", "application/x-mach-binary", "Mach-O binary"),
    (0, b"MZ", "application/vnd.microsoft.portable-executable", "Windows executable"),
    (0, b"\x00asm", "application/wasm", "WebAssembly module"),
    (0, b"\x00\x00\x01\x00", "image/x-icon", "icon image"),
    (0, b"II*\x00", "image/tiff", "TIFF image"),
    (0, b"MM\x00*", "image/tiff", "TIFF image"),
    (0, b"ID3", "audio/mpeg", "MP3 audio"),
    (0, b"OggS", "audio/ogg", "Ogg media"),
    (0, b"fLaC", "audio/flac", "FLAC audio"),
    (0, b"\x1a\x45\xdf\xa3", "video/webm", "Matroska/WebM video"),
    (0, b"wOFF", "font/woff", "WOFF font"),
    (0, b"wOF2", "font/woff2", "WOFF2 font"),
    (
        0,
        b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1",
        "application/x-ole-storage",
        "Microsoft Office document",
    ),
)


def image_type(head: bytes) -> str | None:
    """The MIME type of a PNG, JPEG, GIF, WEBP or BMP image by its magic bytes, else None."""
    if head.startswith(b"\x89PNG\r\n\x1a\n"):
        return "image/png"
    if head.startswith(b"\xff\xd8\xff"):
        return "image/jpeg"
    if head.startswith((b"GIF87a", b"GIF89a")):
        return "image/gif"
    if head[:4] == b"RIFF" and head[8:12] == b"WEBP":
        return "image/webp"
    if head[:2] == b"BM" and len(head) >= 18:
        reserved = head[6:10]
        (dib,) = struct.unpack_from("<I", head, 14)
        if reserved == b"\x00\x00\x00\x00" and dib in _BMP_HEADER_SIZES:
            return "image/bmp"
    return None


def _is_pdf(head: bytes) -> bool:
    """`%PDF-` at the start, or after up to 1 KB of junk that is not text (which readers
    tolerate); a text file that merely mentions `%PDF-` stays text."""
    at = head.find(b"%PDF-", 0, 1024)
    return at == 0 or (at > 0 and (b"\x00" in head[:at] or not head[:at].isascii()))


# The first bytes of every image and of every binary magic at offset 0: a file starting
# with none of them is neither (only the magic at offset 257, tar's, is left to look at).
_MAGIC_FIRST = frozenset(
    [b"\x89", b"\xff", b"G", b"R", b"B"]  # PNG, JPEG, GIF, WEBP (RIFF), BMP
    + [magic[:1] for offset, magic, _mime, _what in _BINARY_MAGIC if offset == 0]
)
_TEXT = Sniff("text")


def sniff(head: bytes, name: str = "") -> Sniff:
    """Classify a file by its first bytes (at least 512 of them when the file has them)."""
    maybe_magic = head[:1] in _MAGIC_FIRST
    mime = image_type(head) if maybe_magic else None
    if mime is not None:
        return Sniff("image", mime)
    if _is_pdf(head):
        return Sniff("pdf", "application/pdf")
    if name.lower().endswith(".ipynb"):
        return Sniff("notebook", "application/x-ipynb+json")
    if head[4:8] == b"ftyp":
        return Sniff("binary", "video/mp4", "MP4/QuickTime media")
    if not maybe_magic and head[257:262] != b"ustar":
        return _TEXT
    for offset, magic, mime_type, description in _BINARY_MAGIC:
        if head[offset : offset + len(magic)] == magic:
            if magic in (b"BZh", b"MZ", b"ID3") and b"\x00" not in head[:4096]:
                continue  # short magics that plain text can start with
            return Sniff("binary", mime_type, description)
    return _TEXT


# -- images ----------------------------------------------------------------------------


class Image(Frozen):
    """An image ready for a model: MIME type, base64 data, pixel size when known."""

    _fields = ("mime_type", "data", "size", "width", "height")
    __slots__ = _fields
    mime_type: str
    data: str
    size: int
    width: int | None
    height: int | None

    def __init__(
        self,
        mime_type: str,
        data: str,
        size: int,
        width: int | None = None,
        height: int | None = None,
    ) -> None:
        self._set(mime_type, data, size, width, height)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"mime_type": self.mime_type, "data": self.data}
        if self.width is not None and self.height is not None:
            out["width"], out["height"] = self.width, self.height
        return out


def image_dimensions(raw: bytes, mime: str) -> tuple[int, int] | None:
    """(width, height) from the image header, or None when it cannot be read cheaply."""
    try:
        if mime == "image/png" and raw[12:16] == b"IHDR":
            w, h = struct.unpack_from(">II", raw, 16)
            return w, h
        if mime == "image/gif":
            w, h = struct.unpack_from("<HH", raw, 6)
            return w, h
        if mime == "image/bmp":
            (dib,) = struct.unpack_from("<I", raw, 14)
            if dib == 12:
                w, h = struct.unpack_from("<HH", raw, 18)
                return w, h
            w, h = struct.unpack_from("<ii", raw, 18)
            return abs(w), abs(h)
        if mime == "image/webp":
            return _webp_dimensions(raw)
        if mime == "image/jpeg":
            return _jpeg_dimensions(raw)
    except struct.error:
        return None
    return None


def _webp_dimensions(raw: bytes) -> tuple[int, int] | None:
    chunk = raw[12:16]
    if chunk == b"VP8 " and raw[23:26] == b"\x9d\x01\x2a":
        w, h = struct.unpack_from("<HH", raw, 26)
        return w & 0x3FFF, h & 0x3FFF
    if chunk == b"VP8L" and raw[20:21] == b"\x2f":
        (bits,) = struct.unpack_from("<I", raw, 21)
        return (bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1
    if chunk == b"VP8X":
        w = int.from_bytes(raw[24:27], "little") + 1
        h = int.from_bytes(raw[27:30], "little") + 1
        return w, h
    return None


def _jpeg_dimensions(raw: bytes) -> tuple[int, int] | None:
    i = 2
    while i + 4 <= len(raw):
        if raw[i] != 0xFF:
            return None
        marker = raw[i + 1]
        if marker == 0xFF:
            i += 1
            continue
        if marker in (0xD8, 0x01) or 0xD0 <= marker <= 0xD7:
            i += 2
            continue
        (length,) = struct.unpack_from(">H", raw, i + 2)
        if 0xC0 <= marker <= 0xCF and marker not in (0xC4, 0xC8, 0xCC):
            h, w = struct.unpack_from(">HH", raw, i + 5)
            return w, h
        i += 2 + length
    return None


def image_from_bytes(raw: bytes, mime: str | None = None) -> Image:
    """An Image from a file's bytes; raises MediaError("binary") if it is no known image."""
    mime = mime or image_type(raw)
    if mime is None:
        raise MediaError("binary", "not a PNG, JPEG, GIF, WEBP or BMP image")
    dims = image_dimensions(raw, mime)
    w, h = dims if dims else (None, None)
    return Image(mime, binascii.b2a_base64(raw, newline=False).decode("ascii"), len(raw), w, h)


def image_block_mcp(img: Image) -> dict[str, Any]:
    """An MCP `ImageContent` block."""
    return {"type": "image", "data": img.data, "mimeType": img.mime_type}


def image_block_anthropic(img: Image) -> dict[str, Any]:
    """An Anthropic Messages API image content block."""
    return {
        "type": "image",
        "source": {"type": "base64", "media_type": img.mime_type, "data": img.data},
    }


def inline_data_gemini(img: Image) -> dict[str, Any]:
    """A Gemini `Part` with `inlineData`."""
    return {"inlineData": {"mimeType": img.mime_type, "data": img.data}}


# -- PDF -------------------------------------------------------------------------------


class PdfText(Record):
    """Text of the chosen pages of a PDF. `pages` holds (1-based number, text) pairs."""

    _fields = ("page_count", "pages", "more_pages", "cut")
    __slots__ = _fields
    page_count: int
    pages: list[tuple[int, str]]
    more_pages: bool  # pages exist beyond the chosen ones (no range given)
    cut: str | None  # why extraction stopped early: "output", "content" or "time"

    def __init__(
        self,
        page_count: int,
        pages: list[tuple[int, str]] | None = None,
        more_pages: bool = False,
        cut: str | None = None,
    ) -> None:
        self.page_count = page_count
        self.pages = [] if pages is None else pages
        self.more_pages = more_pages
        self.cut = cut

    @property
    def has_text(self) -> bool:
        return any(text.strip() for _, text in self.pages)

    def render(self) -> str:
        """Pages with `--- Page N ---` markers."""
        return "\n\n".join(f"--- Page {n} ---\n{text.rstrip()}" for n, text in self.pages)


def parse_pages(spec: str, page_count: int) -> list[int]:
    """Pages named by `spec` ("3", "1-5", "2,4-6", "7-" for 7 to the end), 1-based.

    Raises MediaError("invalid") for bad syntax and ("page_out_of_range") for pages the
    document does not have.
    """
    chosen: list[int] = []
    for part in spec.replace(" ", "").split(","):
        match = re.fullmatch(r"(\d+)(?:-(\d*))?", part)
        if match is None:
            raise MediaError(
                "invalid", f"invalid page range {spec!r}; use e.g. '3', '1-5' or '2,4-6'"
            )
        first = int(match.group(1))
        last = first if match.group(2) is None else int(match.group(2) or page_count)
        if first < 1 or last < first:
            raise MediaError("invalid", f"invalid page range {part!r} in {spec!r}")
        if last > page_count:
            raise MediaError(
                "page_out_of_range",
                f"page {last} is out of range: the PDF has {page_count} page(s)",
                page=last,
                pages=page_count,
            )
        chosen.extend(p for p in range(first, last + 1) if p not in chosen)
    return chosen


# -- Jupyter notebooks -----------------------------------------------------------------


def _text(value: Any) -> str:
    if isinstance(value, list):
        return "".join(str(v) for v in value)
    return "" if value is None else str(value)


def _clip(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    return text[:limit] + f"\n... [output truncated: {len(text) - limit} more characters]"


def _outputs(outputs: Iterable[Any], limit: int) -> list[str]:
    shown: list[str] = []
    for out in outputs:
        if not isinstance(out, dict):
            continue
        kind = out.get("output_type")
        if kind == "stream":
            shown.append(_clip(_text(out.get("text")).rstrip("\n"), limit))
        elif kind == "error":
            shown.append(f"{out.get('ename', 'Error')}: {out.get('evalue', '')}")
        elif kind in ("execute_result", "display_data"):
            data: dict[str, Any] = out["data"] if isinstance(out.get("data"), dict) else {}
            for mime in data:
                if mime != "text/plain":
                    shown.append(f"[{mime} output omitted]")
            if "text/plain" in data:
                shown.append(_clip(_text(data["text/plain"]).rstrip("\n"), limit))
    return shown


def render_notebook(raw: bytes, *, output_chars: int = OUTPUT_MAX_CHARS) -> tuple[str, int]:
    """Render a notebook: header, then each cell's number, type, source and outputs.

    Returns (text, number of cells). Raises MediaError("invalid_notebook").
    """
    containers = raw.count(b"{") + raw.count(b"[")
    if containers > NOTEBOOK_MAX_CONTAINERS:
        raise MediaError(
            "invalid_notebook",
            f"the notebook is too complex to render ({containers} JSON objects and arrays, "
            f"limit {NOTEBOOK_MAX_CONTAINERS})",
        )
    try:
        nb = json.loads(raw.decode("utf-8-sig"))
    except UnicodeDecodeError as exc:
        raise MediaError(
            "invalid_notebook", f"the notebook is not valid UTF-8: {exc.reason}"
        ) from None
    except json.JSONDecodeError as exc:
        raise MediaError(
            "invalid_notebook",
            f"the notebook is not valid JSON: {exc.msg} at line {exc.lineno} column {exc.colno}",
        ) from None
    if not isinstance(nb, dict) or not isinstance(nb.get("cells"), list):
        raise MediaError("invalid_notebook", "the notebook has no 'cells' list")
    meta: dict[str, Any] = nb["metadata"] if isinstance(nb.get("metadata"), dict) else {}
    kernel: dict[str, Any] = meta["kernelspec"] if isinstance(meta.get("kernelspec"), dict) else {}
    language = (
        (meta.get("language_info") or {}).get("name")
        if isinstance(meta.get("language_info"), dict)
        else None
    )
    parts = [f"Jupyter Notebook ({kernel.get('display_name') or language or 'Unknown kernel'})\n"]
    for index, cell in enumerate(nb["cells"], 1):
        if not isinstance(cell, dict):
            continue
        kind = cell.get("cell_type", "unknown")
        head = f"[Cell {index}] Type: {kind}"
        if kind == "code" and cell.get("execution_count") is not None:
            head += f" (execution count {cell['execution_count']})"
        block = [head, "\u2500" * 60, _text(cell.get("source")).rstrip("\n")]
        shown = _outputs(cell.get("outputs") or [], output_chars)
        if shown:
            block.append("\nOutput:")
            block.append(_ANSI.sub("", "\n".join(shown)))
        parts.append("\n".join(block) + "\n")
    return "\n".join(parts), len(nb["cells"])
