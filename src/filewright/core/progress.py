"""The progress hook: a long-running tool may report how far it is.

`report_progress` is a no-op unless a surface (the MCP server, the CLI's progress bar)
installed a reporter with `progress_reporter` in the current context.
"""

from __future__ import annotations

import contextlib
import contextvars
from collections.abc import Callable, Iterator

from filewright.core import inline

ProgressReporter = Callable[[float, float | None, str | None], None]
_REPORTER: contextvars.ContextVar[ProgressReporter | None] = contextvars.ContextVar(
    "filewright_progress", default=None
)


def report_progress(done: float, total: float | None = None, message: str | None = None) -> None:
    """Report progress of the running tool call (no-op unless a surface listens). A call
    answered on the MCP server's event loop gives up here (`core.inline`: reporting needs
    the loop), to run again on a worker thread."""
    inline.leave("progress report")
    reporter = _REPORTER.get()
    if reporter is not None:
        with contextlib.suppress(Exception):
            reporter(done, total, message)


@contextlib.contextmanager
def progress_reporter(reporter: ProgressReporter | None) -> Iterator[None]:
    """Install `reporter` for `report_progress` calls made inside the block (this context)."""
    token = _REPORTER.set(reporter)
    try:
        yield
    finally:
        _REPORTER.reset(token)
