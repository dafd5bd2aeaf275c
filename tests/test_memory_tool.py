"""The `memory` toolset: Anthropic's memory tool (`memory_20250818`) on filewright's engine.

Checked against the anthropic SDK itself: its `BetaMemoryTool20250818*` types (the
definition, every command shape) and its reference handlers, `BetaLocalFilesystemMemoryTool`,
which get the same command sequences as filewright: same success or failure, same text,
same files left in `memories/`. The reference's own test cases (anthropic-sdk-python,
tests/lib/tools/memory_tools/test_filesystem.py) are ported as facts. Then what filewright
adds: sandbox and symlinks, encoded traversal, policy, history and undo, confirmation of a
recursive delete, and the surfaces (dispatch for Anthropic, the CLI; the MCP server runs
the toolset in tests/test_server.py).
"""

from __future__ import annotations

import functools
import json
import os
import re
import subprocess
from pathlib import Path
from types import SimpleNamespace
from typing import TYPE_CHECKING, Any

import pytest
from pydantic import TypeAdapter

from filewright import Result, Workspace
from filewright.engine.undo import undo
from filewright.policy.rules import Rule
from filewright.surfaces.anthropic_memory import memory_tool
from filewright.surfaces.dispatch import dispatch
from filewright.toolsets.memory import MemoryToolset, size_text

if TYPE_CHECKING:
    from anthropic.tools import BetaLocalFilesystemMemoryTool

BUILTIN = {"type": "memory_20250818", "name": "memory"}


@functools.cache
def anthropic_sdk() -> SimpleNamespace:
    """The anthropic SDK's names used here, imported when a test first needs them: the SDK
    costs ~2.5 s of CPU to import, which every xdist worker would pay at collection."""
    from anthropic.lib.tools._beta_functions import ToolError
    from anthropic.tools import BetaLocalFilesystemMemoryTool
    from anthropic.types.beta import (
        BetaMemoryTool20250818Command,
        BetaMemoryTool20250818Param,
        BetaToolUnionParam,
    )

    return SimpleNamespace(
        ToolError=ToolError,
        BetaLocalFilesystemMemoryTool=BetaLocalFilesystemMemoryTool,
        BetaMemoryTool20250818Command=BetaMemoryTool20250818Command,
        BetaMemoryTool20250818Param=BetaMemoryTool20250818Param,
        BetaToolUnionParam=BetaToolUnionParam,
    )


def memory(root: Path, *, directory: str = "memories", **kw: Any) -> MemoryToolset:
    tools = Workspace(str(root), **kw).toolset("memory", directory=directory)
    assert isinstance(tools, MemoryToolset)
    return tools


def call(tools: MemoryToolset, **args: Any) -> Result:
    return tools.call("memory", args)


def files(base: Path) -> dict[str, bytes]:
    """Every file and directory under `base/memories` (directories end with "/")."""
    root = base / "memories"
    out: dict[str, bytes] = {}
    for dirpath, dirnames, filenames in os.walk(root):
        for name in dirnames:
            out[os.path.relpath(os.path.join(dirpath, name), root) + "/"] = b""
        for name in filenames:
            full = os.path.join(dirpath, name)
            out[os.path.relpath(full, root)] = Path(full).read_bytes()
    return out


def reference(tool: BetaLocalFilesystemMemoryTool, args: dict[str, Any]) -> tuple[bool, str]:
    try:
        return True, str(tool.call(args))
    except anthropic_sdk().ToolError as exc:
        return False, str(exc.content)


# -- the definition and the command shapes: the SDK's own types ----------------------------------


def test_the_anthropic_definition_is_the_builtin_memory_tool(tmp_path: Path) -> None:
    tools = memory(tmp_path)
    defs = tools.definitions("anthropic")
    assert defs == [BUILTIN]
    TypeAdapter(anthropic_sdk().BetaMemoryTool20250818Param).validate_python(defs[0])
    TypeAdapter(anthropic_sdk().BetaToolUnionParam).validate_python(defs[0])
    assert (
        defs[0]
        == anthropic_sdk().BetaLocalFilesystemMemoryTool(base_path=str(tmp_path / "sdk")).to_dict()
    )
    assert tools.anthropic_builtin() == BUILTIN
    assert not (tmp_path / "memories").exists()  # listing the tools writes nothing


def test_other_formats_get_a_function_schema_with_every_command_field(tmp_path: Path) -> None:
    tools = memory(tmp_path)
    (chat,) = tools.definitions("openai")
    schema = chat["function"]["parameters"]
    assert chat["function"]["name"] == "memory"
    assert schema["required"] == ["command"]
    assert schema["properties"]["command"]["enum"] == [
        "view", "create", "str_replace", "insert", "delete", "rename",
    ]  # fmt: skip
    fields: set[str] = set()
    for command in (
        TypeAdapter(anthropic_sdk().BetaMemoryTool20250818Command).json_schema()["$defs"].values()
    ):
        fields |= set(command["properties"])
    assert fields == set(schema["properties"])
    (mcp,) = tools.definitions("mcp")
    assert mcp["annotations"]["destructiveHint"] is True
    (gemini,) = tools.definitions("gemini")
    assert gemini["parameters"]["properties"]["command"]["enum"][0] == "view"


