"""Change several files as one: every file's new content computed and checked first, then
all committed, or none.

`apply_batch` runs a list of `FileStep`s (update, add, delete; an update may move the
file) in order against a virtual view of the files, so a later step sees what an earlier
one did (a file added and then updated, a file deleted and then re-added by a move).
Then, per file touched, the pipeline's steps: resolve and policy (every path, both ends
of a move), load, compute, encode in the file's own encoding, BOM and newline style,
stale-read check, preview, confirmation (asked for every file that needs it before
anything is written). The commit takes every file's lock (in a fixed order), checks that
no file changed on disk since it was loaded, and writes each file atomically with one
history entry per file (a delete keeps the old bytes, so undo restores it). If a write
fails midway, the files already written are restored from the bytes kept for history and
their entries dropped: the batch leaves no file changed.

A process killed between two files' writes cannot be rolled back here; every file
written so far has its own history entry, so `undo` restores each.

Compute functions are the pipeline's (`pipeline.Compute`): old text ("\\n" newlines)
to new text, an `Edited`-like value, or an `EditFailure`-like value (`code`, `detail`).
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from filewright.core.result import Failure, OperationFailed, fail
from filewright.engine.change import Compute
from filewright.engine.confirm import confirm_change
from filewright.engine.diffs import unified_diff
from filewright.engine.workspace import Engine
from filewright.fs import fsio
from filewright.fs.paths import Location, PathRefused
from filewright.fs.textencode import encode
from filewright.fs.textfile import TextFile, TextFileError, content_hash
from filewright.fs.textfile import normalise_newlines as _lf
from filewright.policy.rules import Access, Risk, risk_of
from filewright.state.index import ABSENT_HASH
from filewright.state.locks import LockTimeout, file_lock


@dataclass(frozen=True)
class FileStep:
    """One operation of a batch.

    ``kind``: ``update`` (``compute`` the new text from the current one; ``move_to``
    renames the file as well), ``add`` (a new file holding ``text``; an existing file is
    refused unless an earlier step deleted it) or ``delete``. ``label`` names the step in
    failures (e.g. "Update File: a.py, line 3 of the patch").
    """

    kind: str
    path: str
    compute: Compute | None = None
    text: str | None = None
    move_to: str | None = None
    label: str = ""


@dataclass
class FileChange:
    """What the batch does (or did) to one file."""

    path: str  # as named in the batch (the first name it was named by)
    display: str  # relative to its root
    operation: str  # add | update | delete | move_from | move_to
    diff: str = ""
    created: bool = False
    deleted: bool = False
    bytes_written: int = 0
    strategy: str | None = None
    replacements: int = 0
    encoding: str | None = None
    hash: str | None = None


@dataclass
class BatchOutcome:
    """The batch's result: ``ok`` and the files changed, or the failure (nothing changed)."""

    ok: bool
    files: list[FileChange] = field(default_factory=list)
    failure: Failure | None = None
    step: int | None = None  # 0-based index of the step that failed
    dry_run: bool = False
    risk: Risk = Risk.LOW


@dataclass
class _Slot:
    """One real file as the batch sees it: as loaded, and as the steps leave it."""

    loc: Location
    access: Access
    original: TextFile | None
    text: str | None  # current virtual content (None: absent)
    base: TextFile | None  # whose encoding/BOM/newlines the new content takes
    operation: str = "update"
    named: str = ""
    strategy: str | None = None
    replacements: int = 0
    data: bytes | None = None  # bytes to write (None: delete or unchanged)
    # Whose metadata the content carries: the loaded file's mode and (uid, gid); a move's
    # destination takes its source's (metadata travels with content). None: a new file.
    mode: int | None = None
    owner: tuple[int, int] | None = None


class _StepFailed(Exception):
    def __init__(self, failure: Failure, step: int) -> None:
        self.failure, self.step = failure, step


