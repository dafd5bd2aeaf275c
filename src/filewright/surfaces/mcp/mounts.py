"""The gate of calls answered on the event loop: are the roots on local filesystems?

The MCP server answers a marked read (`Tool.inline_ok`) on its event-loop thread only
while this gate is open for the call's roots: every root, and every mount point beneath
any root, is on a filesystem whose operations on a small file do not wait on a network,
a user-space daemon or a device that can stall (`LOCAL_TYPES`). A network filesystem (NFS,
SMB, 9p, Ceph, ...), FUSE (sshfs, ...), an automount point, proc or anything unknown
closes it: reads there run on worker threads, where a hang holds one thread, not the
server.

`all_local(mountinfo, roots)` is the decision, a pure function of the mount table's text
(`/proc/self/mountinfo`) and the roots' real paths. `MountGate` keeps it current: it
holds the mount table open and polls it (no wait) on every call; the kernel marks it
(POLLPRI | POLLERR) when a mount is added or removed, and the gate then reads it again.
No mount table (not Linux, no /proc) or one that cannot be read: the gate stays closed.
"""

from __future__ import annotations

import contextlib
import os
import select
from collections.abc import Iterable, Sequence

MOUNTINFO = "/proc/self/mountinfo"
LOCAL_TYPES = frozenset(
    {
        "ext2", "ext3", "ext4", "xfs", "btrfs", "tmpfs", "overlay", "f2fs", "zfs", "ramfs",
        "squashfs", "erofs", "bcachefs", "jfs", "vfat", "exfat", "ntfs3",
    }
)  # fmt: skip
"""Filesystem types whose reads never wait on a network, a daemon or a removable device's
spin-up beyond the block layer's own bounded waits."""
_ESCAPES = {"\\040": " ", "\\011": "\t", "\\012": "\n", "\\134": "\\"}


def _unescape(field: str) -> str:
    """A mount point as mountinfo writes it (space, tab, newline, backslash in octal)."""
    if "\\" not in field:
        return field
    for code, char in _ESCAPES.items():
        field = field.replace(code, char)
    return field


def parse_mountinfo(text: str) -> list[tuple[str, str]] | None:
    """(mount point, filesystem type) of every line of a mountinfo text, in its order;
    None when a line is not what proc(5) describes (the gate then stays closed)."""
    out: list[tuple[str, str]] = []
    for line in text.splitlines():
        if not line.strip():
            continue
        fields = line.split(" ")
        try:
            sep = fields.index("-", 6)  # optional fields end at the lone "-"
            point, fstype = fields[4], fields[sep + 1]
        except (ValueError, IndexError):
            return None
        if not point.startswith("/") or not fstype:
            return None
        out.append((_unescape(point), fstype))
    return out


def _within(path: str, top: str) -> bool:
    return path == top or top == "/" or path.startswith(top + "/")


def all_local(mountinfo: str, roots: Iterable[str]) -> bool:
    """Whether every root (a real, absolute path) and everything mounted beneath one is on
    a local filesystem (`LOCAL_TYPES`), by the mount table `mountinfo`. The filesystem a
    root is on is the mount with the longest mount point above or at it (every mount at
    that point counts, a hidden one included)."""
    mounts = parse_mountinfo(mountinfo)
    if not mounts:
        return False
    for root in roots:
        root = root.rstrip("/") or "/"
        if not root.startswith("/"):
            return False
        above = [p for p, _ in mounts if _within(root, p)]
        if not above:
            return False
        holder = max(above, key=len)
        for point, fstype in mounts:
            if (point == holder or _within(point, root)) and fstype not in LOCAL_TYPES:
                return False
    return True


class MountGate:
    """`open_for(roots)`: whether calls on `roots` may run on the event loop (see the
    module doc). Used from the event loop's thread only."""

    def __init__(self, path: str = MOUNTINFO) -> None:
        self._cache: dict[tuple[str, ...], bool] = {}
        self._text: str | None = None
        self._poll: select.poll | None = None
        self._fd = -1
        try:
            self._fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
            self._text = self._read()
            poll = select.poll()
            poll.register(self._fd, select.POLLPRI | select.POLLERR)
            self._poll = poll
        except (OSError, ValueError):
            self.close()

    def _read(self) -> str:
        chunks: list[bytes] = []
        offset = 0
        while chunk := os.pread(self._fd, 1 << 16, offset):
            chunks.append(chunk)
            offset += len(chunk)
        return b"".join(chunks).decode("utf-8", "surrogateescape")

    def open_for(self, roots: Sequence[str]) -> bool:
        """Whether every root (real paths) and every mount beneath is local, by the
        mount table as it is now (one poll without waiting; read again when it changed)."""
        if self._poll is None:
            return False
        try:
            changed = bool(self._poll.poll(0))
            if changed:
                self._cache.clear()
                self._text = self._read()
        except OSError:
            self.close()
            return False
        key = tuple(roots)
        found = self._cache.get(key)
        if found is None:
            found = self._text is not None and all_local(self._text, key)
            if len(self._cache) > 16:
                self._cache.clear()
            self._cache[key] = found
        return found

    def __del__(self) -> None:  # a server made and dropped (tests make hundreds): its fd
        with contextlib.suppress(Exception):  # (at interpreter exit, os may be gone)
            self.close()

    def close(self) -> None:
        """Stop watching; the gate stays closed."""
        self._poll = None
        self._cache.clear()
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1
