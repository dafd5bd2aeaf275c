"""The state directory itself: its checks, its files (opened without following links,
read and written relative to a directory's descriptor), and the read ledger.

Apart from `state.history` (the change log and undo's backups), `state.index` (one
file's index) and `state.locks` (the per-file locks) so that a workspace that only reads,
which records what it read in the ledger, loads nothing of the history (issue 32). They
build on these functions.
"""

from __future__ import annotations

import contextlib
import errno
import functools
import hashlib
import json
import os
import stat
from pathlib import Path
from typing import Any

from filewright.fs import held
from filewright.fs.fsio import read_sized

_PLANTED_LINK = "symlink in filewright's state directory (remove it)"


@functools.lru_cache(maxsize=1024)
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
        _refuse_link_at(path, lstat_mode(path))


def lstat_mode(path: Path) -> int:
    """The mode `os.lstat` gives for `path`; 0 when nothing is there (the errors that
    `Path.is_symlink()` and `Path.is_dir()` answer False for; others are raised)."""
    try:
        return os.lstat(path).st_mode
    except OSError as exc:
        if exc.errno not in _NOT_THERE:
            raise
    except ValueError:
        pass
    return 0


_NOT_THERE = frozenset((errno.ENOENT, errno.ENOTDIR, errno.EBADF, errno.ELOOP))


def _refuse_link_at(path: Path, mode: int) -> None:
    """`_refuse_links` of one path whose lstat mode is `mode` (0: nothing there)."""
    if stat.S_ISLNK(mode):
        raise OSError(errno.ELOOP, _PLANTED_LINK, str(path))
    if stat.S_ISDIR(mode):
        for entry in os.scandir(path):
            if entry.is_symlink():
                raise OSError(errno.ELOOP, _PLANTED_LINK, entry.path)


def check_state_dir(state_dir: Path) -> None:
    """Refuse (ValueError) a state directory that is, or directly holds, a symlink."""
    try:
        mode = lstat_mode(state_dir)  # (one lstat answers both questions: not a link)
        _refuse_link_at(state_dir, mode)
    except OSError as exc:
        raise ValueError(f"{exc.strerror}: {exc.filename}") from None
    if mode and not stat.S_ISDIR(mode):
        raise ValueError(f"filewright's state directory is not a directory: {state_dir}")


def ensure_state_dir(state_dir: Path) -> Path:
    """Create the state directory with a .gitignore so it never lands in a repository.

    Once made and scanned, it is not scanned again while `held` confirms the directory
    is still the one at that path (a link planted in it later is refused where it is
    used: every state path is opened without following links)."""
    if held.confirmed(os.path.abspath(state_dir)):
        return state_dir
    _refuse_links(state_dir)
    fd = _dir_fd(state_dir, create=True)
    try:
        with contextlib.suppress(OSError):
            ignore = os.open(
                ".gitignore",
                os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC,
                0o644,
                dir_fd=fd,
            )
            try:
                os.write(ignore, b"*\n")
            finally:
                os.close(ignore)
    finally:
        os.close(fd)
    return state_dir


_O_DIR = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | os.O_NOFOLLOW | os.O_CLOEXEC
_O_PASS = getattr(os, "O_PATH", os.O_RDONLY) | getattr(os, "O_DIRECTORY", 0) | os.O_NOFOLLOW
_O_PASS |= os.O_CLOEXEC


def _dir_fd(path: str | Path, *, create: bool = False) -> int:
    """A descriptor of the state directory `path` (or one below it), opened one component
    at a time from `/` without following links, so that a directory swapped for a symlink
    while filewright works is refused (OSError ELOOP), never written through. `create`
    makes missing components (0o700: they hold copies of files)."""
    where = os.path.abspath(path)
    kept = held.reuse(where)
    if kept is not None:
        return kept
    parts = Path(where).parts[1:]
    # Ancestors are opened with O_PATH where there is one (search permission suffices).
    fd = os.open("/", _O_PASS if parts else _O_DIR)
    try:
        for i, part in enumerate(parts):
            flags = _O_PASS if i < len(parts) - 1 else _O_DIR
            try:
                nfd = os.open(part, flags, dir_fd=fd)
            except FileNotFoundError:
                if not create:
                    raise
                with contextlib.suppress(FileExistsError):
                    os.mkdir(part, 0o700, dir_fd=fd)
                nfd = _open_subdir(fd, part, path, flags)
            except OSError as exc:
                _raise_planted(exc, path)
                raise
            os.close(fd)
            fd = nfd
    except BaseException:
        os.close(fd)
        raise
    held.keep(where, fd)
    return fd


