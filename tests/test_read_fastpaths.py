"""The read path's faster mechanisms agree with the ones they replace (issue 32).

Each test runs the replaced mechanism (kept here as the reference, or still in the tree
as the general path) and the new one on the same corpus of real-world inputs and
requires the same answer: line numbering, the small-file line split, the encoding and
content sniffing shortcuts, and path resolution by descriptors.
"""

from __future__ import annotations

import pytest

from filewright.read.textformat import numbered


def _numbered_reference(lines: list[str], start: int, width: int) -> str:
    """The numbering every toolset used before `numbered` (one f-string per line)."""
    return "\n".join(f"{start + i:>{width}}\t{line}" for i, line in enumerate(lines))


@pytest.mark.parametrize("start", [1, 2, 9, 10, 99, 998, 99_999, -40, -1])
def test_numbered_is_the_per_line_format(start: int) -> None:
    texts = ["", "x", "\t indented", "crlf\r", "中文", "a" * 300, " ... [truncated]"]
    for count in (0, 1, 2, 39, 40, 2048, 2049):
        lines = [texts[i % len(texts)] for i in range(count)]
        for width in (1, len(str(start + max(count, 1) - 1)), 6, 12):
            assert numbered(lines, start, width) == _numbered_reference(lines, start, width)
            # the cached column is reused, never changed by a caller
            assert numbered(lines, start, width) == _numbered_reference(lines, start, width)
