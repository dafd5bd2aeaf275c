"""The one pipeline every change goes through.

resolve → policy → load → compute → preview → confirm → commit → record → result.

`compute` is a pure function of the old text ("\\n" newlines; None when the file does not
exist) returning the new text, an `Edited`, or an `EditFailure`. Nothing is written
unless every step before commit succeeded; a failure anywhere is returned as a value.
"""

from __future__ import annotations

import errno
import functools
import os
from dataclasses import dataclass

from filewright.core import budget
from filewright.core.result import Failure, OperationFailed, fail
from filewright.engine.change import Change, Outcome
from filewright.engine.confirm import confirm_change
from filewright.engine.diffs import changed_lines, is_clipped, unified_diff
from filewright.engine.sidecar import sidecar_backup
from filewright.engine.workspace import Engine
from filewright.fs import fsio
from filewright.fs.paths import PATH_MAX, Location, PathRefused
from filewright.fs.textencode import encode
from filewright.fs.textfile import TextFile, TextFileError, content_hash, normalise_newlines
from filewright.policy.rules import Access, risk_of
from filewright.state import trash
from filewright.state.locks import LockTimeout, file_lock


def _run_compute(change: Change, old: str | None, outcome: Outcome, limit: int) -> str:
    with budget.limit(limit):
        result = change.compute(old)
    if isinstance(result, str):
        return result
    if hasattr(result, "code") and hasattr(result, "detail"):
        raise OperationFailed(Failure(result.code, change.path, dict(result.detail)))
    outcome.replacements = getattr(result, "replacements", 0)
    outcome.strategy = getattr(result, "strategy", None)
    lines = getattr(result, "changed_lines", None)
    if lines:
        outcome.changed_lines = tuple(lines)  # type: ignore[assignment]
    return result.text


def apply_change(engine: Engine, change: Change) -> Outcome:
    """Run `change` through the pipeline; never raises for expected failures."""
    outcome = Outcome(ok=False)
    try:
        _apply(engine, change, outcome)
        outcome.ok = True
    except OperationFailed as exc:
        outcome.ok = False
        outcome.failure = exc.failure
    except LockTimeout as exc:
        outcome.failure = Failure(
            "busy",
            change.path,
            # The holder names itself just after taking the lock; one caught in between is
            # named by what this change would have done.
            {
                "message": "file is locked by another process",
                "operation": exc.holder or change.operation,
            },
        )
    except PathRefused as exc:
        outcome.failure = Failure(exc.code, change.path, {"message": exc.detail})
    except PermissionError:
        outcome.failure = Failure(
            "permission", change.path, {"message": f"permission denied: {change.path}"}
        )
    except FileNotFoundError:
        outcome.failure = Failure(
            "parent_missing",
            change.path,
            {"message": f"parent directory does not exist: {change.path}"},
        )
    except OSError as exc:
        outcome.failure = Failure(
            "io_error",
            change.path,
            {
                "message": f"{exc.strerror or exc}: {change.path}",
                "errno": errno.errorcode.get(exc.errno or 0, ""),
            },
        )
    return outcome


def _load_current(
    engine: Engine, loc: Location, change: Change
) -> tuple[TextFile | None, fsio.FileState | None]:
    try:
        tf, state = engine.load_text(loc, max_bytes=change.max_bytes)
        return tf, state
    except OperationFailed as exc:
        if exc.failure.code == "not_found":
            return None, None
        if exc.failure.code in ("binary", "undecodable") and change.encoder is not None:
            # The change brings its own bytes (claude Write with `encoding`, e.g. base64
            # over an image): the old file is bytes, shown as no text in the diff.
            state = engine.read_bytes(loc, max_bytes=change.max_bytes)
            raw = state.data
            return TextFile(raw, "", "binary", b"", "\n", (), content_hash(raw)), state
        raise


def _apply(engine: Engine, change: Change, outcome: Outcome) -> None:
    """The pipeline, top-down: each step is a function below, none calls back up."""
    loc, access, st = _resolve(engine, change, outcome)
    if change.streamed is not None and loc.exists:
        # deferred: the streamed-change engine, for a large file's change only (a small file's
        # change and every read load none of it: tests/test_cli_fastpath.py)
        from filewright.engine import streamed

        if streamed.should_stream(engine, change, loc, st) is not None:
            streamed.apply_streamed(engine, loc, access, change, outcome)
            return
    dry_run = change.dry_run or engine.workspace.dry_run
    needs_confirm = access == Access.CONFIRM or change.confirm
    staged = _load_and_compute(engine, loc, change, outcome, exists=loc.exists)
    try:
        _check_reads(engine, loc, change, staged.current)
    except OperationFailed as exc:
        # A concurrent change by the same agent may be between its write and its ledger
        # update; staleness is decided again under the lock (at once when a person would
        # be asked to confirm, or for a dry run).
        if exc.failure.code != "stale" or needs_confirm or dry_run:
            raise
    _preview(loc, change, staged, outcome)
    if dry_run:
        outcome.dry_run = True
        outcome.bytes_written = len(staged.data)
        return
    if needs_confirm:
        _confirm(engine, loc, change, outcome)
    timeout = {} if change.lock_timeout is None else {"timeout": change.lock_timeout}
    with file_lock(
        engine.workspace.state_dir, str(loc.real), operation=change.operation, **timeout
    ):
        staged = _recheck_under_lock(engine, loc, change, staged, outcome, needs_confirm)
        _commit(engine, loc, change, staged, outcome)


