"""History owns its bytes (issue 30, finding 2; issue 31, item 7).

A large file's kept copy is a hard link only when the file had no other name (otherwise a
copy), its identity (inode, size, mtime) is recorded, and undo verifies it and that it has
no other name before restoring. `.claude-backups/` is protected in every toolset, and git
does not list it (a `.gitignore` holding `*`, as pytest's cache has).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from forkserver import ForkServer, shared

from filewright import Workspace

from .support import ABSOLUTE_ONLY, TOOLSETS, toolset, write_calls


def _big(root: Path) -> tuple[Path, bytes]:
    data = b"".join(b"line %d of the original\n" % i for i in range(400))
    path = root / "big.txt"
    path.write_bytes(data)
    return path, data


def _claude_write(root: Path, path: Path) -> tuple[Workspace, Path]:
    ws = Workspace(root, stream_above_bytes=2000, confirm=True)
    claude = ws.toolset("claude")
    assert claude.call("Read", {"file_path": str(path), "limit": 5}).ok
    result = claude.call("Write", {"file_path": str(path), "content": "short\n" * 400})
    assert result.ok and result.data.get("streamed") is True, result.text
    return ws, Path(result.data["backupPath"])


@pytest.fixture(scope="module")
def forks(request: pytest.FixtureRequest) -> ForkServer:
    """The filewright command is forked from the warm interpreter (tests/forkserver.py)."""
    return shared(request.session)


@pytest.mark.parametrize("surface", ["default", "cli"])
def test_a_changed_claude_backup_does_not_change_what_undo_restores(
    tmp_path: Path, forks: ForkServer, surface: str
) -> None:
    path, data = _big(tmp_path)
    ws, backup = _claude_write(tmp_path, path)
    assert backup.read_bytes() == data
    with open(backup, "ab") as f:  # another process appends to the visible backup
        f.write(b"INJECTED\n")
    if surface == "default":
        result = ws.toolset("default").call("undo", {"path": "big.txt"})
        assert result.ok, result.text
    else:
        done = forks.run(
            ["filewright", "undo", "--json", "--root", str(tmp_path), "big.txt"],
            timeout=120,
        )
        assert done.returncode == 0, done.stdout + done.stderr
    assert path.read_bytes() == data


def test_a_file_with_another_hard_link_is_copied_into_history(tmp_path: Path) -> None:
    path, data = _big(tmp_path)
    other = tmp_path / "other-name.txt"
    os.link(path, other)
    ws = Workspace(tmp_path, stream_above_bytes=2000, confirm=True)
    default = ws.toolset("default")
    assert default.call("write", {"path": "big.txt", "content": "new\n" * 600}).ok
    with open(other, "ab") as f:  # in place, through the other name
        f.write(b"INJECTED\n")
    assert default.call("undo", {"path": "big.txt"}).ok
    assert path.read_bytes() == data


def test_undo_refuses_a_kept_copy_that_changed(tmp_path: Path) -> None:
    path, _data = _big(tmp_path)
    ws = Workspace(tmp_path, stream_above_bytes=2000, confirm=True)
    default = ws.toolset("default")
    assert default.call("write", {"path": "big.txt", "content": "new\n" * 600}).ok
    new = path.read_bytes()
    kept = [p for p in (tmp_path / ".filewright" / "history").rglob("*.bak")]
    assert len(kept) == 1
    with open(kept[0], "r+b") as f:  # the same size, other bytes
        f.write(b"INJECTED")
    os.utime(kept[0], ns=(0, 0))
    result = default.call("undo", {"path": "big.txt"})
    assert not result.ok and "changed after it was kept" in result.text, result.text
    assert path.read_bytes() == new


@pytest.mark.parametrize("ts_name", [t for t in TOOLSETS if t != "memo"])
def test_no_toolset_writes_into_a_claude_backup_folder(tmp_path: Path, ts_name: str) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    (root / "a.txt").write_text("a\n")
    claude = Workspace(root, confirm=True).toolset("claude")
    assert claude.call("Read", {"file_path": str(root / "a.txt")}).ok
    edited = claude.call(
        "Edit", {"file_path": str(root / "a.txt"), "old_string": "a", "new_string": "b"}
    )
    assert edited.ok, edited.text
    backup = Path(edited.data["backupPath"])
    before = {p.name: p.read_bytes() for p in backup.parent.iterdir()}
    ws = Workspace(root, confirm=True)
    ts = toolset(ws, ts_name)
    for target in (backup, backup.parent / "planted.backup"):
        given = str(target) if ts_name in ABSOLUTE_ONLY else target.relative_to(root).as_posix()
        for tool, args in write_calls(ts_name, given, "INJECTED\n"):
            result = ts.call(tool, args)
            assert not result.ok, (tool, args, result.text)
    assert {p.name: p.read_bytes() for p in backup.parent.iterdir()} == before


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_claude_backups_stay_out_of_git_status(tmp_path: Path) -> None:
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "m.py").write_text("x = 1\n")
    claude = Workspace(tmp_path, confirm=True).toolset("claude")
    target = str(tmp_path / "src" / "m.py")
    assert claude.call("Read", {"file_path": target}).ok
    assert claude.call("Edit", {"file_path": target, "old_string": "1", "new_string": "2"}).ok
    assert (tmp_path / "src" / ".claude-backups" / ".gitignore").read_text() == "*\n"
    status = subprocess.run(
        ["git", "status", "--porcelain", "--untracked-files=all"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert ".claude-backups" not in status and "src/m.py" in status, status
    assert json.dumps(status)  # the listing itself is ordinary text
