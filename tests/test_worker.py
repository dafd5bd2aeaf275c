"""The `worker` toolset beyond the seed's named tests: prompt texts, risk, dry runs, actions."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from filewright import Workspace
from filewright.toolsets.worker import (
    PREVIEW_CHARS,
    PREVIEW_LINES,
    QUOTE_CHARS,
    WORKER_CAPABILITIES,
    WorkerToolset,
    worker_details,
)

SEED_DETAILS = """\
- system.write_file: Create or overwrite a file
  - args: {"path": "string", "content": "string"}
  - risk_level: medium (new file), high (overwrite existing)

- system.append_to_file: Append content to existing file
  - args: {"path": "string", "content": "string"}
  - risk_level: medium

- system.replace_in_file: Find and replace text in file
  - args: {"path": "string", "old": "string", "new": "string", "regex": bool (optional), "count": int (optional)}
  - risk_level: high"""


def make(root: Path, **kwargs: Any) -> WorkerToolset:
    options = kwargs.pop("options", {})
    toolset = Workspace(root, **kwargs).toolset("worker", **options)
    assert isinstance(toolset, WorkerToolset)
    return toolset


def test_worker_details_is_the_seed_block() -> None:
    assert worker_details() == SEED_DETAILS


def test_capabilities_are_the_seed_list() -> None:
    assert WORKER_CAPABILITIES == {
        "system": [
            "list_files",
            "find_large_files",
            "check_disk_usage",
            "delete_files",
            "write_file",
            "append_to_file",
            "replace_in_file",
        ]
    }


def test_prompt_texts_follow_the_tool_definitions(tmp_path: Path) -> None:
    worker = make(tmp_path)
    names = worker.tool_names()
    assert names == WORKER_CAPABILITIES["system"][-3:]
    for name in names:
        assert f"- system.{name}: " in worker_details()
    defs = {d["function"]["name"]: d["function"] for d in worker.definitions("openai")}
    assert set(defs) == set(names)
    replace = defs["replace_in_file"]["parameters"]
    assert set(replace["properties"]) == {"path", "old", "new", "regex", "count"}
    assert sorted(replace["required"]) == ["new", "old", "path"]


def test_risk_levels_for_new_and_existing_files(tmp_path: Path) -> None:
    worker = make(tmp_path)
    assert worker.risk_level("write_file", {"path": "a.txt"}) == "medium"
    first = worker.call("write_file", {"path": "a.txt", "content": "1"})
    assert first.data["risk_level"] == "medium"
    assert worker.risk_level("write_file", {"path": "a.txt"}) == "high"
    second = worker.call("write_file", {"path": "a.txt", "content": "2"})
    assert second.data["risk_level"] == "high"
    assert (
        worker.call("append_to_file", {"path": "a.txt", "content": "3"}).data["risk_level"]
        == "medium"
    )
    assert (
        worker.call("replace_in_file", {"path": "a.txt", "old": "3", "new": "4"}).data["risk_level"]
        == "high"
    )
    assert worker.risk_level("append_to_file", {"path": "a.txt"}) == "medium"
    assert worker.risk_level("replace_in_file", {"path": "a.txt"}) == "high"
    # failures carry the risk too
    missing = worker.call("append_to_file", {"path": "nope.txt", "content": "x"})
    assert missing.data["risk_level"] == "medium" and missing.data["success"] is False


@pytest.mark.parametrize("how", ["workspace", "option"])
def test_dry_runs_write_nothing(tmp_path: Path, how: str, snapshot: Callable[..., Any]) -> None:
    (tmp_path / ".env").write_text("TOKEN=old\nTOKEN=old\n")
    worker = (
        make(tmp_path, dry_run=True)
        if how == "workspace"
        else make(tmp_path, options={"dry_run": True})
    )
    state_dir = tmp_path / ".filewright"
    before = snapshot(tmp_path, skip=(state_dir,))
    calls = [
        ("write_file", {"path": ".env", "content": "NEW"}),
        ("write_file", {"path": "fresh.txt", "content": "NEW"}),
        ("append_to_file", {"path": ".env", "content": "MORE"}),
        ("replace_in_file", {"path": ".env", "old": "old", "new": "new"}),
        ("replace_in_file", {"path": ".env", "old": "o+", "new": "0", "regex": True, "count": 1}),
    ]
    for tool, args in calls:
        r = worker.call(tool, args)
        assert r.ok and r.text.startswith("[DRY-RUN] "), r.text
        assert r.data["dry_run"] is True
    assert snapshot(tmp_path, skip=(state_dir,)) == before


def test_dry_run_reports_the_same_failures(tmp_path: Path) -> None:
    worker = make(tmp_path, dry_run=True)
    r = worker.call("write_file", {"path": "no/such/dir/.env", "content": "x"})
    assert not r.ok and r.text == f"Parent directory does not exist: {tmp_path / 'no/such/dir'}"
    r = worker.call("append_to_file", {"path": ".env", "content": "x"})
    assert not r.ok and r.text == f"File not found: {tmp_path / '.env'}"


def test_dry_run_replace_with_count_says_how_many(tmp_path: Path) -> None:
    (tmp_path / "f").write_text("a a a\n")
    r = make(tmp_path, dry_run=True).call(
        "replace_in_file", {"path": "f", "old": "a", "new": "b", "count": 1}
    )
    assert r.text == (
        f'[DRY-RUN] Would replace in {tmp_path / "f"}\n  "a" → "b"\n  Matches found: 3\n'
        "  Replacements (count=1): 1"
    )


def test_previews_are_cut(tmp_path: Path) -> None:
    worker = make(tmp_path, dry_run=True)
    many_lines = "\n".join(f"L{i}" for i in range(PREVIEW_LINES + 5))
    r = worker.call("write_file", {"path": "a", "content": many_lines})
    shown = "\n".join(f"L{i}" for i in range(PREVIEW_LINES))
    hidden = len(many_lines) - len(shown)
    assert r.text == (
        f"[DRY-RUN] Would write {len(many_lines)} chars to {tmp_path / 'a'}\n"
        f"Content preview:\n{shown}\n... ({hidden} more chars not shown)"
    )
    long_line = "x" * (PREVIEW_CHARS + 10)
    r = worker.call("write_file", {"path": "a", "content": long_line})
    assert r.text.endswith("x" * PREVIEW_CHARS + "\n... (10 more chars not shown)")
    (tmp_path / "b").write_text("k=" + "v" * 300 + "\n")
    old = "k=" + "v" * 300
    r = worker.call("replace_in_file", {"path": "b", "old": old, "new": "k=\nw"})
    quoted = '"' + old[:QUOTE_CHARS] + '..."'
    assert r.text.splitlines()[1] == f'  {quoted} → "k=\\nw"'


def test_env_files_are_not_protected(tmp_path: Path) -> None:
    worker = make(tmp_path)
    for name in (".env", ".env.local", "config/.env"):
        (tmp_path / "config").mkdir(exist_ok=True)
        assert worker.call("write_file", {"path": name, "content": "A=1"}).ok, name


def test_outside_the_workspace_is_refused(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    worker = make(root)
    for path in ("../evil.txt", str(tmp_path / "evil.txt")):
        r = worker.call("write_file", {"path": path, "content": "x"})
        assert not r.ok and r.data["success"] is False and r.data["error"] == "outside"
    assert not (tmp_path / "evil.txt").exists()


def test_replace_keeps_crlf_and_matches_across_it(tmp_path: Path) -> None:
    (tmp_path / "w.ini").write_bytes(b"a=1\r\nb=2\r\n")
    r = make(tmp_path).call(
        "replace_in_file", {"path": "w.ini", "old": "a=1\r\nb=2", "new": "a=3\r\nb=4"}
    )
    assert r.ok
    assert (tmp_path / "w.ini").read_bytes() == b"a=3\r\nb=4\r\n"


def test_replace_that_changes_nothing_is_a_success(tmp_path: Path) -> None:
    (tmp_path / "f").write_text("same\n")
    r = make(tmp_path).call("replace_in_file", {"path": "f", "old": "same", "new": "same"})
    assert r.ok and r.data["success"] is True and (tmp_path / "f").read_text() == "same\n"


def test_regex_count_and_bad_template(tmp_path: Path) -> None:
    (tmp_path / "f").write_text("a1 a2 a3\n")
    worker = make(tmp_path)
    r = worker.call(
        "replace_in_file", {"path": "f", "old": r"a(\d)", "new": r"b\1", "regex": True, "count": 2}
    )
    assert r.ok and (tmp_path / "f").read_text() == "b1 b2 a3\n"
    r = worker.call("replace_in_file", {"path": "f", "old": "a", "new": r"\9", "regex": True})
    assert not r.ok and r.text.startswith("Invalid regex pattern: ")


def test_run_action_rejects_bad_actions(tmp_path: Path) -> None:
    worker = make(tmp_path)
    r = worker.run_action({"worker": "browser", "action": "write_file", "args": {}})
    assert not r.ok and r.text == "Unknown worker: 'browser' (this worker is 'system')"
    r = worker.run_action({"worker": "system", "action": "delete_files", "args": {}})
    assert not r.ok and r.text.startswith("Unknown action: 'delete_files'")
    r = worker.run_action("{not json")
    assert not r.ok and r.text.startswith("Invalid action: not valid JSON")
    r = worker.run_action({"worker": "system", "action": "write_file", "args": {"path": "a"}})
    assert not r.ok and r.data["success"] is False
    assert "missing required parameter 'content'" in r.text
    assert r.data["action"] == "write_file"


def test_declared_risk_is_kept_next_to_the_real_one(tmp_path: Path) -> None:
    (tmp_path / ".env").write_text("TOKEN=x")
    worker = make(tmp_path)
    r = worker.run_action(
        {
            "worker": "system",
            "action": "write_file",
            "args": {"path": ".env", "content": "TOKEN=y"},
            "risk_level": "medium",
        }
    )
    assert r.ok and r.data["declared_risk_level"] == "medium" and r.data["risk_level"] == "high"
