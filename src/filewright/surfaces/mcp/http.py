"""The MCP server over streamable HTTP: who may connect, and binding before announcing.

- **Bearer token.** With a token (`--token-file PATH`, else `$FILEWRIGHT_TOKEN`) every
  request to `/mcp` must carry `Authorization: Bearer <token>`; anything else gets 401
  and reaches no tool. The check is the MCP SDK's own bearer middleware with a verifier
  that compares in constant time (`hmac.compare_digest`).
- **Exposure.** An address that is not loopback (`0.0.0.0`, a LAN address, a name that
  resolves elsewhere) is refused without a token unless `--allow-no-token` says so.
- **DNS rebinding.** On every loopback address (`127.0.0.0/8`, `::1`, `localhost`, …)
  requests whose `Host` is not a loopback name or address get 421 and those with a
  foreign `Origin` 403 (the SDK's transport security, with the bound host allowed too).
- **Slow and idle clients.** A request must arrive whole (head and body) within
  `REQUEST_TIMEOUT` seconds of its first byte (of the connection, for the first one), or
  the connection is closed; between requests uvicorn's keep-alive limit (5 s) applies. At
  most `MAX_CONNECTIONS` connections are open at once: one more is answered 503 and
  closed at once, so idle sockets cannot use up the server's descriptors.
- **Announce after bind.** The socket is bound and listening before "serving on …" is
  printed, so a port in use is a clear error, never a false announcement.
- **Usage errors first.** `listen` checks the options and binds with the standard library
  only, so `filewright serve` reports a bad address or token, a missing token, or a busy
  port before it imports the MCP SDK (a second or more of start-up).
"""

from __future__ import annotations

import hmac
import ipaddress
import os
import socket
import sys
from pathlib import Path
from typing import Any, NamedTuple

TOKEN_ENV = "FILEWRIGHT_TOKEN"
MIN_TOKEN_LENGTH = 16
LOOPBACK_NAMES = ("127.0.0.1", "localhost", "[::1]")
REQUEST_TIMEOUT = 10.0
"""Seconds a request (head and body) may take to arrive, from its first byte."""
MAX_CONNECTIONS = 64
"""Connections open at once; uvicorn's `limit_concurrency` (503) is set to the same."""
KEEP_ALIVE = 5
"""Seconds an idle connection is kept between requests (uvicorn's default, made explicit)."""
_BUSY = b"HTTP/1.1 503 Service Unavailable\r\ncontent-length: 0\r\nconnection: close\r\n\r\n"


class Listener(NamedTuple):
    """A checked `--http` address, bound and listening, with the token to require."""

    host: str
    port: int
    token: str | None
    sock: socket.socket


def parse_http(address: str) -> tuple[str, int]:
    """HOST:PORT (IPv6 as [::1]:PORT; a bare PORT means 127.0.0.1) → (host, port)."""
    host, sep, port = address.rpartition(":")
    if not sep:
        host, port = "127.0.0.1", address
    host = host.strip("[]") or "127.0.0.1"
    if not port.isdigit() or not 0 < int(port) < 65536:
        raise ValueError(f"--http expects HOST:PORT, e.g. 127.0.0.1:8765, not {address!r}")
    return host, int(port)


