"""kill -9 while a multi-file patch is being committed: every file is whole (its old or
its new content, never a mix), and every file that holds its new content has its history
entry, so `undo` can put it back. Through the `filewright call` command: its `main`, in
processes forked from one warm interpreter that has imported it (tests/forkserver.py), so
that the kills spread over the command's work rather than over interpreter start-ups."""

from __future__ import annotations

import hashlib
import json
import random
import shutil
import signal
import sys
import time
from pathlib import Path

from forkserver import ForkServer

from filewright import Workspace

EXE = Path(sys.executable).parent / "filewright"
FILES = ("one.txt", "two.txt", "three.txt")
OLD = {name: "".join(f"{name} line {i}\n" for i in range(20_000)) for name in FILES}
KILLS = 24


def new_text(name: str) -> str:
    return OLD[name].replace(f"{name} line 10\n", f"{name} line ten\n")


PATCH = "\n".join(
    ["*** Begin Patch"]
    + [
        line
        for name in FILES
        for line in (f"*** Update File: {name}", f"-{name} line 10", f"+{name} line ten")
    ]
    + ["*** End Patch"]
)


def reset(root: Path) -> None:
    for name in FILES:
        (root / name).write_text(OLD[name])
    shutil.rmtree(root / ".filewright", ignore_errors=True)


def test_killed_commit_leaves_whole_files_each_undoable(tmp_path: Path) -> None:
    rng = random.Random(20)
    args = [str(EXE), "call", "--root", str(tmp_path), "--toolset", "apply_patch",
            "apply_patch", json.dumps({"input": PATCH})]  # fmt: skip
    outcomes = set()
    # (and what a patch's application imports on its way: its kill delays scale with
    # the command's duration)
    preload = ("filewright.toolsets.apply_patch", "filewright.edit.suggest")
    with ForkServer("filewright.surfaces.cli.main", *preload) as forks:
        # One uninterrupted call: it works, and its duration scales the kill delays so that
        # kills land from the command's start to a little after its end.
        reset(tmp_path)
        started = time.monotonic()
        out, err = forks.spawn(args).communicate(timeout=60)
        duration = time.monotonic() - started
        assert json.loads(out)["ok"] is True, err
        assert all((tmp_path / name).read_text() == new_text(name) for name in FILES)
        for _ in range(KILLS):
            reset(tmp_path)
            proc = forks.spawn(args)
            time.sleep(rng.uniform(0.0, 1.2) * duration)
            proc.send_signal(signal.SIGKILL)
            proc.communicate(timeout=30)
            _check(tmp_path, outcomes)
    print("files with their new content after each kill:", sorted(outcomes))
    assert outcomes & {0, len(FILES)}, outcomes  # the kills landed before and after


def _check(tmp_path: Path, outcomes: set[int]) -> None:
    """Every file whole; each new one has its history entry and undo brings it back."""
    ws = Workspace(str(tmp_path))
    done: list[str] = []
    for name in FILES:
        text = (tmp_path / name).read_text()
        assert text in (OLD[name], new_text(name)), name
        if text == new_text(name):
            done.append(name)
            entries = ws.history.entries(str((tmp_path / name).resolve()))
            digest = hashlib.sha256(text.encode()).hexdigest()
            assert entries and entries[-1].hash_after == digest, name
    for name in done:
        assert ws.toolset("default").call("undo", {"path": name}).ok
        assert (tmp_path / name).read_text() == OLD[name]
    outcomes.add(len(done))
