"""SIGKILL through the real CLI and the real MCP server: old or new, never torn; undo works.

`filewright call` processes doing write, edit, append and undo on a multi-megabyte file are
killed with SIGKILL at seeded random moments (spread over the whole run of the command, so
kills land in start-up, the read, the computation, the temp-file write, the rename, the
history record and the ledger update). After every kill:

- the file holds exactly its old or its new content (never a mix, never missing);
- no temp file shows through any tool (listing, glob, directory view, read of its name);
- the history is consistent: undo (dry run) either offers a known previous version or
  refuses clearly, and a final chain of real `filewright undo` commands restores only
  versions the file really had.

The MCP server is killed the same way in the middle of `tools/call` requests (raw JSON-RPC
over stdio, so the kill can land at any moment of the request).

The commands and servers are forked from one warm interpreter that has imported the CLI,
the engine and the MCP server (tests/forkserver.py): each is a process of its own running
the `filewright` command's `main` with the same arguments, reading its JSON arguments from
stdin (`-`), but none pays for an interpreter start-up, so the kill delay measures the
command's real work. FILEWRIGHT_STRESS=1 raises the number of kills tenfold.
"""

from __future__ import annotations

import hashlib
import json
import random
import signal
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from forkserver import Forked, ForkServer, shared

from filewright import Workspace
from filewright.engine.undo import undo as engine_undo

from .support import assert_clean_result, stress

KILLS = 200 if stress() else 20
SERVER_KILLS = 30 if stress() else 4
NAME = "big.txt"
# What `filewright call` and `undo` import, so that the forked commands need not (the
# change tools' own modules too, which the default toolset imports on its first change:
# ~40 ms of each forked command's ~55 ms was importing them, and the kill delays, scaled
# by a command's duration, spread over that). `serve` also needs the MCP server (1.2 s
# of CPU to import): the server test forks from the test process's shared fork server.
PRELOAD = (
    "filewright.surfaces.cli.main",
    "filewright.surfaces.cli.app",
    "filewright.toolsets.default",
    "filewright.toolsets.default_edits",
    "filewright.state.history",
    "filewright.engine.pipeline",
    "filewright.engine.streamed",
    "filewright.tools.arguments",
)


@pytest.fixture(scope="module")
def forks() -> Iterator[ForkServer]:
    with ForkServer(*PRELOAD) as server:
        yield server


def _version(i: int) -> bytes:
    """A ~1 MB text, distinct per version, with lines (so edits and diffs have work)."""
    line = f"version {i:06d} " + "abcdefghij" * 7 + "\n"
    return (f"HEADER {i}\n" + line * 11_000 + f"MARK {i}\n" + line * 300).encode()


def _h(data: bytes | None) -> str:
    return "missing" if data is None else hashlib.sha256(data).hexdigest()[:12]


class Pool:
    """`filewright call` processes, each reading its JSON arguments from stdin."""

    def __init__(self, forks: ForkServer, root: Path, tool: str) -> None:
        self.forks, self.root, self.tool = forks, root, tool

    def start(self, args: dict[str, Any]) -> Forked:
        argv = ["filewright", "call", "--root", str(self.root), "--yes", self.tool, "-"]
        proc = self.forks.spawn(argv)
        assert proc.stdin is not None
        proc.stdin.write(json.dumps(args).encode())
        proc.stdin.close()
        proc.stdin = None  # so that communicate() does not flush it again
        return proc


def _kill(proc: Forked) -> bool:
    """SIGKILL; True when the process was still running (a real interruption)."""
    running = proc.poll() is None
    proc.send_signal(signal.SIGKILL)
    out, err = proc.communicate(timeout=30)
    assert b"Traceback" not in out + err, err.decode(errors="replace")
    return running


def _timed_run(pool: Pool, args: dict[str, Any]) -> float:
    """Run one call to completion; its duration calibrates the kill delays."""
    start = time.monotonic()
    proc = pool.start(args)
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, (out + err).decode(errors="replace")
    return time.monotonic() - start


def _no_temp_files_visible(root: Path) -> None:
    ws = Workspace(str(root))
    gem, te, default = ws.toolset("gemini"), ws.toolset("text_editor"), ws.toolset("default")
    temps = [p.name for p in root.iterdir() if p.name.endswith(".fwtmp")]
    for tool, args in [
        ("list_directory", {"path": str(root)}),
        ("glob", {"pattern": "**/*"}),
        ("glob", {"pattern": "**/*.fwtmp"}),
        ("glob", {"pattern": ".*"}),
        ("search_file_content", {"pattern": "HEADER"}),
    ]:
        result = gem.call(tool, args)
        shown = result.text.replace(str(args.get("pattern")), "") + json.dumps(result.data)
        assert ".fwtmp" not in shown, (tool, result.text[:500])
    view = te.call("str_replace_based_edit_tool", {"command": "view", "path": str(root)})
    assert ".fwtmp" not in view.text
    for name in temps[:3]:
        assert not default.call("read", {"path": name}).ok, f"temp file {name} readable"
        assert not default.call("write", {"path": name, "content": "x"}).ok


