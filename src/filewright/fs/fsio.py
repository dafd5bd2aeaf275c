"""Disk access that a swapped symlink cannot redirect, and writes that cannot tear.

Every open walks from the root's directory descriptor one component at a time with
`O_NOFOLLOW`, along the already-resolved real path. A real path has no symlinks in it,
so meeting one here means the tree changed between check and use: the operation is
refused instead of following it.

Writes are atomic: a temporary file in the same directory, fsync, rename over the
target, fsync of the directory. A crash leaves the old file or the new one. On Linux the
temporary file is unnamed while it is written (O_TMPFILE) and gets its hidden
`.<name>.<random>.fwtmp` name only just before the rename, so a process killed while
writing leaves no temporary file behind.
"""

from __future__ import annotations

import contextlib
import errno
import functools
import os
import stat
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING

from filewright.core import inline
from filewright.core.record import Frozen
from filewright.fs import held
from filewright.fs.paths import Location, PathRefused

if TYPE_CHECKING:
    from collections.abc import Callable

TEMP_SUFFIX = ".fwtmp"
_O_DIR = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_CLOEXEC", 0)
_O_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_O_PATH_DIR = (
    getattr(os, "O_PATH", os.O_RDONLY) | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_CLOEXEC", 0)
)
_O_TMPFILE = getattr(os, "O_TMPFILE", 0)
_PROC_FD = "/proc/self/fd"
_NO_TMPFILE = frozenset(
    {errno.EOPNOTSUPP, errno.EISDIR, errno.EINVAL, errno.ENOENT, errno.EPERM, errno.EACCES}
)


def _parts(rel: str) -> list[str]:
    if rel in ("", "."):
        return []
    parts = rel.split("/")  # a resolved `rel` is normalised: its names, as pathlib gives them
    if "" in parts or "." in parts:
        return list(PurePosixPath(rel).parts)
    return parts


def _swapped(path: str) -> PathRefused:
    return PathRefused("changed", path, f"path changed while in use (a symlink appeared): {path}")


def _refuse_if_link(dir_fd: int, name: str, walked: str, exc: OSError) -> None:
    """Turn "a symlink stands where a directory was" into PathRefused("changed")."""
    if exc.errno not in (errno.ELOOP, errno.ENOTDIR):
        return
    try:
        st = os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
    except OSError:
        return
    if stat.S_ISLNK(st.st_mode):
        raise _swapped(walked) from None


def _open_subdir(dir_fd: int, name: str, walked: str, create: bool, flags: int = _O_DIR) -> int:
    try:
        return os.open(name, flags | _O_NOFOLLOW, dir_fd=dir_fd)
    except FileNotFoundError:
        if not create:
            raise
    except OSError as exc:
        _refuse_if_link(dir_fd, name, walked, exc)
        raise
    # mkdir never follows a symlink; one that appears meanwhile is refused by the open.
    try:
        os.mkdir(name, 0o777, dir_fd=dir_fd)
    except FileExistsError:
        pass
    else:
        with contextlib.suppress(OSError):
            os.fsync(dir_fd)  # the new entry survives a power loss with the file in it
    try:
        return os.open(name, _O_DIR | _O_NOFOLLOW, dir_fd=dir_fd)
    except OSError as exc:
        _refuse_if_link(dir_fd, name, walked, exc)
        raise


class open_dir:  # used as a function: `with open_dir(root, parts) as dfd:`
    """A descriptor of the directory root/rel_parts, opened without following links, for
    the `with` block (closed at its end).

    With `create`, missing directories are made (mode 0o777 & ~umask). With
    `search_only`, every directory is opened with `O_PATH` where there is one: passing
    through needs search permission only, as for a path (the descriptor serves `*at`
    calls and `fstat`, not listing or fsync). A class rather than a generator context
    manager: every read and every step of a change enters one (issue 32).

    The root is kept open across calls (`fs.held`); a directory below it that a tool call
    walked to (not `search_only`) is kept for that call's other steps
    (`held.keep_for_call`): a change's checks, load, re-read under the lock and write do
    not walk from the root to its directory five times.
    """

    __slots__ = ("create", "fd", "rel_parts", "root", "search_only")

    def __init__(
        self, root: Path, rel_parts: list[str], *, create: bool = False, search_only: bool = False
    ) -> None:
        self.root, self.rel_parts = root, rel_parts
        self.create, self.search_only = create, search_only
        self.fd = -1

    def __enter__(self) -> int:
        flags = _O_PATH_DIR if self.search_only else _O_DIR
        where = str(self.root)
        below = None
        if self.rel_parts:
            below = f"{where.rstrip('/')}/{'/'.join(self.rel_parts)}"
            fd = held.reuse_in_call(below)
            if fd is not None:
                self.fd = fd
                return fd
        fd = held.reuse(where)  # (the root, kept open: not opened again for every step)
        if fd is None:
            fd = os.open(self.root, flags)
            if not self.search_only:
                held.keep(where, fd)
        try:
            walked: list[str] = []
            for part in self.rel_parts:
                walked.append(part)
                nfd = _open_subdir(fd, part, "/".join(walked), self.create, flags)
                os.close(fd)
                fd = nfd
        except BaseException:
            os.close(fd)
            raise
        if below is not None and not self.search_only:
            held.keep_for_call(below, fd)
        self.fd = fd
        return fd

    def __exit__(self, *_exc: object) -> None:
        os.close(self.fd)


