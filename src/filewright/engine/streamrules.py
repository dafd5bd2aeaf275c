"""What a streamed replacement takes from the in-memory edit rules, without the file in
memory: its new text adapted to the lines around the match (`adapted`, with the diff of
those lines), and the refusal of omission placeholders the old file does not hold
(`placeholder_watch`, then `refuse_placeholders` after the pass)."""

from __future__ import annotations

import dataclasses
from typing import Any

from filewright.core.result import fail
from filewright.engine.diffs import unified_diff
from filewright.engine.streamops import StreamBatch, StreamRegex, StreamReplace
from filewright.fs import bigfile
from filewright.fs.chunked import Format, Occurs, StreamError, first_match_context


def adapted(op: Any, fmt: Format, fd: int, path: str, rel: str) -> tuple[Any, str | None]:
    """`op` with a unique or first-match replacement's `adapt` applied: its new text as
    the in-memory edit makes it in the match's surroundings (the file read up to the first
    match); and the unified diff of those lines (None when `op` has no such form).
    Raises StreamError "no_match" when the file does not hold `old`."""
    if isinstance(op, StreamBatch) and len(op.ops) == 1:
        one, diff = adapted(op.ops[0], fmt, fd, path, rel)
        return (op if one is op.ops[0] else StreamBatch((one,))), diff
    if not isinstance(op, StreamReplace) or op.adapt is None or op.mode not in ("unique", "first"):
        return op, None
    try:
        old = fmt.encode(op.old)
    except StreamError:
        return op, None  # (the pass reports it)
    if not old:
        return op, None
    found = first_match_context(bigfile.chunks(fd), old)
    if found is None:  # what the pass would find, without a second read
        raise StreamError("no_match", "old text not found (exact match)", edit_index=0)
    before, after = (None if side is None else _text(fmt, side) for side in found[:2])
    new = op.adapt(before, after)
    if not isinstance(new, str):
        detail = _shift_lines(dict(getattr(new, "detail", {})), found[2] - 1)
        raise fail(str(new.code), path, streamed=True, **detail)
    diff = None
    if before is not None and after is not None:
        old_text = _text(fmt, old)
        diff = unified_diff(
            before + old_text + after, before + new + after, rel, first_line=found[2]
        )
    return dataclasses.replace(op, new=new, adapt=None), diff


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
