"""The steps file management shares (engine/fileops.py, engine/fileundo.py): locate an
entry to change, judge every path under a directory, confirm, lock several paths in one
order, look again under the lock, and turn expected failures into values."""

from __future__ import annotations

import contextlib
import os
import stat as stat_module
from collections.abc import Callable, Iterator
from pathlib import Path

from filewright.core.result import Failure, OperationFailed, fail
from filewright.engine.change import Outcome
from filewright.engine.confirm import confirm_change
from filewright.engine.diffs import unified_diff
from filewright.engine.workspace import Engine, disk_failures
from filewright.fs import entries, fsio
from filewright.fs.paths import Location, PathRefused
from filewright.fs.textfile import TextFileError, content_hash, decode
from filewright.policy.rules import Access
from filewright.state.index import ABSENT_HASH
from filewright.state.locks import LockTimeout, file_lock

DIR_HASH = "directory"  # hash_after of a directory's entry (it has no content)
GONE = ABSENT_HASH  # hash_after of a change that left nothing at the path
REFUSED = (Access.READ, Access.DENY, Access.HIDDEN)


def guarded(path: str, outcome: Outcome, body: Callable[[], None]) -> Outcome:
    """Run `body`; expected failures become `outcome.failure` (never raised)."""
    try:
        body()
        outcome.ok = True
    except OperationFailed as exc:
        outcome.failure = exc.failure
    except LockTimeout:
        outcome.failure = Failure("busy", path, {"message": "file is locked by another process"})
    except PathRefused as exc:
        outcome.failure = Failure(exc.code, path, {"message": exc.detail})
    except FileExistsError:
        outcome.failure = Failure("exists", path, {"message": f"already exists: {path}"})
    except PermissionError:
        outcome.failure = Failure("permission", path, {"message": f"permission denied: {path}"})
    except FileNotFoundError:
        outcome.failure = Failure("not_found", path, {"message": f"not found: {path}"})
    except OSError as exc:
        outcome.failure = Failure("io_error", path, {"message": f"{exc.strerror or exc}: {path}"})
    return outcome


def locate_entry(engine: Engine, path: str) -> tuple[Location, Access]:
    """A path to change (file or directory), its access; a root itself is refused."""
    loc, access = engine.locate(path, purpose="write", expect="any")
    if loc.rel == ".":
        raise fail("is_root", path, message=f"a workspace root cannot be moved or removed: {path}")
    return loc, access


def locate_recorded(engine: Engine, recorded: str, given: str) -> tuple[Location, Access]:
    """A path history recorded, located again for an undo the way a forward change is
    located, but by its name under its root as recorded, walked from the root without
    following links: a directory on the way that is a symbolic link now (one swapped in
    since) is refused, never followed; then judged by the policy (`read`, `deny` or
    `hidden` refuse). `given` is the path undo was called with (for messages)."""
    real = Path(recorded)
    roots = sorted(engine.workspace.roots, key=lambda r: len(str(r)), reverse=True)
    root = next((r for r in roots if inside(real, r)), None)
    if root is None:
        raise fail("outside", given, message=f"undo refused: {recorded} is outside the workspace")
    rel = real.relative_to(root).as_posix()
    if rel in ("", "."):
        raise fail(
            "is_root", given, message=f"a workspace root cannot be moved or removed: {given}"
        )
    loc = Location(
        given=rel, path=real, real=real, root=root, rel=rel, lexical_rel=rel,
        exists=False, is_dir=False, is_link=False,
    )  # fmt: skip
    try:
        loc = current(loc)
    except PathRefused:
        raise fail(
            "symlink",
            given,
            message=f"undo refused: the way to {rel} now goes through a symbolic link",
        ) from None
    access = engine.access(loc)
    if access in REFUSED:
        raise fail("protected", given, message=f"undo would change {rel}, which is protected")
    return loc, access


def entry_access(engine: Engine, root_rel: str, real: Path, is_dir: bool) -> Access:
    if inside(real, engine.workspace.state_dir):
        return Access.HIDDEN
    if real == engine.workspace.user_policy_file:
        return Access.READ
    return engine.policy.access(root_rel, is_dir=is_dir)


INVISIBLE = (Access.DENY, Access.HIDDEN)


def visible(engine: Engine, loc: Location, item: entries.TreeEntry) -> bool:
    """Whether an entry under directory `loc` is one the agent may know of."""
    rel, real = f"{loc.rel}/{item.rel}", loc.real / item.rel
    return entry_access(engine, rel, real, item.kind == "dir") not in INVISIBLE


def entry_visible(engine: Engine, directory: Location, name: str) -> bool:
    """Whether the entry `name` in `directory` is one the agent may know of (its type
    read without following a link)."""
    st = entries.lstat(_child(directory, name))
    item = entries.TreeEntry(name, "dir" if st and stat_module.S_ISDIR(st.st_mode) else "file",
                             0, 0)  # fmt: skip
    return visible(engine, directory, item)


