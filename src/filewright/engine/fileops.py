"""File management through the one pipeline: move, delete and mkdir; stat and roots.

A change here goes the way `pipeline.apply_change` goes, with the steps a directory entry
needs: resolve every end in the sandbox → policy on every path it touches (both ends of a
move, every entry of a directory moved or deleted: `read`, `deny` or `hidden` anywhere
refuses, `confirm` anywhere asks) → preconditions → preview (a dry run returns here) →
confirm → lock (both ends, in a fixed order) → re-check → record history first
(write-ahead) → act → read ledger. Failures come back as `Outcome.failure`; nothing is
touched on any failure path. `fileundo` reverses what these record.
"""

from __future__ import annotations

import errno
import os
import stat as stat_module
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from filewright.core.result import OperationFailed, fail
from filewright.engine.change import Outcome
from filewright.engine.entrysteps import (
    DIR_HASH,
    GONE,
    REFUSED,
    check_stale,
    confirm,
    current,
    entry_access,
    guarded,
    identity,
    inside,
    locate_entry,
    locked,
    text_diff,
    trash_location,
    tree_access,
    visible,
)
from filewright.engine.workspace import Engine, disk_failures
from filewright.fs import entries, fsio
from filewright.fs.paths import Location, PathRefused
from filewright.policy.rules import Access, Risk

MAX_TREE_ENTRIES = 10_000  # a directory deleted recursively: entries judged one by one


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
    return guarded(
        source, outcome, lambda: _move(engine, source, destination, overwrite, dry_run, outcome)
    )


def _move(
    engine: Engine, source: str, destination: str, overwrite: bool, dry_run: bool, outcome: Outcome
) -> None:
    src, src_access = locate_entry(engine, source)
    outcome.loc = src
    if not src.exists:
        raise fail("not_found", source, message=f"not found: {source}")
    if src.is_link:
        raise fail("symlink", source, message=f"{source} is a symbolic link; links are not moved")
    dst, dst_access = locate_entry(engine, destination)
    if dst.real == src.real:
        raise fail("same_path", destination, message="source and destination are the same")
    if inside(dst.real, src.real):
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
    found, tree = (
        tree_access(engine, src, entries.walk(src), dst) if src.is_dir else ([], Access.WRITE)
    )
    needs_confirm = Access.CONFIRM in (src_access, dst_access, tree)
    replaced = engine.read_bytes(dst) if replacing else None
    old = replaced.data if replaced is not None else None
    if replacing:
        may_replace(dst)  # a read-only file is not moved over
        check_stale(engine, dst, old)
    outcome.risk = Risk.HIGH if replacing else Risk.MEDIUM
    outcome.diff = f"rename from {src.lexical_rel}\nrename to {dst.lexical_rel}\n"
    if old is not None:
        outcome.diff += text_diff(old, dst.lexical_rel)
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
        confirm(engine, src, "move", outcome.diff, outcome)
    with locked(engine, src.real, dst.real):
        now_src, now_dst = current(src), current(dst)
        if not now_src.exists:  # another process moved or deleted it meanwhile
            raise fail("not_found", source, message=f"not found: {source}")
        if now_src.is_dir != src.is_dir or now_src.is_link:
            raise fail("stale", source, message=f"{source} changed while in use")
        if now_dst.exists != replacing:
            raise fail("exists", destination, message=f"destination already exists: {destination}")
        if replacing and engine.read_bytes(dst).data != old:
            raise fail("stale", destination, message=f"{destination} changed while in use")
        ident = identity(engine, src)
        kind = "dir" if src.is_dir else "file"
        ws = engine.workspace
        # Write-ahead: both ends' history first; undo recognises a move that never landed.
        ws.history.record(
            str(src.real), None, "move", GONE, existed=True, entry_type=kind, moved_to=str(dst.real)
        )
        meta: dict[str, Any] = {}
        if replaced is not None:  # undo re-creates it as it was
            meta = {"mode": replaced.mode, "owner": _owner(replaced)}
        ws.history.record(
            str(dst.real), old, "move", ident, entry_type=kind, moved_from=str(src.real), **meta
        )
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
    return guarded(path, outcome, lambda: _delete(engine, path, recursive, dry_run, outcome))


