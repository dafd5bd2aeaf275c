"""The MCP server, driven by real clients.

The official `mcp` Python client talks to the server in memory, in both protocol eras:
`legacy` = the initialize handshake of today's hosts, `auto` = 2026-07-28 with
input_required rounds. The server as a process (stdio, HTTP, MCP Inspector) is tested in
`test_server_process.py`.
"""

from __future__ import annotations

import asyncio
import base64
import contextvars
import fcntl
import io
import json
import os
import re
import struct
import termios
import threading
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import anyio
import pytest
from forked_mcp import forked_stdio
from forkserver import ForkServer, shared
from hypothesis import given, settings
from hypothesis import strategies as st
from mcp import Client, types

from filewright import Result, Workspace
from filewright.surfaces.dispatch import report_progress
from filewright.surfaces.mcp.server import EXACT_LISTINGS, build_server, with_roots
from filewright.surfaces.mcp.stdio import PipeLines
from filewright.surfaces.mcp.threads import ToolThreads
from filewright.tools.base import Params, Tool, Toolset
from filewright.toolsets import NAMES, REGISTRY

PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="
ERAS = ["legacy", "auto"]
REPO = Path(__file__).resolve().parents[1]


def available(name: str) -> bool:
    try:
        Workspace(str(REPO)).toolset(name)
    except ImportError:
        return False
    return True


TOOLSETS = [
    n if available(n) else pytest.param(n, marks=pytest.mark.skip(reason="not importable"))
    for n in NAMES
]


def make_tree(root: Path) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    (root / "notes.txt").write_text("alpha\nbeta\n", encoding="utf-8")
    (root / "MEMORY.md").write_text("alpha\nbeta\n", encoding="utf-8")
    (root / "pixel.png").write_bytes(base64.b64decode(PNG))
    return root


def run(fn: Callable[[], Awaitable[Any]]) -> Any:
    return anyio.run(fn)


def text_of(result: types.CallToolResult) -> str:
    return "\n".join(c.text for c in result.content if isinstance(c, types.TextContent))


# -- listing ---------------------------------------------------------------------------------


@pytest.mark.parametrize("era", ERAS)
@pytest.mark.parametrize("name", TOOLSETS)
def test_lists_every_tool_with_filewrights_schema(tmp_path: Path, name: str, era: str) -> None:
    root = make_tree(tmp_path / "ws")
    direct = Workspace(str(root)).toolset(name)

    async def main() -> None:
        # --plain-descriptions: the toolset's own schemas, character for character.
        async with Client(build_server([str(root)], name, describe_roots=False), mode=era) as c:
            plain = (await c.list_tools()).tools
        async with Client(build_server([str(root)], name), mode=era) as client:
            listed = (await client.list_tools()).tools
        expected = direct.definitions("mcp")
        assert [t.name for t in listed] == [d["name"] for d in expected]
        for tool, bare, d in zip(listed, plain, expected, strict=True):
            assert bare.input_schema == d["inputSchema"]
            # By default the path parameters' descriptions also name the root.
            # a toolset mirroring another server's listing keeps it exactly (mcpfs)
            want = d if name in EXACT_LISTINGS else with_roots(d, [str(root)], name)
            assert tool.input_schema == want["inputSchema"]
            assert tool.description == d["description"]
            assert tool.annotations is not None
            got = tool.annotations.model_dump(by_alias=True, exclude_none=True)
            assert got == d["annotations"]

    run(main)


# -- every toolset's tools through the server == direct calls ---------------------------------

