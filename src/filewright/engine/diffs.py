"""The diffs a change shows: unified diffs of two texts, clipped for a model's result."""

from __future__ import annotations

import difflib
import re

MAX_DIFF_TEXT = 20_000  # characters of diff shown to a model in a result text
MAX_DIFF_DATA = 1_000_000  # characters of diff kept in a result's data


def clip_diff(diff: str, limit: int = MAX_DIFF_TEXT) -> str:
    """`diff` cut to about `limit` characters at a line boundary, with a note of what was left out."""
    if len(diff) <= limit:
        return diff
    head = diff[:limit]
    cut = head.rfind("\n")
    head = head[: cut + 1] if cut > 0 else head[:limit]
    rest = diff[len(head) :]
    return f"{head}... (diff truncated: {rest.count(chr(10)) + 1} more lines, {len(rest)} more characters)\n"


_HUNK = re.compile(r"([-+])(\d+)")


def unified_diff(old: str, new: str, path: str, context: int = 3, first_line: int = 1) -> str:
    """A unified diff of two texts ("\\n" newlines); `first_line`: the line number of their
    first line in the file (when they are an excerpt of it)."""
    lines = difflib.unified_diff(
        old.splitlines(keepends=True),
        new.splitlines(keepends=True),
        fromfile=f"a/{path}",
        tofile=f"b/{path}",
        n=context,
    )
    out = []
    for line in lines:
        if first_line != 1 and line.startswith("@@ "):
            line = _HUNK.sub(lambda m: f"{m[1]}{int(m[2]) + first_line - 1}", line)
        if not line.endswith("\n"):
            line += "\n\\ No newline at end of file\n"
        out.append(line)
    return "".join(out)


def changed_lines(old: str, new: str) -> tuple[int, int] | None:
    """The 1-based range of lines in `new` that differ from `old` (prefix/suffix trim)."""
    if old == new:
        return None
    a, b = old.split("\n"), new.split("\n")
    start = 0
    while start < min(len(a), len(b)) and a[start] == b[start]:
        start += 1
    end_a, end_b = len(a), len(b)
    while end_a > start and end_b > start and a[end_a - 1] == b[end_b - 1]:
        end_a -= 1
        end_b -= 1
    return (start + 1, max(start + 1, end_b))
