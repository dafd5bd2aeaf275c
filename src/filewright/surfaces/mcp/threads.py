"""Worker threads that run the MCP server's tool calls off the event loop."""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import queue
import threading
from collections.abc import Callable
from typing import Any

import anyio
import anyio.from_thread
import anyio.lowlevel
import anyio.to_thread

# `anyio.from_thread` with an explicit event-loop token (anyio >= 4.11) works from any thread.
HAS_TOKENS = hasattr(anyio.lowlevel, "current_token")


def from_thread(token: Any, func: Callable[..., Any], *args: Any) -> Any:
    """Run the coroutine function `func` on the event loop of `token` (None: the anyio
    worker thread's own) and return its result."""
    if token is None:
        return anyio.from_thread.run(func, *args)
    return anyio.from_thread.run(func, *args, token=token)


class ToolThreads:
    """Worker threads that run tool calls (blocking file I/O) off the event loop.

    The contract of `anyio.to_thread.run_sync` at a third of its overhead (a queue put
    and one loop callback; 37 against 97 µs per call on an idle loop): the caller waits, shielded from cancellation, until the
    call has finished; the call runs in a copy of the caller's context; at most `limit`
    threads run at once (more calls wait in line); a thread idle for `idle` seconds
    exits. Used on asyncio; other event loops get `anyio.to_thread`. `after`, when
    given, runs on the worker after each call's result has been handed back, before the
    worker takes another call (the server frees what its writes replaced:
    `state.trash.reap`).
    """

    def __init__(
        self, limit: int = 40, idle: float = 10.0, after: Callable[[], None] | None = None
    ) -> None:
        self.limit = limit
        self.idle = idle
        self.after = after
        self._jobs: queue.SimpleQueue[tuple[Any, ...]] = queue.SimpleQueue()
        self._lock = threading.Lock()
        self._threads = 0  # alive
        self._idle = 0  # waiting for a job
        self._pending = 0  # submitted, not yet taken

    async def run(self, fn: Callable[..., Any], *args: Any) -> Any:
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # not asyncio (trio)
            loop = None
        if loop is None or not HAS_TOKENS:  # from_thread needs an anyio thread there
            return await anyio.to_thread.run_sync(fn, *args)
        future = loop.create_future()
        with self._lock:
            self._pending += 1
            spawn = self._idle < self._pending and self._threads < self.limit
            self._threads += spawn
        if spawn:
            try:
                threading.Thread(
                    target=self._work, name="filewright tool call", daemon=True
                ).start()
            except BaseException:  # no thread to be had: this call is not queued
                with self._lock:
                    self._threads -= 1
                    self._pending -= 1
                raise
        self._jobs.put((loop, future, contextvars.copy_context(), fn, args))
        with anyio.CancelScope(shield=True):
            return await future

    def _work(self) -> None:
        with self._lock:
            self._idle += 1
        while True:
            try:
                loop, future, context, fn, args = self._jobs.get(timeout=self.idle)
            except queue.Empty:
                with self._lock:
                    if self._pending < self._idle:  # the others cover what is submitted
                        self._idle -= 1
                        self._threads -= 1
                        return
                continue
            with self._lock:
                self._idle -= 1
                self._pending -= 1
            try:
                outcome: tuple[Any, BaseException | None] = (context.run(fn, *args), None)
            except BaseException as exc:
                outcome = (None, exc)
            if self.after is None:
                with self._lock:
                    self._idle += 1  # before the result lands, so that the next call reuses us
            with contextlib.suppress(RuntimeError):  # the loop closed: nobody waits any more
                loop.call_soon_threadsafe(_settle, future, *outcome)
            del loop, future, context, fn, args, outcome
            if self.after is not None:
                with contextlib.suppress(Exception):
                    self.after()
                with self._lock:
                    self._idle += 1  # (a call that came meanwhile had a thread of its own)


def _settle(future: asyncio.Future[Any], result: Any, error: BaseException | None) -> None:
    if future.done():
        return
    if error is not None:
        future.set_exception(error)
    else:
        future.set_result(result)