SCENARIOS: dict[str, list[tuple[str, dict[str, Any]]]] = {
    "default": [
        ("read", {"path": "notes.txt"}),
        ("edit", {"path": "notes.txt", "old_string": "alpha", "new_string": "ALPHA"}),
        ("append", {"path": "notes.txt", "content": "gamma\n"}),
        ("write", {"path": "sub/new.txt", "content": "new\n"}),
        ("undo", {"path": "notes.txt"}),
        ("read", {"path": "notes.txt", "offset": 2, "limit": 1}),
        ("read", {"path": "missing.txt"}),
        ("edit", {"path": "notes.txt", "old_string": "zzz", "new_string": "y"}),
        ("read", {}),
        ("read", {"path": "notes.txt", "bogus": 1}),
    ],
    "claude": [
        ("Read", {"file_path": "{root}/notes.txt"}),
        ("Edit", {"file_path": "{root}/notes.txt", "old_string": "beta", "new_string": "BETA"}),
        ("MultiEdit", {"file_path": "{root}/notes.txt",
                       "edits": [{"old_string": "alpha", "new_string": "A"},
                                 {"old_string": "A\n", "new_string": "AA\n"}]}),
        ("Write", {"file_path": "{root}/w.txt", "content": "w\n"}),
        ("Read", {"file_path": "{root}/pixel.png"}),
        ("Edit", {"file_path": "{root}/none.txt", "old_string": "a", "new_string": "b"}),
        ("Write", {"file_path": "relative.txt", "content": "x"}),
    ],
    "text_editor": [
        ("str_replace_based_edit_tool", {"command": "view", "path": "{root}/notes.txt"}),
        ("str_replace_based_edit_tool", {"command": "str_replace", "path": "{root}/notes.txt",
                                         "old_str": "beta", "new_str": "BETA"}),
        ("str_replace_based_edit_tool", {"command": "create", "path": "{root}/t.txt", "file_text": "t\n"}),
        ("str_replace_based_edit_tool", {"command": "insert", "path": "{root}/t.txt", "insert_line": 1,
                                         "insert_text": "u\n"}),
        ("str_replace_based_edit_tool", {"command": "view", "path": "{root}"}),
        ("str_replace_based_edit_tool", {"command": "str_replace", "path": "{root}/notes.txt",
                                         "old_str": "nothing", "new_str": "x"}),
    ],
    "gemini": [
        ("list_directory", {"path": "{root}"}),
        ("read_file", {"path": "{root}/notes.txt"}),
        ("glob", {"pattern": "*.txt", "path": "{root}"}),
        ("search_file_content", {"pattern": "beta", "path": "{root}"}),
        ("replace", {"file_path": "{root}/notes.txt", "old_string": "beta", "new_string": "BETA"}),
        ("write_file", {"file_path": "{root}/g.txt", "content": "g\n"}),
        ("read_file", {"path": "{root}/pixel.png"}),
        ("replace", {"file_path": "{root}/notes.txt", "old_string": "absent", "new_string": "x"}),
    ],
    "worker": [
        ("write_file", {"path": "w.txt", "content": "w\n"}),
        ("append_to_file", {"path": "w.txt", "content": "more\n"}),
        ("replace_in_file", {"path": "notes.txt", "old": "b(e)ta", "new": "B", "regex": True}),
        ("write_file", {"path": "no/parent.txt", "content": "x"}),
        ("replace_in_file", {"path": "notes.txt", "old": "absent", "new": "x"}),
    ],
    "companion": [
        ("read", {"path": "MEMORY.md"}),
        ("edit", {"path": "MEMORY.md", "oldText": "alpha", "newText": "ALPHA"}),
        ("write", {"path": "USER.md", "content": "user\n"}),
        ("write", {"path": "SOUL.md", "content": "soul\n"}),
        ("read", {"path": "other.txt"}),
    ],
    "memo": [
        ("memo_read", {}),
        ("memo_replace_literal", {"old_text": "alpha", "new_text": "ALPHA"}),
        ("memo_replace_span", {"old_span_start": "ALPHA", "old_span_end": "beta", "new_text": "x"}),
        ("memo_replace_literal", {"old_text": "absent", "new_text": "x"}),
    ],
    "apply_patch": [
        ("apply_patch", {"input": "*** Begin Patch\n*** Update File: notes.txt\n alpha\n-beta\n+BETA\n"
                                  "*** Add File: sub/new.txt\n+new\n*** End Patch"}),
        ("apply_patch", {"input": "*** Begin Patch\n*** Update File: notes.txt\n-absent\n+x\n*** End Patch"}),
        ("apply_patch", {"input": "*** Begin Patch\n*** Delete File: MEMORY.md\n*** End Patch"}),
    ],
    "mcpfs": [
        ("read_text_file", {"path": "{root}/notes.txt"}),
        ("edit_file", {"path": "{root}/notes.txt", "edits": [{"oldText": "alpha", "newText": "ALPHA"}]}),
        ("write_file", {"path": "{root}/w.txt", "content": "w\n"}),
        ("read_media_file", {"path": "{root}/pixel.png"}),
        ("read_multiple_files", {"paths": ["{root}/notes.txt", "{root}/none.txt"]}),
        ("create_directory", {"path": "{root}/d/e"}),
        ("move_file", {"source": "{root}/w.txt", "destination": "{root}/d/w.txt"}),
        ("directory_tree", {"path": "{root}"}),
        ("get_file_info", {"path": "{root}/none.txt"}),
        ("edit_file", {"path": "{root}/notes.txt", "edits": [{"oldText": "zzz", "newText": "y"}]}),
    ],
    "memory": [
        ("memory", {"command": "view", "path": "/memories"}),
        ("memory", {"command": "create", "path": "/memories/m.md", "file_text": "alpha\nbeta\n"}),
        ("memory", {"command": "str_replace", "path": "/memories/m.md", "old_str": "beta",
                    "new_str": "BETA"}),
        ("memory", {"command": "insert", "path": "/memories/m.md", "insert_line": 0,
                    "insert_text": "top"}),
        ("memory", {"command": "view", "path": "/memories/m.md"}),
        ("memory", {"command": "rename", "old_path": "/memories/m.md", "new_path": "/memories/d/m.md"}),
        ("memory", {"command": "view", "path": "/memories"}),
        ("memory", {"command": "view", "path": "/memories/../notes.txt"}),
        ("memory", {"command": "delete", "path": "/memories/d/m.md"}),
    ],
}  # fmt: skip

TIMES = re.compile(
    r"\d{4}-\d\d-\d\d[T ]\d\d[:\-]\d\d[:\-]\d\d(?:[.,]\d+)?(?:Z|[+-]\d\d:?\d\d)?|\d\d:\d\d:\d\d"
)


