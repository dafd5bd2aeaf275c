"""The `mcpfs` toolset side by side with the official MCP filesystem server.

    uv run python bench/surfaces/mcpfs_compare.py            # compare, one line per call
    uv run python bench/surfaces/mcpfs_compare.py --record   # also rewrite the recording

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
import sys
import tempfile
from pathlib import Path

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


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--record", action="store_true", help="rewrite the recorded answers")
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
    return 1 if counts.get("DIFFERENT") else 0


if __name__ == "__main__":
    sys.exit(main())
