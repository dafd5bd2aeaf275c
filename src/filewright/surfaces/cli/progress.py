"""The progress bar `filewright call` draws for a person watching a long tool call.

Tools report progress with `filewright.surfaces.dispatch.report_progress(done, total, message)`
(grep and search_file_content do: matching lines so far). When stderr is a terminal,
`filewright.surfaces.cli.main.run_call` runs the tool inside `shown_during(tool)`, which listens:

- the bar goes to **stderr** only (stdout carries the result) and is erased when the
  call ends, before the result is printed;
- it appears only when a report arrives after the call has run for
  `FILEWRIGHT_PROGRESS_DELAY` seconds (default 0.3), so quick calls draw nothing and
  never import rich;
- a spinner, the message and the elapsed time when the total is unknown, plus a bar and
  a percentage when it is known;
- `NO_COLOR`: no colours and no pulsing bar; `TERM=dumb` (or `unknown`): nothing at all,
  since such a terminal cannot redraw a line in place.

This module imports nothing heavy itself: rich is imported on the first report that is
shown.
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Iterator
from typing import IO, Any

from filewright.core.progress import progress_reporter
from filewright.fs.paths import printable

DELAY_ENV = "FILEWRIGHT_PROGRESS_DELAY"
DEFAULT_DELAY = 0.3
DUMB_TERMS = ("dumb", "unknown")


def show_delay() -> float:
    """Seconds a call runs before its progress is shown (`FILEWRIGHT_PROGRESS_DELAY`)."""
    raw = os.environ.get(DELAY_ENV, "").strip()
    if not raw:
        return DEFAULT_DELAY
    try:
        value = float(raw)
    except ValueError:
        return DEFAULT_DELAY
    return max(0.0, value) if value == value else DEFAULT_DELAY  # NaN: the default


def can_draw() -> bool:
    """Whether the terminal can redraw a line in place (not `TERM=dumb`)."""
    return os.environ.get("TERM", "").strip().lower() not in DUMB_TERMS


def _one_line(text: str) -> str:
    return printable(" ".join(text.split("\n")))


class TerminalProgress:
    """A `filewright.surfaces.dispatch.ProgressReporter` drawing a transient bar on a terminal.

    `file` is where to draw (stderr when None); `delay` overrides `show_delay()`.
    Call `close()` when the tool call ends: it erases the bar (if one was drawn).
    """

    def __init__(self, label: str, *, file: IO[str] | None = None, delay: float | None = None):
        self.label = _one_line(label)
        self.file = file
        self.delay = show_delay() if delay is None else delay
        self.started = time.monotonic()
        self.shown = False
        self._progress: Any = None
        self._task: Any = None
        self._closed = False

    def __call__(self, done: float, total: float | None = None, message: str | None = None) -> None:
        if self._closed:
            return
        if self._progress is None and time.monotonic() - self.started < self.delay:
            return
        text = _one_line(message) if message else f"{done:g}"
        if self._progress is None:
            self._start(text, done, total)
        else:
            self._progress.update(self._task, completed=done, total=total, description=text)

    def _start(self, text: str, done: float, total: float | None) -> None:
        # deferred: rich: heavy, loaded only when this runs
        from rich.console import Console
        from rich.progress import (
            BarColumn,
            Progress,
            SpinnerColumn,
            TaskProgressColumn,
            TextColumn,
            TimeElapsedColumn,
        )

        console = Console(file=self.file, stderr=self.file is None)
        columns: list[Any] = [
            SpinnerColumn(),
            TextColumn(self.label, style="bold", markup=False),
            TextColumn("{task.description}", markup=False),
        ]
        if not console.no_color:  # without colour the bar (and its pulse) shows nothing
            columns.append(BarColumn())
        columns += [TaskProgressColumn(), TimeElapsedColumn()]
        progress = Progress(
            *columns,
            console=console,
            transient=True,
            redirect_stdout=False,
            redirect_stderr=False,
        )
        self._task = progress.add_task(text, total=total, completed=done)  # type: ignore[arg-type]
        progress.start()
        self._progress = progress
        self.shown = True

    def close(self) -> None:
        """Stop listening and erase the bar."""
        self._closed = True
        if self._progress is not None:
            with contextlib.suppress(Exception):  # the result must still be printed
                self._progress.stop()
            self._progress = None


@contextlib.contextmanager
def shown_during(label: str) -> Iterator[TerminalProgress | None]:
    """Show the progress reported inside the block on stderr (a terminal), under `label`.

    Yields the bar, or None when the terminal cannot draw one (`TERM=dumb`).
    """
    if not can_draw():
        yield None
        return

    bar = TerminalProgress(label)
    try:
        with progress_reporter(bar):
            yield bar
    finally:
        bar.close()