def fill(value: Any, root: Path) -> Any:
    if isinstance(value, str):
        return value.replace("{root}", str(root))
    if isinstance(value, list):
        return [fill(v, root) for v in value]
    if isinstance(value, dict):
        return {k: fill(v, root) for k, v in value.items()}
    return value


def norm(text: str, root: Path) -> str:
    return TIMES.sub("<TIME>", text.replace(str(root), "<ROOT>"))


@pytest.mark.parametrize("era", ERAS)
@pytest.mark.parametrize("name", TOOLSETS)
def test_every_tool_through_the_server_matches_a_direct_call(
    tmp_path: Path, name: str, era: str
) -> None:
    served, local = make_tree(tmp_path / "served"), make_tree(tmp_path / "local")
    direct = Workspace(str(local), confirm=True).toolset(name)
    steps = [(tool, args) for tool, args in SCENARIOS[name] if direct.tool(tool) is not None]
    assert steps, f"no scenario step for {name}: {direct.tool_names()}"

    async def main() -> None:
        async with Client(build_server([str(served)], name, yes=True), mode=era) as client:
            for tool, args in steps:
                got = await client.call_tool(tool, fill(args, served))
                want = direct.call(tool, fill(args, local))
                assert got.is_error is (not want.ok), (tool, args, text_of(got), want.text)
                schema = (direct.tool(tool).mcp or {}).get("outputSchema")
                if schema is not None:  # a mirror of another server's output (mcpfs)
                    same_as_declared(got, want, schema, served, local)
                    continue
                assert norm(text_of(got), served) == norm(want.text or "(no output)", local), (
                    tool,
                    args,
                )
                assert got.structured_content is not None
                assert got.structured_content.get("error") == want.data.get("error")
                assert set(got.structured_content) == set(
                    json.loads(json.dumps(want.data, default=str))
                )
                images = [c for c in got.content if isinstance(c, types.ImageContent)]
                assert [(i.mime_type, i.data) for i in images] == [
                    (i["mime_type"], i["data"]) for i in want.data.get("images", [])
                ]
        for path in sorted(local.rglob("*")):
            rel = path.relative_to(local)
            if path.is_file() and not any(part.startswith(".") for part in rel.parts):
                assert (served / rel).read_bytes() == path.read_bytes(), rel

    run(main)


def same_as_declared(
    got: types.CallToolResult, want: Any, schema: dict[str, Any], served: Path, local: Path
) -> None:
    """A tool with an output schema: the structured content is the data's keys the schema
    names (none for an error); content blocks, where the result has them, are the content."""
    names = schema["properties"]
    expected = {k: v for k, v in want.data.items() if k in names} if want.ok else None
    dumped = json.dumps(got.structured_content, sort_keys=True)
    assert norm(dumped, served) == norm(json.dumps(expected, sort_keys=True), local)
    blocks = want.data.get("content_blocks") if want.ok else None
    if blocks is not None:
        shown = [c.model_dump(mode="json", by_alias=True, exclude_none=True) for c in got.content]
        assert norm(json.dumps(shown), served) == norm(json.dumps(blocks), local)
    else:
        assert norm(text_of(got), served) == norm(want.text, local)


# -- errors, images ---------------------------------------------------------------------------


@pytest.mark.parametrize("era", ERAS)
def test_tool_errors_carry_the_toolsets_text(tmp_path: Path, era: str) -> None:
    root = make_tree(tmp_path / "ws")
    want = (
        Workspace(str(root))
        .toolset("default")
        .call("edit", {"path": "notes.txt", "old_string": "x1", "new_string": "y"})
    )

    async def main() -> None:
        async with Client(build_server([str(root)]), mode=era) as client:
            got = await client.call_tool(
                "edit", {"path": "notes.txt", "old_string": "x1", "new_string": "y"}
            )
            assert got.is_error and text_of(got) == want.text
            unknown = await client.call_tool("rm_rf", {})
            assert unknown.is_error and "Unknown tool: 'rm_rf'" in text_of(unknown)
            outside = await client.call_tool("read", {"path": "/etc/passwd"})
            assert outside.is_error and "root:" not in text_of(outside)

    run(main)


@pytest.mark.skipif(not available("claude"), reason="claude toolset not importable")
@pytest.mark.parametrize("era", ERAS)
def test_image_results_are_mcp_image_content(tmp_path: Path, era: str) -> None:
    root = make_tree(tmp_path / "ws")

    async def main() -> None:
        async with Client(build_server([str(root)], "claude"), mode=era) as client:
            got = await client.call_tool("Read", {"file_path": str(root / "pixel.png")})
        images = [c for c in got.content if isinstance(c, types.ImageContent)]
        assert len(images) == 1 and images[0].mime_type == "image/png"
        assert base64.b64decode(images[0].data) == (root / "pixel.png").read_bytes()
        assert got.structured_content is not None
        assert "data" not in json.dumps(got.structured_content["images"])

    run(main)


# -- confirmation by elicitation ----------------------------------------------------------------


