"""The worker seed's integration workflows, driven by the orchestrator's JSON actions."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from filewright import Workspace
from filewright.toolsets.worker import WorkerToolset

# The seed's example actions, verbatim.
CREATE = '{"worker": "system", "action": "write_file", "args": {"path": ".env", "content": "TOKEN=xxxx"}, "risk_level": "medium"}'
REPLACE = '{"worker": "system", "action": "replace_in_file", "args": {"path": ".env", "old": "TOKEN=xxxx", "new": "TOKEN=yyyy"}, "risk_level": "high"}'
APPEND = '{"worker": "system", "action": "append_to_file", "args": {"path": ".env", "content": "\\nAPI_KEY=zzzz"}, "risk_level": "medium"}'


@pytest.fixture
def worker(tmp_path: Path) -> WorkerToolset:
    toolset = Workspace(tmp_path).toolset("worker")
    assert isinstance(toolset, WorkerToolset)
    return toolset


def test_create_env_file_workflow(worker: WorkerToolset, tmp_path: Path) -> None:
    """ "新建一个.env文件写入TOKEN=xxxx"."""
    r = worker.run_action(json.loads(CREATE))
    assert r.ok and r.data["success"] is True
    assert (tmp_path / ".env").read_text() == "TOKEN=xxxx"
    assert r.data["risk_level"] == r.data["declared_risk_level"] == "medium"
    assert r.data["action"] == "write_file"


def test_replace_env_value_workflow(worker: WorkerToolset, tmp_path: Path) -> None:
    """ "把.env的TOKEN换成yyyy"."""
    assert worker.run_action(CREATE).ok
    r = worker.run_action(REPLACE)
    assert r.ok and r.data["success"] is True and r.data["replacements"] == 1
    assert (tmp_path / ".env").read_text() == "TOKEN=yyyy"
    assert r.data["risk_level"] == r.data["declared_risk_level"] == "high"


def test_append_env_field_workflow(worker: WorkerToolset, tmp_path: Path) -> None:
    """ "在.env增加API_KEY=zzzz"."""
    assert worker.run_action(CREATE).ok
    r = worker.run_action(APPEND)
    assert r.ok and r.data["success"] is True
    assert (tmp_path / ".env").read_text() == "TOKEN=xxxx\nAPI_KEY=zzzz"
    assert r.data["risk_level"] == r.data["declared_risk_level"] == "medium"


def test_all_three_in_order(worker: WorkerToolset, tmp_path: Path) -> None:
    for action in (CREATE, REPLACE, APPEND):
        assert worker.run_action(action).ok
    assert (tmp_path / ".env").read_text() == "TOKEN=yyyy\nAPI_KEY=zzzz"


def test_dry_run_workflow_writes_nothing(tmp_path: Path) -> None:
    worker = Workspace(tmp_path, dry_run=True).toolset("worker")
    assert isinstance(worker, WorkerToolset)
    r = worker.run_action(CREATE)
    assert r.ok and r.text.startswith("[DRY-RUN] Would write 10 chars to ")
    assert not (tmp_path / ".env").exists()