def _child(directory: Location, name: str) -> Location:

    rel = name if directory.rel == "." else f"{directory.rel}/{name}"
    return directory.replace(path=directory.path / name, real=directory.real / name, rel=rel,
                   lexical_rel=rel)  # fmt: skip


def trash_location(engine: Engine, loc: Location, entry_id: int) -> Location:
    """Where history keeps the directory at `loc` that a recursive delete (entry
    `entry_id`) removed: in the state directory, reached by descriptors from it."""
    base, rel = engine.workspace.history.tree_at(str(loc.real), entry_id)
    return Location(
        given=loc.given, path=base / rel, real=base / rel, root=base, rel=rel,
        lexical_rel=rel, exists=False, is_dir=False, is_link=False,
    )  # fmt: skip


def tree_access(
    engine: Engine, loc: Location, found: list[entries.TreeEntry], new: Location | None = None
) -> tuple[list[entries.TreeEntry], Access]:
    """The entries under directory `loc` an agent may know of, and the strictest access
    over them (and, for a move, over the same entries under `new`).

    Invisible entries (`deny`, `hidden`) are absent from every answer: not listed, not
    counted, never what makes a directory "not empty". A move takes them along only when
    each stays as invisible under `new` as it is now (a `.env` stays a `.env`); any other
    change to one (a delete, or a move that would show it) is refused with the words a
    protected directory gets, never with what is inside. A visible `read` entry refuses
    ("holds paths the policy protects"); `confirm` anywhere makes the answer `confirm`."""
    worst = Access.WRITE
    shown: list[entries.TreeEntry] = []
    for item in found:
        is_dir = item.kind == "dir"
        here = entry_access(engine, f"{loc.rel}/{item.rel}", loc.real / item.rel, is_dir)
        there = None
        if new is not None:
            there = entry_access(engine, f"{new.rel}/{item.rel}", new.real / item.rel, is_dir)
        if here in INVISIBLE:
            if there == here:
                continue  # travels along unseen, exactly as protected as before
            raise fail("protected", loc.given, message=f"protected path: {loc.given}")
        shown.append(item)
        for access in (here, there):
            if access in REFUSED:
                raise fail(
                    "denied",
                    loc.given,
                    message=f"{loc.given} holds paths the policy protects; refused",
                )
            if access == Access.CONFIRM:
                worst = Access.CONFIRM
    return shown, worst


def confirm(engine: Engine, loc: Location, operation: str, diff: str, outcome: Outcome) -> None:
    """The engine's one confirmation (`engine.confirm.confirm_change`)."""
    confirm_change(engine, loc, loc.given, operation, diff, outcome.risk, False)


@contextlib.contextmanager
def locked(engine: Engine, *reals: Path, held: Path | None = None) -> Iterator[None]:
    """The locks of every path, taken in one order (no deadlock between two moves);
    `held` is already locked by the caller."""
    with contextlib.ExitStack() as stack:
        for real in sorted({str(r) for r in reals} - {str(held)}):
            stack.enter_context(file_lock(engine.workspace.state_dir, real))
        yield


def current(loc: Location) -> Location:
    """`loc` resolved again (under the lock: what is there now)."""
    return _resolve_real(loc)


def _resolve_real(loc: Location) -> Location:

    st = entries.lstat(loc)
    return loc.replace(
        exists=st is not None,
        is_dir=st is not None and stat_module.S_ISDIR(st.st_mode),
        is_link=st is not None and stat_module.S_ISLNK(st.st_mode),
    )


def identity(engine: Engine, loc: Location) -> str:
    """What a file holds, to notice later changes: its content hash (or, past the size
    cap, its inode, size and modification time, which a rename keeps)."""
    if loc.is_dir:
        return DIR_HASH
    with disk_failures(loc.given):
        st = fsio.stat_entry(loc)
    if st.st_size > engine.workspace.max_file_bytes:
        return f"stat:{st.st_ino}:{st.st_size}:{st.st_mtime_ns}"
    return content_hash(engine.read_bytes(loc).data)


def text_diff(data: bytes | None, name: str, *, removed: bool = True) -> str:
    if data is None:
        return ""
    try:
        text = decode(data).text
    except TextFileError:
        return ""
    return unified_diff(text, "", name) if removed else unified_diff("", text, name)


def check_stale(engine: Engine, loc: Location, data: bytes | None) -> None:
    """The agent read this file and it changed since: removing it would lose what it has
    not seen."""
    seen = engine.last_read(loc)
    if seen is not None and data is not None and seen != content_hash(data):
        raise fail(
            "stale", loc.given, message=f"file was modified since it was last read: {loc.given}"
        )


def inside(child: Path, parent: Path) -> bool:
    return child == parent or str(child).startswith(str(parent).rstrip(os.sep) + os.sep)
