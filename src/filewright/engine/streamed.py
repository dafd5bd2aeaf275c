"""The change pipeline for large files: streamed, in one pass, with bounded memory.

`pipeline.apply_change` sends a change here when it carries a `streamed` form (one of
the `Stream*` operations below) and the file is larger than the workspace's
`stream_above_bytes`. The steps are the pipeline's own (policy, read-before-write and
stale checks, confirmation, lock, write-ahead history, atomic replace, ledger), but the
file is never held in memory: the pure transforms of `fs.chunked` turn the old file's
chunks into the new file's, written to a temporary file that replaces the old one; an
append writes in place (O_APPEND + fsync) and is undone by truncation. Matching is exact
(no recovery ladder); undo history keeps a reverse delta, not a copy.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import stat
from typing import Any

from filewright.core import budget, regexes
from filewright.core.result import fail
from filewright.engine.confirm import confirm_change
from filewright.engine.sidecar import sidecar_backup
from filewright.engine.streamops import (
    EXACT_ONLY_NOTE,
    TOO_LARGE_ADVICE,
    StreamAppend,
    StreamBatch,
    StreamInsert,
    StreamOp,
    StreamRegex,
    StreamReplace,
    StreamSpan,
    StreamWrite,
    describe,
)
from filewright.engine.streamrules import (
    adapted,
    ambiguous_detail,
    check_counts,
    placeholder_watch,
    refuse_placeholders,
)
from filewright.engine.streamstages import ByteCount, Chain, transforms
from filewright.engine.workspace import Engine
from filewright.fs import bigfile, fsio
from filewright.fs.chunked import (
    Format,
    ReplaceAll,
    StreamError,
    head_format,
    pack_deltas,
)
from filewright.fs.paths import Location, PathRefused
from filewright.fs.textfile import TextFileError, detect_encoding
from filewright.policy.rules import Access, risk_of
from filewright.state.index import Entry
from filewright.state.locks import file_lock

# `pipeline.Change` and `pipeline.Outcome` (not imported: the pipeline imports this).
Change = Any
Outcome = Any
__all__ = [
    "StreamAppend",
    "StreamBatch",
    "StreamInsert",
    "StreamOp",
    "StreamRegex",
    "StreamReplace",
    "StreamSpan",
    "StreamWrite",
    "apply_streamed",
    "should_stream",
    "too_large",
]


def should_stream(
    engine: Engine, change: Change, loc: Location, st: os.stat_result | None = None
) -> int | None:
    """The file's size when `change` goes through this module (else None); `st`: the
    entry's stat, taken by the caller in this call (else it is taken here)."""
    if change.streamed is None or not loc.exists:
        return None
    if st is None:
        try:
            st = fsio.stat_entry(loc)  # (one stat: a small file's change opens it once, to load)
        except OSError:
            return None  # the ordinary path reports what is wrong
    if not stat.S_ISREG(st.st_mode):
        return None  # (likewise)
    return st.st_size if st.st_size > stream_threshold(engine, change) else None


def stream_threshold(engine: Engine, change: Change) -> int:
    """The size above which `change` streams: its own, else the workspace's."""
    if change.stream_above is not None:
        return int(change.stream_above)
    return int(engine.workspace.stream_above_bytes)


def too_large(path: str, size: int, limit: int) -> Exception:
    """The one refusal for a file above the workspace's `max_change_bytes`."""
    return fail(
        "too_large",
        path,
        message=f"file is too large to change: {size} bytes (limit {limit} bytes); "
        + TOO_LARGE_ADVICE,
        size=size,
        limit=limit,
        advice=TOO_LARGE_ADVICE,
    )


