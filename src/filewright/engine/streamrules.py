"""What a streamed replacement takes from the in-memory edit rules, without the file in
memory: its new text adapted to the lines around the match (`adapted`, with the diff of
those lines), and the refusal of omission placeholders the old file does not hold
(`placeholder_watch`, then `refuse_placeholders` after the pass)."""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Iterator
from typing import Any

from filewright.core.result import fail
from filewright.engine.diffs import unified_diff
from filewright.engine.streamops import StreamBatch, StreamRegex, StreamReplace
from filewright.fs import bigfile
from filewright.fs.chunked import (
    CONTEXT_BYTES,
    Format,
    LiteralReplace,
    Occurs,
    StreamError,
    first_match_context,
    head_format,
    self_overlapping,
)
from filewright.fs.chunklines import count_matches, text_lines
from filewright.fs.paths import Location
from filewright.fs.textfile import TextFileError, detect_encoding


def adapted(op: Any, fmt: Format, fd: int, path: str, rel: str) -> tuple[Any, str | None]:
    """`op` with a unique or first-match replacement's `adapt` applied: its new text as
    the in-memory edit makes it in the match's surroundings (the file read up to the first
    match); and the unified diff of those lines (None when `op` has no such form).
    Raises StreamError "no_match" when the file does not hold `old`."""
    if isinstance(op, StreamBatch) and len(op.ops) == 1:
        one, diff = adapted(op.ops[0], fmt, fd, path, rel)
        return (op if one is op.ops[0] else StreamBatch((one,))), diff
    if isinstance(op, StreamBatch):
        return _adapted_batch(op, fmt, fd, path), None
    context = _context(op, fmt, fd)
    if context is None:
        return op, None
    before, after = context.before, context.after
    new = op.adapt(before, after)
    if not isinstance(new, str):
        if op.mode == "unique":  # in memory a second match is reported first
            _refuse_if_ambiguous(fd, context.old)
        detail = _shift_lines(dict(getattr(new, "detail", {})), context.line - 1)
        raise fail(str(new.code), path, streamed=True, **detail)
    diff = None
    if before is not None and after is not None:
        old_text = _text(fmt, context.old)
        diff = unified_diff(
            before + old_text + after, before + new + after, rel, first_line=context.line
        )
    return (
        dataclasses.replace(
            op, new=new, adapt=None, first_at=context.offset, first_line=context.match_line
        ),
        diff,
    )


def _refuse_if_ambiguous(fd: int, old: bytes) -> None:
    """Raise the pass's StreamError "ambiguous" if the file holds `old` more than once."""
    counting = LiteralReplace(old, b"", unique=True)
    for chunk in bigfile.chunks(fd):
        for _ in counting.feed(chunk):
            pass


def _adapted_batch(op: StreamBatch, fmt: Format, fd: int, path: str) -> StreamBatch:
    """Each unique or first-match edit of a batch adapted to the lines around its match,
    read from the old file (one read up to each match) with the batch's earlier edits
    applied to them, as in memory each edit sees the text the previous ones left. An edit
    keeps its text when that cannot be told here: the old file does not hold it (an
    earlier edit may make it: the pass decides), an earlier edit is a regex or a counted
    one that reaches its lines, or changes its match or straddles it."""
    out: list[Any] = []
    firsts: list[int | None] = []  # where each earlier edit's first match is, if known
    for index, one in enumerate(op.ops):
        try:
            context = _context(one, fmt, fd)
        except StreamError:  # not in the old file: an earlier edit may make it
            context = None
        firsts.append(None if context is None else context.offset)
        if context is None or context.before is None or context.after is None:
            out.append(one)
            continue
        assert isinstance(one, StreamReplace)
        shown = _after_earlier(out, firsts, context, one.old)
        if shown is None:
            out.append(one)
            continue
        new = one.adapt(*shown)
        if not isinstance(new, str):
            detail = _shift_lines(dict(getattr(new, "detail", {})), context.line - 1)
            detail["edit_index"] = index
            raise fail(str(new.code), path, streamed=True, **detail)
        out.append(dataclasses.replace(one, new=new, adapt=None))
    return StreamBatch(tuple(out))


@dataclasses.dataclass(frozen=True)
class _Context:
    """The first match of `old` (the edit's old text in the file's bytes) in the old file:
    the whole lines around it (text, "\n" newlines; None for a side where the match's own
    line is too long to give), where they start (`start`: byte offset; `line`) and where
    the match is (`offset`)."""

    old: bytes
    before: str | None
    after: str | None
    line: int
    offset: int
    start: int
    match_line: int  # the line the match starts on (newlines counted as b"\n")