def confirm_tree(tmp_path: Path) -> Path:
    root = make_tree(tmp_path / "ws")
    (root / ".filewright.toml").write_text('[[rules]]\npattern = "notes.txt"\naccess = "confirm"\n')
    return root


EDIT = {"path": "notes.txt", "old_string": "alpha", "new_string": "ALPHA"}


def elicitor(action: str, asked: list[str], content: dict[str, Any] | None = None) -> Any:
    async def callback(_ctx: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
        asked.append(params.message)
        return types.ElicitResult(action=action, content=content)  # type: ignore[arg-type]

    return callback


@pytest.mark.parametrize("era", ERAS)
def test_elicitation_accept_applies_the_change(tmp_path: Path, era: str) -> None:
    root = confirm_tree(tmp_path)
    asked: list[str] = []

    async def main() -> None:
        async with Client(
            build_server([str(root)]),
            mode=era,
            elicitation_callback=elicitor("accept", asked, {"approve": True}),
        ) as client:
            got = await client.call_tool("edit", EDIT)
        assert not got.is_error, text_of(got)

    run(main)
    assert (root / "notes.txt").read_text() == "ALPHA\nbeta\n"
    assert len(asked) == 1
    assert "notes.txt" in asked[0] and "-alpha" in asked[0] and "+ALPHA" in asked[0]


@pytest.mark.parametrize("era", ERAS)
def test_who_confirms_is_looked_up_only_by_a_call_that_asks(tmp_path: Path, era: str) -> None:
    """A change that needs no confirmation (most) does not look up the client's
    capabilities and the round's state (issue 32: ~50 µs of every threaded call)."""
    root = confirm_tree(tmp_path)
    (root / "a.txt").write_text("hello\n", encoding="utf-8")
    server = build_server([str(root)])
    modes: list[str] = []
    confirm_mode = server.confirm_mode

    def counted(context: Any) -> str:
        modes.append(confirm_mode(context))
        return modes[-1]

    server.confirm_mode = counted  # type: ignore[method-assign]

    async def main() -> None:
        async with Client(
            server, mode=era, elicitation_callback=elicitor("accept", [], {"approve": True})
        ) as client:
            plain = {"path": "a.txt", "old_string": "hello", "new_string": "HELLO"}
            assert not (await client.call_tool("edit", plain)).is_error
            assert modes == []
            got = await client.call_tool("edit", EDIT)
            assert not got.is_error, text_of(got)
            assert modes  # (one per round: two where the question travels as a round)

    run(main)
    assert (root / "notes.txt").read_text() == "ALPHA\nbeta\n"


@pytest.mark.parametrize("era", ERAS)
@pytest.mark.parametrize(
    ("action", "content"), [("decline", None), ("cancel", None), ("accept", {"approve": False})]
)
def test_elicitation_reject_refuses(tmp_path: Path, era: str, action: str, content: Any) -> None:
    root = confirm_tree(tmp_path)
    asked: list[str] = []
    want = Workspace(str(root), confirm=lambda _r: False).toolset("default").call("edit", EDIT)

    async def main() -> None:
        async with Client(
            build_server([str(root)], yes=True),
            mode=era,
            elicitation_callback=elicitor(action, asked, content),
        ) as client:
            got = await client.call_tool("edit", EDIT)
        assert got.is_error and text_of(got) == want.text
        assert got.structured_content is not None and got.structured_content["error"] == "rejected"

    run(main)
    assert (root / "notes.txt").read_text() == "alpha\nbeta\n"
    assert len(asked) == 1


@pytest.mark.parametrize("era", ERAS)
def test_without_elicitation_changes_are_refused_unless_yes(tmp_path: Path, era: str) -> None:
    root = confirm_tree(tmp_path)

    async def main() -> None:
        async with Client(build_server([str(root)]), mode=era) as client:
            got = await client.call_tool("edit", EDIT)
            assert got.is_error and got.structured_content is not None
            assert got.structured_content["error"] == "no_confirmation"
            reading = await client.call_tool("read", {"path": "notes.txt"})
            assert not reading.is_error
        assert (root / "notes.txt").read_text() == "alpha\nbeta\n"
        async with Client(build_server([str(root)], yes=True), mode=era) as client:
            got = await client.call_tool("edit", EDIT)
            assert not got.is_error, text_of(got)
        assert (root / "notes.txt").read_text() == "ALPHA\nbeta\n"

    run(main)


def test_modern_approval_is_bound_to_the_diff_that_was_shown(tmp_path: Path) -> None:
    root = confirm_tree(tmp_path)
    accept = types.ElicitResult(action="accept", content={"approve": True})

    async def main() -> None:
        async with Client(
            build_server([str(root)]), mode="auto", elicitation_callback=elicitor("accept", [])
        ) as client:
            first = await client.session.call_tool("edit", EDIT, allow_input_required=True)
            assert isinstance(first, types.InputRequiredResult)
            assert first.input_requests is not None and "confirm" in first.input_requests
            # The file changes while the user looks at the question: the old approval
            # must not apply to the new diff.
            (root / "notes.txt").write_text("alpha\nbeta\nchanged\n")
            second = await client.session.call_tool(
                "edit",
                EDIT,
                allow_input_required=True,
                input_responses={"confirm": accept},
                request_state=first.request_state,
            )
            assert isinstance(second, types.InputRequiredResult), second
            assert (root / "notes.txt").read_text() == "alpha\nbeta\nchanged\n"
            third = await client.session.call_tool(
                "edit",
                EDIT,
                allow_input_required=True,
                input_responses={"confirm": accept},
                request_state=second.request_state,
            )
            assert isinstance(third, types.CallToolResult) and not third.is_error, third
        assert (root / "notes.txt").read_text() == "ALPHA\nbeta\nchanged\n"

    run(main)


@pytest.mark.skipif(not available("companion"), reason="companion toolset not importable")
@pytest.mark.parametrize("era", ERAS)
def test_companion_soul_change_is_asked(tmp_path: Path, era: str) -> None:
    root = make_tree(tmp_path / "ws")
    asked: list[str] = []

    async def main() -> None:
        async with Client(
            build_server([str(root)], "companion"),
            mode=era,
            elicitation_callback=elicitor("decline", asked),
        ) as client:
            got = await client.call_tool("write", {"path": "SOUL.md", "content": "new soul\n"})
            assert got.is_error
        assert asked and "SOUL.md" in asked[0]
        assert not (root / "SOUL.md").exists()

    run(main)


# -- roots --------------------------------------------------------------------------------------


def roots_callback(dirs: list[Path]) -> Any:
    async def callback(_ctx: Any) -> types.ListRootsResult:
        return types.ListRootsResult(roots=[types.Root(uri=d.as_uri(), name=d.name) for d in dirs])

    return callback


@pytest.mark.parametrize("era", ERAS)
def test_client_roots_are_used_without_root_option(
    tmp_path: Path, era: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    client_root = make_tree(tmp_path / "client")
    (client_root / "only-here.txt").write_text("from the client's root\n")
    cwd = make_tree(tmp_path / "cwd")
    monkeypatch.chdir(cwd)

    async def main() -> None:
        async with Client(
            build_server(None), mode=era, list_roots_callback=roots_callback([client_root])
        ) as c:
            got = await c.call_tool("read", {"path": "only-here.txt"})
            assert not got.is_error, text_of(got)
            assert "from the client's root" in text_of(got)
        async with Client(build_server(None), mode=era) as c:  # no roots offered: cwd
            got = await c.call_tool("read", {"path": "only-here.txt"})
            assert got.is_error
            assert not (await c.call_tool("read", {"path": "notes.txt"})).is_error

    run(main)


@pytest.mark.parametrize("era", ERAS)
def test_root_option_wins_over_client_roots(tmp_path: Path, era: str) -> None:
    server_root, client_root = make_tree(tmp_path / "server"), make_tree(tmp_path / "client")
    (client_root / "secret.txt").write_text("client only\n")

    async def main() -> None:
        async with Client(
            build_server([str(server_root)]),
            mode=era,
            list_roots_callback=roots_callback([client_root]),
        ) as c:
            got = await c.call_tool("read", {"path": str(client_root / "secret.txt")})
            assert got.is_error
            assert not (await c.call_tool("read", {"path": "notes.txt"})).is_error

    run(main)


@pytest.mark.filterwarnings("ignore:The roots capability is deprecated")
def test_roots_list_changed_is_honoured(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    first, second = make_tree(tmp_path / "one"), make_tree(tmp_path / "two")
    (second / "two.txt").write_text("two\n")
    monkeypatch.chdir(tmp_path)
    dirs = [first]

    async def main() -> None:
        async with Client(
            build_server(None), mode="legacy", list_roots_callback=roots_callback(dirs)
        ) as c:
            assert (await c.call_tool("read", {"path": "two.txt"})).is_error
            dirs[:] = [second]
            await c.session.send_roots_list_changed()
            for _ in range(50):
                got = await c.call_tool("read", {"path": "two.txt"})
                if not got.is_error:
                    break
                await anyio.sleep(0.02)
            assert not got.is_error, text_of(got)

    run(main)


def test_non_file_and_missing_roots_are_ignored(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cwd = make_tree(tmp_path / "cwd")
    monkeypatch.chdir(cwd)

    async def listing(_ctx: Any) -> types.ListRootsResult:
        return types.ListRootsResult(
            roots=[
                types.Root(uri="https://example.com/repo"),
                types.Root(uri=(tmp_path / "gone").as_uri()),
            ]
        )

    async def main() -> None:
        async with Client(build_server(None), mode="legacy", list_roots_callback=listing) as c:
            got = await c.call_tool("read", {"path": "notes.txt"})
            assert not got.is_error and "alpha" in text_of(got)

    run(main)


# -- progress, via a probe toolset ----------------------------------------------------------------


class ProbeParams(Params):
    steps: int = 3


class ProbeToolset(Toolset):
    """A test toolset: reports progress, returns an image."""

    name = "probe"

    def tools(self) -> list[Tool]:
        return [
            Tool(
                "probe",
                "Reports progress and returns an image.",
                ProbeParams,
                self.probe,
                read_only=True,
            )
        ]

    def probe(self, p: ProbeParams) -> Result:
        for i in range(p.steps):
            time.sleep(0.12)
            report_progress(i + 1, p.steps, f"step {i + 1}")
        return Result(
            True, "probed", {"steps": p.steps, "images": [{"mime_type": "image/png", "data": PNG}]}
        )


@pytest.mark.parametrize("era", ERAS)
def test_progress_notifications(tmp_path: Path, era: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(REGISTRY, "probe", f"{__name__}:ProbeToolset")
    root = make_tree(tmp_path / "ws")
    seen: list[tuple[float, float | None, str | None]] = []

    async def progress(done: float, total: float | None, message: str | None) -> None:
        seen.append((done, total, message))

    async def main() -> None:
        async with Client(build_server([str(root)], "probe"), mode=era) as client:
            got = await client.call_tool("probe", {"steps": 3}, progress_callback=progress)
        assert text_of(got) == "probed" and got.structured_content == {
            "steps": 3,
            "images": [{"mime_type": "image/png"}],
        }
        assert [c.type for c in got.content] == ["text", "image"]

    run(main)
    assert seen == [(1, 3, "step 1"), (2, 3, "step 2"), (3, 3, "step 3")]


@pytest.mark.parametrize("era", ERAS)
def test_filesystem_root_is_never_the_implicit_workspace(
    tmp_path: Path, era: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir("/")
    client_root = make_tree(tmp_path / "client")

    async def main() -> None:
        async with Client(build_server(None), mode=era) as c:
            got = await c.call_tool("read", {"path": "etc/hostname"})
            assert got.is_error and "no workspace" in text_of(got) and "--root" in text_of(got)
        async with Client(
            build_server(None), mode=era, list_roots_callback=roots_callback([client_root])
        ) as c:
            assert not (await c.call_tool("read", {"path": "notes.txt"})).is_error

    run(main)


# -- stdio as a process: filewright's pipe streams ------------------------------------------------
# Each server here is a `filewright serve` process of its own on real pipes, forked from one
# interpreter that has imported the MCP SDK (tests/forkserver.py: the command's `main`);
# tests/test_server_process.py starts the command from scratch.

SERVE = ["filewright", "serve"]


@pytest.fixture(scope="module")
def forks(request: pytest.FixtureRequest) -> ForkServer:
    return shared(request.session)


@pytest.mark.parametrize("era", ERAS)
def test_stdio_process_asks_by_elicitation(forks: ForkServer, tmp_path: Path, era: str) -> None:
    """Over real pipes: the question goes out and the answer comes back through the
    server's own stdio streams while the tool call waits on its worker thread."""
    root = confirm_tree(tmp_path)
    asked: list[str] = []

    async def main() -> None:
        async with Client(
            forked_stdio(forks, [*SERVE, "--root", str(root)], cwd=root),
            mode=era,
            elicitation_callback=elicitor("accept", asked, {"approve": True}),
        ) as client:
            got = await client.call_tool("edit", EDIT)
            assert not got.is_error, text_of(got)
            again = await client.call_tool("read", {"path": "notes.txt"})
            assert "ALPHA" in text_of(again)

    run(main)
    assert (root / "notes.txt").read_text() == "ALPHA\nbeta\n"
    assert len(asked) == 1 and "+ALPHA" in asked[0]


def test_stdio_process_long_lines_crlf_and_garbage(forks: ForkServer, tmp_path: Path) -> None:
    """Requests longer than a pipe read, replies longer than the pipe buffer, CRLF and CR
    line ends and a line that is not JSON (answered with a parse error): every reply arrives
    whole, on stdout only."""
    root = make_tree(tmp_path / "ws")
    big = "".join(f"{i:06d} the quick brown fox jumps over the lazy dog\n" for i in range(40_000))
    messages: list[tuple[dict[str, Any] | str, str]] = [
        ({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "t", "version": "0"}}}, "\r\n"),
        ({"jsonrpc": "2.0", "method": "notifications/initialized"}, "\r\n"),
        ("this is not JSON", "\n"),
        ({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
            "name": "write", "arguments": {"path": "big.txt", "content": big}}}, "\n"),
        # A lone "\r" ends a line once the next byte shows that it is not half of a
        # "\r\n" (as in the SDK's reader): this read is answered after the ping arrives.
        ({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {
            "name": "read", "arguments": {"path": "big.txt", "limit": 40_000}}}, "\r"),
        ({"jsonrpc": "2.0", "id": 4, "method": "ping"}, "\n"),
    ]  # fmt: skip
    proc = forks.spawn([*SERVE, "--root", str(root)])
    assert proc.stdin is not None and proc.stdout is not None
    replies = []
    try:
        for message, end in messages:
            line = message if isinstance(message, str) else json.dumps(message)
            proc.stdin.write(line.encode() + end.encode())
            proc.stdin.flush()
            if isinstance(message, dict) and "id" in message and end != "\r":
                replies.append(json.loads(proc.stdout.readline()))
            elif isinstance(message, str):  # not JSON: a parse error, with no id to name
                error = json.loads(proc.stdout.readline())
                assert error["id"] is None and error["error"]["code"] == -32700, error
        replies.append(json.loads(proc.stdout.readline()))
    finally:
        proc.stdin.close()
        rest = proc.stdout.read()
        proc.wait(timeout=60)
    assert rest == b""
    replies.sort(key=lambda r: r["id"])
    assert [r.get("id") for r in replies] == [1, 2, 3, 4]
    assert not replies[1]["result"]["isError"] and not replies[2]["result"]["isError"]
    assert (root / "big.txt").read_text() == big
    shown = replies[2]["result"]["content"][0]["text"]
    assert len(shown) > 1 << 20 and "039999 the quick brown fox" in shown
    assert replies[3]["result"] == {}


def test_stdio_process_outlives_a_client_that_stops_reading(
    forks: ForkServer, tmp_path: Path
) -> None:
    """Replies to a closed stdout are dropped (EPIPE), the server keeps reading, and it
    exits cleanly when stdin closes."""
    root = make_tree(tmp_path / "ws")
    proc = forks.spawn([*SERVE, "--root", str(root)])
    assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
    init = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "t", "version": "0"}}}  # fmt: skip
    proc.stdin.write(json.dumps(init).encode() + b"\n")
    proc.stdin.flush()
    assert json.loads(proc.stdout.readline())["id"] == 1
    proc.stdout.close()
    for i in range(3):
        proc.stdin.write(json.dumps({"jsonrpc": "2.0", "id": 10 + i, "method": "ping"}).encode())
        proc.stdin.write(b"\n")
        proc.stdin.flush()
    proc.stdin.close()
    assert proc.wait(timeout=60) == 0
    assert "Traceback" not in proc.stderr.read().decode()


