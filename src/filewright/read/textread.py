"""Lines of an open text file as a `TextSlice`: a range, or the last lines.

`read_lines_fd` works on a file descriptor and knows nothing of workspaces; the
workspace-aware `readers.read_lines` wraps it. Text files of any size are streamed (see
`linestream`): a range is found by scanning line breaks in blocks, the last lines by
reading backwards from the end, and memory stays flat. Small files are read whole, and
those scanned as bytes have their lines taken many at a time (`memorylines.MemoryLines`)
rather than one by one; the results are the same (`SPLIT_LINES`). Each line is cut at
`max_line_chars` (marked with `CUT_MARKER`), and an optional output budget in characters
stops a read early; the slice says why it stopped and where to continue.

`total_lines` is always exact for range reads (the rest of the file is counted at
`bytes.count` speed). For the last lines of a file larger than `TAIL_COUNT_BYTES` it is
not counted unless asked for: the slice then says `from_end` and numbers its lines from
the end (-1 is the last line).
"""

from __future__ import annotations

import hashlib
import os
from typing import Any

from filewright.core.record import Record
from filewright.core.result import fail
from filewright.fs.textfile import TextFileError
from filewright.read import linestream, memorylines
from filewright.read.linesplit import (
    CUT_MARKER,
    bytes_range,
    cut_text,
    decode_line,
    decode_lines,
    keep_units,
    past_the_end,
    utf8_range,
)
from filewright.read.linestream import (
    ByteBlocks,
    LineWalker,
    decode_bytes,
    hash_fd,
    sniff_encoding,
    tail_start,
    text_blocks,
)
from filewright.read.memorylines import MemoryLines

DEFAULT_LIMIT = 2000
MAX_LINE_CHARS = 2000
TAIL_COUNT_BYTES = 64 * 1024 * 1024  # tails of larger files are numbered from the end
SPLIT_LINES = True  # byte-scanned files read whole are split in bulk (False: walked as streams)


class TextSlice(Record):
    """Some lines of a text file and what is known about the whole file.

    `start`/`end` are the 1-based numbers of the first and last line shown (`end` is
    `start - 1` when no line is shown); for an uncounted tail (`from_end`) they count
    from the end: -3..-1. `total_lines` is None only when it was not counted.
    `truncated` says lines exist that were not shown, `truncated_by` why ("limit",
    "budget"); `cut_lines` lists lines cut at `max_line_chars`. `hash` is the sha256 of
    the whole file (None above the hashing limit); `lossy` says some bytes did not
    decode and are shown as U+FFFD.
    """

    _fields = (
        "lines",
        "start",
        "end",
        "total_lines",
        "truncated",
        "truncated_by",
        "cut_lines",
        "encoding",
        "encoding_confidence",
        "hash",
        "size",
        "lossy",
        "from_end",
        "tail",
        "max_line_chars",
        "max_output_chars",
    )
    __slots__ = _fields
    lines: list[str]
    start: int
    end: int
    total_lines: int | None
    truncated: bool
    truncated_by: str | None
    cut_lines: list[int]
    encoding: str
    encoding_confidence: float
    hash: str | None
    size: int
    lossy: bool
    from_end: bool
    tail: bool
    max_line_chars: int
    max_output_chars: int | None

    def __init__(
        self,
        lines: list[str],
        start: int,
        end: int,
        total_lines: int | None,
        truncated: bool = False,
        truncated_by: str | None = None,
        cut_lines: list[int] | None = None,
        encoding: str = "utf-8",
        encoding_confidence: float = 1.0,
        hash: str | None = None,
        size: int = 0,
        lossy: bool = False,
        from_end: bool = False,
        tail: bool = False,
        max_line_chars: int = MAX_LINE_CHARS,
        max_output_chars: int | None = None,
    ) -> None:
        self.lines = lines
        self.start = start
        self.end = end
        self.total_lines = total_lines
        self.truncated = truncated
        self.truncated_by = truncated_by
        self.cut_lines = [] if cut_lines is None else cut_lines
        self.encoding = encoding
        self.encoding_confidence = encoding_confidence
        self.hash = hash
        self.size = size
        self.lossy = lossy
        self.from_end = from_end
        self.tail = tail
        self.max_line_chars = max_line_chars
        self.max_output_chars = max_output_chars

    @property
    def next_offset(self) -> int | None:
        """The 1-based line to continue from, when lines follow the ones shown."""
        if self.tail or not self.truncated:
            return None
        return self.end + 1

    def data(self) -> dict[str, Any]:
        """The structured part of a read result."""
        return {
            "total_lines": self.total_lines,
            "start_line": self.start,
            "end_line": self.end,
            "lines_read": len(self.lines),
            "truncated": self.truncated,
            "truncated_by": self.truncated_by,
            "next_offset": self.next_offset,
            "cut_lines": list(self.cut_lines),
            "encoding": self.encoding,
            "encoding_confidence": self.encoding_confidence,
            "lossy": self.lossy,
            "from_end": self.from_end,
            "size": self.size,
            "hash": self.hash,
        }