def apply_streamed(
    engine: Engine, loc: Location, access: Access, change: Change, outcome: Outcome
) -> None:
    """Run `change` (with its `streamed` form) on the large file at `loc`."""
    ws = engine.workspace
    op = change.streamed
    dry_run = change.dry_run or ws.dry_run
    outcome.created = False
    outcome.risk = risk_of(change.operation, True)
    outcome.extra.update(streamed=True, mode="streaming")
    approved = None  # the identity of the bytes the approved diff came from
    if (access == Access.CONFIRM or change.confirm) and not dry_run:
        approved = _confirm(engine, loc, change, outcome, op)
    with file_lock(ws.state_dir, str(loc.real)), bigfile.open_file(loc) as opened:
        src = opened
        if heal_torn_append(engine, loc, src.size) != src.size:
            src = bigfile.Opened(src.fd, os.fstat(src.fd))
        if src.size > ws.max_change_bytes:
            raise too_large(change.path, src.size, ws.max_change_bytes)
        fmt = _format(change.path, src.fd)
        outcome.encoding = fmt.encoding + ("-sig" if fmt.bom else "")
        # (hashed only when something compares it: up to max_file_bytes that is a pass)
        current = _Identity(src, ws.max_file_bytes)
        if approved is not None and approved != current():
            # What was approved was a change to other bytes: applied here it would land
            # elsewhere in the new content.
            raise fail(
                "stale",
                change.path,
                message=f"file changed while waiting for confirmation: {change.path}",
            )
        _check_reads(engine, loc, change, current)
        outcome.extra["size_before"] = src.size
        if isinstance(op, StreamAppend):
            _append(engine, loc, change, outcome, fmt.encode(op.text), src, dry_run)
        elif isinstance(op, StreamWrite):
            _write(engine, loc, change, outcome, fmt, op, src, dry_run)
        else:
            _rewrite(engine, loc, change, outcome, fmt, op, src, dry_run)


def _format(path: str, fd: int) -> Format:
    def detect(head: bytes) -> str:
        try:
            return detect_encoding(head)[0]
        except TextFileError as exc:
            raise StreamError(exc.code, exc.detail) from None

    try:
        return head_format(bigfile.head(fd), detect)
    except StreamError as exc:
        raise fail(exc.code, path, message=exc.message, **exc.detail) from None


class _Identity:
    """The identity of the opened file (`bigfile.identity`), computed on first use."""

    def __init__(self, src: bigfile.Opened, hash_limit: int) -> None:
        self.src, self.hash_limit = src, hash_limit
        self.value: str | None = None

    def __call__(self) -> str:
        if self.value is None:
            self.value = bigfile.identity(self.src.fd, self.src.st, self.hash_limit)
        return self.value


def _check_reads(engine: Engine, loc: Location, change: Change, current: _Identity) -> None:
    seen = engine.last_read(loc)
    if change.require_read and seen is None:
        raise fail("not_read", change.path, message=f"file has not been read yet: {change.path}")
    if change.expected_hash is not None and change.expected_hash != current():
        raise fail(
            "stale",
            change.path,
            message=f"file changed since it was read: {change.path}",
            expected_hash=change.expected_hash,
            actual_hash=current(),
        )
    if change.check_stale and seen is not None and seen != current():
        raise fail(
            "stale", change.path, message=f"file was modified since it was last read: {change.path}"
        )


def _confirm(
    engine: Engine, loc: Location, change: Change, outcome: Outcome, op: Any
) -> str | None:
    """Ask for the change, showing the diff of the lines around a unique or first-match
    replacement (else a description of the change). Returns the identity of the bytes the
    diff was computed from (None: the file could not be opened), which the change must
    find under the lock."""
    diff = None
    shown = None
    with contextlib.suppress(OSError), bigfile.open_file(loc) as opened:
        shown = bigfile.identity(opened.fd, opened.st, engine.workspace.max_file_bytes)
        fmt = _format(change.path, opened.fd)
        try:
            diff = adapted(op, fmt, opened.fd, change.path, loc.lexical_rel)[1]
        except StreamError as exc:  # nothing to ask about: it would fail
            raise _stream_failure(exc, change.path, stream_threshold(engine, change)) from None
    outcome.diff = diff if diff is not None else describe(op, loc.lexical_rel)
    confirm_change(engine, loc, change.path, change.operation, outcome.diff, outcome.risk, False)
    return shown


# --------------------------------------------------------------------------- append