class FileState(Frozen):
    """What was found at a location: its bytes and the metadata needed to write it back."""

    _fields = ("data", "mode", "uid", "gid", "mtime_ns", "size")
    __slots__ = _fields
    data: bytes
    mode: int
    uid: int
    gid: int
    mtime_ns: int
    size: int

    def __init__(
        self, data: bytes, mode: int, uid: int, gid: int, mtime_ns: int, size: int
    ) -> None:
        self._set(data, mode, uid, gid, mtime_ns, size)


def _open_regular(loc: Location) -> tuple[int, os.stat_result]:
    """Open the regular file at `loc` read-only (a FIFO cannot block the open); return the
    fd, in blocking mode, and its stat. Refuses directories, other non-regular files and
    a symlink swapped in along the way."""
    parts = _parts(loc.rel)
    if not parts:
        raise PathRefused("is_directory", loc.given, f"path is a directory: {loc.given}")
    with open_dir(loc.root, parts[:-1]) as dfd:
        try:
            fd = os.open(
                parts[-1], os.O_RDONLY | _O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC, dir_fd=dfd
            )
        except OSError as exc:
            if exc.errno == errno.ELOOP:
                raise _swapped(loc.given) from None
            if exc.errno == errno.EISDIR:
                raise PathRefused(
                    "is_directory", loc.given, f"path is a directory: {loc.given}"
                ) from None
            raise
    st = os.fstat(fd)
    inline.check_open(fd, st)  # a call answered on the event loop reads small files only
    if not stat.S_ISREG(st.st_mode):
        os.close(fd)
        if stat.S_ISDIR(st.st_mode):
            raise PathRefused("is_directory", loc.given, f"path is a directory: {loc.given}")
        raise PathRefused("not_regular", loc.given, f"not a regular file: {loc.given}")
    os.set_blocking(fd, True)
    return fd, st


def read_to_end(fd: int, limit: int | None = None) -> bytes | None:
    """What is left to read from `fd`; None when it is more than `limit` bytes."""
    parts = []
    total = 0
    while chunk := os.read(fd, 1 << 20):
        total += len(chunk)
        if limit is not None and total > limit:
            return None
        parts.append(chunk)
    return b"".join(parts)


def read_sized(fd: int, size: int) -> bytes:
    """What is left to read from the regular file `fd`, `size` bytes by its fstat: one
    read of `size + 1` (a short read is its end; more: it grew meanwhile, read on)."""
    data = os.read(fd, size + 1)
    if len(data) <= size:
        return data
    return data + (read_to_end(fd) or b"")


def read_bytes(loc: Location, *, max_bytes: int | None = None) -> FileState:
    """Read the whole file at `loc` (regular files only)."""
    fd, st = _open_regular(loc)
    try:
        if max_bytes is not None and st.st_size > max_bytes:
            raise PathRefused(
                "too_large",
                loc.given,
                f"file is too large: {st.st_size} bytes (limit {max_bytes} bytes)",
            )
        data = read_sized(fd, st.st_size)
        return FileState(
            data=data,
            mode=stat.S_IMODE(st.st_mode),
            uid=st.st_uid,
            gid=st.st_gid,
            mtime_ns=st.st_mtime_ns,
            size=len(data),
        )
    finally:
        os.close(fd)


def stat_entry(loc: Location) -> os.stat_result:
    """The stat of what `loc` leads to (its real path), the one way a workspace entry is
    stat'ed: reached from the root's descriptor one component at a time without
    following links, so a directory or the entry itself swapped for a symlink since `loc`
    was resolved is refused (PathRefused "changed"), never followed to its target.
    FileNotFoundError when the entry is gone."""
    parts = _parts(loc.rel)
    with open_dir(loc.root, parts[:-1], search_only=True) as dfd:
        if not parts:
            return os.fstat(dfd)
        try:
            st = os.stat(parts[-1], dir_fd=dfd, follow_symlinks=False)
        except NotADirectoryError:
            raise FileNotFoundError(loc.given) from None
    if stat.S_ISLNK(st.st_mode):
        raise _swapped(loc.given)
    return st


