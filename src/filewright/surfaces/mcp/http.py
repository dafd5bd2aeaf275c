"""The MCP server over streamable HTTP: who may connect, and binding before announcing.

- **Bearer token.** With a token (`--token-file PATH`, else `$FILEWRIGHT_TOKEN`) every
  request to `/mcp` must carry `Authorization: Bearer <token>`; anything else gets 401
  and reaches no tool. The check is the MCP SDK's own bearer middleware with a verifier
  that compares in constant time (`hmac.compare_digest`).
- **DNS rebinding.** On every loopback address (`127.0.0.0/8`, `::1`, `localhost`, …)
  requests whose `Host` is not a loopback name or address get 421 and those with a
  foreign `Origin` 403 (the SDK's transport security, with the bound host allowed too).
- **Slow and idle clients.** A request must arrive whole (head and body) within
  `REQUEST_TIMEOUT` seconds of its first byte (of the connection, for the first one), or
  the connection is closed; between requests uvicorn's keep-alive limit (5 s) applies. At
  most `MAX_CONNECTIONS` connections are open at once: one more is answered 503 and
  closed at once, so idle sockets cannot use up the server's descriptors.
- **Usage errors first.** `listen.listen` checks the options (exposure: a non-loopback
  address needs a token) and binds with the standard library only, before this module
  (uvicorn, h11, the SDK's HTTP parts) is imported.
"""

from __future__ import annotations

import asyncio
import hmac
import sys
from typing import Any

import anyio
import h11
import uvicorn
from mcp.server.auth.provider import AccessToken
from mcp.server.auth.settings import AuthSettings
from mcp.server.transport_security import TransportSecuritySettings
from uvicorn.protocols.http.h11_impl import H11Protocol

from filewright.surfaces.mcp.listen import LOOPBACK_NAMES, Listener, bracketed, is_loopback

REQUEST_TIMEOUT = 10.0
"""Seconds a request (head and body) may take to arrive, from its first byte."""
MAX_CONNECTIONS = 64
"""Connections open at once; uvicorn's `limit_concurrency` (503) is set to the same."""
KEEP_ALIVE = 5
"""Seconds an idle connection is kept between requests (uvicorn's default, made explicit)."""
_BUSY = b"HTTP/1.1 503 Service Unavailable\r\ncontent-length: 0\r\nconnection: close\r\n\r\n"


def rebinding_protection(host: str, port: int) -> Any:
    """The SDK's transport security for a loopback address: loopback Hosts and Origins
    only (the bound host as written included); None for other addresses."""
    if not is_loopback(host):
        return None
    names = dict.fromkeys([*LOOPBACK_NAMES, bracketed(host)])
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
        if hmac.compare_digest(token.encode("utf-8", "surrogatepass"), self._token):
            return AccessToken(token="<bearer>", client_id="filewright-token", scopes=[])
        return None


def http_app(server: Any, host: str, port: int, token: str | None) -> Any:
    """The Starlette app serving `server` (a FilewrightServer) at /mcp, with the token check and rebinding
    protection that fit `host`."""
    auth: Any = None
    verifier: Any = None
    if token is not None:
        auth = AuthSettings(
            issuer_url=f"http://{bracketed(host)}:{port}",  # type: ignore[arg-type]
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


def guarded_protocol(request_timeout: float, max_connections: int) -> type[Any]:
    """uvicorn's h11 protocol with a deadline for each request to arrive whole and a cap
    on open connections (see the module docstring)."""

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
    return uvicorn.Config(
        app,
        log_level=log_level,
        http=guarded_protocol(request_timeout, max_connections),
        limit_concurrency=max_connections + 1,  # (uvicorn counts the asking connection)
        timeout_keep_alive=KEEP_ALIVE,
    )


def serve(server: Any, listener: Listener, toolset: str) -> None:
    """Announce on stderr and serve on `listener` until interrupted (Ctrl-C, SIGTERM)."""
    host, sock, token = listener.host, listener.sock, listener.token
    bound_port = sock.getsockname()[1]
    app = http_app(server, host, bound_port, token)
    config = server_config(app, log_level=server.settings.log_level.lower())
    guard = "bearer token required" if token else "no token"
    print(
        f"filewright: serving toolset {toolset!r} on http://{bracketed(host)}:{bound_port}/mcp "
        f"({guard}); Ctrl-C stops it",
        file=sys.stderr,
        flush=True,
    )
    try:
        anyio.run(lambda: uvicorn.Server(config).serve(sockets=[sock]))
    finally:
        sock.close()
