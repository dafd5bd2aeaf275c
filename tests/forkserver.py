"""Children for kill tests without an interpreter start-up each: a fork server.

Crash tests kill many processes that run filewright (SIGKILL at a chosen moment). Started
with `subprocess`, each child pays for a new interpreter and for importing filewright (and
for the MCP server, the `mcp` package) before it does any of the work the test is about.
`ForkServer` starts one interpreter that imports what is asked of it, then forks a child
per `spawn`: the child runs the real code (the `filewright` command's `main`, or a script)
in a process of its own, with its own pipes, and is killed and reaped like a `Popen`.
A child has the environment and working directory the server had when it started, and
the modules it imported (imported, nothing more: the server runs nothing else).

Protocol (one packet each way per request, over a SOCK_SEQPACKET socketpair):
  spawn: {"argv": [...], "code": "..." | null, "cwd": "..." | null, "env": {...} | null}
         with the child's stdin, stdout and stderr pipe ends as SCM_RIGHTS  ->  "<pid>"
  wait:  {"wait": <pid>}  ->  "<returncode>"   (negative: killed by that signal, as in Popen)
  poll:  {"wait": <pid>, "block": false}  ->  "<returncode>", or "running" (not reaped)
The server reaps a child only when asked, so a pid cannot be reused before the test has
signalled it. Several children may run at once. When the test closes the socket (or dies),
the server kills and reaps the children still there.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from typing import IO, Any

SERVER = r"""
import importlib, json, os, socket, sys
sock = socket.socket(fileno=int(sys.argv[1]))
for name in sys.argv[2:]:  # only saves the children the import: a moved module is no error
    try:
        importlib.import_module(name)
    except ImportError:
        pass
import gc  # the preloaded modules live on in every child: no child scans them again
gc.collect()
gc.freeze()
gc.set_threshold(50_000, 50, 50)  # as tests/conftest.py (GC_THRESHOLDS)

def child(job, fds):
    os.close(sock.detach())
    for target, fd in enumerate(fds):
        os.dup2(fd, target)
        os.close(fd)
    sys.stdin = open(0, "r", closefd=False)
    sys.stdout = open(1, "w", closefd=False)
    sys.stderr = open(2, "w", closefd=False)
    sys.argv = job["argv"]
    if job.get("cwd") is not None:
        os.chdir(job["cwd"])
    if job.get("env") is not None:
        os.environ.clear()
        os.environ.update(job["env"])
    code = 0
    try:
        if job["code"] is None:
            from filewright.surfaces.cli.main import main
            code = main()
        else:
            exec(compile(job["code"], "<child>", "exec"), {"__name__": "__main__"})
    except SystemExit as stop:
        code = stop.code if isinstance(stop.code, int) else (stop.code is not None)
    except BaseException:
        import traceback
        traceback.print_exc()
        code = 1
    import atexit
    atexit._run_exitfuncs()  # what the interpreter does at exit
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code or 0)

sock.send(b"ready")
alive = set()
while True:
    msg, fds, _, _ = socket.recv_fds(sock, 1 << 20, 3)  # (a job with its environment)
    if not msg:  # the test is gone: no child outlives it
        for pid in alive:
            os.kill(pid, 9)
            os.waitpid(pid, 0)
        break
    job = json.loads(msg)
    if "wait" in job:
        pid, status = os.waitpid(job["wait"], 0 if job.get("block", True) else os.WNOHANG)
        if pid == 0:
            sock.send(b"running")
            continue
        alive.discard(pid)
        sock.send(b"%d" % os.waitstatus_to_exitcode(status))
        continue
    pid = os.fork()
    if pid == 0:
        child(job, fds)
    alive.add(pid)
    for fd in fds:
        os.close(fd)
    sock.send(b"%d" % pid)
