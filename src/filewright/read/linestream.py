"""Streaming access to the lines of a text file of any size, with flat memory.

A line ends at "\\n", "\\r\\n" or a lone "\\r" (the same rule as `textfile`), and the
last line needs no ending, so "a\\nb" and "a\\nb\\n" both have two lines and "" has none.

The file is read in fixed-size blocks into one reused buffer. Counting lines is
`bytes.count` per block (C speed); locating the N-th line bisects a block with counts
instead of looping per line; only the wanted lines are ever copied and decoded, and each
is kept only up to a cap, so a one-line gigabyte file costs no more memory than any other.
The last lines of a file are found by reading blocks backwards from its end. A file
already held in memory is walked by `memorylines.MemoryLines`, which gives the same lines
but splits them off many at a time.

Encodings whose line breaks are the ASCII bytes (UTF-8, GBK, Shift-JIS, cp1252 …) are
scanned as bytes. UTF-16 and UTF-32 go through an incremental decoder and are scanned as
text, which is slower but just as flat.
"""

from __future__ import annotations

import codecs
import contextlib
import functools
import hashlib
import os
import re
from collections.abc import Iterator
from typing import Any

from filewright.core.record import Frozen
from filewright.fs.textfile import TextFileError, detect, detect_bom, looks_binary

BLOCK_BYTES = 4 << 20  # forward scanning block
TAIL_FIRST_BLOCK = 64 << 10  # backward scanning starts small and doubles up to BLOCK_BYTES
SAMPLE_BYTES = 64 << 10  # what encoding detection looks at in a large file
SMALL_FILE_BYTES = 1 << 20  # files up to this size are read whole and detected exactly
MAX_CHAR_BYTES = 4  # the widest character of any byte-scanned encoding
_BINARY_DENSITY = 0.1  # share of invalid UTF-8 that makes an undetectable sample binary
_EOL_BYTES = re.compile(rb"\r\n|\r|\n")
_EOL_TEXT = re.compile(r"\r\n|\r|\n")
_BREAKS_BYTES = (b"\n", b"\r", b"\r\n")
_BREAKS_TEXT = ("\n", "\r", "\r\n")

Buf = Any  # bytes, bytearray or str: anything with count/find/rfind and slicing


class Encoding(Frozen):
    """How a file's bytes become text: codec, BOM, and whether decoding loses bytes."""

    _fields = ("codec", "bom", "lossy", "confidence")
    __slots__ = _fields
    codec: str
    bom: bytes
    lossy: bool
    confidence: float  # how sure detection is (see `textfile.detect`)

    def __init__(
        self, codec: str, bom: bytes = b"", lossy: bool = False, confidence: float = 1.0
    ) -> None:
        self._set(codec, bom, lossy, confidence)

    @property
    def bytewise(self) -> bool:
        """True when line breaks are the ASCII bytes, so the file can be scanned as bytes."""
        return _bytewise(self.codec)

    @property
    def label(self) -> str:
        """The encoding as reported to people (as `TextFile.encoding_label`)."""
        if self.bom and self.codec == "utf-8":
            return "utf-8-sig"
        if self.bom:
            return f"{self.codec} (BOM)"
        return self.codec


@functools.lru_cache(maxsize=64)
def _bytewise(codec: str) -> bool:
    if codec.startswith(("utf-16", "utf-32")):
        return False
    try:
        return "\r\n".encode(codec) == b"\r\n" and "a".encode(codec) == b"a"
    except (LookupError, UnicodeError):
        return False


_UTF8 = Encoding("utf-8")


def _invalid_utf8_share(sample: bytes) -> float:
    if not sample:
        return 0.0
    return sample.decode("utf-8", errors="replace").count("\ufffd") / len(sample)


