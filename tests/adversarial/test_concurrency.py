"""Concurrency: CLI processes, Python processes and MCP servers on the same files at once.

The CLI commands, Python workers and MCP servers that race are processes forked from one
interpreter that has imported filewright and the MCP SDK (tests/forkserver.py; the
`filewright` command's `main` with the same arguments; the official client talks to the
servers over their stdin/stdout through tests/forked_mcp.py), so that they race on the
files rather than on interpreter start-ups.

- No update is lost: every writer appends unique lines or edits lines of its own; at the
  end every successful append is there exactly once and every line holds its writer's last
  value (each change is a read-modify-write under the file's cross-process lock).
- Optimistic locking holds across processes: of the writers that send the same
  `expected_hash`, at most one succeeds; the rest are refused as stale.
- Stale edits are refused: read, then an outside change, then an edit on what was read
  (claude, text_editor, default with `expected_hash`, memo with `last_read_hash`; through
  the CLI and through two MCP servers).
- No deadlock: every process has a deadline (subprocess timeouts, anyio.fail_after); the
  bound is 120 s for the whole mix, far above what it needs.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import anyio
import pytest
from forked_mcp import forked_stdio
from forkserver import ForkServer, shared
from mcp import Client

from filewright import Workspace

from .support import cli, stress

DEADLINE = 120.0
ROUNDS = 40 if stress() else 8


@pytest.fixture(scope="module")
def forks(request: pytest.FixtureRequest) -> ForkServer:
    return shared(request.session)


PY_WORKER = r"""
import json, sys
from filewright import Workspace
root, name, worker, rounds, mode = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5]
ts = Workspace(root).toolset("default")
results = []
for i in range(rounds):
    if mode == "append":
        r = ts.call("append", {"path": name, "content": f"{worker} line {i}\n"})
    else:
        r = ts.call("edit", {"path": name, "old_string": f"slot {worker}: {i}\n",
                             "new_string": f"slot {worker}: {i + 1}\n"})
    results.append([r.ok, r.data.get("error")])
print(json.dumps(results))
"""


def _cli_worker(
    forks: ForkServer, root: Path, name: str, worker: str, rounds: int, mode: str, out: list[Any]
) -> None:
    results = []
    for i in range(rounds):
        if mode == "append":
            args = {"path": name, "content": f"{worker} line {i}\n"}
        else:
            args = {
                "path": name,
                "old_string": f"slot {worker}: {i}\n",
                "new_string": f"slot {worker}: {i + 1}\n",
            }
        argv = ["filewright", "call", "--root", str(root), mode, json.dumps(args)]
        stdout, stderr = forks.spawn(argv, text=True).communicate(timeout=DEADLINE)
        assert "Traceback" not in stdout + stderr, stderr
        reply = json.loads(stdout)
        results.append([reply["ok"], reply["data"].get("error")])
    out.append((worker, results))


def _run_mix(
    forks: ForkServer,
    root: Path,
    name: str,
    mode: str,
    cli_workers: list[str],
    py_workers: list[str],
) -> dict[str, Any]:
    """CLI workers (threads running one command after another) and Python processes at once."""
    collected: list[Any] = []
    threads = [
        threading.Thread(target=_cli_worker, args=(forks, root, name, w, ROUNDS, mode, collected))
        for w in cli_workers
    ]
    procs = [
        forks.spawn(["worker", str(root), name, w, str(ROUNDS * 3), mode], PY_WORKER, text=True)
        for w in py_workers
    ]
    for t in threads:
        t.start()
    for w, proc in zip(py_workers, procs, strict=True):
        out, err = proc.communicate(timeout=DEADLINE)
        assert proc.returncode == 0 and "Traceback" not in err, err
        collected.append((w, json.loads(out)))
    for t in threads:
        t.join(DEADLINE)
        assert not t.is_alive(), "a CLI worker did not finish in time (deadlock?)"
    return dict(collected)


@pytest.mark.timeout(300)
def test_concurrent_appends_from_cli_and_python_lose_nothing(
    tmp_path: Path, forks: ForkServer
) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    (root / "log.txt").write_text("start\n", encoding="utf-8")
    results = _run_mix(forks, root, "log.txt", "append", ["c1", "c2", "c3"], ["p1", "p2"])
    lines = (root / "log.txt").read_text(encoding="utf-8").splitlines()
    assert lines[0] == "start"
    expected = []
    for worker, outcome in results.items():
        for i, (ok, error) in enumerate(outcome):
            assert ok, f"{worker} append {i} failed: {error}"
            expected.append(f"{worker} line {i}")
    assert sorted(lines[1:]) == sorted(expected), "an append was lost or duplicated"
    # Each worker's own lines are in its order.
    for worker in results:
        mine = [line for line in lines if line.startswith(f"{worker} ")]
        assert mine == [f"{worker} line {i}" for i in range(len(mine))]


@pytest.mark.timeout(300)
def test_concurrent_edits_of_distinct_lines_lose_nothing(tmp_path: Path, forks: ForkServer) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    workers_cli, workers_py = ["c1", "c2"], ["p1", "p2"]
    slots = [f"slot {w}: 0\n" for w in workers_cli + workers_py]
    (root / "slots.txt").write_text("header\n" + "".join(slots) + "footer\n", encoding="utf-8")
    results = _run_mix(forks, root, "slots.txt", "edit", workers_cli, workers_py)
    text = (root / "slots.txt").read_text(encoding="utf-8")
    for worker, outcome in results.items():
        assert all(ok for ok, _ in outcome), f"{worker}: {outcome}"
        assert f"slot {worker}: {len(outcome)}\n" in text, (worker, text)
    assert text.startswith("header\n") and text.endswith("footer\n")
    # History recorded every change (capped at 10) and undo restores the previous state.
    ws = Workspace(str(root))
    assert len(ws.history.entries(str((root / "slots.txt").resolve()))) == 10
    before = text
    undone = ws.toolset("default").call("undo", {"path": "slots.txt"})
    assert undone.ok, undone.text
    after = (root / "slots.txt").read_text(encoding="utf-8")
    assert after != before and after.count("slot ") == 4


OPTIMISTIC_WORKER = r"""
import json, sys
from filewright import Workspace
root, content, expected = sys.argv[1], sys.argv[2], sys.argv[3]
sys.stdin.readline()  # all start together
r = Workspace(root).toolset("default").call(
    "write", {"path": "doc.txt", "content": content, "expected_hash": expected})
