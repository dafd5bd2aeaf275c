"""Replaced files freed after the answer rather than before it (issue 32).

An atomic write renames the new file over the old one, and the rename frees the old
file's inode and blocks while the caller waits. On a filesystem mounted with `discard`
(the bench's VM: ext4 without a journal) freeing blocks waits for a discard request to
the disk: ~0.15 ms quiet, several ms while other writes queue, in every edit's answer.

Where the caller will free it later (`deferred`: the MCP server's worker threads, which
`reap` after handing the answer back), `keep_old` gives the file about to be replaced a
second name in the state directory first (`.trash.<pid>.<n>`: the directory every
change has confirmed already), so that the rename only drops a name; `reap` unlinks
those names. Nothing else changes: the new file and its directory
are fsync'd before the answer as before, and the second name is never read or written.
Any such name may be unlinked at any moment by anyone (the rename then frees the file
itself, as without a trash), so what a killed process left is swept by the next process
that keeps one. Where the name cannot be made (another filesystem, hard
link protections, a planted link, no state directory) the rename frees the file as before.
"""

from __future__ import annotations

import _thread
import atexit
import contextlib
import itertools
import os
from pathlib import Path

from filewright.state.statedir import _dir_fd, link_into, names_in, unlink_at

_local = _thread._local()
_lock = _thread.allocate_lock()
_pending: list[tuple[int, str]] = []  # (the state directory's descriptor, name) to unlink
_swept: set[Path] = set()  # state directories swept by this process
_names = itertools.count()
PREFIX = ".trash."
PENDING_LIMIT = 64  # names kept at most before `keep_old` reaps them itself


class deferred:
    """Within it (this thread), `keep_old` keeps what a write replaces for `reap`."""

    __slots__ = ("_outer",)

    def __enter__(self) -> None:
        self._outer = getattr(_local, "on", False)
        _local.on = True

    def __exit__(self, *_exc: object) -> None:
        _local.on = self._outer


def active() -> bool:
    """Whether this thread's writes keep what they replace for `reap` (`deferred`)."""
    return bool(getattr(_local, "on", False))


def keep_old(state_dir: Path, dfd: int, name: str) -> None:
    """Give the file `name` of the directory open as `dfd`, about to be replaced, a second
    name in `state_dir` (links not followed), unlinked by the next `reap`; nothing when
    that cannot be done."""
    try:
        sfd = _dir_fd(state_dir)
    except OSError:
        return
    try:
        if state_dir not in _swept:
            _sweep(state_dir, sfd)
        kept = f"{PREFIX}{os.getpid()}.{next(_names)}"
        link_into(dfd, name, sfd, kept)
    except OSError:
        os.close(sfd)
        return
    except BaseException:
        os.close(sfd)
        raise
    with _lock:  # (the descriptor, of the directory itself, is closed by `reap`)
        _pending.append((sfd, kept))
        overdue = len(_pending) > PENDING_LIMIT
    if overdue:  # (nobody reaps: `deferred` without a reaper)
        reap()


def _sweep(state_dir: Path, sfd: int) -> None:
    """Unlink the names a process killed before its `reap` left in `state_dir`."""
    with _lock:
        if state_dir in _swept:
            return
        if not _swept:
            atexit.register(reap)
        _swept.add(state_dir)
    with contextlib.suppress(OSError):
        for left in names_in(sfd):
            if left.startswith(PREFIX):
                with contextlib.suppress(OSError):
                    unlink_at(sfd, left)


def reap() -> None:
    """Unlink every name `keep_old` made (each frees its file, as the rename would have),
    through the descriptor of the directory it was made in."""
    with _lock:
        if not _pending:
            return
        taken = _pending[:]
        _pending.clear()
    for sfd, kept in taken:
        try:
            with contextlib.suppress(OSError):
                unlink_at(sfd, kept)
        finally:
            os.close(sfd)