def _delete(engine: Engine, path: str, recursive: bool, dry_run: bool, outcome: Outcome) -> None:
    loc, access = locate_entry(engine, path)
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
        found = entries.walk(loc)  # names, kinds, modes and sizes: no file is read
        if len(found) > MAX_TREE_ENTRIES:
            raise fail(
                "too_large",
                path,
                message=f"{len(found)} entries (limit {MAX_TREE_ENTRIES} judged for a delete)",
            )
        if found and not recursive and any(visible(engine, loc, item) for item in found):
            raise fail(
                "not_empty",
                path,
                message=f"directory is not empty: {path} (pass recursive to delete it "
                "and everything in it)",
            )
        found, tree = tree_access(engine, loc, found)  # invisible entries refuse here
        if any(item.kind == "special" for item in found):
            raise fail("not_regular", path, message=f"{path} holds a device, FIFO or socket")
        for item in found:  # the one "may it be removed" check, on every file it holds
            if item.kind == "file" and not item.mode & 0o222:
                raise fail("permission", path, message=f"file is read-only: {path}/{item.rel}")
        if tree == Access.CONFIRM:
            access = Access.CONFIRM
        data = None
    else:
        kind, found = "file", []
        state = engine.read_bytes(loc)
        data = state.data
        may_replace(loc)  # a read-only file is not deleted
        check_stale(engine, loc, data)
    outcome.diff = text_diff(data, loc.lexical_rel)
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
        confirm(engine, loc, "delete", outcome.diff, outcome)
    with locked(engine, loc.real):
        now = current(loc)
        if not now.exists and not now.is_link:  # deleted or moved meanwhile
            raise fail("not_found", path, message=f"not found: {path}")
        if now.is_dir != loc.is_dir or now.is_link != loc.is_link:
            raise fail("stale", path, message=f"{path} changed while in use")
        if kind == "file" and engine.read_bytes(loc).data != data:
            raise fail("stale", path, message=f"{path} changed while in use")
        if kind == "dir":
            again, _tree = tree_access(engine, loc, entries.walk(loc))
            if again != found:
                raise fail("stale", path, message=f"{path} changed while in use")
        if found:
            _to_trash(engine, loc, found)
        else:
            _record_delete(engine, loc, kind, data)
            entries.remove(loc, kind)
        engine.record_read(loc, None)


def _to_trash(engine: Engine, loc: Location, found: list[entries.TreeEntry]) -> None:
    """A recursive delete: history first (write-ahead), then the directory goes whole
    into the history's trash by one rename (modes, owners, links, times kept; nothing
    read or copied); undo renames it back."""
    history = engine.workspace.history
    size = sum(item.size for item in found if item.kind == "file")
    entry = history.record(
        str(loc.real), None, "delete", GONE, existed=True, entry_type="dir", kind="tree",
        stored=size,
    )  # fmt: skip
    try:
        entries.rename(loc, trash_location(engine, loc, entry.id))
    except BaseException as exc:
        history.pop(str(loc.real))
        if isinstance(exc, OSError) and exc.errno == errno.EXDEV:
            raise fail(
                "cross_device",
                loc.given,
                message=f"cannot delete {loc.given} recursively: filewright's state "
                "directory, where undo keeps it, is on another file system",
            ) from None
        raise
    if size >= 1024 * 1024:  # keep the whole history under its cap
        history.prune(keep_newest_of=str(loc.real))


def _owner(state: fsio.FileState) -> list[int]:
    return [state.uid, state.gid]


def may_replace(loc: Location) -> None:
    """The one "may this entry be replaced or removed" check (`fsio.check_writable`)."""
    try:
        fsio.check_writable(loc)
    except PathRefused as exc:
        raise fail(exc.code, loc.given, message=exc.detail) from None


def _link_location(engine: Engine, path: str, loc: Location) -> Location:
    """The link itself (not its target): its parent resolved, its own name kept."""
    parent = engine.workspace.sandbox.resolve(str(loc.path.parent), expect="dir")
    name = loc.path.name

    rel = name if parent.rel == "." else f"{parent.rel}/{name}"
    link = parent.replace(
        given=path, path=loc.path, real=parent.real / name, rel=rel,
        lexical_rel=loc.lexical_rel, exists=True, is_dir=False, is_link=True,
    )  # fmt: skip
    access = engine.access(link)
    if access in REFUSED:
        raise fail("protected", path, message=f"protected file: {path}")
    return link


