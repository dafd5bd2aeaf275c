"""The searchbench blocks that go through a toolset, as every user does.

Each block times, interleaved with the other contenders (see ``race``), the tool of the
``default`` toolset on a workspace whose ``.filewright.toml`` holds 20 realistic rules
(:data:`bench.searchbench.tree.POLICY_RULES`), against what ripgrep or ``ls`` alone
take: ``warm`` reuses one workspace (an MCP server's case: the policy's per-directory
states outlive a call); ``cold`` builds a new workspace for every call (the CLI's case).
It also measures the peak memory of a glob over the whole tree in a process of its own.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bench.searchbench.timing import Contender, race, report, rg_lines
from bench.searchbench.tree import POLICY_TOML
from filewright import Workspace
from filewright.search import format_list_gemini, glob, grep, list_directory
from filewright.search.ripgrep import BASE_ARGS

RG_FLAGS = list(BASE_ARGS)
WIDE_ENTRIES = 100_000


def ensure_policy(root: Path) -> None:
    """Put the 20-rule `.filewright.toml` in `root` (unless it is already there)."""
    path = root / ".filewright.toml"
    if not path.exists() or path.read_text(encoding="utf-8") != POLICY_TOML:
        path.write_text(POLICY_TOML, encoding="utf-8")


def ensure_wide(root: Path, entries: int = WIDE_ENTRIES) -> Path:
    """A workspace holding `entries/`, one directory of `entries` empty files (and the
    policy file); made once, next to the tree."""
    wide = root.parent / (root.name + "-wide")
    directory = wide / "entries"
    if not directory.is_dir() or sum(1 for _ in os.scandir(directory)) != entries:
        directory.mkdir(parents=True, exist_ok=True)
        for i in range(entries):
            fd = os.open(directory / f"entry{i:06d}.txt", os.O_WRONLY | os.O_CREAT, 0o644)
            os.close(fd)
    ensure_policy(wide)
    return wide


def _call(tools: Any, tool: str, args: dict[str, Any]) -> Any:
    result = tools.call(tool, args)
    assert result.ok, result.text
    return result


def toolset_calls(
    root: Path, tool: str, args: dict[str, Any]
) -> tuple[Callable[[], Any], Callable[[], Any]]:
    """(warm, cold) calls of the `default` toolset's `tool` on a workspace at `root`."""
    tools = Workspace(root).toolset("default")

    def warm() -> Any:
        return _call(tools, tool, args)

    def cold() -> Any:
        return _call(Workspace(root).toolset("default"), tool, args)

    return warm, cold


def bench_toolset_glob(rg: str, root: Path, pattern: str, runs: int) -> None:
    print(f"\nglob {pattern!r} through the default toolset (20-rule .filewright.toml)")
    args = ["--files", "--null", *RG_FLAGS, "--iglob", "/" + pattern]
    args += ["--iglob", "!.git", "--iglob", "!node_modules", "."]
    warm, cold = toolset_calls(root, "glob", {"pattern": pattern})
    cs = [
        Contender("rg --files --glob (unsorted)", lambda: rg_lines(rg, root, args), runs),
        Contender("engine glob (no policy)", lambda: glob(root, pattern, engine="rg"), runs),
        Contender("default glob, warm workspace", warm, runs),
        Contender("default glob, new workspace per call", cold, runs),
    ]
    race(cs)
    data = cs[2].result.data
    report(
        cs,
        {
            cs[0].label: f"{cs[0].result} files",
            cs[2].label: f"{data['total']} files (+{data['ignored_count']} ignored); "
            "target <= 1.50x",
        },
    )


def bench_sorted_glob(rg: str, root: Path, pattern: str, runs: int) -> None:
    """Issue 32: the newest-first glob through `default` against ripgrep doing the same
    work (`rg --files --sortr modified`: walk, stat every match, sort by time)."""
    print(f"\nglob {pattern!r}, newest first: default toolset vs rg --sortr modified")
    args = ["--files", "--null", *RG_FLAGS, "--iglob", "/" + pattern]
    args += ["--iglob", "!.git", "--iglob", "!node_modules", "--sortr", "modified", "."]
    warm, cold = toolset_calls(root, "glob", {"pattern": pattern})
    cs = [
        Contender("rg --files --glob --sortr modified", lambda: rg_lines(rg, root, args), runs),
        Contender("default glob, warm workspace", warm, runs),
        Contender("default glob, new workspace per call", cold, runs),
    ]
    race(cs)
    data = cs[1].result.data
    report(
        cs,
        {
            cs[0].label: f"{cs[0].result} files",
            cs[1].label: f"{data['total']} files (+{data['ignored_count']} ignored); "
            "target <= 1.00x",
        },
    )


