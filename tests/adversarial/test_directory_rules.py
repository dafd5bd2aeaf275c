"""A directory-only rule (`secrets/`, the docs' own example) hides the directory itself
(issue 30, finding 6): no listing of any toolset names it, and naming it answers exactly
as a missing path does, not "is a directory". The entry's type is a required argument of
every policy query, so a caller cannot forget it."""

from __future__ import annotations

import inspect
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from filewright import Workspace
from filewright.engine.workspace import Engine
from filewright.policy.rules import Policy
from filewright.policy.visibility import CheckedVisibility, Visibility

from .support import read_calls, toolset

POLICY = """
[[rules]]
pattern = "secrets/"
access = "hidden"

[[rules]]
pattern = "vault/"
access = "deny"

[[rules]]
pattern = "keep/"
access = "hidden"
"""
"""`keep` is a file: a directory-only rule does not hide it."""


def _fill(root: Path) -> Path:
    root.mkdir()
    (root / ".filewright.toml").write_text(POLICY)
    for d in ("secrets", "vault", "src/secrets"):
        (root / d).mkdir(parents=True)
        (root / d / "key.txt").write_text("k\n")
    (root / "src" / "a.py").write_text("x = 1\n")
    (root / "keep").write_text("a file named like a hidden directory\n")
    return root


def _blob(result: Any) -> str:
    return result.text + json.dumps(result.data, default=str)


def _listings(ts_name: str, root: Path) -> list[tuple[str, dict[str, Any]]]:
    r = str(root)
    calls = {
        "default": [
            ("list", {"path": "."}),
            ("list", {"path": "src"}),
            ("tree", {"path": "."}),
            ("glob", {"pattern": "**/*", "path": "."}),
        ],
        "gemini": [
            ("list_directory", {"path": r}),
            ("list_directory", {"path": r + "/src"}),
            ("glob", {"pattern": "**/*", "path": r}),
        ],
        "mcpfs": [
            ("list_directory", {"path": r}),
            ("list_directory", {"path": r + "/src"}),
            ("list_directory_with_sizes", {"path": r}),
            ("directory_tree", {"path": r}),
            ("search_files", {"path": r, "pattern": "**/*"}),
        ],
        "claude": [("Read", {"file_path": r}), ("Read", {"file_path": r + "/src"})],
        "text_editor": [("str_replace_editor", {"command": "view", "path": r})],
    }
    return calls[ts_name]


LISTING_TOOLSETS = ["default", "gemini", "mcpfs", "claude", "text_editor"]


@pytest.mark.parametrize("ts_name", LISTING_TOOLSETS)
def test_no_listing_names_a_directory_hidden_by_a_directory_rule(
    tmp_path: Path, ts_name: str
) -> None:
    root = _fill(tmp_path / "ws")
    ts = toolset(Workspace(root, confirm=True), ts_name, list_directories=True)
    for tool, args in _listings(ts_name, root):
        result = ts.call(tool, args)
        assert result.ok, (tool, args, result.text)
        blob = _blob(result)
        assert "secrets" not in blob and "vault" not in blob, (tool, args, result.text)
        assert "key.txt" not in blob, (tool, args, result.text)
    # The rule is for directories: the file `keep` is listed, so listings did run.
    first = ts.call(*_listings(ts_name, root)[0])
    assert "keep" in first.text, first.text


READERS = ["default", "gemini", "mcpfs", "claude", "text_editor", "companion", "worker"]


@pytest.mark.parametrize("ts_name", READERS)
def test_naming_a_hidden_directory_answers_like_a_missing_path(
    tmp_path: Path, ts_name: str
) -> None:
    root = _fill(tmp_path / "ws")
    ts = toolset(Workspace(root, confirm=True), ts_name)
    calls = [c for c in read_calls(ts_name, str(root / "secrets"))]
    if ts_name == "default":
        calls.append(("stat", {"path": str(root / "secrets")}))
    assert calls or ts_name == "worker"
    for tool, args in calls:
        hidden = ts.call(tool, args)
        absent_args = json.loads(json.dumps(args).replace("/secrets", "/nothere"))
        absent = ts.call(tool, absent_args)
        assert not hidden.ok, (tool, args, hidden.text)
        assert hidden.text == absent.text.replace("nothere", "secrets"), (tool, hidden.text)
        assert hidden.data.get("error") == absent.data.get("error") or (
            {hidden.data.get("error"), absent.data.get("error")} == {"hidden", "not_found"}
        )


def test_cli_list_and_read(tmp_path: Path) -> None:
    root = _fill(tmp_path / "ws")
    main = [sys.executable, "-c", "from filewright.surfaces.cli.main import main; main()"]

    def call(tool: str, args: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        done = subprocess.run(
            [*main, "call", "--root", str(root), tool, json.dumps(args)],
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        return done.returncode, json.loads(done.stdout)

    code, listed = call("list", {})
    assert code == 0 and "keep" in listed["text"]
    assert "secrets" not in json.dumps(listed) and "vault" not in json.dumps(listed)
    code, hidden = call("read", {"path": "secrets"})
    _, absent = call("read", {"path": "nothere"})
    assert code == 1 and hidden["text"] == absent["text"].replace("nothere", "secrets")


def test_a_link_is_judged_as_file_and_as_directory(tmp_path: Path) -> None:
    """A link may lead to a directory: a directory-only rule hides a link of its name."""
    root = _fill(tmp_path / "ws")
    (root / "src" / "secrets").rename(root / "src" / "elsewhere")
    (root / "src" / "secrets").symlink_to("elsewhere")
    result = Workspace(root).toolset("default").call("list", {"path": "src"})
    assert result.ok and "secrets" not in result.text and "elsewhere" in result.text


def _without_default(fn: Any, name: str = "is_dir") -> bool:
    param = inspect.signature(fn).parameters[name]
    return param.default is inspect.Parameter.empty


def test_the_entry_type_is_a_required_argument_of_every_policy_query() -> None:
    for fn in (
        Policy.access,
        Policy.decide,
        Policy.is_visible,
        Visibility.__call__,
        Visibility._check,
        CheckedVisibility.__call__,
        CheckedVisibility._check,
        Engine.is_visible_real,
    ):
        assert _without_default(fn), fn.__qualname__
    with pytest.raises(TypeError):
        Policy().access("secrets")  # type: ignore[call-arg]


@pytest.mark.parametrize(
    ("ts_name", "tool", "args"),
    [
        ("default", "list", {}),
        ("claude", "Read", {"file_path": "ROOT"}),
        ("mcpfs", "list_directory", {"path": "ROOT"}),
        ("gemini", "list_directory", {"path": "ROOT"}),
    ],
)
def test_over_mcp_too(tmp_path: Path, ts_name: str, tool: str, args: dict[str, Any]) -> None:
    from mcp import Client
    from test_server import run, text_of

    from filewright.surfaces.mcp.server import build_server

    root = _fill(tmp_path / "ws")
    args = {k: str(root) if v == "ROOT" else v for k, v in args.items()}

    async def main() -> None:
        async with Client(build_server([str(root)], ts_name)) as client:
            got = await client.call_tool(tool, args)
            text = text_of(got)
            assert not got.is_error and "keep" in text, text
            assert "secrets" not in text and "vault" not in text, text

    run(main)