def sniff_encoding(sample: bytes, *, complete: bool, prefer_chinese: bool = False) -> Encoding:
    """Detect the encoding of a file from its first bytes.

    `complete` says that `sample` is the whole file, so detection is exact; otherwise the
    sample may end inside a character or a line. Raises TextFileError("binary") for
    content that is not text. Bytes that no encoding explains give lossy UTF-8.
    """
    if sample.isascii():  # no BOM (each has a byte above 0x7f) and valid UTF-8
        if looks_binary(sample):
            raise TextFileError("binary", "file appears to be binary")
        return _UTF8
    found = detect_bom(sample)
    if found is not None:
        bom, name = found
        return Encoding(name, bom)
    if looks_binary(sample):
        raise TextFileError("binary", "file appears to be binary")
    decoder = codecs.getincrementaldecoder("utf-8")()
    try:
        decoder.decode(sample, final=complete)
        return _UTF8
    except UnicodeDecodeError:
        pass
    body = sample
    if not complete and b"\n" in sample:
        body = sample[: sample.rfind(b"\n") + 1]
    try:
        name, _bom, confidence = detect(body, prefer_chinese=prefer_chinese)
        return Encoding(name, confidence=confidence)
    except TextFileError:
        pass
    if _invalid_utf8_share(sample) > _BINARY_DENSITY:
        raise TextFileError("binary", "file appears to be binary (mostly invalid text)")
    return Encoding("utf-8", lossy=True, confidence=0.0)


def decode_bytes(data: bytes, enc: Encoding) -> tuple[str, bool]:
    """Decode `data` (no BOM) strictly, else with U+FFFD replacements; (text, lossy)."""
    try:
        return data.decode(enc.codec), False
    except UnicodeDecodeError:
        return data.decode(enc.codec, errors="replace"), True


def hash_fd(fd: int, size: int) -> str:
    """sha256 of the first `size` bytes of `fd`, read in 1 MB blocks."""
    hasher = hashlib.sha256()
    buf = bytearray(1 << 20)
    view = memoryview(buf)
    offset = 0
    while offset < size:
        n = _pread_into(fd, view[: min(len(buf), size - offset)], offset)
        if n <= 0:
            break
        hasher.update(view[:n])
        offset += n
    return hasher.hexdigest()


def _pread_into(fd: int, view: memoryview, offset: int) -> int:
    if hasattr(os, "preadv"):
        return os.preadv(fd, [view], offset)
    os.lseek(fd, offset, os.SEEK_SET)  # pragma: no cover - platforms without preadv
    return os.readv(fd, [view])  # pragma: no cover


class ByteBlocks:
    """Blocks of a file from `start` on, read into one reused buffer.

    Yields (buffer, length); consume a block before asking for the next. `stop` ends the
    stream at that offset instead of EOF. With `hold_cr` a block never ends with b"\\r"
    unless it is the last one (the byte is carried to the next block), so a "\\r\\n"
    pair is never split. With `hasher`, every byte read is also hashed; `eof` says
    whether the stream was read to its end.
    """

    def __init__(
        self,
        fd: int,
        start: int,
        *,
        stop: int | None = None,
        block: int | None = None,
        hold_cr: bool = True,
        hasher: Any = None,
    ) -> None:
        self.fd = fd
        self.offset = start
        self.stop = stop
        self.block = block or BLOCK_BYTES
        self.hold_cr = hold_cr
        self.hasher = hasher
        self.eof = False
        if hasattr(os, "posix_fadvise"):
            with contextlib.suppress(OSError):  # advisory only
                os.posix_fadvise(fd, start, 0, os.POSIX_FADV_SEQUENTIAL)

    def __iter__(self) -> Iterator[tuple[bytearray, int]]:
        buf = bytearray(self.block + 1)
        view = memoryview(buf)
        carry = 0
        while True:
            want = self.block  # the buffer has room for a carried byte besides
            if self.stop is not None:
                want = min(want, max(self.stop - self.offset, 0))
            n = _pread_into(self.fd, view[carry : carry + want], self.offset) if want else 0
            if n > 0 and self.hasher is not None:
                self.hasher.update(view[carry : carry + n])
            self.offset += max(n, 0)
            length = carry + max(n, 0)
            if n <= 0:
                self.eof = True
                if carry:
                    yield buf, carry
                return
            carry = 0
            if self.hold_cr and buf[length - 1] == 13:
                length -= 1
                carry = 1
            if length:
                yield buf, length
            if carry:
                buf[0] = 13