def _after_earlier(
    earlier: list[Any], firsts: list[int | None], context: _Context, old: str
) -> tuple[str, str] | None:
    """The lines around a match of `old` as the `earlier` edits of a batch leave them;
    None when that cannot be told."""
    before, after = context.before or "", context.after or ""
    for edit, first in zip(earlier, firsts, strict=False):
        if isinstance(edit, StreamRegex):
            return None
        if not isinstance(edit, StreamReplace):
            continue  # (an insert changes line numbers, not text)
        held = edit.old in before or edit.old in after
        if edit.old in old or (not held and edit.old in before + old + after):
            return None  # it changes the match itself, or straddles it
        if not held:
            continue
        if edit.mode == "all":
            before, after = before.replace(edit.old, edit.new), after.replace(edit.old, edit.new)
            continue
        if edit.mode == "first" and first is not None and first < context.start:
            continue  # its one match lies before these lines
        if edit.mode not in ("unique", "first") or first is None:
            return None  # counted, or where its match is is not known
        # its first match in the file is its first in these lines
        if edit.old in before:
            before = before.replace(edit.old, edit.new, 1)
        else:
            after = after.replace(edit.old, edit.new, 1)
    return before, after


def _context(one: Any, fmt: Format, fd: int) -> _Context | None:
    """Where the first match of an adaptable edit is in the old file, read up to it and
    the lines after (None: not adaptable, or its old text has no bytes in the file's
    encoding, which the pass reports). Raises StreamError "no_match" when the file does
    not hold it: what the pass would find, without a second read."""
    if (
        not isinstance(one, StreamReplace)
        or one.adapt is None
        or one.mode not in ("unique", "first")
    ):
        return None
    try:
        old = fmt.encode(one.old)
    except StreamError:
        return None
    if not old:
        return None
    found = first_match_context(bigfile.chunks(fd), old)
    if found is None:
        raise StreamError("no_match", "old text not found (exact match)", edit_index=0)
    before, after, line, offset = found
    return _Context(
        old,
        None if before is None else _text(fmt, before),
        None if after is None else _text(fmt, after),
        line,
        offset,
        offset - len(before or b""),
        line + (before or b"").count(b"\n"),
    )


def _shift_lines(detail: dict[str, Any], by: int) -> dict[str, Any]:
    """A failure's detail computed on an excerpt, with its line numbers (of the places it
    lists, e.g. `closest`) made the file's."""
    for key, value in detail.items():
        if isinstance(value, list):
            detail[key] = [
                {k: v + by if k in _LINE_KEYS and isinstance(v, int) else v for k, v in x.items()}
                if isinstance(x, dict)
                else x
                for x in value
            ]
    return detail


_LINE_KEYS = ("line", "start_line", "end_line")


def _text(fmt: Format, data: bytes) -> str:
    return fmt.decode(data).replace(fmt.newline.decode("ascii"), "\n")


def placeholder_watch(op: Any, fmt: Format, path: str) -> Occurs | None:
    """What to look for in the old file: the omission placeholders of replacements that
    the file may already hold (None: nothing). A replacement whose placeholders are
    refused whatever the file holds is refused here, before the pass."""
    needles: list[bytes] = []
    batch = isinstance(op, StreamBatch)
    for index, one in enumerate(op.ops if batch else (op,)):
        if not isinstance(one, (StreamReplace, StreamRegex)) or not one.placeholders:
            continue
        if one.refuse_placeholders_always:
            _refuse(list(one.placeholders), path, index if batch else None)
        for text in one.placeholders:
            try:
                needles.append(fmt.encode(text))
            except StreamError:
                continue  # (not encodable: the file cannot hold it)
    return Occurs(needles) if needles else None


def refuse_placeholders(op: Any, fmt: Format, missing: list[bytes], path: str) -> None:
    """Refuse the change if a replacement's placeholder is not in the old file."""
    batch = isinstance(op, StreamBatch)
    for index, one in enumerate(op.ops if batch else (op,)):
        if not isinstance(one, (StreamReplace, StreamRegex)):
            continue
        absent = []
        for text in one.placeholders:
            try:
                if fmt.encode(text) in missing:
                    absent.append(text)
            except StreamError:
                absent.append(text)
        if absent:
            _refuse(absent, path, index if batch else None)


def _refuse(placeholders: list[str], path: str, edit_index: int | None) -> None:
    where = {} if edit_index is None else {"edit_index": edit_index}
    raise fail(
        "placeholder",
        path,
        placeholder=placeholders[0],
        placeholders=placeholders,
        streamed=True,
        **where,
    )


