"""The `mcpfs` toolset side by side with the official MCP filesystem server.

    uv run python bench/surfaces/mcpfs_compare.py            # compare, one line per call
    uv run python bench/surfaces/mcpfs_compare.py --record   # also rewrite the recording
    uv run python bench/surfaces/mcpfs_compare.py --calls 200  # also time both servers

Installs `@modelcontextprotocol/server-filesystem` with npm into the bench cache (as
bench/surfaces/run.py does), starts it and `filewright serve --toolset mcpfs` on two copies
of the same tree, runs the scenario of tests/mcpfs_scenario.py through the official
Python MCP client, and compares `list_tools` and every answer (content blocks, structured
content, isError; the root and JavaScript dates normalised). `--record` writes the official
server's answers to tests/data/mcpfs_official.json, which tests/test_mcpfs_official.py
checks filewright against without node or network. Exit status 1 on an unexpected
difference.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import anyio

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parents[1] / "tests"))

import mcpfs_scenario as scenario  # noqa: E402
from run import node_server  # noqa: E402


def package_version(binary: Path) -> str:
    package = binary.resolve().parents[1] / "package.json"
    try:
        return json.loads(package.read_text())["version"]
    except (OSError, ValueError, KeyError):
        return "?"


async def _timed(params: Any, root: Path, calls: int) -> dict[str, float]:
    """Median milliseconds per call of read_text_file and of edit_file (a one-line edit,
    alternating two texts), after a warm-up."""
    from mcp import Client

    path = str(root / "long.txt")
    out: dict[str, list[float]] = {"read_text_file": [], "edit_file": []}
    async with Client(params, mode="legacy") as client:
        for i in range(calls + 10):
            old, new = ("line 7", "line seven") if i % 2 == 0 else ("line seven", "line 7")
            for tool, args in (
                ("read_text_file", {"path": path}),
                ("edit_file", {"path": path, "edits": [{"oldText": old, "newText": new}]}),
            ):
                start = time.perf_counter()
                got = await client.call_tool(tool, args)
                took = (time.perf_counter() - start) * 1000
                assert not got.is_error, got
                if i >= 10:
                    out[tool].append(took)
    return {k: statistics.median(v) for k, v in out.items()}


def timing(binary: Path, calls: int, rounds: int = 3) -> None:
    """Both servers in alternating rounds; the medians of the rounds' medians."""
    results: dict[str, list[dict[str, float]]] = {"official": [], "filewright": []}
    with tempfile.TemporaryDirectory() as tmp:
        for r in range(rounds):
            for label in ("official", "filewright"):
                root = scenario.make_tree(Path(tmp) / f"{label}{r}" / "ws")
                params = (
                    scenario.official_params(root, str(binary))
                    if label == "official"
                    else scenario.filewright_params(root)
                )
                results[label].append(anyio.run(_timed, params, root, calls))
    print(f"\nround trip per call, ms (median of {rounds} rounds x {calls} calls)")
    print(f"{'tool':<16} {'official':>9} {'mcpfs':>9} {'ratio':>7}")
    for tool in ("read_text_file", "edit_file"):
        theirs = statistics.median(x[tool] for x in results["official"])
        ours = statistics.median(x[tool] for x in results["filewright"])
        print(f"{tool:<16} {theirs:>9.2f} {ours:>9.2f} {ours / theirs:>6.2f}x")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--record", action="store_true", help="rewrite the recorded answers")
    parser.add_argument("--calls", type=int, default=0, help="also time N calls per tool")
    args = parser.parse_args()
    binary = node_server()
    if binary is None:
        print("official server unavailable (no node/npm, or the npm install failed)")
        return 0
    version = package_version(binary)
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        theirs = scenario.make_tree(base / "official" / "ws")
        ours = scenario.make_tree(base / "filewright" / "ws")
        official = anyio.run(
            scenario.run_scenario, scenario.official_params(theirs, str(binary)), theirs
        )
        mine = anyio.run(scenario.run_scenario, scenario.filewright_params(ours), ours)
    rows = scenario.compare(official, mine)
    width = max(len(r[0]) for r in rows)
    print(f"{scenario.PACKAGE} {version} vs filewright serve --toolset mcpfs\n")
    for label, verdict, detail in rows:
        print(f"{label:<{width}}  {verdict:<12}  {detail}")
    counts = {v: sum(1 for r in rows if r[1] == v) for v in {r[1] for r in rows}}
    print("\n" + ", ".join(f"{n} {v}" for v, n in sorted(counts.items())))
    if args.record:
        official["package"] = f"{scenario.PACKAGE}@{version}"
        scenario.RECORDED.parent.mkdir(exist_ok=True)
        scenario.RECORDED.write_text(json.dumps(official, indent=1, ensure_ascii=False) + "\n")
        print(f"recorded {scenario.RECORDED}")
    if args.calls:
        timing(binary, args.calls)
    return 1 if counts.get("DIFFERENT") else 0


if __name__ == "__main__":
    sys.exit(main())