print(json.dumps([r.ok, r.data.get("error")]))
"""


@pytest.mark.timeout(300)
def test_optimistic_lock_lets_one_writer_win(tmp_path: Path, forks: ForkServer) -> None:
    """Writers that all read the same version and send its hash: exactly one succeeds per
    round; the others are refused as stale (no blind overwrite of the winner)."""
    root = tmp_path / "ws"
    root.mkdir()
    (root / "doc.txt").write_text("v0\n", encoding="utf-8")
    for rnd in range(3 if not stress() else 20):
        read = Workspace(str(root)).toolset("default").call("read", {"path": "doc.txt"})
        expected = read.data["hash"]
        contents = [f"round {rnd} by w{i}\n" for i in range(4)]
        procs = [
            forks.spawn(["worker", str(root), content, expected], OPTIMISTIC_WORKER, text=True)
            for content in contents
        ]
        outcomes = [p.communicate("go\n", timeout=DEADLINE) for p in procs]
        results = [json.loads(out) for out, _ in outcomes]
        winners = [i for i, (ok, _) in enumerate(results) if ok]
        assert len(winners) == 1, results
        assert all(error == "stale" for ok, error in results if not ok), results
        assert (root / "doc.txt").read_text(encoding="utf-8") == contents[winners[0]]


# -- stale edits ---------------------------------------------------------------------------------


def _outside_change(path: Path, text: str) -> None:
    """Another program (not filewright) changes the file."""
    path.write_text(text, encoding="utf-8")


# (toolset, read tool, read args, change tool, change args, whole-file write?)
# "ABS" stands for the file's absolute path. A whole-file write based on an old read must be
# refused; an edit may instead apply to the current content, as long as the outside change
# survives. Not listed: companion `write` and worker `write_file`, which overwrite by design
# (their seeds' semantics; see SECURITY.md).
STALE_CASES: list[tuple[str, str, dict[str, Any], str, dict[str, Any], bool]] = [
    (
        "claude",
        "Read",
        {"file_path": "ABS"},
        "Edit",
        {"file_path": "ABS", "old_string": "one", "new_string": "ONE"},
        False,
    ),
    (
        "claude",
        "Read",
        {"file_path": "ABS"},
        "Write",
        {"file_path": "ABS", "content": "all new\n"},
        True,
    ),
    (
        "claude",
        "Read",
        {"file_path": "ABS"},
        "MultiEdit",
        {"file_path": "ABS", "edits": [{"old_string": "one", "new_string": "ONE"}]},
        False,
    ),
    (
        "default",
        "read",
        {"path": "f.txt"},
        "write",
        {"path": "f.txt", "content": "all new\n"},
        True,
    ),
    (
        "default",
        "read",
        {"path": "f.txt"},
        "edit",
        {"path": "f.txt", "old_string": "one", "new_string": "ONE"},
        False,
    ),
    (
        "gemini",
        "read_file",
        {"path": "f.txt"},
        "write_file",
        {"file_path": "ABS", "content": "all new\n"},
        True,
    ),
    (
        "gemini",
        "read_file",
        {"path": "f.txt"},
        "replace",
        {"file_path": "ABS", "old_string": "one", "new_string": "ONE"},
        False,
    ),
    (
        "text_editor",
        "str_replace_based_edit_tool",
        {"command": "view", "path": "ABS"},
        "str_replace_based_edit_tool",
        {"command": "str_replace", "path": "ABS", "old_str": "one", "new_str": "ONE"},
        False,
    ),
    (
        "text_editor",
        "str_replace_based_edit_tool",
        {"command": "view", "path": "ABS"},
        "str_replace_based_edit_tool",
        {"command": "insert", "path": "ABS", "insert_line": 1, "new_str": "ins"},
        False,
    ),
    (
        "companion",
        "read",
        {"path": "f.txt"},
        "edit",
        {"path": "f.txt", "oldText": "one", "newText": "ONE"},
        False,
    ),
]


@pytest.mark.parametrize("case", STALE_CASES, ids=[f"{c[0]}.{c[3]}" for c in STALE_CASES])
def test_stale_changes_never_lose_an_outside_change(tmp_path: Path, case: tuple[Any, ...]) -> None:
    ts_name, read_tool, read_args, tool, args, whole = case
    root = tmp_path / "ws"
    root.mkdir()
    f = root / "f.txt"
    f.write_text("one\ntwo\n", encoding="utf-8")

    def fix(d: dict[str, Any]) -> dict[str, Any]:
        return {k: (str(f) if v == "ABS" else v) for k, v in d.items()}

    ts = Workspace(str(root), confirm=True).toolset(ts_name)
    assert ts.call(read_tool, fix(read_args)).ok
    _outside_change(f, "one\ntwo\nchanged outside\n")
    result = ts.call(tool, fix(args))
    now = f.read_text(encoding="utf-8")
    if whole:
        assert not result.ok, f"{ts_name}.{tool} overwrote an outside change: {result.text}"
        assert now == "one\ntwo\nchanged outside\n"
    else:
        assert "changed outside" in now, f"{ts_name}.{tool} lost the outside change: {now!r}"


def test_optimistic_hashes_refuse_stale_changes(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    f = root / "f.txt"
    f.write_text("one\ntwo\n", encoding="utf-8")
    (root / "MEMORY.md").write_text("## a\nx\n", encoding="utf-8")
    digest = Workspace(str(root)).toolset("default").call("read", {"path": "f.txt"}).data["hash"]
    _outside_change(f, "one\ntwo\nthree\n")
    for tool, args in [
        (
            "edit",
            {"path": "f.txt", "old_string": "two", "new_string": "2", "expected_hash": digest},
        ),
        ("write", {"path": "f.txt", "content": "x\n", "expected_hash": digest}),
    ]:
        result = (
            Workspace(str(root)).toolset("default").call(tool, args)
        )  # a fresh agent, no ledger
        assert not result.ok and result.data["error"] == "stale", result.text
    assert f.read_text(encoding="utf-8") == "one\ntwo\nthree\n"
    memo = Workspace(str(root)).toolset("memo")
    memo_hash = memo.call("memo_read", {}).data["hash"]
    _outside_change(root / "MEMORY.md", "## a\ny\n")
    result = (
        Workspace(str(root))
        .toolset("memo")
        .call(
            "memo_replace_literal", {"old_text": "y", "new_text": "z", "last_read_hash": memo_hash}
        )
    )
    assert not result.ok
    assert (root / "MEMORY.md").read_text(encoding="utf-8") == "## a\ny\n"


def test_stale_edit_refused_through_the_cli(tmp_path: Path) -> None:
    """`filewright call` processes share a read ledger: Read in one, an outside change, Edit
    in another: refused, and the outside change survives."""
    root = tmp_path / "ws"
    root.mkdir()
    f = root / "f.txt"
    f.write_text("one\ntwo\n", encoding="utf-8")
    read = cli(
        [
            "call",
            "--root",
            str(root),
            "--toolset",
            "claude",
            "Read",
            json.dumps({"file_path": str(f)}),
        ]
    )
    assert json.loads(read.stdout)["ok"]
    _outside_change(f, "one\ntwo\nthree\n")
    edit = cli(
        [
            "call",
            "--root",
            str(root),
            "--toolset",
            "claude",
            "Edit",
            json.dumps({"file_path": str(f), "old_string": "two", "new_string": "TWO"}),
        ]
    )
    assert edit.returncode == 1, edit.stdout
    assert f.read_text(encoding="utf-8") == "one\ntwo\nthree\n"


def _stdio(forks: ForkServer, root: Path, toolset: str) -> Any:
    argv = ["filewright", "serve", "--toolset", toolset, "--root", str(root), "--yes"]
    return forked_stdio(forks, argv, cwd=root)


@pytest.mark.timeout(300)
def test_several_mcp_servers_on_one_root(tmp_path: Path, forks: ForkServer) -> None:
    """Three `filewright serve` processes, one client each, at once: unique appends and edits
    of distinct lines all land; a stale edit (read in one server, write through another,
    edit in the first) is refused; everything finishes within the deadline."""
    root = tmp_path / "ws"
    root.mkdir()
    (root / "log.txt").write_text("start\n", encoding="utf-8")
    (root / "slots.txt").write_text("".join(f"slot m{i}: 0\n" for i in range(3)), encoding="utf-8")
    (root / "shared.txt").write_text("alpha\nbeta\n", encoding="utf-8")
    rounds = ROUNDS * 2
    failures: list[str] = []

    async def client_work(i: int) -> None:
        async with Client(_stdio(forks, root, "default")) as client:
            for j in range(rounds):
                got = await client.call_tool(
                    "append", {"path": "log.txt", "content": f"m{i} line {j}\n"}
                )
                if got.is_error:
                    failures.append(f"m{i} append {j}: {got.content}")
                got = await client.call_tool(
                    "edit",
                    {
                        "path": "slots.txt",
                        "old_string": f"slot m{i}: {j}\n",
                        "new_string": f"slot m{i}: {j + 1}\n",
                    },
                )
                if got.is_error:
                    failures.append(f"m{i} edit {j}: {got.content}")

    async def stale_scenario() -> None:
        async with (
            Client(_stdio(forks, root, "claude")) as first,
            Client(_stdio(forks, root, "claude")) as second,
        ):
            shared = str(root / "shared.txt")
            assert not (await first.call_tool("Read", {"file_path": shared})).is_error
            assert not (await second.call_tool("Read", {"file_path": shared})).is_error
            written = await second.call_tool(
                "Edit", {"file_path": shared, "old_string": "beta", "new_string": "BETA"}
            )
            assert not written.is_error, written.content
            stale = await first.call_tool(
                "Edit", {"file_path": shared, "old_string": "alpha", "new_string": "ALPHA"}
            )
            assert stale.is_error, "an edit based on an old read overwrote another server's change"

    async def main() -> None:
        with anyio.fail_after(DEADLINE):
            async with anyio.create_task_group() as tg:
                for i in range(3):
                    tg.start_soon(client_work, i)
                tg.start_soon(stale_scenario)

    anyio.run(main)
    assert not failures, failures
    lines = (root / "log.txt").read_text(encoding="utf-8").splitlines()
    assert sorted(lines[1:]) == sorted(f"m{i} line {j}" for i in range(3) for j in range(rounds))
    slots = (root / "slots.txt").read_text(encoding="utf-8")
    assert slots == "".join(f"slot m{i}: {rounds}\n" for i in range(3))
    assert (root / "shared.txt").read_text(encoding="utf-8") == "alpha\nBETA\n"


@pytest.mark.timeout(300)
def test_lock_holder_killed_does_not_deadlock(tmp_path: Path) -> None:
    """A process killed while holding a file's lock (flock dies with it): the next change
    proceeds instead of waiting for a lock nobody will release. (With FILEWRIGHT_STRESS=1,
    also: while the holder lives, a change waits out the 30 s lock timeout and reports
    "busy" rather than hanging.)"""
    root = tmp_path / "ws"
    root.mkdir()
    (root / "f.txt").write_text("x\n", encoding="utf-8")
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys, time\nfrom filewright.state.locks import file_lock\n"
            f"lock = file_lock(__import__('pathlib').Path({str(root / '.filewright')!r}), "
            f"{str((root / 'f.txt').resolve())!r})\nlock.__enter__()\nprint('locked', flush=True)\ntime.sleep(600)\n",
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "locked\n"
        if not stress():
            return
        blocked = cli(
            [
                "call",
                "--root",
                str(root),
                "append",
                json.dumps({"path": "f.txt", "content": "y\n"}),
            ],
            timeout=DEADLINE,
        )
        # While the holder lives, the change waits and then reports "busy" (30 s lock timeout).
        assert not json.loads(blocked.stdout)["ok"]
        assert json.loads(blocked.stdout)["data"]["error"] == "busy"
    finally:
        holder.kill()
        holder.wait()
        _after_holder_died(root)


def _after_holder_died(root: Path) -> None:
    after = cli(
        ["call", "--root", str(root), "append", json.dumps({"path": "f.txt", "content": "z\n"})],
        timeout=DEADLINE,
    )
    assert json.loads(after.stdout)["ok"], after.stdout
    assert (root / "f.txt").read_text(encoding="utf-8") == "x\nz\n"
    assert os.path.isdir(root / ".filewright")
