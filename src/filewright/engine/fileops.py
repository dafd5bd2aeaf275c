"""File management through the one pipeline: move, delete and mkdir; stat and roots.

A change here goes the way `pipeline.apply_change` goes, with the steps a directory entry
needs: resolve every end in the sandbox → policy on every path it touches (both ends of a
move, every entry of a directory moved or deleted: `read`, `deny` or `hidden` anywhere
refuses, `confirm` anywhere asks) → preconditions → preview (a dry run returns here) →
confirm → lock (both ends, in a fixed order) → re-check → record history first
(write-ahead) → act → read ledger. Failures come back as `Outcome.failure`; nothing is
touched on any failure path. `undo_entry` reverses what these record (see `undo`).
"""

from __future__ import annotations

import contextlib
import os
import stat as stat_module
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from filewright.core.result import Failure, OperationFailed, fail
from filewright.engine.diffs import unified_diff
from filewright.engine.pipeline import Outcome
from filewright.engine.workspace import ConfirmRequest, Engine
from filewright.fs import entries
from filewright.fs.paths import Location, PathRefused
from filewright.fs.textfile import TextFileError, content_hash, decode
from filewright.policy.rules import Access, Risk
from filewright.state.history import Entry, LockTimeout, file_lock

DIR_HASH = "directory"  # hash_after of a directory's entry (it has no content)
GONE = ""  # hash_after of a change that left nothing at the path
MAX_TREE_ENTRIES = 10_000  # a recursive delete keeps every file for undo: up to this many
_REFUSED = (Access.READ, Access.DENY, Access.HIDDEN)


# -- shared steps ---------------------------------------------------------------------------


def _guarded(path: str, outcome: Outcome, body: Callable[[], None]) -> Outcome:
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


def _locate(engine: Engine, path: str) -> tuple[Location, Access]:
    """A path to change (file or directory), its access; a root itself is refused."""
    loc, access = engine.locate(path, purpose="write", expect="any")
    if loc.rel == ".":
        raise fail("is_root", path, message=f"a workspace root cannot be moved or removed: {path}")
    return loc, access


def _entry_access(engine: Engine, root_rel: str, real: Path, is_dir: bool) -> Access:
    if _inside(real, engine.workspace.state_dir):
        return Access.HIDDEN
    if real == engine.workspace.user_policy_file:
        return Access.READ
    return engine.policy.access(root_rel, is_dir=is_dir)


def _tree_access(
    engine: Engine, loc: Location, found: list[entries.TreeEntry], new: Location | None = None
) -> Access:
    """The strictest access over the entries under directory `loc` (and, for a move,
    the same entries under `new`)."""
    worst = Access.WRITE
    for item in found:
        is_dir = item.kind == "dir"
        ends = [(f"{loc.rel}/{item.rel}", loc.real / item.rel)]
        if new is not None:
            ends.append((f"{new.rel}/{item.rel}", new.real / item.rel))
        for rel, real in ends:
            access = _entry_access(engine, rel, real, is_dir)
            if access in _REFUSED:
                raise fail(
                    "denied",
                    loc.given,
                    message=f"{loc.given} holds paths the policy protects; refused",
                )
            if access == Access.CONFIRM:
                worst = Access.CONFIRM
    return worst


def _confirm(engine: Engine, loc: Location, operation: str, diff: str, outcome: Outcome) -> None:
    ws = engine.workspace
    if ws.confirm is None:
        raise fail(
            "no_confirmation",
            loc.given,
            message=f"this change needs the user's confirmation and nobody can be asked: {loc.given}",
        )
    request = ConfirmRequest(
        path=str(loc.path),
        operation=operation,
        risk=outcome.risk.value,
        diff=diff,
        toolset=engine.toolset,
        created=False,
    )
    if not ws.confirm(request):
        raise fail("rejected", loc.given, message="the user rejected this change")


@contextlib.contextmanager
def _locked(engine: Engine, *reals: Path, held: Path | None = None) -> Iterator[None]:
    """The locks of every path, taken in one order (no deadlock between two moves);
    `held` is already locked by the caller."""
    with contextlib.ExitStack() as stack:
        for real in sorted({str(r) for r in reals} - {str(held)}):
            stack.enter_context(file_lock(engine.workspace.state_dir, real))
        yield


def _same(loc: Location) -> Location:
    """`loc` resolved again (under the lock: what is there now)."""
    return _resolve_real(loc)


