"""Failure hints and previews over huge texts cost what their budgets cost.

`suggest.closest` (the closest real text a refused edit shows) compared whole lines and
whole blocks with each other: a 3 MB `old` against a 3 MB line took minutes, and a 3 MB
`old` against a small memory file about a second (found by the tool-call fuzzer, whose
huge strings hit it on every edit tool). `diffs._one_hunk` (the preview of a change to a
big region) wrote its megabyte of diff one line at a time.
"""

from __future__ import annotations

from typing import Any

import pytest
from fsprobe import python_calls

from filewright.edit.suggest import closest, describe_differences
from filewright.engine.diffs import CLIPPED_NOTE, unified_diff

HUGE_LINE = "x" * (3 << 20)
MEMORY = "# Memory\n## one\nx\n## two\ny\n"


@pytest.mark.timeout(
    60, method="thread"
)  # a bound on the old hang (minutes), not a speed assertion
def test_closest_to_a_huge_line_names_where_it_differs() -> None:
    hints = closest(HUGE_LINE, HUGE_LINE[:-1] + "z")
    assert [(h["start_line"], h["end_line"]) for h in hints] == [(1, 1)]
    assert hints[0]["similarity"] == 1.0
    (label,) = hints[0]["differs"]
    assert label.startswith("token: '") and "z' vs '" in label, label


@pytest.mark.timeout(60, method="thread")
def test_closest_with_a_huge_old_text() -> None:
    hints = closest(MEMORY, HUGE_LINE)
    assert hints and all(1 <= h["start_line"] <= h["end_line"] <= 5 for h in hints)
    lines = "line of text\n" * 120_000
    hints = closest(MEMORY, lines)
    assert hints[0]["differs"][0] == "line count: old has 120000 lines, file has 5"
    hints = closest(lines, "q" + lines[1:])
    assert hints[0]["start_line"] == 1 and hints[0]["similarity"] == 1.0


@pytest.mark.timeout(60, method="thread")
def test_closest_among_lines_as_long_as_old() -> None:
    """rapidfuzz's partial_ratio aligns two strings of one length every way (0.4 s for two
    2,000-character lines): a one-line old text against 1,200 lines of its length (a
    fixed-width data file; or any lines past the 2,000 characters compared) took minutes."""
    rows = [
        f"{i:04d}," + "".join("abcde ,"[(i * 7 + j * 13) % 7] for j in range(1995))
        for i in range(1200)
    ]
    hints = closest("\n".join(rows), rows[900][:-1] + "!")
    assert hints[0]["start_line"] == 901 and hints[0]["similarity"] > 0.99
    hints = closest("\n".join(["a" * 2000] * 200), "a" * 2000 + "c")  # gemini's case
    assert [h["start_line"] for h in hints] == [1, 2, 3]


def test_long_lines_are_told_apart_where_they_differ() -> None:
    a = "word " * 10_000
    assert describe_differences(a + "end", a + "END") == ["case"]
    assert describe_differences(a + "one", a + "two") == ["token: 'one' vs 'two'"]
    assert describe_differences("start " + a, "begin " + a) == ["token: 'start' vs 'begin'"]


def test_a_hint_for_a_huge_old_text_costs_the_same_at_any_size() -> None:
    """A 120,000-line `old` (the fuzzer's) cost a Python pass over each of its lines in
    `closest` and three in `describe_differences` on every refused edit: 0.1 s a hint."""
    works = []
    for n in (120_000, 240_000):
        lines = "line of text\n" * n
        hints: list[dict[str, Any]] = []
        works.append(python_calls(lambda old=lines, out=hints: out.extend(closest(MEMORY, old))))
        assert hints[0]["differs"][0] == f"line count: old has {n} lines, file has 5"
        spaced = "line  of text\n" * n
        works.append(python_calls(lambda s=spaced, t=lines: describe_differences(s, t)))
    assert works[0] == works[2] < 50_000 and works[1] == works[3] < 20_000, works


def test_huge_texts_are_described_around_their_first_difference() -> None:
    a = "word " * 10_000
    assert describe_differences(a + "end", a + "END") == ["case"]  # under the bound: whole
    b = a * 2
    assert describe_differences("start " + b, "begin " + b) == ["token: 'start' vs 'begin'"]
    assert describe_differences(b + "end", b + "END") == ["case: 'end' vs 'END'"]
    assert describe_differences(b + "one  two", b + "one two") == ["whitespace"]
    lines = "line\n" * 100_000
    assert describe_differences(lines + "last  ", lines + "last") == [
        "alike but for whitespace in the 65536 characters compared"
    ]  # not "whitespace" over texts it did not compare whole
    assert describe_differences(lines + "one\nTwo", lines + "one\ntwo\nthree") == [
        "line count: old has 100002 lines, file has 100003",
        "case: 'Two' vs 'two'",
        "line only in file: 'three'",
    ]
    cjk = "\u00e9\u4e2d\U0001f600" * 200_000
    count, token, only = describe_differences(cjk, "line of text\nb")
    assert count == "line count: old has 1 lines, file has 2"
    assert token.startswith("token: '\u00e9\u4e2d \U0001f600") and only == "line only in file: 'b'"


def _reference_hunk(new: str, limit: int) -> str:
    """The preview of adding `new` (whole lines) to an empty file, written line by line."""
    lines = new.splitlines(keepends=True)
    out = f"--- a/f\n+++ b/f\n@@ -0,0 +1,{len(lines)} @@\n"
    for index, line in enumerate(lines):
        if len(out) + 1 + len(line) > limit:
            rest = lines[index:]
            chars = sum(len(x) for x in rest) + len(rest)
            return out + f"{CLIPPED_NOTE}{len(rest)} more lines, {chars} more characters)\n"
        out += "+" + line
    return out


@pytest.mark.parametrize("limit", [0, 60, 61, 62, 1000, 54_321, 1_000_000, 10_000_000])
def test_a_big_preview_is_cut_at_the_same_line_as_line_by_line(limit: int) -> None:
    new = "".join(f"line {i}\n" + "\n" * (i % 3) for i in range(150_000))
    assert len(new) > 1 << 20
    assert unified_diff("", new, "f", limit=limit) == _reference_hunk(new, limit)
