"""Regular expressions from models, run with a time limit.

Patterns come from a model (worker `replace_in_file` with `regex=true`, memo's
`old_span_start_regex`), so a pattern that backtracks exponentially must fail, not hang
the tool. The `regex` package accepts Python `re` syntax (its VERSION0 mode) and takes a
timeout on every operation.
"""

from __future__ import annotations

import re
from typing import Any

import regex

TIMEOUT_SECONDS = 5.0
error = re.error
Pattern = regex.Pattern
Match = regex.Match


class RegexTimeout(Exception):
    """The pattern ran longer than the time limit on this text."""


def compile(pattern: str, flags: int = 0) -> regex.Pattern[str]:
    """Compile with `re`-compatible syntax; raises `re.error` (with `re`'s message, the
    documented dialect) for an invalid pattern."""
    re.compile(pattern, flags)
    try:
        return regex.compile(pattern, flags | regex.VERSION0)
    except regex.error as exc:
        raise re.error(str(exc)) from None


def _guard(call: Any, *args: Any, **kwargs: Any) -> Any:
    try:
        return call(*args, timeout=TIMEOUT_SECONDS, **kwargs)
    except regex.error as exc:  # e.g. a bad group reference in a replacement template
        raise re.error(str(exc)) from None
    except TimeoutError:
        raise RegexTimeout(
            f"the pattern took longer than {TIMEOUT_SECONDS:g} s; simplify it"
        ) from None


def search(rx: regex.Pattern[str], text: str, pos: int = 0) -> regex.Match[str] | None:
    return _guard(rx.search, text, pos)


def subn(rx: regex.Pattern[str], repl: Any, text: str, count: int = 0) -> tuple[str, int]:
    return _guard(rx.subn, repl, text, count=count)


def finditer(rx: regex.Pattern[str], text: str, pos: int = 0) -> list[regex.Match[str]]:
    """All matches from `pos` on (a list: the time limit covers the whole search)."""
    return list(_guard(rx.finditer, text, pos))


def count(rx: regex.Pattern[str], text: str) -> int:
    return len(_guard(rx.findall, text, overlapped=False))


MULTILINE = regex.MULTILINE
