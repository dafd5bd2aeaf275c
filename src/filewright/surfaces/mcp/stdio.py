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

Every request gets an answer: a line the SDK cannot take (not JSON, nested too deeply,
a lone surrogate escape such as `\\udc80`, not a JSON-RPC message) is answered with a
JSON-RPC error carrying the request's id when one can be found (`invalid_line_reply`),
instead of being dropped while the client waits.
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import json
import logging
import os
import re
import stat
import sys
from collections import deque
from collections.abc import Awaitable, Callable, Iterator
from typing import Any

import anyio
import mcp_types as types
from mcp.shared.message import SessionMessage

log = logging.getLogger("filewright.surfaces.mcp.server")


class PipeLines:
    """Lines (str, newline kept) read from a non-blocking fd, split as the SDK's text
    reader splits them ("\\n", "\\r\\n" and "\\r" end a line; undecodable bytes are
    replaced).

    On asyncio the fd stays registered with the event loop between lines (`_on_readable`
    reads what arrives and wakes the waiting reader): no failed read, no registration and
    removal per message (two `epoll_ctl` and anyio's `wait_readable` each time: ~12% of
    what the server loop did per call, issue 32). What is read ahead is bounded as before:
    nothing is read while a complete line waits to be taken and nobody asks for one (the
    fd is then left unregistered until the next ask). Elsewhere (another event loop) a
    read that would block waits with `anyio.wait_readable`.
    """

    CHUNK = 1 << 16

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self._pending = bytearray()  # the unfinished last line
        self._lines: deque[bytes] = deque()
        self._eof = False
        self._loop: asyncio.AbstractEventLoop | None = None  # where the fd is registered
        self._waiter: asyncio.Future[None] | None = None
        self._error: OSError | None = None

    def __aiter__(self) -> PipeLines:
        return self

    async def __anext__(self) -> str:
        while not self._lines:
            if self._error is not None:
                raise self._error
            if self._eof:
                raise StopAsyncIteration
            loop = self._watch()
            if loop is None:
                await self._read_or_wait()
                continue
            waiter = self._waiter = loop.create_future()
            try:
                await waiter
            finally:
                self._waiter = None
        return self._lines.popleft().decode("utf-8", "replace")

    def _watch(self) -> asyncio.AbstractEventLoop | None:
        """The running asyncio loop, with the fd registered on it; None elsewhere."""
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # not asyncio
            return None
        if self._loop is not loop:
            self._unwatch()
            try:
                loop.add_reader(self.fd, self._on_readable)
            except (NotImplementedError, ValueError, OSError):
                return None
            self._loop = loop
        return loop

    def _unwatch(self) -> None:
        loop, self._loop = self._loop, None
        if loop is not None and not loop.is_closed():
            with contextlib.suppress(ValueError, OSError):
                loop.remove_reader(self.fd)

    def _on_readable(self) -> None:
        waiting = self._waiter is not None and not self._waiter.done()
        if self._lines and not waiting:
            self._unwatch()  # a line waits to be taken: read on when one is asked for
            return
        try:
            chunk = os.read(self.fd, self.CHUNK)
        except BlockingIOError:
            return
        except ConnectionResetError:  # a socket's peer went away: end of input
            chunk = b""
        except OSError as exc:  # raised to the reader once the lines read before are taken
            self._error = exc
            self._unwatch()
            if waiting:
                assert self._waiter is not None
                self._waiter.set_result(None)
            return
        self.feed(chunk)
        if self._eof:
            self._unwatch()
        if (self._lines or self._eof) and waiting:
            assert self._waiter is not None
            self._waiter.set_result(None)

    async def _read_or_wait(self) -> None:
        try:
            chunk = os.read(self.fd, self.CHUNK)
        except BlockingIOError:
            await anyio.wait_readable(self.fd)
            return
        except ConnectionResetError:  # a socket's peer went away: end of input
            chunk = b""
        self.feed(chunk)

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
        self._unwatch()
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


PARSE_ERROR, INVALID_REQUEST, INVALID_PARAMS = -32700, -32600, -32602
_NO_ID = object()
_TOKENS = re.compile(r'"(?:[^"\\]|\\.)*"?|[{}\[\]]|[^"{}\[\]]+', re.S)


