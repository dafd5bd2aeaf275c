"""Applying a file's hunks: where each goes, and refusing rather than guessing."""

from __future__ import annotations

import pytest

import filewright.edit.textindex as textindex
from filewright.edit.outcome import Edited, EditFailure
from filewright.edit.patch_apply import apply_hunks
from filewright.edit.patch_parse import PatchError, parse_update_diff


def run(text: str, diff: str) -> Edited | EditFailure:
    hunks = parse_update_diff(diff)
    assert not isinstance(hunks, PatchError), hunks
    return apply_hunks(text, hunks)


def ok(text: str, diff: str) -> str:
    out = run(text, diff)
    assert isinstance(out, Edited), out
    return out.text


SRC = "import os\n\ndef f():\n    x = 1\n    return x\n\ndef g():\n    x = 1\n    return x\n"


def test_hunk_at_start_and_at_end() -> None:
    assert ok(SRC, "@@\n-import os\n+import sys\n \n def f():") == SRC.replace("os", "sys")
    end = ok(SRC, "@@\n     x = 1\n-    return x\n+    return x + 1\n*** End of File")
    assert end.endswith("def g():\n    x = 1\n    return x + 1\n")
    assert end.count("return x + 1") == 1


def test_context_less_addition_goes_to_the_end() -> None:
    assert ok("a\nb\n", "@@\n+c") == "a\nb\nc\n"
    assert ok("a\nb", "@@\n+c") == "a\nb\nc"  # no final newline: still none
    assert ok("", "+first") == "first\n"


def test_addition_under_a_scope_without_context_is_refused() -> None:
    out = run(SRC, "@@ def f():\n+    y = 2")
    assert isinstance(out, EditFailure) and out.code == "patch_no_context"


def test_removing_lines_removes_their_newlines() -> None:
    assert ok("a\nb\nc\n", " a\n-b\n c") == "a\nc\n"
    assert ok("a\nb\nc", " b\n-c") == "a\nb"
    assert ok("a\nb\n", "-a\n-b") == ""


def test_repeated_context_is_refused_with_every_place() -> None:
    out = run(SRC, "@@\n     x = 1\n-    return x\n+    return 2")
    assert isinstance(out, EditFailure) and out.code == "patch_ambiguous"
    assert out.detail["count"] == 2
    assert [w["line"] for w in out.detail["locations"]] == [4, 8]


def test_scope_line_picks_the_block() -> None:
    assert ok(SRC, "@@ def g():\n     x = 1\n-    return x\n+    return 2").endswith(
        "def g():\n    x = 1\n    return 2\n"
    )
    first = ok(SRC, "@@ def f\n     x = 1\n-    return x\n+    return 2")
    assert first.count("return 2") == 1 and first.index("return 2") < first.index("def g")


def test_nested_scopes() -> None:
    text = "class A:\n    def f(self):\n        return 1\n\nclass B:\n    def f(self):\n        return 1\n"
    out = ok(text, "@@ class B\n@@ def f(self):\n-        return 1\n+        return 2")
    assert out.endswith("class B:\n    def f(self):\n        return 2\n")


def test_end_of_file_picks_the_last() -> None:
    out = ok("x\ny\nx\n", "@@\n-x\n+z\n*** End of File")
    assert out == "x\ny\nz\n"


def test_hunk_order_picks_the_one_after_the_previous_hunk() -> None:
    text = "a\nx\nb\nx\n"
    assert ok(text, "@@\n-b\n+B\n@@\n-x\n+X") == "a\nx\nB\nX\n"


def test_a_scope_that_names_nothing_refuses_even_a_unique_context() -> None:
    out = run("def f():\n    a = 1\n", "@@ def nope():\n-    a = 1\n+    a = 2")
    assert isinstance(out, EditFailure) and out.code == "patch_scope_not_found"
    assert out.detail["scope"] == "def nope():" and out.detail["closest"][0]["start_line"] == 1


def test_recovery_ladder_with_the_files_style() -> None:
    text = "def f():\n\tif x:\n\t\treturn q\n"
    # spaces instead of tabs: matched, written with the file's tabs
    out = ok(text, "@@\n     if x:\n-        return q\n+        return r")
    assert out == "def f():\n\tif x:\n\t\treturn r\n"
    assert ok("a  \nb\n", "-a\n+A\n b").split("\n")[0].rstrip() == "A"
    assert ok("say \u201chi\u201d\nb\n", '-say "hi"\n+say "ho"\n b').startswith("say ")


