"""The cross-process lock of one file: every change and undo of it holds this lock from
its re-check to its history entry (`locks/<key>.lock` in the state directory).
"""

from __future__ import annotations

import contextlib
import errno
import os
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from filewright.fs import held
from filewright.state.statedir import (
    _PLANTED_LINK,
    _dir_fd,
    _key,
    ensure_state_dir,
    open_at,
)

if TYPE_CHECKING:
    from types import TracebackType

LOCK_TIMEOUT = 30.0

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

    def __init__(self, path: str | Path, timeout: float, operation: str = "") -> None:
        self.path = path
        self.timeout = timeout
        self.operation = operation
        self._fd: int | None = None
        self._portable: Any = None

    def __enter__(self) -> FileLockGuard:
        if fcntl is None:  # pragma: no cover - not POSIX
            return self._enter_portable()
        directory, name = os.path.split(self.path)  # (strings: no Path made per change)
        dfd = _dir_fd(directory, create=True)  # (the locks directory, made once)
        try:
            fd = open_at(dfd, name, os.O_RDWR | os.O_CREAT, directory)[0]
        finally:
            os.close(dfd)
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
        # Who holds it, for whoever finds it locked: always the same 64 bytes (padded), so
        # the lock file keeps its size and the holder's name is not cleared on release;
        # the next holder writes over it. A pwrite that changes nothing of the size costs
        # ~2 us; the truncation a clearing took cost ~20 us (a journalled size change).
        with contextlib.suppress(OSError):
            os.pwrite(fd, _holder_bytes(self.operation), 0)
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
                fcntl.flock(fd, fcntl.LOCK_UN)
            finally:
                os.close(fd)


_NAME_BYTES = 64


def _holder_bytes(operation: str) -> bytes:
    return operation.encode("utf-8", "replace")[:_NAME_BYTES].ljust(_NAME_BYTES, b" ")


def _holder(fd: int) -> str:
    """The operation name the lock's holder wrote into the lock file (it writes it just
    after taking the lock, over its predecessor's; a few tries cover the moment before
    the first holder of a new lock file wrote)."""
    for _ in range(20):
        try:
            name = os.pread(fd, _NAME_BYTES, 0).decode("utf-8", "replace").strip()
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
    base = os.fspath(state_dir)
    # Every change and undo takes this lock first: the file's history directory may not
    # be a link (the files in it are opened without following links).
    _refuse_links_only(f"{base}/history/{key}")
    return FileLockGuard(f"{base}/locks/{key}.lock", timeout, operation)


def _refuse_links_only(path: str) -> None:
    if held.confirmed(path):  # (kept, and still that directory at that path: no link)
        return
    if os.path.islink(path):
        raise OSError(errno.ELOOP, _PLANTED_LINK, path)
