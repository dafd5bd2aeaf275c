"""The official MCP client over stdio to a `filewright serve` forked by tests/forkserver.py.

`Client(forked_stdio(forks, argv))` is `Client(StdioServerParameters(...))` without a new
interpreter importing the MCP SDK for each server: the server is the `filewright`
command's `main` with `argv[1:]` in a process of its own, forked from a warm one; this
transport reads and writes its stdout and stdin as the SDK's stdio transport does (one
JSON-RPC message a line, parsed and serialised by the SDK's own models), and on exit
closes its stdin and waits for it to end (killing it after `STOP_SECONDS`). Its stderr
is read and dropped, as the SDK's transport passes it on.
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import anyio
import mcp_types
from forkserver import Forked, ForkServer
from mcp.shared.message import SessionMessage

STOP_SECONDS = 10.0


@asynccontextmanager
async def forked_stdio(
    forks: ForkServer,
    argv: list[str],
    *,
    code: str | None = None,
    cwd: str | os.PathLike[str] | None = None,
    env: dict[str, str] | None = None,
    started: list[Forked] | None = None,
) -> AsyncIterator[Any]:
    """The (read, write) streams of a forked server (appended to `started` when given);
    with `code`, the child runs that script (with `argv` as sys.argv) instead."""
    proc = forks.spawn(argv, code, cwd=cwd, env=env)
    if started is not None:
        started.append(proc)
    assert proc.stdin is not None and proc.stdout is not None
    assert proc.stderr is not None
    out_fd, in_fd, err_fd = proc.stdout.fileno(), proc.stdin.fileno(), proc.stderr.fileno()
    for fd in (out_fd, in_fd, err_fd):
        os.set_blocking(fd, False)
    read_in, read_out = anyio.create_memory_object_stream[SessionMessage | Exception](0)
    write_in, write_out = anyio.create_memory_object_stream[SessionMessage](0)

    async def reader() -> None:
        buffer = b""
        async with read_in:
            while True:
                await anyio.wait_readable(out_fd)
                try:
                    chunk = os.read(out_fd, 1 << 16)
                except BlockingIOError:
                    continue
                if not chunk:
                    return
                *lines, buffer = (buffer + chunk).split(b"\n")
                for line in lines:
                    try:
                        message: SessionMessage | Exception = SessionMessage(
                            mcp_types.jsonrpc_message_adapter.validate_json(line, by_name=False)
                        )
                    except ValueError as exc:
                        message = exc
                    await read_in.send(message)

    async def drain() -> None:  # stderr (logs): read, so that the server never blocks on it
        while True:
            await anyio.wait_readable(err_fd)
            try:
                if not os.read(err_fd, 1 << 16):
                    return
            except BlockingIOError:
                continue

    async def writer() -> None:
        async with write_out:
            async for message in write_out:
                json = message.message.model_dump_json(by_alias=True, exclude_unset=True)
                data = (json + "\n").encode()
                while data:
                    await anyio.wait_writable(in_fd)
                    try:
                        data = data[os.write(in_fd, data) :]
                    except BlockingIOError:
                        continue

    async with anyio.create_task_group() as tg:
        tg.start_soon(reader)
        tg.start_soon(writer)
        tg.start_soon(drain)
        try:
            yield read_out, write_in
        finally:
            tg.cancel_scope.cancel()
            with anyio.CancelScope(shield=True):
                proc.stdin.close()
                proc.stdin = None
                with anyio.move_on_after(STOP_SECONDS):
                    while proc.poll() is None:
                        await anyio.sleep(0.01)
                if proc.poll() is None:
                    proc.kill()
                proc.wait()
                for stream in (proc.stdout, proc.stderr):
                    if stream is not None:
                        stream.close()