def open_for_reading(loc: Location) -> int:
    """Open the regular file at `loc` for streaming reads; the caller closes the fd."""
    return _open_regular(loc)[0]


def open_with_stat(loc: Location) -> tuple[int, os.stat_result]:
    """`open_for_reading`, and the stat of the file it opened (no second fstat)."""
    return _open_regular(loc)


def refuse_if_read_only(
    dfd: int, name: str, st: os.stat_result, given: str, allow_read_only: bool = False
) -> None:
    """Refuse to replace a file its caller could not write in place.

    The atomic rename needs only the directory's permission, so without this a read-only
    file would be replaced. A file with no write bit at all is read-only for everyone,
    root included, unless `allow_read_only`; otherwise the caller needs write access to
    the file itself (its effective ids, as open(2) would check).
    """
    if allow_read_only:
        return
    if not st.st_mode & 0o222:
        raise PathRefused("permission", given, f"file is read-only: {given}")
    effective = os.access in os.supports_effective_ids
    try:
        writable = os.access(
            name, os.W_OK, dir_fd=dfd, effective_ids=effective, follow_symlinks=False
        )
    except NotImplementedError:  # a platform without dir_fd access: open it instead
        try:
            os.close(os.open(name, os.O_WRONLY | _O_NOFOLLOW | os.O_NONBLOCK, dir_fd=dfd))
            writable = True
        except PermissionError:
            writable = False
    if not writable:
        # access() also says no for a file that another process moved away meanwhile.
        try:
            now = os.stat(name, dir_fd=dfd, follow_symlinks=False)
        except FileNotFoundError:
            now = None
        if now is None or (now.st_ino, now.st_dev) != (st.st_ino, st.st_dev):
            raise PathRefused("stale", given, f"file changed while it was being written: {given}")
        raise PathRefused("permission", given, f"no permission to write the file: {given}")


def check_writable(loc: Location, *, allow_read_only: bool = False) -> os.stat_result | None:
    """The one check "may this entry be replaced or removed": raise
    PathRefused("permission") when the existing file at `loc` may not be replaced or
    removed by this process (see `refuse_if_read_only`); nothing when it does not exist.
    Every write, move over, delete, patch delete and undo asks it first; `write_atomic`,
    `remove_file` and `entries.remove`/`entries.rename` ask it again where they act.
    Returns the entry's stat (links not followed) as the check saw it; None when it
    does not exist."""
    parts = _parts(loc.rel)
    if not parts:
        return None
    try:
        with open_dir(loc.root, parts[:-1]) as dfd:
            try:
                st = os.stat(parts[-1], dir_fd=dfd, follow_symlinks=False)
            except FileNotFoundError:
                return None
            if stat.S_ISREG(st.st_mode):
                refuse_if_read_only(dfd, parts[-1], st, loc.given, allow_read_only)
            return st
    except (FileNotFoundError, NotADirectoryError):
        return None


