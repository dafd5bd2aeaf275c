"""`filewright serve --toolset mcpfs` answers as the official MCP filesystem server does.

Both checks drive the servers with the official Python MCP client over stdio, on the
scenario of tests/mcpfs_scenario.py. The first compares filewright with the official
server's answers recorded by bench/surfaces/mcpfs_compare.py --record (no node, no
network); the second runs the official server itself next to filewright, when node and
the npm package are installed (bench/surfaces/mcpfs_compare.py installs it). filewright's
server is the same command line forked from a warm interpreter (tests/forkserver.py).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import anyio
import pytest
from forked_mcp import forked_stdio
from forkserver import ForkServer, shared
from mcp.client.stdio import StdioServerParameters
from mcpfs_scenario import (
    DELIBERATE,
    RECORDED,
    SERVE,
    compare,
    filewright_params,
    make_tree,
    official_binary,
    official_params,
    run_scenario,
)


@pytest.fixture(scope="module")
def forks(request: pytest.FixtureRequest) -> ForkServer:
    return shared(request.session)


def forked(forks: ForkServer, params: StdioServerParameters) -> Any:
    """The same `filewright serve` command line, forked from the warm interpreter (the
    official MCP client talks to it over its stdin/stdout, tests/forked_mcp.py)."""
    assert params.args[:2] == ["-c", SERVE[2]] and params.args[2] == "serve", params.args
    return forked_stdio(forks, ["filewright", *params.args[2:]], cwd=params.cwd)


def unexpected(rows: list[tuple[str, str, str]]) -> list[tuple[str, str, str]]:
    return [row for row in rows if row[1] not in ("same", "deliberate")]


def test_recording_covers_the_scenario_and_every_tool() -> None:
    recorded = json.loads(RECORDED.read_text())
    names = {t["name"] for t in recorded["tools"]}
    assert len(names) == 14 and "read_file" in names
    used = {label for label in recorded["calls"]}
    assert set(DELIBERATE) <= used


def test_answers_match_the_recorded_official_server(forks: ForkServer, tmp_path: Path) -> None:
    recorded = json.loads(RECORDED.read_text())
    root = make_tree(tmp_path / "ws")
    ours = anyio.run(run_scenario, forked(forks, filewright_params(root)), root)
    rows = compare(recorded, ours)
    assert unexpected(rows) == []
    assert rows[0] == ("list_tools", "same", "")
    # The deliberate differences are still there (and still deliberate).
    assert {label for label, verdict, _ in rows if verdict == "deliberate"} <= set(DELIBERATE)


def test_side_by_side_with_the_official_server(forks: ForkServer, tmp_path: Path) -> None:
    binary = official_binary()
    if binary is None:
        pytest.skip(
            "official server not installed: run bench/surfaces/mcpfs_compare.py once "
            "(needs node and npm) or set FILEWRIGHT_MCPFS_OFFICIAL"
        )
    theirs = make_tree(tmp_path / "official" / "ws")
    ours = make_tree(tmp_path / "filewright" / "ws")
    official = anyio.run(run_scenario, official_params(theirs, binary), theirs)
    mine = anyio.run(run_scenario, forked(forks, filewright_params(ours)), ours)
    assert unexpected(compare(official, mine)) == []
