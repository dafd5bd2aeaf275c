"""The stages of a streamed rewrite: each `Stream*` operation as a pure transform of
`fs.chunked` / `fs.chunklines`, several chained over one pass (`Chain`), and a sink that
only counts (for dry runs).

`Chain` is where a streamed result's size limit holds: it takes each stage's pieces one
at a time (transforms yield pieces of about `PIECE_BYTES`) and meters them
(`core.budget.Meter`) before passing them on, so a change whose result would pass the
limit stops with `budget.ResultTooLarge` a piece past it, whatever it multiplies."""

from __future__ import annotations

import contextlib
import re
from collections.abc import Iterable, Iterator
from typing import Any

from filewright.core import budget, regexes
from filewright.core.result import fail
from filewright.engine.streamops import (
    StreamBatch,
    StreamInsert,
    StreamRegex,
    StreamReplace,
    StreamSpan,
)
from filewright.fs.chunked import (
    PIECE_BYTES,
    Format,
    LiteralReplace,
    ReplaceAll,
    StreamError,
    self_overlapping,
)
from filewright.fs.chunklines import InsertAfterLine, RegexReplace, SpanReplace


def transforms(op: Any, fmt: Format, path: str) -> list[Any]:
    ops = op.ops if isinstance(op, StreamBatch) else (op,)
    out: list[Any] = []
    for one in ops:
        if isinstance(one, StreamReplace):
            old, new = fmt.encode(one.old), fmt.encode(one.new)
            if old == new:
                raise fail("no_change", path, message="old and new text are the same")
            limit = {"first": 1, "count": one.count}.get(one.mode)
            each = _each_match(one, fmt) if one.mode in ("all", "count") else None
            if isinstance(each, RegexReplace):
                out.append(each)
                continue
            if each is not None:  # one text for every match
                new = fmt.encode(each)
                if old == new:
                    raise fail("no_change", path, message="old and new text are the same")
            if one.mode == "all" and not self_overlapping(old):
                out.append(ReplaceAll(old, new))
            else:
                out.append(
                    LiteralReplace(
                        old, new, limit=limit, unique=one.mode == "unique", clear=one.first_at
                    )
                )
        elif isinstance(one, StreamRegex):
            out.append(
                RegexReplace(
                    one.pattern,
                    one.template,
                    fmt,
                    limit=one.count,
                    literal=one.literal,
                    finditer=lambda p, s, pos: regexes.finditer(p, s, pos),
                )
            )
        elif isinstance(one, StreamSpan):
            out.append(
                SpanReplace(
                    fmt.encode(one.start),
                    fmt.encode(one.end),
                    fmt,
                    _span_compute(one.compute),
                    after=fmt.encode(one.search_after or ""),
                )
            )
        elif isinstance(one, StreamInsert):
            text = one.text if one.text.endswith("\n") else one.text + "\n"
            if one.text == "":
                raise fail("no_change", path, message="nothing to insert")
            out.append(InsertAfterLine(one.line, fmt.encode(text), fmt.newline, len(fmt.bom)))
        else:
            raise TypeError(f"not a streamed operation: {one!r}")
    return out


# The lines a match may sit in, as (text before it on its line, a line end after it):
# when every one gets the same replacement, the replacement does not depend on them.
_PROBES = (
    ("", True),
    ("", False),
    ("  ", True),
    ("    ", True),
    ("        ", True),
    ("\t", True),
    ("\x01", True),
    ("\x01", False),
)


_LINE_AWARE_MAX_OLD = 1 << 18


