"""Calls answered on the event loop: what such a call may do, and how it gives up.

The MCP server answers a small single-file read on its event-loop thread instead of
handing it to a worker thread (issue 32: 0.3-0.5 ms a call), but only where nothing the
read does can keep the loop waiting (`filewright.surfaces.mcp.mounts` decides where).
While such a call runs (`running_inline`), the layers below ask before anything that
could take long:

- `check_open(fd, st)`: the one regular-file opener (`fs.fsio`) asks it right after it
  opened and fstat'ed a file, before reading a byte of it: a file that is not a regular
  file, or is larger than `MAX_INLINE_BYTES`, ends the inline attempt.
- `leave(why)`: work not bounded by the file's size ends it: a PDF's text, a directory
  listing, the detection of a legacy encoding (`fs.textfile`: up to 0.5 s for 64 KiB).
- a progress report (`core.progress.report_progress` asks `leave`) or a confirmation
  (which would need the loop that is busy running the call) ends it.

Ending it raises `NotInline`; the server catches it and runs the same call again on a
worker thread. Nothing was returned or changed by then, so the answer is the one the
threaded call gives (a read the call recorded in the ledger before a second read of a
file that grew meanwhile gave up is recorded again, with the file's hash then).
`NotInline` is a BaseException, as `GeneratorExit` is: a tool's `except Exception`
(which turns surprises into failure results) must not catch it.
Outside `running_inline` every check here is a no-op costing one context-variable read.
"""

from __future__ import annotations

import contextvars
import os
import stat
from types import TracebackType

MAX_INLINE_BYTES = 64 * 1024
"""The largest file a call on the event loop reads (its bytes, whole or in part)."""

_INLINE: contextvars.ContextVar[bool] = contextvars.ContextVar("filewright_inline", default=False)


class NotInline(BaseException):
    """This call must run on a worker thread: raised, while inline, before it reads a
    file too large or not regular, or does work that may take long (see the module doc)."""


def active() -> bool:
    """Whether the running call is answered on the event loop."""
    return _INLINE.get()


def leave(why: str) -> None:
    """Give up the inline attempt (raise NotInline) when the running call is inline:
    called before work whose time the file's size does not bound."""
    if _INLINE.get():
        raise NotInline(why)


def check_open(fd: int, st: os.stat_result) -> None:
    """While inline: close `fd` and raise NotInline when the file it reads (fstat'ed as
    `st`) is not a regular file or is larger than `MAX_INLINE_BYTES`."""
    if _INLINE.get() and (not stat.S_ISREG(st.st_mode) or st.st_size > MAX_INLINE_BYTES):
        os.close(fd)
        raise NotInline("not a small regular file")


class running_inline:  # (named as a function: `with running_inline():`)
    """Mark the call made inside the block as answered on the event loop (its progress
    reports and `check_open`/`leave` give up with NotInline). A class, not a generator
    context manager: 1.3 against 5.8 µs a call (measured on a loaded machine)."""

    __slots__ = ("_token",)

    def __enter__(self) -> None:
        self._token = _INLINE.set(True)

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        _INLINE.reset(self._token)
