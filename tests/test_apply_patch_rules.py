"""The apply_patch rules of issue 29, through both forms of the toolset on real files.

Every case runs twice: as a V4A patch through the function tool (``apply_patch`` with
``input``) and as a Responses API ``update_file`` / ``create_file`` operation
(``apply_operation``, what ``dispatch`` calls for an ``apply_patch_call``); the scope and
trailing-whitespace cases also through the MCP server with the real client. Each asserts
the bytes on disk, and that a refusal changed nothing.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client, types

from filewright import Workspace
from filewright.surfaces.mcp.server import build_server

FORMS = ["function", "responses"]


def tools(root: Path) -> Any:
    return Workspace(str(root)).toolset("apply_patch")


def update(root: Path, form: str, path: str, diff: str, **extra: Any) -> Any:
    """Apply ``diff`` (hunks only) to ``path`` through ``form``."""
    t = tools(root)
    if form == "function":
        head = [f"*** Update File: {path}"]
        if "move_to" in extra:
            head.append(f"*** Move to: {extra['move_to']}")
        body = diff[:-1] if diff.endswith("\n") else diff  # its last newline is the join's
        patch = "\n".join(["*** Begin Patch", *head, body, "*** End Patch"])
        return t.call("apply_patch", {"input": patch})
    return t.apply_operation({"type": "update_file", "path": path, "diff": diff, **extra})


def files(root: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(root)): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and ".filewright" not in p.parts
    }


# -- scopes are constraints ---------------------------------------------------------------

TWO_FUNCS = "def a():\n    x = 1\n    return x\n\n\ndef b():\n    y = 2\n    return y\n"


@pytest.mark.parametrize("form", FORMS)
def test_a_scope_refuses_lines_that_lie_outside_it(tmp_path: Path, form: str) -> None:
    (tmp_path / "m.py").write_text(TWO_FUNCS)
    r = update(tmp_path, form, "m.py", "@@ def b():\n-    x = 1\n+    x = 100\n")
    assert not r.ok
    assert r.data["error"] == "patch_no_match" and r.data["scope"] == ["def b():"]
    assert "not found inside '@@ def b():' (lines 6-8)" in r.text
    assert "line 2, outside the scope" in r.text  # where the lines really are
    assert (tmp_path / "m.py").read_text() == TWO_FUNCS


@pytest.mark.parametrize("form", FORMS)
def test_a_scope_that_names_nothing_is_an_error_naming_it(tmp_path: Path, form: str) -> None:
    (tmp_path / "m.py").write_text(TWO_FUNCS)
    r = update(tmp_path, form, "m.py", "@@ def c():\n-    y = 2\n+    y = 3\n")
    assert not r.ok and r.data["error"] == "patch_scope_not_found"
    assert "'@@ def c():' names no line" in r.text
    assert (tmp_path / "m.py").read_text() == TWO_FUNCS


@pytest.mark.parametrize("form", FORMS)
def test_stacked_scopes_nest(tmp_path: Path, form: str) -> None:
    text = "class Target\n    def helper():\n        pass\n\n    def desired():\n        return 1\n"
    (tmp_path / "s.py").write_text(text)
    r = update(
        tmp_path,
        form,
        "s.py",
        "@@ class Target\n@@     def missing():\n-        pass\n+        99\n",
    )
    assert not r.ok and r.data["error"] == "patch_scope_not_found"
    assert r.data["scope"] == "def missing():" and r.data["within"] == ["class Target"]
    assert "names no line inside '@@ class Target'" in r.text
    assert (tmp_path / "s.py").read_text() == text
    # a scope found only outside the outer one is not found either
    other = "class Other\n    def run():\n        pass\n\nclass Target\n    x = 1\n"
    (tmp_path / "s.py").write_text(other)
    r = update(
        tmp_path, form, "s.py", "@@ class Target\n@@     def run():\n-        pass\n+        1\n"
    )
    assert not r.ok and r.data["error"] == "patch_scope_not_found"


MARKDOWN = "# Title\n\n## A\n\ntext\n- item\n\n### A.1\n\n- item\n\n## B\n\ntext\n- item\n"


@pytest.mark.parametrize("form", FORMS)
def test_markdown_heading_scope(tmp_path: Path, form: str) -> None:
    (tmp_path / "r.md").write_text(MARKDOWN)
    r = update(tmp_path, form, "r.md", "@@ ## B\n text\n-- item\n+- thing\n")
    assert r.ok, r.text
    assert (tmp_path / "r.md").read_text() == MARKDOWN[: -len("- item\n")] + "- thing\n"
    # "## A" spans its "### A.1" subsection; there the item is twice: refused, both listed
    (tmp_path / "r.md").write_text(MARKDOWN)
    r = update(tmp_path, form, "r.md", "@@ ## A\n-- item\n+- thing\n")
    assert not r.ok and r.data["error"] == "patch_ambiguous"
    assert [w["line"] for w in r.data["locations"]] == [6, 10]
    # the refusal does not ask for the @@ line the patch has; it asks for what it lacks
    assert "match 2 places inside '@@ ## A'" in r.text and "one more @@ line" in r.text
    assert "an @@ line with the enclosing" not in r.text
    r = update(tmp_path, form, "r.md", "@@ ### A.1\n-- item\n+- thing\n")
    assert r.ok, r.text
    assert (tmp_path / "r.md").read_text().split("\n")[9] == "- thing"


@pytest.mark.parametrize("form", FORMS)
def test_toml_table_scope(tmp_path: Path, form: str) -> None:
    text = "[a]\nname = 1\nv = 2\n\n[b]\nname = 1\nv = 2\n\n[[c]]\nname = 1\n"
    (tmp_path / "p.toml").write_text(text)
    r = update(tmp_path, form, "p.toml", "@@ [b]\n-name = 1\n+name = 5\n")
    assert r.ok, r.text
    assert (tmp_path / "p.toml").read_text() == text.replace("[b]\nname = 1", "[b]\nname = 5")


@pytest.mark.parametrize("form", FORMS)
def test_top_level_go_function_scope(tmp_path: Path, form: str) -> None:
    text = (
        "package main\n\nfunc helper() {\n\tx := 1\n\tfmt.Println(x)\n}\n\n"
        "func main() {\n\tx := 1\n\tfmt.Println(x)\n}\n"
    )
    (tmp_path / "main.go").write_text(text)
    r = update(tmp_path, form, "main.go", "@@ func main\n-\tx := 1\n+\tx := 2\n")
    assert r.ok, r.text
    assert (
        (tmp_path / "main.go")
        .read_text()
        .endswith("func main() {\n\tx := 2\n\tfmt.Println(x)\n}\n")
    )


@pytest.mark.parametrize("form", FORMS)
def test_a_scope_beats_an_exact_match_elsewhere(tmp_path: Path, form: str) -> None:
    # exact in a(), only after the ladder (trailing spaces) in b(): b() is where it goes
    text = "def a():\n    x = 1\n\ndef b():\n    x = 1  \n"
    (tmp_path / "m.py").write_text(text)
    r = update(tmp_path, form, "m.py", "@@ def b():\n-    x = 1\n+    x = 2\n")
    assert r.ok, r.text
    assert (tmp_path / "m.py").read_text() == "def a():\n    x = 1\n\ndef b():\n    x = 2\n"


# -- added lines do not inherit the removed lines' trailing whitespace --------------------


@pytest.mark.parametrize("form", FORMS)
def test_added_lines_keep_the_models_trailing_whitespace(tmp_path: Path, form: str) -> None:
    (tmp_path / "t.txt").write_bytes(b"foo   \nbar\t\t\n")
    r = update(tmp_path, form, "t.txt", "@@\n-foo\n-bar\n+FOO\n+BAR\n")
    assert r.ok, r.text
    assert (tmp_path / "t.txt").read_bytes() == b"FOO\nBAR\n"


@pytest.mark.parametrize("form", FORMS)
def test_markdown_hard_break_removed_stays_removed(tmp_path: Path, form: str) -> None:
    text = "# Notes\n\nfirst line  \nsecond line  \nthird\n"
    (tmp_path / "n.md").write_text(text)
    r = update(
        tmp_path, form, "n.md", "@@\n first line\n-second line\n+second line, joined\n third\n"
    )
    assert r.ok, r.text
    # the context line keeps its hard break (the file's bytes); the added line has none
    assert (tmp_path / "n.md").read_text() == (
        "# Notes\n\nfirst line  \nsecond line, joined\nthird\n"
    )


@pytest.mark.parametrize("form", FORMS)
def test_added_lines_keep_a_hard_break_the_model_wrote(tmp_path: Path, form: str) -> None:
    (tmp_path / "n.md").write_text("a  \nb\n")
    r = update(tmp_path, form, "n.md", "@@\n-a\n+A  \n b\n")
    assert r.ok, r.text
    assert (tmp_path / "n.md").read_text() == "A  \nb\n"


# -- a blank line after *** End of File ---------------------------------------------------


@pytest.mark.parametrize("form", FORMS)
@pytest.mark.parametrize("tail", ["\n", "\n\n", "\n  \n"])
def test_blank_lines_after_end_of_file_are_ignored(tmp_path: Path, form: str, tail: str) -> None:
    (tmp_path / "a.txt").write_text("one\ntwo\nthree\n")
    r = update(tmp_path, form, "a.txt", "@@\n+four\n*** End of File\n" + tail)
    assert r.ok, r.text
    assert (tmp_path / "a.txt").read_text() == "one\ntwo\nthree\nfour\n"


# -- operation keys and paths -------------------------------------------------------------


def test_responses_move_to_renames_the_file(tmp_path: Path) -> None:
    (tmp_path / "old.txt").write_text("alpha\n")
    op = {"type": "update_file", "path": "old.txt", "diff": "@@\n-alpha\n+beta\n"}
    r = tools(tmp_path).apply_operation({**op, "move_to": "renamed/new.txt"})
    assert r.ok, r.text
    assert r.text.splitlines()[1] == "R old.txt -> renamed/new.txt"
    assert files(tmp_path) == {"renamed/new.txt": b"beta\n"}
    (tmp_path / "keep.txt").write_text("alpha\n")
    r = tools(tmp_path).apply_operation({**op, "path": "keep.txt", "move_to": None})
    assert r.ok and (tmp_path / "keep.txt").read_text() == "beta\n"


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        ({"move_to": 5}, "'move_to' must be a path (a non-empty string), got 5"),
        ({"move_to": ""}, "'move_to' must be a path"),
        ({"moveto": "new.txt"}, "update_file does not take 'moveto'"),
        ({"rename": "x", "mode": 1}, "update_file does not take 'rename', 'mode'"),
    ],
)
def test_responses_unknown_or_wrong_keys_are_refused(
    tmp_path: Path, extra: dict[str, Any], message: str
) -> None:
    (tmp_path / "old.txt").write_text("alpha\n")
    op = {"type": "update_file", "path": "old.txt", "diff": "@@\n-alpha\n+beta\n", **extra}
    r = tools(tmp_path).apply_operation(op)
    assert not r.ok and r.data["error"] == "bad_arguments"
    assert message in r.text and "No file was changed" in r.text
    assert files(tmp_path) == {"old.txt": b"alpha\n"}


def test_responses_keys_per_operation(tmp_path: Path) -> None:
    (tmp_path / "gone.txt").write_text("x\n")
    t = tools(tmp_path)
    r = t.apply_operation({"type": "create_file", "path": "n.txt", "diff": "+x", "move_to": "m"})
    assert not r.ok and "create_file does not take 'move_to'" in r.text
    r = t.apply_operation({"type": "delete_file", "path": "gone.txt", "diff": "-x"})
    assert not r.ok and "delete_file does not take 'diff'" in r.text
    assert files(tmp_path) == {"gone.txt": b"x\n"}


@pytest.mark.parametrize(
    "op",
    [
        {"type": "create_file", "path": "nested\\new.txt", "diff": "+hello\n"},
        {"type": "update_file", "path": "a.txt", "diff": "@@\n-a\n+b\n", "move_to": "n\\m.txt"},
        {"type": "delete_file", "path": ".\\a.txt"},
    ],
)
def test_responses_backslash_paths_are_refused(tmp_path: Path, op: dict[str, Any]) -> None:
    (tmp_path / "a.txt").write_text("a\n")
    r = tools(tmp_path).apply_operation(op)
    assert not r.ok and "contains a backslash; paths use '/' between directories" in r.text
    assert "(write '" in r.text
    assert files(tmp_path) == {"a.txt": b"a\n"}


@pytest.mark.parametrize(
    "body",
    [
        ["*** Add File: nested\\new.txt", "+hello"],
        ["*** Update File: a.txt", "*** Move to: n\\m.txt", "@@", "-a", "+b"],
        ["*** Delete File: .\\a.txt"],
    ],
)
def test_function_tool_backslash_paths_are_refused(tmp_path: Path, body: list[str]) -> None:
    (tmp_path / "a.txt").write_text("a\n")
    patch = "\n".join(["*** Begin Patch", *body, "*** End Patch"])
    r = tools(tmp_path).call("apply_patch", {"input": patch})
    assert not r.ok and r.data["error"] == "invalid_patch"
    assert "contains a backslash; paths use '/' between directories (write '" in r.text
    assert files(tmp_path) == {"a.txt": b"a\n"}


def test_responses_keys_through_dispatch(tmp_path: Path) -> None:
    from filewright.surfaces.dispatch import dispatch

    (tmp_path / "old.txt").write_text("alpha\n")
    t = tools(tmp_path)
    op = {"type": "update_file", "path": "old.txt", "diff": "@@\n-alpha\n+beta\n"}

    def call(operation: dict[str, Any]) -> dict[str, Any]:
        item = {"type": "apply_patch_call", "call_id": "c", "status": "completed"}
        (out,) = dispatch(t, {**item, "operation": operation})
        return dict(out)

    bad = call({**op, "move_to": 5, "extra": True})
    assert bad["status"] == "failed" and "does not take 'extra'" in bad["output"]
    assert files(tmp_path) == {"old.txt": b"alpha\n"}
    good = call({**op, "move_to": "new.txt"})
    assert good["status"] == "completed" and "R old.txt -> new.txt" in good["output"]
    assert files(tmp_path) == {"new.txt": b"beta\n"}


def test_through_the_mcp_server_with_the_real_client(tmp_path: Path) -> None:
    (tmp_path / "m.py").write_text(TWO_FUNCS)
    (tmp_path / "t.txt").write_bytes(b"foo   \nbar\t\t\n")
    scoped = "*** Begin Patch\n*** Update File: m.py\n@@ def b():\n-    x = 1\n+    x = 100\n*** End Patch"
    trailing = "*** Begin Patch\n*** Update File: t.txt\n@@\n-foo\n-bar\n+FOO\n+BAR\n*** End Patch"

    async def main() -> None:
        async with Client(
            build_server([str(tmp_path)], "apply_patch", yes=True), mode="legacy"
        ) as client:
            refused = await client.call_tool("apply_patch", {"input": scoped})
            text = "\n".join(c.text for c in refused.content if isinstance(c, types.TextContent))
            assert refused.is_error and "not found inside '@@ def b():'" in text
            applied = await client.call_tool("apply_patch", {"input": trailing})
            assert not applied.is_error

    anyio.run(main)
    assert (tmp_path / "m.py").read_text() == TWO_FUNCS
    assert (tmp_path / "t.txt").read_bytes() == b"FOO\nBAR\n"