def apply_batch(
    engine: Engine, steps: list[FileStep], *, dry_run: bool = False, check_stale: bool = True
) -> BatchOutcome:
    """Run `steps` as one change (see module docstring); never raises for expected failures."""
    slots: dict[Path, _Slot] = {}
    try:
        for index, step in enumerate(steps):
            _run_step(engine, slots, step, index)
        changed = _stage(engine, slots, check_stale)
        outcome = BatchOutcome(True, [_describe(s) for s in changed])
        outcome.risk = max((_risk(s) for s in changed), key=_risk_order, default=Risk.LOW)
        if dry_run or engine.workspace.dry_run:
            outcome.dry_run = True
            return outcome
        _confirm_all(engine, changed)
        _commit_all(engine, changed, outcome)
        return outcome
    except _StepFailed as exc:
        return BatchOutcome(False, failure=exc.failure, step=exc.step)
    except OperationFailed as exc:
        return BatchOutcome(False, failure=exc.failure, step=None)
    except LockTimeout:
        return BatchOutcome(
            False, failure=Failure("busy", "", {"message": "a file is locked by another process"})
        )
    except (OSError, PathRefused) as exc:  # before any write: a write's failure is handled
        reason = exc.detail if isinstance(exc, PathRefused) else (exc.strerror or str(exc))
        name = exc.path if isinstance(exc, PathRefused) else str(exc.filename or "")
        return BatchOutcome(False, failure=Failure("io_error", name, {"message": reason}))


# -- plan: the steps against a virtual view of the files ---------------------------------


def _slot(engine: Engine, slots: dict[Path, _Slot], path: str, index: int) -> _Slot:
    """The slot of the file `path` names (loaded on first use)."""
    try:
        loc, access = engine.locate(path, purpose="write", expect="file")
        key = loc.real
        if key in slots:
            return slots[key]
        original = state = None
        if loc.exists:
            original, state = engine.load_text(loc)
    except OperationFailed as exc:
        raise _StepFailed(exc.failure, index) from None
    text = original.text if original else None
    slot = _Slot(loc, access, original, text, original, named=path)
    if state is not None:
        slot.mode, slot.owner = state.mode, (state.uid, state.gid)
    slots[key] = slot
    return slot


def _fail(code: str, path: str, index: int, message: str, **detail: Any) -> _StepFailed:
    return _StepFailed(Failure(code, path, {"message": message, **detail}), index)


def _refuse_link(engine: Engine, path: str, index: int) -> None:
    """Deleting or moving `path` when it is a symbolic link would act on its target."""
    if engine.workspace.sandbox.resolve(path, expect="file").is_link:
        raise _fail(
            "is_link",
            path,
            index,
            f"{path} is a symbolic link; only regular files are deleted or moved",
        )


def _run_step(engine: Engine, slots: dict[Path, _Slot], step: FileStep, index: int) -> None:
    slot = _slot(engine, slots, step.path, index)
    if step.kind == "delete" or step.move_to is not None:
        _refuse_link(engine, step.path, index)
    if step.kind == "add":
        if slot.text is not None:
            raise _fail("exists", step.path, index, f"file already exists: {step.path}")
        slot.text = step.text or ""
        slot.operation = "add" if slot.original is None else "update"
        return
    if slot.text is None:
        raise _fail("not_found", step.path, index, f"file not found: {step.path}")
    if step.kind == "delete":
        slot.text = None
        slot.operation = "delete"
        return
    if step.kind != "update" or step.compute is None:
        raise ValueError(f"unknown batch step {step.kind!r}")
    result = step.compute(slot.text)
    if hasattr(result, "code") and hasattr(result, "detail"):
        raise _StepFailed(Failure(result.code, step.path, dict(result.detail)), index)
    if not isinstance(result, str):
        slot.strategy = getattr(result, "strategy", None)
        slot.replacements += getattr(result, "replacements", 0)
        result = result.text
    slot.text = _lf(result)
    if slot.operation == "delete":
        slot.operation = "update"
    if step.move_to is None:
        return
    dest = _slot(engine, slots, step.move_to, index)
    if dest is slot:
        return
    if dest.text is not None:
        raise _fail(
            "move_target_exists",
            step.move_to,
            index,
            f"cannot move {step.path} to {step.move_to}: a file is there "
            "(delete it first in the same patch to replace it)",
        )
    dest.text, dest.base = slot.text, slot.base
    dest.operation, dest.strategy = "move_to", slot.strategy
    dest.mode, dest.owner = slot.mode, slot.owner
    slot.text, slot.operation = None, "move_from"