def _undo_offers_a_known_version(root: Path, versions: dict[str, bytes | None]) -> str:
    """Dry-run undo after a kill: a known previous version (a kill must never leave the
    history blocked as "stale" or pointing at content the file never had)."""
    ws = Workspace(str(root))
    outcome = engine_undo(ws.engine(), NAME, dry_run=True)
    if not outcome.ok:
        assert outcome.failure is not None
        assert outcome.failure.code == "no_history", outcome.failure
        return outcome.failure.code
    entries = ws.history.entries(str((root / NAME).resolve()))
    before = ws.history.before_bytes(str((root / NAME).resolve()), entries[-1])
    assert _h(before) in versions, "undo would restore content the file never had"
    return "ok"


def _final_undo_chain(forks: ForkServer, root: Path, versions: dict[str, bytes | None]) -> int:
    """Real `filewright undo` until it refuses: every restored content is a known version."""
    restored = 0
    for _ in range(12):
        undo = forks.spawn(["filewright", "undo", "--root", str(root), NAME])
        stdout, stderr = undo.communicate(timeout=120)
        assert b"Traceback" not in stdout + stderr, stderr.decode(errors="replace")
        out = json.loads(stdout)
        if not out["ok"]:
            assert out["data"].get("error") in ("stale", "no_history"), out
            break
        path = root / NAME
        current = path.read_bytes() if path.exists() else None
        assert _h(current) in versions, "undo restored content the file never had"
        restored += 1
    return restored


def _refresh_ledger(root: Path) -> None:
    """What an agent does after a failure: read the file again (the CLI's session ledger)."""
    Workspace(str(root), session="cli").toolset("default").call("read", {"path": NAME, "limit": 1})


@pytest.mark.timeout(600)
@pytest.mark.parametrize("op", ["write", "edit", "append", "undo"])
def test_sigkill_cli_at_random_moments(tmp_path: Path, op: str, forks: ForkServer) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    path = root / NAME
    rng = random.Random(f"crash-{op}")
    versions: dict[str, bytes | None] = {}
    path.write_bytes(_version(0))
    versions[_h(path.read_bytes())] = path.read_bytes()
    tool = "undo" if op == "undo" else op
    pool = Pool(forks, root, tool)
    counter = [1]

    def next_args() -> tuple[dict[str, Any], set[str]]:
        """Arguments for the next call and the contents acceptable after a kill."""
        old = path.read_bytes() if path.exists() else None
        i = counter[0]
        counter[0] += 1
        if op == "write":
            new: bytes | None = _version(i)
            args: dict[str, Any] = {"path": NAME, "content": new.decode()}
        elif op == "edit":
            assert old is not None
            mark = next(line for line in old.decode().splitlines() if line.startswith("MARK "))
            args = {"path": NAME, "old_string": mark, "new_string": f"MARK {i}\nadded {i}"}
            new = old.replace(mark.encode(), f"MARK {i}\nadded {i}".encode())
        elif op == "append":
            assert old is not None
            text = f"appended {i} " + "z" * 200_000 + "\n"
            args = {"path": NAME, "content": text}
            new = old + text.encode()
        else:  # undo: first an uninterrupted change (in process), so there is something to undo
            content = _version(i)
            ts = Workspace(str(root), session="cli").toolset("default")
            ts.call("read", {"path": NAME, "limit": 1})
            assert ts.call("write", {"path": NAME, "content": content.decode()}).ok
            versions[_h(content)] = content
            old = path.read_bytes()
            ws = Workspace(str(root))
            entries = ws.history.entries(str(path.resolve()))
            new = ws.history.before_bytes(str(path.resolve()), entries[-1])
            args = {"path": NAME}
        versions[_h(new)] = new
        return args, {_h(old), _h(new)}

    duration = min(_timed_run(pool, next_args()[0]) for _ in range(2))
    interrupted = 0
    undo_outcomes: dict[str, int] = {}
    for kill in range(KILLS):
        _refresh_ledger(root)
        args, acceptable = next_args()
        proc = pool.start(args)
        time.sleep(rng.uniform(0.0, duration * 0.9))
        interrupted += _kill(proc)
        now = path.read_bytes() if path.exists() else None
        assert _h(now) in acceptable, f"kill {kill} ({op}): torn or foreign content {_h(now)}"
        _no_temp_files_visible(root)
        code = _undo_offers_a_known_version(root, versions)
        undo_outcomes[code] = undo_outcomes.get(code, 0) + 1
    # Most kills must have interrupted a running command, or the test proves nothing.
    assert interrupted >= KILLS // 2, f"only {interrupted} of {KILLS} kills hit a running command"
    _refresh_ledger(root)
    _final_undo_chain(forks, root, versions)
    print(
        f"{op}: {interrupted}/{KILLS} kills interrupted; dry-run undo after kills: {undo_outcomes}"
    )


