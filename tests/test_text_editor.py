"""The `text_editor` toolset: Anthropic's text editor tool (view / create / str_replace /
insert / undo_edit) in the wording of the reference implementation.

Real files in tmp_path, no mocks; messages are compared exactly.
"""

from __future__ import annotations

import typing
from pathlib import Path
from typing import Any

import pytest

from filewright import Workspace
from filewright.core.result import Result
from filewright.toolsets.text_editor import TRUNCATED_MESSAGE, TextEditorToolset

REVIEW = "Review the changes and make sure they are as expected. Edit the file again if necessary."
REVIEW_INSERT = (
    "Review the changes and make sure they are as expected (correct indentation, no duplicate "
    "lines, etc). Edit the file again if necessary."
)


def editor(tmp_path: Path, **options: Any) -> TextEditorToolset:
    tools = Workspace(tmp_path).toolset("text_editor", **options)
    assert isinstance(tools, TextEditorToolset)
    return tools


def run(tools: TextEditorToolset, **args: Any) -> Result:
    return tools.call(tools.tool_name, args)


def put(path: Path, text: str) -> str:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8", newline="")
    return str(path)


def cat_n(lines: list[str], start: int = 1) -> str:
    return "\n".join(f"{start + i:6}\t{line}" for i, line in enumerate(lines))


TEN = [f"line {i}" for i in range(1, 11)]


# -- view ------------------------------------------------------------------------------------


def test_view_file(tmp_path: Path) -> None:
    tools = editor(tmp_path)
    path = put(tmp_path / "a.py", "\n".join(TEN) + "\n")
    result = run(tools, command="view", path=path)
    assert result.ok
    assert result.text == f"Here's the result of running `cat -n` on {path}:\n{cat_n(TEN)}\n"


def test_view_range(tmp_path: Path) -> None:
    tools = editor(tmp_path)
    path = put(tmp_path / "a.py", "\n".join(TEN) + "\n")
    assert run(tools, command="view", path=path, view_range=[2, 3]).text == (
        f"Here's the result of running `cat -n` on {path}:\n{cat_n(TEN[1:3], 2)}\n"
    )
    assert run(tools, command="view", path=path, view_range=[8, -1]).text == (
        f"Here's the result of running `cat -n` on {path}:\n{cat_n(TEN[7:], 8)}\n"
    )
    assert run(tools, command="view", path=path, view_range=[10, 10]).text.endswith(
        "    10\tline 10\n"
    )
    # an end past the last line shows up to the last line (Anthropic's view_range, OpenHands)
    assert run(tools, command="view", path=path, view_range=[8, 99]).text == (
        f"Here's the result of running `cat -n` on {path}:\n{cat_n(TEN[7:], 8)}\n"
    )


def _bytes_read() -> int:
    """What this process has read so far (/proc/self/io rchar: every read and pread)."""
    with open("/proc/self/io", encoding="ascii") as io:
        return next(int(line.split()[1]) for line in io if line.startswith("rchar:"))


@pytest.mark.skipif(not Path("/proc/self/io").exists(), reason="needs /proc/self/io")
def test_a_view_range_of_a_file_over_the_hashing_limit_reads_it_once(tmp_path: Path) -> None:
    """The range check counts the file's lines; the view then reads up to its range and
    does not count them again (was: a second pass over the file, 0.29 -> 0.14 s of CPU
    for [1, 5] of a 200 MB file, above the limit up to which a read hashes the file)."""
    line = "0123456789abcdef\n"
    path = put(tmp_path / "big.txt", line * 800_000)  # 13.6 MB: past the 1 MB hashing
    size = Path(path).stat().st_size  # limit, and three of the 4 MB blocks a view reads
    tools = Workspace(tmp_path, max_file_bytes=1 << 20).toolset("text_editor")
    before = _bytes_read()
    result = tools.call(tools.tool_name, {"command": "view", "path": path, "view_range": [1, 5]})
    read = _bytes_read() - before
    assert result.ok, result.text
    assert result.text.endswith(cat_n([line.rstrip("\n")] * 5, 1) + "\n")
    assert result.data["total_lines"] == 800_000
    assert size <= read < 1.5 * size, (read, size)