# -- reading lines from an open file --------------------------------------------------


def read_all(fd: int, size: int) -> bytes:
    """The whole file (`size` is what fstat said; it is read to its end regardless)."""
    data = read_upto(fd, size, None)
    assert data is not None  # (no stop)
    return data


def read_upto(fd: int, size: int, stop: int | None) -> bytes | None:
    """`read_all`, or None once the file has shown more than `stop` bytes (only as much
    as that is read then): for a file expected small that may have grown since."""
    chunks: list[bytes] = []
    offset = 0
    while True:
        chunk = os.pread(fd, max(size - offset, 0) + 1, offset)
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)
        offset += len(chunk)
        if stop is not None and offset > stop:
            return None


class _Source:
    """An open text file: its encoding and a way to walk its lines from any start."""

    def __init__(
        self,
        fd: int,
        size: int,
        hash_limit: int | None,
        prefer_chinese: bool = False,
        data: bytes | None = None,
    ) -> None:
        self.fd = fd
        self.size = size
        self.hash_limit = hash_limit
        self.data: bytes | None = None
        self.hasher: Any = None
        self.blocks: ByteBlocks | None = None
        self._lossy = [False]
        if data is not None or size <= linestream.SMALL_FILE_BYTES:
            self.data = read_all(fd, size) if data is None else data
            self.size = len(self.data)
            self.enc = sniff_encoding(self.data, complete=True, prefer_chinese=prefer_chinese)
        else:
            sample = os.pread(fd, linestream.SAMPLE_BYTES, 0)
            self.enc = sniff_encoding(sample, complete=False, prefer_chinese=prefer_chinese)
        self.base = len(self.enc.bom)
        self.bytewise = self.enc.bytewise

    @property
    def lossy(self) -> bool:
        return self.enc.lossy or self._lossy[0]

    def walker(self, offset: int | None = None, *, hashed: bool = False) -> LineWalker:
        """A walker from byte `offset` (default: the start of the text)."""
        start = self.base if offset is None else offset
        if self.data is not None:
            if self.bytewise and SPLIT_LINES:
                return MemoryLines(self.data, start)
            body = self.data[start:]
            if self.bytewise:
                return LineWalker(iter([(body, len(body))] if body else []), text=False)
            text, lossy = decode_bytes(body, self.enc)
            self._lossy[0] |= lossy
            return LineWalker(iter([(text, len(text))] if text else []), text=True)
        if (
            hashed
            and start == self.base
            and self.hash_limit is not None
            and self.size <= self.hash_limit
        ):
            self.hasher = hashlib.sha256(self.enc.bom)
        self.blocks = ByteBlocks(self.fd, start, hold_cr=self.bytewise, hasher=self.hasher)
        if self.bytewise:
            return LineWalker(iter(self.blocks), text=False)
        return LineWalker(text_blocks(self.blocks, self.enc.codec, self._lossy), text=True)

    def digest(self) -> str | None:
        """sha256 of the whole file, reusing a hash made while scanning when there is one."""
        if self.data is not None:
            return hashlib.sha256(self.data).hexdigest()
        if self.hash_limit is None or self.size > self.hash_limit:
            return None
        if self.hasher is not None and self.blocks is not None and self.blocks.eof:
            return str(self.hasher.hexdigest())
        return hash_fd(self.fd, self.size)

    def decode(self, raw: Any, complete: bool) -> str:
        text, lossy = decode_line(raw, self.enc, complete)
        self._lossy[0] |= lossy
        return text