SDK_COMMANDS: list[dict[str, Any]] = [
    {"command": "create", "path": "/memories/a.md", "file_text": "one\ntwo\n"},
    {"command": "view", "path": "/memories"},
    {"command": "view", "path": "/memories/a.md", "view_range": [1, -1]},
    {"command": "str_replace", "path": "/memories/a.md", "old_str": "two", "new_str": "2"},
    {"command": "insert", "path": "/memories/a.md", "insert_line": 0, "insert_text": "zero"},
    {"command": "rename", "old_path": "/memories/a.md", "new_path": "/memories/b.md"},
    {"command": "delete", "path": "/memories/b.md"},
]


@pytest.mark.parametrize("args", SDK_COMMANDS, ids=lambda a: a["command"])
def test_every_sdk_command_shape_is_accepted(tmp_path: Path, args: dict[str, Any]) -> None:
    command = TypeAdapter(anthropic_sdk().BetaMemoryTool20250818Command).validate_python(args)
    tools = memory(tmp_path)
    for earlier in SDK_COMMANDS[: SDK_COMMANDS.index(args)]:
        assert call(tools, **earlier).ok
    result = tools.call("memory", command.model_dump(exclude_none=True))
    assert result.ok, result.text


# -- the same commands through the SDK's reference handlers and through filewright ---------------

SEQUENCES: dict[str, list[dict[str, Any]]] = {
    "create, view, edit": [
        {"command": "view", "path": "/memories"},
        {"command": "create", "path": "/memories/notes.md", "file_text": "alpha\nbeta\ngamma\n"},
        {"command": "create", "path": "/memories/notes.md", "file_text": "again"},
        {"command": "view", "path": "/memories/notes.md"},
        {"command": "view", "path": "/memories/notes.md", "view_range": [2, -1]},
        {"command": "view", "path": "/memories/notes.md", "view_range": [2, 3]},
        {"command": "str_replace", "path": "/memories/notes.md", "old_str": "beta",
         "new_str": "BETA"},
        {"command": "str_replace", "path": "/memories/notes.md", "old_str": "zzz",
         "new_str": "q"},
        {"command": "insert", "path": "/memories/notes.md", "insert_line": 1,
         "insert_text": "new line\n"},
        {"command": "insert", "path": "/memories/notes.md", "insert_line": 99,
         "insert_text": "x"},
        {"command": "view", "path": "/memories/notes.md"},
    ],
    "files without a final newline": [
        {"command": "create", "path": "/memories/a.txt", "file_text": "Line 1\nLine 2"},
        {"command": "insert", "path": "/memories/a.txt", "insert_line": 2,
         "insert_text": "Last\n\n"},
        {"command": "create", "path": "/memories/empty.txt", "file_text": ""},
        {"command": "view", "path": "/memories/empty.txt"},
        {"command": "insert", "path": "/memories/empty.txt", "insert_line": 0,
         "insert_text": "first"},
        {"command": "create", "path": "/memories/b.txt", "file_text": "x"},
        {"command": "insert", "path": "/memories/b.txt", "insert_line": 0, "insert_text": ""},
        {"command": "view", "path": "/memories/a.txt"},
    ],
    "snippets around a replacement": [
        {"command": "create", "path": "/memories/long.md",
         "file_text": "".join(f"line {i}\n" for i in range(1, 11))},
        {"command": "str_replace", "path": "/memories/long.md", "old_str": "line 1\n",
         "new_str": "first\n"},
        {"command": "str_replace", "path": "/memories/long.md", "old_str": "line 6",
         "new_str": "six\nand a half"},
        {"command": "str_replace", "path": "/memories/long.md", "old_str": "line 10\n",
         "new_str": ""},
        {"command": "str_replace", "path": "/memories/long.md", "old_str": "line 9",
         "new_str": "line 9"},
        {"command": "str_replace", "path": "/memories/long.md", "old_str": "line",
         "new_str": "row"},
    ],
    "directories, rename and delete": [
        {"command": "create", "path": "/memories/d/sub/deep/f.txt", "file_text": "a\n"},
        {"command": "create", "path": "/memories/d/g.txt", "file_text": "g" * 3000},
        {"command": "create", "path": "/memories/.hidden", "file_text": "h"},
        {"command": "create", "path": "/memories/Zeta.md", "file_text": "z"},
        {"command": "view", "path": "/memories"},
        {"command": "view", "path": "/memories/d"},
        {"command": "view", "path": "/memories/"},
        {"command": "str_replace", "path": "/memories/d", "old_str": "a", "new_str": "b"},
        {"command": "insert", "path": "/memories/d", "insert_line": 0, "insert_text": "b"},
        {"command": "create", "path": "/memories/d", "file_text": "x"},
        {"command": "rename", "old_path": "/memories/Zeta.md",
         "new_path": "/memories/archive/2025/zeta.md"},
        {"command": "rename", "old_path": "/memories/nope", "new_path": "/memories/x"},
        {"command": "rename", "old_path": "/memories/d/g.txt",
         "new_path": "/memories/archive/2025/zeta.md"},
        {"command": "rename", "old_path": "/memories", "new_path": "/memories/x"},
        {"command": "rename", "old_path": "/memories/d/g.txt", "new_path": "/memories"},
        {"command": "rename", "old_path": "/memories/d", "new_path": "/memories/e"},
        {"command": "delete", "path": "/memories"},
        {"command": "delete", "path": "/memories/nope"},
        {"command": "delete", "path": "/memories/archive/2025/zeta.md"},
        {"command": "delete", "path": "/memories/e"},
        {"command": "view", "path": "/memories"},
    ],
    "paths outside /memories": [
        {"command": "view", "path": "/memories/../secrets.env"},
        {"command": "create", "path": "/memories/../../../etc/passwd", "file_text": "x"},
        {"command": "create", "path": "/invalid/path.txt", "file_text": "x"},
        {"command": "view", "path": "/etc/passwd"},
        {"command": "view", "path": "memories/a.md"},
        {"command": "create", "path": "/memories/a/../b.md", "file_text": "inside\n"},
        {"command": "view", "path": "/memories/b.md"},
        {"command": "rename", "old_path": "/memories/b.md", "new_path": "/memories/../b.md"},
        {"command": "delete", "path": "/memories/.."},
    ],
    "unicode": [
        {"command": "create", "path": "/memories/笔记.md", "file_text": "第一行\n第二行\n"},
        {"command": "str_replace", "path": "/memories/笔记.md", "old_str": "第二行",
         "new_str": "第 2 行"},
        {"command": "view", "path": "/memories"},
        {"command": "view", "path": "/memories/笔记.md"},
    ],
}  # fmt: skip


