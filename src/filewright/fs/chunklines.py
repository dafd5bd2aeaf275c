"""Pure transforms of a file's bytes that work on lines and text: regex replace in
windows of lines, insert after a line, and span replace between markers; and the file's
lines read lazily (`text_lines`) and its matches counted (`count_matches`) for what a
refused streamed change shows.

Like `fs.chunked` (whose `Format`, `Delta` and `StreamError` they use), each is fed the
old file's chunks in order and returns the new file's bytes as pieces, with memory
bounded by a window, and builds the `Delta` undo needs. No I/O.
"""

from __future__ import annotations

import codecs
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from filewright.fs.chunked import Delta, Format, PieceList, Pieces, StreamError

MAX_REPLACEMENT_CHARS = 16 << 20
"""The longest one match's replacement may be in a streamed regex replace: a template
that repeats a long match (``\\g<0>`` thousands of times) is refused before it is
expanded."""

# --------------------------------------------------------------------------- regex replace


class RegexReplace:
    """Regex replace on text decoded from the stream, in windows of whole lines.

    `pattern` is compiled (`re` or `regex` API: `finditer(text, pos)`, `match.expand`);
    `template` is the replacement (expanded unless `literal`). The first `limit` matches
    are replaced (None: all). A window keeps `margin` characters beyond the matches it
    accepts, and the line that a window starts in stays as context (so `^`, `\\b` and
    lookbehinds see what precedes); a match longer than `margin` is refused (StreamError
    "match_too_long"): in a streamed file a match is at most that long.

    `replace_with(prefix, at_line_end)`, when given, makes each match's replacement from
    the text before it on its line and whether a line end (or the end) follows it,
    instead of `template`; `same_old`: every match is these bytes (the undo delta then
    keeps them once); `missing`: the no-match message.

    The pieces come one match at a time, as they are taken (so a replacement that
    multiplies the text is built no further than its taker lets it); a replacement that
    could be longer than `MAX_REPLACEMENT_CHARS` is refused (StreamError "too_large").
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
        replace_with: Callable[[str, bool], str] | None = None,
        same_old: bytes | None = None,
        missing: str = "no match for the pattern",
    ) -> None:
        self.pattern, self.template, self.fmt = pattern, template, fmt
        self.limit, self.literal, self.margin = limit, literal, margin
        self.finditer = finditer or (lambda p, s, pos: p.finditer(s, pos))
        self.replace_with, self.missing = replace_with, missing
        self.count = 0
        self.changed = False  # some match was replaced by different bytes
        self.delta = Delta() if same_old is None else Delta(olds=[same_old], uniform=True)
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
        if not self._full():
            self._text += self.fmt.decode(self._pending)
            self._pending = b""
            yield from self._scan(final=True)
        else:
            yield from self._flush(b"")
        if self.count == 0:
            raise StreamError("no_match", self.missing)
        if self.delta.uniform:
            grown = sum(self.delta.new_lens) - len(self.delta.olds[0]) * len(self.delta.new_lens)
        else:
            grown = sum(
                n - len(o) for n, o in zip(self.delta.new_lens, self.delta.olds, strict=True)
            )
        self.delta.size_after = self.delta.size_before + grown

    def _flush(self, chunk: bytes) -> Pieces:
        rest = self.fmt.encode_decoded(self._text[self._start :]) + self._pending + chunk
        self._text, self._start, self._pending = "", 0, b""
        self._gap += len(rest)
        return [rest]

    def _scan(self, *, final: bool) -> Iterator[bytes]:
        text = self._text
        safe = len(text) if final else len(text) - self.margin
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
            if self.replace_with is not None:
                prefix = text[text.rfind("\n", 0, m.start()) + 1 : m.start()]
                new_text = self.replace_with(prefix, text[m.end() : m.end() + 1] in "\r\n")
            else:
                self._check_size(m)
                new_text = self.template if self.literal else m.expand(self.template)
            new = self.fmt.encode(new_text) if new_text else b""
            yield before
            yield new
            self.delta.gaps.append(self._gap + len(before))
            self.delta.new_lens.append(len(new))
            if not self.delta.uniform:
                self.delta.olds.append(self.fmt.encode_decoded(m.group(0)))
            self.changed = self.changed or new != self.delta.old(len(self.delta.new_lens) - 1)
            self._gap = 0
            self.count += 1
            pos = m.end()
        end = len(text) if final or self._full() else max(pos, safe)
        rest = self.fmt.encode_decoded(text[pos:end])
        self._gap += len(rest)
        line_start = text.rfind("\n", 0, end) + 1
        self._text, self._start = text[line_start:], end - line_start
        yield rest

    def _check_size(self, m: Any) -> None:
        """Refuse a template whose expansion could pass `MAX_REPLACEMENT_CHARS` (each
        group reference, at least one backslash, inserts at most the whole match)."""
        if self.literal:
            return
        most = len(self.template) + self.template.count("\\") * (m.end() - m.start())
        if most > MAX_REPLACEMENT_CHARS:
            raise StreamError(
                "too_large",
                f"one match's replacement could be {most} characters long (limit "
                f"{MAX_REPLACEMENT_CHARS}); nothing was changed",
                size=most,
                limit=MAX_REPLACEMENT_CHARS,
            )


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
        out: PieceList = []
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
        out: PieceList = []
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
        out = list(self._advance(final=True)) if self.steps else []
        if self._buf:
            out.append(self._buf)
            self._buf = b""
        self.delta.size_after = (
            self.delta.size_before + self.delta.new_lens[0] - len(self.delta.olds[0])
        )
        return out


# --------------------------------------------------------------------------- reading


def text_lines(chunks: Iterable[bytes], fmt: Format) -> Iterator[str]:
    """The lines of a stream as text, lazily: what ``text.split("\\n")`` gives for the
    file's whole (``"\\n"``-normalised) text, with memory bounded by a line."""
    decoder = codecs.getincrementaldecoder(fmt.encoding)("surrogateescape")
    rest = ""
    first = True
    for chunk in chunks:
        if first and fmt.bom and chunk.startswith(fmt.bom):
            chunk = chunk[len(fmt.bom) :]
        first = False
        rest += decoder.decode(chunk)
        if "\n" not in rest:
            continue
        *lines, rest = rest.split("\n")
        for line in lines:
            yield line[:-1] if line.endswith("\r") else line
    rest += decoder.decode(b"", True)
    yield from rest.replace("\r\n", "\n").split("\n")


def count_matches(chunks: Iterable[bytes], needle: bytes, *, overlapping: bool = False) -> int:
    """Non-overlapping occurrences of ``needle`` in a stream (``bytes.count`` of the whole);
    with ``overlapping``, every place it occurs (``b"aa"`` twice in ``b"aaa"``)."""
    if not needle:
        raise ValueError("needle must not be empty")
    count, tail = 0, b""
    step = 1 if overlapping else len(needle)
    for chunk in chunks:
        window = tail + chunk
        pos = 0
        while (i := window.find(needle, pos)) != -1:
            count += 1
            pos = i + step
        tail = window[max(pos, len(window) - len(needle) + 1) :]
    return count
