"""Pure transforms of a file's bytes fed in chunks: find-and-replace, regex, insert, undo.

Nothing here touches the disk: each transform is an object that is fed the old file's
chunks in order (`feed`) and then `finish`ed, and returns the new file's bytes as a list
of pieces, with memory bounded by the chunk size plus the match and the replacement.
Matches that span chunk boundaries are found: a transform holds back the bytes that could
begin a match until the next chunk decides. Each transform also builds the `Delta` that
undo needs (the replaced byte ranges, as offsets and old bytes), and `Reverse` turns the
new bytes back into the old ones with it.

Text is matched as bytes in the file's own encoding and newline style (`Format`), so
every byte outside a match is written back exactly as it was.
"""

from __future__ import annotations

import codecs
import json
import zlib
from array import array
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

# Multi-byte legacy encodings: an ASCII byte can be the second half of a character, so a
# byte match could split one. Streamed changes refuse them (and UTF-16/32, whose code
# units a byte match could straddle).
_BYTE_UNSAFE = (
    "gbk", "gb2312", "gb18030", "big5", "big5hkscs", "cp932", "shift_jis", "euc_jp",
    "euc_kr", "cp949", "johab", "hz", "iso2022", "utf_16", "utf_32", "cp950", "euc_jis",
    "shift_jis_2004", "shift_jisx0213",
)  # fmt: skip
_BOMS = (
    (codecs.BOM_UTF32_LE, "utf-32-le"),
    (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)
Pieces = list[bytes | memoryview]


class StreamError(Exception):
    """A streamed change cannot be made. `code` is a failure code (no_match, ambiguous,
    unsupported_encoding, binary, match_too_long, line_out_of_range, unencodable)."""

    def __init__(self, code: str, message: str, **detail: Any) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.detail = detail


@dataclass(frozen=True)
class Format:
    """How a file's text is stored: codec, BOM and dominant newline (as bytes)."""

    encoding: str
    bom: bytes
    newline: bytes

    def encode(self, text: str) -> bytes:
        """`text` (any newlines) in the file's encoding and newline style."""
        body = text.replace("\r\n", "\n").replace("\r", "\n")
        if self.newline != b"\n":
            body = body.replace("\n", self.newline.decode("ascii"))
        try:
            return body.encode(self.encoding)
        except UnicodeEncodeError as exc:
            bad = exc.object[exc.start : exc.end]
            raise StreamError(
                "unencodable",
                f"the new text contains {bad!r}, which the file's encoding "
                f"({self.encoding}) cannot represent",
            ) from None

    def decode(self, data: bytes) -> str:
        """Bytes of the file as text, losslessly (undecodable bytes become surrogates)."""
        return data.decode(self.encoding, "surrogateescape")

    def encode_decoded(self, text: str) -> bytes:
        """The inverse of `decode`: text from this file back to its exact bytes."""
        return text.encode(self.encoding, "surrogateescape")


def head_format(head: bytes, detect: Callable[[bytes], str] | None = None) -> Format:
    """The `Format` of a file from its first bytes (say 64 KB), or StreamError.

    BOM first; then UTF-8 (an incomplete character at the cut is fine); otherwise
    `detect(head)` names a legacy encoding. Encodings in which a byte match could split
    a character are refused, as are binary files.
    """
    for bom, name in _BOMS:
        if head.startswith(bom):
            if name != "utf-8":
                raise _unsupported(name)
            return Format("utf-8", bom, _newline(head))
    if b"\x00" in head[:8192]:
        raise StreamError("binary", "file appears to be binary")
    try:
        codecs.getincrementaldecoder("utf-8")().decode(head, final=False)
        name = "utf-8"
    except UnicodeDecodeError:
        if detect is None:
            raise _unsupported("an unknown encoding") from None
        name = codecs.lookup(detect(head)).name
    if any(name.replace("-", "_").startswith(p) for p in _BYTE_UNSAFE):
        raise _unsupported(name)
    return Format(name, b"", _newline(head))


def _unsupported(name: str) -> StreamError:
    return StreamError(
        "unsupported_encoding",
        f"this file is too large to edit in memory and is encoded in {name}; streamed "
        "changes support UTF-8 and single-byte encodings",
        encoding=name,
    )


def _newline(head: bytes) -> bytes:
    crlf = head.count(b"\r\n")
    return b"\r\n" if crlf and crlf * 2 >= head.count(b"\n") else b"\n"


# --------------------------------------------------------------------------- deltas


@dataclass
class Delta:
    """What undo needs to turn the new bytes back into the old: hunks in file order.

    Hunk i: `gaps[i]` unchanged bytes (after the previous hunk), then `new_lens[i]` bytes
    in the new file that were `olds[i]` in the old one. When every hunk replaced the same
    bytes (a literal replace), `olds` holds one entry (`uniform`).

    A replace-all delta is kept by `regions` instead: triples (old length, new length,
    hunks) of consecutive regions of the file; hunks -1 means "the region comes back by
    replacing `new` with `olds[0]`" (checked when it was made), else the region's hunks
    are next in `gaps`/`new_lens` (gaps counted from the region's start). A gigabyte
    costs a few kilobytes of delta.
    """

    gaps: array = field(default_factory=lambda: array("q"))
    new_lens: array = field(default_factory=lambda: array("q"))
    olds: list[bytes] = field(default_factory=list)
    uniform: bool = False
    size_before: int = 0
    size_after: int = 0
    regions: array = field(default_factory=lambda: array("q"))
    new: bytes = b""

    def __len__(self) -> int:
        return len(self.gaps)

    def old(self, i: int) -> bytes:
        return self.olds[0] if self.uniform else self.olds[i]

    def to_bytes(self) -> bytes:
        """A compact serialisation (a JSON header line, then zlib-compressed arrays)."""
        header = {
            "v": 2,
            "n": len(self.gaps),
            "uniform": self.uniform,
            "size_before": self.size_before,
            "size_after": self.size_after,
            "old_lens": [len(o) for o in self.olds],
            "regions": len(self.regions),
            "new_len": len(self.new),
        }
        body = b"".join(
            [
                self.gaps.tobytes(),
                self.new_lens.tobytes(),
                *self.olds,
                self.regions.tobytes(),
                self.new,
            ]
        )
        return json.dumps(header).encode() + b"\n" + zlib.compress(body, 1)

    @classmethod
    def from_bytes(cls, data: bytes) -> Delta:
        line, _, packed = data.partition(b"\n")
        header = json.loads(line)
        body = memoryview(zlib.decompress(packed))
        n = int(header["n"])
        gaps, new_lens, regions = array("q"), array("q"), array("q")
        width = gaps.itemsize * n
        gaps.frombytes(body[:width])
        new_lens.frombytes(body[width : 2 * width])
        olds, pos = [], 2 * width
        for size in header["old_lens"]:
            olds.append(bytes(body[pos : pos + size]))
            pos += size
        end = pos + regions.itemsize * int(header.get("regions", 0))
        regions.frombytes(body[pos:end])
        new = bytes(body[end : end + int(header.get("new_len", 0))])
        return cls(
            gaps, new_lens, olds, bool(header["uniform"]),
            int(header["size_before"]), int(header["size_after"]), regions, new,
        )  # fmt: skip


def self_overlapping(needle: bytes) -> bool:
    """True when two occurrences of `needle` can overlap ("aa", "abab")."""
    return any(needle[:k] == needle[-k:] for k in range(1, len(needle)))


class ReplaceAll:
    """Replace every `old` with `new`, region by region with `bytes.replace` (no Python
    work per match), for an `old` whose occurrences cannot overlap (`self_overlapping`).
    The delta keeps, per region, either nothing but its lengths (replacing `new` back
    with `old` restores it: checked here) or the region's exact hunks."""

    def __init__(self, old: bytes, new: bytes) -> None:
        if not old or self_overlapping(old):
            raise ValueError("old must be non-empty and not self-overlapping")
        self.old, self.new = old, new
        self.count = 0
        self.delta = Delta(olds=[old], uniform=True, new=new)
        self._tail = b""

    def feed(self, chunk: bytes) -> Pieces:
        self.delta.size_before += len(chunk)
        region = self._tail + chunk if self._tail else chunk
        cut = len(region) - (len(self.old) - 1)
        if cut <= 0:
            self._tail = region
            return []
        # An occurrence straddling the cut starts the next region instead.
        at = region.find(self.old, max(0, cut - len(self.old) + 1))
        if 0 <= at < cut:
            cut = at
        self._tail = region[cut:]
        return self._region(region[:cut] if cut < len(region) else region)

    def _region(self, left: bytes) -> Pieces:
        out = left.replace(self.old, self.new)
        grow = len(self.new) - len(self.old)
        found = (len(out) - len(left)) // grow if grow else left.count(self.old)
        self.count += found
        d = self.delta
        if found == 0:
            d.regions.extend((len(left), len(out), 0))
        elif out.replace(self.new, self.old) == left:
            d.regions.extend((len(left), len(out), -1))
        else:
            parts = left.split(self.old)
            d.regions.extend((len(left), len(out), found))
            d.gaps.extend(array("q", map(len, parts[:-1])))
            d.new_lens.extend(array("q", [len(self.new)]) * found)
        return [out]

    def finish(self) -> Pieces:
        tail, self._tail = self._tail, b""
        out = self._region(tail) if tail else []
        if self.count == 0:
            raise StreamError("no_match", "old text not found (exact match)")
        self.delta.size_after = self.delta.size_before + self.count * (
            len(self.new) - len(self.old)
        )
        return out


# --------------------------------------------------------------------------- literal replace


class LiteralReplace:
    """Replace `old` with `new` in a byte stream: the first `limit` matches (None: all).

    With `unique`, a second match stops the transform (StreamError "ambiguous") before
    anything is committed; `count` is the number of matches replaced.
    """

    def __init__(self, old: bytes, new: bytes, *, limit: int | None = None, unique: bool = False):
        if not old:
            raise ValueError("old must not be empty")
        self.old, self.new = old, new
        self.limit = 1 if unique else limit
        self.unique = unique
        self.count = 0
        self.delta = Delta(olds=[old], uniform=True)
        self._tail = b""  # held back: may begin a match that the next chunk completes
        self._gap = 0  # unchanged bytes since the last match, not yet in the delta
        self._done = False
        self._seen = 0

    def feed(self, chunk: bytes) -> Pieces:
        self.delta.size_before += len(chunk)
        if self._done:
            return self._passthrough(chunk)
        region = self._tail + chunk if self._tail else chunk
        keep = len(self.old) - 1
        left = None if self.limit is None else self.limit - self.count
        if self.unique:
            # A later match would make the edit ambiguous: look ahead in this region.
            self._seen += region.count(self.old)
            if self._seen > 1:
                raise StreamError("ambiguous", "old text found more than once", count=self._seen)
        parts = region.split(self.old, -1 if left is None else left)
        found = len(parts) - 1
        out: Pieces = []
        if found:
            self._record(parts)
            out.append(self.new.join(parts[:-1]) + self.new)
            last = parts[-1]
        else:
            last = region
        self.count += found
        if self.limit is not None and self.count >= self.limit and not self.unique:
            self._done = True
            self._gap += len(last)
            self._tail = b""
            out.append(last)
            return out
        hold = min(keep, len(last))
        if found and self.unique:
            # nothing more is replaced, but later matches must still be counted
            hold = min(keep, len(last))
        cut = len(last) - hold
        out.append(memoryview(last)[:cut])
        self._gap += cut
        self._tail = bytes(last[cut:])
        return out

    def _record(self, parts: list[bytes]) -> None:
        lens = array("q", map(len, parts[:-1]))
        lens[0] += self._gap
        self._gap = 0
        self.delta.gaps.extend(lens)
        self.delta.new_lens.extend(array("q", [len(self.new)]) * len(lens))

    def _passthrough(self, chunk: bytes) -> Pieces:
        self._gap += len(chunk)
        return [chunk]

    def finish(self) -> Pieces:
        tail, self._tail = self._tail, b""
        self._gap += len(tail)
        if self.count == 0:
            raise StreamError("no_match", "old text not found (exact match)")
        self.delta.size_after = self.delta.size_before + self.count * (
            len(self.new) - len(self.old)
        )
        return [tail] if tail else []


# --------------------------------------------------------------------------- regex replace


class RegexReplace:
    """Regex replace on text decoded from the stream, in windows of whole lines.

    `pattern` is compiled (`re` or `regex` API: `finditer(text, pos)`, `match.expand`);
    `template` is the replacement (expanded unless `literal`). The first `limit` matches
    are replaced (None: all). A window keeps `margin` characters beyond the matches it
    accepts, and the line that a window starts in stays as context (so `^`, `\\b` and
    lookbehinds see what precedes); a match longer than `margin` is refused (StreamError
    "match_too_long"): in a streamed file a match is at most that long.
    """

    def __init__(
        self,
        pattern: Any,
        template: str,
        fmt: Format,
        *,
        limit: int | None = None,
        literal: bool = False,
        margin: int = 1 << 20,
        finditer: Callable[[Any, str, int], Any] | None = None,
    ) -> None:
        self.pattern, self.template, self.fmt = pattern, template, fmt
        self.limit, self.literal, self.margin = limit, literal, margin
        self.finditer = finditer or (lambda p, s, pos: p.finditer(s, pos))
        self.count = 0
        self.changed = False  # some match was replaced by different bytes
        self.delta = Delta()
        self._pending = b""  # undecoded bytes: a partial line
        self._text = ""  # context (already emitted) + text not yet emitted
        self._start = 0  # where the text not yet emitted begins in _text
        self._gap = 0

    def _full(self) -> bool:
        return self.limit is not None and self.count >= self.limit

    def feed(self, chunk: bytes) -> Pieces:
        self.delta.size_before += len(chunk)
        if self._full():
            return self._flush(chunk)
        data = self._pending + chunk if self._pending else chunk
        cut = data.rfind(b"\n") + 1
        if len(data) - cut > 4 * self.margin:  # a giant line: take it as it comes
            cut = len(data)
        self._pending = data[cut:]
        self._text += self.fmt.decode(data[:cut])
        if len(self._text) - self._start <= 2 * self.margin:
            return []
        return self._scan(final=False)

    def finish(self) -> Pieces:
        out: Pieces = []
        if not self._full():
            self._text += self.fmt.decode(self._pending)
            self._pending = b""
            out = self._scan(final=True)
        else:
            out = self._flush(b"")
        if self.count == 0:
            raise StreamError("no_match", "no match for the pattern")
        self.delta.size_after = self.delta.size_before + sum(
            n - len(o) for n, o in zip(self.delta.new_lens, self.delta.olds, strict=True)
        )
        return out

    def _flush(self, chunk: bytes) -> Pieces:
        rest = self.fmt.encode_decoded(self._text[self._start :]) + self._pending + chunk
        self._text, self._start, self._pending = "", 0, b""
        self._gap += len(rest)
        return [rest]

    def _scan(self, *, final: bool) -> Pieces:
        text = self._text
        safe = len(text) if final else len(text) - self.margin
        out: Pieces = []
        pos = self._start
        for m in self.finditer(self.pattern, text, self._start):
            if self._full() or (m.start() >= safe and not final):
                break
            if m.end() - m.start() > self.margin:
                raise StreamError(
                    "match_too_long",
                    f"a match is longer than {self.margin} characters; in a file this "
                    "large a regex match may not be longer",
                    limit=self.margin,
                )
            before = self.fmt.encode_decoded(text[pos : m.start()])
            new_text = self.template if self.literal else m.expand(self.template)
            new = self.fmt.encode(new_text) if new_text else b""
            out.append(before)
            out.append(new)
            self.delta.gaps.append(self._gap + len(before))
            self.delta.new_lens.append(len(new))
            self.delta.olds.append(self.fmt.encode_decoded(m.group(0)))
            self.changed = self.changed or new != self.delta.olds[-1]
            self._gap = 0
            self.count += 1
            pos = m.end()
        end = len(text) if final or self._full() else max(pos, safe)
        rest = self.fmt.encode_decoded(text[pos:end])
        out.append(rest)
        self._gap += len(rest)
        line_start = text.rfind("\n", 0, end) + 1
        self._text, self._start = text[line_start:], end - line_start
        return out


# --------------------------------------------------------------------------- insert


class InsertAfterLine:
    """Insert `block` (ending with a newline) after line `line` (0: at the top, after a
    BOM of `skip` bytes), as the engine's `insert_at_line` does: after the last line of
    a file without a final newline, the newline goes before the block and the file still
    ends without one."""

    def __init__(self, line: int, block: bytes, newline: bytes, skip: int = 0) -> None:
        self.line, self.block, self.newline, self.skip = line, block, newline, skip
        self.delta = Delta()
        self._seen = 0  # newlines so far
        self._done = False
        self._size = 0
        self._last = b""

    def _record(self, at: int, data: bytes) -> None:
        self._done = True
        self.delta.gaps.append(at)
        self.delta.new_lens.append(len(data))
        self.delta.olds.append(b"")

    def feed(self, chunk: bytes) -> Pieces:
        self.delta.size_before += len(chunk)
        start = self._size
        self._size += len(chunk)
        if chunk:
            self._last = chunk[-1:]
        if self._done:
            return [chunk]
        if self.line == 0:
            if self._size < self.skip:
                return [chunk]
            cut = self.skip - start
        else:
            need = self.line - self._seen
            here = chunk.count(b"\n")
            if here < need:
                self._seen += here
                return [chunk]
            pos = -1
            for _ in range(need):
                pos = chunk.find(b"\n", pos + 1)
            cut = pos + 1
        self._record(start + cut, self.block)
        return [memoryview(chunk)[:cut], self.block, memoryview(chunk)[cut:]]

    def finish(self) -> Pieces:
        out: Pieces = []
        if not self._done:
            unterminated = self._last not in (b"\n", b"")
            lines = self._seen + (1 if unterminated else 0)
            if self.line != lines and self.line != 0:
                raise StreamError(
                    "line_out_of_range",
                    f"line {self.line} is beyond the end of the file ({lines} lines)",
                    line=self.line,
                    line_count=lines,
                )
            data = self.block
            if unterminated and self.line:
                data = self.newline + self.block[: -len(self.newline)]
            self._record(self._size, data)
            out = [data]
        self.delta.size_after = self.delta.size_before + self.delta.new_lens[0]
        return out


# --------------------------------------------------------------------------- span


class SpanReplace:
    """Replace the span from `start` to the first `end` after it (the first `start` at or
    after the first `after`, when given), with `compute(span_text) -> new_text`: the span
    is decoded ("\\n" newlines) and handed over whole, markers included, so the caller's
    in-memory span rules apply unchanged. A span longer than `max_span` bytes is refused
    (StreamError "span_too_long"); a missing marker is StreamError "marker_not_found"."""

    def __init__(
        self,
        start: bytes,
        end: bytes,
        fmt: Format,
        compute: Callable[[str], str],
        *,
        after: bytes = b"",
        max_span: int = 8 << 20,
    ) -> None:
        self.fmt, self.compute, self.max_span = fmt, compute, max_span
        self.steps = [("search_after", after)] if after else []
        self.steps += [("start", start), ("end", end)]
        self.count = 0
        self.delta = Delta()
        self._buf = b""  # not yet emitted (held back, or the span being collected)
        self._emitted = 0  # bytes of the old file emitted before _buf
        self._from = 0  # where in _buf the current marker is searched from
        self._span_at: int | None = None  # start of the span in _buf

    def feed(self, chunk: bytes) -> Pieces:
        self.delta.size_before += len(chunk)
        if not self.steps:
            return [chunk]
        self._buf += chunk
        return self._advance(final=False)

    def _advance(self, *, final: bool) -> Pieces:
        out: Pieces = []
        while self.steps:
            which, marker = self.steps[0]
            at = self._buf.find(marker, self._from)
            if at < 0:
                if final:
                    raise StreamError("marker_not_found", f"{which} marker not found", marker=which)
                if self._span_at is None:  # emit what no match can start in
                    keep = max(self._from, len(self._buf) - len(marker) + 1)
                    out.append(self._buf[:keep])
                    self._emitted += keep
                    self._buf = self._buf[keep:]
                    self._from = 0
                elif len(self._buf) - self._span_at > self.max_span:
                    raise StreamError(
                        "span_too_long",
                        f"the span is longer than {self.max_span} bytes; in a file this "
                        "large a span may not be longer",
                        limit=self.max_span,
                    )
                return out
            self.steps.pop(0)
            if which == "start":
                out.append(self._buf[:at])
                self._emitted += at
                self._buf = self._buf[at:]
                self._span_at, self._from = 0, len(marker)
            elif which == "end":
                out.append(self._replace(at + len(marker)))
            else:
                self._from = at + len(marker)
        out.append(self._buf)
        self._emitted += len(self._buf)
        self._buf = b""
        return out

    def _replace(self, span_end: int) -> bytes:
        old = self._buf[:span_end]
        text = self.fmt.decode(old).replace("\r\n", "\n")
        new = self.fmt.encode(self.compute(text))
        self.count = 1
        self.delta.gaps.append(self._emitted)
        self.delta.new_lens.append(len(new))
        self.delta.olds.append(old)
        self._buf = self._buf[span_end:]
        self._emitted = 0
        return new

    def finish(self) -> Pieces:
        out = self._advance(final=True) if self.steps else []
        if self._buf:
            out.append(self._buf)
            self._buf = b""
        self.delta.size_after = (
            self.delta.size_before + self.delta.new_lens[0] - len(self.delta.olds[0])
        )
        return out


# --------------------------------------------------------------------------- undo


class Reverse:
    """Turn the new file's bytes back into the old ones with a `Delta`, in a stream."""

    def __init__(self, delta: Delta) -> None:
        self.delta = delta
        self._i = 0
        self._gap: int | None = None  # unchanged bytes of hunk _i still to copy
        self._skip = 0  # new bytes of hunk _i still to drop
        self._region = 0  # next region (region deltas)
        self._buf = b""

    def _next(self) -> None:
        self._gap, self._skip = self.delta.gaps[self._i], self.delta.new_lens[self._i]

    def feed(self, chunk: bytes) -> Pieces:
        if len(self.delta.regions):
            return self._feed_regions(chunk)
        d, out, view = self.delta, [], memoryview(chunk)
        pos, size, n = 0, len(chunk), len(self.delta)
        if self._gap is None and self._i < n:
            self._next()
        while pos < size or (self._i < n and self._gap == 0 and self._skip == 0):
            if self._i >= n:
                out.append(view[pos:])
                break
            if self._gap is None:
                self._next()
            assert self._gap is not None
            if self._gap:
                take = min(self._gap, size - pos)
                out.append(view[pos : pos + take])
                pos += take
                self._gap -= take
                continue
            if self._skip:
                take = min(self._skip, size - pos)
                pos += take
                self._skip -= take
                if self._skip:
                    continue
            out.append(d.old(self._i))
            self._i += 1
            self._gap = None
            if self._i < n:
                self._next()
        return out

    def _feed_regions(self, chunk: bytes) -> Pieces:
        d = self.delta
        buf = self._buf + chunk if self._buf else chunk
        out: Pieces = []
        pos = 0
        while self._region * 3 < len(d.regions):
            _old_len, new_len, hunks = d.regions[self._region * 3 : self._region * 3 + 3]
            if len(buf) - pos < new_len:
                break
            piece = buf[pos : pos + new_len]
            pos += new_len
            self._region += 1
            if hunks < 0:
                out.append(piece.replace(d.new, d.olds[0]))
                continue
            at = 0
            for _ in range(hunks):
                gap = d.gaps[self._i]
                out.append(piece[at : at + gap])
                out.append(d.olds[0])
                at += gap + d.new_lens[self._i]
                self._i += 1
            out.append(piece[at:])
        self._buf = buf[pos:]
        return out

    def finish(self) -> Pieces:
        out = self.feed(b"")
        if len(self.delta.regions):
            if self._region * 3 < len(self.delta.regions) or self._buf:
                raise StreamError("mismatch", "the file does not match its recorded change")
            return out
        if self._i < len(self.delta):
            raise StreamError("mismatch", "the file is shorter than its recorded change")
        return out