def top_level_id(text: str) -> Any:
    """The `id` member of the top-level JSON object in `text`, found without parsing the
    whole (which may be nested too deeply or not be JSON); `_NO_ID` when there is none,
    None when it is not a string or an integer."""
    depth, key, after_colon = 0, None, False
    for match in _TOKENS.finditer(text):
        token = match.group()
        if token in ("{", "["):
            depth += 1
        elif token in ("}", "]"):
            depth -= 1
        elif depth != 1:
            continue
        elif token.startswith('"'):
            if after_colon and key == "id":
                return _id_value(token)
            key = None if after_colon else _json_or_none(token)
            after_colon = False
        else:
            head, colon, rest = token.partition(":")
            if colon and not head.strip() and key == "id":
                value = rest.split(",")[0].strip()
                if value:
                    return _id_value(value)
                after_colon = True
                continue
            after_colon = bool(colon)
            if "," in token:
                key, after_colon = None, False
    return _NO_ID


def _json_or_none(token: str) -> Any:
    try:
        return json.loads(token)
    except (ValueError, RecursionError):
        return None


def _id_value(token: str) -> Any:
    value = _json_or_none(token)
    return value if type(value) in (int, str) else None


def _has_lone_surrogate(value: Any, depth: int = 0) -> bool:
    if isinstance(value, str):
        return any("\ud800" <= c <= "\udfff" for c in value)
    if depth > 64:
        return False
    if isinstance(value, dict):
        return any(_has_lone_surrogate(k, depth + 1) or _has_lone_surrogate(v, depth + 1)
                   for k, v in value.items())  # fmt: skip
    if isinstance(value, list):
        return any(_has_lone_surrogate(v, depth + 1) for v in value)
    return False


def invalid_line_reply(line: str, problem: str = "") -> dict[str, Any] | None:
    """The JSON-RPC error answering a line the SDK could not take, or None when nothing
    should answer it (a blank line, a notification, a response from the client)."""
    if not line.strip():
        return None
    try:
        message = json.loads(line)
    except RecursionError:
        request_id = top_level_id(line)
        code, text = INVALID_REQUEST, "Invalid Request: the message is nested too deeply"
    except ValueError as exc:
        request_id = top_level_id(line)
        code, text = PARSE_ERROR, f"Parse error: not JSON ({exc})"
    else:
        if isinstance(message, dict):
            if "method" not in message and ("result" in message or "error" in message):
                return None  # a malformed response: there is nobody to answer
            if "method" in message and "id" not in message:
                return None  # a notification is never answered
            request_id = message.get("id", _NO_ID)
            if type(request_id) not in (int, str):
                request_id = None
        else:
            request_id = None
        if _has_lone_surrogate(message):
            code = INVALID_PARAMS
            text = (
                "Invalid params: the request holds a lone surrogate escape (such as \\udc80), "
                "which is not a Unicode character"
            )
        else:
            code = INVALID_REQUEST
            detail = problem.strip().splitlines()
            text = "Invalid Request: not a valid JSON-RPC 2.0 message" + (
                f" ({detail[-1].strip()[:200]})" if detail else ""
            )
    return {
        "jsonrpc": "2.0",
        "id": None if request_id is _NO_ID else request_id,
        "error": {"code": code, "message": text},
    }


class MessageReader:
    """The SDK's read stream over stdin: JSON-RPC lines parsed by the SDK's own adapter.
    A line that does not parse is answered with a JSON-RPC error through `answer` (which
    writes one reply to the client) and skipped."""

    def __init__(
        self, fd: int, answer: Callable[[dict[str, Any]], Awaitable[None]] | None = None
    ) -> None:
        self.lines = PipeLines(fd)
        self.answer = answer

    async def receive(self) -> SessionMessage | Exception:
        while True:
            try:
                line = await self.lines.__anext__()
            except StopAsyncIteration:
                raise anyio.EndOfStream from None
            try:
                return SessionMessage(
                    types.jsonrpc_message_adapter.validate_json(line, by_name=False)
                )
            except Exception as exc:
                if self.answer is None:
                    return exc
                reply = invalid_line_reply(line, str(exc))
                log.info("stdio: a line that is not a valid message: %s", str(exc)[:300])
                if reply is not None:
                    await self.answer(reply)

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

    async def send_raw(self, reply: dict[str, Any]) -> None:
        """Write one reply built outside the SDK (ASCII JSON: any text is safe to write)."""
        if self._closed:
            return
        async with self._lock:
            try:
                await self.out.write(json.dumps(reply, ensure_ascii=True) + "\n")
            except (BrokenPipeError, ConnectionResetError):
                self._closed = True

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