def write_atomic(
    loc: Location,
    data: bytes,
    *,
    mode: int | None,
    owner: tuple[int, int] | None = None,
    create_parents: bool = False,
    allow_read_only: bool = False,
    before_replace: Callable[[int, str], None] | None = None,
) -> None:
    """Replace (or create) the file at `loc` with `data`, atomically.

    An existing file's mode (and owner, where permitted) is kept. Re-creating a file
    requires saying whose metadata it gets, so `mode` has no default: the mode of the file
    whose content this is (a moved, deleted or rolled-back file's), or None for a file the
    caller creates anew (0o666 & ~umask, the umask at the time of the write); `owner`
    (uid, gid) likewise, where the process may give it. Raises FileNotFoundError when
    the parent is missing and `create_parents` is false, and PathRefused("permission")
    when the file exists but may not be written in place (read-only; see
    `check_writable`), unless `allow_read_only`. `before_replace(dfd, name)` is called
    before the new file is written when the write will replace a file of no other name
    (the directory's descriptor and the file's name in it: `state.trash.keep_old`).
    """
    parts = _parts(loc.rel)
    if not parts:
        raise PathRefused("is_directory", loc.given, f"path is a directory: {loc.given}")
    name = parts[-1]
    with open_dir(loc.root, parts[:-1], create=create_parents) as dfd:
        uid = gid = -1
        try:
            st = os.stat(name, dir_fd=dfd, follow_symlinks=False)
        except FileNotFoundError:
            st = None
        if st is not None:
            if stat.S_ISLNK(st.st_mode):
                raise _swapped(loc.given)
            if stat.S_ISDIR(st.st_mode):
                raise PathRefused("is_directory", loc.given, f"path is a directory: {loc.given}")
            if not stat.S_ISREG(st.st_mode):
                raise PathRefused("not_regular", loc.given, f"not a regular file: {loc.given}")
            refuse_if_read_only(dfd, name, st, loc.given, allow_read_only)
            mode = stat.S_IMODE(st.st_mode)
            uid, gid = st.st_uid, st.st_gid
            if before_replace is not None and st.st_nlink == 1:
                before_replace(dfd, name)
        elif owner is not None:
            uid, gid = owner
        # A new file without an explicit mode gets 0o666 from the kernel, which applies
        # the process's current umask (and any default ACL) exactly as open(2) would.
        perm = 0o600 if mode is not None else 0o666
        tmp = f".{name[:100]}.{os.urandom(6).hex()}{TEMP_SUFFIX}"
        if not _write_unnamed(dfd, tmp, data, perm, uid, gid, mode):
            fd = os.open(
                tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _O_NOFOLLOW | os.O_CLOEXEC, perm,
                dir_fd=dfd,
            )  # fmt: skip
            try:
                try:
                    _fill(fd, data, uid, gid, mode)
                finally:
                    os.close(fd)
            except BaseException:
                with contextlib.suppress(OSError):
                    os.unlink(tmp, dir_fd=dfd)
                raise
        try:
            os.rename(tmp, name, src_dir_fd=dfd, dst_dir_fd=dfd)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp, dir_fd=dfd)
            raise
        with contextlib.suppress(OSError):
            os.fsync(dfd)


def _fill(fd: int, data: bytes, uid: int, gid: int, mode: int | None) -> None:
    """Write all of `data` to `fd`, give it its owner and mode, fsync it."""
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]
    if uid != -1 and (uid != os.geteuid() or gid != os.getegid()):
        with contextlib.suppress(OSError):
            os.fchown(fd, uid, gid)
    if mode is not None:
        os.fchmod(fd, mode)
    os.fsync(fd)


@functools.cache
def _have_proc_fd() -> bool:
    return os.path.isdir(_PROC_FD)


def _write_unnamed(
    dfd: int, tmp: str, data: bytes, perm: int, uid: int, gid: int, mode: int | None
) -> bool:
    """Write `data` to an unnamed file in the directory, then link it as `tmp`.

    False when the system or filesystem cannot (no O_TMPFILE, no /proc): the caller then
    writes a named temporary file. Until the link the file has no name, so a process
    killed while writing leaves nothing behind.
    """
    if not _O_TMPFILE or not _have_proc_fd():
        return False
    try:
        fd = os.open(".", os.O_WRONLY | _O_TMPFILE | os.O_CLOEXEC, perm, dir_fd=dfd)
    except OSError as exc:
        if exc.errno in _NO_TMPFILE:
            return False
        raise
    try:
        _fill(fd, data, uid, gid, mode)
        try:
            os.link(f"{_PROC_FD}/{fd}", tmp, dst_dir_fd=dfd)
        except OSError as exc:
            if exc.errno in _NO_TMPFILE:
                return False  # written for nothing; the named path writes it again
            raise
    finally:
        os.close(fd)
    return True


def remove_file(loc: Location) -> None:
    """Delete the regular file at `loc` (undo of a creation, a patch's delete); a file
    this process may not replace (`check_writable`) is refused."""
    parts = _parts(loc.rel)
    with open_dir(loc.root, parts[:-1]) as dfd:
        st = os.stat(parts[-1], dir_fd=dfd, follow_symlinks=False)
        if not stat.S_ISREG(st.st_mode):
            raise PathRefused("not_regular", loc.given, f"not a regular file: {loc.given}")
        refuse_if_read_only(dfd, parts[-1], st, loc.given, False)
        os.unlink(parts[-1], dir_fd=dfd)
        with contextlib.suppress(OSError):
            os.fsync(dfd)


def parent_exists(loc: Location) -> bool:
    """True when the directory that would hold `loc` exists (and is a directory)."""
    parts = _parts(loc.rel)
    try:
        with open_dir(loc.root, parts[:-1]):
            return True
    except (FileNotFoundError, NotADirectoryError):
        return False