@pytest.mark.parametrize("steps", list(SEQUENCES.values()), ids=list(SEQUENCES))
def test_same_results_and_files_as_the_sdk_reference(
    tmp_path: Path, steps: list[dict[str, Any]]
) -> None:
    ours_root, theirs_root = tmp_path / "ours", tmp_path / "theirs"
    ours_root.mkdir()
    sdk = anthropic_sdk().BetaLocalFilesystemMemoryTool(base_path=str(theirs_root))
    tools = memory(ours_root, confirm=True)  # a recursive delete asks; here it is approved
    for args in steps:
        want = reference(sdk, args)
        got = call(tools, **args)
        assert (got.ok, got.text) == want, args
        assert files(ours_root) == files(theirs_root), args


# -- the reference's own test cases, as facts --------------------------------------------------


def test_reference_cases_create_view_replace_insert(tmp_path: Path) -> None:
    tools = memory(tmp_path)
    mem = tmp_path / "memories"
    assert call(tools, command="create", path="/memories/test_file.txt", file_text="Hello, World!").text == (
        "File created successfully at: /memories/test_file.txt"
    )  # fmt: skip
    assert (mem / "test_file.txt").read_text() == "Hello, World!"
    call(tools, command="create", path="/memories/deep/nested/file.txt", file_text="Nested file")
    assert (mem / "deep/nested/file.txt").read_text() == "Nested file"
    again = call(tools, command="create", path="/memories/test_file.txt", file_text="New")
    assert not again.ok and again.text == "File /memories/test_file.txt already exists"

    call(tools, command="create", path="/memories/view.txt", file_text="Line 1\nLine 2\nLine 3")
    assert call(tools, command="view", path="/memories/view.txt").text == (
        "Here's the content of /memories/view.txt with line numbers:\n"
        "     1\tLine 1\n     2\tLine 2\n     3\tLine 3"
    )
    call(
        tools,
        command="create",
        path="/memories/r.txt",
        file_text="Line 1\nLine 2\nLine 3\nLine 4\nLine 5",
    )
    assert call(tools, command="view", path="/memories/r.txt", view_range=[2, 4]).text == (
        "Here's the content of /memories/r.txt with line numbers:\n"
        "     2\tLine 2\n     3\tLine 3\n     4\tLine 4"
    )  # fmt: skip
    missing = call(tools, command="view", path="/memories/nonexistent.txt")
    assert (
        missing.text
        == "The path /memories/nonexistent.txt does not exist. Please provide a valid path."
    )

    call(tools, command="create", path="/memories/s.txt", file_text="Line 1\nOld Text\nLine 3")
    done = call(
        tools, command="str_replace", path="/memories/s.txt", old_str="Old Text", new_str="New Text"
    )
    assert done.text == (
        "The memory file has been edited. Here is the snippet showing the change (with line "
        "numbers):\n     1\tLine 1\n     2\tNew Text\n     3\tLine 3"
    )
    assert (mem / "s.txt").read_text() == "Line 1\nNew Text\nLine 3"
    call(tools, command="create", path="/memories/h.txt", file_text="Hello\nMiddle\nHello")
    twice = call(
        tools, command="str_replace", path="/memories/h.txt", old_str="Hello", new_str="Hi"
    )
    assert twice.text == (
        "No replacement was performed. Multiple occurrences of old_str `Hello` in lines: 1, 3. "
        "Please ensure it is unique"
    )

    call(tools, command="create", path="/memories/i.txt", file_text="Line 1\nLine 2")
    assert call(
        tools, command="insert", path="/memories/i.txt", insert_line=1, insert_text="Inserted Line"
    ).text == ("The file /memories/i.txt has been edited.")
    assert (mem / "i.txt").read_text() == "Line 1\nInserted Line\nLine 2\n"
    bad = call(tools, command="insert", path="/memories/i.txt", insert_line=10, insert_text="text")
    assert bad.text == "Invalid `insert_line` parameter: 10. It should be within the range [0, 3]."


