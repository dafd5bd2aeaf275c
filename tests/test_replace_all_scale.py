"""A replace_all over many matches carries the change once per distinct surroundings.

`edit.replacement.replacement_for` reuses `adapt_replacement`'s answer for matches whose
surroundings it reads are alike (the match, the character after it, the indentation
before it on its line): 50,000 one-line matches took 17 s of carrying, one per match.
These tests pin that matches in different surroundings still get their own answer.
"""

from __future__ import annotations

from filewright.edit.edits import replace
from filewright.edit.outcome import Edited


def test_each_match_keeps_its_own_lines_indentation() -> None:
    text = "  a\n    a\na\nx a\n\ta\n" * 2_000
    result = replace(text, "a", "Z\nY", replace_all=True)
    assert isinstance(result, Edited), result
    expected = "  Z\n  Y\n    Z\n    Y\nZ\nY\nx Z\nY\n\tZ\n\tY\n" * 2_000
    assert result.text == expected


def test_a_match_inside_a_line_and_one_ending_it_differ() -> None:
    text = "ab\na\n" * 3
    result = replace(text, "a", "  Q", replace_all=True)
    assert isinstance(result, Edited), result
    assert result.text == "  Qb\nQ\n" * 3  # mid-line: as given; a whole line: carried


def test_fifty_thousand_matches_are_replaced() -> None:
    result = replace("a\n" * 50_000, "a", "bb", replace_all=True)
    assert isinstance(result, Edited) and result.replacements == 50_000
    assert result.text == "bb\n" * 50_000
