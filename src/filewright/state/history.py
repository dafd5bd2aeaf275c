"""Backups, undo and locks, kept in a state directory the agent cannot see (its checks,
its files and the read ledger: `state.statedir`).

Layout under a root's state directory (`.filewright/` by default):

    history/<key>/index.a.json  one file's change log, newest last, in two slots
    history/<key>/index.b.json  written in turn (the valid one of higher generation counts)
    history/<key>/<n>.bak       the file's bytes before change n
    history/<key>/<n>.tree/     a directory a recursive delete removed (moved here whole)
    sessions/<name>/<key>.json  a session's read ledger: one file per file read
    locks/<key>.lock            the cross-process lock of one file

`<key>` is derived from the file's path relative to its root. Nothing here is ever
replaced by a rename over an existing name or truncated in place: on ext4 either forces
the new data to disk at once (auto_da_alloc), which made the index write cost ~0.3 ms.
State files are opened without following links, so a planted link is refused, never
followed.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import re
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from filewright.core.record import Frozen
from filewright.state.statedir import (
    _PLANTED_LINK,
    _dir_fd,
    _key,
    _open_state_file,
    _read_state_file,
    _unlink,
    _write_bytes,
    _write_json,
    ensure_state_dir,
)

if TYPE_CHECKING:
    from types import TracebackType

DEFAULT_KEEP = 10
DEFAULT_MAX_BYTES = 512 * 1024 * 1024  # all of a root's history: oldest dropped beyond
_PRUNE_CHECK_BYTES = 1024 * 1024  # a record that stores this much checks the total
#: `Entry.hash_after` of a change that left no file (a delete, the source of a move).
ABSENT_HASH = ""
LOCK_TIMEOUT = 30.0
_INDEX_SLOTS = ("index.a.json", "index.b.json")
_LEGACY_INDEX = "index.json"  # one file replaced by rename (before two slots); still read

try:
    import fcntl
except ImportError:  # pragma: no cover - not POSIX: filelock's portable lock instead
    fcntl = None  # type: ignore[assignment]


class LockTimeout(Exception):
    """Another process held the lock for longer than the timeout. `holder`: the name of
    the operation holding it, as it wrote it into the lock file ("" when unknown)."""

    def __init__(self, message: str, holder: str = "") -> None:
        super().__init__(message)
        self.holder = holder


class FileLockGuard:
    """An exclusive cross-process lock on one lock file, as a context manager.

    On POSIX an `flock` on a descriptor opened without following links (a planted link
    is refused), polled until `timeout`: 0.01 ms to take and release, where filelock's
    machinery costs 0.16 ms per change. Elsewhere filelock's portable lock.
    """

    def __init__(self, path: Path, timeout: float, operation: str = "") -> None:
        self.path = path
        self.timeout = timeout
        self.operation = operation
        self._fd: int | None = None
        self._portable: Any = None

    def __enter__(self) -> FileLockGuard:
        if fcntl is None:  # pragma: no cover - not POSIX
            return self._enter_portable()
        fd = _open_state_file(self.path, os.O_RDWR | os.O_CREAT)
        deadline = time.monotonic() + self.timeout
        delay = 0.0005
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    holder = _holder(fd)
                    os.close(fd)
                    raise LockTimeout(
                        f"{self.path} stayed locked for {self.timeout:g} s", holder
                    ) from None
                time.sleep(delay)
                delay = min(delay * 2, 0.05)
            except BaseException:
                os.close(fd)
                raise
        self._fd = fd
        if self.operation:  # who holds it, for whoever finds it locked (cleared on release)
            with contextlib.suppress(OSError):
                os.pwrite(fd, self.operation.encode("utf-8", "replace")[:64], 0)
        return self

    def _enter_portable(self) -> FileLockGuard:  # pragma: no cover - not POSIX
        # deferred: filelock: heavy, loaded only when this runs
        from filelock import FileLock, Timeout

        self._portable = FileLock(str(self.path), timeout=self.timeout)
        try:
            self._portable.acquire()
        except Timeout as exc:
            raise LockTimeout(str(exc)) from None
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        if self._portable is not None:  # pragma: no cover - not POSIX
            self._portable.release()
            self._portable = None
            return
        fd, self._fd = self._fd, None
        if fd is not None:
            try:
                if self.operation:
                    with contextlib.suppress(OSError):
                        os.ftruncate(fd, 0)
                fcntl.flock(fd, fcntl.LOCK_UN)
            finally:
                os.close(fd)


def _holder(fd: int) -> str:
    """The operation name the lock's holder wrote into the lock file (it writes it just
    after taking the lock, so a few tries cover that moment)."""
    for _ in range(20):
        try:
            name = os.pread(fd, 64, 0).decode("utf-8", "replace").strip()
        except OSError:
            return ""
        if name:
            return name
        time.sleep(0.001)
    return ""


def file_lock(
    state_dir: Path, rel: str, timeout: float = LOCK_TIMEOUT, operation: str = ""
) -> FileLockGuard:
    """The inter-process lock guarding read-modify-write of one file; `operation` names
    the holder (see `LockTimeout.holder`)."""
    ensure_state_dir(state_dir)  # refuses links in it and among its entries
    key = _key(rel)
    # Every change and undo takes this lock first: the file's history directory may not
    # be a link (the files in it are opened without following links).
    _refuse_links_only(state_dir / "history" / key)
    locks = state_dir / "locks"
    os.close(_dir_fd(locks, create=True))
    return FileLockGuard(locks / f"{key}.lock", timeout, operation)


def _refuse_links_only(path: Path) -> None:
    if path.is_symlink():
        raise OSError(errno.ELOOP, _PLANTED_LINK, str(path))


_FILE_MANAGEMENT_FIELDS = (
    "entry_type",
    "moved_from",
    "moved_to",
    "members",
    "link",
    "mode",
    "owner",
    "stored_id",
)


class Entry(Frozen):
    """One recorded change: the bytes before it (None: the file did not exist)."""

    _fields = (
        "id",
        "time",
        "operation",
        "existed",
        "hash_after",
        "size_before",
        "kind",
        "size_after",
        "stored",
        "mtime_before",
        *_FILE_MANAGEMENT_FIELDS,
    )
    __slots__ = _fields
    id: int
    time: str
    operation: str
    existed: bool
    hash_after: str
    size_before: int
    # How undo gets the old bytes back: "full" (<id>.bak holds them), "delta" (<id>.delta
    # holds the replaced ranges: a reverse delta), "truncate" (an append: cut the file
    # back to size_before) or "tree" (a recursive delete: <id>.tree is the directory
    # itself, moved there by one rename; `stored` is its files' size). `size_after` and `stored` (bytes kept for it) are -1 / 0 in
    # entries written before these existed.
    kind: str
    size_after: int
    stored: int
    mtime_before: int  # ns; undo gives the file back its mtime (large files' identity)
    # File management (move, delete, mkdir); written only when set, so an index without
    # them reads as before. `entry_type`: "file", "dir" or "symlink" (`link`: its target);
    # `moved_from` / `moved_to`: the other end of a move (real paths); `members`: what a
    # recursive delete or a mkdir of several levels recorded with it (real paths).
    entry_type: str
    moved_from: str | None
    moved_to: str | None
    members: list[str] | None
    link: str | None
    # Permission bits and (uid, gid) of the file before the change, where undo may have to
    # re-create it (a delete, a move over a file, a patch's delete or move).
    mode: int | None
    owner: list[int] | None
    # A large file's kept copy ("full"): "inode:size:mtime_ns" of <id>.bak as stored, so
    # undo can tell that nothing changed it since (see `stored_identity`).
    stored_id: str | None

    def __init__(
        self,
        id: int,
        time: str,
        operation: str,
        existed: bool,
        hash_after: str,
        size_before: int,
        kind: str = "full",
        size_after: int = -1,
        stored: int = 0,
        mtime_before: int = 0,
        entry_type: str = "file",
        moved_from: str | None = None,
        moved_to: str | None = None,
        members: list[str] | None = None,
        link: str | None = None,
        mode: int | None = None,
        owner: list[int] | None = None,
        stored_id: str | None = None,
    ) -> None:
        self._set(
            id,
            time,
            operation,
            existed,
            hash_after,
            size_before,
            kind,
            size_after,
            stored,
            mtime_before,
            entry_type,
            moved_from,
            moved_to,
            members,
            link,
            mode,
            owner,
            stored_id,
        )

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "id": self.id,
            "time": self.time,
            "operation": self.operation,
            "existed": self.existed,
            "hash_after": self.hash_after,
            "size_before": self.size_before,
        }
        if self.kind != "full" or self.size_after >= 0 or self.stored:
            out.update(
                kind=self.kind,
                size_after=self.size_after,
                stored=self.stored,
                mtime_before=self.mtime_before,
            )
        for name in _FILE_MANAGEMENT_FIELDS:
            value = getattr(self, name)
            if value is not None and value != "file":
                out[name] = value
        return out


class History:
    """Per-file change log with the previous bytes of each change, capped at `keep`
    entries per file and at `max_bytes` stored in all (oldest entries dropped first)."""

    def __init__(
        self, state_dir: Path, keep: int = DEFAULT_KEEP, max_bytes: int = DEFAULT_MAX_BYTES
    ) -> None:
        self.state_dir = state_dir
        self.keep = keep
        self.max_bytes = max_bytes
        self.last_pruned: list[dict[str, Any]] = []  # what the last record dropped

    def _dir(self, rel: str) -> Path:
        return self.state_dir / "history" / _key(rel)

    def entries(self, rel: str) -> list[Entry]:
        return self._load(self._dir(rel))[0]

    def _load(self, d: Path) -> tuple[list[Entry], int, str]:
        """(entries, generation, slot to write next) of the index in `d`.

        Of the two slots the valid one with the higher generation counts; the other is
        older, or half-written by a process that was killed. A missing or unreadable
        index is an empty history; a planted link raises OSError(ELOOP).
        """
        raws = [_read_index(d / slot) for slot in _INDEX_SLOTS]
        # Parse the newer slot first; the older one only when the newer is not valid.
        order = sorted(range(2), key=lambda i: _peek_generation(raws[i]), reverse=True)
        for i in order:
            parsed = _parse_index(raws[i])
            if parsed is not None:
                return parsed[0], parsed[1], _INDEX_SLOTS[1 - i]
        legacy = _parse_index(_read_index(d / _LEGACY_INDEX))
        return (legacy[0] if legacy else []), 0, _INDEX_SLOTS[0]

    def _save(self, d: Path, rel: str, entries: list[Entry], generation: int, slot: str) -> None:
        """Write the index into `slot` of `d` (an existing directory)."""
        data = {
            "generation": generation + 1,
            "path": rel,
            "entries": [e.to_dict() for e in entries],
        }
        # The other slot keeps the previous state until this one is complete.
        _write_json(d / slot, data, atomic=False)
        _unlink(d / _LEGACY_INDEX)

    def record(
        self,
        rel: str,
        before: bytes | None,
        operation: str,
        hash_after: str,
        *,
        existed: bool | None = None,
        **fields: Any,
    ) -> Entry:
        """Keep `before` (the bytes the change replaced) and log the change.

        Call with the file's lock held (`file_lock`). The backup is written before the
        index, so an interrupted record leaves at most an unreferenced .bak file.
        `existed` (default: `before is not None`) and `fields` (the optional fields of
        `Entry`: kind, moved_from, moved_to, members, link, mode) describe file-management
        changes, whose "before" is not bytes (a directory, a move, a link).
        """
        d = self._dir(rel)
        entries, generation, slot = self._load(d)
        next_id = (entries[-1].id + 1) if entries else 1
        os.close(_dir_fd(d, create=True))
        if before is not None:
            # Written in place, not renamed into place: until the index names it, a
            # half-written backup is never read (and the next record overwrites it).
            _write_bytes(d / f"{next_id}.bak", before, atomic=False)
        entry = Entry(
            id=next_id,
            time=_now_iso(),
            operation=operation,
            existed=before is not None if existed is None else existed,
            hash_after=hash_after,
            size_before=len(before) if before is not None else 0,
            **fields,
        )
        entries.append(entry)
        dropped, entries = entries[: -self.keep], entries[-self.keep :]
        self._save(d, rel, entries, generation, slot)
        for old in dropped:
            _unlink_stored(d, old.id)
        return entry

    def before_bytes(self, rel: str, entry: Entry) -> bytes | None:
        if not entry.existed or entry.entry_type != "file" or entry.moved_to is not None:
            return None  # nothing kept: it did not exist, or it is not a file's bytes
        return _read_state_file(self._dir(rel) / f"{entry.id}.bak")

    def pop(self, rel: str) -> None:
        """Forget the newest entry (after it was undone)."""
        d = self._dir(rel)
        entries, generation, slot = self._load(d)
        if not entries:
            return
        last = entries.pop()
        self._save(d, rel, entries, generation, slot)
        _unlink_stored(d, last.id)

    def record_large(
        self,
        rel: str,
        operation: str,
        hash_after: str,
        *,
        kind: str,
        size_before: int,
        size_after: int,
        delta: bytes | None = None,
        store: Callable[[int, str], int] | None = None,
        mtime_before: int = 0,
    ) -> Entry | None:
        """Log a change of a large file: with a reverse `delta` ("delta"), nothing stored
        ("truncate": an append), or the old bytes put in place by `store(path)` ("full",
        say as a hard link; it is given the history directory's descriptor and the name,
        and returns the bytes it stored).

        Call with the file's lock held. Returns None, keeping nothing, when what undo
        needs is larger than `max_bytes`; `last_pruned` lists what older entries were
        dropped to stay under it.
        """
        self.last_pruned = []
        d = self._dir(rel)
        entries, generation, slot = self._load(d)
        next_id = (entries[-1].id + 1) if entries else 1
        os.close(_dir_fd(d, create=True))
        stored = 0
        stored_id = None
        if delta is not None:
            if len(delta) > self.max_bytes:
                return None
            _write_bytes(d / f"{next_id}.delta", delta, atomic=False)
            stored = len(delta)
        elif store is not None:
            if size_before > self.max_bytes:
                return None
            name = f"{next_id}.bak"
            dfd = _dir_fd(d)
            try:
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(name, dir_fd=dfd)
                stored = store(dfd, name)
                stored_id = stored_identity(os.stat(name, dir_fd=dfd, follow_symlinks=False))
            finally:
                os.close(dfd)
        entry = Entry(
            id=next_id,
            time=_now_iso(),
            operation=operation,
            existed=True,
            hash_after=hash_after,
            size_before=size_before,
            kind=kind,
            size_after=size_after,
            stored=stored,
            mtime_before=mtime_before,
            stored_id=stored_id,
        )
        entries.append(entry)
        dropped, entries = entries[: -self.keep], entries[-self.keep :]
        self._save(d, rel, entries, generation, slot)
        for old in dropped:
            _unlink_stored(d, old.id)
        if stored >= _PRUNE_CHECK_BYTES:
            self.last_pruned = self.prune(keep_newest_of=rel)
        return entry

    def amend_last(self, rel: str, hash_after: str) -> None:
        """Set the newest entry's `hash_after` (an append's, once the append is done)."""
        d = self._dir(rel)
        entries, generation, slot = self._load(d)
        if entries:
            entries[-1] = entries[-1].replace(hash_after=hash_after)
            self._save(d, rel, entries, generation, slot)

    def tree_at(self, rel: str, entry_id: int) -> tuple[Path, str]:
        """Where the directory a recursive delete of `rel` removed is kept (entry
        `entry_id`, kind "tree"): a base directory and a path below it, for
        `fs.entries`' descriptor walks (its history directory is made if missing)."""
        os.close(_dir_fd(self._dir(rel), create=True))
        return self.state_dir / "history", f"{_key(rel)}/{entry_id}.tree"

    def delta_bytes(self, rel: str, entry: Entry) -> bytes:
        """The reverse delta of a "delta" entry."""
        return _read_state_file(self._dir(rel) / f"{entry.id}.delta")

    def backup_path(self, rel: str, entry: Entry) -> Path:
        """Where a "full" entry's old bytes are (open it without following links)."""
        return self._dir(rel) / f"{entry.id}.bak"

    def total_bytes(self) -> int:
        """Bytes held by all backups and deltas of this state directory."""
        # deferred: the size cap's accounting (state.budget) only for `history --prune` or
        # a large record; a read, which opens the history, never loads it
        from filewright.state.budget import stored

        return sum(item.size for item in stored(self))

    def prune(
        self, max_bytes: int | None = None, *, keep_newest_of: str | None = None
    ) -> list[dict[str, Any]]:
        """Drop the oldest entries (of any file) until what is stored fits `max_bytes`
        (default: the history's own cap); see `state.budget.prune`."""
        # deferred: as in `total_bytes`
        from filewright.state.budget import prune

        return prune(self, self.max_bytes if max_bytes is None else max_bytes, keep_newest_of)

    def forget_through(self, d: Path, entry_id: int) -> str:
        """Drop entry `entry_id` of the history in `d` and every older one (undo goes
        newest first: they could never be reached); returns the file's path."""
        entries, generation, slot = self._load(d)
        rel = ""
        raw = _read_index(d / _INDEX_SLOTS[0]) or _read_index(d / _INDEX_SLOTS[1])
        with contextlib.suppress(ValueError, TypeError, AttributeError):
            rel = str(json.loads(raw or b"{}").get("path", ""))
        keep = [e for e in entries if e.id > entry_id]
        if len(keep) != len(entries):
            self._save(d, rel, keep, generation, slot)
        for e in entries:
            if e.id <= entry_id:
                _unlink_stored(d, e.id)
        _unlink_stored(d, entry_id)
        return rel

    def files(self) -> list[str]:
        """Paths (relative to the root) that have history."""
        out: list[str] = []
        base = self.state_dir / "history"
        try:
            fd = _dir_fd(base)
        except OSError:
            return out
        try:
            names = os.listdir(fd)
        finally:
            os.close(fd)
        for d in sorted(base / name for name in names):
            for name in (*_INDEX_SLOTS, _LEGACY_INDEX):
                try:
                    path = json.loads(_read_state_file(d / name))["path"]
                except (OSError, ValueError, KeyError, TypeError):
                    continue
                if isinstance(path, str):
                    out.append(path)
                    break
        return sorted(out)