def listen(http: str | None, token_file: str | None, allow_no_token: bool) -> Listener | None:
    """Check the serve options about HTTP and bind the address: None over stdio (no `http`).
    ValueError for every usage problem: a bad address, an unreadable or short token, an
    address other machines reach without a token, a port that cannot be had."""
    if not http:
        if token_file or allow_no_token:
            raise ValueError("--token-file and --allow-no-token apply to --http HOST:PORT only")
        return None
    host, port = parse_http(http)
    token = load_token(token_file)
    check_exposure(host, token, allow_no_token)
    try:
        sock = bind(host, port)
    except OSError as exc:
        raise ValueError(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from None
    return Listener(host, port, token, sock)


def load_token(token_file: str | None) -> str | None:
    """The bearer token: the first line of `token_file`, else `$FILEWRIGHT_TOKEN`, else
    None. Raises ValueError for an unreadable file or a token that is too short."""
    if token_file:
        try:
            text = Path(token_file).expanduser().read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise ValueError(f"--token-file {token_file}: cannot read it ({exc})") from None
        token = text.strip().splitlines()[0].strip() if text.strip() else ""
        source = f"--token-file {token_file}"
    else:
        token = os.environ.get(TOKEN_ENV, "").strip()
        source = f"${TOKEN_ENV}"
        if not token:
            return None
    if len(token) < MIN_TOKEN_LENGTH or any(c.isspace() for c in token):
        raise ValueError(
            f"{source}: the token must be one word of at least {MIN_TOKEN_LENGTH} characters "
            "(e.g. from: python -c 'import secrets; print(secrets.token_urlsafe(32))')"
        )
    return token


def is_loopback(host: str) -> bool:
    """Whether every address `host` names is a loopback address (127.0.0.0/8, ::1)."""
    try:
        infos = socket.getaddrinfo(host, None, type=socket.SOCK_STREAM)
    except (OSError, UnicodeError):
        return False
    addresses = {info[4][0] for info in infos}
    try:
        return bool(addresses) and all(
            ipaddress.ip_address(str(a).split("%")[0]).is_loopback for a in addresses
        )
    except ValueError:
        return False


def check_exposure(host: str, token: str | None, allow_no_token: bool) -> None:
    """Refuse (ValueError) to serve a non-loopback address without a token."""
    if token is None and not allow_no_token and not is_loopback(host):
        raise ValueError(
            f"{host} is reachable from other machines and no token is set: give one with "
            f"--token-file PATH or ${TOKEN_ENV} (clients send 'Authorization: Bearer TOKEN'), "
            "or pass --allow-no-token to serve write tools to the network unauthenticated"
        )


def _bracketed(host: str) -> str:
    return f"[{host}]" if ":" in host and not host.startswith("[") else host


def rebinding_protection(host: str, port: int) -> Any:
    """The SDK's transport security for a loopback address: loopback Hosts and Origins
    only (the bound host as written included); None for other addresses."""
    # deferred: mcp: heavy, loaded only when this runs
    from mcp.server.transport_security import TransportSecuritySettings

    if not is_loopback(host):
        return None
    names = dict.fromkeys([*LOOPBACK_NAMES, _bracketed(host)])
    return TransportSecuritySettings(
        enable_dns_rebinding_protection=True,
        allowed_hosts=[h for n in names for h in (n, f"{n}:*")],
        allowed_origins=[o for n in names for o in (f"http://{n}", f"http://{n}:*")],
    )


class StaticTokenVerifier:
    """The SDK's TokenVerifier for one shared token, compared in constant time."""

    def __init__(self, token: str) -> None:
        self._token = token.encode("utf-8")

    async def verify_token(self, token: str) -> Any:
        # deferred: mcp: heavy, loaded only when this runs
        from mcp.server.auth.provider import AccessToken

        if hmac.compare_digest(token.encode("utf-8", "surrogatepass"), self._token):
            return AccessToken(token="<bearer>", client_id="filewright-token", scopes=[])
        return None


def http_app(server: Any, host: str, port: int, token: str | None) -> Any:
    """The Starlette app serving `server` (a FilewrightServer) at /mcp, with the token check and rebinding
    protection that fit `host`."""
    auth: Any = None
    verifier: Any = None
    if token is not None:
        # deferred: mcp: heavy, loaded only when this runs
        from mcp.server.auth.settings import AuthSettings

        auth = AuthSettings(
            issuer_url=f"http://{_bracketed(host)}:{port}",  # type: ignore[arg-type]
            resource_server_url=None,
        )
        verifier = StaticTokenVerifier(token)
    return server._lowlevel_server.streamable_http_app(
        streamable_http_path="/mcp",
        transport_security=rebinding_protection(host, port),
        host=host,
        auth=auth,
        token_verifier=verifier,
    )


def bind(host: str, port: int) -> socket.socket:
    """A listening socket on host:port (OSError when it cannot be had)."""
    infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    family, kind, proto, _, address = infos[0]
    sock = socket.socket(family, kind, proto)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(address)
        sock.listen(128)
        sock.set_inheritable(True)
    except OSError:
        sock.close()
        raise
    return sock


def guarded_protocol(request_timeout: float, max_connections: int) -> type[Any]:
    """uvicorn's h11 protocol with a deadline for each request to arrive whole and a cap
    on open connections (see the module docstring)."""
    # deferred: h11, uvicorn: heavy, loaded only when this runs
    import asyncio

    import h11
    from uvicorn.protocols.http.h11_impl import H11Protocol

    class Guarded(H11Protocol):
        _deadline: asyncio.TimerHandle | None = None

        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
            super().connection_made(transport)
            if len(self.connections) > max_connections:
                transport.write(_BUSY)
                transport.close()
                return
            self._arm()

        def connection_lost(self, exc: Exception | None) -> None:
            self._disarm()
            super().connection_lost(exc)

        def data_received(self, data: bytes) -> None:
            if self._deadline is None and self.conn.their_state is h11.IDLE:
                self._arm()  # (the first byte of the next request on a kept connection)
            super().data_received(data)
            if self.conn.their_state is not h11.IDLE and self.conn.their_state is not h11.SEND_BODY:
                self._disarm()  # (the request has arrived whole, or the connection ends)

        def on_response_complete(self) -> None:
            super().on_response_complete()
            # A next request already (partly) buffered gets its own deadline.
            state = self.conn.their_state
            if state is h11.SEND_BODY or (state is h11.IDLE and self.conn.trailing_data[0]):
                self._arm()

        def _arm(self) -> None:
            self._disarm()
            self._deadline = self.loop.call_later(request_timeout, self._too_slow)

        def _disarm(self) -> None:
            if self._deadline is not None:
                self._deadline.cancel()
                self._deadline = None

        def _too_slow(self) -> None:
            self._deadline = None
            if not self.transport.is_closing():
                self.transport.close()

    return Guarded


def server_config(
    app: Any,
    *,
    log_level: str = "info",
    request_timeout: float = REQUEST_TIMEOUT,
    max_connections: int = MAX_CONNECTIONS,
) -> Any:
    """The uvicorn configuration every HTTP server of filewright runs with."""
    # deferred: uvicorn: heavy, loaded only when this runs
    import uvicorn

    return uvicorn.Config(
        app,
        log_level=log_level,
        http=guarded_protocol(request_timeout, max_connections),
        limit_concurrency=max_connections + 1,  # (uvicorn counts the asking connection)
        timeout_keep_alive=KEEP_ALIVE,
    )


def serve(server: Any, listener: Listener, toolset: str) -> None:
    """Announce on stderr and serve on `listener` until interrupted (Ctrl-C, SIGTERM)."""
    # deferred: anyio, uvicorn: heavy, loaded only when this runs
    import anyio
    import uvicorn

    host, sock, token = listener.host, listener.sock, listener.token
    bound_port = sock.getsockname()[1]
    app = http_app(server, host, bound_port, token)
    config = server_config(app, log_level=server.settings.log_level.lower())
    guard = "bearer token required" if token else "no token"
    print(
        f"filewright: serving toolset {toolset!r} on http://{_bracketed(host)}:{bound_port}/mcp "
        f"({guard}); Ctrl-C stops it",
        file=sys.stderr,
        flush=True,
    )
    try:
        anyio.run(lambda: uvicorn.Server(config).serve(sockets=[sock]))
    finally:
        sock.close()