def test_view_range_errors(tmp_path: Path) -> None:
    tools = editor(tmp_path)
    path = put(tmp_path / "a.py", "\n".join(TEN) + "\n")
    cases = [
        ([1], "Invalid `view_range`. It should be a list of two integers."),
        ([1, "x"], "Invalid `view_range`. It should be a list of two integers."),
        (
            [0, 3],
            "Invalid `view_range`: [0, 3]. Its first element `0` should be within the range of lines of "
            "the file: [1, 10]",
        ),
        (
            [11, -1],
            "Invalid `view_range`: [11, -1]. Its first element `11` should be within the range of lines "
            "of the file: [1, 10]",
        ),
        (
            [5, 3],
            "Invalid `view_range`: [5, 3]. Its second element `3` should be larger or equal than its "
            "first `5`",
        ),
    ]
    for view_range, message in cases:
        result = run(tools, command="view", path=path, view_range=view_range)
        assert (result.ok, result.text) == (False, message)
    assert run(tools, command="view", path=str(tmp_path), view_range=[1, 2]).text == (
        "The `view_range` parameter is not allowed when `path` points to a directory."
    )


def test_view_directory_two_levels_without_hidden_items(tmp_path: Path) -> None:
    for rel in [
        "src/pkg/deep/z.py",
        "src/main.py",
        "src/.env",
        ".hidden/x",
        ".dot",
        "README.md",
        "secret/key.txt",
        "src/pkg/mod.py",
    ]:
        put(tmp_path / rel, "x")
    (tmp_path / ".filewright.toml").write_text(
        '[[rules]]\npattern = "secret/"\naccess = "hidden"\n'
    )
    tools = editor(tmp_path)
    root = str(tmp_path)
    result = run(tools, command="view", path=root)
    assert result.ok
    assert result.text == (
        f"Here's the files and directories up to 2 levels deep in {root}, excluding hidden items:\n"
        f"{root}\n{root}/src\n{root}/src/pkg\n{root}/src/main.py\n{root}/README.md\n\n"
    )
    sub = run(tools, command="view", path=f"{root}/src")
    assert sub.text.splitlines()[1:-1] == [
        f"{root}/src",
        f"{root}/src/pkg",
        f"{root}/src/pkg/deep",
        f"{root}/src/pkg/mod.py",
        f"{root}/src/main.py",
    ]


def test_view_is_clipped_at_max_characters(tmp_path: Path) -> None:
    path = put(tmp_path / "big.txt", "".join(f"row {i:04d}\n" for i in range(3000)))
    clipped = run(editor(tmp_path, max_characters=60), command="view", path=path)
    assert clipped.ok and clipped.text.endswith("\n" + TRUNCATED_MESSAGE + "\n")
    assert clipped.text.startswith(
        f"Here's the result of running `cat -n` on {path}:\n     1\trow 0000\n"
    )
    assert clipped.data["truncated"] is True
    default = run(editor(tmp_path), command="view", path=path)
    assert default.text.endswith(TRUNCATED_MESSAGE + "\n")
    shown = default.text.split("\n")[1:-2]
    assert 1000 < len(shown) < 3000
    assert sum(len(line.split("\t", 1)[1]) for line in shown) <= 16000


def test_paths_must_be_absolute_and_exist(tmp_path: Path) -> None:
    tools = editor(tmp_path)
    put(tmp_path / "a.py", "x\n")
    assert run(tools, command="view", path="a.py").text == (
        f"The path a.py is not an absolute path, it should start with `/`. Maybe you meant {tmp_path.resolve()}/a.py?"
    )
    missing = str(tmp_path / "nope.py")
    assert run(tools, command="view", path=missing).text == (
        f"The path {missing} does not exist. Please provide a valid path."
    )
    assert run(tools, command="str_replace", path=str(tmp_path), old_str="a").text == (
        f"The path {tmp_path} is a directory and only the `view` command can be used on directories"
    )
    assert run(tools, command="frobnicate", path=missing).text == (
        "Unrecognized command frobnicate. The allowed commands for the str_replace_based_edit_tool tool are: "
        "view, create, str_replace, insert"
    )


