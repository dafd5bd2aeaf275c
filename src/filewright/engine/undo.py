"""Undo: restore a file's bytes from before its last recorded change."""

from __future__ import annotations

from filewright.core.result import Failure, OperationFailed, fail
from filewright.engine import fileundo
from filewright.engine.diffs import unified_diff
from filewright.engine.pipeline import Outcome
from filewright.engine.workspace import Engine
from filewright.fs import fsio
from filewright.fs.paths import PathRefused
from filewright.fs.textfile import content_hash
from filewright.policy.rules import Risk
from filewright.state.history import file_lock


def undo(engine: Engine, path: str, *, dry_run: bool = False) -> Outcome:
    """Restore the file's content from before its last recorded change (or reverse the
    last move, delete or mkdir recorded at the path)."""
    outcome = Outcome(ok=False)
    try:
        loc, _access = engine.locate(path, purpose="write", expect="any")
        outcome.loc = loc
        ws = engine.workspace
        with file_lock(ws.state_dir, str(loc.real)):
            entries = ws.history.entries(str(loc.real))
            if not entries:
                raise fail("no_history", path, message=f"no recorded change to undo for {path}")
            last = entries[-1]
            if fileundo.is_file_management(last):
                outcome.extra["undone"] = last.to_dict()
                fileundo.undo_entry(engine, loc, last, outcome, dry_run)
                outcome.extra["remaining"] = len(ws.history.entries(str(loc.real)))
                outcome.risk = Risk.HIGH
                outcome.ok = True
                return outcome
            if loc.is_dir:
                raise fail("is_directory", path, message=f"path is a directory: {path}")
            current = fsio.read_bytes(loc).data if loc.real.exists() else None
            current_hash = content_hash(current) if current is not None else None
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
            if current_hash != last.hash_after:
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
            if before is None:
                fsio.remove_file(loc)
                engine.record_read(loc, None)
            else:
                fsio.write_atomic(loc, before)
                engine.record_read(loc, content_hash(before))
                outcome.bytes_written = len(before)
            ws.history.pop(str(loc.real))
            outcome.extra["remaining"] = len(entries) - 1
        outcome.ok = True
    except OperationFailed as exc:
        outcome.failure = exc.failure
    except (PathRefused, OSError) as exc:
        outcome.failure = Failure("io_error", path, {"message": str(exc)})
    return outcome