def test_reference_cases_delete_rename_and_paths(tmp_path: Path) -> None:
    tools = memory(tmp_path, confirm=True)
    mem = tmp_path / "memories"
    call(tools, command="create", path="/memories/subdir/file.txt", file_text="Content")
    assert (
        call(tools, command="delete", path="/memories/subdir").text
        == "Successfully deleted /memories/subdir"
    )
    assert list(mem.iterdir()) == []
    gone = call(tools, command="delete", path="/memories/nonexistent.txt")
    assert gone.text == "The path /memories/nonexistent.txt does not exist"
    assert (
        call(tools, command="delete", path="/memories").text
        == "Cannot delete the /memories directory itself"
    )

    call(tools, command="create", path="/memories/file.txt", file_text="Content")
    moved = call(
        tools,
        command="rename",
        old_path="/memories/file.txt",
        new_path="/memories/nested/dir/file.txt",
    )
    assert moved.text == "Successfully renamed /memories/file.txt to /memories/nested/dir/file.txt"
    assert (mem / "nested/dir/file.txt").read_text() == "Content"
    call(tools, command="create", path="/memories/f1.txt", file_text="1")
    call(tools, command="create", path="/memories/f2.txt", file_text="2")
    taken = call(tools, command="rename", old_path="/memories/f1.txt", new_path="/memories/f2.txt")
    assert taken.text == "The destination /memories/f2.txt already exists"

    assert call(tools, command="create", path="/invalid/path.txt", file_text="x").text == (
        "Path must start with /memories, got: /invalid/path.txt"
    )
    escape = call(tools, command="create", path="/memories/../../../etc/passwd", file_text="x")
    assert escape.text == "Path /memories/../../../etc/passwd would escape /memories directory"