def _each_match(one: StreamReplace, fmt: Format) -> RegexReplace | str | None:
    """For a replace-all with `adapt_each`: the one text every match gets, or a
    line-aware replace when the text depends on the line each match sits in (None:
    `one.new` as it is)."""
    adapt = one.adapt_each
    if adapt is None or len(one.old) > _LINE_AWARE_MAX_OLD:
        return None  # (a line-aware pass holds a match in a window of 1 MB)
    seen: dict[tuple[str, bool], Any] = {}

    def adapted(prefix: str, at_line_end: bool) -> Any:
        key = (prefix if not prefix.strip() else "\x01", at_line_end)
        found = seen.get(key)
        if found is None:
            found = seen[key] = adapt(*key)
        return found

    def replace_with(prefix: str, at_line_end: bool) -> str:
        found = adapted(prefix, at_line_end)
        if not isinstance(found, str):  # the in-memory rules refuse this match's change
            detail = {k: v for k, v in getattr(found, "detail", {}).items() if k != "closest"}
            raise StreamError(str(found.code), "the change cannot be carried", **detail)
        return found

    probes = [adapted(*probe) for probe in _PROBES]
    if all(isinstance(x, str) for x in probes) and len(set(probes)) == 1:
        return probes[0]
    pattern = re.compile(re.escape(fmt.decode(fmt.encode(one.old))))
    return RegexReplace(
        pattern,
        "",
        fmt,
        limit=one.count if one.mode == "count" else None,
        literal=True,
        replace_with=replace_with,
        same_old=fmt.encode(one.old),
        missing="old text not found (exact match)",
    )


def _span_compute(compute: Any) -> Any:
    def run(text: str) -> str:
        result = compute(text)
        if isinstance(result, str):
            return result
        if hasattr(result, "code") and hasattr(result, "detail"):
            raise StreamError(result.code, result.code, **dict(result.detail))
        return str(result.text)

    return run


class Chain:
    """Transforms run one after another over one stream (each sees the previous's output),
    lazily: `feed` and `finish` return the last stage's pieces as an iterator, which must
    be consumed before the next `feed`. Each stage's output is metered against `limit`
    bytes (None: no limit)."""

    def __init__(self, stages: list[Any], limit: int | None = None) -> None:
        self.stages = stages
        self.meters = [budget.Meter(limit) for _ in stages]

    def feed(self, chunk: bytes) -> Iterator[Any]:
        pieces: Iterable[Any] = (chunk,)
        for index in range(len(self.stages)):
            pieces = self._through(index, pieces, final=False)
        return iter(pieces)

    def finish(self) -> Iterator[Any]:
        pieces: Iterable[Any] = ()
        for index in range(len(self.stages)):
            pieces = self._through(index, pieces, final=True)
        return iter(pieces)

    def _through(self, index: int, pieces: Iterable[Any], *, final: bool) -> Iterator[Any]:
        stage, meter = self.stages[index], self.meters[index]
        with _naming_stage(index):
            for batch in _batches(pieces):
                for piece in stage.feed(batch):
                    meter.take(len(piece))
                    yield piece
            if final:
                for piece in stage.finish():
                    meter.take(len(piece))
                    yield piece


def _batches(pieces: Iterable[Any]) -> Iterator[bytes]:
    """Pieces joined into inputs of about `PIECE_BYTES` (a longer piece as it is)."""
    group: list[Any] = []
    size = 0
    for piece in pieces:
        if not len(piece):
            continue
        group.append(piece)
        size += len(piece)
        if size >= PIECE_BYTES:
            yield _bytes(group)
            group, size = [], 0
    if group:
        yield _bytes(group)


def _bytes(group: list[Any]) -> bytes:
    one = group[0] if len(group) == 1 else b"".join(group)
    return bytes(one) if isinstance(one, memoryview) else one


@contextlib.contextmanager
def _naming_stage(index: int) -> Any:
    """A failure of a chained stage names it (`edit_index`), as a batch in memory does."""
    try:
        yield
    except StreamError as exc:
        exc.detail.setdefault("edit_index", index)
        raise


class ByteCount:
    """A sink that only counts bytes (for dry runs)."""

    def __init__(self) -> None:
        self.size = 0

    def write(self, pieces: Iterable[Any]) -> None:
        self.size += sum(len(p) for p in pieces)
