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
