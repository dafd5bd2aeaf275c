"""Backups, undo and the read ledger, kept in a state directory the agent cannot see.

Layout under a root's state directory (`.filewright/` by default):

    history/<key>/index.json    one file's change log: newest last
    history/<key>/<n>.bak       the file's bytes before change n
    sessions/<name>/<key>.json  a session's read ledger: one file per file read
    locks/<key>.lock            the cross-process lock of one file

`<key>` is derived from the file's path relative to its root.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import json
import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from types import TracebackType

DEFAULT_KEEP = 10
LOCK_TIMEOUT = 30.0


def _key(rel: str) -> str:
    return hashlib.sha256(rel.encode("utf-8", "surrogatepass")).hexdigest()[:24]


def _refuse_links(*paths: Path) -> None:
    """Raise OSError(ELOOP) when a path, or an entry of a directory among them, is a symlink.

    filewright never makes a symlink in its state directory, so one found there was planted
    (say, by a repository that ships `.filewright -> ~/x` or `.filewright/history/<key>/1.bak
    -> ~/.ssh/id_rsa`); following it would write backups, locks or ledgers outside the
    workspace, or let undo copy an outside file into it.
    """
    for path in paths:
        if path.is_symlink():
            raise OSError(
                errno.ELOOP, "symlink in filewright's state directory (remove it)", str(path)
            )
        if path.is_dir():
            for entry in os.scandir(path):
                if entry.is_symlink():
                    raise OSError(
                        errno.ELOOP,
                        "symlink in filewright's state directory (remove it)",
                        entry.path,
                    )


def check_state_dir(state_dir: Path) -> None:
    """Refuse (ValueError) a state directory that is, or directly holds, a symlink."""
    try:
        _refuse_links(state_dir)
    except OSError as exc:
        raise ValueError(f"{exc.strerror}: {exc.filename}") from None
    if state_dir.exists() and not state_dir.is_dir():
        raise ValueError(f"filewright's state directory is not a directory: {state_dir}")


def ensure_state_dir(state_dir: Path) -> Path:
    """Create the state directory with a .gitignore so it never lands in a repository."""
    _refuse_links(state_dir)
    state_dir.mkdir(parents=True, exist_ok=True)
    ignore = state_dir / ".gitignore"
    if not ignore.exists():
        with contextlib.suppress(OSError):
            ignore.write_text("*\n", encoding="utf-8")
    return state_dir


def _write_json(path: Path, data: Any) -> None:
    _write_bytes(path, json.dumps(data, ensure_ascii=False, separators=(",", ":")).encode("utf-8"))


def _write_bytes(path: Path, data: bytes, *, atomic: bool = True) -> None:
    """Replace `path` atomically (temp file + rename; or in place when not `atomic`),
    without following a planted link.

    State files are not fsynced: a killed process leaves the old or the new file either
    way, and only a power loss could lose a backup, never the user's file (which
    `fsio.write_atomic` does fsync). This halves the cost of every change.
    """
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp") if atomic else path
    # A fresh inode every time: a name planted as a hard link to some file elsewhere is
    # unlinked here, never truncated through.
    with contextlib.suppress(FileNotFoundError):
        os.unlink(tmp)
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
    finally:
        os.close(fd)
    if atomic:
        os.replace(tmp, path)


class LockTimeout(Exception):
    """Another process held the lock for longer than the timeout."""


class FileLockGuard:
    """A cross-process file lock (filelock, imported when first taken) as a context manager."""

    def __init__(self, path: Path, timeout: float) -> None:
        from filelock import FileLock

        self._lock = FileLock(str(path), timeout=timeout)

    def __enter__(self) -> FileLockGuard:
        from filelock import Timeout

        try:
            self._lock.acquire()
        except Timeout as exc:
            raise LockTimeout(str(exc)) from None
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self._lock.release()


def file_lock(state_dir: Path, rel: str, timeout: float = LOCK_TIMEOUT) -> FileLockGuard:
    """The inter-process lock guarding read-modify-write of one file."""
    locks = ensure_state_dir(state_dir) / "locks"
    # Every change and undo takes this lock first: nothing they will touch may be a link.
    _refuse_links(locks / f"{_key(rel)}.lock", state_dir / "history" / _key(rel))
    locks.mkdir(exist_ok=True)
    return FileLockGuard(locks / f"{_key(rel)}.lock", timeout)


@dataclass(frozen=True)
class Entry:
    """One recorded change: the bytes before it (None: the file did not exist)."""

    id: int
    time: str
    operation: str
    existed: bool
    hash_after: str
    size_before: int

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "time": self.time,
            "operation": self.operation,
            "existed": self.existed,
            "hash_after": self.hash_after,
            "size_before": self.size_before,
        }


class History:
    """Per-file change log with the previous bytes of each change, capped at `keep`."""

    def __init__(self, state_dir: Path, keep: int = DEFAULT_KEEP) -> None:
        self.state_dir = state_dir
        self.keep = keep

    def _dir(self, rel: str) -> Path:
        return self.state_dir / "history" / _key(rel)

    def entries(self, rel: str) -> list[Entry]:
        index = self._dir(rel) / "index.json"
        try:
            raw = json.loads(index.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return []
        return [Entry(**e) for e in raw.get("entries", [])]

    def _save(self, rel: str, entries: list[Entry]) -> None:
        d = self._dir(rel)
        d.mkdir(parents=True, exist_ok=True)
        _write_json(d / "index.json", {"path": rel, "entries": [e.to_dict() for e in entries]})

    def record(self, rel: str, before: bytes | None, operation: str, hash_after: str) -> Entry:
        """Keep `before` (the bytes the change replaced) and log the change.

        Call with the file's lock held. The backup is written before the index, so an
        interrupted record leaves at most an unreferenced .bak file.
        """
        ensure_state_dir(self.state_dir)
        entries = self.entries(rel)
        next_id = (entries[-1].id + 1) if entries else 1
        d = self._dir(rel)
        d.mkdir(parents=True, exist_ok=True)
        if before is not None:
            # Written in place, not renamed into place: until the index names it, a
            # half-written backup is never read (and the next record overwrites it).
            _write_bytes(d / f"{next_id}.bak", before, atomic=False)
        entry = Entry(
            id=next_id,
            time=_now_iso(),
            operation=operation,
            existed=before is not None,
            hash_after=hash_after,
            size_before=len(before) if before is not None else 0,
        )
        entries.append(entry)
        dropped, entries = entries[: -self.keep], entries[-self.keep :]
        self._save(rel, entries)
        for old in dropped:
            with contextlib.suppress(OSError):
                (d / f"{old.id}.bak").unlink()
        return entry

    def before_bytes(self, rel: str, entry: Entry) -> bytes | None:
        if not entry.existed:
            return None
        return (self._dir(rel) / f"{entry.id}.bak").read_bytes()

    def pop(self, rel: str) -> None:
        """Forget the newest entry (after it was undone)."""
        entries = self.entries(rel)
        if not entries:
            return
        last = entries.pop()
        self._save(rel, entries)
        with contextlib.suppress(OSError):
            (self._dir(rel) / f"{last.id}.bak").unlink()

    def files(self) -> list[str]:
        """Paths (relative to the root) that have history."""
        out = []
        base = self.state_dir / "history"
        if not base.is_dir():
            return out
        for d in sorted(base.iterdir()):
            try:
                out.append(json.loads((d / "index.json").read_text(encoding="utf-8"))["path"])
            except (OSError, ValueError, KeyError):
                continue
        return sorted(out)


class ReadLedger:
    """What the agent last read: real path -> content hash.

    In memory, or persisted in a directory with one small file per file read (so
    separate CLI invocations share one session, and concurrent processes see each
    other's records without a lock: each record is one atomic rename).
    """

    def __init__(self, path: Path | None = None) -> None:
        self.path = path
        self._memory: dict[str, str] = {}

    def _entry(self, real: Path) -> Path:
        assert self.path is not None
        return self.path / f"{_key(str(real))}.json"

    def get(self, real: Path) -> str | None:
        if self.path is None:
            return self._memory.get(str(real))
        try:
            data = json.loads(self._entry(real).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        if not isinstance(data, dict) or data.get("path") != str(real):
            return None
        digest = data.get("hash")
        return digest if isinstance(digest, str) else None

    def record(self, real: Path, digest: str | None) -> None:
        if self.path is None:
            if digest is None:
                self._memory.pop(str(real), None)
            else:
                self._memory[str(real)] = digest
            return
        entry = self._entry(real)
        if digest is None:
            with contextlib.suppress(FileNotFoundError):
                entry.unlink()
            return
        _refuse_links(self.path.parent)
        if self.path.is_symlink() or entry.is_symlink():
            raise OSError(errno.ELOOP, "symlink in filewright's state directory", str(entry))
        if self.path.exists() and not self.path.is_dir():
            raise OSError(
                errno.ENOTDIR, "filewright's session ledger is not a directory", str(self.path)
            )
        self.path.mkdir(parents=True, exist_ok=True)
        _write_json(entry, {"path": str(real), "hash": digest})


def _now_iso() -> str:
    from datetime import UTC, datetime

    return datetime.now(UTC).isoformat(timespec="milliseconds")


def timestamp_for_filename() -> str:
    """2025-01-12T10-30-00-000Z, as in the claude seed's backup names."""
    now = time.time()
    from datetime import UTC, datetime

    base = datetime.fromtimestamp(now, UTC).strftime("%Y-%m-%dT%H-%M-%S")
    return f"{base}-{int(now * 1000) % 1000:03d}Z"
