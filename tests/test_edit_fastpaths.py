"""Shortcuts of the in-memory edit (issue 32), each against the path it stands in for:
`changed_range` started from a head and tail the edit knows are unchanged, and
`TextIndex.line_of` counted in the text before the line starts are built."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from filewright.edit import edits
from filewright.edit.outcome import Edited, changed_range
from filewright.edit.textindex import COUNTED_LOOKUPS, TextIndex

TEXT = st.text(alphabet="ab\n x", max_size=60)


def _common(a: str, b: str) -> tuple[int, int]:
    p = 0
    while p < min(len(a), len(b)) and a[p] == b[p]:
        p += 1
    s = 0
    while s < min(len(a), len(b)) - p and a[len(a) - 1 - s] == b[len(b) - 1 - s]:
        s += 1
    return p, s


@settings(max_examples=400, deadline=None)
@given(TEXT, TEXT, st.floats(0, 1), st.floats(0, 1))
def test_changed_range_from_a_known_head_and_tail(a: str, b: str, x: float, y: float) -> None:
    p, s = _common(a, b)
    same = (int(p * x), int(s * y))  # any lengths known to be common
    assert changed_range(a, b, same) == changed_range(a, b)


@settings(max_examples=300, deadline=None)
@given(TEXT, st.sampled_from(["a", "b", "x a", "\n", "a\nb"]), st.sampled_from(["", "y", "\nz"]))
def test_replace_reports_the_lines_a_full_scan_finds(text: str, old: str, new: str) -> None:
    out = edits.replace(text, old, new, replace_all=True, fuzzy=False)
    if isinstance(out, Edited):
        assert out.changed_lines == changed_range(text, out.text)


@settings(max_examples=300, deadline=None)
@given(TEXT, st.integers(-3, 70))
def test_line_of_before_and_after_the_line_starts_exist(text: str, offset: int) -> None:
    fresh = TextIndex(text).line_of(offset)
    built = TextIndex(text)
    assert built.starts  # (built first: the bisect path)
    assert fresh == built.line_of(offset)


def test_many_lookups_build_the_line_table_once_and_agree() -> None:
    """A replace_all over many places asks a line per place: past `COUNTED_LOOKUPS`
    lookups the line starts are built (a newline count per lookup was quadratic: a
    replace_all over 50,000 one-letter lines took 9.7 s), with the same answers."""
    text = "a\n" * 5_000
    index = TextIndex(text)
    got = [index.line_of(offset) for offset in range(0, len(text), 2)]
    assert got == list(range(5_000))
    assert index._starts is not None and index._counted == COUNTED_LOOKUPS