def test_view_refuses_binary_files(tmp_path: Path) -> None:
    path = str(tmp_path / "blob.bin")
    Path(path).write_bytes(b"\x00\x01\x02" * 100)
    result = run(editor(tmp_path), command="view", path=path)
    assert (result.ok, result.text) == (
        False,
        f"Ran into a binary file while trying to read {path}; it cannot be shown or edited as text.",
    )


# -- create ----------------------------------------------------------------------------------


def test_create(tmp_path: Path) -> None:
    tools = editor(tmp_path)
    path = str(tmp_path / "pkg" / "new.py")
    result = run(tools, command="create", path=path, file_text="print('hi')\n")
    assert (result.ok, result.text) == (True, f"File created successfully at: {path}")
    assert Path(path).read_text() == "print('hi')\n"
    again = run(tools, command="create", path=path, file_text="other\n")
    assert (again.ok, again.text) == (
        False,
        f"File already exists at: {path}. Cannot overwrite files using command `create`.",
    )
    assert Path(path).read_text() == "print('hi')\n"
    assert run(tools, command="create", path=str(tmp_path / "x.py")).text == (
        "Parameter `file_text` is required for command: create"
    )


def test_create_may_overwrite_when_configured(tmp_path: Path) -> None:
    tools = editor(tmp_path, allow_overwrite=True)
    path = put(tmp_path / "a.txt", "old\n")
    result = run(tools, command="create", path=path, file_text="new\n")
    assert (result.ok, result.text) == (True, f"File overwritten successfully at: {path}")
    assert Path(path).read_text() == "new\n"


# -- str_replace -----------------------------------------------------------------------------


def test_str_replace_shows_a_snippet(tmp_path: Path) -> None:
    tools = editor(tmp_path)
    lines = [f"line {i}" for i in range(1, 21)]
    path = put(tmp_path / "a.py", "\n".join(lines) + "\n")
    result = run(tools, command="str_replace", path=path, old_str="line 10", new_str="LINE TEN")
    assert result.ok
    shown = [*lines[5:9], "LINE TEN", *lines[10:14]]
    assert result.text == (
        f"The file {path} has been edited. Here's the result of running `cat -n` on a snippet "
        f"of {path}:\n{cat_n(shown, 6)}\n{REVIEW}"
    )
    assert Path(path).read_text().split("\n")[9] == "LINE TEN"


def test_str_replace_failures(tmp_path: Path) -> None:
    tools = editor(tmp_path)
    path = put(tmp_path / "a.py", "a = 1\nb = 1\nc = 2\n")
    missing = run(tools, command="str_replace", path=path, old_str="zzz top", new_str="x")
    assert (missing.ok, missing.text) == (
        False,
        f"No replacement was performed, old_str `zzz top` did not appear verbatim in {path}.",
    )
    many = run(tools, command="str_replace", path=path, old_str=" = 1", new_str=" = 3")
    assert many.text == (
        "No replacement was performed. Multiple occurrences of old_str ` = 1` in lines [1, 2]. "
        "Please ensure it is unique"
    )
    assert run(tools, command="str_replace", path=path).text == (
        "Parameter `old_str` is required for command: str_replace"
    )
    assert run(tools, command="str_replace", path=path, old_str="").text == (
        "No replacement was performed: `old_str` is empty. Give the exact text to replace, or use the "
        "`insert` command to add text."
    )
    near = run(tools, command="str_replace", path=path, old_str="c = 3", new_str="x")
    assert near.text == (  # the reference's text, then where the closest text is
        f"No replacement was performed, old_str `c = 3` did not appear verbatim in {path}.\n"
        + near.data["closest_hint"]
    )
    assert near.data["closest_hint"] == (
        "The most similar text is at line 3 (differs: token: '3' vs '2'):\n     3\tc = 2"
    )
    assert Path(path).read_text() == "a = 1\nb = 1\nc = 2\n"


def test_str_replace_default_new_str_deletes_and_ladder_helps(tmp_path: Path) -> None:
    tools = editor(tmp_path)
    path = put(tmp_path / "a.py", "def f():\n    x = 1\n    y = 2\n    return x\n")
    assert run(tools, command="str_replace", path=path, old_str="    y = 2\n").ok
    assert Path(path).read_text() == "def f():\n    x = 1\n    return x\n"
    fuzzy = run(
        tools,
        command="str_replace",
        path=path,
        old_str="x = 1\nreturn x",
        new_str="x = 5\nreturn x",
    )
    assert fuzzy.ok and fuzzy.data["strategy"] == "indentation"
    assert Path(path).read_text() == "def f():\n    x = 5\n    return x\n"


