"""Undo: restore a file's bytes from before its last recorded change."""

from __future__ import annotations

from filewright.core.result import Failure, OperationFailed, fail
from filewright.engine import fileundo
from filewright.engine.change import Outcome
from filewright.engine.confirm import confirm_change
from filewright.engine.diffs import unified_diff
from filewright.engine.workspace import Engine
from filewright.fs import fsio
from filewright.fs.paths import PathRefused
from filewright.fs.textfile import content_hash
from filewright.policy.rules import Access, Risk
from filewright.state.index import ABSENT_HASH
from filewright.state.locks import file_lock


def undo(engine: Engine, path: str, *, dry_run: bool = False, force: bool = False) -> Outcome:
    """Restore the file's content from before its last recorded change (or reverse the
    last move, delete or mkdir recorded at the path), asking whoever confirms first where
    the policy asks for a change to this file (a restore is a change).

    A file changed since that change (by hand, by another tool) is refused as `stale`,
    unless `force`: then its current content is first recorded as a change of its own
    (operation `undo --force`), so that the next undo brings it back."""
    outcome = Outcome(ok=False)
    try:
        loc, access = engine.locate(path, purpose="write", expect="any")
        outcome.loc = loc
        ws = engine.workspace
        with file_lock(ws.state_dir, str(loc.real)):
            entries = ws.history.entries(str(loc.real))
            if not entries:
                raise fail("no_history", path, message=f"no recorded change to undo for {path}")
            last = entries[-1]
            if last.size_after >= 0:  # recorded by the streamed path (a large file)
                # deferred: the streamed-change engine, only to undo a large file's change
                from filewright.engine.streamundo import undo_large

                if access == Access.CONFIRM and not dry_run:
                    what = f"restore {loc.lexical_rel} to before its last change ({last.operation})"
                    confirm_change(engine, loc, path, "undo", what, Risk.HIGH, False)

                undo_large(engine, loc, last, outcome, dry_run)
                outcome.risk = Risk.HIGH
                outcome.extra["remaining"] = len(entries) - 1
                outcome.ok = True
                return outcome
            if fileundo.is_file_management(last):
                # Every path it touches is located, judged and confirmed there, at once.
                outcome.extra["undone"] = last.to_dict()
                fileundo.undo_entry(engine, loc, access, last, outcome, dry_run)
                outcome.extra["remaining"] = len(ws.history.entries(str(loc.real)))
                outcome.risk = Risk.HIGH
                outcome.ok = True
                return outcome
            if loc.is_dir:
                raise fail("is_directory", path, message=f"path is a directory: {path}")
            current = fsio.read_bytes(loc).data if loc.real.exists() else None
            current_hash = content_hash(current) if current is not None else ABSENT_HASH
            before = ws.history.before_bytes(str(loc.real), last)
            if current_hash != last.hash_after and current == before:
                # The last change never landed, or an undo of it was cut short (a crash
                # between file and history): it is undone already; only forget it.
                outcome.extra["undone"] = last.to_dict()
                outcome.extra["remaining"] = len(entries) - 1
                if dry_run:
                    outcome.dry_run = True
                else:
                    ws.history.pop(str(loc.real))
                outcome.ok = True
                return outcome
            if current_hash != last.hash_after and not force:
                raise fail(
                    "stale",
                    path,
                    message=f"file changed after its last recorded change; undo would lose that: {path}",
                )
            old_text = current.decode("utf-8", "replace") if current is not None else ""
            new_text = before.decode("utf-8", "replace") if before is not None else ""
            outcome.diff = unified_diff(old_text, new_text, loc.lexical_rel)
            outcome.risk = Risk.HIGH
            outcome.extra["undone"] = last.to_dict()
            if dry_run:
                outcome.dry_run = True
                outcome.ok = True
                return outcome
            if access == Access.CONFIRM:
                confirm_change(engine, loc, path, "undo", outcome.diff, outcome.risk, False)
            if current_hash != last.hash_after:  # forced: keep what is there now
                ws.history.record(
                    str(loc.real),
                    current,
                    "undo --force",
                    content_hash(before) if before is not None else ABSENT_HASH,
                )
            if before is None:
                fsio.remove_file(loc)
                engine.record_read(loc, None)
            else:
                owner = (last.owner[0], last.owner[1]) if last.owner else None
                fsio.write_atomic(loc, before, mode=last.mode, owner=owner)
                engine.record_read(loc, content_hash(before))
                outcome.bytes_written = len(before)
            if current_hash == last.hash_after:
                ws.history.pop(str(loc.real))
                outcome.extra["remaining"] = len(entries) - 1
            else:
                outcome.extra["forced"] = True
                outcome.extra["remaining"] = len(entries) + 1
        outcome.ok = True
    except OperationFailed as exc:
        outcome.failure = exc.failure
    except (PathRefused, OSError) as exc:
        outcome.failure = Failure("io_error", path, {"message": str(exc)})
    return outcome
