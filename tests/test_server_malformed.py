"""Every request over stdio gets an answer: lines the SDK cannot take (not JSON, nested
too deeply, lone surrogate escapes, not JSON-RPC) get a JSON-RPC error with their id,
and the server keeps serving the requests that follow."""

from __future__ import annotations

import json
import os
import select
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from filewright.surfaces.mcp.stdio import _NO_ID, invalid_line_reply, top_level_id

SERVE = [sys.executable, "-c", "from filewright.surfaces.cli.main import main; main()", "serve"]
INIT = {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
    "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}}  # fmt: skip
DEEP = "[" * 5000 + "]" * 5000
# (raw line, its id, the JSON-RPC error code expected)
MALFORMED: list[tuple[str, Any, int]] = [
    ('{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"read","arguments":{"path":"\\udc80"}}}', 1, -32602),
    ('{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"read","arguments":{"path":"a\\ud800b"}}}', 2, -32602),
    ('{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"\\udfff","arguments":{}}}', 3, -32602),
    ('{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"read","arguments":{"path":' + DEEP + "}}}", 4, -32600),
    ('{"jsonrpc":"2.0","method":"tools/call","params":{"arguments":{"x":' + DEEP + '}},"id":"deep"}', "deep", -32600),
    ('{"jsonrpc":"2.0","id":5,"method":"x","params":{"a":' + "[" * 300 + "]" * 300 + "}}", 5, -32600),
    ('{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"read"', 6, -32700),
    ('{"jsonrpc":"2.0","id":7,"method":"tools/call","params":5}', 7, -32600),
    ('{"jsonrpc":"1.0","id":8,"method":"tools/list"}', 8, -32600),
    ("this is not JSON", None, -32700),
    ("[1, 2]", None, -32600),
]  # fmt: skip


def test_top_level_id_finds_the_outer_id_only() -> None:
    assert top_level_id('{"params":{"id":9},"id":4}') == 4
    assert top_level_id('{"id" : "x\\"y", "a": 1}') == 'x"y'
    assert top_level_id('{"a":"id","b":[{"id":2}]}') is _NO_ID
    assert top_level_id('{"id":1.5}') is None
    assert top_level_id('{"x":' + DEEP + ',"id":12}') == 12
    assert top_level_id("garbage") is _NO_ID


def test_notifications_and_responses_are_not_answered() -> None:
    assert invalid_line_reply('{"jsonrpc":"2.0","method":"x","params":{"a":"\\udc80"}}') is None
    assert invalid_line_reply('{"jsonrpc":"2.0","id":1,"result":{"a":"\\udc80"}}') is None
    assert invalid_line_reply("   ") is None


def test_every_malformed_request_gets_an_error_and_serving_goes_on(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("hello\n", encoding="utf-8")
    lines = [
        json.dumps(INIT),
        json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}),
    ]
    lines += [line for line, _, _ in MALFORMED]
    lines.append(json.dumps({"jsonrpc": "2.0", "id": 99, "method": "tools/call",
                             "params": {"name": "read", "arguments": {"path": "a.txt"}}}))  # fmt: skip
    proc = subprocess.Popen(
        [*SERVE, "--root", str(tmp_path)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )  # fmt: skip
    assert proc.stdin is not None and proc.stdout is not None
    replies: list[dict[str, Any]] = []
    try:
        for line in lines:
            proc.stdin.write(line.encode("utf-8", "surrogatepass") + b"\n")
        proc.stdin.flush()
        wanted = len(MALFORMED) + 2
        deadline = time.monotonic() + 60
        fd, buffer = proc.stdout.fileno(), b""
        while len(replies) < wanted and time.monotonic() < deadline:
            # os.read, not readline: a buffered file may hold lines select() never reports
            ready, _, _ = select.select([fd], [], [], 1)
            if ready:
                chunk = os.read(fd, 1 << 16)
                if not chunk:
                    break
                buffer += chunk
                *lines, buffer = buffer.split(b"\n")
                replies += [json.loads(line) for line in lines if line.strip()]
    finally:
        proc.stdin.close()
        proc.wait(timeout=60)
    errors = [r for r in replies if "error" in r]
    assert len(errors) == len(MALFORMED), replies
    for (_, want_id, code), got in zip(MALFORMED, errors, strict=True):
        assert got["id"] == want_id and got["error"]["code"] == code, got
        assert got["error"]["message"]
    last = [r for r in replies if r.get("id") == 99]
    assert last and not last[0]["result"]["isError"]


@pytest.mark.parametrize(("line", "want_id", "code"), MALFORMED[:3])
def test_surrogate_errors_name_the_problem(line: str, want_id: Any, code: int) -> None:
    reply = invalid_line_reply(line)
    assert reply is not None and reply["id"] == want_id
    assert "lone surrogate" in reply["error"]["message"]