# -- insert ----------------------------------------------------------------------------------


def test_insert_after_a_line_and_at_the_top(tmp_path: Path) -> None:
    tools = editor(tmp_path)
    path = put(tmp_path / "a.txt", "\n".join(TEN) + "\n")
    result = run(tools, command="insert", path=path, insert_line=6, new_str="new A\nnew B")
    assert result.ok
    shown = [*TEN[2:6], "new A", "new B", *TEN[6:10]]
    assert result.text == (
        f"The file {path} has been edited. Here's the result of running `cat -n` on a snippet "
        f"of the edited file:\n{cat_n(shown, 3)}\n{REVIEW_INSERT}"
    )
    assert run(tools, command="insert", path=path, insert_line=0, insert_text="top").ok
    assert Path(path).read_text().split("\n")[:1] == ["top"]
    assert Path(path).read_text().split("\n")[7:9] == ["new A", "new B"]


def test_insert_at_the_end_of_a_file_without_trailing_newline(tmp_path: Path) -> None:
    tools = editor(tmp_path)
    path = put(tmp_path / "a.txt", "a\nb")
    result = run(tools, command="insert", path=path, insert_line=2, insert_text="c")
    assert result.ok
    assert Path(path).read_text() == "a\nb\nc"
    assert result.text == (
        f"The file {path} has been edited. Here's the result of running `cat -n` on a snippet "
        f"of the edited file:\n{cat_n(['a', 'b', 'c'])}\n{REVIEW_INSERT}"
    )
    with_newline = put(tmp_path / "b.txt", "a\nb\n")
    assert run(tools, command="insert", path=with_newline, insert_line=2, new_str="c").ok
    assert Path(with_newline).read_text() == "a\nb\nc\n"


def test_insert_errors(tmp_path: Path) -> None:
    tools = editor(tmp_path)
    path = put(tmp_path / "a.txt", "a\nb\n")
    assert run(tools, command="insert", path=path, insert_line=3, new_str="x").text == (
        "Invalid `insert_line` parameter: 3. It should be within the range of lines of the file: [0, 2]"
    )
    assert run(tools, command="insert", path=path, insert_line=-1, new_str="x").text == (
        "Invalid `insert_line` parameter: -1. It should be within the range of lines of the file: [0, 2]"
    )
    assert run(tools, command="insert", path=path, new_str="x").text == (
        "Parameter `insert_line` is required for command: insert"
    )
    assert run(tools, command="insert", path=path, insert_line=1).text == (
        "Parameter `insert_text` (or `new_str`) is required for command: insert"
    )
    assert run(
        tools, command="insert", path=path, insert_line=1, new_str="x", insert_text="y"
    ).text == ("Give the text to insert as `insert_text` or as `new_str`, not both.")
    assert Path(path).read_text() == "a\nb\n"


def test_insert_refuses_a_file_changed_since_it_was_viewed(tmp_path: Path) -> None:
    tools = editor(tmp_path)
    path = put(tmp_path / "a.txt", "a\nb\n")
    run(tools, command="view", path=path)
    Path(path).write_text("z\na\nb\n")
    refused = run(tools, command="insert", path=path, insert_line=1, new_str="after a")
    assert (refused.ok, refused.text) == (
        False,
        f"The file {path} was modified since you last viewed it. View it again before changing it.",
    )
    replaced = run(tools, command="str_replace", path=path, old_str="z\n", new_str="")
    assert replaced.ok, "str_replace is anchored on text, not line numbers"
    run(tools, command="view", path=path)
    assert run(tools, command="insert", path=path, insert_line=1, new_str="after a").ok
    assert Path(path).read_text() == "a\nafter a\nb\n"


# -- undo_edit -------------------------------------------------------------------------------


