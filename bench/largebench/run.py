"""Large-file change benchmark: filewright's streamed changes vs sed, perl and Python.

Run ``uv run python -m bench.largebench`` (``--help`` for options). See README.md.

For each size (default 100 MB and 1 GB; ``--sizes 4G`` for 4 GB) one file of log lines
is generated in a temporary directory (deleted afterwards) and each operation is run by
every tool in a fresh child process, timed as wall time of the process and, for
filewright, also of the call itself; peak RSS is the child's own (ru_maxrss from wait4).
Between tools the file is put back (untimed), so every tool changes the same bytes; after
filewright's change its undo is timed too, and the file's sha256 is checked at the end.
filewright's time is the call's own (the child first makes an invalid call, which loads
the parameter model and changes nothing); the process's wall time is shown beside it.

Operations: unique literal replace near the end, replace_all of a frequent word, regex
replace with a count, append of one line, insert at line 10,000,000 (or the middle of a
smaller file). Peers: ``sed -i`` followed by ``sync FILE`` (filewright makes its change
durable, sed alone does not), ``perl -pi``, and the Python one-liner a user would write
(read it all, replace, write it all back).

Then ten unique edits in a row measure what ``.filewright/`` holds, and undoing all ten
must give back the original bytes.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

MARKER = "UNIQUE-MARKER-7f3a"
LEVELS = (b"INFO", b"DEBUG", b"WARN", b"INFO")
INSERT_LINE = 10_000_000

CHILD = r"""
import json, sys, time
args = json.loads(sys.argv[1])
from filewright import Workspace
from filewright.engine.undo import undo
ws = Workspace(args["root"])
out = {}
toolset = ws.toolset(args["toolset"])
if args["tool"] != "undo":
    toolset.call(args["tool"], {})  # loads the parameter model; changes nothing
t0 = time.perf_counter()
if args["tool"] == "undo":
    o = undo(toolset.engine, args["path"])
    ok, text = o.ok, str(o.failure)
else:
    r = toolset.call(args["tool"], args["args"])
    ok, text = r.ok, r.text[:300]
