"""The engine's read in process, before/after: a toolset's read of a 40-line file, in this
source tree and in a baseline tree, alternating in rounds (issue 32).

Each toolset's read tool (`default` read, `claude` Read, `mcpfs` read_text_file,
`gemini` read_file, `text_editor` view) reads the same 40-line file as bench/surfaces/run.py,
hot (after a warm-up), in a fresh interpreter per tree and round: the median per call of
wall time and of the process's CPU time (which a busy machine disturbs far less). With
`--instructions`, also the user-space instructions per default read, counted by
valgrind (deterministic: no load changes them; the kernel's share of the syscalls is not
in it).

    uv run python bench/surfaces/engine_read.py --baseline DIR [--calls 2000] [--rounds 5]
    mkdir /tmp/base && git archive main src | tar -x -C /tmp/base    # a baseline tree
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

from instructions import instructions_per_call

HERE = Path(__file__).resolve().parents[2]

# One interpreter: the tree's `src` first on the path, the file in a temporary root, each
# toolset's read timed call by call; prints {toolset: [wall median, cpu median]} (seconds).
CHILD = r"""
import json, os, statistics, sys, tempfile, time
sys.path.insert(0, os.path.join(sys.argv[1], "src"))
from filewright import Workspace
calls = int(sys.argv[2])
root = tempfile.mkdtemp(prefix="fw-engine-read-")
path = os.path.join(root, "small.txt")
with open(path, "w", encoding="utf-8") as f:
    f.write("".join(f"line {i}: the quick brown fox jumps over the lazy dog\n" for i in range(1, 41)))
reads = {
    "default": ("read", {"path": "small.txt"}),
    "claude": ("Read", {"file_path": path}),
    "mcpfs": ("read_text_file", {"path": path}),
    "gemini": ("read_file", {"path": path}),
    "text_editor": ("str_replace_based_edit_tool", {"command": "view", "path": path}),
}
ws = Workspace(root)
out = {}
for name, (tool, args) in reads.items():
    if len(sys.argv) > 3 and name not in sys.argv[3].split(","):
        continue
    tools = ws.toolset(name)
    for _ in range(200):
        assert tools.call(tool, args).ok
    wall, cpu = [], []
    for _ in range(calls):
        w, c = time.perf_counter(), time.process_time()
        tools.call(tool, args)
        cpu.append(time.process_time() - c)
        wall.append(time.perf_counter() - w)
    out[name] = [statistics.median(wall), statistics.median(cpu)]
print(json.dumps(out))
"""


def run_tree(tree: Path, calls: int, only: str = "") -> dict[str, list[float]]:
    argv = [sys.executable, "-c", CHILD, str(tree), str(calls)] + ([only] if only else [])
    proc = subprocess.run(argv, capture_output=True, text=True, check=True)
    return json.loads(proc.stdout)  # type: ignore[no-any-return]


def instructions(tree: Path, reads: int = 300) -> int | None:
    """User-space instructions per default read (valgrind's count of 50 + `reads` reads,
    less that of 50 reads), or None without valgrind."""
    return instructions_per_call(lambda n: [CHILD, str(tree), str(n), "default"], 1, reads)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--baseline", type=Path, required=True, help="a filewright source tree")
    parser.add_argument("--calls", type=int, default=2000, help="timed calls per toolset")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--instructions", action="store_true", help="count with valgrind too")
    args = parser.parse_args()
    trees = {"baseline": args.baseline.resolve(), "this tree": HERE}
    got: dict[str, dict[str, list[list[float]]]] = {t: {} for t in trees}
    for _ in range(args.rounds):
        for label, tree in trees.items():
            for name, pair in run_tree(tree, args.calls).items():
                got[label].setdefault(name, []).append(pair)
    load = os.getloadavg()[0]
    print(f"Engine read in process, hot, per call (median of {args.rounds} rounds of "
          f"{args.calls} calls); load average {load:.1f}")  # fmt: skip
    print(f"{'toolset':<13}{'baseline wall':>15}{'this wall':>12}{'baseline CPU':>15}"
          f"{'this CPU':>11}{'CPU ratio':>11}")  # fmt: skip
    for name in got["this tree"]:
        before, after = got["baseline"][name], got["this tree"][name]
        bw, aw = (statistics.median(p[0] for p in x) * 1e3 for x in (before, after))
        bc, ac = (statistics.median(p[1] for p in x) * 1e3 for x in (before, after))
        print(f"{name:<13}{bw:>12.3f} ms{aw:>9.3f} ms{bc:>12.3f} ms{ac:>8.3f} ms{ac / bc:>10.2f}×")
    if args.instructions:
        counts = {label: instructions(tree) for label, tree in trees.items()}
        if None not in counts.values():
            b, a = counts["baseline"], counts["this tree"]
            assert a is not None and b is not None
            print(f"\nInstructions per default read (valgrind, user space): {b:,} -> {a:,} "
                  f"({a / b:.2f}×)")  # fmt: skip


if __name__ == "__main__":
    main()
