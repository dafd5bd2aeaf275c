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
import itertools
import json
import zlib
from array import array
from collections.abc import Callable, Iterable, Iterator
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
Pieces = Iterable[bytes | memoryview]
PieceList = list[bytes | memoryview]

PIECE_BYTES = 1 << 20
"""The size a transform keeps each piece it yields to (one replacement may be longer):
whatever a change multiplies, its result is built piece by piece, so the one who takes
the pieces (`engine.streamstages.Chain`, metering them against the result limit) stops
the change before more than a piece past the limit exists."""


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


class Occurs:
    """Which of `needles` occur in a stream fed chunk by chunk (`see`), across chunk
    boundaries; memory: the longest needle."""

    def __init__(self, needles: list[bytes]) -> None:
        self.missing = [n for n in dict.fromkeys(needles) if n]
        self.found: list[bytes] = []
        self._keep = max((len(n) for n in self.missing), default=1) - 1
        self._tail = b""

    def see(self, chunk: bytes) -> None:
        if not self.missing:
            return
        window = self._tail + chunk
        for needle in list(self.missing):
            if needle in window:
                self.missing.remove(needle)
                self.found.append(needle)
        self._tail = window[-self._keep :] if self._keep else b""


CONTEXT_BYTES = 4096
"""Bytes read on each side of a match for `first_match_context`."""


def first_match_context(
    chunks: Iterable[bytes], needle: bytes, around: int = CONTEXT_BYTES, *, skip: int = 0
) -> tuple[bytes | None, bytes | None, int, int] | None:
    """The whole lines around the first `needle` in a stream, within `around` bytes on
    each side: (the text before it, the text after it, the 1-based line number where the
    text before it starts, the match's offset); None when it does not occur. A line cut
    by the window is left out, unless the window reaches the stream's start or end; a side
    is None when even the match's own line does not fit in it (the line number is then
    the match's). A match that begins before offset `skip` is passed over (its bytes are
    still context for a later one)."""
    if not needle:
        raise ValueError("needle must not be empty")
    keep = around + len(needle)  # (one byte more: whether the context starts a line)
    tail = b""  # the last `keep` bytes before the current chunk
    start = 0  # stream offset of tail[0]
    lines_before = 0  # newlines in the stream before tail[0]
    found = -1
    window = b""
    it = iter(chunks)
    for chunk in it:
        # Each chunk is searched where it lies (no copy): a match straddling the
        # previous chunk starts in the last len(needle) - 1 bytes of `tail`.
        at = _first_in(tail, chunk, needle, max(0, skip - start))
        if at >= 0:
            window, found = tail + chunk, at
            break
        start, lines_before, tail = _kept(tail, chunk, keep, start, lines_before)
    if found < 0:
        return None
    end = found + len(needle)
    eof = False
    while len(window) - end <= around:  # (one byte more: whether the context ends there)
        chunk = next(it, b"")
        if not chunk:
            eof = True
            break
        window += chunk
    lo, hi = max(0, found - around), end + around
    before: bytes | None = window[lo:found]
    after: bytes | None = window[end:hi]
    if start + lo > 0 and window[lo - 1 : lo] != b"\n":  # starts inside a line
        cut = before.find(b"\n")  # type: ignore[union-attr]
        before = before[cut + 1 :] if cut >= 0 else None  # type: ignore[index]
    if not (eof and hi >= len(window)) and not after.endswith(b"\n"):  # type: ignore[union-attr]
        cut = after.rfind(b"\n")  # type: ignore[union-attr]
        after = after[: cut + 1] if cut >= 0 else None  # type: ignore[index]
    first = found - (len(before) if before is not None else 0)
    return before, after, 1 + lines_before + window.count(b"\n", 0, first), start + found


