"""Lines of a text already held in memory, split off many at a time.

`MemoryLines` is a `linestream.LineWalker` over bytes in memory that gives exactly the
same lines, endings and counts, but takes lines in bulk (`bytes.split` on windows that
grow as more lines are asked for) instead of finding them one by one, which makes reading
a small file several times faster. Long lines are still walked one by one, where finding
their end is cheaper than splitting.
"""

from __future__ import annotations

import re

from filewright.read.linestream import LineWalker

SPLIT_WINDOW = 64 << 10  # in-memory lines are split from windows starting at this size
LONG_LINE = 4 << 10  # from about this length a line costs less to walk than to split
_EOL_SPLIT = re.compile(rb"(\r\n|\r|\n)")
_EOL_NAMES = {b"\n": "\n", b"\r\n": "\r\n", b"\r": "\r"}


def _split_lines(chunk: bytes, n: int | None, at_end: bool) -> tuple[list[bytes], list[str], int]:
    """The first `n` (None: all) whole lines of `chunk`: (lines, their endings, bytes used).

    A line is whole when a break ends it, or when `at_end` says the chunk ends the text.
    """
    nl = chunk.find(b"\n")
    if nl > 0 and chunk[nl - 1] == 13:  # the first break is CRLF: try them all as CRLF
        parts, last, size = _split_on(chunk, b"\r\n", n, at_end)
        k = len(parts)
        if chunk.count(b"\n", 0, size) == k and chunk.count(b"\r", 0, size) == k:
            eols = ["\r\n"] * k
            if last:
                parts.append(last)
                eols.append("")
            return parts, eols, size
    parts, last, size = _split_on(chunk, b"\n", n, at_end)
    if chunk.find(b"\r", 0, size) == -1:
        eols = ["\n"] * len(parts)
    elif chunk.count(b"\r", 0, size) == chunk.count(b"\r\n", 0, size):  # LF and CRLF
        eols = ["\r\n" if p[-1:] == b"\r" else "\n" for p in parts]
        parts = [p[:-1] if p[-1:] == b"\r" else p for p in parts]
    else:  # lone "\r" breaks
        fields = _EOL_SPLIT.split(chunk[:size] if size < len(chunk) else chunk, n or 0)
        last = fields.pop()
        parts, eols = fields[0::2], [_EOL_NAMES[e] for e in fields[1::2]]
        if len(parts) == n:  # what follows the n-th break is left for later
            size -= len(last)
            last = b""
    if last:
        parts.append(last)
        eols.append("")
    return parts, eols, size


def all_lines(data: bytes, start: int = 0) -> list[bytes]:
    """Every line of data[start:], without its ending: what a `MemoryLines` over it gives
    line after line, split off in one step (for a text small enough to split whole)."""
    return _split_lines(data[start:] if start else data, None, True)[0]


def _split_on(
    chunk: bytes, sep: bytes, n: int | None, at_end: bool
) -> tuple[list[bytes], bytes, int]:
    """`chunk` split at the first `n` (None: all) `sep`s: (the lines they end, the last
    line when `at_end` ends it and fewer than `n` were found (else b""), bytes used)."""
    parts = chunk.split(sep, -1 if n is None else n)
    rest = parts.pop()
    last = rest if at_end and len(parts) != n else b""
    return parts, last, len(chunk) - len(rest) + len(last)


class MemoryLines(LineWalker):
    """A LineWalker over bytes held in memory (from byte `start`) that splits lines in bulk.

    Every answer is the one a LineWalker over data[start:] gives; `take` returns many
    lines in one call. Lines are split off in batches from a window that grows, with
    `bytes.split` (a regex only where a lone "\\r" occurs); lines longer than `LONG_LINE`
    are walked one by one instead, copying only what is kept of them.
    """

    def __init__(self, data: bytes, start: int = 0) -> None:
        super().__init__(iter(()), text=False)
        self.buf, self.pos, self.end, self.eof = data, start, len(data), True
        self._lines: list[bytes] = []  # split off, not yet returned from index _next on
        self._eols: list[str] = []
        self._next = 0
        self._window = SPLIT_WINDOW
        self._batch = 64  # lines split at once for next_line; doubles

    def _long_line(self) -> bool:
        """True when the next line is longer than `LONG_LINE` (it is walked, not split)."""
        lo = self.pos
        return lo + LONG_LINE < self.end and self.buf.find(b"\n", lo, lo + LONG_LINE) == -1

    def _split(self, n: int | None) -> None:
        """Move up to `n` (None: all) more lines to the batch; the next one is not long."""
        lo, end = self.pos, self.end
        hi = min(end, lo + self._window)  # holds a "\n" when it is not the end
        chunk = self.buf if lo == 0 and hi == len(self.buf) else self.buf[lo:hi]
        parts, eols, size = _split_lines(chunk, n, hi == end)
        if hi < end and (n is None or len(parts) < n):
            self._window *= 2  # the next batch reaches further
        self.pos = lo + size
        if self._next >= len(self._lines):
            self._lines, self._eols, self._next = parts, eols, 0
        else:
            self._lines += parts
            self._eols += eols

    def take(self, n: int | None, keep: int) -> tuple[list[bytes], list[int]]:
        """The next `n` lines (None: all), each its first `keep` bytes, and the indexes
        of those that were longer."""
        lines: list[bytes] = []
        longer: list[int] = []
        walk = super().next_line
        while n is None or len(lines) < n:
            if self._next >= len(self._lines):
                if self.pos >= self.end:
                    break
                if self._long_line():  # walk it, and those after it while they are long
                    while True:
                        lo = self.pos
                        raw, cut, _eol = walk(keep) or (b"", False, "")  # never None here
                        if cut:
                            longer.append(len(lines))
                        lines.append(raw)
                        if self.pos - lo <= LONG_LINE or len(lines) == n or self.pos >= self.end:
                            break
                    continue
                self._split(None if n is None else n - len(lines))
            i = self._next
            got = self._lines[i:] if n is None else self._lines[i : i + n - len(lines)]
            self._next = i + len(got)
            self.breaks += len(got) - (self._eols[self._next - 1] == "")
            self.at_line_start = True
            if max(map(len, got)) > keep:
                for k, line in enumerate(got):
                    if len(line) > keep:
                        longer.append(len(lines) + k)
                        got[k] = line[:keep]
            lines += got
        return lines, longer

    def next_line(self, keep: int) -> tuple[bytes, bool, str] | None:
        i = self._next
        if i >= len(self._lines):
            if self.pos >= self.end or self._long_line():
                return super().next_line(keep)
            self._split(self._batch)
            self._batch *= 2
            i = 0
        self._next = i + 1
        raw, eol = self._lines[i], self._eols[i]
        self.breaks += eol != ""
        self.at_line_start = True
        if len(raw) > keep:
            return raw[:keep], True, eol
        return raw, False, eol

    def skip(self, n: float) -> int:
        i = self._next  # lines split off but not returned go back to the buffer
        self.pos -= sum(map(len, self._lines[i:])) + sum(map(len, self._eols[i:]))
        self._lines, self._eols, self._next = [], [], 0
        return super().skip(n)

    def has_more(self) -> bool:
        return self._next < len(self._lines) or self.pos < self.end

    def lines_left(self) -> int:
        pending = len(self._lines) - self._next
        last_open = pending > 0 and self._eols[-1] == ""
        self._lines, self._eols, self._next = [], [], 0
        self.breaks += pending - last_open
        left = pending + super().lines_left()
        if last_open:  # as a LineWalker ends up after walking over an unended last line
            self.at_line_start = False
        return left
