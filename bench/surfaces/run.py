"""Surface benchmarks, in one run, ratios side by side.

1. MCP round trip per call (read a small file; edit a small file): filewright's server
   (`filewright serve`) vs the official Node filesystem server
   (`@modelcontextprotocol/server-filesystem`, installed from the npm registry into a cache
   directory), both driven over stdio by the same official Python MCP client. Target:
   filewright ≤ 1.0× the Node server's median. Beside them, the Python SDK's own floor:
   a bare `MCPServer` whose tools return a constant at once, on the SDK's stdio
   transport and on filewright's pipe streams (`filewright.surfaces.mcp.stdio.MessageReader`/`Writer`).
2. Start-up: `filewright call read` of a small file, end to end as a process, vs
   `python -c "import json"` with the same interpreter. Target ≤ 3×.

    uv run python bench/surfaces/run.py [--calls 200] [--rounds 5] [--startup-runs 21]
    uv run python bench/surfaces/run.py --startup-only     # the start-up table alone

Wall times are medians; the MCP table also shows the same read / edit as a direct
toolset call in-process (the engine's share of the round trip). Start-up also reports
the children's CPU time (user + system), which a loaded machine disturbs much less than
wall time, and is measured twice: without bytecode for filewright (its `__pycache__`
directories removed, PYTHONDONTWRITEBYTECODE=1: every start compiles filewright's modules,
as on a fresh checkout in this environment), and with a bytecode cache forced on
(PYTHONPYCACHEPREFIX in the bench cache, PYTHONDONTWRITEBYTECODE unset), as after
`uv sync --compile-bytecode` or a pip install.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import anyio
from mcp import Client
from mcp.client.stdio import StdioServerParameters

REPO = Path(__file__).resolve().parents[2]
CACHE = Path(os.environ.get("FILEWRIGHT_BENCH_CACHE", Path.home() / ".cache" / "filewright-bench"))
NODE_PACKAGE = "@modelcontextprotocol/server-filesystem"
SMALL = "".join(f"line {i}: the quick brown fox jumps over the lazy dog\n" for i in range(1, 41))


# -- MCP round trip ---------------------------------------------------------------------------


def node_server() -> Path | None:
    """The Node filesystem server's binary, installed with npm into the cache if needed."""
    if shutil.which("npm") is None or shutil.which("node") is None:
        return None
    prefix = CACHE / "npm"
    binary = prefix / "node_modules" / ".bin" / "mcp-server-filesystem"
    if not binary.exists():
        prefix.mkdir(parents=True, exist_ok=True)
        print(f"installing {NODE_PACKAGE} into {prefix} ...", file=sys.stderr)
        proc = subprocess.run(
            ["npm", "install", "--no-audit", "--no-fund", "--prefix", str(prefix), NODE_PACKAGE],
            capture_output=True, text=True, timeout=600,
        )  # fmt: skip
        if proc.returncode != 0:
            print(proc.stderr[-2000:], file=sys.stderr)
            return None
    return binary


class Server:
    """One server under test: how to start it and how to read / edit through it."""

    def __init__(self, label: str, params: StdioServerParameters, read: Any, edit: Any) -> None:
        self.label, self.params, self.read, self.edit = label, params, read, edit


# A bare MCPServer whose every tool returns a read-sized constant at once: the Python SDK's
# own per-call cost, on the SDK's stdio transport or on filewright's pipe streams.
NOOP_SERVER = """
import sys
import anyio
import mcp_types as types
from mcp.server.mcpserver import MCPServer

TEXT = "x" * 2400

class NoOp(MCPServer):
    async def list_tools(self):
        return [types.Tool(name=n, input_schema={"type": "object"}) for n in ("read", "edit")]

    async def call_tool(self, name, arguments, context=None):
        return types.CallToolResult(
            content=[types.TextContent(type="text", text=TEXT)],
            structured_content={"path": arguments.get("path")},
        )

    if sys.argv[1] == "filewright-stdio":
        from filewright.surfaces.mcp.server import FilewrightServer

        run_stdio_async = FilewrightServer.run_stdio_async

anyio.run(NoOp(name="noop", log_level="WARNING").run_stdio_async)
"""
NOOPS = ("sdk-noop (sdk stdio)", "sdk-noop (filewright stdio)")