def _first_in(tail: bytes, chunk: bytes, needle: bytes, skip: int) -> int:
    """The offset in `tail + chunk` of the first `needle` at or after `skip` that ends in
    `chunk` (-1: none), found without joining the two."""
    n = len(needle)
    edge = max(len(tail) - (n - 1), skip, 0)
    if edge < len(tail):  # one that straddles the two starts in tail[edge:]
        at = (tail[edge:] + chunk[: n - 1]).find(needle)
        if at >= 0:
            return edge + at
    at = chunk.find(needle, max(0, skip - len(tail)))
    return len(tail) + at if at >= 0 else -1


def _kept(tail: bytes, chunk: bytes, keep: int, start: int, lines: int) -> tuple[int, int, bytes]:
    """(start, lines, tail) once `chunk` has passed: the last `keep` bytes of
    `tail + chunk`, their stream offset and the newlines before them."""
    drop = len(tail) + len(chunk) - keep
    if drop <= 0:
        return start, lines, tail + chunk
    if drop >= len(tail):
        cut = drop - len(tail)
        return start + drop, lines + tail.count(b"\n") + chunk.count(b"\n", 0, cut), chunk[cut:]
    return start + drop, lines + tail.count(b"\n", 0, drop), tail[drop:] + chunk


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

    def _region(self, left: bytes) -> Iterator[bytes]:
        """The region replaced, in pieces of about `PIECE_BYTES`: a region whose result
        would be larger is halved (at a point outside every occurrence) until it is not,
        or holds one occurrence."""
        found = left.count(self.old)
        grow = len(self.new) - len(self.old)
        if found > 1 and len(left) + found * grow > PIECE_BYTES:
            mid = self._outside(left, len(left) // 2)
            if 0 < mid < len(left):
                yield from self._region(left[:mid])
                yield from self._region(left[mid:])
                return
        out = left.replace(self.old, self.new) if found else left
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
        yield out

    def _outside(self, left: bytes, at: int) -> int:
        """`at`, or the start (else the end) of the occurrence it falls inside."""
        hit = left.find(self.old, max(0, at - len(self.old) + 1), at + len(self.old) - 1)
        if 0 <= hit < at:
            return hit if hit > 0 else hit + len(self.old)
        return at

    def finish(self) -> Pieces:
        tail, self._tail = self._tail, b""
        if tail:
            yield from self._region(tail)
        if self.count == 0:
            raise StreamError("no_match", "old text not found (exact match)")
        self.delta.size_after = self.delta.size_before + self.count * (
            len(self.new) - len(self.old)
        )


# --------------------------------------------------------------------------- literal replace


class LiteralReplace:
    """Replace `old` with `new` in a byte stream: the first `limit` matches (None: all).

    With `unique`, a second place `old` occurs -- overlapping the first one too, as the
    in-memory edit counts them (`edit.matching.find`) -- stops the transform (StreamError
    "ambiguous") before anything is committed; `count` is the number of matches replaced.
    `clear`: no place `old` occurs starts before this offset (a read before the pass
    found the first one there): the chunks before it are passed on unsearched.
    """

    def __init__(
        self,
        old: bytes,
        new: bytes,
        *,
        limit: int | None = None,
        unique: bool = False,
        clear: int = 0,
    ):
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
        self._seen = 0  # places `old` occurs so far, overlapping ones included (`unique`)
        self._seen_tail = b""  # the last len(old) - 1 bytes seen: a place may start there
        self._clear = clear

    def feed(self, chunk: bytes) -> Pieces:
        self.delta.size_before += len(chunk)
        if self._done:
            return self._passthrough(chunk)
        keep = len(self.old) - 1
        if self.delta.size_before < self._clear + len(self.old) and len(chunk) >= keep:
            # No place ends in this chunk: each starts at `clear` or later.
            self._seen_tail = bytes(chunk[len(chunk) - keep :]) if keep else b""
            return self._hold(chunk, keep)
        if self.unique:
            # A later match would make the edit ambiguous: look ahead in this chunk.
            self._see(chunk)
            if self._seen > 1:
                raise StreamError("ambiguous", "old text found more than once", count=self._seen)
            # (every place ending in this chunk lies whole in tail + chunk)
            hit = self._seen > self.count
        else:
            hit = _first_in(self._tail, chunk, self.old, 0) >= 0
        if not hit and len(chunk) >= keep:
            return self._hold(chunk, keep)
        region = self._tail + chunk if self._tail else chunk
        left = None if self.limit is None else self.limit - self.count
        parts = region.split(self.old, -1 if left is None else left)
        found = len(parts) - 1
        out: list[Any] = []
        if found:
            self._record(parts)
            out.append(_joined(parts[:-1], self.new))
            last = parts[-1]
        else:
            last = region
        self.count += found
        if self.limit is not None and self.count >= self.limit and not self.unique:
            self._done = True
            self._gap += len(last)
            self._tail = b""
            out.append((last,))
            return itertools.chain.from_iterable(out)
        # (unique: nothing more is replaced, but later matches must still be counted)
        hold = min(keep, len(last))
        cut = len(last) - hold
        out.append((memoryview(last)[:cut],))
        self._gap += cut
        self._tail = bytes(last[cut:])
        return itertools.chain.from_iterable(out)

    def _hold(self, chunk: bytes, keep: int) -> PieceList:
        """A chunk without a match (tail + chunk holds none) passed on as it lies, but for
        its last `keep` bytes, held back: they may begin a match."""
        cut = len(chunk) - keep
        out: PieceList = [self._tail] if self._tail else []
        if cut:
            out.append(memoryview(chunk)[:cut])
        self._gap += len(self._tail) + cut
        self._tail = bytes(chunk[cut:])
        return out

    def _see(self, chunk: bytes) -> None:
        """Count the places `old` occurs that end in `chunk`, overlapping ones included
        (searched where they lie: in the held bytes and the chunk's head, then the chunk)."""
        old, keep, tail = self.old, len(self.old) - 1, self._seen_tail
        if tail:
            edge = tail + chunk[:keep]
            at = edge.find(old)
            while 0 <= at < len(tail) and self._seen <= 1:
                self._seen += 1
                at = edge.find(old, at + 1)
        at = chunk.find(old)
        while at != -1 and self._seen <= 1:
            self._seen += 1
            at = chunk.find(old, at + 1)
        if len(chunk) >= keep:
            self._seen_tail = chunk[len(chunk) - keep :] if keep else b""
        else:
            self._seen_tail = (tail + chunk)[max(0, len(tail) + len(chunk) - keep) :]

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


def _joined(parts: list[bytes], new: bytes) -> Iterator[bytes]:
    """`part new part new ...`, joined in pieces of about `PIECE_BYTES`."""
    group: list[bytes] = []
    size = 0
    for part in parts:
        group.append(part)
        size += len(part) + len(new)
        if size >= PIECE_BYTES:
            yield new.join(group) + new
            group, size = [], 0
    if group:
        yield new.join(group) + new


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
        d, view = self.delta, memoryview(chunk)
        out: PieceList = []
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
        out: PieceList = []
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


def pack_deltas(deltas: list[Delta]) -> bytes:
    """Several deltas (one per chained stage) in one blob: count, then length-prefixed."""
    parts = [len(deltas).to_bytes(4, "little")]
    for delta in deltas:
        blob = delta.to_bytes()
        parts.append(len(blob).to_bytes(8, "little"))
        parts.append(blob)
    return b"".join(parts)


def unpack_deltas(blob: bytes) -> list[Delta]:
    n = int.from_bytes(blob[:4], "little")
    pos, out = 4, []
    for _ in range(n):
        size = int.from_bytes(blob[pos : pos + 8], "little")
        out.append(Delta.from_bytes(blob[pos + 8 : pos + 8 + size]))
        pos += 8 + size
    return out
