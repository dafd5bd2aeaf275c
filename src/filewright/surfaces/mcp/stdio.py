"""The MCP server's stdio transport without worker threads (see `filewright.surfaces.mcp.server`).

The SDK's stdio transport reads and writes through `anyio.wrap_file`: every incoming
line and every outgoing message (write, then flush) is a hop to a worker thread and
back, and two relay tasks sit between the pipes and the server loop: about 0.4 ms per
tool call. When stdin and stdout are pipes or sockets (as when a host starts the
server), filewright hands the SDK's server loop (`Server.run`) a read and a write stream
of its own that use the descriptors directly, waiting on the event loop for readiness.
JSON-RPC parsing, dispatch and serialisation stay the SDK's. The standard descriptors
are claimed as the SDK claims them: fd 0 reads the null device and fd 1 writes to
stderr while serving, so stray output never reaches the wire.
"""

from __future__ import annotations

import contextlib
import logging
import os
import stat
import sys
from collections import deque
from collections.abc import Iterator
from typing import Any

import anyio
import mcp_types as types
from mcp.shared.message import SessionMessage

log = logging.getLogger("filewright.surfaces.mcp.server")


class PipeLines:
    """Lines (str, newline kept) read from a non-blocking fd, split as the SDK's text
    reader splits them ("\\n", "\\r\\n" and "\\r" end a line; undecodable bytes are
    replaced)."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self._pending = bytearray()  # the unfinished last line
        self._lines: deque[bytes] = deque()
        self._eof = False

    def __aiter__(self) -> PipeLines:
        return self

    async def __anext__(self) -> str:
        while not self._lines:
            if self._eof:
                raise StopAsyncIteration
            try:
                chunk = os.read(self.fd, 1 << 16)
            except BlockingIOError:
                await anyio.wait_readable(self.fd)
                continue
            except ConnectionResetError:  # a socket's peer went away: end of input
                chunk = b""
            self.feed(chunk)
        return self._lines.popleft().decode("utf-8", "replace")

    def feed(self, chunk: bytes) -> None:
        """Take in what was read (b"" at end of input)."""
        if chunk:
            if b"\n" not in chunk and b"\r" not in chunk:
                self._pending += chunk  # a long line: no copying of what came before
                return
            data = bytes(self._pending) + chunk
        else:
            self._eof = True
            data = bytes(self._pending)
        self._pending = bytearray()
        hold = b""
        if b"\r" in data:
            if data.endswith(b"\r") and not self._eof:  # maybe half of a "\r\n"
                data, hold = data[:-1], b"\r"
            data = data.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
        *lines, rest = data.split(b"\n")
        self._lines.extend(line + b"\n" for line in lines)
        self._pending += rest + hold
        if self._eof and self._pending:
            self._lines.append(bytes(self._pending))
            self._pending = bytearray()

    def close(self) -> None:
        """Stop reading: what is buffered is dropped and iteration ends."""
        self._eof = True
        self._lines.clear()
        self._pending = bytearray()


class PipeWriter:
    """Writes str as UTF-8 to a non-blocking fd, waiting for room when the pipe is full."""

    def __init__(self, fd: int) -> None:
        self.fd = fd

    async def write(self, text: str) -> None:
        view = memoryview(text.encode("utf-8"))
        while view:
            try:
                view = view[os.write(self.fd, view) :]
            except BlockingIOError:
                await anyio.wait_writable(self.fd)

    async def flush(self) -> None:
        """Nothing is buffered: every write went to the descriptor."""


class MessageReader:
    """The SDK's read stream over stdin: JSON-RPC lines parsed by the SDK's own adapter
    (a line that does not parse is passed on as its exception, as the SDK's reader does)."""

    def __init__(self, fd: int) -> None:
        self.lines = PipeLines(fd)

    async def receive(self) -> SessionMessage | Exception:
        try:
            line = await self.lines.__anext__()
        except StopAsyncIteration:
            raise anyio.EndOfStream from None
        try:
            return SessionMessage(types.jsonrpc_message_adapter.validate_json(line, by_name=False))
        except Exception as exc:
            return exc

    def __aiter__(self) -> MessageReader:
        return self

    async def __anext__(self) -> SessionMessage | Exception:
        try:
            return await self.receive()
        except anyio.EndOfStream:
            raise StopAsyncIteration from None

    async def aclose(self) -> None:
        self.lines.close()

    async def __aenter__(self) -> MessageReader:
        return self

    async def __aexit__(self, *_exc: object) -> None:
        await self.aclose()


class MessageWriter:
    """The SDK's write stream over stdout: each message serialised as the SDK's stdio
    transport does (one JSON line), written whole before the next one starts."""

    def __init__(self, fd: int) -> None:
        self.out = PipeWriter(fd)
        self._lock = anyio.Lock(fast_acquire=True)
        self._closed = False

    async def send(self, item: SessionMessage) -> None:
        if self._closed:
            raise anyio.ClosedResourceError
        line = item.message.model_dump_json(by_alias=True, exclude_unset=True) + "\n"
        async with self._lock:
            try:
                await self.out.write(line)
            except (BrokenPipeError, ConnectionResetError):  # the client stopped reading
                self._closed = True
                raise anyio.BrokenResourceError from None

    async def aclose(self) -> None:
        self._closed = True

    async def __aenter__(self) -> MessageWriter:
        return self

    async def __aexit__(self, *_exc: object) -> None:
        await self.aclose()


def _is_pipe(fd: int) -> bool:
    try:
        mode = os.fstat(fd).st_mode
    except OSError:
        return False
    return stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode)


def _backed_by(stream: Any, fd: int) -> bool:
    try:
        return stream.buffer.fileno() == fd
    except (AttributeError, OSError, ValueError):
        return False


@contextlib.contextmanager
def claimed_stdio() -> Iterator[tuple[int, int] | None]:
    """Private non-blocking duplicates of stdin and stdout, with fd 0 and 1 diverted
    (null device, stderr) until exit; None where that is not possible (not POSIX, not
    pipes or sockets, streams replaced), for the SDK's own transport to serve."""
    if (
        sys.platform == "win32"
        or not hasattr(anyio, "wait_readable")
        or not (_is_pipe(0) and _is_pipe(1))
        or not (_backed_by(sys.stdin, 0) and _backed_by(sys.stdout, 1))
    ):
        yield None
        return
    import fcntl

    claimed: list[tuple[int, int, bool]] = []  # (std fd, private duplicate, was blocking)
    try:
        for fd in (0, 1):
            private = fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 3)
            claimed.append((fd, private, os.get_blocking(private)))
            divert = os.open(os.devnull, os.O_RDONLY) if fd == 0 else os.dup(2)
            try:
                os.dup2(divert, fd)
            finally:
                os.close(divert)
            os.set_blocking(private, False)
    except OSError as exc:
        log.info("stdio: serving through the SDK's transport (%s)", exc)
        _release(claimed)
        yield None
        return
    try:
        yield claimed[0][1], claimed[1][1]
    finally:
        _release(claimed)


def _release(claimed: list[tuple[int, int, bool]]) -> None:
    for fd, private, blocking in reversed(claimed):
        with contextlib.suppress(OSError):
            os.set_blocking(private, blocking)
            os.dup2(private, fd)
            os.close(private)