def _append(
    engine: Engine,
    loc: Location,
    change: Change,
    outcome: Outcome,
    data: bytes,
    src: bigfile.Opened,
    dry_run: bool,
) -> None:
    ws = engine.workspace
    size, mtime = src.size, src.st.st_mtime_ns
    outcome.replacements = 1 if data else 0
    outcome.strategy = "append"
    outcome.diff = describe(StreamAppend(data.decode(errors="replace")), loc.lexical_rel)
    if dry_run:
        outcome.dry_run = True
        outcome.bytes_written = len(data)
        return
    if not data:
        raise fail("no_change", change.path, message="nothing to append")
    rel = str(loc.real)
    entry = None
    if change.backup:
        # Write-ahead: the entry names the append before it happens; a crash between
        # the two leaves an entry undo recognises (the file still has its old size).
        entry = ws.history.record_large(
            rel,
            change.operation,
            append_mark(size + len(data), data),
            kind="truncate",
            size_before=size,
            size_after=size + len(data),
            mtime_before=mtime,
        )
    try:
        bigfile.append(loc, data)
    except BaseException:
        if entry is not None:
            with contextlib.suppress(OSError):
                bigfile.truncate(loc, size, mtime)
            ws.history.pop(rel)
        raise
    digest = bigfile.identity_after(loc, ws.max_file_bytes)
    if entry is not None:
        ws.history.amend_last(rel, digest)
    _finish(engine, loc, outcome, digest, len(data))
    outcome.changed_lines = None


def append_mark(size_after: int, data: bytes) -> str:
    """The identity an append's entry holds until the append is done: its size after
    and the hash of the appended bytes (what undo checks when the process died between)."""

    return f"append:{size_after}:{hashlib.sha256(data).hexdigest()}"


def heal_torn_append(engine: Engine, loc: Location, size: int) -> int:
    """Roll back an append that a killed process left half-written: the last entry is
    an append never confirmed, and the file is longer than before it but shorter than
    after it. Returns the size of the file afterwards."""
    ws = engine.workspace
    rel = str(loc.real)
    entries = ws.history.entries(rel)
    if not entries:
        return size
    last = entries[-1]
    if last.kind != "truncate" or not last.hash_after.startswith("append:"):
        return size
    if last.size_before < size < last.size_after:
        bigfile.truncate(loc, last.size_before, last.mtime_before or None)
        ws.history.pop(rel)
        return last.size_before
    if size == last.size_before:
        ws.history.pop(rel)  # the append never happened
    return size


# --------------------------------------------------------------------------- whole write


def _write(
    engine: Engine,
    loc: Location,
    change: Change,
    outcome: Outcome,
    fmt: Format,
    op: StreamWrite,
    src: bigfile.Opened,
    dry_run: bool,
) -> None:
    ws = engine.workspace
    try:
        data = fmt.bom + fmt.encode(op.text)
    except StreamError as exc:
        raise fail(exc.code, change.path, message=exc.message) from None
    outcome.strategy = "write"
    outcome.diff = describe(op, loc.lexical_rel)
    if dry_run:
        outcome.dry_run = True
        outcome.bytes_written = len(data)
        return
    if len(data) == src.size and _same_bytes(src.fd, data):
        outcome.bytes_written = 0
        return  # the file already holds exactly this
    rel = str(loc.real)
    with bigfile.Staged(loc, src.st) as staged:
        staged.write([data])
        _check_unchanged(loc, src, change.path)
        staged.sync()
        digest = staged.identity(ws.max_file_bytes)
        _sidecar(engine, loc, change, outcome, src)
        entry = None
        if change.backup:
            entry = ws.history.record_large(
                rel,
                change.operation,
                digest,
                kind="full",
                size_before=src.size,
                size_after=len(data),
                store=lambda dfd, name: _keep_old(loc, src, dfd, name, 0o600),
                mtime_before=src.st.st_mtime_ns,
            )
            _note_history(ws, outcome, entry, src.size)
        try:
            staged.commit()
        except BaseException:
            if entry is not None:
                ws.history.pop(rel)
            raise
    _finish(engine, loc, outcome, digest, len(data))


def _check_unchanged(loc: Location, src: bigfile.Opened, path: str) -> None:
    """Another program (which does not take filewright's lock) may have written the file,
    or put a new one in its place, since it was opened: then nothing is written."""
    now = os.fstat(src.fd)
    try:
        named: os.stat_result | None = fsio.stat_entry(loc)
    except (FileNotFoundError, PathRefused):
        named = None
    same = (now.st_size, now.st_mtime_ns) == (src.st.st_size, src.st.st_mtime_ns)
    if not same or named is None or (named.st_ino, named.st_dev) != (now.st_ino, now.st_dev):
        raise fail("stale", path, message=f"file changed while it was being changed: {path}")