def read_lines_fd(
    fd: int,
    size: int,
    start: int = 1,
    limit: int | None = DEFAULT_LIMIT,
    *,
    tail: int | None = None,
    max_line_chars: int = MAX_LINE_CHARS,
    max_output_chars: int | None = None,
    count_total: bool | None = None,
    hash_limit: int | None = None,
    whole_limit: int | None = None,
    path: str = "",
    prefer_chinese: bool = False,
    data: bytes | None = None,
) -> TextSlice:
    """Read lines [start, start+limit) — or the last `tail` lines — of an open text file.

    `count_total`: None counts the file's lines except for tails of files above
    `TAIL_COUNT_BYTES`. `hash_limit`: hash files up to this size (None: never, except
    small files). `whole_limit`: refuse reading with no line limit above this size.
    `prefer_chinese`: weigh Chinese encodings further when detecting (a Chinese locale).
    `data`: the whole file, when the caller has already read it (`read_all`).
    Raises OperationFailed: invalid, too_large, binary, line_out_of_range.
    """
    if start < 1:
        raise fail("invalid", path, message=f"offset must be 1 or more, not {start}")
    if limit is not None and limit < 1:
        raise fail("invalid", path, message=f"limit must be 1 or more, not {limit}")
    if tail is not None and tail < 1:
        raise fail("invalid", path, message=f"tail must be 1 or more, not {tail}")
    if max_line_chars < 1 or (max_output_chars is not None and max_output_chars < 1):
        raise fail("invalid", path, message="line and output limits must be 1 or more")
    if limit is None and tail is None and whole_limit is not None and size > whole_limit:
        raise fail(
            "too_large",
            path,
            size=size,
            limit=whole_limit,
            message=f"{size} bytes ({human_size(size)}) is over the {human_size(whole_limit)} limit "
            "for reading a whole file; read a part of it with offset and limit",
        )
    try:
        src = _Source(fd, size, hash_limit, prefer_chinese, data)
    except TextFileError as exc:
        raise fail(exc.code, path, message=exc.detail) from None
    if tail is not None:
        out = _read_tail(src, tail, max_line_chars, max_output_chars, count_total, path)
    else:
        out = _read_range(src, start, limit, max_line_chars, max_output_chars, count_total, path)
    out.encoding, out.size, out.lossy = src.enc.label, src.size, src.lossy
    out.encoding_confidence = src.enc.confidence
    out.max_line_chars, out.max_output_chars = max_line_chars, max_output_chars
    out.hash = src.digest()
    return out


def _read_range(
    src: _Source,
    start: int,
    limit: int | None,
    max_line_chars: int,
    budget: int | None,
    count_total: bool | None,
    path: str,
) -> TextSlice:
    if (
        src.data is not None
        and src.bytewise
        and SPLIT_LINES
        and len(src.data) - src.base <= memorylines.SPLIT_WINDOW
    ):
        whole = _split_range(src, start, limit, max_line_chars, budget, count_total, path)
        if whole is not None:
            return whole
    walker = src.walker(hashed=True)
    skipped = walker.skip(start - 1)
    if skipped < start - 1 or (start > 1 and not walker.has_more()):
        raise past_the_end(path, start, skipped + (0 if walker.at_line_start else 1))
    lines, cut, consumed, by_budget = _lines(src, walker, start, limit, max_line_chars, budget)
    more = len(lines) < consumed or walker.has_more()  # consumed: lines taken from the walker
    counted = None if count_total is False and more else start - 1 + consumed + walker.lines_left()
    return TextSlice(
        lines=lines,
        start=start,
        end=start + len(lines) - 1,
        total_lines=counted,
        truncated=more,
        truncated_by=("budget" if by_budget else "limit") if more else None,
        cut_lines=cut,
    )


