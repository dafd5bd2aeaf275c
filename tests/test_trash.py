"""What a write replaces, freed after the answer (`state.trash`): kept under a second
name in the state directory while the caller waits, unlinked by `reap`; real files."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

from filewright import Workspace
from filewright.state import trash


def _kept(root: Path) -> list[Path]:
    return sorted(p for p in (root / ".filewright").iterdir() if p.name.startswith(trash.PREFIX))


def _edit(tools: Any, old: str, new: str) -> None:
    result = tools.call("edit", {"path": "a.txt", "old_string": old, "new_string": new})
    assert result.ok, result.text


def test_a_deferred_write_keeps_the_replaced_file_until_reaped(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("one\n", encoding="utf-8")
    tools = Workspace(tmp_path).toolset("default")
    assert tools.call("read", {"path": "a.txt"}).ok
    replaced = (tmp_path / "a.txt").stat().st_ino
    with trash.deferred():
        _edit(tools, "one", "two")
    (kept,) = _kept(tmp_path)  # the old file, by a second name: the rename freed nothing
    assert kept.stat().st_ino == replaced and kept.stat().st_nlink == 1
    assert kept.read_text(encoding="utf-8") == "one\n"
    assert (tmp_path / "a.txt").read_text(encoding="utf-8") == "two\n"
    trash.reap()
    assert _kept(tmp_path) == []
    _edit(tools, "two", "three")  # not deferred: the rename frees it, nothing is kept
    assert _kept(tmp_path) == []
    assert tools.call("undo", {"path": "a.txt"}).ok
    assert (tmp_path / "a.txt").read_text(encoding="utf-8") == "two\n"


def test_names_left_by_a_killed_process_are_swept(tmp_path: Path) -> None:
    """A name a process left (killed before its `reap`) is unlinked by the next process
    that keeps one; the files it named are not touched otherwise."""
    (tmp_path / "a.txt").write_text("one\n", encoding="utf-8")
    (tmp_path / ".filewright").mkdir()
    left = tmp_path / ".filewright" / f"{trash.PREFIX}1.0"
    other = tmp_path / "other.txt"
    other.write_text("kept\n", encoding="utf-8")
    left.hardlink_to(other)
    script = (
        "import sys\n"
        "from filewright import Workspace\n"
        "from filewright.state import trash\n"
        "tools = Workspace(sys.argv[1]).toolset('default')\n"
        "with trash.deferred():\n"
        "    r = tools.call('edit', {'path': 'a.txt', 'old_string': 'one', 'new_string': 'two'})\n"
        "assert r.ok, r.text\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", script, str(tmp_path)], capture_output=True, text=True, timeout=60
    )
    assert proc.returncode == 0, proc.stderr
    assert not left.exists()
    assert _kept(tmp_path) == []  # (its own name reaped at exit)
    assert other.read_text(encoding="utf-8") == "kept\n"
    assert (tmp_path / "a.txt").read_text(encoding="utf-8") == "two\n"


def test_names_kept_without_a_reaper_are_bounded(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("0\n", encoding="utf-8")
    tools = Workspace(tmp_path, keep_backups=2).toolset("default")
    assert tools.call("read", {"path": "a.txt"}).ok
    for i in range(trash.PENDING_LIMIT + 6):
        with trash.deferred():
            _edit(tools, f"{i}\n", f"{i + 1}\n")
        assert len(_kept(tmp_path)) <= trash.PENDING_LIMIT + 1
    trash.reap()
    assert _kept(tmp_path) == []
