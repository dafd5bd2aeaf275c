"""One tool call per child process without an interpreter start-up each.

The resource tests run every call in a process of its own (to measure its peak memory, or
to cap its address space, and to kill it at a deadline). `call_server` is one warm
interpreter (tests/forkserver.py) that has imported filewright and the toolsets those
calls use, and forks a child per call: the child starts with the memory such an
interpreter has (28 MB resident, 40 MB of address space: what a new process has once it
has loaded a toolset, 24-30 MB and 35 MB), so no bound is loosened; it pays no start-up.
A module that uses it closes it when it ends (`close_call_server`); one that borrows
`call_capped` or `run_tool` leaves it to the end of the test process.
"""

from __future__ import annotations

import atexit

from forkserver import ForkServer

TOOLSETS_USED = (
    "default",
    "claude.toolset",
    "text_editor",
    "gemini",
    "worker",
    "companion",
    "memo",
)
PRELOAD = ("filewright", *(f"filewright.toolsets.{name}" for name in TOOLSETS_USED))
_SERVER: list[ForkServer] = []


def call_server() -> ForkServer:
    """The fork server (started on first use)."""
    if not _SERVER:
        _SERVER.append(ForkServer(*PRELOAD))
        atexit.register(close_call_server)
    return _SERVER[0]


def close_call_server() -> None:
    """Close the fork server (its children killed, itself reaped), if it was started."""
    while _SERVER:
        _SERVER.pop().close()
