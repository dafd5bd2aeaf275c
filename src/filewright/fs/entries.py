"""Directory entries through descriptors: rename without replacing, remove, make.

Every function walks from the root's descriptor with `O_NOFOLLOW` (`fsio.open_dir`), so a
symlink swapped into a parent after the sandbox checked it cannot redirect the operation.
Knows nothing of policy or history.
"""

from __future__ import annotations

import contextlib
import errno
import functools
import os
import stat
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from filewright.fs import held
from filewright.fs.fsio import open_dir, read_to_end, refuse_if_read_only
from filewright.fs.paths import Location, PathRefused

_RENAME_NOREPLACE = 1
_NO_RENAMEAT2 = frozenset({errno.EINVAL, errno.ENOSYS, errno.EOPNOTSUPP})


def _parts(rel: str) -> list[str]:
    return [] if rel in ("", ".") else rel.split("/")


@functools.cache
def _renameat2() -> tuple[Callable[..., int], Callable[[], int]] | None:
    """glibc's renameat2 and ctypes' `get_errno`, or None where the C library has no
    renameat2."""
    # deferred: ctypes costs more than the rest of this module, and only a move needs it
    import ctypes

    try:
        libc = ctypes.CDLL(None, use_errno=True)  # the C library already loaded
        fn = libc.renameat2
    except (OSError, AttributeError, TypeError):
        return None
    fn.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
    fn.restype = ctypes.c_int
    return fn, ctypes.get_errno


def _rename_noreplace(sfd: int, sname: str, dfd: int, dname: str) -> None:
    """Rename sfd/sname to dfd/dname; FileExistsError when anything is at the target."""
    found = _renameat2()
    if found is not None:
        fn, get_errno = found
        if fn(sfd, os.fsencode(sname), dfd, os.fsencode(dname), _RENAME_NOREPLACE) == 0:
            return
        err = get_errno()
        if err not in _NO_RENAMEAT2:
            raise OSError(err, os.strerror(err), dname)
    # No atomic no-replace rename here: check, then rename (the caller holds the lock).
    try:
        os.stat(dname, dir_fd=dfd, follow_symlinks=False)
    except FileNotFoundError:
        os.rename(sname, dname, src_dir_fd=sfd, dst_dir_fd=dfd)
        return
    raise FileExistsError(errno.EEXIST, os.strerror(errno.EEXIST), dname)


@contextlib.contextmanager
def _parent(loc: Location, *, create: bool = False) -> Iterator[tuple[int, str]]:
    parts = _parts(loc.rel)
    if not parts:
        raise PathRefused("is_root", loc.given, f"a workspace root cannot be changed: {loc.given}")
    with open_dir(loc.root, parts[:-1], create=create) as dfd:
        yield dfd, parts[-1]


def rename(src: Location, dst: Location, *, replace: bool = False) -> None:
    """Rename `src` to `dst` (real locations, both existing parents). Without `replace`,
    FileExistsError when the target exists; with it, a file target is replaced unless it
    is read-only for this process (`fsio.check_writable`: PathRefused)."""
    with _parent(src) as (sfd, sname), _parent(dst) as (dfd, dname):
        if replace:
            with contextlib.suppress(FileNotFoundError):
                st = os.stat(dname, dir_fd=dfd, follow_symlinks=False)
                if stat.S_ISREG(st.st_mode):  # the one "may it be replaced" check
                    refuse_if_read_only(dfd, dname, st, dst.given)
            os.rename(sname, dname, src_dir_fd=sfd, dst_dir_fd=dfd)
        else:
            _rename_noreplace(sfd, sname, dfd, dname)
        held.forget_checks()  # a kept directory may have moved: confirm each again
        for fd in {sfd, dfd}:
            with contextlib.suppress(OSError):
                os.fsync(fd)


def lstat(loc: Location) -> os.stat_result | None:
    """The entry at `loc` itself (a link is not followed); None when there is none."""
    try:
        with _parent(loc) as (dfd, name):
            return os.stat(name, dir_fd=dfd, follow_symlinks=False)
    except (FileNotFoundError, NotADirectoryError):
        return None