CLAIM_PROBE = """
import os, sys
from filewright.surfaces.mcp.stdio import claimed_stdio
with claimed_stdio() as fds:
    print("claimed" if fds else "not claimed", file=sys.stderr, flush=True)
    if fds:
        os.write(1, b"stray output\\n")  # fd 1 points at stderr while claimed
        os.write(fds[1], os.read(fds[0], 100) if os.get_blocking(fds[0]) else b"nonblocking\\n")
os.write(1, b"restored\\n")
"""


def test_stdio_claim_diverts_and_restores_the_standard_descriptors(
    forks: ForkServer, tmp_path: Path
) -> None:
    piped = forks.spawn(["probe"], CLAIM_PROBE)
    out, err = piped.communicate(b"", timeout=60)
    assert piped.returncode == 0, err
    assert out == b"nonblocking\nrestored\n"
    assert err == b"claimed\nstray output\n"
    # Not a pipe (a regular file as stdin): left to the SDK's own transport.
    plain = tmp_path / "stdin.txt"
    plain.write_text("")
    as_stdin = f"import os\nos.dup2(os.open({str(plain)!r}, os.O_RDONLY), 0)\n"
    filed = forks.spawn(["probe"], as_stdin + CLAIM_PROBE)
    out, err = filed.communicate(timeout=60)
    assert filed.returncode == 0, err
    assert out == b"restored\n" and err == b"not claimed\n"


