"""The size budget of an edit's result: a change whose result would pass the size limit is
refused before it is built in full (``replace_all`` with a long ``new_string``, a regex
template repeating ``\\g<0>``).

The engine sets the budget (in characters) around a compute step with :func:`limit`; the
edit functions that multiply text ask :func:`over` before they build. A character is at
least one byte on disk in every encoding filewright writes, so a result over the budget
in characters is over the size limit in bytes too. No budget set: no limit.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from contextvars import ContextVar
from typing import Any

_BUDGET: ContextVar[int | None] = ContextVar("filewright_edit_budget", default=None)


@contextlib.contextmanager
def limit(max_chars: int | None) -> Iterator[None]:
    """Run the enclosed compute with results limited to ``max_chars`` characters."""
    token = _BUDGET.set(max_chars)
    try:
        yield
    finally:
        _BUDGET.reset(token)


def current() -> int | None:
    """The budget in force (``None``: unlimited)."""
    return _BUDGET.get()


def over(size: int) -> bool:
    """Whether a result of ``size`` characters would pass the budget."""
    budget = _BUDGET.get()
    return budget is not None and size > budget


class ResultTooLarge(Exception):
    """Raised inside a builder (a regex replacement callback) once the result it is
    building passes the budget; carries the size reached so far."""

    def __init__(self, size: int, budget: int) -> None:
        super().__init__(f"result of at least {size} characters (limit {budget})")
        self.size = size
        self.budget = budget


# --------------------------------------------------------------------------- per call
#
# One tool call (`Toolset.call`) runs inside :func:`call_scope`: every regular expression
# the call runs draws its time from one clock (`core.regexes` reads it), so a pattern that
# is slow on each line cannot take longer than the limit in all, however many lines.

REGEX_SECONDS = 5.0
"""Regex time per tool call (all of the call's regex operations together)."""


class Clock:
    """The regex time left to one tool call, in seconds."""

    __slots__ = ("limit", "remaining")

    def __init__(self, seconds: float) -> None:
        self.limit = seconds
        self.remaining = seconds


OUTPUT_CHARS = 8 << 20
"""What one tool call may return, in all: characters of text plus bytes of content blocks
(images, documents), across every file it reads."""


class Output:
    """The output one tool call has left (characters of text, bytes of content)."""

    __slots__ = ("limit", "remaining")

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.remaining = limit


_CLOCK: ContextVar[Clock | None] = ContextVar("filewright_regex_clock", default=None)
_OUTPUT: ContextVar[Output | None] = ContextVar("filewright_output", default=None)


class call_scope:  # used as a function: `with call_scope(seconds, chars):`
    """Run one tool call: its regex operations share `regex_seconds`, its readers share
    `output_chars`. A call made inside another (a toolset calling a tool) stays in the
    outer call's scope. (A class, not a generator: every tool call enters one.)"""

    __slots__ = ("output_chars", "regex_seconds", "tokens")

    def __init__(
        self, regex_seconds: float = REGEX_SECONDS, output_chars: int = OUTPUT_CHARS
    ) -> None:
        self.regex_seconds, self.output_chars = regex_seconds, output_chars
        self.tokens: tuple[Any, Any] | None = None

    def __enter__(self) -> None:
        if _CLOCK.get() is None:
            self.tokens = (
                _CLOCK.set(Clock(self.regex_seconds)),
                _OUTPUT.set(Output(self.output_chars)),
            )

    def __exit__(self, *_exc: object) -> None:
        if self.tokens is not None:
            clock, out = self.tokens
            _OUTPUT.reset(out)
            _CLOCK.reset(clock)


def output_left() -> int | None:
    """What the call in progress may still return (None: not in a tool call, no limit).
    Every reader makes its result no larger than this (`read.readers`)."""
    out = _OUTPUT.get()
    return None if out is None else max(out.remaining, 0)


def output_limit() -> int | None:
    """The output budget of the call in progress (None: not in a tool call)."""
    out = _OUTPUT.get()
    return None if out is None else out.limit


def spend_output(size: int) -> None:
    """Count `size` characters (or content bytes) a reader returned against the call."""
    out = _OUTPUT.get()
    if out is not None:
        out.remaining -= size


def within_output(limit: int | None) -> int | None:
    """`limit` (None: none of its own) lowered to what the call may still return."""
    left = output_left()
    if left is None:
        return limit
    return left if limit is None else min(limit, left)


def regex_clock() -> Clock:
    """The clock of the call in progress; outside a tool call (the engine used directly),
    a fresh clock for each operation."""
    return _CLOCK.get() or Clock(REGEX_SECONDS)


class Meter:
    """Bytes produced towards one result, refused (ResultTooLarge) once past `limit`
    (None: no limit). A streamed change meters each stage's output piece by piece, so a
    result past the limit stops at the first piece past it."""

    __slots__ = ("limit", "used")

    def __init__(self, limit: int | None) -> None:
        self.limit = limit
        self.used = 0

    def take(self, size: int) -> None:
        self.used += size
        if self.limit is not None and self.used > self.limit:
            raise ResultTooLarge(self.used, self.limit)