def text_blocks(blocks: ByteBlocks, codec: str, lossy: list[bool]) -> Iterator[tuple[str, int]]:
    """Decode byte blocks incrementally; a text block never ends with "\\r" unless last.

    Sets lossy[0] when a replacement character appears (bytes that did not decode).
    """
    decoder = codecs.getincrementaldecoder(codec)(errors="replace")
    pending = ""
    for buf, n in blocks:
        text = pending + decoder.decode(bytes(buf[:n]))
        pending = ""
        if text.endswith("\r"):
            text, pending = text[:-1], "\r"
        if "\ufffd" in text:
            lossy[0] = True
        if text:
            yield text, len(text)
    text = pending + decoder.decode(b"", final=True)
    if "\ufffd" in text:
        lossy[0] = True
    if text:
        yield text, len(text)


def _nth(buf: Buf, ch: Buf, n: int, lo: int, hi: int) -> int:
    """Index of the n-th (1-based) occurrence of the one-unit `ch` in buf[lo:hi]."""
    while n > 32 and hi - lo > 64:
        mid = (lo + hi) // 2
        c = buf.count(ch, lo, mid)
        if c >= n:
            hi = mid
        else:
            n -= c
            lo = mid
    i = lo - 1
    for _ in range(n):
        i = buf.find(ch, i + 1, hi)
    return i


def _nth_from_right(buf: Buf, ch: Buf, n: int, lo: int, hi: int) -> int:
    """Index of the n-th (1-based) occurrence of `ch` counting from the right of buf[lo:hi]."""
    while n > 32 and hi - lo > 64:
        mid = (lo + hi) // 2
        c = buf.count(ch, mid, hi)
        if c >= n:
            lo = mid
        else:
            n -= c
            hi = mid
    i = hi
    for _ in range(n):
        i = buf.rfind(ch, lo, i)
    return i


