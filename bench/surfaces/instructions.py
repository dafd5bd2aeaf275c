"""User-space instructions per call of a benchmark child, counted by valgrind.

Deterministic where timings are not: load, the disk and the machine's other work change
the count not at all (the kernel's share of the syscalls is not in it). Shared by
engine_edit.py and engine_read.py.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from collections.abc import Callable


def instructions_per_call(args: Callable[[int], list[str]], low: int, high: int) -> int | None:
    """(instructions of `python -c *args(high)` - those of `*args(low)`) / (high - low):
    the child makes `n` calls for `args(n)`, so its start-up and warm-up cancel out. None
    without valgrind."""
    if shutil.which("valgrind") is None:
        return None

    def count(n: int) -> int:
        argv = ["valgrind", "--tool=cachegrind", "--cache-sim=no",
                "--cachegrind-out-file=/dev/null", sys.executable, "-c", *args(n)]  # fmt: skip
        err = subprocess.run(argv, capture_output=True, text=True, check=True).stderr
        line = next(x for x in err.splitlines() if "I" in x and "refs:" in x)
        return int(line.split("refs:")[1].strip().replace(",", ""))

    return (count(high) - count(low)) // (high - low)
