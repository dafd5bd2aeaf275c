"""kill -9 during move, delete and mkdir (and their undo) never loses a file, and undo
afterwards always brings the tree back.

A child process loops over one operation and its undo through the engine (`move` a file
back and forth, `delete` and undo, `mkdir` of three levels and undo) and is killed with
SIGKILL after a random (seeded) delay. After every kill: the file is in exactly one place
with its content; then undo, repeated until there is nothing left to undo, never fails
unexpectedly and leaves the file whole (and no directory of the mkdir behind).
Children are forked from one warm interpreter that has imported filewright
(tests/forkserver.py), so none pays for a start-up, and wait for a "go" line.
"""

from __future__ import annotations

import random
import signal
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from forkserver import Forked, ForkServer

from filewright import Workspace
from filewright.engine.undo import undo

CONTENT = "precious\n" * 2000
KILLS = 30

CHILD = """
import itertools, sys
from filewright import Workspace
from filewright.engine import fileops
from filewright.engine.undo import undo
engine = Workspace(sys.argv[1]).engine()
op = sys.argv[2]
print("ready", flush=True)
if sys.stdin.readline() != "go\\n":
    sys.exit(0)
for i in itertools.count():
    if op == "move":
        a, b = ("a.txt", "b.txt") if i % 2 == 0 else ("b.txt", "a.txt")
        fileops.move(engine, a, b)
    elif op == "delete":
        fileops.delete(engine, "a.txt") if i % 2 == 0 else undo(engine, "a.txt")
    else:
        fileops.mkdir(engine, "d/e/f") if i % 2 == 0 else undo(engine, "d/e/f")
"""


@pytest.fixture(scope="module")
def forks() -> Iterator[ForkServer]:
    with ForkServer("filewright", "filewright.engine.fileops", "filewright.engine.undo") as server:
        yield server


def kill(child: Forked) -> None:
    child.send_signal(signal.SIGKILL)
    child.communicate(timeout=30)
    assert child.returncode == -signal.SIGKILL, child.returncode


def whole(root: Path) -> list[str]:
    """The names holding the file; each must hold all of it."""
    found = [n for n in ("a.txt", "b.txt") if (root / n).exists()]
    for name in found:
        assert (root / name).read_text() == CONTENT, name
    return found


def recover(root: Path, op: str) -> None:
    """Undo until nothing is left to undo; every answer is a success or 'no history'."""
    engine = Workspace(str(root)).engine()
    paths = {"move": ["a.txt", "b.txt"], "delete": ["a.txt"], "mkdir": ["d/e/f"]}[op]
    for _ in range(40):
        progressed = False
        for path in paths:
            outcome = undo(engine, path)
            if outcome.ok:
                progressed = True
            else:
                assert outcome.failure is not None
                assert outcome.failure.code in ("no_history", "not_found"), outcome.failure
        if op != "mkdir":
            assert len(whole(root)) == 1
        if not progressed:
            return
    pytest.fail("undo never ran out of history")


@pytest.mark.parametrize("op", ["move", "delete", "mkdir"])
def test_sigkill_during_file_management_loses_nothing(
    tmp_path: Path, op: str, forks: ForkServer
) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    (root / "a.txt").write_text(CONTENT)
    rng = random.Random(f"fileops-{op}")
    for k in range(KILLS):
        child = forks.spawn(["child", str(root), op], CHILD, text=True)
        assert child.stdout is not None and child.stdin is not None
        line = child.stdout.readline()
        assert line == "ready\n", child.communicate(timeout=30)[1]
        child.stdin.write("go\n")
        child.stdin.flush()
        time.sleep(rng.uniform(0.005, 0.08))
        kill(child)
        if op == "delete":
            assert len(whole(root)) <= 1
        elif op == "move":
            assert len(whole(root)) == 1, f"kill {k}"
        recover(root, op)
        if op == "mkdir":
            assert not (root / "d").exists(), f"kill {k}"
        else:
            assert len(whole(root)) == 1
