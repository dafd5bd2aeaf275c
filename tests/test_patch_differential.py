"""filewright's V4A applier against a plain first-hit reference on generated patches.

Files are generated from a small vocabulary (so repeated lines happen), patches are built
the way a model writes them (context copied from the file, changes in between). Where
every hunk's context occurs once in the file, both appliers must give the same text;
where a hunk's context occurs more than once and nothing in the patch tells the places
apart, filewright must refuse (the reference applies at the first).
"""

from __future__ import annotations

import sys
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.editbench.v4a_reference import ReferenceError_, apply_reference
from filewright.edit.outcome import Edited, EditFailure
from filewright.edit.patch_apply import apply_hunks
from filewright.edit.patch_parse import PatchError, parse_update_diff

WORDS = ["alpha", "beta", "gamma", "delta", "    return x", "", "}", "x = 1", "# note"]


# Strategies are built once, not inside every draw (building and validating one costs
# more than drawing from it); the draws are the same.
_LENGTH = st.integers(3, 40)
_WORD = st.sampled_from(WORDS)
_DIGIT = st.integers(0, 9)
_BOOL = st.booleans()
_HUNKS = st.integers(1, 3)
_CONTEXT = st.integers(0, 3)
_REMOVE = st.integers(0, 2)
_ADDED = st.lists(st.sampled_from(["NEW1", "NEW2", "    added"]), max_size=3)
_STARTS: dict[tuple[int, int], st.SearchStrategy[list[int]]] = {}


def _starts(n: int, k: int) -> st.SearchStrategy[list[int]]:
    """k distinct line numbers below n (one strategy per (n, k), made once)."""
    if (n, k) not in _STARTS:
        _STARTS[n, k] = st.lists(st.integers(0, n - 1), min_size=k, max_size=k, unique=True)
    return _STARTS[n, k]


@st.composite
def file_and_patch(draw: st.DrawFn) -> tuple[str, str, list[tuple[int, int]]]:
    n = draw(_LENGTH)
    lines = [draw(_WORD) + (str(draw(_DIGIT)) if draw(_BOOL) else "") for _ in range(n)]
    if lines[-1] == "":
        lines[-1] = "end"  # a last empty line without a newline is no line at all
    final_nl = draw(_BOOL)
    text = "\n".join(lines) + ("\n" if final_nl else "")
    k = draw(_HUNKS)
    starts = sorted(draw(_starts(n, k)))
    diff: list[str] = []
    spans: list[tuple[int, int]] = []
    prev = 0
    for s in starts:
        if s < prev:
            continue
        ctx = draw(_CONTEXT)
        a = max(prev, s - ctx)
        remove = draw(_REMOVE)
        b = min(n, s + remove)
        after = min(n, b + draw(_CONTEXT))
        if a >= after and remove == 0 and ctx == 0:
            continue
        added = draw(_ADDED)
        if a == after and not added:
            continue
        if a == after:  # no context at all: the appliers agree only at the end
            continue
        diff.append("@@")
        diff += [" " + x for x in lines[a:s]]
        diff += ["-" + x for x in lines[s:b]]
        diff += ["+" + x for x in added]
        diff += [" " + x for x in lines[b:after]]
        spans.append((a, after))
        prev = after
    return text, "\n".join(diff), spans


def unique(lines: list[str], a: int, b: int) -> bool:
    block = lines[a:b]
    return sum(lines[i : i + len(block)] == block for i in range(len(lines) - len(block) + 1)) == 1


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(file_and_patch())
def test_agrees_with_the_reference_whenever_context_is_unique(
    case: tuple[str, str, list[tuple[int, int]]],
) -> None:
    text, diff, spans = case
    hunks = parse_update_diff(diff)
    if isinstance(hunks, PatchError):
        return  # nothing to change (all hunks context only)
    lines = text.split("\n")
    if text.endswith("\n"):
        lines.pop()
    ours = apply_hunks(text, hunks)
    try:
        ref: str | None = apply_reference(text, diff)
    except ReferenceError_:
        ref = None
    if all(unique(lines, a, b) for a, b in spans):
        assert isinstance(ours, Edited), (ours, diff)
        assert ours.text == ref, diff
    elif isinstance(ours, Edited):
        # applied although some context repeats: then the patch itself told the places
        # apart (hunk order), and the reference, searching in order, agrees
        assert ours.text == ref, diff
    else:
        assert isinstance(ours, EditFailure)
        assert ours.code in ("patch_ambiguous", "patch_no_match"), ours


def test_first_hit_differs_where_filewright_refuses() -> None:
    text = "a\nx\nb\nx\n"
    diff = "@@\n-x\n+y"
    assert apply_reference(text, diff) == "a\ny\nb\nx\n"
    out = apply_hunks(text, parse_update_diff(diff))  # type: ignore[arg-type]
    assert isinstance(out, EditFailure) and out.code == "patch_ambiguous"
