"""Undo of a change recorded by the streamed path: replay a reverse delta in one pass,
truncate an append, or put back a large file kept whole; the file's mtime comes back too.
"""

from __future__ import annotations

import errno
import os
from typing import Any

from filewright.core.result import fail
from filewright.engine.streamed import Outcome, append_mark, heal_torn_append
from filewright.engine.streamstages import Chain
from filewright.engine.workspace import Engine
from filewright.fs import bigfile
from filewright.fs.chunked import Reverse, StreamError, unpack_deltas
from filewright.fs.paths import Location
from filewright.state.index import Entry, stored_identity


def undo_large(engine: Engine, loc: Location, last: Entry, outcome: Outcome, dry_run: bool) -> None:
    """Undo `last` (a "delta", "truncate" or large "full" entry), with the lock held."""
    ws = engine.workspace
    rel = str(loc.real)
    path = loc.given
    with bigfile.open_file(loc) as src:
        size = src.size
        if last.kind == "truncate" and last.hash_after.startswith("append:"):
            if last.size_before <= size < last.size_after or size == last.size_before:
                # killed during or before the append: roll it back, it never completed
                if not dry_run:
                    heal_torn_append(engine, loc, size)
                outcome.extra["undone"] = last.to_dict()
                return
            current = append_mark(size, os.pread(src.fd, size - last.size_before, last.size_before))
        else:
            current = bigfile.identity(src.fd, src.st, ws.max_file_bytes)
        if current != last.hash_after:
            if _never_landed(last, src.st):
                # Killed after its history entry was written (write-ahead) and before its
                # rename: the file is as it was before the change; only forget the entry.
                outcome.extra["undone"] = last.to_dict()
                if dry_run:
                    outcome.dry_run = True
                else:
                    ws.history.pop(rel)
                return
            raise fail(
                "stale",
                path,
                message=f"file changed after its last recorded change; undo would lose that: {path}",
            )
        outcome.extra["undone"] = last.to_dict()
        outcome.extra["streamed"] = True
        if dry_run:
            outcome.dry_run = True
            return
        # The restored content's identity is recorded only for a file the engine has seen
        # read (its stale check); nobody else asks for it, so no pass hashes it otherwise.
        limit = ws.max_file_bytes if engine.last_read(loc) is not None else None
        if last.kind == "truncate":
            bigfile.truncate(loc, last.size_before, last.mtime_before or None)
            digest = None if limit is None else bigfile.identity_after(loc, limit)
            outcome.bytes_written = 0
        elif last.kind == "delta":
            stages = [
                Reverse(d) for d in reversed(unpack_deltas(ws.history.delta_bytes(rel, last)))
            ]
            digest = _replay(loc, src, stages, limit, last.mtime_before or None)
            outcome.bytes_written = last.size_before
        else:
            digest = _restore_full(loc, src, last, ws.history.backup_path(rel, last), limit)
            outcome.bytes_written = last.size_before
    if digest is not None:
        engine.record_read(loc, digest)
    ws.history.pop(rel)


def _never_landed(last: Entry, st: os.stat_result) -> bool:
    """The rewrite `last` recorded never replaced the file: it has the size and the
    modification time (nanoseconds) the file had before it. (A rename would have put a
    new file there, written after; undo gives a file back its old mtime, so this holds
    too under entries undone above it.)"""
    return (
        last.kind in ("delta", "full")
        and bool(last.mtime_before)
        and (st.st_size, st.st_mtime_ns) == (last.size_before, last.mtime_before)
    )


def _replay(
    loc: Location, src: bigfile.Opened, stages: list[Any], hash_limit: int | None, mtime: int | None
) -> str | None:
    """Write the file that `stages` make of `src` in its place; its identity up to
    `hash_limit` (None: not asked for)."""
    chain = Chain(stages)
    hashing = hash_limit is not None and src.size <= 2 * hash_limit
    with bigfile.Staged(loc, src.st, hashing=hashing) as staged:
        try:
            for chunk in bigfile.chunks(src.fd):
                staged.write(chain.feed(chunk))
            staged.write(chain.finish())
        except StreamError as exc:
            raise fail("io_error", loc.given, message=f"cannot undo: {exc.message}") from None
        staged.sync(mtime)
        digest = None if hash_limit is None else staged.identity(hash_limit)
        staged.commit()
    return digest


def _verify_kept(fd: int, loc: Location, last: Entry) -> None:
    """History owns its bytes: the kept copy must be the file history stored (same inode,
    size and mtime) and have no other name (a hard link elsewhere could have changed it,
    or could change it while it is copied back); anything else is refused."""
    st = os.fstat(fd)
    if (
        st.st_nlink != 1
        or st.st_size != last.size_before
        or (last.stored_id is not None and stored_identity(st) != last.stored_id)
    ):
        raise fail(
            "io_error",
            loc.given,
            message=f"cannot undo: the history's copy of {loc.given} changed after it was "
            "kept (or has another name); nothing was restored",
        )


def _restore_full(
    loc: Location, src: bigfile.Opened, last: Entry, path: os.PathLike[str], hash_limit: int | None
) -> str | None:
    """Copy the kept file at `path` back in place; its identity as in `_replay`."""
    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
    try:
        _verify_kept(fd, loc, last)
        with bigfile.Staged(loc, src.st, hashing=hash_limit is not None) as staged:
            for chunk in bigfile.chunks(fd):
                staged.write([chunk])
            staged.sync(last.mtime_before or None)
            digest = None if hash_limit is None else staged.identity(hash_limit)
            staged.commit()
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise fail(
                "io_error", loc.given, message="symlink in filewright's state directory"
            ) from None
        raise
    finally:
        os.close(fd)
    return digest