# -- stage: bytes, checks, previews -------------------------------------------------------


def _stage(engine: Engine, slots: dict[Path, _Slot], check_stale: bool) -> list[_Slot]:
    """The slots whose content changes, with the bytes to write; checks every one."""
    changed = []
    for slot in slots.values():
        before = slot.original.text if slot.original else None
        if slot.text == before:
            continue
        if slot.text is not None:
            try:
                slot.data = encode(slot.base, slot.text)
            except (TextFileError, LookupError) as exc:
                raise fail("unencodable", slot.named, message=str(exc)) from None
        if slot.original is not None:  # replaced or removed: may it be?
            try:
                fsio.check_writable(slot.loc)
            except PathRefused as exc:
                raise fail(exc.code, slot.named, message=exc.detail) from None
        if check_stale and slot.original is not None:
            seen = engine.last_read(slot.loc)
            if seen is not None and seen != slot.original.hash:
                raise fail(
                    "stale",
                    slot.named,
                    message=f"file was modified since it was last read: {slot.named}",
                )
        changed.append(slot)
    return changed


def _operation(slot: _Slot) -> str:
    """add | update | delete | move_from | move_to, as the file's net change."""
    if slot.text is None:
        return "move_from" if slot.operation == "move_from" else "delete"
    if slot.operation == "move_to":
        return "move_to"
    return "add" if slot.original is None else "update"


def _describe(slot: _Slot) -> FileChange:
    old = slot.original.text if slot.original else ""
    new = slot.text if slot.text is not None else ""
    encoding = None
    if slot.text is not None:
        encoding = slot.base.encoding_label if slot.base else "utf-8"
    return FileChange(
        path=slot.named,
        display=slot.loc.lexical_rel,
        operation=_operation(slot),
        diff=unified_diff(old, new, slot.loc.lexical_rel),
        created=slot.original is None,
        deleted=slot.text is None,
        bytes_written=len(slot.data or b""),
        strategy=slot.strategy,
        replacements=slot.replacements,
        encoding=encoding,
        hash=content_hash(slot.data) if slot.data is not None else None,
    )


def _risk(slot: _Slot) -> Risk:
    if slot.text is None:
        return Risk.HIGH
    return risk_of("edit" if slot.original is not None else "create", slot.original is not None)


def _risk_order(risk: Risk) -> int:
    return list(Risk).index(risk)


def _confirm_all(engine: Engine, changed: list[_Slot]) -> None:
    """Ask for every file that needs it, before anything is written (the engine's one
    confirmation: real path, the agent's name for it, invisible characters shown)."""
    for slot in changed:
        if slot.access != Access.CONFIRM:
            continue
        confirm_change(
            engine,
            slot.loc,
            slot.named,
            _operation(slot),
            _describe(slot).diff,
            _risk(slot),
            slot.original is None,
        )


# -- commit: all files, or none -----------------------------------------------------------


