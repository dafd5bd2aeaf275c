"""The engine's durable edit in process, before/after: the default toolset's `edit` of a
40-line file (toggling one word, as bench/surfaces/run.py does), in this source tree and
in a baseline tree, alternating in rounds (issue 32).

Each tree's edits run hot (after a warm-up) in a fresh interpreter per tree and round:
the median per call of wall time and of the process's CPU time (`time.process_time`:
a busy machine and a busy disk disturb it far less than wall time; the fsyncs' waits are
not in it). With `--syscalls`, also the syscalls of one edit per tree as strace counts
them (all of them, and the opens + stats of tests/test_syscalls.py); with
`--instructions`, the user-space instructions per edit by valgrind (not disturbed by
load at all).

    uv run python bench/surfaces/engine_edit.py --baseline DIR [--calls 2000] [--rounds 5]
    mkdir /tmp/base && git archive main src | tar -x -C /tmp/base    # a baseline tree
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from instructions import instructions_per_call

HERE = Path(__file__).resolve().parents[2]

# One interpreter: the tree's `src` first on the path, the file in a temporary root, the
# edits timed call by call; prints [wall median, cpu median] (seconds). With a third
# argument, strace's marks around that many edits instead (`os.write(1, b"")` before,
# `os.getppid()` after).
CHILD = r"""
import json, os, statistics, sys, tempfile, time
sys.path.insert(0, os.path.join(sys.argv[1], "src"))
from filewright import Workspace
calls = int(sys.argv[2])
root = tempfile.mkdtemp(prefix="fw-engine-edit-")
with open(os.path.join(root, "small.txt"), "w", encoding="utf-8") as f:
    f.write("".join(f"line {i}: the quick brown fox jumps over the lazy dog\n" for i in range(1, 41)))
tools = Workspace(root).toolset("default")
words = ("fox", "cat")
args = [{"path": "small.txt", "old_string": "line 7: the quick brown " + words[i],
         "new_string": "line 7: the quick brown " + words[1 - i]} for i in (0, 1)]
assert tools.call("read", {"path": "small.txt"}).ok
for i in range(100):
    assert tools.call("edit", args[i % 2]).ok
if len(sys.argv) > 3:
    os.write(1, b"")
    for i in range(calls):
        tools.call("edit", args[i % 2])
    os.getppid()
    sys.exit(0)
wall, cpu = [], []
for i in range(calls):
    w, c = time.perf_counter(), time.process_time()
    tools.call("edit", args[i % 2])
    cpu.append(time.process_time() - c)
    wall.append(time.perf_counter() - w)
print(json.dumps([statistics.median(wall), statistics.median(cpu)]))
"""

OPENS_AND_STATS = ("openat", "open", "newfstatat", "fstat", "statx", "stat", "lstat")


def run_tree(tree: Path, calls: int) -> list[float]:
    argv = [sys.executable, "-c", CHILD, str(tree), str(calls)]
    proc = subprocess.run(argv, capture_output=True, text=True, check=True)
    return json.loads(proc.stdout)  # type: ignore[no-any-return]


def syscalls(tree: Path) -> tuple[int, int] | None:
    """(all syscalls, opens + stats) of one edit under strace, or None without strace."""
    if shutil.which("strace") is None:
        return None
    with tempfile.TemporaryDirectory() as tmp:
        log = Path(tmp) / "strace.txt"
        argv = ["strace", "-f", "-o", str(log), sys.executable, "-c", CHILD, str(tree), "1", "x"]
        subprocess.run(argv, capture_output=True, check=True)
        calls, on = [], False
        for line in log.read_text(encoding="utf-8").splitlines():
            body = line.split(None, 1)[1] if " " in line else line
            if body.startswith('write(1, "", 0)'):
                on = True
            elif body.startswith("getppid("):
                on = False
            elif on and not body.startswith(("<...", "+++", "---")):
                calls.append(body.split("(", 1)[0])
    return len(calls), sum(c in OPENS_AND_STATS for c in calls)


def instructions(tree: Path, edits: int = 300) -> int | None:
    """User-space instructions per edit (valgrind's count of `edits` + 50 timed edits, less
    that of 50), or None without valgrind. Deterministic: load and the disk change it not
    (the kernel's share of the syscalls is not in it: see `--syscalls`)."""
    return instructions_per_call(lambda n: [CHILD, str(tree), str(n)], 50, edits + 50)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--baseline", type=Path, required=True, help="a filewright source tree")
    parser.add_argument("--calls", type=int, default=2000, help="timed edits per round")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--syscalls", action="store_true", help="count with strace too")
    parser.add_argument("--instructions", action="store_true", help="count with valgrind too")
    args = parser.parse_args()
    trees = {"baseline": args.baseline.resolve(), "this tree": HERE}
    got: dict[str, list[list[float]]] = {t: [] for t in trees}
    for _ in range(args.rounds):
        for label, tree in trees.items():
            got[label].append(run_tree(tree, args.calls))
    load = os.getloadavg()[0]
    print(f"Engine edit in process, hot, per call ({args.rounds} rounds of {args.calls} "
          f"edits, trees alternating); load average {load:.1f}")  # fmt: skip
    print(f"{'':<22}{'baseline':>10}{'this tree':>11}{'ratio':>8}")
    for i, what in ((1, "CPU"), (0, "wall")):
        for how, pick in (("best", min), ("median", statistics.median)):
            b, a = (pick(r[i] for r in got[t]) * 1e3 for t in trees)
            print(f"{what + ', ' + how + ' round':<22}{b:>7.3f} ms{a:>8.3f} ms{a / b:>7.2f}×")
    if args.syscalls:
        counts = {label: syscalls(tree) for label, tree in trees.items()}
        b, a = counts["baseline"], counts["this tree"]
        if a is not None and b is not None:
            print(f"{'syscalls per edit':<22}{b[0]:>10}{a[0]:>11}")
            print(f"{'  opens + stats':<22}{b[1]:>10}{a[1]:>11}")
    if args.instructions:
        got_i = {label: instructions(tree) for label, tree in trees.items()}
        bi, ai = got_i["baseline"], got_i["this tree"]
        if ai is not None and bi is not None:
            print(f"{'instructions per edit':<22}{bi:>10,}{ai:>11,}{ai / bi:>7.2f}×  (user space)")


if __name__ == "__main__":
    main()