def _sidecar(
    engine: Engine, loc: Location, change: Change, outcome: Outcome, src: bigfile.Opened
) -> None:
    """The visible backup a change asks for (`Change.sidecar_backup`), as a hard link to
    the old file where possible: it costs nothing at any size."""
    if not (change.sidecar_backup and change.backup):
        return

    def store(target: Location, mode: int) -> None:
        # Through a directory descriptor: a backup directory swapped for a link after the
        # check cannot send the link (or copy) elsewhere.
        parts = target.rel.split("/")
        with fsio.open_dir(target.root, parts[:-1]) as dst_dir:
            _keep_old(loc, src, dst_dir, parts[-1], mode)

    outcome.backup = sidecar_backup(engine, loc, change.sidecar_backup, store)


def _same_bytes(fd: int, data: bytes) -> bool:
    pos = 0
    for chunk in bigfile.chunks(fd):
        if data[pos : pos + len(chunk)] != chunk:
            return False
        pos += len(chunk)
    return pos == len(data)


def _keep_old(loc: Location, src: bigfile.Opened, dst_dir: int, dst_name: str, mode: int) -> int:
    """Keep the old bytes as `dst_name` in directory `dst_dir` (the history's, or a sidecar
    backup's): a hard link to the old file (which the rename then leaves only there), else
    a copy (`bigfile.keep_at`). Returns the bytes kept."""
    parts = loc.rel.split("/")
    with fsio.open_dir(loc.root, parts[:-1]) as src_dir:
        return bigfile.keep_at(src, src_dir, parts[-1], dst_dir, dst_name, mode)


# --------------------------------------------------------------------------- rewrite


def _rewrite(
    engine: Engine,
    loc: Location,
    change: Change,
    outcome: Outcome,
    fmt: Format,
    op: Any,
    src: bigfile.Opened,
    dry_run: bool,
) -> None:
    ws = engine.workspace
    try:
        op, diff = adapted(op, fmt, src.fd, change.path, loc.lexical_rel)
    except StreamError as exc:
        transforms(op, fmt, change.path)  # (its own refusals come first, as in the pass)
        if exc.code == "ambiguous":
            exc.detail = ambiguous_detail(op, fmt, src.fd, dict(exc.detail))
        raise _stream_failure(exc, change.path, stream_threshold(engine, change)) from None
    stages = transforms(op, fmt, change.path)
    limit = result_limit(ws, src.size)
    chain = Chain(stages, limit)
    outcome.diff = diff if diff is not None else describe(op, loc.lexical_rel)
    sink: Any
    with contextlib.ExitStack() as stack:
        if dry_run:
            sink = ByteCount()
        else:
            sink = stack.enter_context(
                bigfile.Staged(loc, src.st, hashing=src.size <= 2 * ws.max_file_bytes)
            )
        where = _FirstChange(stages[0], _first_line(op))
        watch = placeholder_watch(op, fmt, change.path)
        try:
            for chunk in bigfile.chunks(src.fd):
                if watch is not None:
                    watch.see(chunk)
                sink.write(chain.feed(chunk))
                where.passed(chunk)
            sink.write(chain.finish())
            where.passed(b"")
        except StreamError as exc:
            if exc.code == "ambiguous":
                exc.detail = ambiguous_detail(op, fmt, src.fd, dict(exc.detail))
            raise _stream_failure(exc, change.path, stream_threshold(engine, change)) from None
        except budget.ResultTooLarge as exc:
            raise _result_too_large(change.path, exc, src.size) from None
        except regexes.RegexTimeout as exc:
            pattern = getattr(getattr(op, "pattern", None), "pattern", None)
            raise fail(
                "invalid_regex", change.path, message=str(exc), error=str(exc), pattern=pattern
            ) from None
        if watch is not None and watch.missing:
            refuse_placeholders(op, fmt, watch.missing, change.path)
        check_counts(op, stages, change.path, fmt, src.fd)
        outcome.replacements = sum(getattr(s, "count", 1) for s in stages)
        outcome.strategy = "exact" if not isinstance(op, StreamInsert) else "insert"
        outcome.extra["note"] = EXACT_ONLY_NOTE.format(limit=stream_threshold(engine, change))
        if where.line is not None:
            outcome.changed_lines = (where.line, where.line)
        if dry_run:
            outcome.dry_run = True
            outcome.bytes_written = sink.size
            return
        if not any(getattr(s, "changed", True) for s in stages):
            outcome.bytes_written, outcome.hash = 0, None
            return  # every match replaced by the same bytes: nothing to write or undo
        _check_unchanged(loc, src, change.path)
        sink.sync()
        digest = sink.identity(ws.max_file_bytes)
        _sidecar(engine, loc, change, outcome, src)
        rel = str(loc.real)
        if change.backup:
            entry = ws.history.record_large(
                rel,
                change.operation,
                digest,
                kind="delta",
                size_before=src.size,
                size_after=sink.size,
                delta=pack_deltas([s.delta for s in stages]),
                mtime_before=src.st.st_mtime_ns,
            )
            _note_history(ws, outcome, entry, src.size)
        try:
            sink.commit()
        except BaseException:
            if change.backup and outcome.extra.get("history") != "skipped":
                ws.history.pop(rel)
            raise
    _finish(engine, loc, outcome, digest, sink.size)