ALPHABET = [b"a", b"{", b"\n", b"\r", "é".encode(), b"\xff", b"\xc3"]


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.sampled_from(ALPHABET), max_size=40),
    st.lists(st.integers(min_value=0, max_value=200), max_size=6),
)
def test_pipe_lines_split_like_the_sdks_text_reader(pieces: list[bytes], cuts: list[int]) -> None:
    data = b"".join(pieces)
    lines = PipeLines(-1)
    at = 0
    for cut in sorted({min(c, len(data)) for c in cuts} | {len(data)}):
        if cut > at:  # what a read returns: b"" only at the end
            lines.feed(data[at:cut])
            at = cut
    lines.feed(b"")
    got = [line.decode("utf-8", "replace") for line in lines._lines]
    expected = io.TextIOWrapper(io.BytesIO(data), encoding="utf-8", errors="replace").readlines()
    assert got == expected


def test_pipe_lines_stay_registered_between_lines_and_read_no_further_ahead() -> None:
    """On asyncio the descriptor is registered with the loop once, not per line, and
    nothing is read while a complete line waits and nobody asks for one."""

    async def main() -> None:
        loop = asyncio.get_running_loop()
        added: list[int] = []
        add_reader = loop.add_reader

        def counting_add_reader(fd: Any, callback: Any, *args: Any) -> None:
            added.append(fd)
            add_reader(fd, callback, *args)

        loop.add_reader = counting_add_reader  # type: ignore[method-assign]
        r, w = os.pipe()
        os.set_blocking(r, False)
        lines = PipeLines(r)
        try:
            for i in range(20):  # a request, its answer, the next request...
                os.write(w, f"line {i}\n".encode())
                assert await lines.__anext__() == f"line {i}\n"
            assert added == [r]
            os.write(w, b"a\n")  # read on arrival (nobody waits, no line is waiting)
            for _ in range(5):
                await asyncio.sleep(0)
            os.write(w, b"b\n")  # "a" waits to be taken: "b" stays in the pipe
            for _ in range(5):
                await asyncio.sleep(0)
            assert fcntl.ioctl(r, termios.FIONREAD, b"\0\0\0\0") == struct.pack("i", 2)
            assert await lines.__anext__() == "a\n"
            assert await lines.__anext__() == "b\n"
            assert added == [r, r]  # registered again when a line was asked for
        finally:
            lines.close()
            assert not loop.remove_reader(r)  # closing let go of the descriptor
            os.close(r)
            os.close(w)

    asyncio.run(main())


