"""The direct diff of a one-block change (`diffs.one_block_opcodes`) is byte-identical to
difflib's: checked on random texts over a small alphabet of lines (so lines repeat, in
the head, the tail and across them), on edits of one block, and on arbitrary pairs
(where it must either decline or agree)."""

from __future__ import annotations

import difflib
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from filewright.engine import diffs
from filewright.engine.diffs import one_block_opcodes, unified_diff, unique_lines_opcodes

LINES = st.sampled_from(["a\n", "b\n", "c\n", "\n", "}\n", "x = 1\n", "a", "b"])
TEXT = st.lists(LINES, max_size=30)


def _reference(old: str, new: str, context: int = 3) -> str:
    """difflib's own unified diff, as `diffs` finishes it."""
    lines = difflib.unified_diff(
        old.splitlines(keepends=True),
        new.splitlines(keepends=True),
        fromfile="a/f.txt",
        tofile="b/f.txt",
        n=context,
    )
    return diffs._finish(lines, 1)


def _check(old_lines: list[str], new_lines: list[str], context: int = 3) -> None:
    old, new = "".join(old_lines), "".join(new_lines)
    a, b = old.splitlines(keepends=True), new.splitlines(keepends=True)
    ops = one_block_opcodes(a, b)
    if ops is not None:
        assert ops == difflib.SequenceMatcher(None, a, b).get_opcodes()
    assert unified_diff(old, new, "f.txt", context) == _reference(old, new, context)


@settings(max_examples=250, deadline=None)
@given(TEXT, TEXT, st.integers(0, 4))
def test_any_two_texts(old: list[str], new: list[str], context: int) -> None:
    _check(old, new, context)


@settings(max_examples=250, deadline=None)
@given(TEXT, TEXT, TEXT, TEXT)
def test_one_block_changed(
    head: list[str], tail: list[str], gone: list[str], came: list[str]
) -> None:
    _check(head + gone + tail, head + came + tail)


@settings(max_examples=150, deadline=None)
@given(TEXT, TEXT, st.lists(st.sampled_from(["p\n", "q\n", "r\n"]), max_size=3),
       st.lists(st.sampled_from(["s\n", "t\n"]), max_size=3))  # fmt: skip
def test_new_lines_nowhere_else(
    head: list[str], tail: list[str], gone: list[str], came: list[str]
) -> None:
    """Blocks whose lines occur nowhere else: the direct path is taken (and agrees)."""
    a, b = head + gone + tail, head + came + tail
    if a != b:
        assert one_block_opcodes(a, b) is not None
    _check(a, b)


def test_one_line_of_forty_takes_the_direct_path() -> None:
    a = [f"line {i} the quick brown fox\n" for i in range(40)]
    b = list(a)
    b[20] = "line 20 the quick brown cat\n"
    assert one_block_opcodes(a, b) == [
        ("equal", 0, 20, 0, 20),
        ("replace", 20, 21, 20, 21),
        ("equal", 21, 40, 21, 40),
    ]
    _check(a, b)


def test_long_texts_with_popular_lines_go_to_difflib() -> None:
    """From 200 lines on difflib treats frequent lines as junk (here it does not find the
    common tail at all): no direct path there."""
    a = ["\n"] * 150 + ["k\n", "x\n"] + ["\n"] * 100
    b = ["\n"] * 150 + ["k\n", "y\n"] + ["\n"] * 100
    assert difflib.SequenceMatcher(None, a, b).get_opcodes()[-1] == ("replace", 151, 252, 151, 252)
    assert one_block_opcodes(a, b) is None
    _check(a, b)


# -- changes of many places between lines that each occur once (`unique_lines_opcodes`) --

GONE = st.lists(st.sampled_from(["p\n", "q\n", "\n", "}\n"]), max_size=3)  # only in old
CAME = st.lists(st.sampled_from(["s\n", "t\n", "  x)\n", "q"]), max_size=3)  # only in new


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.booleans(), st.booleans(), GONE, CAME), max_size=40))
def test_many_places_between_unique_lines(places: list[Any]) -> None:
    """Lines shared by both texts occur once in each (some lines are kept only on one
    side); between them any lines of the other alphabet: the direct path is taken and
    gives difflib's opcodes and diff."""
    a: list[str] = []
    b: list[str] = []
    for n, (in_a, in_b, gone, came) in enumerate(places):
        line = f"unique {n}\n"
        a += ([line] if in_a else []) + gone
        b += ([line] if in_b else []) + came
    ops = unique_lines_opcodes(a, b)
    assert ops is not None
    assert ops == difflib.SequenceMatcher(None, a, b).get_opcodes()
    _check(a, b)


@settings(max_examples=100, deadline=None)
@given(
    st.integers(0, 260),
    st.lists(st.tuples(st.sampled_from("rdim"), st.integers(0, 299)), max_size=6),
)
def test_texts_whose_lines_each_occur_once(size: int, edits: list[Any]) -> None:
    """Every line once in each text (data or numbered lines, also past difflib's 200-line
    junk heuristic): lines replaced, deleted, inserted and moved anywhere, also at the
    ends, so the common head and tail the direct path sets aside are of any length; the
    opcodes are difflib's whenever it takes them, and the diff always is."""
    a = [f"row {i}\n" for i in range(size)]
    b = list(a)
    for n, (kind, at) in enumerate(edits):
        at = at % (len(b) + 1)
        if kind == "r" and at < len(b):
            b[at] = f"new {n}\n"
        elif kind == "d" and at < len(b):
            del b[at]
        elif kind == "i":
            b.insert(at, f"added {n}\n")
        elif kind == "m" and b:
            b.insert(at % len(b), b.pop(at % len(b) - 1))
    ops = unique_lines_opcodes(a, b)
    if ops is not None:
        assert ops == difflib.SequenceMatcher(None, a, b).get_opcodes()
    _check(a, b)


def test_a_replace_all_of_many_lines_takes_the_direct_path() -> None:
    """3,000 places with popular lines between and around them (difflib's junk heuristic
    is on from 200 lines): the direct path, and difflib's opcodes."""
    a = [
        f"{'    ' * (i % 3)}call(x)\n" if k == 0 else f"other {i}\n"
        for i in range(3000)
        for k in (0, 1)
    ]
    b = []
    for line in a:
        if "call(x)" in line:
            indent = line[: len(line) - len(line.lstrip())]
            b += [f"{indent}call(\n", f"{indent}  x)\n"]
        else:
            b.append(line)
    ops = unique_lines_opcodes(a, b)
    assert ops is not None and len(ops) == 6000
    # difflib itself on the whole texts takes seconds: on 300 places (600 lines) it agrees
    assert (
        unique_lines_opcodes(a[:600], b[:900])
        == difflib.SequenceMatcher(None, a[:600], b[:900]).get_opcodes()
    )
    _check(a[:600], b[:900])


def test_a_line_shared_twice_or_out_of_order_goes_to_difflib() -> None:
    assert unique_lines_opcodes(["a\n", "b\n"], ["b\n", "a\n"]) is None  # moved
    assert unique_lines_opcodes(["a\n", "a\n"], ["a\n", "c\n"]) is None  # twice in old
    assert unique_lines_opcodes(["a\n", "c\n"], ["a\n", "a\n"]) is None  # twice in new
    _check(["a\n", "b\n"], ["b\n", "a\n"])