def test_undo_edit_after_each_command(tmp_path: Path) -> None:
    tools = editor(tmp_path, version="20250124")
    assert tools.tool_name == "str_replace_editor"
    path = str(tmp_path / "a.txt")
    assert run(tools, command="create", path=path, file_text="one\ntwo\n").ok
    assert run(tools, command="str_replace", path=path, old_str="two", new_str="TWO").ok
    assert run(tools, command="insert", path=path, insert_line=2, new_str="three").ok
    assert Path(path).read_text() == "one\nTWO\nthree\n"

    after_insert = run(tools, command="undo_edit", path=path)
    assert after_insert.text == (
        f"Last edit to {path} undone successfully. Here's the result of running `cat -n` "
        f"on {path}:\n{cat_n(['one', 'TWO'])}\n"
    )
    assert Path(path).read_text() == "one\nTWO\n"
    after_replace = run(tools, command="undo_edit", path=path)
    assert after_replace.ok and Path(path).read_text() == "one\ntwo\n"
    after_create = run(tools, command="undo_edit", path=path)
    assert after_create.text == (
        f"Last edit to {path} undone successfully. The file did not exist before that "
        "edit, so it has been removed."
    )
    assert not Path(path).exists()
    existing = put(tmp_path / "b.txt", "b\n")
    assert (
        run(tools, command="undo_edit", path=existing).text
        == f"No edit history found for {existing}."
    )


def test_undo_edit_refuses_to_lose_later_changes(tmp_path: Path) -> None:
    tools = editor(tmp_path, version="20250124")
    path = put(tmp_path / "a.txt", "a\n")
    assert run(tools, command="str_replace", path=path, old_str="a", new_str="b").ok
    Path(path).write_text("c\n")
    refused = run(tools, command="undo_edit", path=path)
    assert refused.text == (
        f"Cannot undo the last edit to {path}: the file was changed after that edit, and "
        "undoing it would lose those changes."
    )
    assert Path(path).read_text() == "c\n"


def test_undo_edit_only_in_20250124(tmp_path: Path) -> None:
    path = put(tmp_path / "a.txt", "a\n")
    for version in ("20250728", "20250429"):
        tools = editor(tmp_path, version=version)
        assert run(tools, command="undo_edit", path=path).text == (
            "Unrecognized command undo_edit. The allowed commands for the str_replace_based_edit_tool tool are: "
            "view, create, str_replace, insert"
        )


# -- definitions -----------------------------------------------------------------------------


def _literal(cls: Any, key: str) -> str:
    hint = typing.get_type_hints(cls, include_extras=True)[key]
    while typing.get_origin(hint) is not typing.Literal:
        hint = typing.get_args(hint)[0]
    return str(typing.get_args(hint)[0])


def test_anthropic_builtin_form(tmp_path: Path) -> None:
    from anthropic.types import (
        ToolTextEditor20250124Param,
        ToolTextEditor20250429Param,
        ToolTextEditor20250728Param,
    )

    sdk = {
        "20250728": ToolTextEditor20250728Param,
        "20250429": ToolTextEditor20250429Param,
        "20250124": ToolTextEditor20250124Param,
    }
    for version, cls in sdk.items():
        built = editor(tmp_path, version=version).anthropic_builtin()
        assert built == {"type": _literal(cls, "type"), "name": _literal(cls, "name")}
    with_max = editor(tmp_path, max_characters=5000).anthropic_builtin()
    assert with_max == {
        "type": "text_editor_20250728",
        "name": "str_replace_based_edit_tool",
        "max_characters": 5000,
    }
    assert set(with_max) <= set(ToolTextEditor20250728Param.__annotations__)


def test_plain_definitions(tmp_path: Path) -> None:
    modern = editor(tmp_path).definitions("anthropic")
    assert [d["name"] for d in modern] == ["str_replace_based_edit_tool"]
    schema = modern[0]["input_schema"]
    assert schema["required"] == ["command", "path"]
    assert schema["properties"]["command"]["enum"] == ["view", "create", "str_replace", "insert"]
    assert schema["properties"]["view_range"]["items"] == {"type": "integer"}
    old = editor(tmp_path, version="20250124").definitions("openai")[0]["function"]
    assert old["name"] == "str_replace_editor"
    assert old["parameters"]["properties"]["command"]["enum"][-1] == "undo_edit"
    with pytest.raises(ValueError, match="unknown text editor version"):
        editor(tmp_path, version="2024")