def result_limit(ws: Any, size: int) -> int:
    """The largest result a streamed change of a `size`-byte file may make: at most
    `max_file_bytes` more than the file (what an in-memory change may write in all), and
    never past `max_change_bytes`."""
    return min(int(ws.max_change_bytes), size + int(ws.max_file_bytes))


def _result_too_large(path: str, exc: budget.ResultTooLarge, size: int) -> Exception:
    return fail(
        "too_large",
        path,
        message=f"the new content would be more than {exc.budget} bytes (the file has {size} "
        f"bytes; a change may add at most {exc.budget - size}); nothing was changed",
        size=exc.size,
        limit=exc.budget,
        streamed=True,
    )


class _FirstChange:
    """The line of the first change, counted in the old file's chunks as they pass (a
    replace-all, which changes lines everywhere, is not counted)."""

    def __init__(self, stage: Any, line: int | None = None) -> None:
        self.stage = stage
        self.line: int | None = line  # (known already: nothing to count)
        self._lines = 1
        self._base = 0
        self._prev = b""
        self._off = isinstance(stage, ReplaceAll)

    def passed(self, chunk: bytes) -> None:
        if self._off or self.line is not None:
            return
        gaps = self.stage.delta.gaps
        if len(gaps):
            first = gaps[0]
            if first < self._base:  # in the held-back end of the previous chunk
                before = self._base - len(self._prev)
                self.line = self._lines - self._prev.count(b"\n", first - before)
            else:
                self.line = self._lines + chunk.count(b"\n", 0, first - self._base)
            return
        self._lines += chunk.count(b"\n")
        self._base += len(chunk)
        self._prev = chunk


def _first_line(op: Any) -> int | None:
    """The line of a unique or first-match replacement's match, when the read that
    adapted it found it (then it is the first change)."""
    if isinstance(op, StreamBatch) and len(op.ops) == 1:
        op = op.ops[0]
    return op.first_line if isinstance(op, StreamReplace) else None


def _stream_failure(exc: StreamError, path: str, limit: int) -> Exception:
    detail = dict(exc.detail)
    if exc.code == "no_match":
        detail.update(
            strategies_tried=["exact"],
            closest=[],
            streamed=True,
            note=EXACT_ONLY_NOTE.format(limit=limit),
        )
        return fail("no_match", path, message=f"{exc.message}; " + detail["note"], **detail)
    if exc.code == "ambiguous":
        detail.setdefault("locations", [])
        detail.update(streamed=True, strategy="exact")
    return fail(exc.code, path, message=exc.message, **detail)


def _note_history(ws: Any, outcome: Outcome, entry: Entry | None, size: int) -> None:
    if entry is None:
        outcome.extra["history"] = "skipped"
        outcome.extra["history_note"] = (
            f"undo is not available for this change: what it needs ({size} bytes or more) "
            f"exceeds the history limit ({ws.history.max_bytes} bytes)"
        )
    if ws.history.last_pruned:
        outcome.extra["history_pruned"] = ws.history.last_pruned


def _finish(engine: Engine, loc: Location, outcome: Outcome, digest: str, size: int) -> None:
    outcome.hash = digest
    outcome.bytes_written = size
    if engine.last_read(loc) is not None:
        engine.record_read(loc, digest)