def _resolve_real(loc: Location) -> Location:
    from dataclasses import replace

    st = entries.lstat(loc)
    return replace(
        loc,
        exists=st is not None,
        is_dir=st is not None and stat_module.S_ISDIR(st.st_mode),
        is_link=st is not None and stat_module.S_ISLNK(st.st_mode),
    )


def _identity(engine: Engine, loc: Location) -> str:
    """What a file holds, to notice later changes: its content hash (or, past the size
    cap, its inode, size and modification time, which a rename keeps)."""
    if loc.is_dir:
        return DIR_HASH
    st = os.stat(loc.real, follow_symlinks=False)
    if st.st_size > engine.workspace.max_file_bytes:
        return f"stat:{st.st_ino}:{st.st_size}:{st.st_mtime_ns}"
    return content_hash(engine.read_bytes(loc).data)


def _text_diff(data: bytes | None, name: str, *, removed: bool = True) -> str:
    if data is None:
        return ""
    try:
        text = decode(data).text
    except TextFileError:
        return ""
    return unified_diff(text, "", name) if removed else unified_diff("", text, name)


def _check_stale(engine: Engine, loc: Location, data: bytes | None) -> None:
    """The agent read this file and it changed since: removing it would lose what it has
    not seen."""
    seen = engine.last_read(loc)
    if seen is not None and data is not None and seen != content_hash(data):
        raise fail(
            "stale", loc.given, message=f"file was modified since it was last read: {loc.given}"
        )


# -- move -----------------------------------------------------------------------------------


def move(
    engine: Engine,
    source: str,
    destination: str,
    *,
    overwrite: bool = False,
    dry_run: bool = False,
) -> Outcome:
    """Move or rename a file or directory inside the roots; never replaces an existing
    destination unless `overwrite` (files only). Recorded on both ends for undo."""
    outcome = Outcome(ok=False)
    return _guarded(
        source, outcome, lambda: _move(engine, source, destination, overwrite, dry_run, outcome)
    )


def _move(
    engine: Engine, source: str, destination: str, overwrite: bool, dry_run: bool, outcome: Outcome
) -> None:
    src, src_access = _locate(engine, source)
    outcome.loc = src
    if not src.exists:
        raise fail("not_found", source, message=f"not found: {source}")
    if src.is_link:
        raise fail("symlink", source, message=f"{source} is a symbolic link; links are not moved")
    dst, dst_access = _locate(engine, destination)
    if dst.real == src.real:
        raise fail("same_path", destination, message="source and destination are the same")
    if _inside(dst.real, src.real):
        raise fail(
            "into_itself", destination, message=f"cannot move {source} into itself: {destination}"
        )
    if dst.is_link or (not dst.exists and os.path.lexists(dst.path)):
        # A link (dangling or not) is there: never move through it to where it points.
        raise fail("exists", destination, message=f"destination already exists: {destination}")
    replacing = dst.exists
    if replacing and not overwrite:
        raise fail("exists", destination, message=f"destination already exists: {destination}")
    if replacing and (dst.is_dir or src.is_dir):
        raise fail("exists", destination, message=f"destination already exists: {destination}")
    if not dst.real.parent.is_dir():
        raise fail(
            "parent_missing",
            destination,
            message=f"parent directory does not exist: {dst.path.parent}",
        )
    found = entries.walk(src) if src.is_dir else []
    tree = _tree_access(engine, src, found, dst) if src.is_dir else Access.WRITE
    needs_confirm = Access.CONFIRM in (src_access, dst_access, tree)
    old = engine.read_bytes(dst).data if replacing else None
    if replacing:
        _check_stale(engine, dst, old)
    outcome.risk = Risk.HIGH if replacing else Risk.MEDIUM
    outcome.diff = f"rename from {src.lexical_rel}\nrename to {dst.lexical_rel}\n"
    if old is not None:
        outcome.diff += _text_diff(old, dst.lexical_rel)
    outcome.extra.update(
        source=str(src.path), destination=str(dst.path), kind="dir" if src.is_dir else "file"
    )
    outcome.extra["entries"] = len(found)
    if replacing:
        outcome.extra["replaced"] = True
    if dry_run or engine.workspace.dry_run:
        outcome.dry_run = True
        return
    if needs_confirm:
        _confirm(engine, src, "move", outcome.diff, outcome)
    with _locked(engine, src.real, dst.real):
        now_src, now_dst = _same(src), _same(dst)
        if not now_src.exists:  # another process moved or deleted it meanwhile
            raise fail("not_found", source, message=f"not found: {source}")
        if now_src.is_dir != src.is_dir or now_src.is_link:
            raise fail("stale", source, message=f"{source} changed while in use")
        if now_dst.exists != replacing:
            raise fail("exists", destination, message=f"destination already exists: {destination}")
        if replacing and engine.read_bytes(dst).data != old:
            raise fail("stale", destination, message=f"{destination} changed while in use")
        ident = _identity(engine, src)
        kind = "dir" if src.is_dir else "file"
        ws = engine.workspace
        # Write-ahead: both ends' history first; undo recognises a move that never landed.
        ws.history.record(
            str(src.real), None, "move", GONE, existed=True, kind=kind, moved_to=str(dst.real)
        )
        ws.history.record(str(dst.real), old, "move", ident, kind=kind, moved_from=str(src.real))
        try:
            entries.rename(src, dst, replace=replacing)
        except BaseException:
            ws.history.pop(str(dst.real))
            ws.history.pop(str(src.real))
            raise
        seen = engine.last_read(src)
        engine.record_read(src, None)
        engine.record_read(dst, seen)


