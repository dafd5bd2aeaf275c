"""Disk access for files of any size: chunked reads, streamed atomic rewrites, in-place
appends and truncation, and a content identity that does not read the whole file.

A streamed rewrite writes the new bytes to an unnamed temporary file in the file's own
directory (O_TMPFILE; a named `.fwtmp` file where that is missing), fsyncs it, and renames
it over the file, exactly as `fsio.write_atomic` does for bytes in memory. An append opens
the file with O_APPEND, writes and fsyncs: it costs what it appends.

`identity` names a file's content for stale-read checks: the sha256 of its bytes up to
`hash_limit`, above that a fingerprint (size, mtime and the sha256 of its first and
last 64 KB: `fs.fingerprint`), so a read or an append of a gigabyte file never hashes a
gigabyte.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import os
import queue
import stat
import threading
import time
from collections.abc import Iterable, Iterator
from typing import Any

from filewright.core.record import Frozen
from filewright.fs.fingerprint import HEAD_BYTES, fingerprint
from filewright.fs.fsio import (
    _O_NOFOLLOW,
    _O_TMPFILE,
    _PROC_FD,
    TEMP_SUFFIX,
    _have_proc_fd,
    _open_regular,
    _parts,
    _swapped,
    open_dir,
)
from filewright.fs.paths import Location, PathRefused

CHUNK_BYTES = 1 << 20
_QUEUED = 2  # lists of pieces waiting for the writer thread
_BATCH_BYTES = 1 << 20  # about this much in each list


class Opened(Frozen):
    """A regular file opened for reading: descriptor and its stat."""

    _fields = ("fd", "st")
    __slots__ = _fields
    fd: int
    st: os.stat_result

    def __init__(self, fd: int, st: os.stat_result) -> None:
        self._set(fd, st)

    @property
    def size(self) -> int:
        return self.st.st_size


@contextlib.contextmanager
def open_file(loc: Location) -> Iterator[Opened]:
    """Open the regular file at `loc` for reading (no link followed); closed on exit."""
    fd, st = _open_regular(loc)
    try:
        yield Opened(fd, st)
    finally:
        os.close(fd)


def chunks(fd: int, start: int = 0, size: int = CHUNK_BYTES) -> Iterator[bytes]:
    """The bytes of `fd` from `start` to its end, in chunks of `size`."""
    pos = start
    while True:
        chunk = os.pread(fd, size, pos)
        if not chunk:
            return
        pos += len(chunk)
        yield chunk


def head(fd: int, size: int = HEAD_BYTES) -> bytes:
    return os.pread(fd, size, 0)


def identity(fd: int, st: os.stat_result, hash_limit: int) -> str:
    """The content identity of an open file (see the module docstring)."""
    if st.st_size <= hash_limit:
        hasher = hashlib.sha256()
        for chunk in chunks(fd):
            hasher.update(chunk)
        return hasher.hexdigest()
    return fingerprint(fd, st)


class Staged:
    """A new version of the file at `loc`, written in pieces, then put in place atomically.

    Use as a context manager: `write` pieces, `commit()`; leaving without a commit
    discards the temporary file. `identity(hash_limit)` names the new content (after the
    data is synced, before the rename, so it is what the file will hold).
    """

    def __init__(self, loc: Location, like: os.stat_result | None, *, hashing: bool = True) -> None:
        self.loc = loc
        parts = _parts(loc.rel)
        if not parts:
            raise PathRefused("is_directory", loc.given, f"path is a directory: {loc.given}")
        self.name = parts[-1]
        self._dir = open_dir(loc.root, parts[:-1])
        self.dfd = self._dir.__enter__()
        self.like = like
        self.fd = -1
        self.tmp: str | None = None  # named temporary file (no O_TMPFILE)
        self.size = 0
        self._hasher: Any = hashlib.sha256() if hashing else None
        self._thread: threading.Thread | None = None
        self._error: BaseException | None = None
        self._open()

    def _open(self) -> None:
        sweep_orphans(self.dfd, self.name)
        perm = 0o600
        if _O_TMPFILE and _have_proc_fd():
            try:
                self.fd = os.open(".", os.O_RDWR | _O_TMPFILE | os.O_CLOEXEC, perm, dir_fd=self.dfd)
                return
            except OSError as exc:
                if exc.errno not in (errno.EOPNOTSUPP, errno.EISDIR, errno.EINVAL, errno.ENOENT):
                    raise
        self.tmp = f".{self.name[:100]}.{os.urandom(6).hex()}{TEMP_SUFFIX}"
        self.fd = os.open(
            self.tmp, os.O_RDWR | os.O_CREAT | os.O_EXCL | _O_NOFOLLOW | os.O_CLOEXEC, perm,
            dir_fd=self.dfd,
        )  # fmt: skip

    def __enter__(self) -> Staged:
        return self

    def write(self, pieces: Iterable[bytes | memoryview]) -> None:
        """Queue `pieces` (taken one at a time: they may be made as they are taken) for
        the writer thread, in batches of about `_BATCH_BYTES` (it overlaps the disk with
        the work of computing the next pieces); at most `_QUEUED` batches wait at a time."""
        batch: list[bytes | memoryview] = []
        size = 0
        for piece in pieces:
            batch.append(piece)
            size += len(piece)
            if size >= _BATCH_BYTES:
                self._put(batch, size)
                batch, size = [], 0
        if batch:
            self._put(batch, size)

    def _put(self, pieces: list[bytes | memoryview], size: int) -> None:
        self.size += size
        if self._thread is None:
            self._queue: queue.Queue[Any] = queue.Queue(_QUEUED)
            self._thread = threading.Thread(target=self._drain, daemon=True)
            self._thread.start()
        if self._error is not None:
            self._flush()
        self._queue.put(pieces)

    def _drain(self) -> None:
        while (pieces := self._queue.get()) is not None:
            if self._error is not None:
                continue  # keep taking, so the producer never blocks
            try:
                for piece in pieces:
                    view = memoryview(piece)
                    if self._hasher is not None:
                        self._hasher.update(view)
                    while view:
                        view = view[os.write(self.fd, view) :]
            except BaseException as exc:  # re-raised in the caller's thread by _flush
                self._error = exc

    def _flush(self) -> None:
        """Wait until every queued piece is written; raise what the writer met."""
        if self._thread is not None:
            self._queue.put(None)
            self._thread.join()
            self._thread = None
        if self._error is not None:
            error, self._error = self._error, None
            raise error

    def sync(self, mtime_ns: int | None = None) -> os.stat_result:
        """Give the new file the old one's owner and mode (and `mtime_ns`, when undo
        restores a version), fsync it; its stat."""
        self._flush()
        like = self.like
        if mtime_ns is not None:
            os.utime(self.fd, ns=(mtime_ns, mtime_ns))
        if like is not None:
            if like.st_uid != os.geteuid() or like.st_gid != os.getegid():
                with contextlib.suppress(OSError):
                    os.fchown(self.fd, like.st_uid, like.st_gid)
            os.fchmod(self.fd, stat.S_IMODE(like.st_mode))
        os.fsync(self.fd)
        return os.fstat(self.fd)

    def identity(self, hash_limit: int) -> str:
        st = os.fstat(self.fd)
        if st.st_size > hash_limit:
            return fingerprint(self.fd, st)
        if self._hasher is not None:
            return str(self._hasher.hexdigest())
        return identity(self.fd, st, hash_limit)

    def commit(self) -> None:
        """Rename the new file over the old one and fsync the directory."""
        try:
            st = os.stat(self.name, dir_fd=self.dfd, follow_symlinks=False)
            if stat.S_ISLNK(st.st_mode):
                raise _swapped(self.loc.given)
        except FileNotFoundError:
            pass
        if self.tmp is None:
            # Named only now, right before the rename: a process killed in between is the
            # only way a .fwtmp is left behind.
            self.tmp = f".{self.name[:100]}.{os.urandom(6).hex()}{TEMP_SUFFIX}"
            os.link(f"{_PROC_FD}/{self.fd}", self.tmp, dst_dir_fd=self.dfd)
        os.rename(self.tmp, self.name, src_dir_fd=self.dfd, dst_dir_fd=self.dfd)
        self.tmp = None
        with contextlib.suppress(OSError):
            os.fsync(self.dfd)

    def __exit__(self, *_exc: object) -> None:
        with contextlib.suppress(BaseException):
            self._flush()
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1
        if self.tmp is not None:
            with contextlib.suppress(OSError):
                os.unlink(self.tmp, dir_fd=self.dfd)
        self._dir.__exit__(None, None, None)


def _open_for_change(loc: Location, flags: int) -> int:
    parts = _parts(loc.rel)
    with open_dir(loc.root, parts[:-1]) as dfd:
        try:
            fd = os.open(parts[-1], flags | _O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK, dir_fd=dfd)
        except OSError as exc:
            if exc.errno == errno.ELOOP:
                raise _swapped(loc.given) from None
            raise
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise PathRefused("not_regular", loc.given, f"not a regular file: {loc.given}")
    os.set_blocking(fd, True)
    return fd


def append(loc: Location, data: bytes) -> os.stat_result:
    """Append `data` to the file at `loc` (O_APPEND, then fsync); its stat after."""
    fd = _open_for_change(loc, os.O_WRONLY | os.O_APPEND)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
        os.fsync(fd)
        return os.fstat(fd)
    finally:
        os.close(fd)


def truncate(loc: Location, size: int, mtime_ns: int | None = None) -> os.stat_result:
    """Cut the file at `loc` back to `size` bytes (and set its mtime back to `mtime_ns`),
    fsync it; its stat after."""
    fd = _open_for_change(loc, os.O_WRONLY)
    try:
        os.ftruncate(fd, size)
        if mtime_ns is not None:
            os.utime(fd, ns=(mtime_ns, mtime_ns))
        os.fsync(fd)
        return os.fstat(fd)
    finally:
        os.close(fd)


def identity_after(loc: Location, hash_limit: int) -> str:
    """The content identity of the file at `loc` as it is now."""
    with open_file(loc) as opened:
        return identity(opened.fd, opened.st, hash_limit)


def keep_at(
    src: Opened, src_dir: int, src_name: str, dst_dir: int, dst_name: str, mode: int
) -> int:
    """Keep the bytes of the open file `src` as `dst_name` in directory `dst_dir`: a hard
    link when `src_name` in `src_dir` is still that file (no link is followed) and is its
    only name (the rename that follows then leaves it only here: nothing else can write
    it), else a copy (with `mode`). Returns the bytes kept."""
    with contextlib.suppress(OSError):
        st = os.stat(src_name, dir_fd=src_dir, follow_symlinks=False)
        if (st.st_ino, st.st_dev) == (src.st.st_ino, src.st.st_dev) and st.st_nlink == 1:
            os.link(
                src_name, dst_name, src_dir_fd=src_dir, dst_dir_fd=dst_dir, follow_symlinks=False
            )
            return src.size
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | _O_NOFOLLOW | os.O_CLOEXEC
    fd = os.open(dst_name, flags, mode, dir_fd=dst_dir)
    try:
        for chunk in chunks(src.fd):
            view = memoryview(chunk)
            while view:
                view = view[os.write(fd, view) :]
    finally:
        os.close(fd)
    return src.size


ORPHAN_AGE_SECONDS = 600
"""A staged file of ours untouched this long is an orphan (see `sweep_orphans`)."""


def sweep_orphans(dfd: int, name: str, older_than: float = ORPHAN_AGE_SECONDS) -> list[str]:
    """Remove the staged files (`.<name>.<12 hex>.fwtmp`) of changes to `name` that a
    killed process left in directory `dfd` (named only between link and rename, or for
    the whole write where the system has no O_TMPFILE): regular files not written for
    `older_than` seconds. Returns the names removed."""
    prefix = f".{name[:100]}."
    removed = []
    now = time.time()
    with contextlib.suppress(OSError), os.scandir(dfd) as entries:
        for entry in entries:
            middle = entry.name[len(prefix) : -len(TEMP_SUFFIX)]
            if (
                not entry.name.startswith(prefix)
                or not entry.name.endswith(TEMP_SUFFIX)
                or len(middle) != 12
                or middle.strip("0123456789abcdef")
            ):
                continue
            with contextlib.suppress(OSError):
                st = entry.stat(follow_symlinks=False)
                if stat.S_ISREG(st.st_mode) and now - st.st_mtime >= older_than:
                    os.unlink(entry.name, dir_fd=dfd)
                    removed.append(entry.name)
    return removed