"""


class ForkServer:
    """One warm interpreter that forks the children of a kill test."""

    def __init__(self, *preload: str) -> None:
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        self.sock = ours
        self.proc = subprocess.Popen(
            [sys.executable, "-c", SERVER, str(theirs.fileno()), *preload],
            pass_fds=[theirs.fileno()],
            stderr=subprocess.PIPE,
        )
        theirs.close()
        self.lock = threading.Lock()  # one request and its answer at a time, across threads
        if self.sock.recv(64) != b"ready":
            _, err = self.proc.communicate(timeout=30)
            raise RuntimeError(f"fork server did not start: {err.decode(errors='replace')}")

    def spawn(
        self,
        argv: list[str],
        code: str | None = None,
        *,
        text: bool = False,
        cwd: str | os.PathLike[str] | None = None,
        env: dict[str, str] | None = None,
        stdin: int | None = None,
        stdout: int | None = None,
        stderr: int | None = None,
    ) -> Forked:
        """Fork a child running `code` (a script, with `argv` as sys.argv) or, without
        code, the `filewright` command with argv[1:]. Its stdin/stdout/stderr are pipes
        (text ones with `text`, as in `Popen`) unless a descriptor is given for one (a
        pseudo-terminal's end, say: the child gets a copy, and `Forked` no stream for it);
        `cwd` and `env` as in `Popen`: without `env`, this process's environment as it is
        now (it is set before the child runs its code: nothing filewright or the MCP SDK
        reads from it is read at import)."""
        given = (stdin, stdout, stderr)
        pipes = [None if fd is not None else os.pipe() for fd in given]
        # The child's end: the read end of stdin's pipe, the write end of the others.
        theirs = [
            fd if pipe is None else pipe[0 if i == 0 else 1]
            for i, (fd, pipe) in enumerate(zip(given, pipes, strict=True))
        ]
        ours = [None if pipe is None else pipe[1 if i == 0 else 0] for i, pipe in enumerate(pipes)]
        where = None if cwd is None else os.fspath(cwd)
        environ = dict(os.environ) if env is None else env
        job = json.dumps({"argv": argv, "code": code, "cwd": where, "env": environ}).encode()
        with self.lock:
            socket.send_fds(self.sock, [job], [fd for fd in theirs if fd is not None])
            pid = int(self.sock.recv(64))
        for fd, pipe in zip(theirs, pipes, strict=True):
            if pipe is not None and fd is not None:
                os.close(fd)
        return Forked(self, pid, ours[0], ours[1], ours[2], text=text)

    def run(
        self,
        argv: list[str],
        *,
        input: str | None = None,
        cwd: str | os.PathLike[str] | None = None,
        env: dict[str, str] | None = None,
        timeout: float | None = None,
    ) -> subprocess.CompletedProcess[str]:
        """`subprocess.run(argv, capture_output=True, text=True, ...)` for the `filewright`
        command (argv[0] is its name): a forked child, its output and return code."""
        child = self.spawn(argv, text=True, cwd=cwd, env=env)
        out, err = child.communicate(input, timeout=timeout)
        return subprocess.CompletedProcess(argv, child.wait(), out, err)

    def _wait(self, pid: int) -> int:
        with self.lock:
            self.sock.send(json.dumps({"wait": pid}).encode())
            return int(self.sock.recv(64))

    def _poll(self, pid: int) -> int | None:
        with self.lock:
            self.sock.send(json.dumps({"wait": pid, "block": False}).encode())
            answer = self.sock.recv(64)
        return None if answer == b"running" else int(answer)

    def close(self) -> None:
        self.sock.close()
        self.proc.communicate(timeout=30)

    def __enter__(self) -> ForkServer:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()


class Forked:
    """A forked child, used like a `subprocess.Popen` (binary pipes unless `text`)."""

    def __init__(
        self,
        server: ForkServer,
        pid: int,
        stdin: int | None,
        stdout: int | None,
        stderr: int | None,
        *,
        text: bool,
    ) -> None:
        self.server, self.pid, self.text = server, pid, text
        mode = "" if text else "b"
        self.stdin: IO[Any] | None = None if stdin is None else os.fdopen(stdin, "w" + mode)
        self.stdout: IO[Any] | None = None if stdout is None else os.fdopen(stdout, "r" + mode)
        self.stderr: IO[Any] | None = None if stderr is None else os.fdopen(stderr, "r" + mode)
        self.returncode: int | None = None

    def send_signal(self, sig: int) -> None:
        if self.returncode is None:  # unreaped: the pid is still this child's
            os.kill(self.pid, sig)

    def kill(self) -> None:
        self.send_signal(signal.SIGKILL)

    def terminate(self) -> None:
        self.send_signal(signal.SIGTERM)

    def poll(self) -> int | None:
        """The return code once the child has exited (reaps it then), else None."""
        if self.returncode is None:
            self.returncode = self.server._poll(self.pid)
        return self.returncode

    def communicate(self, input: Any = None, timeout: float | None = None) -> tuple[Any, Any]:
        """Write `input`, close stdin, read both outputs to their end, reap the child
        (str in and out with `text`; what the streams had buffered is not lost);
        TimeoutExpired when the outputs have not ended after `timeout` seconds."""
        if self.stdin is not None:
            stdin, self.stdin = self.stdin, None
            with contextlib.suppress(BrokenPipeError):  # a child that stopped reading
                if input:
                    stdin.write(input)
            with contextlib.suppress(BrokenPipeError):
                stdin.close()
        # One reader thread per stream, reading through the stream's buffer to its end.
        results: dict[str, Any] = {}
        readers = [
            threading.Thread(target=lambda n=name, s=stream: results.__setitem__(n, s.read()))
            for name, stream in (("out", self.stdout), ("err", self.stderr))
            if stream is not None
        ]
        for reader in readers:
            reader.start()
        deadline = None if timeout is None else time.monotonic() + timeout
        for reader in readers:
            reader.join(None if deadline is None else max(0.0, deadline - time.monotonic()))
            if reader.is_alive():
                raise subprocess.TimeoutExpired(self.server.proc.args, timeout or 0)
        empty = "" if self.text else b""
        out, err = results.get("out", empty), results.get("err", empty)
        for stream in (self.stdout, self.stderr):
            if stream is not None:
                stream.close()
        self.stdout = self.stderr = None
        self.wait()
        return out, err

    def wait(self, timeout: float | None = None) -> int:
        """The return code, once the child has exited (TimeoutExpired after `timeout` s)."""
        if self.returncode is None and timeout is not None:
            deadline = time.monotonic() + timeout
            while self.poll() is None:
                if time.monotonic() > deadline:
                    raise subprocess.TimeoutExpired(self.server.proc.args, timeout)
                time.sleep(0.01)
        if self.returncode is None:
            self.returncode = self.server._wait(self.pid)
        return self.returncode


# Everything the `filewright` command may import before it does any work: its app, the MCP
# server (with the SDK) and every built-in toolset.
WARM = (
    "filewright.surfaces.cli.main",
    "filewright.surfaces.cli.app",
    "filewright.surfaces.mcp.server",
    "filewright.toolsets.default",
    # what the first change of a child imports on its way (the change tools, the change
    # path, the history): ~40 ms of a forked `filewright call write`'s ~55 ms of CPU
    "filewright.toolsets.default_edits",
    "filewright.engine.pipeline",
    "filewright.engine.streamed",
    "filewright.state.history",
    "filewright.edit.suggest",
    "typer._adapters",  # (what a typer command such as `filewright undo` imports)
    "typer._click.decorators",
    "filewright.toolsets.claude.toolset",
    "filewright.toolsets.text_editor",
    "filewright.toolsets.gemini",
    "filewright.toolsets.worker",
    "filewright.toolsets.companion",
    "filewright.toolsets.memo",
    "filewright.toolsets.apply_patch",
    "filewright.toolsets.mcpfs",
    "filewright.toolsets.memory",
)
_SHARED: list[ForkServer] = []


def shared(session: Any) -> ForkServer:
    """The fork server of this test process (one per xdist worker), warmed with `WARM`:
    started on first use, closed (its children killed, itself reaped) when the pytest
    `session` ends. Modules whose children run the `filewright` command share it, so the
    SDK is imported once per worker, not once per module."""
    if not _SHARED:
        server = ForkServer(*WARM)
        _SHARED.append(server)

        def close() -> None:
            _SHARED.remove(server)
            server.close()

        session.addfinalizer(close)
    return _SHARED[0]
