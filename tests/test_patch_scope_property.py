"""One scope rule: an apply_patch hunk and ``find(text, old, scope=...)`` agree, and agree
with a literal reference.

Files are functions (``def fN():`` headers, bodies from a small vocabulary, so bodies
repeat); ``old`` is a run of body lines copied from the file, ``new`` other lines; the
scope names one function (its header, or a prefix of it) or a function the file does not
have. The reference: the whole-line places of ``old`` whose first line lies in a block the
scope names (`filewright.edit.scopes`, tested on its own in tests/test_patch_scopes.py).
Exactly one place: the hunk writes ``new`` there, literally, and ``find`` reports that one
region; several: both report them (``find`` those that do not overlap, as an edit counts
occurrences) and the hunk is refused, every place listed; none: both refuse; a scope that
names nothing: both say so.
"""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from filewright.edit.matching import find
from filewright.edit.outcome import Edited, EditFailure
from filewright.edit.patch_apply import apply_hunks
from filewright.edit.patch_parse import PatchError, parse_update_diff
from filewright.edit.scopes import ScopeMissing, Spans, scope_blocks

BODY = ["    alpha()", "    beta()", "    gamma()", "    return x"]


@st.composite
def case(draw: st.DrawFn) -> tuple[str, list[str], list[str], tuple[str, ...]]:
    n = draw(st.integers(1, 5))
    names = [draw(st.sampled_from(["f", "g", "h", "run", "main"])) + str(i) for i in range(n)]
    funcs = [[f"def {name}():", *draw(st.lists(st.sampled_from(BODY), min_size=1, max_size=4))]
             for name in names]  # fmt: skip
    lines = [x for k, f in enumerate(funcs) for x in ([""] if k else []) + f]
    k = draw(st.integers(0, n - 1))
    body = funcs[k][1:]
    a = draw(st.integers(0, len(body) - 1))
    b = draw(st.integers(a + 1, len(body)))
    old = body[a:b]
    new = draw(st.lists(st.sampled_from(["    NEW()", "    other()", "    return y"]), max_size=3))
    which = draw(st.integers(0, n - 1))
    kind = draw(st.sampled_from(["header", "prefix", "missing", "none"]))
    scope: tuple[str, ...] = {
        "header": (f"def {names[which]}():",),
        "prefix": (f"def {names[which]}",),
        "missing": ("def nothere():",),
        "none": (),
    }[kind]
    return "\n".join(lines) + "\n", old, new, scope


def reference(lines: list[str], old: list[str], scope: tuple[str, ...]) -> list[int] | None:
    """0-based lines where ``old`` starts inside the scope; None: the scope names nothing."""
    blocks = scope_blocks(lines, scope) if scope else [(0, len(lines) - 1)]
    if isinstance(blocks, ScopeMissing):
        return None
    spans = Spans(blocks)
    k = len(old)
    return [
        i for i in range(len(lines) - k + 1) if lines[i : i + k] == old and spans.contains(i, i)
    ]


@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case())
def test_patch_hunk_and_find_agree_with_the_literal_reference(
    c: tuple[str, list[str], list[str], tuple[str, ...]],
) -> None:
    text, old, new, scope = c
    lines = text.split("\n")[:-1]
    places = reference(lines, old, scope)
    diff = "".join(f"@@ {s}\n" for s in scope) or "@@\n"
    diff += "".join(f"-{x}\n" for x in old) + "".join(f"+{x}\n" for x in new)
    hunks = parse_update_diff(diff)
    assert not isinstance(hunks, PatchError)
    out = apply_hunks(text, hunks)
    found = find(text, "\n".join(old), max_matches=None, scope=scope)
    if places is None:
        assert isinstance(out, EditFailure) and out.code == "patch_scope_not_found"
        assert found.error == "scope_not_found" and not found.regions
        return
    assert found.error is None
    # find reports places that do not overlap (an edit's count, as str.count); a hunk sees
    # every place, overlapping repeats too
    apart: list[int] = []
    for i in places:
        if not apart or i >= apart[-1] + len(old):
            apart.append(i)
    assert [r.start_line - 1 for r in found.regions] == apart
    if len(places) == 1:
        i = places[0]
        assert isinstance(out, Edited), out
        assert out.text == "\n".join(lines[:i] + new + lines[i + len(old) :]) + "\n"
    elif places:
        assert isinstance(out, EditFailure) and out.code == "patch_ambiguous"
        assert [w["line"] - 1 for w in out.detail["locations"]] == places
    else:
        assert isinstance(out, EditFailure) and out.code == "patch_no_match"