def test_symlinks_out_of_memories_are_refused(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text("sensitive data")
    ws = tmp_path / "ws"
    (ws / "memories").mkdir(parents=True)
    (ws / "project.txt").write_text("in the workspace, not in memory\n")
    os.symlink(outside, ws / "memories" / "escape_link")  # out of the workspace
    os.symlink(ws, ws / "memories" / "up")  # out of /memories, inside the workspace
    os.symlink(outside / "secret.txt", ws / "memories" / "secret_link.txt")
    tools = memory(ws)
    for args in [
        {"command": "view", "path": "/memories/escape_link/secret.txt"},
        {"command": "create", "path": "/memories/escape_link/hacked.txt", "file_text": "x"},
        {"command": "create", "path": "/memories/escape_link/nested/f.txt", "file_text": "x"},
        {"command": "view", "path": "/memories/up/project.txt"},
        {"command": "str_replace", "path": "/memories/up/project.txt", "old_str": "in",
         "new_str": "out"},
        {"command": "view", "path": "/memories/secret_link.txt"},
        {"command": "delete", "path": "/memories/up/project.txt"},
        {"command": "rename", "old_path": "/memories/up/project.txt",
         "new_path": "/memories/p.txt"},
    ]:  # fmt: skip
        result = call(tools, **args)
        shown = args.get("path", args.get("old_path"))
        assert not result.ok and result.text == f"Path {shown} would escape /memories directory"
    assert sorted(p.name for p in outside.iterdir()) == ["secret.txt"]
    assert (ws / "project.txt").read_text() == "in the workspace, not in memory\n"
    listing = call(tools, command="view", path="/memories").text.split("\n")
    assert listing[1:] == [listing[1]] and listing[1].endswith("\t/memories")  # nothing listed


@pytest.mark.parametrize(
    "path",
    [
        "/memories/%2e%2e/secrets.env",
        "/memories/%2e%2e%2fsecrets.env",
        "/memories/%252e%252e%252fsecrets.env",
        "/memories/..%2fsecrets.env",
        "/memories/..\\secrets.env",
        "/memories/a/..%5c..%5csecrets.env",
    ],
)
def test_encoded_and_backslash_traversal_is_refused(tmp_path: Path, path: str) -> None:
    tools = memory(tmp_path)
    result = call(tools, command="create", path=path, file_text="x")
    assert not result.ok
    assert result.text == f"Path {path} would escape /memories directory"
    assert list((tmp_path / "memories").iterdir()) == []


def test_a_name_that_only_starts_like_memories_is_refused(tmp_path: Path) -> None:
    # The reference maps /memoriesX to memories/X; here it is not a /memories path at all.
    tools = memory(tmp_path)
    result = call(tools, command="create", path="/memories_old/a.md", file_text="x")
    assert result.text == "Path must start with /memories, got: /memories_old/a.md"
    assert list((tmp_path / "memories").iterdir()) == []


def test_messages_name_memories_paths_never_the_disk(tmp_path: Path) -> None:
    mem = tmp_path / "memories"
    (mem / "d").mkdir(parents=True)
    (mem / "bin").write_bytes(b"\x00\x01\x02")
    (mem / "a.md").write_text("a\n")
    os.symlink(mem / "a.md", mem / "link.md")
    os.mkfifo(mem / "fifo")
    tools = memory(tmp_path)
    for args, text in [
        ({"command": "view", "path": "/memories/bin"},
         "The file /memories/bin is not a text file; it cannot be shown or edited."),
        ({"command": "str_replace", "path": "/memories/bin", "old_str": "a", "new_str": "b"},
         "The file /memories/bin is not a text file; it cannot be shown or edited."),
        ({"command": "view", "path": "/memories/fifo"}, "Unsupported file type for /memories/fifo"),
        ({"command": "rename", "old_path": "/memories/link.md", "new_path": "/memories/l.md"},
         "The path /memories/link.md is a symbolic link; links are not renamed"),
        ({"command": "rename", "old_path": "/memories/d", "new_path": "/memories/d/e"},
         "Cannot move /memories/d into itself"),
        ({"command": "create", "path": "/memories/a\x00.md", "file_text": "x"},
         "Invalid path: path contains a NUL byte"),
    ]:  # fmt: skip
        result = call(tools, **args)
        assert not result.ok and result.text == text, args
        assert str(tmp_path) not in result.text


def test_view_shows_an_image_as_an_image(tmp_path: Path) -> None:
    import base64

    png = base64.b64decode(
        "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="
    )
    (tmp_path / "memories").mkdir()
    (tmp_path / "memories" / "diagram.png").write_bytes(png)
    tools = memory(tmp_path)
    (answer,) = dispatch(
        tools,
        {"type": "tool_use", "id": "t", "name": "memory",
         "input": {"command": "view", "path": "/memories/diagram.png"}},
    )  # fmt: skip
    assert not answer.get("is_error")
    kinds = [block["type"] for block in answer["content"]]
    assert kinds == ["text", "image"] and answer["content"][0]["text"] == (
        "Here's the image /memories/diagram.png:"
    )
    assert answer["content"][1]["source"]["data"] == base64.b64encode(png).decode()


def test_where_filewright_differs_from_the_reference(tmp_path: Path) -> None:
    """The rows of docs/deviations.md's memory table ("deviation")."""
    mem = tmp_path / "memories"
    mem.mkdir()
    (mem / "crlf.txt").write_bytes(b"line1\r\nline2\r\n")
    (mem / "gbk.txt").write_bytes("中文笔记\n".encode("gbk"))
    (mem / "target.md").write_text("kept\n")
    os.symlink(mem / "target.md", mem / "link.md")
    tools = memory(tmp_path)
    # CRLF: shown without the CR; an inserted line takes the file's newline style.
    assert call(tools, command="view", path="/memories/crlf.txt").text.endswith(
        "1\tline1\n     2\tline2\n     3\t"
    )
    call(tools, command="insert", path="/memories/crlf.txt", insert_line=1, insert_text="mid")
    assert (mem / "crlf.txt").read_bytes() == b"line1\r\nmid\r\nline2\r\n"
    # A legacy encoding is read (and kept on a change), not refused.
    assert "中文笔记" in call(tools, command="view", path="/memories/gbk.txt").text
    call(tools, command="str_replace", path="/memories/gbk.txt", old_str="笔记", new_str="备忘")
    assert (mem / "gbk.txt").read_bytes() == "中文备忘\n".encode("gbk")
    # Deleting a link removes the link, never its target.
    assert call(tools, command="delete", path="/memories/link.md").ok
    assert not os.path.lexists(mem / "link.md") and (mem / "target.md").read_text() == "kept\n"
    # The documented optional new_str: absent deletes old_str (the SDK's handler needs it).
    call(tools, command="str_replace", path="/memories/target.md", old_str="kept\n")
    assert (mem / "target.md").read_text() == ""
    # An empty old_str is refused as such (the reference reports "multiple occurrences").
    empty = call(tools, command="str_replace", path="/memories/target.md", old_str="", new_str="x")
    assert empty.data["error"] == "empty_old" and "`old_str` is empty" in empty.text
    # The recovery ladder: a slip in whitespace still finds the one place.
    (mem / "ws.md").write_text("- item  one\n- item two\n")
    assert call(
        tools,
        command="str_replace",
        path="/memories/ws.md",
        old_str="- item one",
        new_str="- first",
    ).ok
    assert (mem / "ws.md").read_text() == "- first\n- item two\n"
    # An insert after the file changed behind a view is refused as stale.
    call(tools, command="view", path="/memories/ws.md")
    (mem / "ws.md").write_text("changed elsewhere\n")
    stale = call(tools, command="insert", path="/memories/ws.md", insert_line=0, insert_text="x")
    assert stale.data["error"] == "stale" and (mem / "ws.md").read_text() == "changed elsewhere\n"


# -- what filewright adds: history, undo, policy, confirmation, dry run ---------------------------


def test_every_change_is_recorded_and_undone(tmp_path: Path) -> None:
    tools = memory(tmp_path)
    mem = tmp_path / "memories"
    call(tools, command="create", path="/memories/a.md", file_text="one\n")
    call(tools, command="str_replace", path="/memories/a.md", old_str="one", new_str="two")
    call(tools, command="insert", path="/memories/a.md", insert_line=1, insert_text="three")
    assert (mem / "a.md").read_text() == "two\nthree\n"
    for before in ("two\n", "one\n"):
        assert undo(tools.engine, str(mem / "a.md")).ok
        assert (mem / "a.md").read_text() == before
    call(tools, command="rename", old_path="/memories/a.md", new_path="/memories/b.md")
    assert undo(tools.engine, str(mem / "b.md")).ok
    assert (mem / "a.md").read_text() == "one\n" and not (mem / "b.md").exists()
    call(tools, command="delete", path="/memories/a.md")
    assert not (mem / "a.md").exists()
    assert undo(tools.engine, str(mem / "a.md")).ok
    assert (mem / "a.md").read_text() == "one\n"


def test_the_policy_applies_to_memory_files(tmp_path: Path) -> None:
    rules = [Rule("memories/locked.md", "read"), Rule("memories/private/**", "hidden")]
    (tmp_path / "memories" / "private").mkdir(parents=True)
    (tmp_path / "memories" / "locked.md").write_text("keep\n")
    (tmp_path / "memories" / "private" / "p.md").write_text("secret\n")
    tools = memory(tmp_path, rules=rules)
    edit = call(
        tools, command="str_replace", path="/memories/locked.md", old_str="keep", new_str="x"
    )
    assert not edit.ok and edit.data["error"] == "protected"
    assert not call(tools, command="delete", path="/memories/locked.md").ok
    assert (tmp_path / "memories" / "locked.md").read_text() == "keep\n"
    hidden = call(tools, command="view", path="/memories/private/p.md")
    assert (
        hidden.text
        == "The path /memories/private/p.md does not exist. Please provide a valid path."
    )
    listing = call(tools, command="view", path="/memories").text
    assert "locked.md" in listing and "private" not in listing


def test_a_recursive_delete_asks_the_user(tmp_path: Path) -> None:
    (tmp_path / "memories" / "d").mkdir(parents=True)
    (tmp_path / "memories" / "d" / "f.md").write_text("f\n")
    refused = call(memory(tmp_path), command="delete", path="/memories/d")
    assert not refused.ok and refused.data["error"] == "no_confirmation"
    assert (tmp_path / "memories" / "d" / "f.md").read_text() == "f\n"
    asked: list[str] = []
    tools = memory(tmp_path, confirm=lambda request: asked.append(request.operation) or True)
    assert (
        call(tools, command="delete", path="/memories/d").text == "Successfully deleted /memories/d"
    )
    assert asked == ["delete"] and not (tmp_path / "memories" / "d").exists()


def test_a_refused_rename_leaves_no_directory_behind(tmp_path: Path) -> None:
    # The destination's directories are made first (as the reference does); the move is
    # then refused (a link is not moved), and the directories made for it are removed.
    (tmp_path / "memories").mkdir()
    (tmp_path / "memories" / "a.md").write_text("a\n")
    os.symlink("a.md", tmp_path / "memories" / "link.md")
    tools = memory(tmp_path)
    result = call(
        tools, command="rename", old_path="/memories/link.md", new_path="/memories/new/dir/a.md"
    )
    assert not result.ok and result.data["error"] == "symlink"
    assert sorted(os.listdir(tmp_path / "memories")) == ["a.md", "link.md"]


def test_a_dry_run_writes_nothing(tmp_path: Path) -> None:
    (tmp_path / "memories").mkdir()
    (tmp_path / "memories" / "a.md").write_text("a\n")
    tools = memory(tmp_path, dry_run=True)
    for args in [
        {"command": "create", "path": "/memories/b.md", "file_text": "b"},
        {"command": "str_replace", "path": "/memories/a.md", "old_str": "a", "new_str": "x"},
        {"command": "insert", "path": "/memories/a.md", "insert_line": 0, "insert_text": "x"},
        {"command": "rename", "old_path": "/memories/a.md", "new_path": "/memories/c.md"},
        {"command": "delete", "path": "/memories/a.md"},
    ]:
        result = call(tools, **args)
        assert result.ok and result.text.startswith("[dry run]"), (args, result.text)
    assert sorted(os.listdir(tmp_path / "memories")) == ["a.md"]
    assert (tmp_path / "memories" / "a.md").read_text() == "a\n"


def test_another_directory_and_bad_arguments(tmp_path: Path) -> None:
    tools = memory(tmp_path, directory=".claude/memory")
    assert call(tools, command="create", path="/memories/a.md", file_text="a").ok
    assert (tmp_path / ".claude" / "memory" / "a.md").read_text() == "a"
    with pytest.raises(ValueError, match="relative to the first root"):
        Workspace(str(tmp_path)).toolset("memory", directory="../elsewhere")
    unknown = call(tools, command="undo_edit", path="/memories/a.md")
    assert not unknown.ok and "Unknown command: undo_edit" in unknown.text
    missing = call(tools, command="create", path="/memories/b.md")
    assert missing.text == "Parameter `file_text` is required for command: create"
    extra = call(tools, command="view", path="/memories", bogus=1)
    assert not extra.ok and "bogus" in extra.text


def test_sizes_are_shown_as_the_reference_shows_them() -> None:
    assert [size_text(n) for n in (0, 1, 1023, 1024, 1536, 4096, 1048576, 5 * 2**30)] == [
        "0B", "1B", "1023B", "1K", "1.5K", "4K", "1M", "5G",
    ]  # fmt: skip


# -- surfaces: dispatch for Anthropic, the CLI ----------------------------------------------------


def test_anthropic_tool_use_blocks_are_dispatched(tmp_path: Path) -> None:
    from anthropic.types.beta import BetaToolResultBlockParam, BetaToolUseBlock

    tools = memory(tmp_path)
    create = BetaToolUseBlock(
        type="tool_use", id="toolu_1", name="memory",
        input={"command": "create", "path": "/memories/prefs.md", "file_text": "likes: tea\n"},
    )  # fmt: skip
    (answer,) = dispatch(tools, create)
    TypeAdapter(BetaToolResultBlockParam).validate_python(answer)
    assert answer["tool_use_id"] == "toolu_1" and not answer.get("is_error")
    assert answer["content"][0]["text"] == "File created successfully at: /memories/prefs.md"
    view = {"type": "tool_use", "id": "toolu_2", "name": "memory",
            "input": {"command": "view", "path": "/memories/../x"}}  # fmt: skip
    (refused,) = dispatch(tools, view)
    assert refused["is_error"] is True
    assert refused["content"][0]["text"] == "Path /memories/../x would escape /memories directory"


def test_the_cli_runs_the_memory_tool(tmp_path: Path, filewright_exe: Path) -> None:
    def cli(args: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        done = subprocess.run(
            [str(filewright_exe), "call", "--toolset", "memory", "memory", json.dumps(args)],
            cwd=tmp_path, capture_output=True, text=True, timeout=60,
            env={**os.environ, "NO_COLOR": "1"},
        )  # fmt: skip
        assert "Traceback" not in done.stdout + done.stderr
        return done.returncode, json.loads(done.stdout)

    (tmp_path / "memories").mkdir()
    (tmp_path / "memories" / "a.md").write_text("a\n")
    code, out = cli({"command": "view", "path": "/memories"})  # the command of the docs
    assert code == 0 and out["text"].split("\n")[0] == (
        "Here're the files and directories up to 2 levels deep in /memories, excluding hidden items:"
    )
    assert out["text"].split("\n")[2] == "2B\t/memories/a.md"


def test_the_documented_memory_loop_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from anthropic.types import Message, MessageParam, ToolUnionParam

    doc = (Path(__file__).resolve().parents[1] / "docs" / "agent-loops.md").read_text("utf-8")
    block = re.search(r"<!-- loop: anthropic-memory -->\s*```python\n(.*?)```", doc, re.S)
    assert block, "docs/agent-loops.md has no memory loop"

    def message(content: list[dict[str, Any]], stop: str) -> Message:
        return Message.model_validate({
            "id": "m", "type": "message", "role": "assistant", "model": "claude",
            "content": content, "stop_reason": stop, "stop_sequence": None,
            "usage": {"input_tokens": 1, "output_tokens": 1},
        })  # fmt: skip

    def use(id: str, **input: Any) -> dict[str, Any]:
        return {"type": "tool_use", "id": id, "name": "memory", "input": input}

    replies = [
        message([use("t1", command="view", path="/memories")], "tool_use"),
        message(
            [
                use(
                    "t2",
                    command="create",
                    path="/memories/preferences.md",
                    file_text="- indentation: tabs, not spaces\n",
                )
            ],
            "tool_use",
        ),
        message([{"type": "text", "text": "I'll remember that."}], "end_turn"),
    ]
    requests: list[dict[str, Any]] = []

    class Messages:
        def create(self, **kwargs: Any) -> Message:
            dumped = json.dumps(kwargs, default=lambda o: o.model_dump(exclude_none=True))
            requests.append(json.loads(dumped))
            return replies.pop(0)

    class FakeAnthropic:
        def __init__(self, **_: Any) -> None:
            self.messages = Messages()

    monkeypatch.setattr("anthropic.Anthropic", FakeAnthropic)
    monkeypatch.chdir(tmp_path)
    exec(compile(block.group(1), "agent-loops:anthropic-memory", "exec"), {"__name__": "doc"})
    assert capsys.readouterr().out == "I'll remember that.\n"
    assert (tmp_path / "memories" / "preferences.md").read_text() == (
        "- indentation: tabs, not spaces\n"
    )
    last = requests[-1]
    assert last["tools"] == [BUILTIN]
    TypeAdapter(list[ToolUnionParam]).validate_python(last["tools"])
    TypeAdapter(list[MessageParam]).validate_python(last["messages"])
    results = [m for m in last["messages"] if m["role"] == "user"][1:]
    assert [r["content"][0]["content"][0]["text"].split("\n")[0] for r in results] == [
        "Here're the files and directories up to 2 levels deep in /memories, excluding hidden items:",
        "File created successfully at: /memories/preferences.md",
    ]


# -- the SDK's helper interface: memory_tool(toolset) is a BetaAbstractMemoryTool -----------------


@pytest.mark.parametrize("steps", list(SEQUENCES.values()), ids=list(SEQUENCES))
def test_memory_tool_answers_as_the_sdk_reference_does(
    tmp_path: Path, steps: list[dict[str, Any]]
) -> None:
    from anthropic.lib.tools import BetaAbstractMemoryTool

    ours_root, theirs_root = tmp_path / "ours", tmp_path / "theirs"
    ours_root.mkdir()
    sdk = anthropic_sdk().BetaLocalFilesystemMemoryTool(base_path=str(theirs_root))
    tool = memory_tool(memory(ours_root, confirm=True))
    assert isinstance(tool, BetaAbstractMemoryTool)
    assert tool.to_dict() == sdk.to_dict() == BUILTIN and tool.name == "memory"
    for args in steps:
        assert reference(tool, args) == reference(sdk, args), args
        assert files(ours_root) == files(theirs_root), args


def test_memory_tool_methods_take_the_sdk_commands(tmp_path: Path) -> None:
    from anthropic.types.beta import (
        BetaMemoryTool20250818CreateCommand,
        BetaMemoryTool20250818ViewCommand,
    )

    tool = memory_tool(memory(tmp_path), cache_control={"type": "ephemeral"})
    assert tool.to_dict() == {**BUILTIN, "cache_control": {"type": "ephemeral"}}
    made = tool.create(
        BetaMemoryTool20250818CreateCommand(command="create", path="/memories/a.md", file_text="a")
    )
    assert made == "File created successfully at: /memories/a.md"
    with pytest.raises(anthropic_sdk().ToolError) as refused:
        tool.view(BetaMemoryTool20250818ViewCommand(command="view", path="/memories/../x"))
    assert refused.value.content == "Path /memories/../x would escape /memories directory"
    with pytest.raises(ValueError, match="memory toolset"):
        memory_tool(Workspace(str(tmp_path)).toolset("default"))


def test_the_documented_tool_runner_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import anthropic
    import httpx2

    doc = (Path(__file__).resolve().parents[1] / "docs" / "agent-loops.md").read_text("utf-8")
    block = re.search(r"<!-- loop: anthropic-memory-runner -->\s*```python\n(.*?)```", doc, re.S)
    assert block, "docs/agent-loops.md has no tool-runner block"

    def message(content: list[dict[str, Any]], stop: str) -> dict[str, Any]:
        return {
            "id": "m", "type": "message", "role": "assistant", "model": "claude",
            "content": content, "stop_reason": stop, "stop_sequence": None,
            "usage": {"input_tokens": 1, "output_tokens": 1},
        }  # fmt: skip

    def use(id: str, **input: Any) -> dict[str, Any]:
        return {"type": "tool_use", "id": id, "name": "memory", "input": input}

    replies = [
        message([use("t1", command="view", path="/memories")], "tool_use"),
        message(
            [
                use("t2", command="create", path="/memories/prefs.md", file_text="tabs\n"),
                use("t3", command="view", path="/etc/passwd"),
            ],
            "tool_use",
        ),
        message([{"type": "text", "text": "Noted."}], "end_turn"),
    ]
    requests: list[dict[str, Any]] = []

    def answer(request: Any) -> Any:
        requests.append(json.loads(request.content))
        return httpx2.Response(200, json=replies.pop(0))

    real = anthropic.Anthropic
    transport = httpx2.MockTransport(answer)
    monkeypatch.setattr(
        anthropic,
        "Anthropic",
        lambda **_: real(api_key="test", http_client=httpx2.Client(transport=transport)),
    )
    monkeypatch.chdir(tmp_path)
    exec(compile(block.group(1), "agent-loops:runner", "exec"), {"__name__": "doc"})
    assert capsys.readouterr().out == "Noted.\n"
    assert (tmp_path / "memories" / "prefs.md").read_text() == "tabs\n"
    assert requests[0]["tools"] == [BUILTIN]
    results = requests[-1]["messages"][-1]["content"]
    assert results == [
        {"type": "tool_result", "tool_use_id": "t2",
         "content": "File created successfully at: /memories/prefs.md"},
        {"type": "tool_result", "tool_use_id": "t3",
         "content": "Path must start with /memories, got: /etc/passwd", "is_error": True},
    ]  # fmt: skip