def _open_subdir(fd: int, part: str, path: str | Path, flags: int = _O_DIR) -> int:
    try:
        return os.open(part, flags, dir_fd=fd)
    except OSError as exc:
        _raise_planted(exc, path)
        raise


def _raise_planted(exc: OSError, path: str | Path) -> None:
    if exc.errno in (errno.ELOOP, errno.ENOTDIR):
        raise OSError(errno.ELOOP, _PLANTED_LINK, str(path)) from None


def _unlink(path: Path) -> None:
    """Remove a state file through its directory's descriptor (missing: nothing to do)."""
    try:
        fd = _dir_fd(path.parent)
    except FileNotFoundError:
        return
    try:
        unlink_at(fd, path.name)
    finally:
        os.close(fd)


def unlink_at(dfd: int, name: str) -> None:
    """Remove the state file `name` of the directory open as `dfd` (missing: nothing)."""
    with contextlib.suppress(FileNotFoundError):
        os.unlink(name, dir_fd=dfd)


def link_into(src_dfd: int, name: str, dfd: int, new_name: str) -> None:
    """Give the entry `name` of the directory open as `src_dfd` the new name `new_name` in
    the state directory open as `dfd` (a hard link; a symlink is linked as itself, never
    followed). OSError when it cannot (an existing name, another filesystem...)."""
    os.link(name, new_name, src_dir_fd=src_dfd, dst_dir_fd=dfd, follow_symlinks=False)


def names_in(dfd: int) -> list[str]:
    """The names in the state directory open as `dfd`."""
    return os.listdir(dfd)


def _write_json(path: Path, data: Any, *, atomic: bool = True) -> None:
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    _write_bytes(path, text.encode("utf-8"), atomic=atomic)


def _write_bytes(path: Path, data: bytes, *, atomic: bool = True) -> None:
    """Replace `path` atomically (temp file + rename; or in place when not `atomic`),
    without following a planted link.

    State files are not fsynced: a killed process leaves the old or the new file either
    way, and only a power loss could lose a backup, never the user's file (which
    `fsio.write_atomic` does fsync). This halves the cost of every change.
    """
    dfd = _dir_fd(path.parent)
    try:
        write_at(dfd, path.name, data, atomic=atomic)
    finally:
        os.close(dfd)


def write_at(dfd: int, name: str, data: bytes, *, atomic: bool = True) -> None:
    """`_write_bytes` of the state file `name` in the directory open as `dfd`."""
    tmp = f".{name}.{os.getpid()}.tmp" if atomic else name
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
    try:
        fd = os.open(tmp, flags, 0o600, dir_fd=dfd)
    except FileExistsError:
        # A fresh inode every time: a name left there (by a killed process), or planted
        # as a symlink or a hard link to some file elsewhere, is unlinked here, never
        # written through. (Created exclusively first: the name is missing as a rule,
        # and its unlink would cost a failed lookup under the directory's lock.)
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp, dir_fd=dfd)
        fd = os.open(tmp, flags, 0o600, dir_fd=dfd)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
    finally:
        os.close(fd)
    if atomic:
        os.replace(tmp, name, src_dir_fd=dfd, dst_dir_fd=dfd)


def overwrite_at(dfd: int, name: str, data: bytes) -> None:
    """Write `data` over the state file `name` of the directory open as `dfd`, in place
    (no new directory entry: ~2 us where an unlink and a create cost ~50 us under
    load), cut to its length; a missing name, or one that is not our own regular file
    (a planted hard link: more than one name), is written as a new file instead
    (`write_at`). Never truncated to zero (which would make ext4 flush it at once).
    The reader must tell a torn write (`index.parse_index`'s check)."""
    try:
        fd = os.open(name, os.O_WRONLY | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK, dir_fd=dfd)
    except OSError as exc:
        if exc.errno not in (errno.ENOENT, errno.ELOOP, errno.ENXIO, errno.EISDIR):
            raise
        write_at(dfd, name, data, atomic=False)  # (a link or other planted entry: replaced)
        return
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or st.st_nlink != 1 or not data:
            os.close(fd)
            fd = -1
            write_at(dfd, name, data, atomic=False)
            return
        view, at = memoryview(data), 0
        while at < len(data):
            at += os.pwrite(fd, view[at:], at)
        if st.st_size > len(data):
            os.ftruncate(fd, len(data))
    finally:
        if fd >= 0:
            os.close(fd)