def _record_delete(engine: Engine, loc: Location, kind: str, data: bytes | None) -> None:
    """History first: a file's bytes, mode and owner; a link's target; a directory's
    (empty) entry."""
    history = engine.workspace.history
    if kind == "file":
        st = entries.lstat(loc)
        mode = stat_module.S_IMODE(st.st_mode) if st is not None else None
        owner = [st.st_uid, st.st_gid] if st is not None else None
        history.record(str(loc.real), data, "delete", GONE, mode=mode, owner=owner)
    else:
        link = os.readlink(loc.real) if kind == "symlink" else None
        history.record(
            str(loc.real), None, "delete", GONE, existed=True, entry_type=kind, link=link
        )


# -- mkdir ----------------------------------------------------------------------------------


def mkdir(engine: Engine, path: str, *, dry_run: bool = False) -> Outcome:
    """Create a directory and its missing parents; an existing directory is fine."""
    outcome = Outcome(ok=False)
    return guarded(path, outcome, lambda: _mkdir(engine, path, dry_run, outcome))


def _mkdir(engine: Engine, path: str, dry_run: bool, outcome: Outcome) -> None:
    loc, access = locate_entry(engine, path)
    if not loc.exists and os.path.lexists(loc.path):
        # made since it was located (another process's mkdir of the same path): look again;
        # what is there and still not located is no directory (a dangling link, say)
        loc, access = locate_entry(engine, path)
        if not loc.exists and os.path.lexists(loc.path):
            raise fail("exists", path, message=f"a file already exists at {path}")
    # (asked once: a directory another process makes from here on is found under the lock)
    outcome.loc = loc
    if loc.exists and not loc.is_dir:
        raise fail("exists", path, message=f"a file already exists at {path}")
    outcome.risk = Risk.LOW
    if loc.exists:
        outcome.extra["created_dirs"] = []
        return
    missing = _missing_dirs(loc)
    for real in missing:
        rel = real.relative_to(loc.root).as_posix()
        if entry_access(engine, rel, real, True) in REFUSED:
            raise fail("protected", path, message=f"protected path: {rel}")
    outcome.created = True
    outcome.extra["created_dirs"] = [str(p) for p in missing]
    if dry_run or engine.workspace.dry_run:
        outcome.dry_run = True
        return
    if access == Access.CONFIRM:
        confirm(engine, loc, "mkdir", f"mkdir {loc.lexical_rel}\n", outcome)
    with locked(engine, loc.real):
        missing = _missing_dirs(loc)
        if not missing:
            return
        engine.workspace.history.record(
            str(loc.real), None, "mkdir", DIR_HASH, entry_type="dir",
            members=[str(p) for p in missing],
        )  # fmt: skip
        entries.make_dir(loc, parents=True)


def _missing_dirs(loc: Location) -> list[Path]:
    """The directories that do not exist yet on the way to `loc`, outermost first."""
    out: list[Path] = []
    here = loc.real
    while here != loc.root and not os.path.lexists(here):
        out.append(here)
        here = here.parent
    return list(reversed(out))


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
    with disk_failures(path):
        st = fsio.stat_entry(loc)  # (by descriptors: a link swapped in is refused)
    info: dict[str, Any] = {
        "path": str(loc.path),
        "type": "directory" if loc.is_dir else "file",
        "size": st.st_size,
        "mode": f"{stat_module.S_IMODE(st.st_mode):03o}",
        "modified": _iso(st.st_mtime),
        "accessed": _iso(st.st_atime),
        "created": _iso(_birth(st)),
        "is_symlink": loc.is_link,
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
    is inside the roots and visible; 0 otherwise, or when it cannot be read: a link to a
    hidden or denied file tells nothing of it)."""
    try:
        loc = engine.workspace.sandbox.resolve(str(directory.path / name), expect="any")
        if engine.access(loc) in (Access.DENY, Access.HIDDEN):
            return 0
        return fsio.stat_entry(loc).st_size
    except (PathRefused, OSError):
        return 0


def _birth(st: os.stat_result) -> float:
    return getattr(st, "st_birthtime", None) or st.st_ctime


def _iso(seconds: float) -> str:
    return datetime.fromtimestamp(seconds, UTC).isoformat(timespec="milliseconds")
