"""Memory budgets that hold whatever the input (issue 22, items 9-11).

Each call runs in a child process whose address space is capped (`RLIMIT_AS`, inherited
by ripgrep), at sizes that keep the suite fast: without the budget the call would need
more memory than the cap and die with MemoryError (or be killed); with it, the call
answers (a success cut at the output budget, or a clear refusal). bench/stress runs the
same cases at full size and prints peak RSS and time.
"""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from samples import pdf_bomb

from .forked_calls import call_server, close_call_server

AS_LIMIT = 1 << 30  # 1 GiB of address space for filewright (and, inherited, ripgrep)

DRIVER = r"""
import json, resource, sys
spec = json.loads(sys.argv[1])  # (forked: filewright and the toolsets are imported)
limit = spec["as_limit"]
resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
if spec.get("python_engine"):
    from filewright.search import ripgrep
    ripgrep.find_rg = lambda: None
from filewright import Workspace
ws = Workspace(spec["root"], confirm=True, **spec.get("workspace", {}))
ts = ws.toolset(spec["toolset"])
for tool, args in spec.get("first", []):
    ts.call(tool, args)
r = ts.call(spec["tool"], spec["args"])
print(json.dumps({"ok": r.ok, "error": r.data.get("error"), "length": len(r.text),
                  "head": r.text[:300], "traceback": "Traceback" in r.text}))
"""


def call_capped(
    root: Path,
    toolset: str,
    tool: str,
    args: dict[str, Any],
    *,
    python_engine: bool = False,
    workspace: dict[str, Any] | None = None,
    first: list[Any] | None = None,
    timeout: float = 120,
) -> dict[str, Any]:
    """One tool call in a child process (forked: `forked_calls`) with a capped address
    space."""
    spec = {
        "root": str(root),
        "toolset": toolset,
        "tool": tool,
        "args": args,
        "as_limit": AS_LIMIT,
        "python_engine": python_engine,
        "workspace": workspace or {},
        "first": first or [],
    }
    child = call_server().spawn(["driver", json.dumps(spec)], DRIVER, text=True)
    try:
        out, err = child.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        child.kill()
        child.communicate()
        raise
    context = f"{toolset}.{tool}({json.dumps(args)[:100]})"
    assert child.returncode == 0, f"{context}: exit {child.returncode}\n{err[-2000:]}"
    reply: dict[str, Any] = json.loads(out)
    assert not reply["traceback"], f"{context}: {reply['head']}"
    assert reply["error"] != "internal", f"{context}: {reply['head']}"
    return reply


@pytest.fixture(scope="module", autouse=True)
def _fork_server() -> Iterator[None]:
    yield
    close_call_server()


# -- 10: a change whose result would pass the size limit ------------------------------------


@pytest.fixture
def amplifier(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    (root / "small.txt").write_text("a\n" * 50_000)  # 100 KB, 50,000 places to amplify
    return root


AMPLIFYING = [
    (
        "default",
        "edit",
        {"path": "small.txt", "old_string": "a", "new_string": "B" * 20_000, "replace_all": True},
    ),
    (
        "claude",
        "Edit",
        {
            "file_path": "small.txt",
            "old_string": "a",
            "new_string": "B" * 20_000,
            "replace_all": True,
        },
    ),
    ("worker", "replace_in_file", {"path": "small.txt", "old": "a", "new": "B" * 20_000}),
    (
        "worker",
        "replace_in_file",
        {"path": "small.txt", "old": "a+", "new": "\\g<0>" * 20_000, "regex": True},
    ),
    (
        "default",
        "multi_edit",
        {
            "path": "small.txt",
            "edits": [{"old_string": "a", "new_string": "B" * 20_000, "replace_all": True}],
        },
    ),
]


@pytest.mark.parametrize(("toolset", "tool", "args"), AMPLIFYING, ids=lambda v: str(v)[:30])
def test_an_amplifying_edit_is_refused_before_it_is_built(
    amplifier: Path, toolset: str, tool: str, args: dict[str, Any]
) -> None:
    first = []
    if toolset == "claude":  # read before write
        args = {**args, "file_path": str(amplifier / "small.txt")}
        first = [("Read", {"file_path": args["file_path"]})]
    before = (amplifier / "small.txt").read_bytes()
    reply = call_capped(amplifier, toolset, tool, args, first=first)
    assert not reply["ok"], reply
    assert (amplifier / "small.txt").read_bytes() == before
    assert reply["error"] in ("too_large", "FILE_TOO_LARGE"), reply
    leftovers = [p.name for p in amplifier.iterdir() if p.name not in ("small.txt", ".filewright")]
    assert leftovers == [], leftovers


def test_an_edit_within_the_limit_still_works(amplifier: Path) -> None:
    reply = call_capped(
        amplifier,
        "default",
        "edit",
        {"path": "small.txt", "old_string": "a", "new_string": "bb", "replace_all": True},
    )
    assert reply["ok"], reply
    assert (amplifier / "small.txt").read_text() == "bb\n" * 50_000


def test_the_result_limit_follows_the_workspace_limit(amplifier: Path) -> None:
    reply = call_capped(
        amplifier,
        "default",
        "edit",
        {"path": "small.txt", "old_string": "a", "new_string": "bbb", "replace_all": True},
        workspace={"max_file_bytes": 150_000},
    )
    assert not reply["ok"] and reply["error"] == "too_large", reply
    assert os.path.getsize(amplifier / "small.txt") == 100_000


# -- 11: every reader has a time, memory and output budget -------------------------------------


@pytest.mark.parametrize(
    ("toolset", "tool", "key"),
    [
        ("default", "read", "path"),
        ("claude", "Read", "file_path"),
        ("gemini", "read_file", "path"),
        ("companion", "read", "path"),
    ],
)
def test_a_pdf_bomb_is_cut_at_the_output_budget(
    tmp_path: Path, toolset: str, tool: str, key: str
) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    # 20 KB on disk; 14 MB of content, shared by 60 pages: 480 M characters unbudgeted.
    (root / "bomb.pdf").write_bytes(pdf_bomb(pages=60, repeats=1_000_000))
    assert (root / "bomb.pdf").stat().st_size < 64_000
    path = str(root / "bomb.pdf") if toolset == "claude" else "bomb.pdf"
    reply = call_capped(root, toolset, tool, {key: path}, timeout=60)
    assert reply["length"] <= 260_000, reply["length"]


def test_a_notebook_of_a_million_objects_is_refused(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    cells = ",".join(['{"cell_type":"code","source":[],"outputs":[{}]}'] * 400_000)
    (root / "nb.ipynb").write_text('{"cells":[' + cells + '],"metadata":{}}')
    reply = call_capped(root, "default", "read", {"path": "nb.ipynb"})
    assert not reply["ok"], reply
