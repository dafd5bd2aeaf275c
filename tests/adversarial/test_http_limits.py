"""`filewright serve --http` against slow and idle clients (issue 30): a request that is
never sent whole is cut off after the request timeout, and connections beyond the limit
are refused at once, so idle sockets cannot hold the server's descriptors.

In-process tests run the real uvicorn server on a loopback socket with a short timeout
and a small limit (bounded: each stops the server itself); test_http_surface.py checks
with `assert_connection_limit` that `filewright serve` runs with the limits on."""

from __future__ import annotations

import contextlib
import json
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from filewright.surfaces.mcp import http, listen
from filewright.surfaces.mcp.server import build_server

INIT = json.dumps(
    {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "t", "version": "1"},
        },
    }
).encode()


def _request(port: int, body: bytes = INIT, *, close: bool = False) -> bytes:
    return (
        f"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\ncontent-type: application/json\r\n"
        + ("connection: close\r\n" if close else "")
        + f"accept: application/json, text/event-stream\r\ncontent-length: {len(body)}\r\n\r\n"
    ).encode() + body


@contextlib.contextmanager
def running(root: Path, *, timeout: float, limit: int) -> Iterator[int]:
    """A real server on 127.0.0.1 (its port), stopped on leaving."""
    import anyio
    import uvicorn

    sock = listen.bind("127.0.0.1", 0)
    port = sock.getsockname()[1]
    app = http.http_app(build_server([str(root)], http=True), "127.0.0.1", port, None)
    config = http.server_config(
        app, log_level="warning", request_timeout=timeout, max_connections=limit
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(
        target=lambda: anyio.run(lambda: server.serve(sockets=[sock])), daemon=True
    )
    thread.start()
    try:
        deadline = time.monotonic() + 30
        while not server.started:
            assert thread.is_alive() and time.monotonic() < deadline, "server did not start"
            time.sleep(0.01)
        yield port
    finally:
        server.should_exit = True
        thread.join(timeout=30)
        sock.close()


def _closed_within(conn: socket.socket, seconds: float) -> bytes | None:
    """What the server sent before closing `conn` (None: still open after `seconds`)."""
    conn.settimeout(seconds)
    got = b""
    try:
        while True:
            chunk = conn.recv(65536)
            if not chunk:
                return got
            got += chunk
    except TimeoutError:
        return None
    except ConnectionResetError:
        return got


def _answer(port: int) -> bytes:
    with socket.create_connection(("127.0.0.1", port), timeout=10) as c:
        c.sendall(_request(port, close=True))
        return _closed_within(c, 10) or b""


@pytest.mark.timeout(60)
def test_half_sent_requests_and_idle_connections_are_cut_off(tmp_path: Path) -> None:
    with running(tmp_path, timeout=0.3, limit=16) as port:
        idle = socket.create_connection(("127.0.0.1", port))
        half_head = socket.create_connection(("127.0.0.1", port))
        half_head.sendall(_request(port)[:40])
        half_body = socket.create_connection(("127.0.0.1", port))
        half_body.sendall(_request(port)[:-10])
        for conn in (idle, half_head, half_body):
            with conn:
                assert _closed_within(conn, 10) is not None  # closed by the server
        # A kept-alive connection that starts a second request and stalls is cut off too.
        with socket.create_connection(("127.0.0.1", port)) as kept:
            kept.sendall(_request(port))
            kept.settimeout(10)
            first = b""
            while not first.endswith(b"\r\n0\r\n\r\n"):  # (the whole chunked answer)
                first += kept.recv(65536)
            assert first.startswith(b"HTTP/1.1 200"), first[:100]
            kept.sendall(_request(port)[:30])
            assert _closed_within(kept, 3) is not None  # (before the 5 s keep-alive limit)
        # A request sent right behind another (pipelined) and left unfinished, too.
        with socket.create_connection(("127.0.0.1", port)) as piped:
            piped.sendall(_request(port) + _request(port)[:30])
            assert _closed_within(piped, 3) is not None
        # A whole request is answered.
        assert _answer(port).startswith(b"HTTP/1.1 200")


@pytest.mark.timeout(60)
def test_connections_beyond_the_limit_are_refused_at_once(tmp_path: Path) -> None:
    limit = 8
    with running(tmp_path, timeout=30, limit=limit) as port:
        held = [socket.create_connection(("127.0.0.1", port)) for _ in range(limit)]
        try:
            # (the server has accepted them all before the next one: each sends a byte)
            for conn in held:
                conn.sendall(b"P")
            extra = [socket.create_connection(("127.0.0.1", port)) for _ in range(4)]
            for conn in extra:
                with conn:
                    got = _closed_within(conn, 10)
                    assert got is not None and got.startswith(b"HTTP/1.1 503"), got
            for conn in held:
                conn.setblocking(False)
                with pytest.raises(BlockingIOError):
                    conn.recv(1)  # still open, nothing said: the held ones are kept
        finally:
            for conn in held:
                conn.close()
        # Once they are gone, requests are served again.
        deadline = time.monotonic() + 10
        while not (reply := _answer(port)).startswith(b"HTTP/1.1 200"):
            assert time.monotonic() < deadline, reply[:100]
            time.sleep(0.05)


def assert_connection_limit(port: int) -> None:
    """`filewright serve --http` on `port` answers the connection after its limit 503 and
    closes it (called by test_http_surface.py's test, which starts that process)."""
    held: list[socket.socket] = []
    try:
        while len(held) < http.MAX_CONNECTIONS:
            held.append(socket.create_connection(("127.0.0.1", port), timeout=10))
            held[-1].sendall(b"P")
        with socket.create_connection(("127.0.0.1", port)) as extra:
            got = _closed_within(extra, 20)
            assert got is not None and got.startswith(b"HTTP/1.1 503"), got
    finally:
        for conn in held:
            conn.close()