# -- delete ---------------------------------------------------------------------------------


def delete(engine: Engine, path: str, *, recursive: bool = False, dry_run: bool = False) -> Outcome:
    """Delete a file, a symbolic link (not its target), an empty directory, or, with
    `recursive` and the user's confirmation, a directory and everything in it. The bytes
    are kept in history, so undo restores them."""
    outcome = Outcome(ok=False)
    return _guarded(path, outcome, lambda: _delete(engine, path, recursive, dry_run, outcome))


def _delete(engine: Engine, path: str, recursive: bool, dry_run: bool, outcome: Outcome) -> None:
    loc, access = _locate(engine, path)
    outcome.loc = loc
    if loc.is_link:
        loc = _link_location(engine, path, loc)
        outcome.loc = loc
    if not loc.exists:
        raise fail("not_found", path, message=f"not found: {path}")
    outcome.risk = Risk.HIGH
    ws = engine.workspace
    if loc.is_link:
        kind, found, data = "symlink", [], None
    elif loc.is_dir:
        kind = "dir"
        found = entries.walk(loc, read=recursive, max_bytes=ws.max_file_bytes)
        if found and not recursive:
            raise fail(
                "not_empty",
                path,
                message=f"directory is not empty: {path} (pass recursive to delete it and "
                "everything in it)",
            )
        if len(found) > MAX_TREE_ENTRIES:
            raise fail(
                "too_large",
                path,
                message=f"{len(found)} entries (limit {MAX_TREE_ENTRIES} kept for undo)",
            )
        if any(item.kind == "special" for item in found):
            raise fail("not_regular", path, message=f"{path} holds a device, FIFO or socket")
        if _tree_access(engine, loc, found) == Access.CONFIRM:
            access = Access.CONFIRM
        data = None
    else:
        kind, found = "file", []
        data = engine.read_bytes(loc).data
        _check_stale(engine, loc, data)
    outcome.diff = _text_diff(data, loc.lexical_rel)
    outcome.extra.update(kind=kind, entries=len(found))
    if found:
        outcome.extra["deleted"] = [item.rel for item in found][:200]
        outcome.diff = "".join(
            f"deleted {loc.lexical_rel}/{item.rel}\n" for item in found[:200]
        ) + ("" if len(found) <= 200 else f"... and {len(found) - 200} more\n")
    if dry_run or ws.dry_run:
        outcome.dry_run = True
        return
    if access == Access.CONFIRM or found:  # a recursive delete is always put to the user
        _confirm(engine, loc, "delete", outcome.diff, outcome)
    with _locked(engine, loc.real):
        now = _same(loc)
        if not now.exists and not now.is_link:  # deleted or moved meanwhile
            raise fail("not_found", path, message=f"not found: {path}")
        if now.is_dir != loc.is_dir or now.is_link != loc.is_link:
            raise fail("stale", path, message=f"{path} changed while in use")
        if kind == "file" and engine.read_bytes(loc).data != data:
            raise fail("stale", path, message=f"{path} changed while in use")
        if kind == "dir":
            again = entries.walk(loc, read=bool(found), max_bytes=ws.max_file_bytes)
            if again != found:
                raise fail("stale", path, message=f"{path} changed while in use")
        _record_delete(engine, loc, kind, data, found)
        for item in reversed(found):  # children before their parents
            entries.remove(_below(loc, item.rel), item.kind)
        entries.remove(loc, kind)
        engine.record_read(loc, None)