# -- worker threads for tool calls -----------------------------------------------------------------


def test_tool_threads_run_calls_side_by_side_and_reuse_threads() -> None:
    threads = ToolThreads(limit=4)
    barrier = threading.Barrier(3, timeout=60)  # three calls that can only finish together
    seen: list[int] = []

    def meet() -> int:
        barrier.wait()
        return threading.get_ident()

    def ident() -> int:
        return threading.get_ident()

    async def main() -> None:
        async with anyio.create_task_group() as tg:
            for _ in range(3):
                tg.start_soon(lambda: _collect(seen, threads.run(meet)))
        assert len(set(seen)) == 3 and threading.get_ident() not in seen
        one_by_one = [await threads.run(ident) for _ in range(5)]
        assert set(one_by_one) <= set(seen) and threads._threads == 3  # idle ones reused

    run(main)


async def _collect(into: list[Any], awaitable: Awaitable[Any]) -> None:
    into.append(await awaitable)


def test_tool_threads_run_after_once_the_answer_is_handed_back() -> None:
    """`after` runs on the worker once the call's result is back with the caller (the
    caller does not wait for it), and a call that comes meanwhile gets a thread."""
    started, release = threading.Event(), threading.Event()

    def after() -> None:
        started.set()
        release.wait(60)

    threads = ToolThreads(after=after)

    async def main() -> None:
        assert await threads.run(lambda: 1) == 1  # back while `after` still waits
        assert started.wait(60)
        assert await threads.run(lambda: 2) == 2  # another thread took it
        assert threads._threads == 2
        release.set()

    run(main)