def _commit_all(engine: Engine, changed: list[_Slot], outcome: BatchOutcome) -> None:
    ws = engine.workspace
    order = sorted(changed, key=lambda s: str(s.loc.real))
    with contextlib.ExitStack() as stack:
        for slot in order:
            stack.enter_context(file_lock(ws.state_dir, str(slot.loc.real)))
        for slot in changed:
            _recheck(engine, slot)
        done: list[_Slot] = []
        for slot in changed:
            try:
                _commit_one(engine, slot)
            except Exception as exc:  # whatever stopped it: put back what was written
                restore_failed = _roll_back(engine, done)
                raise _commit_failure(slot, exc, done, restore_failed) from None
            done.append(slot)
        for slot in changed:
            if slot.data is None:
                engine.record_read(slot.loc, None)
            elif slot.original is None or engine.last_read(slot.loc) is not None:
                engine.record_read(slot.loc, content_hash(slot.data))
    for change, slot in zip(outcome.files, changed, strict=True):
        change.bytes_written = len(slot.data or b"")


def _recheck(engine: Engine, slot: _Slot) -> None:
    """Under the locks: the file is still what the batch was computed from."""
    try:
        now = engine.read_bytes(slot.loc).data if slot.loc.real.exists() else None
    except OperationFailed as exc:
        if exc.failure.code != "not_found":
            raise
        now = None
    if now != (slot.original.raw if slot.original else None):
        raise fail(
            "stale",
            slot.named,
            message=f"{slot.named} changed on disk while the patch was being applied",
        )


def _commit_one(engine: Engine, slot: _Slot) -> None:
    ws = engine.workspace
    rel = str(slot.loc.real)
    before = slot.original.raw if slot.original else None
    after = content_hash(slot.data) if slot.data is not None else ABSENT_HASH
    meta: dict[str, Any] = {}
    if before is not None and slot.original is not None:  # undo may re-create it
        meta = {"mode": slot.mode, "owner": list(slot.owner) if slot.owner else None}
    ws.history.record(rel, before, _history_operation(slot), after, **meta)
    try:
        if slot.data is None:
            fsio.remove_file(slot.loc)
        else:
            fsio.write_atomic(
                slot.loc, slot.data, mode=slot.mode, owner=slot.owner, create_parents=True
            )
    except BaseException:
        ws.history.pop(rel)
        raise


def _history_operation(slot: _Slot) -> str:
    """The operation a history entry names. A patch's delete and move are content changes
    of each file (undo puts the bytes back, or removes the file a move created), so they
    are named apart from `engine.fileops`' move and delete, whose undo reverses a rename."""
    op = _operation(slot)
    return {"move_from": "patch move", "move_to": "patch move", "delete": "patch delete"}.get(
        op, op
    )


def _roll_back(engine: Engine, done: list[_Slot]) -> list[str]:
    """Put back the files already written; the names of those that could not be."""
    failed = []
    for slot in reversed(done):
        try:
            if slot.original is None:
                fsio.remove_file(slot.loc)
            else:
                fsio.write_atomic(slot.loc, slot.original.raw, mode=slot.mode, owner=slot.owner)
            engine.workspace.history.pop(str(slot.loc.real))
        except (OSError, PathRefused):
            failed.append(slot.named)
    return failed


def _commit_failure(
    slot: _Slot, exc: BaseException, done: list[_Slot], restore_failed: list[str]
) -> OperationFailed:
    if isinstance(exc, PathRefused):
        reason = exc.detail
    elif isinstance(exc, OSError):
        reason = exc.strerror or str(exc)
    else:
        reason = f"{type(exc).__name__}: {exc}"
    if restore_failed:
        tail = (
            "could not restore "
            + ", ".join(restore_failed)
            + " (each keeps its history entry: undo restores it)"
        )
    elif done:
        tail = "the files already written were restored: " + ", ".join(s.named for s in done)
    else:
        tail = "nothing was written"
    return OperationFailed(
        Failure(
            "io_error",
            slot.named,
            {
                "message": f"{reason}: {slot.named}; {tail}",
                "restored": [s.named for s in done if s.named not in restore_failed],
                "not_restored": restore_failed,
            },
        )
    )