def _link_location(engine: Engine, path: str, loc: Location) -> Location:
    """The link itself (not its target): its parent resolved, its own name kept."""
    parent = engine.workspace.sandbox.resolve(str(loc.path.parent), expect="dir")
    name = loc.path.name
    from dataclasses import replace

    rel = name if parent.rel == "." else f"{parent.rel}/{name}"
    link = replace(
        parent, given=path, path=loc.path, real=parent.real / name, rel=rel,
        lexical_rel=loc.lexical_rel, exists=True, is_dir=False, is_link=True,
    )  # fmt: skip
    access = engine.access(link)
    if access in _REFUSED:
        raise fail("protected", path, message=f"protected file: {path}")
    return link


def _below(loc: Location, rel: str) -> Location:
    from dataclasses import replace

    return replace(
        loc,
        given=f"{loc.given.rstrip('/')}/{rel}",
        path=loc.path / rel,
        real=loc.real / rel,
        rel=f"{loc.rel}/{rel}",
        lexical_rel=f"{loc.lexical_rel}/{rel}",
    )


def _record_delete(
    engine: Engine, loc: Location, kind: str, data: bytes | None, found: list[entries.TreeEntry]
) -> None:
    """History first: every entry's bytes (files), target (links) or mode (directories)."""
    history = engine.workspace.history
    for item in found:
        real = str(loc.real / item.rel)
        if item.kind == "file":
            history.record(real, item.data, "delete", GONE, mode=item.mode)
        else:
            history.record(
                real, None, "delete", GONE, existed=True, kind=item.kind, link=item.link,
                mode=item.mode,
            )  # fmt: skip
    members = [str(loc.real / item.rel) for item in found] or None
    if kind == "file":
        mode = stat_module.S_IMODE(os.stat(loc.real).st_mode)
        history.record(str(loc.real), data, "delete", GONE, mode=mode)
    else:
        link = os.readlink(loc.real) if kind == "symlink" else None
        history.record(
            str(loc.real), None, "delete", GONE, existed=True, kind=kind, members=members,
            link=link,
        )  # fmt: skip


# -- mkdir ----------------------------------------------------------------------------------


def mkdir(engine: Engine, path: str, *, dry_run: bool = False) -> Outcome:
    """Create a directory and its missing parents; an existing directory is fine."""
    outcome = Outcome(ok=False)
    return _guarded(path, outcome, lambda: _mkdir(engine, path, dry_run, outcome))


def _mkdir(engine: Engine, path: str, dry_run: bool, outcome: Outcome) -> None:
    loc, access = _locate(engine, path)
    outcome.loc = loc
    if (loc.exists and not loc.is_dir) or (not loc.exists and os.path.lexists(loc.path)):
        raise fail("exists", path, message=f"a file already exists at {path}")
    outcome.risk = Risk.LOW
    if loc.exists:
        outcome.extra["created_dirs"] = []
        return
    missing = _missing_dirs(loc)
    for real in missing:
        rel = real.relative_to(loc.root).as_posix()
        if _entry_access(engine, rel, real, True) in _REFUSED:
            raise fail("protected", path, message=f"protected path: {rel}")
    outcome.created = True
    outcome.extra["created_dirs"] = [str(p) for p in missing]
    if dry_run or engine.workspace.dry_run:
        outcome.dry_run = True
        return
    if access == Access.CONFIRM:
        _confirm(engine, loc, "mkdir", f"mkdir {loc.lexical_rel}\n", outcome)
    with _locked(engine, loc.real):
        missing = _missing_dirs(loc)
        if not missing:
            return
        engine.workspace.history.record(
            str(loc.real), None, "mkdir", DIR_HASH, kind="dir",
            members=[str(p) for p in missing],
        )  # fmt: skip
        entries.make_dir(loc, parents=True)


def _missing_dirs(loc: Location) -> list[Path]:
    """The directories that do not exist yet on the way to `loc`, outermost first."""
    out: list[Path] = []
    current = loc.real
    while current != loc.root and not os.path.lexists(current):
        out.append(current)
        current = current.parent
    return list(reversed(out))


# -- undo of what these record ------------------------------------------------------------