def test_a_served_edit_frees_the_replaced_file_after_answering(tmp_path: Path) -> None:
    """Through the server the replaced file is given a second name in the state directory
    (so the rename frees nothing while the client waits) and unlinked once the answer is
    back; the file, its history and its answer are those of any edit."""
    root = make_tree(tmp_path / "ws")
    old = (root / "notes.txt").stat()
    state = root / ".filewright"

    async def main() -> None:
        server = build_server([str(root)])
        async with Client(server) as client:
            for new in ("gamma", "alpha"):
                old_text = "beta" if new == "gamma" else "gamma"
                result = await client.call_tool(
                    "edit", {"path": "notes.txt", "old_string": old_text, "new_string": new}
                )
                assert not result.is_error, result
                assert "Edited notes.txt (1 replacement)" in result.content[0].text
        for _ in range(200):  # (the worker unlinks after handing the answer back)
            if not [p for p in state.iterdir() if p.name.startswith(".trash.")]:
                break
            time.sleep(0.01)
        assert not [p for p in state.iterdir() if p.name.startswith(".trash.")]

    run(main)
    assert (root / "notes.txt").read_text() == "alpha\nalpha\n"
    assert (root / "notes.txt").stat().st_ino != old.st_ino
    assert len(Workspace(str(root)).history.entries(str((root / "notes.txt").resolve()))) == 2


def test_tool_threads_limit_errors_and_context() -> None:
    threads = ToolThreads(limit=2)
    lock = threading.Lock()
    running, peak = [0], [0]
    var: contextvars.ContextVar[str] = contextvars.ContextVar("var", default="unset")

    def busy() -> str:
        with lock:
            running[0] += 1
            peak[0] = max(peak[0], running[0])
        time.sleep(0.02)
        with lock:
            running[0] -= 1
        return var.get()

    def boom() -> None:
        raise ValueError("from the worker")

    async def main() -> None:
        var.set("the caller's")
        got: list[str] = []
        async with anyio.create_task_group() as tg:
            for _ in range(6):
                tg.start_soon(lambda: _collect(got, threads.run(busy)))
        assert got == ["the caller's"] * 6
        with pytest.raises(ValueError, match="from the worker"):
            await threads.run(boom)

    run(main)
    assert peak[0] <= 2


def test_tool_threads_a_cancelled_caller_waits_for_the_call() -> None:
    threads = ToolThreads()
    release, finished = threading.Event(), threading.Event()

    def slow() -> None:
        release.wait(60)
        finished.set()

    async def main() -> None:
        with anyio.CancelScope() as scope:
            scope.cancel()  # cancelled before the call even starts: it still runs to the end
            threading.Timer(0.05, release.set).start()
            await threads.run(slow)
        assert finished.is_set()

    run(main)


def test_tool_threads_idle_threads_retire() -> None:
    threads = ToolThreads(idle=0.01)

    async def main() -> None:
        await threads.run(lambda: None)
        deadline = time.monotonic() + 60
        while threads._threads and time.monotonic() < deadline:
            await anyio.sleep(0.01)
        assert threads._threads == 0
        assert await threads.run(lambda: 42) == 42  # a new thread when needed again

    run(main)