def names(loc: Location) -> list[str]:
    """The names in the directory at `loc` (opened without following links)."""
    with open_dir(loc.root, _parts(loc.rel)) as fd:
        return os.listdir(fd)


def remove(loc: Location, kind: str) -> None:
    """Remove the entry at `loc`: "file" or "symlink" (unlinked) or "dir" (must be empty);
    a read-only file is refused (`fsio.check_writable`)."""
    with _parent(loc) as (dfd, name):
        st = os.stat(name, dir_fd=dfd, follow_symlinks=False)
        found = _kind(st.st_mode)
        if found != kind:
            raise PathRefused("changed", loc.given, f"{loc.given} changed while in use")
        if kind == "dir":
            os.rmdir(name, dir_fd=dfd)
            held.forget_checks()
        else:
            if kind == "file":  # the one "may it be removed" check
                refuse_if_read_only(dfd, name, st, loc.given)
            os.unlink(name, dir_fd=dfd)
        with contextlib.suppress(OSError):
            os.fsync(dfd)


def remove_files_in(dfd: int, names: list[str]) -> None:
    """Remove the named regular files from the directory open as `dfd` (one opened by
    `fsio.open_dir`), each only if this process may remove it (`fsio.check_writable`'s
    rule); anything else, or a name gone meanwhile, is left."""
    for name in names:
        with contextlib.suppress(OSError, PathRefused):
            st = os.stat(name, dir_fd=dfd, follow_symlinks=False)
            if stat.S_ISREG(st.st_mode):
                refuse_if_read_only(dfd, name, st, name)
                os.unlink(name, dir_fd=dfd)


def make_dir(loc: Location, *, parents: bool = True) -> None:
    """Create the directory at `loc` (and its missing parents with `parents`)."""
    with _parent(loc, create=parents) as (dfd, name):
        os.mkdir(name, dir_fd=dfd)
        with contextlib.suppress(OSError):
            os.fsync(dfd)


def make_link(loc: Location, target: str) -> None:
    """Create a symbolic link at `loc` pointing to `target` (parents created)."""
    with _parent(loc, create=True) as (dfd, name):
        os.symlink(target, name, dir_fd=dfd)


def _kind(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "dir"
    if stat.S_ISLNK(mode):
        return "symlink"
    if stat.S_ISREG(mode):
        return "file"
    return "special"


@dataclass(frozen=True)
class TreeEntry:
    """One entry under a directory: its path relative to it, kind, mode and, for a file,
    its bytes (when read) or, for a link, its target."""

    rel: str
    kind: str
    mode: int
    size: int
    data: bytes | None = None
    link: str | None = None


def walk(loc: Location, *, read: bool = False, max_bytes: int | None = None) -> list[TreeEntry]:
    """Every entry under the directory `loc`, parents before children, links not followed.

    With `read`, files carry their bytes; a file over `max_bytes` raises PathRefused
    ("too_large").
    """
    out: list[TreeEntry] = []
    with _parent(loc) as (pfd, name):
        for dirpath, dirnames, filenames, dfd in os.fwalk(
            name, topdown=True, follow_symlinks=False, dir_fd=pfd
        ):
            sub = dirpath[len(name) :].lstrip("/")
            for entry in sorted(dirnames) + sorted(filenames):
                rel = f"{sub}/{entry}" if sub else entry
                st = os.stat(entry, dir_fd=dfd, follow_symlinks=False)
                kind = _kind(st.st_mode)
                data = link = None
                if kind == "file" and read:
                    if max_bytes is not None and st.st_size > max_bytes:
                        raise PathRefused(
                            "too_large",
                            rel,
                            f"{rel} is {st.st_size} bytes (limit {max_bytes} bytes)",
                        )
                    data = _read_at(dfd, entry)
                elif kind == "symlink":
                    link = os.readlink(entry, dir_fd=dfd)
                out.append(TreeEntry(rel, kind, stat.S_IMODE(st.st_mode), st.st_size, data, link))
    return out


def _read_at(dfd: int, name: str) -> bytes:
    fd = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=dfd)
    try:
        return read_to_end(fd) or b""
    finally:
        os.close(fd)