def servers(root: Path, node: Path | None, baseline: Path | None = None) -> list[Server]:
    fw = StdioServerParameters(
        command=sys.executable,
        args=[
            "-c",
            "from filewright.surfaces.cli.main import main; main()",
            "serve",
            "--root",
            str(root),
        ],
        cwd=str(root),
    )
    out = [
        Server(
            "filewright",
            fw,
            lambda p: ("read", {"path": p}),
            lambda p, old, new: ("edit", {"path": p, "old_string": old, "new_string": new}),
        )
    ]
    if baseline is not None:  # the same server from another source tree (before/after)
        env = {**os.environ, "PYTHONPATH": str(baseline / "src")}
        out.append(
            Server(
                "filewright (baseline)",
                StdioServerParameters(command=fw.command, args=fw.args, cwd=str(root), env=env),
                out[0].read,
                out[0].edit,
            )
        )
    for label, transport in zip(NOOPS, ("sdk-stdio", "filewright-stdio"), strict=True):
        out.append(
            Server(
                label,
                StdioServerParameters(
                    command=sys.executable, args=["-c", NOOP_SERVER, transport], cwd=str(root)
                ),
                lambda p: ("read", {"path": p}),
                lambda p, old, new: ("edit", {"path": p, "old_string": old, "new_string": new}),
            )
        )
    if node is not None:
        out.append(
            Server(
                "node-filesystem",
                StdioServerParameters(command=str(node), args=[str(root)], cwd=str(root)),
                lambda p: ("read_text_file", {"path": p}),
                lambda p, old, new: (
                    "edit_file",
                    {"path": p, "edits": [{"oldText": old, "newText": new}]},
                ),
            )
        )
    return out


def server_pid() -> int | None:
    """The process this bench started last (the server the client runs): the newest
    child of this process, from /proc (None where there is no /proc)."""
    me, found = str(os.getpid()), []
    for entry in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = entry.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if fields[1] == me:  # ppid
            found.append((int(fields[19]), int(entry.parent.name)))  # start time, pid
    return max(found)[1] if found else None


def process_cpu(pid: int | None) -> float:
    """CPU time of every thread of `pid` so far (seconds, nanosecond-precise from each
    thread's schedstat; a thread that ended is no longer counted: the servers' threads
    live through a measured phase). 0.0 without /proc."""
    if pid is None:
        return 0.0
    total = 0
    for stat in Path(f"/proc/{pid}/task").glob("*/schedstat"):
        try:
            total += int(stat.read_text().split()[0])
        except (OSError, ValueError, IndexError):
            continue
    return total / 1e9


async def time_calls(server: Server, path: str, calls: int, mode: str) -> dict[str, list[float]]:
    """Per-call wall times for `calls` reads and `calls` edits (after a warm-up), and the
    server process's CPU per call (`read_cpu`, `edit_cpu`: all its threads, measured over
    the `calls` reads, then over the `calls` edits)."""
    times: dict[str, list[float]] = {"read": [], "edit": [], "read_cpu": [], "edit_cpu": []}
    async with Client(server.params, mode=mode) as client:
        pid = server_pid()
        pairs = [
            ("line 20: the quick brown fox", "line 20: the quick brown cat"),
            ("line 20: the quick brown cat", "line 20: the quick brown fox"),
        ]
        for _ in range(10):  # warm up both paths
            name, args = server.read(path)
            await client.call_tool(name, args)
        for i in range(2):
            name, args = server.edit(path, *pairs[i % 2])
            await client.call_tool(name, args)
        for op in ("read", "edit"):
            c0 = process_cpu(pid)
            for i in range(calls):
                name, args = server.read(path) if op == "read" else server.edit(path, *pairs[i % 2])
                t0 = time.perf_counter()
                result = await client.call_tool(name, args)
                times[op].append(time.perf_counter() - t0)
                assert not result.is_error, result
            times[op + "_cpu"].append((process_cpu(pid) - c0) / calls)
    return times


def bench_in_process(calls: int) -> dict[str, float]:
    """The same read / edit as direct toolset calls in this process: the engine's share."""
    from filewright import Workspace

    with tempfile.TemporaryDirectory(prefix="fw-engine-") as tmp:
        (Path(tmp) / "small.txt").write_text(SMALL, encoding="utf-8")
        tools = Workspace(tmp).toolset("default")
        pairs = [("line 20: the quick brown fox", "line 20: the quick brown cat"),
                 ("line 20: the quick brown cat", "line 20: the quick brown fox")]  # fmt: skip
        times: dict[str, list[float]] = {"read": [], "edit": []}
        for i in range(calls + 10):
            t0 = time.perf_counter()
            assert tools.call("read", {"path": "small.txt"}).ok
            t1 = time.perf_counter()
            old, new = pairs[i % 2]
            assert tools.call(
                "edit", {"path": "small.txt", "old_string": old, "new_string": new}
            ).ok
            t2 = time.perf_counter()
            if i >= 10:
                times["read"].append(t1 - t0)
                times["edit"].append(t2 - t1)
    return {op: statistics.median(v) for op, v in times.items()}


