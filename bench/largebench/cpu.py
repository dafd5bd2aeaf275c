"""CPU per streamed operation on a large file, in MB/s, beside plain Python doing the
same bytes work, and (``--baseline``) beside another checkout's filewright.

Run ``uv run python -m bench.largebench.cpu`` (``--help`` for options). See README.md.

The wall time of a streamed change mostly waits for the disk and, on a shared machine,
for the CPU; the CPU it costs (user + system, all threads) is what it does itself, and
what a test suite full of large-file calls pays. One file of ``--mb`` megabytes of text
lines (the lines of tests/adversarial/test_resource_limits.py, a marker line near the
end) is made in a temporary directory. For each variant (this checkout; ``--baseline
DIR``: another checkout's ``src``) a fresh process runs every operation ``--repeat``
times, each call timed alone with ``getrusage`` after one warm-up call that loads the
tool's models; a change is undone after each call, its undo timed too. The variants'
processes alternate, and the median is shown. "plain Python" is the least a program does
for the same bytes, in the same process: the chunks read (1 MB ``os.pread``), searched or
counted with ``bytes`` methods, written to a temporary file that is fsynced and renamed
over the file.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

LINE = b"0123456789 abcdefghij klmnopqrst uvwxyz " * 2 + b"\n"  # 83 bytes
MARKER = b"NEEDLE at the end\n"

# (label, toolset, tool, arguments, undone after; the plain-Python work that matches)
OPERATIONS: list[tuple[str, str, str, dict[str, Any], bool, str]] = [
    ("read lines 1-5 (and count all)", "default", "read", {"limit": 5}, False, "count"),
    ("read the last 5 lines", "default", "read", {"offset": -1, "limit": 5}, False, "count"),
    (
        "unique edit near the end",
        "default",
        "edit",
        {"old_string": "NEEDLE", "new_string": "X"},
        True,
        "search+count+write",
    ),
    (
        "replace_in_file (replace all), one match near the end",
        "worker",
        "replace_in_file",
        {"old": "NEEDLE", "new": "X"},
        True,
        "search+write",
    ),
    (
        "text_editor str_replace near the end",
        "text_editor",
        "str_replace_based_edit_tool",
        {"command": "str_replace", "old_str": "NEEDLE", "new_str": "X"},
        True,
        "search+count+write",
    ),
    ("insert at line 0", "default", "insert", {"line": 0, "text": "top"}, True, "write"),
    ("append one line", "default", "append", {"content": "more\n"}, True, "append"),
]

CHILD = r"""
import json, os, resource, sys
from filewright import Workspace
spec = json.loads(sys.argv[1])
root, big = spec["root"], os.path.join(spec["root"], "big.txt")
lines = spec["lines"]

def cpu():
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime

def args_for(toolset, args):
    args = dict(args)
    if args.get("offset") == -1:
        args["offset"] = lines - 4
    key = {"worker": "path", "text_editor": "path"}.get(toolset, "path")
    args[key] = big if toolset == "text_editor" else "big.txt"
    return args

out = {}
for label, toolset, tool, args, undone, _ in spec["operations"]:
    tools = Workspace(root, confirm=True).toolset(toolset)
    tools.call(tool, {})  # loads the parameter model; changes nothing
    undo = Workspace(root).toolset("default")
    undo.call("undo", {})
    times, undos = [], []
    for _ in range(spec["repeat"]):
        tools = Workspace(root, confirm=True).toolset(toolset)
        t0 = cpu()
        r = tools.call(tool, args_for(toolset, args))
        times.append(cpu() - t0)
        assert r.ok, r.text
        if undone:
            t0 = cpu()
            u = Workspace(root).toolset("default").call("undo", {"path": "big.txt"})
            undos.append(cpu() - t0)
            assert u.ok, u.text
    out[label] = {"call": times, "undo": undos}
