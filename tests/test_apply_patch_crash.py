"""kill -9 while a multi-file patch is being committed: every file is whole (its old or
its new content, never a mix), and every file that holds its new content has its history
entry, so `undo` can put it back. Through the real `filewright call` command."""

from __future__ import annotations

import hashlib
import json
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

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


def test_killed_commit_leaves_whole_files_each_undoable(tmp_path: Path) -> None:
    rng = random.Random(20)
    args = [str(EXE), "call", "--root", str(tmp_path), "--toolset", "apply_patch",
            "apply_patch", json.dumps({"input": PATCH})]  # fmt: skip
    outcomes = set()
    for _ in range(KILLS):
        for name in FILES:
            (tmp_path / name).write_text(OLD[name])
        state = tmp_path / ".filewright"
        if state.exists():
            subprocess.run(["rm", "-rf", str(state)], check=True)
        proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(rng.uniform(0.05, 0.6))
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        ws = Workspace(str(tmp_path))
        done = []
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
    print("files with their new content after each kill:", sorted(outcomes))
    assert outcomes & {0, len(FILES)}, outcomes  # the kills landed before and after