# -- the MCP server killed mid-call ------------------------------------------------------------


class RawServer:
    """`filewright serve` over stdio, spoken to as raw JSON-RPC (so it can be killed at will)."""

    def __init__(self, forks: ForkServer, root: Path) -> None:
        self.proc = forks.spawn(["filewright", "serve", "--root", str(root), "--yes"], text=True)
        self.send(
            {
                "jsonrpc": "2.0",
                "id": 0,
                "method": "initialize",
                "params": {
                    "protocolVersion": "2025-06-18",
                    "capabilities": {},
                    "clientInfo": {"name": "crash-test", "version": "1"},
                },
            }
        )
        assert self.proc.stdout is not None
        reply = json.loads(self.proc.stdout.readline())
        assert "result" in reply, reply
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def send(self, message: dict[str, Any]) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps(message) + "\n")
        self.proc.stdin.flush()

    def call(self, request_id: int, tool: str, args: dict[str, Any]) -> None:
        self.send(
            {
                "jsonrpc": "2.0",
                "id": request_id,
                "method": "tools/call",
                "params": {"name": tool, "arguments": args},
            }
        )

    def reply(self) -> dict[str, Any]:
        assert self.proc.stdout is not None
        return json.loads(self.proc.stdout.readline())

    def kill(self) -> None:
        self.proc.send_signal(signal.SIGKILL)
        _, err = self.proc.communicate(timeout=30)
        assert "Traceback" not in err, err


@pytest.mark.timeout(300)
def test_sigkill_mcp_server_mid_call(tmp_path: Path, request: pytest.FixtureRequest) -> None:
    # The test process's shared fork server (tests/forkserver.py `shared`): it has imported
    # the MCP server already, which a fork server of this module's own would import again
    # (~0.8 s of CPU).
    _sigkill_mcp_server_mid_call(tmp_path, shared(request.session))


def _sigkill_mcp_server_mid_call(tmp_path: Path, forks: ForkServer) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    path = root / NAME
    path.write_bytes(_version(0))
    versions: dict[str, bytes | None] = {_h(path.read_bytes()): path.read_bytes()}
    rng = random.Random("server-crash")
    # Calibrate: how long does one big write take inside a running server?
    server = RawServer(forks, root)
    start = time.monotonic()
    server.call(1, "write", {"path": NAME, "content": _version(1).decode()})
    assert not server.reply()["result"]["isError"]
    duration = time.monotonic() - start
    versions[_h(_version(1))] = _version(1)
    server.kill()
    for kill in range(SERVER_KILLS):
        server = RawServer(forks, root)
        old = path.read_bytes()
        # a few complete calls first, then one that is killed
        for j, (tool, args) in enumerate(
            [
                ("append", {"path": NAME, "content": f"line {kill}\n"}),
                (
                    "edit",
                    {"path": NAME, "old_string": f"line {kill}\n", "new_string": f"LINE {kill}\n"},
                ),
            ]
        ):
            server.call(10 + j, tool, args)
            reply = server.reply()
            assert not reply["result"]["isError"], reply
            old = path.read_bytes()
            versions[_h(old)] = old
        new = _version(100 + kill)
        versions[_h(new)] = new
        op = rng.choice(["write", "undo"])
        if op == "undo":  # what undo gives, read before the call can change the history
            ws = Workspace(str(root))
            entries = ws.history.entries(str(path.resolve()))
            undone = ws.history.before_bytes(str(path.resolve()), entries[-1])
            acceptable = {_h(old), _h(undone)}
        else:
            acceptable = {_h(old), _h(new)}
        server.call(
            99, op, {"path": NAME, "content": new.decode()} if op == "write" else {"path": NAME}
        )
        time.sleep(rng.uniform(0.0, duration * 1.2))
        server.kill()
        now = path.read_bytes() if path.exists() else None
        assert _h(now) in acceptable, f"server kill {kill}: torn or foreign content"
        if now is not None:
            versions[_h(now)] = now
        _no_temp_files_visible(root)
        _undo_offers_a_known_version(root, versions)
    # A fresh server still works on the file, and undo through it restores a known version.
    server = RawServer(forks, root)
    server.call(1, "undo", {"path": NAME})
    reply = server.reply()
    assert "result" in reply, reply
    if not reply["result"]["isError"]:
        assert _h(path.read_bytes()) in versions
    server.call(2, "read", {"path": NAME, "limit": 1})
    assert not server.reply()["result"]["isError"]
    server.kill()
    assert_clean_result(
        Workspace(str(root)).toolset("default").call("read", {"path": NAME, "limit": 2})
    )
