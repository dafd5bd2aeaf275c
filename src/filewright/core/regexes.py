"""Regular expressions from models, run with a time limit.

Patterns come from a model (worker `replace_in_file` with `regex=true`, memo's
`old_span_start_regex`), so a pattern that backtracks exponentially must fail, not hang
the tool. The `regex` package accepts Python `re` syntax (its VERSION0 mode) and takes a
timeout on every operation.

The time limit is per tool call, not per operation: every operation here draws on the
clock of the call in progress (`core.budget.call_scope`, set by `Toolset.call`), so a
pattern that costs a second on each line of a grep, or on each window of a streamed
file, stops once the call's regex time is spent. Every regex a model's pattern reaches
runs through this module (tests/test_call_budgets.py fails any other use of `regex`).

The `regex` package itself loads with the first pattern compiled (`compile`, the one way
in: every other function takes what it returned), so a module that may run a model's
pattern imports this one at its top and costs nothing until a pattern is given.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from filewright.core import budget

if TYPE_CHECKING:
    import regex

TIMEOUT_SECONDS = budget.REGEX_SECONDS
error = re.error
MULTILINE = re.MULTILINE  # the same flag value in `regex`


class _NotLoaded(Exception):
    """Stands for `regex.error` until `compile` has loaded the package (no operation runs
    before it: each takes a pattern `compile` returned)."""


_regex_error: list[type[Exception]] = [_NotLoaded]


class RegexTimeout(Exception):
    """The call's regular expressions ran longer than its time limit."""


def _timeout(clock: budget.Clock) -> RegexTimeout:
    return RegexTimeout(
        f"the pattern took longer than {clock.limit:g} s (the regex time of one call); simplify it"
    )


def compile(pattern: str, flags: int = 0) -> regex.Pattern[str]:
    """Compile with `re`-compatible syntax; raises `re.error` (with `re`'s message, the
    documented dialect) for an invalid pattern."""
    re.compile(pattern, flags)
    # deferred: the `regex` package is heavy (tens of ms uncompiled), loaded on the first
    # pattern a model gives, not by the modules that may run one
    import regex

    _regex_error[0] = regex.error
    try:
        return regex.compile(pattern, flags | regex.VERSION0)
    except regex.error as exc:
        raise re.error(str(exc)) from None


def _guard(call: Any, *args: Any, **kwargs: Any) -> Any:
    """Run one operation on the call's clock: it gets the time the call has left, and
    what it takes is taken from the call."""
    clock = budget.regex_clock()
    if clock.remaining <= 0:
        raise _timeout(clock)
    start = time.monotonic()
    try:
        return call(*args, timeout=clock.remaining, **kwargs)
    except _regex_error[0] as exc:  # e.g. a bad group reference in a replacement template
        raise re.error(str(exc)) from None
    except TimeoutError:
        clock.remaining = 0
        raise _timeout(clock) from None
    finally:
        clock.remaining -= time.monotonic() - start


def search(rx: regex.Pattern[str], text: str, pos: int = 0) -> regex.Match[str] | None:
    return _guard(rx.search, text, pos)


def subn(rx: regex.Pattern[str], repl: Any, text: str, count: int = 0) -> tuple[str, int]:
    return _guard(rx.subn, repl, text, count=count)


def finditer(rx: regex.Pattern[str], text: str, pos: int = 0) -> Iterator[regex.Match[str]]:
    """The matches from `pos` on, one at a time (a consumer that stops early costs no
    more); each step is timed on the call's clock."""
    clock = budget.regex_clock()
    if clock.remaining <= 0:
        raise _timeout(clock)
    it = rx.finditer(text, pos, timeout=clock.remaining)
    while True:
        if clock.remaining <= 0:
            raise _timeout(clock)
        start = time.monotonic()
        try:
            m = next(it, None)
        except TimeoutError:
            clock.remaining = 0
            raise _timeout(clock) from None
        finally:
            clock.remaining -= time.monotonic() - start
        if m is None:
            return
        yield m


def count(rx: regex.Pattern[str], text: str) -> int:
    return len(_guard(rx.findall, text, overlapped=False))