def _open_state_file(path: Path, flags: int) -> int:
    """Open a regular state file without following a link (refused as planted)."""
    dfd = _dir_fd(path.parent)
    try:
        return open_at(dfd, path.name, flags, path.parent)[0]
    finally:
        os.close(dfd)


def open_at(dfd: int, name: str, flags: int, directory: str | Path) -> tuple[int, os.stat_result]:
    """Open the regular state file `name` of the directory open as `dfd` (`directory`: its
    path, for errors) without following a link (refused as planted); with its stat."""
    try:
        fd = os.open(name, flags | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK, 0o600, dir_fd=dfd)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise OSError(errno.ELOOP, _PLANTED_LINK, os.path.join(directory, name)) from None
        raise
    st = os.fstat(fd)
    if not stat.S_ISREG(st.st_mode):  # a planted FIFO or device
        os.close(fd)
        message = "not a regular file in filewright's state directory"
        raise OSError(errno.EINVAL, message, os.path.join(directory, name))
    return fd, st


def _read_state_file(path: Path) -> bytes:
    dfd = _dir_fd(path.parent)
    try:
        return read_at(dfd, path.name, path.parent)
    finally:
        os.close(dfd)


def read_at(dfd: int, name: str, directory: Path) -> bytes:
    """The bytes of the regular state file `name` of the directory open as `dfd`
    (`directory`: its path, for errors)."""
    fd, st = open_at(dfd, name, os.O_RDONLY, directory)
    try:
        return read_sized(fd, st.st_size)
    finally:
        os.close(fd)


class ReadLedger:
    """What the agent last read: real path -> content hash.

    In memory, or persisted in a directory with one small file per file read (so
    separate CLI invocations share one session, and concurrent processes see each
    other's records without a lock: each record is one atomic rename). A persisted
    ledger that cannot be written (read-only disk, no home directory, no permission)
    is kept in memory for this process instead: recording what was read never fails.
    """

    def __init__(self, path: Path | None = None) -> None:
        self.path = path
        self._memory: dict[str, str] = {}

    def _entry(self, real: Path) -> Path:
        assert self.path is not None
        return self.path / f"{_key(str(real))}.json"

    def get(self, real: Path) -> str | None:
        if self.path is None or str(real) in self._memory:
            return self._memory.get(str(real))
        try:
            data = json.loads(_read_state_file(self._entry(real)))
        except (OSError, ValueError):
            return None
        if not isinstance(data, dict) or data.get("path") != str(real):
            return None
        digest = data.get("hash")
        return digest if isinstance(digest, str) else None

    def record(self, real: Path, digest: str | None) -> None:
        if self.path is not None:
            try:
                self._persist(real, digest)
                self._memory.pop(str(real), None)
                return
            except OSError:  # read-only disk, no home, no permission: this process remembers
                pass
        if digest is None:
            self._memory.pop(str(real), None)
        else:
            self._memory[str(real)] = digest

    def _persist(self, real: Path, digest: str | None) -> None:
        assert self.path is not None
        entry = self._entry(real)
        if digest is None:
            with contextlib.suppress(OSError):
                _unlink(entry)
            return
        _refuse_links(self.path.parent)
        if self.path.is_symlink() or entry.is_symlink():
            raise OSError(errno.ELOOP, "symlink in filewright's state directory", str(entry))
        if self.path.exists() and not self.path.is_dir():
            raise OSError(
                errno.ENOTDIR, "filewright's session ledger is not a directory", str(self.path)
            )
        self.path.mkdir(parents=True, exist_ok=True, mode=0o700)
        _write_json(entry, {"path": str(real), "hash": digest})