def _split_range(
    src: _Source,
    start: int,
    limit: int | None,
    max_line_chars: int,
    budget: int | None,
    count_total: bool | None,
    path: str,
) -> TextSlice | None:
    """`_read_range` of a small byte-scanned text held in memory, its lines split off in
    one step (`memorylines.all_lines`) and decoded and cut as `_take_range` does; None when
    the output budget does not hold every line asked for (the stepwise path then decides
    which fit). The same slice as the walker's path (tests/test_textread.py compares them).
    A UTF-8 text with LF breaks only is decoded whole and split as text (`_utf8_lines`),
    when every line shown is within `max_line_chars` (none is cut)."""
    assert src.data is not None
    first = start - 1
    got = None
    if src.enc.codec == "utf-8":
        got = utf8_range(src.data, src.base, first, limit, max_line_chars, path)
    if got is None:  # (not UTF-8 with LF breaks only, or a line shown is cut)
        got = bytes_range(
            src.data, src.base, src.enc, src.bytewise, first, limit, max_line_chars, path
        )
    lines, cuts, lossy_at, total, chars = got
    shown = len(lines)
    # Every line fits the budget when a bound on what they cost does (numbers no wider
    # than start + shown's); else they are counted as `_take_range` counts them.
    fits = chars is not None and chars + shown * (len(str(start + shown)) + 2) <= (budget or 0)
    if (
        budget is not None
        and not fits
        and sum(map(len, lines)) + _digits(start, shown) + 2 * shown > budget
    ):
        return None
    src._lossy[0] |= lossy_at < shown
    more = first + shown < total
    return TextSlice(
        lines=lines,
        start=start,
        end=start + shown - 1,
        total_lines=None if count_total is False and more else total,
        truncated=more,
        truncated_by="limit" if more else None,
        cut_lines=[start + k for k in cuts],
    )


def _lines(
    src: _Source,
    walker: LineWalker,
    start: int,
    limit: int | None,
    max_line_chars: int,
    budget: int | None,
) -> tuple[list[str], list[int], int, bool]:
    """Up to `limit` lines from the walker's position, numbered from `start`, decoded and
    cut: (lines, cut line numbers, lines taken from the walker, whether the budget ran out)."""
    if isinstance(walker, MemoryLines):
        return _take_range(src, walker, start, limit, max_line_chars, budget)
    return _walk_range(src, walker, start, limit, max_line_chars, budget)


def _walk_range(
    src: _Source,
    walker: LineWalker,
    start: int,
    limit: int | None,
    max_line_chars: int,
    budget: int | None,
) -> tuple[list[str], list[int], int, bool]:
    """`_lines` one line at a time, as streamed."""
    lines: list[str] = []
    cut: list[int] = []
    used = 0
    consumed = 0  # one more than shown when the budget ran out
    keep = keep_units(src.bytewise, max_line_chars)
    decode = src.decode
    while limit is None or consumed < limit:
        got = walker.next_line(keep)
        if got is None:
            break
        raw, longer, _eol = got
        consumed += 1
        text = decode(raw, not longer)
        if longer or len(text) > max_line_chars:
            text = cut_text(text, max_line_chars)
            cut.append(start + len(lines))
        if budget is not None:
            number = start + len(lines)
            cost = _numbered_cost(text, number)
            if used + cost > budget:
                if not lines:  # not even one line fits: show part of it, so reads progress
                    lines.append(_squeeze(text, number, budget))
                    if number not in cut:
                        cut.append(number)
                elif cut and cut[-1] == number:  # looked at, not shown: not a cut line
                    cut.pop()
                return lines, cut, consumed, True
            used += cost
        lines.append(text)
    return lines, cut, consumed, False


def _take_range(
    src: _Source,
    walker: MemoryLines,
    start: int,
    limit: int | None,
    max_line_chars: int,
    budget: int | None,
) -> tuple[list[str], list[int], int, bool]:
    """As `_walk_range`, on lines taken in bulk (with a budget, in growing steps)."""
    keep = keep_units(src.bytewise, max_line_chars)
    if budget is None:
        raws, longer = walker.take(limit, keep)
        lines, cuts, lossy_at = decode_lines(src.enc, raws, longer, max_line_chars)
        src._lossy[0] |= lossy_at < len(lines)
        return lines, [start + k for k in cuts], len(lines), False
    texts: list[str] = []
    cuts = []
    lossy_at = -1  # the first line that did not decode cleanly
    used = before = last = 0
    step = 64
    while used <= budget and (limit is None or len(texts) < limit):
        raws, longer = walker.take(step if limit is None else min(step, limit - len(texts)), keep)
        if not raws:
            break
        got, got_cuts, got_lossy = decode_lines(src.enc, raws, longer, max_line_chars)
        last, before = len(texts), used
        if lossy_at < 0 and got_lossy < len(got):
            lossy_at = last + got_lossy
        cuts += [last + k for k in got_cuts]
        used += sum(map(len, got)) + _digits(start + last, len(got)) + 2 * len(got)
        texts += got
        step *= 2
    if used <= budget:
        src._lossy[0] |= lossy_at >= 0
        return texts, [start + k for k in cuts], len(texts), False
    shown = last + _fitting(texts, last, start, budget - before)  # the next one was looked at
    src._lossy[0] |= 0 <= lossy_at <= shown
    cut = [start + k for k in cuts if k < shown]  # line `shown` was looked at, not shown
    if shown:
        return texts[:shown], cut, len(texts), True
    if start not in cut:  # not even one line fits: show part of it, so reads progress
        cut.append(start)
    return [_squeeze(texts[0], start, budget)], cut, len(texts), True