def bench_mcp(calls: int, rounds: int, baseline: Path | None = None) -> dict[str, dict[str, float]]:
    node = node_server()
    if node is None:
        print("Node filesystem server unavailable (no node/npm or install failed): "
              "measuring filewright only", file=sys.stderr)  # fmt: skip
    results: dict[str, dict[str, list[float]]] = {}
    with tempfile.TemporaryDirectory(prefix="fw-mcpbench-") as tmp:
        root = Path(tmp).resolve()
        plan = servers(root, node, baseline)
        for server in plan:
            (root / f"{server.label}.txt").write_text(SMALL, encoding="utf-8")
        for _ in range(rounds):  # alternate servers, so load changes hit both alike
            for server in plan:
                path = str(root / f"{server.label}.txt")
                got = anyio.run(time_calls, server, path, calls // rounds, "legacy")
                slot = results.setdefault(server.label, {})
                for op, values in got.items():
                    slot.setdefault(op, []).extend(values)
    return {
        label: {op: statistics.median(v) for op, v in ops.items()} for label, ops in results.items()
    }


# -- start-up ------------------------------------------------------------------------------------


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def measure_pair(
    cmds: dict[str, list[str]], env: dict[str, str], cwd: Path, runs: int
) -> dict[str, tuple[float, float]]:
    """Median wall and CPU seconds of each command, runs interleaved (after a warm-up
    run each), so that a change in machine load hits every command alike."""
    walls: dict[str, list[float]] = {label: [] for label in cmds}
    cpus: dict[str, list[float]] = {label: [] for label in cmds}
    quiet = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL, "check": True}
    for cmd in cmds.values():
        subprocess.run(cmd, env=env, cwd=cwd, **quiet)  # type: ignore[call-overload]
    for _ in range(runs):
        for label, cmd in cmds.items():
            c0, t0 = children_cpu(), time.perf_counter()
            subprocess.run(cmd, env=env, cwd=cwd, **quiet)  # type: ignore[call-overload]
            walls[label].append(time.perf_counter() - t0)
            cpus[label].append(children_cpu() - c0)
    return {
        label: (statistics.median(walls[label]), statistics.median(cpus[label])) for label in cmds
    }


def filewright_command() -> list[str]:
    script = Path(sys.executable).with_name("filewright")
    if script.exists():
        return [str(script)]
    return [sys.executable, "-c", "from filewright.surfaces.cli.main import main; main()"]


def remove_package_bytecode() -> None:
    """Remove the `__pycache__` directories of the filewright package being measured (a
    test run or an earlier start may have written them), so that every start compiles it."""
    package = REPO / "src" / "filewright"
    for cache in sorted(package.rglob("__pycache__")):
        shutil.rmtree(cache, ignore_errors=True)


def bench_startup(runs: int) -> dict[str, dict[str, tuple[float, float]]]:
    out: dict[str, dict[str, tuple[float, float]]] = {}
    with tempfile.TemporaryDirectory(prefix="fw-startup-") as tmp:
        root = Path(tmp)
        (root / "small.txt").write_text(SMALL, encoding="utf-8")
        fw = [*filewright_command(), "call", "read", '{"path": "small.txt"}']
        baseline = [sys.executable, "-c", "import json"]
        bare = {k: v for k, v in os.environ.items() if k != "PYTHONPYCACHEPREFIX"}
        bare["PYTHONDONTWRITEBYTECODE"] = "1"
        cached = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        cached["PYTHONPYCACHEPREFIX"] = str(CACHE / "pycache")
        for label, env in (("no bytecode (filewright)", bare), ("bytecode cache on", cached)):
            if env is bare:
                remove_package_bytecode()
            out[label] = measure_pair(
                {"filewright call read": fw, "python -c 'import json'": baseline}, env, root, runs
            )
    return out


# -- report --------------------------------------------------------------------------------------


