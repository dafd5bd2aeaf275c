"""Checking `filewright serve --http` options and binding the address, with the standard
library only: a bad address or token, a missing token, or a busy port is reported before
the MCP SDK is imported (a second or more of start-up). `http` serves on what `listen`
returns.

- **Exposure.** An address that is not loopback (`0.0.0.0`, a LAN address, a name that
  resolves elsewhere) is refused without a token unless `--allow-no-token` says so.
- **Announce after bind.** The socket is bound and listening before "serving on …" is
  printed, so a port in use is a clear error, never a false announcement.
"""

from __future__ import annotations

import ipaddress
import os
import socket
from pathlib import Path
from typing import NamedTuple

TOKEN_ENV = "FILEWRIGHT_TOKEN"
MIN_TOKEN_LENGTH = 16
LOOPBACK_NAMES = ("127.0.0.1", "localhost", "[::1]")


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


def bracketed(host: str) -> str:
    """`host` as it is written in a URL (an IPv6 address in brackets)."""
    return f"[{host}]" if ":" in host and not host.startswith("[") else host


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