print(json.dumps(out))
"""


def generate(path: Path, megabytes: int) -> int:
    """The file: text lines, MARKER last; its line count."""
    chunk = LINE * 50_000
    lines = 1
    with open(path, "wb") as fh:
        fh.write(b"FIRST line\n")
        while fh.tell() < megabytes << 20:
            fh.write(chunk)
            lines += 50_000
        fh.write(MARKER)
    return lines + 1


def _cpu() -> float:
    import resource

    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def plain(path: Path, work: str) -> float:
    """CPU seconds plain Python spends on `work` over the file's bytes."""
    size = path.stat().st_size
    t0 = _cpu()
    if work == "append":
        fd = os.open(path, os.O_WRONLY | os.O_APPEND)
        os.write(fd, b"more\n")
        os.fsync(fd)
        os.close(fd)
        seconds = _cpu() - t0
        os.truncate(path, size)
        return seconds
    src = os.open(path, os.O_RDONLY)
    dst = None
    if "write" in work:
        tmp = path.with_name(path.name + ".plain")
        dst = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    pos = 0
    while chunk := os.pread(src, 1 << 20, pos):
        pos += len(chunk)
        if "search" in work:
            chunk.find(b"NEEDLE")
        if "count" in work:
            chunk.count(b"\n")
        if dst is not None:
            os.write(dst, chunk)
    os.close(src)
    if dst is not None:
        os.fsync(dst)
        os.close(dst)
        os.rename(tmp, tmp)  # (a rename, without replacing the file the others use)
        seconds = _cpu() - t0
        os.unlink(tmp)
        return seconds
    return _cpu() - t0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.largebench.cpu", description=__doc__)
    parser.add_argument("--mb", type=int, default=200, help="file size in MB (default 200)")
    parser.add_argument("--repeat", type=int, default=3, help="calls per process (default 3)")
    parser.add_argument("--rounds", type=int, default=2, help="processes per variant")
    parser.add_argument("--baseline", help="another checkout (its src/ is imported)")
    parser.add_argument("--dir", help="where the file goes (default: a temporary directory)")
    parser.add_argument("--only", help="operations whose label contains this")
    opts = parser.parse_args(argv)
    ops = [op for op in OPERATIONS if not opts.only or opts.only in op[0]]
    here = Path(__file__).resolve().parents[2]
    variants = {"filewright": str(here / "src")}
    if opts.baseline:
        variants["baseline"] = str(Path(opts.baseline).resolve() / "src")
    with tempfile.TemporaryDirectory(dir=opts.dir) as tmp:
        root = Path(tmp)
        lines = generate(root / "big.txt", opts.mb)
        size_mb = (root / "big.txt").stat().st_size / 2**20
        runs: dict[str, dict[str, dict[str, list[float]]]] = {v: {} for v in variants}
        for _ in range(opts.rounds):
            for name, src in variants.items():
                spec = {"root": str(root), "lines": lines, "repeat": opts.repeat, "operations": ops}
                env = {**os.environ, "PYTHONPATH": src}
                done = subprocess.run(
                    [sys.executable, "-c", CHILD, json.dumps(spec)],
                    capture_output=True,
                    text=True,
                    env=env,
                )
                if done.returncode != 0:
                    raise SystemExit(f"{name} failed:\n{done.stderr[-3000:]}")
                for label, got in json.loads(done.stdout).items():
                    mine = runs[name].setdefault(label, {"call": [], "undo": []})
                    mine["call"] += got["call"]
                    mine["undo"] += got["undo"]
        python = {
            op[0]: statistics.median(plain(root / "big.txt", op[5]) for _ in range(opts.repeat))
            for op in ops
        }
    print(f"{size_mb:.0f} MB, {lines} lines; CPU seconds per call (user + system), median; MB/s")
    head = ["operation", *variants, "plain Python", *(f"{v} undo" for v in variants)]
    print("| " + " | ".join(head) + " |")
    print("|---" + "|---:" * (len(head) - 1) + "|")
    for label, *_rest in ops:
        row = [label]
        per_mb = size_mb if "append" not in label else 0.0  # (an append costs what it adds)
        for name in variants:
            row.append(_cell(runs[name][label]["call"], per_mb))
        row.append(_cell([python[label]], per_mb))
        for name in variants:
            row.append(_cell(runs[name][label]["undo"], per_mb))
        print("| " + " | ".join(row) + " |")
    return 0


def _cell(times: list[float], size_mb: float) -> str:
    if not times:
        return "-"
    t = statistics.median(times)
    return f"{t:.3f} s ({size_mb / t:,.0f} MB/s)" if t > 0 and size_mb else f"{t:.3f} s"


if __name__ == "__main__":
    raise SystemExit(main())