def is_file_management(entry: Entry) -> bool:
    """True for entries `undo_entry` reverses (a move, delete or mkdir)."""
    return entry.operation in ("move", "delete", "mkdir")


def undo_entry(
    engine: Engine, loc: Location, entry: Entry, outcome: Outcome, dry_run: bool
) -> None:
    """Reverse a move, delete or mkdir recorded at `loc` (its lock held by the caller)."""
    if entry.operation == "mkdir":
        _undo_mkdir(engine, loc, entry, outcome, dry_run)
    elif entry.operation == "delete":
        _undo_delete(engine, loc, entry, outcome, dry_run)
    else:
        _undo_move(engine, loc, entry, outcome, dry_run)


def _at(engine: Engine, real: str) -> Location:
    return engine.workspace.sandbox.resolve(real, expect="any")


def _undo_mkdir(
    engine: Engine, loc: Location, entry: Entry, outcome: Outcome, dry_run: bool
) -> None:
    dirs = [_at(engine, p) for p in reversed(entry.members or [str(loc.real)])]
    for d in dirs:
        if (
            d.exists
            and any(True for _ in os.scandir(d.real))
            and d.real not in {x.real for x in dirs}
        ):
            raise fail("not_empty", loc.given, message=f"directory is not empty: {d.path}")
    outcome.diff = "".join(f"rmdir {d.lexical_rel}\n" for d in dirs if d.exists)
    if dry_run:
        outcome.dry_run = True
        return
    for d in dirs:
        if _same(d).exists:
            try:
                entries.remove(d, "dir")
            except OSError as exc:
                raise fail(
                    "not_empty", loc.given, message=f"directory is not empty: {d.path}"
                ) from exc
    engine.workspace.history.pop(str(loc.real))


def _undo_delete(
    engine: Engine, loc: Location, entry: Entry, outcome: Outcome, dry_run: bool
) -> None:
    """Restore what a delete removed. An entry still there as it was (a delete cut short
    by a crash, or an undo cut short) is only forgotten; one there but different is
    refused, never replaced."""
    history = engine.workspace.history
    members = [_at(engine, p) for p in entry.members or []]
    plan = []
    for item in [loc, *members]:  # parents before children
        last = entry if item is loc else _last(history, item)
        if last is None or last.operation != "delete":
            continue
        plan.append((item, last, _still_there(engine, item, last)))
    outcome.diff = "".join(
        f"restore {item.lexical_rel}\n" for item, _last_entry, there in plan if not there
    )
    if dry_run:
        outcome.dry_run = True
        return
    for item, last, there in plan:
        with _locked(engine, item.real, held=loc.real):
            if not there:
                _restore(engine, _same(item), last)
            history.pop(str(item.real))


def _last(history: Any, item: Location) -> Entry | None:
    found = history.entries(str(item.real))
    return found[-1] if found else None


def _still_there(engine: Engine, item: Location, entry: Entry) -> bool:
    """True when `item` holds what the delete removed; False when it is gone; refused
    (OperationFailed) when something else is there now."""
    now = _same(item)
    if not now.exists and not now.is_link:
        return False
    if entry.kind == "dir" and now.is_dir and not now.is_link:
        return True
    if entry.kind == "symlink" and now.is_link and os.readlink(now.real) == entry.link:
        return True
    if entry.kind == "file" and not now.is_dir and not now.is_link:
        kept = engine.workspace.history.before_bytes(str(item.real), entry)
        if engine.read_bytes(now).data == kept:
            return True
    raise fail("exists", item.given, message=f"{item.path} exists again; undo would replace it")


def _restore(engine: Engine, loc: Location, entry: Entry) -> None:
    from filewright.fs import fsio

    if loc.exists and entry.kind == "dir" and loc.is_dir:
        return
    if entry.kind == "dir":
        entries.make_dir(loc, parents=True)
    elif entry.kind == "symlink":
        entries.make_link(loc, entry.link or "")
    else:
        data = engine.workspace.history.before_bytes(str(loc.real), entry) or b""
        fsio.write_atomic(loc, data, create_parents=True, mode=entry.mode)
        engine.record_read(loc, None)


