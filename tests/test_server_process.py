"""The MCP server as a process: `filewright serve` over stdio and streamable HTTP, driven
by the official `mcp` Python client, by raw JSON-RPC lines, by the README's Claude Desktop
command line, and by the MCP Inspector's CLI mode (when node/npm can install it).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from forkserver import ForkServer, shared
from mcp import Client, types
from mcp.client.stdio import StdioServerParameters
from test_server import EDIT, ERAS, REPO, available, make_tree, run, text_of

from filewright.surfaces.mcp.listen import parse_http

SERVE = [sys.executable, "-c", "from filewright.surfaces.cli.main import main; main()", "serve"]


# -- over stdio and HTTP, as a subprocess -------------------------------------------------------


def stdio(root: Path, *extra: str) -> StdioServerParameters:
    return StdioServerParameters(
        command=SERVE[0], args=[*SERVE[1:], "--root", str(root), *extra], cwd=str(root)
    )


@pytest.mark.parametrize("era", ERAS)
def test_stdio_subprocess(tmp_path: Path, era: str) -> None:
    root = make_tree(tmp_path / "ws")

    async def main() -> None:
        async with Client(stdio(root), mode=era) as client:
            names = [t.name for t in (await client.list_tools()).tools]
            assert names[:3] == ["read", "write", "edit"]
            got = await client.call_tool("read", {"path": "notes.txt"})
            assert not got.is_error and "alpha" in text_of(got)
            got = await client.call_tool("edit", EDIT)
            assert not got.is_error and "+ALPHA" in text_of(got)
            bad = await client.call_tool("read", {"path": "nope.txt"})
            assert bad.is_error

    run(main)
    assert (root / "notes.txt").read_text() == "ALPHA\nbeta\n"


def test_stdout_carries_only_json_rpc(tmp_path: Path) -> None:
    root = make_tree(tmp_path / "ws")
    messages = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
        {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "read", "arguments": {"path": "x"}}},
        {"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": {"name": "nope", "arguments": {}}},
    ]  # fmt: skip
    proc = subprocess.Popen(
        [*SERVE, "--root", str(root)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "FILEWRIGHT_LOG_LEVEL": "DEBUG"},
    )
    assert proc.stdin is not None and proc.stdout is not None
    replies = []
    try:
        for message in messages:
            proc.stdin.write(json.dumps(message) + "\n")
            proc.stdin.flush()
            if "id" in message:
                replies.append(json.loads(proc.stdout.readline()))
    finally:
        proc.stdin.close()
        proc.wait(timeout=60)
    rest = proc.stdout.read()
    err = proc.stderr.read() if proc.stderr else ""
    assert rest == ""
    assert [r.get("id") for r in replies] == [1, 2, 3, 4]
    assert all(r["jsonrpc"] == "2.0" for r in replies)
    assert replies[2]["result"]["isError"] is True
    assert replies[3]["result"]["isError"] is True
    assert err  # debug logs went to stderr


def test_serve_usage_errors_go_to_stderr(tmp_path: Path) -> None:
    proc = subprocess.run(
        [*SERVE, "--root", str(tmp_path / "missing")], capture_output=True, text=True, timeout=60
    )
    assert proc.returncode == 2 and proc.stdout == ""
    assert "not a directory" in proc.stderr and len(proc.stderr.strip().splitlines()) == 1
    proc = subprocess.run(
        [*SERVE, "--toolset", "nope"], capture_output=True, text=True, timeout=60, cwd=tmp_path
    )
    assert proc.returncode == 2 and proc.stdout == "" and "unknown toolset" in proc.stderr
    proc = subprocess.run(
        [*SERVE, "--http", "localhost:http"], capture_output=True, text=True, timeout=60
    )
    assert proc.returncode == 2 and "HOST:PORT" in proc.stderr


def test_parse_http() -> None:
    assert parse_http("127.0.0.1:8765") == ("127.0.0.1", 8765)
    assert parse_http("[::1]:9000") == ("::1", 9000)
    assert parse_http("8080") == ("127.0.0.1", 8080)
    with pytest.raises(ValueError):
        parse_http("host:99999")


@pytest.fixture(scope="module")
def forks(request: pytest.FixtureRequest) -> ForkServer:
    return shared(request.session)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.mark.parametrize("era", ERAS)
def test_streamable_http(forks: ForkServer, tmp_path: Path, era: str) -> None:
    """Over HTTP, the server forked from a warm interpreter (tests/forkserver.py; the stdio
    tests above start the command from scratch)."""
    root = make_tree(tmp_path / "ws")
    (root / ".filewright.toml").write_text('[[rules]]\npattern = "notes.txt"\naccess = "confirm"\n')
    port = free_port()
    proc = forks.spawn(["filewright", "serve", "--root", str(root), "--http", f"127.0.0.1:{port}"])
    try:
        assert proc.stderr is not None  # "serving on" is said once the port is bound
        assert b"serving toolset" in proc.stderr.readline()

        async def main() -> None:
            asked: list[str] = []

            async def accept(_ctx: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
                asked.append(params.message)
                return types.ElicitResult(action="accept", content={"approve": True})

            url = f"http://127.0.0.1:{port}/mcp"
            async with Client(url, mode=era, elicitation_callback=accept) as client:
                assert "read" in [t.name for t in (await client.list_tools()).tools]
                got = await client.call_tool("read", {"path": "notes.txt"})
                assert not got.is_error and "alpha" in text_of(got)
                got = await client.call_tool("edit", EDIT)
                assert not got.is_error and "+ALPHA" in text_of(got)
            assert len(asked) == 1 and "+ALPHA" in asked[0]

        run(main)
    finally:
        proc.terminate()
        proc.communicate(timeout=30)
    assert proc.returncode is not None


# -- the README's Claude Desktop command -------------------------------------------------------------


@pytest.mark.skipif(shutil.which("uv") is None, reason="uv not on PATH")
def test_claude_desktop_command_from_readme(tmp_path: Path) -> None:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    block = re.search(r"\*\*Claude Desktop\*\*.*?```json\n(.*?)```", readme, re.S)
    assert block
    config = json.loads(block.group(1))["mcpServers"]["filewright"]
    root = make_tree(tmp_path / "project")
    args = [
        a.replace("/path/to/filewright", str(REPO)).replace("/path/to/project", str(root))
        for a in config["args"]
    ]

    async def main() -> None:
        async with Client(
            StdioServerParameters(command=config["command"], args=args), mode="legacy"
        ) as client:
            assert "Read" in [t.name for t in (await client.list_tools()).tools]
            got = await client.call_tool("Read", {"file_path": str(root / "notes.txt")})
            assert not got.is_error and "alpha" in text_of(got)

    if not available("claude"):
        pytest.skip("claude toolset not importable")
    run(main)


# -- MCP Inspector, CLI mode -------------------------------------------------------------------------


def inspector() -> Path:
    """The MCP Inspector at the version docs/reference.md pins (skips without node/npm)."""
    from test_doc_blocks import INSPECTOR_VERSION, pinned_inspector

    return pinned_inspector(INSPECTOR_VERSION)


def test_mcp_inspector_cli_reports_a_failed_call(tmp_path: Path) -> None:
    """A failed call reaches the Inspector as a tool error. (Its listing and a successful
    read are checked on the documented commands: test_doc_blocks.py::test_inspector_block.)"""
    binary = inspector()
    root = make_tree(tmp_path / "ws")
    proc = subprocess.run(
        [str(binary), "--cli", *SERVE, "--root", str(root), "--method", "tools/call",
         "--tool-name", "read", "--tool-arg", "path=none.txt"],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    bad: dict[str, Any] = json.loads(proc.stdout)
    assert bad["isError"] is True
