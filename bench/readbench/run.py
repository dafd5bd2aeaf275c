"""Read benchmark: a range deep inside a ~1 GB file and its last lines, vs sed and tail.

Run ``uv run python -m bench.readbench`` (``--help`` for options). See README.md.

One run generates the file (deterministic, in a temporary directory deleted afterwards),
warms the page cache once so every tool reads from memory, then, for each of ``--runs``
rounds, times:

* filewright in a fresh child process (``--probe``): ``read_lines(start=A, limit=100)``
  and ``read_lines(tail=100)``; the child reports the time of each call and its own peak
  RSS (VmHWM from /proc/self/status, read after exec, so it is the child's alone);
* ``sed -n 'A,Bp;Bq'`` and ``tail -n 100`` on the same file (wall time of the process).

Medians are printed side by side with their ratios, and the lines filewright returned are
checked against sed's and tail's output.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

START = 10_000_000
COUNT = 100
RSS_TARGET_MB = 100
TIME_TARGET = 2.0


# -- the file --------------------------------------------------------------------------


def generate(path: Path, size: int, seed: int = 20240601) -> int:
    """Write about `size` bytes of lines of varied length (0-120 characters, some long).

    A base block of 65,536 random lines is written over and over, each copy rotated by a
    different number of lines and headed by a numbered marker line, so the file is varied
    but generated at disk speed. Returns the number of lines.
    """
    rng = random.Random(seed)
    words = [
        "".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(rng.randint(1, 9)))
        for _ in range(500)
    ]
    lines: list[bytes] = []
    for _ in range(65_536):
        target = rng.choice((0, 8, 20, 40, 60, 80, 100, 120)) + rng.randint(0, 10)
        if rng.random() < 0.001:
            target = rng.randint(1_000, 5_000)  # the occasional very long line
        words_in: list[str] = []
        length = 0
        while length < target:
            w = rng.choice(words)
            words_in.append(w)
            length += len(w) + 1
        lines.append((" ".join(words_in)[:target] + "\n").encode())
    offsets = [0]
    for line in lines:
        offsets.append(offsets[-1] + len(line))
    base = b"".join(lines)
    written = 0
    count = 0
    block = 0
    with path.open("wb", buffering=8 << 20) as f:
        while written < size:
            k = (block * 7919) % len(lines)
            chunk = b"#block %d\n" % block + base[offsets[k] :] + base[: offsets[k]]
            f.write(chunk)
            written += len(chunk)
            count += len(lines) + 1
            block += 1
    return count


# -- measuring -------------------------------------------------------------------------


def run_measured(cmd: list[str]) -> tuple[float, bytes]:
    """Run `cmd`; (wall seconds, stdout)."""
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, check=True)
    return time.perf_counter() - t0, proc.stdout


def _vm_hwm_kb() -> int:
    try:
        with open("/proc/self/status", encoding="ascii") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except OSError:
        pass
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


def probe(path: Path, start: int, count: int) -> dict[str, Any]:
    """In the child: the reads through filewright, their times and the peak RSS."""
    t_import = time.perf_counter()
    from filewright import Workspace
    from filewright.read.readers import read_lines

    engine = Workspace(path.parent).engine()
    imported = time.perf_counter() - t_import
    out: dict[str, Any] = {"import": imported}
    t = time.perf_counter()
    middle = read_lines(engine, path.name, start, count)
    out["range"] = time.perf_counter() - t
    out["range_lines"] = middle.lines
    out["total_lines"] = middle.total_lines
    t = time.perf_counter()
    uncounted = read_lines(engine, path.name, start, count, count_total=False)
    out["range_uncounted"] = time.perf_counter() - t
    assert uncounted.lines == middle.lines
    t = time.perf_counter()
    tail = read_lines(engine, path.name, tail=count)
    out["tail"] = time.perf_counter() - t
    out["tail_lines"] = tail.lines
    out["tail_from_end"] = tail.from_end
    t = time.perf_counter()
    counted = read_lines(engine, path.name, tail=count, count_total=True)
    out["tail_counted"] = time.perf_counter() - t
    assert counted.lines == tail.lines
    out["tail_counted_start"] = counted.start
    out["vm_hwm_kb"] = _vm_hwm_kb()
    return out


def _lines(raw: bytes) -> list[str]:
    return raw.decode("utf-8").splitlines()


def bench(size: int, runs: int, start: int, count: int, keep: Path | None) -> int:
    """Generate, measure, print; returns 0 when every target is met."""
    for tool in ("sed", "tail"):
        if shutil.which(tool) is None:
            print(f"{tool} is not installed", file=sys.stderr)
            return 2
    tmp = Path(tempfile.mkdtemp(prefix="readbench-"))
    try:
        path = (keep or tmp) / "big.log"
        t = time.perf_counter()
        lines = generate(path, size)
        gen = time.perf_counter() - t
        real_size = path.stat().st_size
        print(f"generated {path} : {real_size / 1e9:.2f} GB, {lines:,} lines in {gen:.1f} s")
        if lines < start + count:
            print(f"the file has only {lines:,} lines; use a larger --size-mb", file=sys.stderr)
            return 2
        with path.open("rb") as f:  # warm the page cache once: every tool reads from memory
            while f.read(8 << 20):
                pass
        end = start + count - 1
        sed_cmd = ["sed", "-n", f"{start},{end}p;{end}q", str(path)]
        tail_cmd = ["tail", "-n", str(count), str(path)]
        probe_cmd = [
            sys.executable,
            "-m",
            "bench.readbench",
            "--probe",
            str(path),
            str(start),
            str(count),
        ]
        rows: dict[str, list[float]] = {
            k: []
            for k in (
                "fw_range",
                "fw_range_uncounted",
                "fw_tail",
                "fw_tail_counted",
                "fw_child_wall",
                "fw_import",
                "sed",
                "tail",
            )
        }
        rss: list[int] = []
        for i in range(runs):
            wall, out = run_measured(probe_cmd)
            res = json.loads(out)
            rows["fw_range"].append(res["range"])
            rows["fw_range_uncounted"].append(res["range_uncounted"])
            rows["fw_tail"].append(res["tail"])
            rows["fw_tail_counted"].append(res["tail_counted"])
            rows["fw_child_wall"].append(wall)
            rows["fw_import"].append(res["import"])
            rss.append(res["vm_hwm_kb"])
            sed_wall, sed_out = run_measured(sed_cmd)
            tail_wall, tail_out = run_measured(tail_cmd)
            rows["sed"].append(sed_wall)
            rows["tail"].append(tail_wall)
            if i == 0:
                assert res["range_lines"] == _lines(sed_out), (
                    "filewright's range differs from sed's"
                )
                assert res["tail_lines"] == _lines(tail_out), (
                    "filewright's tail differs from tail's"
                )
                assert res["total_lines"] == lines, (res["total_lines"], lines)
                assert res["tail_counted_start"] == lines - count + 1
                print("outputs identical to sed and tail; total_lines =", f"{res['total_lines']:,}")
        return report(rows, rss, runs, start, count)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
        if keep is None and tmp.exists():  # pragma: no cover
            print(f"could not remove {tmp}", file=sys.stderr)


def report(rows: dict[str, list[float]], rss: list[int], runs: int, start: int, count: int) -> int:
    """Print the side-by-side table; 0 when the targets are met."""
    med = {k: statistics.median(v) for k, v in rows.items()}
    peak_mb = max(rss) / 1024
    print(f"\nmedians of {runs} runs (page cache warm)\n")
    print(f"{'operation':<44}{'filewright':>12}{'reference':>12}{'ratio':>8}  target")
    lines = [
        (f"lines {start:,}+{count} (counts total lines)", med["fw_range"], med["sed"], "sed"),
        (
            f"lines {start:,}+{count} (count_total=False)",
            med["fw_range_uncounted"],
            med["sed"],
            "sed",
        ),
        (f"last {count} lines (default)", med["fw_tail"], med["tail"], "tail"),
        (f"last {count} lines (count_total=True)", med["fw_tail_counted"], med["tail"], "tail"),
    ]
    ok = True
    for i, (name, fw, ref, tool) in enumerate(lines):
        ratio = fw / ref
        target = i in (0, 2)  # the defaults carry the targets
        if target:
            ok &= ratio <= TIME_TARGET
        mark = (
            f"<= {TIME_TARGET:.0f}x {'ok' if ratio <= TIME_TARGET else 'MISSED'}"
            if target
            else "(info)"
        )
        print(
            f"{name:<44}{fw * 1000:>10.1f}ms{ref * 1000:>10.1f}ms{ratio:>7.2f}x  {mark} vs {tool}"
        )
    print(
        f"\n{'filewright child process, wall (incl. start)':<44}{med['fw_child_wall'] * 1000:>10.1f}ms"
        f"   (python start-up + import {med['fw_import'] * 1000:.0f} ms of it; all four reads)"
    )
    ok &= peak_mb <= RSS_TARGET_MB
    print(
        f"{'peak RSS, filewright child (VmHWM, max)':<44}{peak_mb:>10.1f}MB   target <= {RSS_TARGET_MB} MB "
        f"{'ok' if peak_mb <= RSS_TARGET_MB else 'MISSED'}"
    )
    print(f"\n(load average while measuring: {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs)")
    return 0 if ok else 1


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m bench.readbench", description=__doc__.split("\n")[0]
    )
    parser.add_argument(
        "--size-mb", type=int, default=1024, help="size of the generated file (default 1024)"
    )
    parser.add_argument(
        "--runs", type=int, default=5, help="rounds to take the median of (default 5)"
    )
    parser.add_argument(
        "--start", type=int, default=START, help=f"first line of the range (default {START:,})"
    )
    parser.add_argument("--count", type=int, default=COUNT, help=f"lines to read (default {COUNT})")
    parser.add_argument(
        "--keep", type=Path, default=None, help="generate the file in this directory and keep it"
    )
    parser.add_argument(
        "--probe", nargs=3, metavar=("FILE", "START", "COUNT"), help=argparse.SUPPRESS
    )
    args = parser.parse_args(argv)
    if args.probe:
        path, start, count = Path(args.probe[0]), int(args.probe[1]), int(args.probe[2])
        print(json.dumps(probe(path, start, count)))
        return 0
    return bench(args.size_mb * 1024 * 1024, args.runs, args.start, args.count, args.keep)