def _undo_move(
    engine: Engine, loc: Location, entry: Entry, outcome: Outcome, dry_run: bool
) -> None:
    """Undo from either end: the file goes back where it was (and a file it replaced
    comes back)."""
    history = engine.workspace.history
    if entry.moved_to is not None:
        src, dst = loc, _at(engine, entry.moved_to)
        dst_entries = history.entries(str(dst.real))
        if not dst_entries or dst_entries[-1].moved_from != str(src.real):
            if _same(src).exists and not dry_run:
                # Cut short between the two ends' records: the move never happened.
                history.pop(str(src.real))
                return
            raise fail("stale", loc.given, message=f"{dst.path} changed after the move")
        dst_entry = dst_entries[-1]
    else:
        src, dst = _at(engine, entry.moved_from or ""), loc
        dst_entry = entry
    src_now, dst_now = _same(src), _same(dst)
    # Landed: the source is gone and the destination holds it. Otherwise a crash came
    # between history and rename (or an undo was cut short): only the entries go.
    landed = dst_now.exists and not src_now.exists
    outcome.diff = f"rename from {dst.lexical_rel}\nrename to {src.lexical_rel}\n"
    outcome.extra.update(source=str(dst.path), destination=str(src.path))
    if landed and _identity(engine, dst_now) != dst_entry.hash_after:
        raise fail(
            "stale",
            loc.given,
            message=f"{dst.path} changed after the move; undo would lose that",
        )
    if not landed and not src_now.exists:
        raise fail("not_found", loc.given, message=f"neither {src.path} nor {dst.path} holds it")
    if dry_run:
        outcome.dry_run = True
        return
    with _locked(engine, src.real, dst.real, held=loc.real):
        if landed:
            entries.rename(dst_now, src_now)
            seen = engine.last_read(dst)
            engine.record_read(dst, None)
            engine.record_read(src, seen)
            before = history.before_bytes(str(dst.real), dst_entry)
            if before is not None:
                from filewright.fs import fsio

                fsio.write_atomic(_same(dst), before, mode=dst_entry.mode)
        for end in (src, dst):
            last = history.entries(str(end.real))
            if last and last[-1].operation == "move":
                history.pop(str(end.real))


# -- facts ----------------------------------------------------------------------------------


def roots(engine: Engine) -> list[Path]:
    """The directories this workspace allows (real paths)."""
    return engine.workspace.roots


def stat(engine: Engine, path: str) -> dict[str, Any]:
    """A file's or directory's facts: type, size, mode, times; for a text file within the
    size cap also its line count, encoding and hash. Raises OperationFailed."""
    loc, _access = engine.locate(path, purpose="read", expect="any")
    if not loc.exists:
        raise fail("not_found", path, message=f"not found: {path}")
    st = os.stat(loc.real)
    link = os.lstat(loc.path) if loc.is_link else None
    info: dict[str, Any] = {
        "path": str(loc.path),
        "type": "directory" if loc.is_dir else "file",
        "size": st.st_size,
        "mode": f"{stat_module.S_IMODE(st.st_mode):03o}",
        "modified": _iso(st.st_mtime),
        "accessed": _iso(st.st_atime),
        "created": _iso(_birth(st)),
        "is_symlink": link is not None,
        "timestamps": {
            "modified": st.st_mtime,
            "accessed": st.st_atime,
            "created": _birth(st),
        },
    }
    if loc.is_dir or st.st_size > engine.workspace.max_file_bytes:
        return info
    try:
        text, _state = engine.load_text(loc)
    except OperationFailed as exc:
        info["text"] = False
        info["kind"] = exc.failure.code
        return info
    info.update(
        text=True,
        encoding=text.encoding_label,
        lines=text.text.count("\n") + (0 if text.text.endswith("\n") or not text.text else 1),
        newline="crlf" if text.newline == "\r\n" else "lf",
        hash=text.hash,
    )
    return info


def entry_size(engine: Engine, directory: Location, name: str) -> int:
    """The size `stat` gives for `name` in a listed directory (a link's target's when that
    is inside the roots; 0 otherwise, or when it cannot be read)."""
    try:
        loc = engine.workspace.sandbox.resolve(str(directory.path / name), expect="any")
        return os.stat(loc.real).st_size
    except (PathRefused, OSError):
        return 0


def _birth(st: os.stat_result) -> float:
    return getattr(st, "st_birthtime", None) or st.st_ctime


def _iso(seconds: float) -> str:
    return datetime.fromtimestamp(seconds, UTC).isoformat(timespec="milliseconds")


def _inside(child: Path, parent: Path) -> bool:
    return child == parent or str(child).startswith(str(parent).rstrip(os.sep) + os.sep)