def print_startup(startup: dict[str, dict[str, tuple[float, float]]]) -> None:
    print("\nStart-up, end to end as a process (median; target ≤ 3×)")
    print(f"{'':<34}{'filewright call read':>22}{'python -c import json':>24}{'ratio':>10}")
    for label, rows in startup.items():
        (fw_wall, fw_cpu), (py_wall, py_cpu) = (
            rows["filewright call read"],
            rows["python -c 'import json'"],
        )
        print(f"{label + ', wall':<34}{ms(fw_wall):>22}{ms(py_wall):>24}{fw_wall / py_wall:9.2f}×")
        print(f"{label + ', cpu':<34}{ms(fw_cpu):>22}{ms(py_cpu):>24}{fw_cpu / py_cpu:9.2f}×")


def ms(seconds: float) -> str:
    return f"{seconds * 1000:8.2f} ms"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--calls", type=int, default=200, help="calls per operation and server")
    parser.add_argument(
        "--rounds", type=int, default=5, help="alternating rounds (calls are split)"
    )
    parser.add_argument("--startup-runs", type=int, default=21)
    parser.add_argument("--json", action="store_true", help="also print the numbers as JSON")
    parser.add_argument("--mcp-only", action="store_true", help="skip the start-up table")
    parser.add_argument(
        "--startup-only", action="store_true", help="only the start-up table (no MCP servers)"
    )
    parser.add_argument(
        "--baseline",
        type=Path,
        help="a source tree (e.g. `git archive main | tar -x -C DIR`) whose filewright server "
        "is measured too, in the same rounds: before/after",
    )
    args = parser.parse_args()

    if args.startup_only:
        startup = bench_startup(args.startup_runs)
        load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
        print_startup(startup)
        print(f"Load average at the end: {load:.1f}")
        if args.json:
            print(json.dumps({"startup": startup, "load": load}, indent=2))
        return
    mcp = bench_mcp(args.calls, args.rounds, args.baseline)
    engine = bench_in_process(args.calls)
    startup = {} if args.mcp_only else bench_startup(args.startup_runs)
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")

    print("\nMCP round trip per call over stdio (median; same Python MCP client; target ≤ 1.0×)")
    print(f"{'operation':<10}{'filewright':>14}{'node-filesystem':>18}{'ratio':>10}"
          f"{'(engine in-process)':>22}")  # fmt: skip
    for op in ("read", "edit"):
        fw = mcp["filewright"][op]
        node = mcp.get("node-filesystem", {}).get(op)
        ratio = f"{fw / node:9.2f}×" if node else "      n/a"
        print(
            f"{op:<10}{ms(fw):>14}{ms(node) if node else '   n/a':>18}{ratio:>10}{ms(engine[op]):>22}"
        )
    print("\nServer CPU per call (all its threads; median of the rounds; the client's share,")
    print(f"the same for both, is not in it). Load average at the end: {load:.1f}")
    print(f"{'operation':<10}{'filewright':>14}{'node-filesystem':>18}{'ratio':>10}")
    for op in ("read_cpu", "edit_cpu"):
        fw = mcp["filewright"][op]
        node = mcp.get("node-filesystem", {}).get(op)
        ratio = f"{fw / node:9.2f}×" if node else "      n/a"
        name = op.removesuffix("_cpu")
        print(f"{name:<10}{ms(fw):>14}{ms(node) if node else '   n/a':>18}{ratio:>10}")
    if "filewright (baseline)" in mcp:
        base = mcp["filewright (baseline)"]
        print("\nBefore/after, same rounds: the baseline tree's server (wall; server CPU)")
        for op in ("read", "edit"):
            print(
                f"{op:<10}{ms(base[op])} -> {ms(mcp['filewright'][op])};"
                f"{ms(base[op + '_cpu'])} -> {ms(mcp['filewright'][op + '_cpu'])}"
            )
    node_read = mcp.get("node-filesystem", {}).get("read")
    print("\nThe Python SDK's own per-call floor: a no-op MCPServer (constant read-sized result)")
    print(f"{'server':<30}{'per call':>12}{'vs node read':>16}")
    for label in NOOPS:
        floor = statistics.median([mcp[label]["read"], mcp[label]["edit"]])
        versus = f"{floor / node_read:15.2f}×" if node_read else "            n/a"
        print(f"{label:<30}{ms(floor):>12}{versus:>16}")

    if startup:
        print_startup(startup)
    if args.json:
        print(
            json.dumps({"mcp": mcp, "engine": engine, "startup": startup, "load": load}, indent=2)
        )


if __name__ == "__main__":
    main()
