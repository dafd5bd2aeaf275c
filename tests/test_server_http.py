"""`filewright serve --http` lets in no one who does not belong: a bearer token (401
without it, with the official MCP client over real HTTP), no non-loopback address
without a token, DNS-rebinding protection on every loopback address, and "serving on"
printed only once the address is bound.

The servers are `filewright serve` processes forked from one interpreter that has
imported the MCP SDK (tests/forkserver.py: the command's `main` with the same arguments,
environment and pipes), so each costs its work, not the SDK's import; the last test runs
the usage errors in a new interpreter to show that none of them imports the SDK."""

from __future__ import annotations

import http.client
import json
import os
import socket
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import anyio
import pytest
from forkserver import ForkServer, shared
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

TOKEN = "s3cret-token-for-the-tests-0123456789"
INIT = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
    "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}}  # fmt: skip
WRITE = {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
         "params": {"name": "write", "arguments": {"path": "a.txt", "content": "pwned\n"}}}  # fmt: skip


@pytest.fixture(scope="module")
def forks(request: pytest.FixtureRequest) -> ForkServer:
    return shared(request.session)


def run_serve(
    forks: ForkServer, *args: str, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """`filewright serve ARGS` to its end (forked), with `env` added to the environment."""
    argv = ["filewright", "serve", *args]
    proc = forks.spawn(argv, text=True, env=None if env is None else {**os.environ, **env})
    out, err = proc.communicate(timeout=60)
    return subprocess.CompletedProcess(argv, proc.wait(), out, err)


def free_port(host: str = "127.0.0.1") -> int:
    with socket.socket() as s:
        s.bind((host, 0))
        return int(s.getsockname()[1])


def can_bind(host: str) -> bool:
    try:
        with socket.socket() as s:
            s.bind((host, 0))
        return True
    except OSError:
        return False


@contextmanager
def served(
    forks: ForkServer, root: Path, host: str, *extra: str, env: dict[str, str] | None = None
) -> Iterator[int]:
    """A `serve --http` process; yields its port once it has said "serving on"."""
    port = free_port(host if can_bind(host) else "127.0.0.1")
    argv = ["filewright", "serve", "--root", str(root), "--http", f"{host}:{port}", *extra]
    proc = forks.spawn(argv, text=True, env={**os.environ, **(env or {})})
    assert proc.stderr is not None
    try:
        line = proc.stderr.readline()
        assert "serving toolset" in line and f":{port}/mcp" in line, line + proc.stderr.read()
        # Announced after the bind: the port accepts connections right away.
        with socket.create_connection((host, port), timeout=10):
            pass
        yield port
    finally:
        proc.terminate()
        proc.communicate(timeout=30)


def post(host: str, port: int, body: dict[str, Any], headers: dict[str, str]) -> tuple[int, str]:
    conn = http.client.HTTPConnection(host, port, timeout=30)
    try:
        conn.request("POST", "/mcp", json.dumps(body), {
            "Content-Type": "application/json", "Accept": "application/json, text/event-stream",
            **headers})  # fmt: skip
        response = conn.getresponse()
        return response.status, response.read().decode("utf-8", "replace")
    finally:
        conn.close()


def tree(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    (root / "a.txt").write_text("alpha\n", encoding="utf-8")
    return root


async def use(url: str, token: str | None, statuses: list[int] | None = None) -> str:
    headers = {"Authorization": f"Bearer {token}"} if token is not None else {}
    http_client = create_mcp_http_client(headers=headers)

    async def seen(response: Any) -> None:
        if statuses is not None:
            statuses.append(response.status_code)

    http_client.event_hooks["response"].append(seen)
    transport = streamable_http_client(url, http_client=http_client)
    async with Client(transport, mode="legacy") as client:
        got = await client.call_tool("write", {"path": "a.txt", "content": "written\n"})
        assert not got.is_error
        read = await client.call_tool("read", {"path": "a.txt"})
        return "\n".join(getattr(c, "text", "") for c in read.content)


@pytest.mark.parametrize("source", ["env", "file"])
def test_token_required_with_the_official_client(
    forks: ForkServer, tmp_path: Path, source: str
) -> None:
    root = tree(tmp_path)
    token_file = tmp_path / "token"
    token_file.write_text(TOKEN + "\n", encoding="utf-8")
    extra = ("--token-file", str(token_file)) if source == "file" else ()
    env = {"FILEWRIGHT_TOKEN": TOKEN} if source == "env" else {}
    with served(forks, root, "127.0.0.1", *extra, env=env) as port:
        url = f"http://127.0.0.1:{port}/mcp"
        for token in (None, "wrong-token-of-the-right-length-123456"):
            statuses: list[int] = []
            with pytest.raises(Exception):  # noqa: B017 - the client fails to connect
                anyio.run(use, url, token, statuses)
            assert statuses and set(statuses) == {401}, statuses
            for headers in ({}, {"Authorization": f"Bearer {token}"}, {"Authorization": TOKEN}):
                status, _ = post("127.0.0.1", port, WRITE, headers)
                assert status == 401
        assert (root / "a.txt").read_text() == "alpha\n"  # no tool was reached
        assert "written" in anyio.run(use, url, TOKEN)
    assert (root / "a.txt").read_text() == "written\n"


def test_non_loopback_needs_a_token_or_an_explicit_flag(forks: ForkServer, tmp_path: Path) -> None:
    root = tree(tmp_path)
    port = free_port()
    proc = run_serve(
        forks, "--root", str(root), "--http", f"0.0.0.0:{port}", env={"FILEWRIGHT_TOKEN": ""}
    )
    assert proc.returncode == 2, proc.stderr
    assert "--token-file" in proc.stderr and "--allow-no-token" in proc.stderr
    assert "serving" not in proc.stderr
    with served(forks, root, "0.0.0.0", "--allow-no-token") as port:
        status, _ = post("127.0.0.1", port, INIT, {})
        assert status == 200
    with served(forks, root, "0.0.0.0", env={"FILEWRIGHT_TOKEN": TOKEN}) as port:
        assert post("127.0.0.1", port, INIT, {})[0] == 401
        assert post("127.0.0.1", port, INIT, {"Authorization": f"Bearer {TOKEN}"})[0] == 200


def test_bad_tokens_and_busy_ports_are_usage_errors(forks: ForkServer, tmp_path: Path) -> None:
    root = tree(tmp_path)
    short = run_serve(
        forks, "--root", str(root), "--http", f"127.0.0.1:{free_port()}",
        env={"FILEWRIGHT_TOKEN": "abc"},
    )  # fmt: skip
    assert short.returncode == 2 and "at least 16 characters" in short.stderr
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen(1)
        port = busy.getsockname()[1]
        proc = run_serve(forks, "--root", str(root), "--http", f"127.0.0.1:{port}")
    assert proc.returncode == 2 and "cannot listen" in proc.stderr
    assert "serving" not in proc.stderr and "Traceback" not in proc.stderr
    stdio = run_serve(forks, "--root", str(root), "--token-file", "/nonexistent")
    assert stdio.returncode == 2 and "apply to --http" in stdio.stderr
    missing = run_serve(
        forks, "--root", str(root), "--http", f"127.0.0.1:{free_port()}", "--token-file",
        str(tmp_path / "nope"),
    )  # fmt: skip
    assert missing.returncode == 2 and "cannot read it" in missing.stderr


@pytest.mark.parametrize("host", ["127.0.0.1", "127.0.0.2", "127.1", "localhost", "::1"])
def test_rebinding_protection_on_every_loopback_address(
    forks: ForkServer, tmp_path: Path, host: str
) -> None:
    connect = "127.0.0.1" if host == "127.1" else host
    if host != "127.1" and not can_bind(connect):
        pytest.skip(f"{host} cannot be bound on this machine")
    root = tree(tmp_path)
    with served(forks, root, host) as port:
        shown = f"[{host}]" if ":" in host else host
        assert post(connect, port, INIT, {"Host": f"{shown}:{port}"})[0] == 200
        for headers, code in [
            ({"Host": f"evil.example:{port}"}, 421),
            ({"Host": "evil.example"}, 421),
            ({"Host": f"{shown}:{port}", "Origin": "http://evil.example"}, 403),
            ({"Host": f"{shown}:{port}", "Origin": f"http://evil.example:{port}"}, 403),
        ]:
            assert post(connect, port, WRITE, headers)[0] == code, headers
        assert (root / "a.txt").read_text() == "alpha\n"


def test_usage_errors_are_found_before_the_mcp_sdk_is_imported(tmp_path: Path) -> None:
    """Each usage error of `serve` exits 2 before the MCP SDK is imported (a second or
    more of start-up): the toolset, the roots, the address, the token, the exposure, the
    port. One process runs them all and says whether `mcp` was ever imported."""
    root = tree(tmp_path)
    (tmp_path / "short").write_text("abc\n", encoding="utf-8")
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen(1)
        http = ["--root", str(root), "--http"]
        cases = [
            ["--toolset", "nope"],
            ["--root", str(tmp_path / "missing")],
            [*http, "localhost:http"],
            ["--root", str(root), "--token-file", str(tmp_path / "short")],
            [*http, f"127.0.0.1:{free_port()}", "--token-file", str(tmp_path / "short")],
            [*http, f"127.0.0.1:{free_port()}", "--token-file", str(tmp_path / "nope")],
            [*http, f"0.0.0.0:{free_port()}"],
            [*http, f"127.0.0.1:{busy.getsockname()[1]}"],
        ]
        script = (
            "import json, sys\n"
            "from filewright.surfaces.cli.main import main\n"
            "codes = []\n"
            "for args in json.loads(sys.argv[1]):\n"
            "    try:\n"
            "        main(['serve', *args])\n"
            "    except SystemExit as exc:\n"
            "        codes.append(exc.code)\n"
            "print(json.dumps([codes, 'mcp' in sys.modules]))\n"
        )
        proc = subprocess.run(
            [sys.executable, "-c", script, json.dumps(cases)], capture_output=True, text=True,
            timeout=60, env={**os.environ, "FILEWRIGHT_TOKEN": ""}, cwd=tmp_path,
        )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    codes, imported = json.loads(proc.stdout)
    assert codes == [2] * len(cases), proc.stderr
    messages = proc.stderr.strip().splitlines()
    assert len(messages) == len(cases) and "Traceback" not in proc.stderr, proc.stderr
    assert "serving" not in proc.stderr
    assert not imported, "a usage error imported the MCP SDK"
