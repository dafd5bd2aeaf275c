"""Directory descriptors kept open between calls, so that a state directory is not
walked again from `/` for every step of a change (issue 32: ~45 of an edit's opens).

`state.statedir` opens a state directory (and `fs.fsio` a root) one component at a time
from `/` without following links (a directory swapped for a symlink is refused). It hands the descriptor
it got to `keep`; the next time the same directory is asked for, `reuse` returns a
duplicate of the kept descriptor, but only after the kernel confirms
(`/proc/self/fd/<n>`) that the directory is still reached by that very path: a directory
that was moved away, deleted, or replaced by a symlink (at its own name or at any
ancestor's) reads back as another path, is dropped, and the caller walks from `/` again,
which refuses the link as before. Where `/proc` is missing nothing is kept.

Inside `checked_once()` (one tool call: `Toolset.call`) the directories below a root
that the call walks to are kept for its other steps (`keep_for_call`, no `/proc` asked:
see there), and the confirmation of a kept directory is made once
per directory, at its first use in the call; its later uses in the same call get the
same directory without asking `/proc` again. A call that walked from `/` once would
likewise use the descriptor it got for all its steps: a directory swapped for a link
during the call is not written through either way (the descriptor names the directory
itself, never the link), and the next call confirms it again and refuses it. A rename
or removal of a directory by filewright itself (`forget_checks`) ends the trust at once.
"""

from __future__ import annotations

import _thread
import contextlib
import os
from collections import OrderedDict
from types import TracebackType

LIMIT = 64
"""Descriptors kept at most (the least recently used are closed first)."""

_PROC_FD = "/proc/self/fd/"
_kept: OrderedDict[str, int] = OrderedDict()
_lock = _thread.allocate_lock()
_local = _thread._local()


def reuse(path: str) -> int | None:
    """A new descriptor (the caller closes it) of the kept directory `path` (absolute,
    normalised, no links), if it is still that directory at that path; else None."""
    with _lock:
        fd = _confirmed(path)
        return None if fd is None else os.dup(fd)


def confirmed(path: str) -> bool:
    """Whether the directory `path` (absolute, normalised) is kept and still that
    directory at that path (confirmed as `reuse` does; no descriptor is made): then no
    name along it is a symlink now."""
    with _lock:
        return _confirmed(path) is not None


def _confirmed(path: str) -> int | None:
    """The kept descriptor of `path` if it is confirmed (see `reuse`); else None (a kept
    one that no longer reads back as `path` is dropped). Call with `_lock` held."""
    fd = _kept.get(path)
    if fd is None:
        return None
    checked: set[str] | None = getattr(_local, "checked", None)
    if checked is None or path not in checked:
        try:
            where = os.readlink(_PROC_FD + str(fd))
        except OSError:
            where = None
        if where != path:
            del _kept[path]
            os.close(fd)
            return None
        if checked is not None:
            checked.add(path)
    _kept.move_to_end(path)
    return fd


def keep(path: str, fd: int) -> None:
    """Keep a duplicate of `fd`, the directory just opened at `path` without following
    links, for `reuse`."""
    try:
        if os.readlink(_PROC_FD + str(fd)) != path:
            return  # (reached through a link, or no /proc: never kept)
    except OSError:
        return
    checked: set[str] | None = getattr(_local, "checked", None)
    with _lock:
        if checked is not None:
            checked.add(path)
        if path in _kept:
            return
        _kept[path] = os.dup(fd)
        while len(_kept) > LIMIT:
            os.close(_kept.popitem(last=False)[1])


CALL_LIMIT = 16
"""Directories below a root kept for one call at most (`keep_for_call`)."""


def reuse_in_call(path: str) -> int | None:
    """A new descriptor (the caller closes it) of the directory `path` as this thread's
    tool call walked to it earlier (`keep_for_call`); None outside a call or if it did not."""
    walked: dict[str, int] | None = getattr(_local, "walked", None)
    fd = walked.get(path) if walked else None
    return None if fd is None else os.dup(fd)


def keep_for_call(path: str, fd: int) -> None:
    """Keep a duplicate of `fd`, the directory below a root just walked to at `path`
    without following links, until this thread's tool call ends (`checked_once`): the
    other steps of the call in that directory do not walk to it again. Nothing is asked of
    `/proc`: as with a descriptor the call held throughout, a directory swapped for a link
    during the call is not written through (the descriptor names the directory itself),
    and the next call walks again. Outside a call, or past `CALL_LIMIT`, nothing is kept."""
    walked: dict[str, int] | None = getattr(_local, "walked", None)
    if walked is not None and path not in walked and len(walked) < CALL_LIMIT:
        with contextlib.suppress(OSError):  # (out of descriptors: the caller's is good)
            walked[path] = os.dup(fd)


class checked_once:
    """Within it (this thread; nestable: one tool call), each kept directory is confirmed
    at its first `reuse` only, and the directories below a root that the call walked to
    are kept for its other steps (`keep_for_call`); see the module's docstring."""

    __slots__ = ("_outer",)

    def __enter__(self) -> None:
        self._outer = getattr(_local, "checked", None)
        if self._outer is None:
            _local.checked = set()
            _local.walked = {}

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        if self._outer is None:
            _local.checked = None
            _close_walked(None)


def _close_walked(keep: dict[str, int] | None) -> None:
    walked: dict[str, int] | None = getattr(_local, "walked", None)
    _local.walked = keep
    for fd in (walked or {}).values():
        os.close(fd)


def forget_checks() -> None:
    """Confirm every kept directory again at its next use (a directory was renamed or
    removed by this thread's call)."""
    checked: set[str] | None = getattr(_local, "checked", None)
    if checked is not None:
        checked.clear()
        _close_walked({})  # (and the directories this call walked to: walked to again)


def forget_all() -> None:
    """Close every kept descriptor (tests; a process about to drop its privileges)."""
    with _lock:
        while _kept:
            os.close(_kept.popitem()[1])