@dataclass
class _Staged:
    """The file as loaded and the change computed from it."""

    current: TextFile | None
    new_text: str
    data: bytes


def _resolve(
    engine: Engine, change: Change, outcome: Outcome
) -> tuple[Location, Access, os.stat_result | None]:
    """Step 1-2: the path in the sandbox, its policy verdict, the change's preconditions;
    with the file's stat as the writability check saw it (None: not checked)."""
    loc, access = engine.locate(change.path, purpose="write", expect="file")
    outcome.loc = loc
    if loc.exists and change.must_not_exist:
        raise fail("exists", change.path, message=f"file already exists: {change.path}")
    if not loc.exists and change.must_exist:
        raise fail("not_found", change.path, message=f"file not found: {change.path}")
    if not loc.exists and not change.create_parents and not fsio.parent_exists(loc):
        raise fail(
            "parent_missing",
            change.path,
            message=f"parent directory does not exist: {loc.path.parent}",
        )
    st = None
    if loc.exists:
        st = fsio.check_writable(loc, allow_read_only=change.allow_read_only)
    return loc, access, st


def _load_and_compute(
    engine: Engine, loc: Location, change: Change, outcome: Outcome, *, exists: bool
) -> _Staged:
    """Step 3-4: load the file as it is now and compute the bytes to write."""
    current, _state = _load_current(engine, loc, change) if exists else (None, None)
    if current is not None and change.must_not_exist:
        raise fail("exists", change.path, message=f"file already exists: {change.path}")
    if current is None and change.must_exist:
        raise fail("not_found", change.path, message=f"file not found: {change.path}")
    old_text = current.text if current else None
    limit = change.max_bytes if change.max_bytes is not None else engine.workspace.max_file_bytes
    new_text = _run_compute(change, old_text, outcome, limit)
    new_text_for_disk = new_text if current is None else normalise_newlines(new_text)
    base = current
    if change.newline is not None and current is None:
        new_text_for_disk = normalise_newlines(new_text).replace("\n", change.newline)
    elif change.newline is not None and current is not None:
        eols = tuple(change.newline if e else "" for e in current.eols)
        base = current.replace(newline=change.newline, eols=eols)
    try:
        if change.encoder is not None:
            data = change.encoder(new_text)
        else:
            data = encode(base, new_text_for_disk, encoding=change.encoding)
    except (TextFileError, LookupError, ValueError) as exc:
        raise fail("unencodable", change.path, message=str(exc)) from None
    if len(data) > limit:
        raise fail(
            "too_large",
            change.path,
            size=len(data),
            limit=limit,
            message=f"the new content would be {len(data)} bytes (limit {limit} bytes); "
            "nothing was changed",
        )
    outcome.old_text = old_text
    outcome.new_text = normalise_newlines(new_text)
    return _Staged(current, outcome.new_text, data)


def _check_reads(engine: Engine, loc: Location, change: Change, current: TextFile | None) -> None:
    """Stale-read protection: the agent read the file, and it has not changed since."""
    if current is None:
        return
    seen = engine.last_read(loc)
    if change.require_read and seen is None:
        raise fail("not_read", change.path, message=f"file has not been read yet: {change.path}")
    if change.expected_hash is not None and change.expected_hash != current.hash:
        raise fail(
            "stale",
            change.path,
            message=f"file changed since it was read: {change.path}",
            expected_hash=change.expected_hash,
            actual_hash=current.hash,
        )
    if change.check_stale and seen is not None and seen != current.hash:
        raise fail(
            "stale",
            change.path,
            message=f"file was modified since it was last read: {change.path}",
        )


def _preview(loc: Location, change: Change, staged: _Staged, outcome: Outcome) -> None:
    """Step 5: the diff, risk, changed lines and encoding of the computed change."""
    current = staged.current
    outcome.created = current is None
    outcome.risk = risk_of(change.operation, current is not None)
    outcome.diff = unified_diff(current.text if current else "", staged.new_text, loc.lexical_rel)
    if outcome.changed_lines is None and current is not None:
        outcome.changed_lines = changed_lines(current.text, staged.new_text)
    outcome.encoding = current.encoding_label if current else (change.encoding or "utf-8")