def stored_identity(st: os.stat_result) -> str:
    """What a kept copy is, to notice any change to it: inode, size, modification time."""
    return f"{st.st_ino}:{st.st_size}:{st.st_mtime_ns}"


def _unlink_stored(d: Path, entry_id: int) -> None:
    """Remove what an entry stored (backup, delta, or a deleted directory's tree), through
    the directory's descriptor."""
    for suffix in ("bak", "delta"):
        with contextlib.suppress(OSError):
            _unlink(d / f"{entry_id}.{suffix}")
    try:
        dfd = _dir_fd(d)
    except OSError:
        return
    try:
        # deferred: shutil (and what it imports) only to remove a deleted directory's copy
        import shutil

        # By descriptors, links not followed (shutil's fd-based rmtree).
        shutil.rmtree(f"{entry_id}.tree", dir_fd=dfd, ignore_errors=True)
    finally:
        os.close(dfd)


def _read_index(path: Path) -> bytes | None:
    """An index file's bytes; None when missing or unreadable (a planted link raises)."""
    try:
        return _read_state_file(path)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise
        return None


_GENERATION = re.compile(rb'\{"generation":(\d{1,18}),')


def _peek_generation(raw: bytes | None) -> int:
    """The generation an index says it has (-1: none), read off its start unparsed."""
    found = _GENERATION.match(raw) if raw else None
    return int(found.group(1)) if found else -1


def _parse_index(raw: bytes | None) -> tuple[list[Entry], int] | None:
    """(entries, generation) of an index; None when missing, partial or malformed."""
    if raw is None:
        return None
    try:
        data = json.loads(raw)
        generation = data.get("generation", 0)
        entries = [Entry(**e) for e in data.get("entries", [])]
    except (ValueError, AttributeError, TypeError):
        return None
    if not isinstance(generation, int):
        return None
    return entries, generation


def _now_iso() -> str:
    """2025-01-12T10:30:00.000+00:00 (UTC, milliseconds)."""
    now = time.time()
    base = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(now))
    return f"{base}.{int(now * 1000) % 1000:03d}+00:00"


def timestamp_for_filename() -> str:
    """2025-01-12T10-30-00-000Z, as in the claude seed's backup names."""
    now = time.time()
    base = time.strftime("%Y-%m-%dT%H-%M-%S", time.gmtime(now))
    return f"{base}-{int(now * 1000) % 1000:03d}Z"