def _numbered_cost(text: str, number: int) -> int:
    """Characters a line takes when shown numbered: digits, TAB, the text, newline."""
    return len(text) + len(str(number)) + 2


def _squeeze(text: str, number: int, budget: int) -> str:
    """The part of a line that fits in `budget` when shown numbered, marked as cut."""
    return cut_text(text, budget - len(str(number)) - 2 - len(CUT_MARKER))


def _digits(first: int, n: int) -> int:
    """The number of decimal digits in the numbers first .. first + n - 1."""
    total, lo, width, end = 0, first, len(str(first)), first + n
    while lo < end:
        hi = min(end, 10**width)
        total += (hi - lo) * width
        lo, width = hi, width + 1
    return total


def _fitting(texts: list[str], first: int, start: int, budget: int) -> int:
    """How many of texts[first:], numbered from start + first on, fit in `budget` characters."""
    used = 0
    for k in range(first, len(texts)):
        used += _numbered_cost(texts[k], start + k)
        if used > budget:
            return k - first
    return len(texts) - first


def _read_tail(
    src: _Source,
    n: int,
    max_line_chars: int,
    budget: int | None,
    count_total: bool | None,
    path: str,
) -> TextSlice:
    count = count_total if count_total is not None else src.size <= TAIL_COUNT_BYTES
    if not src.bytewise:  # wide encodings: count, then read the range
        total = src.walker().lines_left()
        first = max(total - n + 1, 1)
        out = _read_range(src, first, None, max_line_chars, None, True, path)
        out.tail = True
        return _tail_budget(out, budget)
    offset, before = tail_start(src.fd, src.size, src.base, n)
    walker = src.walker(offset)
    raw_lines, cut, _taken, _by_budget = _lines(src, walker, 1, None, max_line_chars, None)
    if before is None and count:
        before = _lines_before(src, offset)
    if before is None:
        k = len(raw_lines)
        out = TextSlice(
            raw_lines, -k, -1, None, truncated=True, truncated_by="limit", from_end=True
        )
        out.cut_lines = [c - 1 - k for c in cut]
    else:
        first = before + 1
        out = TextSlice(
            raw_lines,
            first,
            first + len(raw_lines) - 1,
            before + len(raw_lines),
            truncated=before > 0,
            truncated_by="limit" if before > 0 else None,
        )
        out.cut_lines = [c - 1 + first for c in cut]
    out.tail = True
    return _tail_budget(out, budget)


def _lines_before(src: _Source, offset: int) -> int:
    """The number of lines before byte `offset` (which directly follows a line break)."""
    if src.data is not None:
        body = src.data[src.base : offset]
        return LineWalker(iter([(body, len(body))] if body else []), text=False).lines_left()
    walker = LineWalker(iter(ByteBlocks(src.fd, src.base, stop=offset)), text=False)
    return walker.lines_left()


def _tail_budget(out: TextSlice, budget: int | None) -> TextSlice:
    """Keep the last lines that fit in `budget` characters."""
    if budget is None:
        return out
    used = 0
    keep = 0
    for i in range(len(out.lines) - 1, -1, -1):
        cost = _numbered_cost(out.lines[i], out.start + i)
        if used + cost > budget and keep:
            break
        used += cost
        keep += 1
    dropped = len(out.lines) - keep
    if dropped:
        out.lines = out.lines[dropped:]
        out.start += dropped
        out.cut_lines = [c for c in out.cut_lines if c >= out.start]
        out.truncated, out.truncated_by = True, "budget"
    return out


def human_size(n: int) -> str:
    """Bytes for people: 512 B, 1.5 KB, 3.2 MB, 1.0 GB."""
    size = float(n)
    for unit in ("B", "KB", "MB", "GB"):
        if size < 1024 or unit == "GB":
            return f"{int(size)} B" if unit == "B" else f"{size:.1f} {unit}"
        size /= 1024
    return f"{size:.1f} GB"  # pragma: no cover