LOCATIONS_SHOWN = 20
"""How many places a streamed ambiguity refusal lists (the count is of all of them)."""


def ambiguous_detail(op: Any, fmt: Format, fd: int, detail: dict[str, Any]) -> dict[str, Any]:
    """The detail of a streamed "ambiguous" refusal as the in-memory one has it: how many
    times the file holds the edit's old text (``count``) and where (``locations``, the
    first `LOCATIONS_SHOWN`), read from the old file (a batch's first edit only: a later
    one is matched against what the earlier ones leave)."""
    one = op
    if isinstance(op, StreamBatch):
        if detail.get("edit_index", 0) != 0 and len(op.ops) > 1:
            return detail
        one = op.ops[0]
    if not isinstance(one, StreamReplace):
        return detail
    try:
        old = fmt.encode(one.old)
    except StreamError:
        return detail
    if not old:
        return detail
    # every place old occurs, overlapping ones included, as the in-memory refusal counts
    overlaps = self_overlapping(old)
    detail["count"] = count_matches(bigfile.chunks(fd), old, overlapping=overlaps)
    if overlaps and detail["count"] != count_matches(bigfile.chunks(fd), old):
        detail["overlapping"] = True
    if one.describe is None:
        return detail
    shown: list[Any] = []
    pos, line = 0, 1  # where the next search starts: its offset and line
    o = _text(fmt, old)
    step = o[:1] if overlaps else o  # the next place may start one character on
    step_bytes = len(fmt.encode(step)) if overlaps else len(old)
    while len(shown) < LOCATIONS_SHOWN:
        # read from up to CONTEXT_BYTES before the search start: the lines before a match
        # next to the previous one are its context too, as in memory
        base = max(0, pos - CONTEXT_BYTES)
        base_line = line - os.pread(fd, pos - base, base).count(b"\n") if pos else 1
        found = first_match_context(bigfile.chunks(fd, base), old, skip=pos - base)
        if found is None:
            break
        before, after, first, offset = found
        b = "" if before is None else _text(fmt, before)
        start = base_line + first - 1
        at = b.count("\n") + 1
        shown += one.describe(
            # (its last line is the one its last character is on, as in memory)
            b + o + _text(fmt, after or b""),
            [(len(b), at, at + o.count("\n", 0, len(o) - 1))],
            start,
        )
        pos = base + offset + step_bytes
        line = start + at - 1 + step.count("\n")
    detail["locations"] = shown
    return detail


def file_lines(loc: Location) -> Iterator[str]:
    """The lines of the large text file at `loc`, read lazily: the content a refused
    streamed edit's seed texts are computed on (none when it cannot be read as text)."""
    try:
        with bigfile.open_file(loc) as opened:
            head = bigfile.head(opened.fd)
            fmt = head_format(head, lambda h: detect_encoding(h)[0])
            yield from text_lines(bigfile.chunks(opened.fd), fmt)
    except (OSError, StreamError, TextFileError, ValueError):
        return


def check_counts(op: Any, stages: list[Any], path: str, fmt: Format, fd: int) -> None:
    """Refuse (count_mismatch) a replacement whose `expected` count the pass did not find,
    with where the matches are."""
    ops = op.ops if isinstance(op, StreamBatch) else (op,)
    for index, (one, stage) in enumerate(zip(ops, stages, strict=True)):
        if not isinstance(one, StreamReplace) or one.expected is None:
            continue
        found, overlapping = stage.count, False
        old = fmt.encode(one.old)
        if found and self_overlapping(old) and index == 0:
            # an expected count counts every place, overlapping ones too (as in memory);
            # places that overlap cannot all be replaced, whatever the count
            every = count_matches(bigfile.chunks(fd), old, overlapping=True)
            overlapping, found = every != found, every
        if found == one.expected and not overlapping:
            continue
        detail: dict[str, Any] = {"edit_index": index}
        if found:  # where they are, as the in-memory refusal lists them
            detail = ambiguous_detail(op, fmt, fd, detail)
            detail.pop("count", None)
        if found == one.expected:
            raise fail(
                "ambiguous",
                path,
                message=f"old text found {found} times, overlapping",
                count=found,
                streamed=True,
                **detail,
            )
        raise fail(
            "count_mismatch",
            path,
            message=f"expected {one.expected} matches, found {found}",
            expected=one.expected,
            found=found,
            streamed=True,
            **detail,
        )