def _confirm(engine: Engine, loc: Location, change: Change, outcome: Outcome) -> None:
    """Step 6: ask whoever confirms; refuse when nobody can be asked or they decline."""
    confirm_change(
        engine, loc, change.path, change.operation, outcome.diff, outcome.risk, outcome.created
    )


def _recheck_under_lock(
    engine: Engine,
    loc: Location,
    change: Change,
    staged: _Staged,
    outcome: Outcome,
    needs_confirm: bool,
) -> _Staged:
    """Step 7a: another process may have changed the file meanwhile: compute again (a
    confirmed change whose diff would differ is refused) and re-check the reads."""
    confirmed_diff = outcome.diff
    if staged.current is not None and len(str(loc.real)) < _SURELY_UNDER_PATH_MAX:
        # It existed: read it as it is now, by descriptors (gone: asked as below).
        now = _raw_now(engine, loc, change)
        exists = now is not None or _exists(loc)
    else:
        exists = _exists(loc)
        now = _raw_now(engine, loc, change) if exists else None
    if now != (staged.current.raw if staged.current else None):
        # Loaded as it is now: a file another process created meanwhile is not overwritten
        # as if it were still missing.
        staged = _load_and_compute(engine, loc, change, outcome, exists=exists)
        _check_reads(engine, loc, change, staged.current)
        current = staged.current
        diff = unified_diff(current.text if current else "", staged.new_text, loc.lexical_rel)
        # A diff cut at its limit does not show everything that was approved: then any
        # change to the file is stale.
        if needs_confirm and (diff != confirmed_diff or is_clipped(confirmed_diff)):
            raise fail(
                "stale",
                change.path,
                message=f"file changed while waiting for confirmation: {change.path}",
            )
        outcome.diff = diff
        outcome.created = current is None
    _check_reads(engine, loc, change, staged.current)  # under the lock, file and ledger agree
    return staged


def _commit(
    engine: Engine, loc: Location, change: Change, staged: _Staged, outcome: Outcome
) -> None:
    """Step 7b-8: back up, record history, write atomically, update the read ledger."""
    ws = engine.workspace
    current, data = staged.current, staged.data
    before = current.raw if current else None
    wanted = before is not None and change.sidecar_backup and change.backup
    if wanted and (data != before or change.backup_unchanged):
        assert before is not None and change.sidecar_backup is not None
        outcome.backup = sidecar_backup(
            engine, loc, change.sidecar_backup, lambda target, mode: _store(target, before, mode)
        )
    if current is not None and data == current.raw:
        outcome.bytes_written = 0
        outcome.hash = current.hash
        return
    digest = content_hash(data)
    # History first (write-ahead): a crash between the two leaves an entry whose change
    # never landed, which undo recognises (the file still holds its "before" bytes);
    # the other order would lose the old bytes and block undo.
    if change.backup:
        ws.history.record(str(loc.real), before, change.operation, digest)
    # Where the caller frees what the write replaces after answering (the MCP server),
    # the old file is kept under a second name until then (`state.trash`).
    keep_old = None
    if change.backup and trash.active():
        keep_old = functools.partial(trash.keep_old, ws.state_dir)
    try:
        fsio.write_atomic(  # a new file is the agent's own: the umask's mode
            loc,
            data,
            mode=None,
            create_parents=change.create_parents,
            allow_read_only=change.allow_read_only,
            before_replace=keep_old,
        )
    except BaseException:
        if change.backup:
            ws.history.pop(str(loc.real))
        raise
    outcome.hash = digest
    outcome.bytes_written = len(data)
    # The agent knows what it wrote: keep its ledger fresh where it had read the file
    # (or created it), but never invent a read of a file it has not seen. Still under
    # the lock, so no other change sees the new file with the old ledger entry.
    if before is None or engine.last_read(loc) is not None:
        engine.record_read(loc, digest)


# A path of fewer characters than this has fewer bytes than PATH_MAX (4 at most each, in
# UTF-8): a path stat could not fail for its length.
_SURELY_UNDER_PATH_MAX = PATH_MAX // 4


def _exists(loc: Location) -> bool:
    # A path stat, on purpose: beyond PATH_MAX it raises (ENAMETOOLONG), and the change is
    # refused as an I/O error instead of building a tree no ordinary tool can remove.
    return loc.real.exists()


def _raw_now(engine: Engine, loc: Location, change: Change) -> bytes | None:
    """The file's bytes as they are now (None: it does not exist). Compared with what the
    change was computed from; only a difference costs a second decode."""
    try:
        return engine.read_bytes(loc, max_bytes=change.max_bytes).data
    except OperationFailed as exc:
        if exc.failure.code == "not_found":
            return None
        raise


def _store(target: Location, data: bytes, mode: int) -> None:
    fsio.write_atomic(target, data, create_parents=True, mode=mode)
