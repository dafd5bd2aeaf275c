"""Timing for the search benchmark: contenders run interleaved, wall and CPU medians."""

from __future__ import annotations

import statistics
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

try:
    import resource
except ImportError:  # not on Windows
    resource = None  # type: ignore[assignment]


@dataclass
class Contender:
    """One timed thing: a label, a call, how many timed runs, and what it measured."""

    label: str
    fn: Callable[[], object]
    runs: int
    times: list[float] = field(default_factory=list)
    cpu: list[float] = field(default_factory=list)
    sys_cpu: list[float] = field(default_factory=list)
    result: object = None

    @property
    def median(self) -> float:
        return statistics.median(self.times)

    @property
    def median_cpu(self) -> float:
        return statistics.median(self.cpu)


SETTLE = 1.0
"""Seconds to wait at most, before each round, for the CPUs to be 80 % idle."""


def _cpu() -> tuple[float, float]:
    """(CPU time, of which system time) of this process and its finished children."""
    if resource is None:
        return time.process_time(), 0.0
    me = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    system = me.ru_stime + kids.ru_stime
    return me.ru_utime + kids.ru_utime + system, system


def _idle_share(window: float) -> float | None:
    """Share of CPU time idle over ``window`` seconds (Linux ``/proc/stat``), or None."""

    def sample() -> tuple[int, int]:
        with open("/proc/stat") as f:
            ticks = [int(x) for x in f.readline().split()[1:]]
        return sum(ticks), ticks[3] + ticks[4]

    try:
        total0, idle0 = sample()
        time.sleep(window)
        total1, idle1 = sample()
    except (OSError, ValueError, IndexError):
        return None
    return (idle1 - idle0) / max(1, total1 - total0)


def settle(limit: float) -> None:
    """Wait (at most ``limit`` seconds) until other jobs leave the CPUs mostly idle."""
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        share = _idle_share(0.1)
        if share is None or share >= 0.8:
            return


def race(contenders: list[Contender]) -> None:
    """Warm each contender up once, then time them in turn, round after round: wall
    time and CPU time (this process's and its children's, i.e. ripgrep's)."""
    for c in contenders:
        c.result = c.fn()
    for r in range(max(c.runs for c in contenders)):
        settle(SETTLE)
        for c in contenders:
            if r < c.runs:
                c0, s0 = _cpu()
                t0 = time.perf_counter()
                c.result = c.fn()
                c.times.append(time.perf_counter() - t0)
                c1, s1 = _cpu()
                c.cpu.append(c1 - c0)
                c.sys_cpu.append(s1 - s0)


def rg_lines(rg: str, root: Path, args: list[str]) -> int:
    """Run rg, capture its output, return the number of output records."""
    out = subprocess.run([rg, *args], cwd=root, capture_output=True, check=False).stdout
    return out.count(b"\n") + out.count(b"\0")


def report(contenders: list[Contender], notes: dict[str, str]) -> None:
    base = contenders[0].median
    base_cpu = contenders[0].median_cpu
    print(f"  {'':<42} {'wall (median)':>19}  {'CPU (median)':>19}")
    for c in contenders:
        ratio = c.median / base
        cpu_ratio = c.median_cpu / base_cpu if base_cpu else float("nan")
        print(
            f"  {c.label:<42} {c.median * 1000:9.1f} ms {ratio:6.2f}x"
            f"  {c.median_cpu * 1000:9.1f} ms {cpu_ratio:6.2f}x  {notes.get(c.label, '')}"
        )