def bench_toolset_grep(rg: str, root: Path, pattern: str, runs: int) -> None:
    print(f"\ngrep {pattern!r} through the default toolset (20-rule .filewright.toml)")
    flags = [*RG_FLAGS, "-s", "--glob", "!.git", "-e", pattern, "."]
    warm, cold = toolset_calls(root, "grep", {"pattern": pattern, "max_matches": 2000})
    cs = [
        Contender("rg (same flags, text output)", lambda: rg_lines(rg, root, ["-n", *flags]), runs),
        Contender("engine grep (no policy)", lambda: grep(root, pattern, engine="rg"), runs),
        Contender("default grep, warm workspace", warm, runs),
        Contender("default grep, new workspace per call", cold, runs),
    ]
    race(cs)
    data = cs[2].result.data
    report(
        cs,
        {
            cs[0].label: f"{cs[0].result} lines",
            cs[2].label: f"{len(data['matches'])} matches; target <= 1.30x",
        },
    )


def bench_toolset_list(wide: Path, runs: int) -> None:
    directory = wide / "entries"
    print(f"\nlist a directory of {WIDE_ENTRIES:,} entries through the default toolset")
    warm, cold = toolset_calls(wide, "list", {"path": "entries", "max_entries": 1000})
    listed = list_directory(directory)

    def ls() -> int:
        out = subprocess.run(
            f"ls -f {directory} | wc -l", shell=True, capture_output=True, check=True
        ).stdout
        return int(out)

    cs = [
        Contender("ls -f | wc -l", ls, runs),
        Contender(
            "engine list_directory, first 1,000 (no policy)",
            lambda: list_directory(directory, limit=1000),
            runs,
        ),
        Contender(
            "  formatting alone (gemini text)", lambda: format_list_gemini(listed, "."), runs
        ),
        Contender("default list, warm workspace", warm, runs),
        Contender("default list, new workspace per call", cold, runs),
    ]
    race(cs)
    fmt = cs[2].median
    budget = 2 * cs[0].median + fmt
    report(
        cs,
        {
            cs[0].label: f"{cs[0].result} lines",
            cs[3].label: f"target <= 2x ls + formatting = {budget * 1000:.1f} ms",
        },
    )


PEAK_PROBE = r"""
import json, os, sys, threading, time
from filewright import Workspace


def rss_kib(pid):
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def children(pid):
    found = []
    try:
        for tid in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{tid}/children") as f:
                found += [int(c) for c in f.read().split()]
    except OSError:
        pass
    return found


peak = {"total": 0, "rg": 0}
done = threading.Event()


def sample():
    me = os.getpid()
    while not done.is_set():
        kids = sum(rss_kib(c) for c in children(me))
        peak["rg"] = max(peak["rg"], kids)
        peak["total"] = max(peak["total"], rss_kib(me) + kids)
        time.sleep(0.005)


before = rss_kib(os.getpid())
watcher = threading.Thread(target=sample, daemon=True)
watcher.start()
result = Workspace(sys.argv[1]).toolset("default").call("glob", {"pattern": sys.argv[2]})
done.set()
watcher.join()
with open("/proc/self/status") as f:
    hwm = next(int(line.split()[1]) for line in f if line.startswith("VmHWM:"))
print(json.dumps({"ok": result.ok, "total": result.data.get("total"), "import_kib": before,
                  "python_kib": hwm, "rg_kib": peak["rg"], "sum_kib": peak["total"]}))
"""


def peak_rss(root: Path, pattern: str = "**/*") -> None:
    """Peak resident memory of one `default` glob over the whole tree, in a fresh process:
    Python's own high-water mark, and the most that it and its ripgreps held at once
    (sampled every 5 ms from /proc; Linux only)."""
    if not Path("/proc/self/status").exists():
        print("\npeak RSS: needs Linux's /proc")
        return
    done = subprocess.run(
        [sys.executable, "-c", PEAK_PROBE, str(root), pattern],
        capture_output=True,
        text=True,
        check=True,
    )
    got = json.loads(done.stdout)
    mib = 1024
    print(
        f"\npeak RSS, default glob {pattern!r} over the tree ({got['total']:,} files): "
        f"Python {got['python_kib'] / mib:.1f} MiB (after `import filewright`: "
        f"{got['import_kib'] / mib:.1f} MiB), its ripgreps at most {got['rg_kib'] / mib:.1f} "
        f"MiB together; all at once at most {got['sum_kib'] / mib:.1f} MiB "
        "(target <= 200 MB)"
    )