def test_missing_context_names_the_closest_lines() -> None:
    out = run(SRC, "@@\n def f():\n-    x = 100\n+    x = 2")
    assert isinstance(out, EditFailure) and out.code == "patch_no_match"
    assert out.detail["hunk"] == 1
    best = out.detail["closest"][0]
    assert best["start_line"] in (3, 4) and "x = 1" in best["text"]


def test_two_hunks_on_the_same_lines_are_refused() -> None:
    out = run("a\nb\n", "@@\n-a\n+A\n@@\n-a\n+B")
    assert isinstance(out, EditFailure) and out.code == "patch_no_match"


def test_blank_context_lines_at_the_edges_do_not_block_a_match() -> None:
    text = "a\nb\nc\n"
    assert ok(text, "@@\n \n a\n-b\n+B\n \n") == "a\nB\nc\n"


def test_closest_text_inside_the_scope_comes_first() -> None:
    text = (
        "def total(items):\n    for it in items:\n        s += it.price\n\n"
        "def count(items):\n    for it in items:\n        s += 1\n"
    )
    out = run(
        text, "@@ def count(items):\n     for it in items:\n-        s += it.cost\n+        x"
    )
    assert isinstance(out, EditFailure) and out.code == "patch_no_match"
    assert out.detail["closest"][0]["start_line"] == 6
    plain = run(text, "@@\n     for it in items:\n-        s += it.cost\n+        x")
    assert isinstance(plain, EditFailure) and plain.detail["closest"][0]["start_line"] == 2


def test_adjacent_hunks_that_delete_up_to_the_end() -> None:
    assert ok("alpha\nalpha\nbeta", "@@\n-alpha\n-alpha\n@@\n-beta") == ""
    assert ok("a\nb\nc", "@@\n-a\n@@\n-b\n@@\n c") == "c"
    assert ok("a\nb\nc", "@@\n a\n-b\n@@\n-c") == "a"
    assert ok("a\nb\nc\n", "@@\n-b\n@@\n-c\n+C") == "a\nC\n"


def test_many_places_are_counted_and_the_first_twenty_listed() -> None:
    out = run("x\n" * 5000, "@@ x\n-x\n+y")
    assert isinstance(out, EditFailure) and out.code == "patch_ambiguous"
    assert out.detail["count"] == 5000 and len(out.detail["locations"]) == 20


def test_a_scoped_hunk_starts_or_changes_inside_its_block() -> None:
    text = "def a():\n    x = 1\n    return x\n\n\ndef b():\n    x = 1\n    return x\n"
    # context from before the scope's line, the change inside it: applied
    lead = ok(text, "@@ def b():\n     return x\n \n \n def b():\n-    x = 1\n+    x = 2")
    assert lead == text[: -len("    x = 1\n    return x\n")] + "    x = 2\n    return x\n"
    # starts inside a(), context reaching past its end: applied (peers look after the @@ line)
    spill = ok(text, "@@ def a():\n-    return x\n+    return 3\n \n \n def b():")
    assert spill.split("\n")[2] == "    return 3" and spill.count("return 3") == 1
    # the change in a(), only trailing context in b(): refused
    out = run(text, "@@ def b():\n-    return x\n+    return 3\n \n \n def b():")
    assert isinstance(out, EditFailure) and out.code == "patch_no_match"


def test_added_lines_at_the_end_under_a_scope() -> None:
    text = "class A:\n    x = 1\n\nclass B:\n    y = 2\n"
    end = "@@ {}\n+    z = 3\n*** End of File"
    assert ok(text, end.format("class B")) == text + "    z = 3\n"  # B ends the file
    out = run(text, end.format("class A"))  # A does not: the end of the file is not in A
    assert isinstance(out, EditFailure) and out.code == "patch_no_context"
    out = run(text, end.format("class C"))
    assert isinstance(out, EditFailure) and out.code == "patch_scope_not_found"


def test_ladder_indexes_built_once_per_text_for_all_hunks(monkeypatch: pytest.MonkeyPatch) -> None:
    # three hunks whose context needs the inner-spaces level: the text's collapsed index is
    # computed once for the patch, not once per hunk (2,144 bench patches took 20x longer)
    calls: list[int] = []
    real = textindex.collapse_spaces

    def counting(text: str) -> str:
        calls.append(len(text))
        return real(text)

    monkeypatch.setattr(textindex, "collapse_spaces", counting)
    text = "".join(f"def f{i}(a,  b):\n    return a  +  b + {i}\n\n" for i in range(3))
    diff = "".join(
        f"@@\n def f{i}(a, b):\n-    return a + b + {i}\n+    return a - b + {i}\n"
        for i in range(3)
    )
    out = ok(text, diff)
    assert out == text.replace("a  +  b", "a  -  b")
    assert len(calls) == 1, calls
