"""Text out of PDFs with pypdf, within budgets of characters, parsed content and time.
Apart from `read.media` so that only a PDF's read loads pypdf (`readers` imports this
module when it meets one)."""

from __future__ import annotations

import time
from typing import IO, Any

from filewright.read.media import (
    PDF_DEADLINE_S,
    PDF_MAX_CHARS,
    PDF_MAX_CONTENT_BYTES,
    PDF_MAX_PAGES,
    MediaError,
    PdfText,
    parse_pages,
)

try:
    from pypdf import PdfReader
    from pypdf.errors import PyPdfError
    from pypdf.generic import DecodedStreamObject, NameObject

    _MISSING: ImportError | None = None
except ImportError as exc:  # pragma: no cover - pypdf is a dependency
    _MISSING = exc


def extract_pdf(
    stream: IO[bytes],
    pages: str | None = None,
    *,
    max_pages: int = PDF_MAX_PAGES,
    max_chars: int = PDF_MAX_CHARS,
    max_content_bytes: int = PDF_MAX_CONTENT_BYTES,
    deadline_s: float = PDF_DEADLINE_S,
) -> PdfText:
    """Extract text page by page. Without `pages`, the first `max_pages` pages.

    Extraction stops (`cut` says why) once `max_chars` characters are out, once the
    pages' decoded content passes `max_content_bytes` (checked before a page is parsed:
    its parse is what costs time and memory), or after `deadline_s` seconds, so a small
    PDF whose one content stream is shared by thousands of pages costs no more than a
    page. Raises MediaError with code "encrypted" (password-protected) or "corrupt".
    """
    if _MISSING is not None:  # pragma: no cover - pypdf is a dependency
        raise MediaError("unsupported", f"reading PDFs needs pypdf ({_MISSING})")
    try:
        reader = PdfReader(stream)
        if reader.is_encrypted and not _decrypt_empty(reader):
            raise MediaError(
                "encrypted", "the PDF is encrypted (password-protected); its text cannot be read"
            )
        count = len(reader.pages)
        chosen = parse_pages(pages, count) if pages else list(range(1, min(count, max_pages) + 1))
        out = PdfText(count, more_pages=not pages and count > len(chosen))
        budget = _PdfBudget(max_chars, max_content_bytes, deadline_s)
        for n in chosen:
            page = reader.pages[n - 1]
            if not budget.admit(page):
                out.cut = budget.reason
                break
            text = budget.extract(page)
            if text or budget.reason is None:
                out.pages.append((n, text))
            if budget.reason is not None:
                out.cut = budget.reason
                break
        return out
    except MediaError:
        raise
    except (
        PyPdfError,
        ValueError,
        KeyError,
        TypeError,
        AttributeError,
        IndexError,
        OSError,
        RecursionError,
        MemoryError,
    ) as exc:
        raise MediaError(
            "corrupt", f"the PDF cannot be read (damaged or not a PDF): {exc}"
        ) from None


def _limit_content(page: Any, limit: int) -> int:
    """The decoded size of a page's content; content past `limit` bytes is dropped from
    this (in-memory) page first, cut after a whole operator, so only `limit` bytes are
    parsed. pypdf caps each stream's decoding."""
    contents = page.get_contents()
    if contents is None:
        return 0
    data = contents.get_data()
    if len(data) <= limit:
        return len(data)
    cut = data[:limit]
    end = max(cut.rfind(b"\n"), cut.rfind(b" "))
    short = DecodedStreamObject()
    short.set_data(cut[: max(end, 0)] + b"\nET\n")
    page[NameObject("/Contents")] = short
    return len(data)


class _Enough(Exception):
    """Raised from pypdf's text visitor: the output or time budget is spent."""


class _PdfBudget:
    """What one PDF read may still spend: characters out, content parsed, time."""

    def __init__(self, max_chars: int, max_content: int, deadline_s: float) -> None:

        self.chars_left = max_chars
        self.content_left = max_content
        self.deadline = time.monotonic() + deadline_s
        self.reason: str | None = None

    def admit(self, page: Any) -> bool:
        """Whether `page` may still be parsed (its content cut to what is left)."""

        if time.monotonic() > self.deadline:
            self.reason = "time"
            return False
        if self.content_left <= 0:
            self.reason = "content"
            return False
        size = _limit_content(page, self.content_left)
        if size > self.content_left:
            self.reason = "content"  # this page is parsed in part, then extraction stops
        self.content_left -= size
        return True

    def extract(self, page: Any) -> str:
        """The page's text, cut where the output or time budget runs out."""

        pieces: list[str] = []
        reason = self.reason

        def visit_text(text: Any, *_rest: Any) -> None:
            if text:
                pieces.append(text)

        def visit_operator(*_args: Any) -> None:
            if time.monotonic() > self.deadline:
                self.reason = "time"
                raise _Enough

        try:
            text = (
                page.extract_text(visitor_text=visit_text, visitor_operand_before=visit_operator)
                or ""
            )
        except _Enough:
            text = "".join(pieces)
        if len(text) > self.chars_left:
            self.reason = "output"
        elif reason is not None:
            self.reason = reason
        text = text[: max(self.chars_left, 0)]
        self.chars_left -= len(text)
        return text


def _decrypt_empty(reader: Any) -> bool:
    try:
        return bool(reader.decrypt(""))
    except Exception:  # missing crypto backend, unsupported algorithm …
        return False