class LineWalker:
    """Walks the line breaks of a stream of blocks (bytes or text).

    `breaks` counts the breaks passed; `at_line_start` says whether the position
    directly follows a break (or is the start), so a final unterminated line is counted.
    """

    def __init__(self, blocks: Iterator[tuple[Buf, int]], *, text: bool) -> None:
        self._blocks = iter(blocks)
        breaks: tuple[Any, Any, Any] = _BREAKS_TEXT if text else _BREAKS_BYTES
        self.nl, self.cr, self.crlf = breaks
        self._eol: Any = _EOL_TEXT if text else _EOL_BYTES
        self.buf: Buf = "" if text else b""
        self.pos = 0
        self.end = 0
        self.breaks = 0
        self.at_line_start = True
        self.eof = False

    def _fill(self) -> bool:
        while self.pos >= self.end:
            if self.eof:
                return False
            try:
                self.buf, self.end = next(self._blocks)
            except StopIteration:
                self.eof = True
                return False
            self.pos = 0
        return True

    def _lone_cr(self, lo: int, hi: int) -> bool:
        buf = self.buf
        return buf.find(self.cr, lo, hi) != -1 and buf.count(self.cr, lo, hi) != buf.count(
            self.crlf, lo, hi
        )

    def _count(self, lo: int, hi: int) -> int:
        buf = self.buf
        c = buf.count(self.nl, lo, hi)
        if buf.find(self.cr, lo, hi) != -1:
            c += buf.count(self.cr, lo, hi) - buf.count(self.crlf, lo, hi)
        return c

    def _after_nth_break(self, n: int, lo: int, hi: int) -> int:
        if not self._lone_cr(lo, hi):
            return _nth(self.buf, self.nl, n, lo, hi) + 1
        for i, match in enumerate(self._eol.finditer(self.buf, lo, hi), 1):
            if i == n:
                return match.end()
        raise AssertionError("break not found")  # pragma: no cover - counted before

    def skip(self, n: float) -> int:
        """Pass up to `n` line breaks (float("inf") for all); returns how many were passed."""
        passed = 0
        while passed < n and self._fill():
            need = n - passed
            c = self._count(self.pos, self.end)
            if c < need:
                passed += c
                self.at_line_start = self.buf[self.end - 1 : self.end] in (self.nl, self.cr)
                self.pos = self.end
                continue
            self.pos = self._after_nth_break(int(need), self.pos, self.end)
            passed += int(need)
            self.at_line_start = True
        self.breaks += passed
        return passed

    def lines_left(self) -> int:
        """Count the lines from here to the end (consumes the stream)."""
        before = self.breaks
        self.skip(float("inf"))
        return self.breaks - before + (0 if self.at_line_start else 1)

    def has_more(self) -> bool:
        """True when any content (so at least one more line) follows the position."""
        return self._fill()

    def next_line(self, keep: int) -> tuple[Buf, bool, str] | None:
        """The next line: (its first `keep` units, whether it was longer, its ending).

        Returns None at the end of the stream. The ending is "", "\\n", "\\r\\n" or "\\r".
        """
        parts: list[Buf] = []
        kept = 0
        cut = False
        while self._fill():
            buf, pos, end = self.buf, self.pos, self.end
            i = buf.find(self.nl, pos, end)
            j = buf.find(self.cr, pos, end if i == -1 else i)
            stop = j if j != -1 else i
            seg_end = end if stop == -1 else stop
            if kept < keep:
                take = min(seg_end, pos + keep - kept)
                parts.append(buf[pos:take] if isinstance(buf, str) else bytes(buf[pos:take]))
                kept += take - pos
                cut = cut or take < seg_end
            elif seg_end > pos:
                cut = True
            if stop == -1:
                self.pos = end
                self.at_line_start = False
                continue
            if stop == j and buf[j + 1 : j + 2] == self.nl:
                eol, self.pos = "\r\n", j + 2
            else:
                eol, self.pos = ("\r" if stop == j else "\n"), stop + 1
            self.breaks += 1
            self.at_line_start = True
            return self._join(parts), cut, eol
        if parts and not self.at_line_start:
            self.at_line_start = True
            return self._join(parts), cut, ""
        return None

    def _join(self, parts: list[Buf]) -> Buf:
        empty = "" if self.nl == "\n" else b""
        return empty.join(parts)


def _break_ends(buf: bytes, lo: int, hi: int) -> list[int]:
    return [m.end() for m in _EOL_BYTES.finditer(buf, lo, hi)]


def tail_start(fd: int, size: int, base: int, n: int) -> tuple[int, int | None]:
    """Where the last `n` lines of a byte-scanned file start, found reading backwards.

    `base` is where the text starts (after a BOM). Returns (offset, lines_before): the
    number of lines before `offset` when the scan reached the start (0), else None.
    """
    if size <= base:
        return base, 0
    last = os.pread(fd, min(2, size - base), size - min(2, size - base))
    hi = size
    if last.endswith(b"\r\n"):
        hi -= 2
    elif last.endswith((b"\n", b"\r")):
        hi -= 1
    need = n
    block = TAIL_FIRST_BLOCK
    while hi > base:
        lo = max(base, hi - block)
        data = os.pread(fd, hi - lo, lo)
        if lo > base and data[:1] == b"\n" and os.pread(fd, 1, lo - 1) == b"\r":
            lo -= 1
            data = b"\r" + data
        nl = data.count(b"\n")
        lone_cr = data.count(b"\r") - data.count(b"\r\n") if b"\r" in data else 0
        found = nl + lone_cr
        if found >= need:
            if lone_cr:
                return lo + _break_ends(data, 0, len(data))[-need], None
            return lo + _nth_from_right(data, b"\n", need, 0, len(data)) + 1, None
        need -= found
        hi = lo
        block = min(block * 2, BLOCK_BYTES)
    return base, 0
