"""`filewright serve --http` on localhost: a web page must not be able to drive the tools.

A browser tab can send requests to 127.0.0.1 (directly, or by DNS rebinding a name it
controls). Without a token the local transport does not authenticate, so requests
carrying a foreign `Origin` or `Host` must be refused before any tool runs; a local client
without those headers still works. Idle connections beyond the limit are refused too.
"""

from __future__ import annotations

import json
import socket
import subprocess
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from forkserver import ForkServer, shared

from .test_http_limits import assert_connection_limit

INIT = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "browser", "version": "1"},
    },
}


@pytest.fixture(scope="module")
def forks(request: pytest.FixtureRequest) -> ForkServer:
    return shared(request.session)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _post(port: int, headers: dict[str, str]) -> tuple[int, str]:
    request = urllib.request.Request(
        f"http://127.0.0.1:{port}/mcp",
        data=json.dumps(INIT).encode(),
        headers={
            "Content-Type": "application/json",
            "Accept": "application/json, text/event-stream",
            **headers,
        },
        method="POST",
    )
    try:
        with urllib.request.urlopen(request, timeout=10) as reply:
            return reply.status, reply.read().decode(errors="replace")
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode(errors="replace")


@pytest.mark.timeout(120)
def test_http_server_refuses_foreign_origin_and_host(forks: ForkServer, tmp_path: Path) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    port = _free_port()
    # The command forked from the test process's warm interpreter (tests/forkserver.py).
    argv = ["filewright", "serve", "--http", f"127.0.0.1:{port}", "--root", str(root), "--yes"]
    server = forks.spawn(argv, text=True)
    try:
        assert server.stderr is not None  # "serving on" is said once the port is bound
        assert "serving toolset" in server.stderr.readline(), "server did not start"
        status, _ = _post(port, {"Origin": "http://evil.example"})
        assert status in (403, 421), status
        status, _ = _post(port, {"Host": f"evil.example:{port}"})
        assert status in (403, 421), status
        status, body = _post(port, {})
        assert status == 200 and '"result"' in body, (status, body[:300])
        # Idle connections beyond the limit are refused (test_http_limits.py).
        assert_connection_limit(port)
        status, body = _post(port, {})
        assert status == 200 and '"result"' in body, (status, body[:300])
    finally:
        server.terminate()
        try:
            server.communicate(timeout=20)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