out["seconds"] = time.perf_counter() - t0
out["ok"], out["text"] = ok, text
print(json.dumps(out))
"""


def generate(path: Path, size: int) -> int:
    """Write about `size` bytes of log lines, one MARKER line at 99 %; the line count."""
    block = []
    for i in range(65536):
        level = LEVELS[i % 4]
        block.append(
            b"2026-01-01T00:%02d:%02d %s req=%06d user=u%05d path=/api/v1/items status=200\n"
            % (i // 60 % 60, i % 60, level, i, i * 7 % 100000)
        )
    data = b"".join(block)
    lines = 0
    marker_at = int(size * 0.99)
    with open(path, "wb") as f:
        written = 0
        while written < size:
            if written <= marker_at < written + len(data):
                f.write(f"2026-01-01T23:59:59 INFO {MARKER} the line to change\n".encode())
                lines += 1
            f.write(data)
            written += len(data)
            lines += len(block)
    return lines


def sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        while chunk := f.read(1 << 22):
            h.update(chunk)
    return h.hexdigest()


def run(cmd: list[str], **kw: Any) -> tuple[float, int, str]:
    """(wall seconds, peak RSS in MB, stdout) of one child process.

    Peak RSS comes from GNU time (``/usr/bin/time -f %M``): the process's own high-water
    mark (and its children's), not the pages of this process it was forked from.
    """
    os.sync()  # no tool pays for another's unwritten pages (fsync would flush them)
    with tempfile.NamedTemporaryFile("r", suffix=".rss") as rss_file:
        wrapped = ["/usr/bin/time", "-f", "%M", "-o", rss_file.name, *cmd]
        t0 = time.perf_counter()
        proc = subprocess.run(wrapped, capture_output=True, **kw)
        wall = time.perf_counter() - t0
        if proc.returncode != 0:
            raise RuntimeError(f"{cmd[:3]} failed ({proc.returncode}): {proc.stderr[-500:]!r}")
        rss_kb = int(rss_file.read().split()[-1])
    return wall, rss_kb // 1024, proc.stdout.decode()


def filewright(root: Path, toolset: str, tool: str, args: dict[str, Any]) -> dict[str, Any]:
    spec = {"root": str(root), "toolset": toolset, "tool": tool, "args": args, "path": "big.log"}
    wall, rss, out = run([sys.executable, "-c", CHILD, json.dumps(spec)])
    result = json.loads(out.strip().splitlines()[-1])
    if not result["ok"]:
        raise RuntimeError(f"filewright {tool} failed: {result['text']}")
    return {"wall": wall, "call": result["seconds"], "rss": rss}


def shell(script: str, path: Path) -> dict[str, Any]:
    wall, rss, _ = run(["bash", "-c", script, "bench", str(path)])
    return {"wall": wall, "rss": rss}


def pyline(code: str, path: Path) -> dict[str, Any]:
    wall, rss, _ = run([sys.executable, "-c", code, str(path)])
    return {"wall": wall, "rss": rss}


def operations(lines: int) -> list[dict[str, Any]]:
    """Each operation: filewright's call, the peers' commands, and how to put it back."""
    at = INSERT_LINE if lines > INSERT_LINE else lines // 2
    py_open = "import sys;p=sys.argv[1];d=open(p,encoding='utf-8',newline='').read();"
    py_write = "open(p,'w',encoding='utf-8',newline='').write(d)"
    return [
        {
            "name": "unique literal replace",
            "fw": (
                "default",
                "edit",
                {"path": "big.log", "old_string": MARKER, "new_string": "CHANGED-MARKER"},
            ),
            "sed": f'sed -i \'s/{MARKER}/CHANGED-MARKER/\' "$1" && sync "$1"',
            "perl": f"perl -pi -e 's/{MARKER}/CHANGED-MARKER/' \"$1\"",
            "python": py_open + f"d=d.replace('{MARKER}','CHANGED-MARKER',1);" + py_write,
            "undo": f"sed -i 's/CHANGED-MARKER/{MARKER}/' \"$1\"",
            "target": True,
        },
        {
            "name": "replace_all of a frequent word",
            "fw": (
                "default",
                "edit",
                {
                    "path": "big.log",
                    "old_string": "WARN",
                    "new_string": "WARNING",
                    "replace_all": True,
                },
            ),
            "sed": 'sed -i \'s/WARN/WARNING/g\' "$1" && sync "$1"',
            "perl": "perl -pi -e 's/WARN/WARNING/g' \"$1\"",
            "python": py_open + "d=d.replace('WARN','WARNING');" + py_write,
            "undo": "sed -i 's/WARNING/WARN/g' \"$1\"",
            "target": True,
        },
        {
            "name": "regex replace, count 1000",
            "fw": (
                "worker",
                "replace_in_file",
                {
                    "path": "big.log",
                    "old": r"req=(\d+)",
                    "new": r"id=\1",
                    "regex": True,
                    "count": 1000,
                },
            ),
            "sed": 'sed -i -E \'1,1000s/req=([0-9]+)/id=\\1/\' "$1" && sync "$1"',
            "perl": "perl -pi -e 's/req=(\\d+)/id=$1/ if $. <= 1000' \"$1\"",
            "python": py_open
            + "import re;d=re.sub(r'req=(\\d+)',r'id=\\1',d,count=1000);"
            + py_write,
            "undo": "sed -i -E '1,1000s/id=([0-9]+)/req=\\1/' \"$1\"",
        },
        {
            "name": "append one line",
            "fw": ("default", "append", {"path": "big.log", "content": "appended line\n"}),
            "sed": 'echo \'appended line\' >> "$1" && sync "$1"',
            "perl": 'perl -e \'open(F,">>",$ARGV[0]);print F "appended line\\n"\' "$1"',
            "python": "import sys;open(sys.argv[1],'a').write('appended line\\n')",
            "undo": 'truncate -s -14 "$1"',
            "append": True,
        },
        {
            "name": f"insert at line {at:,}",
            "fw": ("default", "insert", {"path": "big.log", "line": at, "text": "inserted line"}),
            "sed": f'sed -i \'{at}a inserted line\' "$1" && sync "$1"',
            "perl": f'perl -pi -e \'print "inserted line\\n" if $. == {at + 1}\' "$1"',
            "python": py_open
            + f"i=0\nfor _ in range({at}): i=d.index('\\n',i)+1\nd=d[:i]+'inserted line\\n'+d[i:];"
            + py_write,
            "undo": f"sed -i '{at + 1}d' \"$1\"",
        },
    ]


def human(size: int) -> str:
    for unit, div in (("G", 1 << 30), ("M", 1 << 20)):
        if size >= div:
            return f"{size / div:g} {unit}B"
    return f"{size} B"


def parse_size(text: str) -> int:
    units = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
    text = text.strip().upper().rstrip("B")
    if text[-1:] in units:
        return int(float(text[:-1]) * units[text[-1]])
    return int(text)


def _median(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """The run of median time (call time for filewright) of several."""
    ordered = sorted(runs, key=lambda t: t.get("call", t["wall"]))
    best = dict(ordered[len(ordered) // 2])
    best["rss"] = max(t["rss"] for t in runs)
    return best


def bench_size(
    size: int, workdir: Path, peers: list[str], ten: bool, only: str = "", repeat: int = 1
) -> list[dict[str, Any]]:
    root = workdir / f"root-{size}"
    root.mkdir()
    path = root / "big.log"
    lines = generate(path, size)
    original = sha256(path)
    real = path.stat().st_size
    print(f"\n## {human(real)} ({real:,} bytes, {lines:,} lines)\n", flush=True)
    print("| operation | tool | time (s) | vs sed+sync | peak RSS (MB) |")
    print("|---|---|---:|---:|---:|")
    rows = []
    for op in operations(lines):
        if only not in op["name"]:
            continue
        times: dict[str, dict[str, Any]] = {}
        for peer in peers:
            if peer == "python" and size > (2 << 30) and not op.get("append"):
                continue  # the one-liner holds the whole file (twice) in memory
            runner = pyline if peer == "python" else shell
            runs = []
            for _ in range(repeat):
                runs.append(runner(op[peer], path))
                shell(op["undo"], path)
            times[peer] = _median(runs)
        toolset, tool, args = op["fw"]
        done, undone = [], []
        for _ in range(repeat):
            done.append(filewright(root, toolset, tool, args))
            undone.append(filewright(root, "default", "undo", {}))
        times["filewright"], times["filewright undo"] = _median(done), _median(undone)
        base = times.get("sed", {}).get("wall")
        for name, t in times.items():
            shown = t.get("call", t["wall"])
            ratio = f"{shown / base:.2f}x" if base and not name.endswith("undo") else ""
            extra = f" (process {t['wall']:.3f})" if "call" in t else ""
            print(
                f"| {op['name']} | {name} | {shown:.3f}{extra} | {ratio} | {t['rss']} |", flush=True
            )
        rows.append({"op": op["name"], "size": real, **{k: v for k, v in times.items()}})
    if sha256(path) != original:
        raise SystemExit("the file differs from the original after the runs and undos")
    print("\nafter every change and its undo the file is byte-identical to the original")
    if ten:
        rows.append(ten_edits(root, path, original))
    shutil.rmtree(root)
    return rows


def ten_edits(root: Path, path: Path, original: str) -> dict[str, Any]:
    """Ten unique edits, .filewright/'s size, then ten undos back to the original."""
    edits = [(MARKER, "M1")] + [(f"M{i}", f"M{i + 1}") for i in range(1, 10)]
    for old, new in edits:
        filewright(
            root, "default", "edit", {"path": "big.log", "old_string": old, "new_string": new}
        )
    state = root / ".filewright"
    held = sum(f.stat().st_size for f in state.rglob("*") if f.is_file())
    undo_times = [filewright(root, "default", "undo", {})["call"] for _ in edits]
    same = sha256(path) == original
    print(
        f"\nten unique edits: .filewright/ holds {held:,} bytes ({held / 1e6:.3f} MB); "
        f"ten undos took {sum(undo_times):.2f} s and gave back "
        f"{'the exact original bytes' if same else 'DIFFERENT BYTES'}"
    )
    if not same:
        raise SystemExit("undo did not restore the original")
    return {"op": "ten edits", "state_bytes": held}


def in_memory_ceiling(workdir: Path) -> None:
    """Peak RSS of an edit at the streaming threshold (10 MB), made in memory with the
    recovery ladder, and just above it (streamed)."""
    for size, label in (
        (10 * 1024 * 1024 - 4096, "in memory (ladder)"),
        (11 * 1024 * 1024, "streamed"),
    ):
        root = workdir / f"mem-{size}"
        root.mkdir()
        generate(root / "big.log", size)
        t = filewright(
            root, "default", "edit", {"path": "big.log", "old_string": MARKER, "new_string": "X"}
        )
        print(f"| {human(size)} | {label} | {t['call']:.3f} | {t['rss']} |")
        shutil.rmtree(root)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m bench.largebench", description=__doc__.split("\n")[0]
    )
    parser.add_argument("--sizes", default="100M,1G", help="comma-separated sizes, e.g. 100M,1G,4G")
    parser.add_argument("--peers", default="sed,perl,python", help="comma-separated peers")
    parser.add_argument("--dir", default=None, help="where to put the files (default: a temp dir)")
    parser.add_argument("--no-ten", action="store_true", help="skip the ten-edit history check")
    parser.add_argument("--only", default="", help="run only operations whose name has this")
    parser.add_argument("--repeat", type=int, default=1, help="runs per tool (median shown)")
    opts = parser.parse_args(argv)
    sizes = [parse_size(s) for s in opts.sizes.split(",") if s]
    peers = [p for p in opts.peers.split(",") if p]
    workdir = Path(tempfile.mkdtemp(prefix="largebench-", dir=opts.dir))
    try:
        need = max(sizes) * 2.2
        free = shutil.disk_usage(workdir).free
        if free < need:
            raise SystemExit(f"needs {human(int(need))} free in {workdir}, has {human(free)}")
        print("# filewright large-file changes vs sed -i + sync, perl -pi, Python one-liner")
        print("\n## edit at the streaming threshold (peak RSS)\n")
        print("| size | path | call (s) | peak RSS (MB) |\n|---|---|---:|---:|")
        in_memory_ceiling(workdir)
        for size in sizes:
            ten = not opts.no_ten and not opts.only and size >= (1 << 30)
            bench_size(size, workdir, peers, ten, opts.only, max(1, opts.repeat))
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    return 0
