"""The unit tests the worker seed names (`system-worker-file-actions.md`), one per name."""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from filewright import Workspace
from filewright.tools.base import Toolset


@pytest.fixture
def root(tmp_path: Path) -> Path:
    return tmp_path


@pytest.fixture
def worker(root: Path) -> Toolset:
    return Workspace(root).toolset("worker")


@pytest.fixture
def dry(root: Path) -> Toolset:
    return Workspace(root, dry_run=True).toolset("worker")


def unchanged(path: Path, before: tuple[bytes, int] | None) -> bool:
    """The file is exactly as it was (bytes and mtime), or still absent."""
    if before is None:
        return not path.exists()
    return (path.read_bytes(), path.stat().st_mtime_ns) == before


def state(path: Path) -> tuple[bytes, int]:
    return path.read_bytes(), path.stat().st_mtime_ns


# -- write_file ---------------------------------------------------------------------------


def test_write_file_creates_new_file(worker: Toolset, root: Path) -> None:
    r = worker.call("write_file", {"path": ".env", "content": "TOKEN=xxxx"})
    assert r.ok and r.data["success"] is True
    assert (root / ".env").read_text() == "TOKEN=xxxx"
    assert r.data["risk_level"] == "medium"
    assert r.text == r.data["message"] == f"Created file {root / '.env'} (10 chars)"


def test_write_file_overwrites_existing(worker: Toolset, root: Path) -> None:
    (root / ".env").write_text("TOKEN=old\n")
    r = worker.call("write_file", {"path": str(root / ".env"), "content": "TOKEN=new\n"})
    assert r.ok and r.data["success"] is True
    assert (root / ".env").read_text() == "TOKEN=new\n"
    assert r.data["risk_level"] == "high"
    assert r.text == f"Overwrote file {root / '.env'} (10 chars)"


def test_write_file_dry_run(dry: Toolset, root: Path) -> None:
    content = "TOKEN=xxxx\nAPI_KEY=yyyy"
    r = dry.call("write_file", {"path": ".env", "content": content})
    assert r.ok and r.data["success"] is True and r.data["dry_run"] is True
    assert r.text == (
        f"[DRY-RUN] Would write {len(content)} chars to {root / '.env'}\n"
        "Content preview:\nTOKEN=xxxx\nAPI_KEY=yyyy"
    )
    assert not (root / ".env").exists()
    (root / ".env").write_text("TOKEN=old")
    before = state(root / ".env")
    r = dry.call("write_file", {"path": ".env", "content": content})
    assert r.ok and r.data["risk_level"] == "high"
    assert unchanged(root / ".env", before)


def test_write_file_parent_not_exists(worker: Toolset, root: Path) -> None:
    r = worker.call("write_file", {"path": "path/to/.env", "content": "TOKEN=xxxx"})
    assert not r.ok and r.data["success"] is False
    assert r.text == r.data["message"] == f"Parent directory does not exist: {root / 'path' / 'to'}"
    assert not (root / "path").exists()


@contextlib.contextmanager
def _unwritable(directory: Path) -> Iterator[None]:
    """Make `directory` refuse new files for real: chmod for a normal user; as root (whom
    chmod does not stop), the immutable attribute; skip where neither is possible."""
    if os.geteuid() != 0:
        directory.chmod(0o555)
        try:
            yield
        finally:
            directory.chmod(0o755)
        return
    if shutil.which("chattr") is None:
        pytest.skip("running as root without chattr: cannot make a directory unwritable")
    made = subprocess.run(["chattr", "+i", str(directory)], capture_output=True)
    if made.returncode != 0:
        pytest.skip(f"chattr +i not supported here: {made.stderr.decode().strip()}")
    try:
        yield
    finally:
        subprocess.run(["chattr", "-i", str(directory)], check=True)


def test_write_file_permission_denied(worker: Toolset, root: Path) -> None:
    (root / "locked").mkdir()
    with _unwritable(root / "locked"):
        r = worker.call("write_file", {"path": "locked/.env", "content": "TOKEN=xxxx"})
    assert not r.ok and r.data["success"] is False
    assert r.text == f"Permission denied: {root / 'locked' / '.env'}"
    assert not (root / "locked" / ".env").exists()


def test_write_file_path_is_directory(worker: Toolset, root: Path) -> None:
    (root / "conf").mkdir()
    r = worker.call("write_file", {"path": "conf", "content": "x"})
    assert not r.ok and r.data["success"] is False
    assert r.text == f"Path is a directory: {root / 'conf'}"


# -- append_to_file -------------------------------------------------------------------------


def test_append_to_file_success(worker: Toolset, root: Path) -> None:
    (root / ".env").write_text("TOKEN=xxxx")
    r = worker.call("append_to_file", {"path": ".env", "content": "\nAPI_KEY=zzzz"})
    assert r.ok and r.data["success"] is True
    assert (root / ".env").read_text() == "TOKEN=xxxx\nAPI_KEY=zzzz"
    assert r.data["risk_level"] == "medium"
    assert r.text == f"Appended 13 chars to {root / '.env'}"


def test_append_to_file_dry_run(dry: Toolset, root: Path) -> None:
    (root / ".env").write_text("TOKEN=xxxx\n")
    before = state(root / ".env")
    r = dry.call("append_to_file", {"path": ".env", "content": "NEW_KEY=value"})
    assert r.ok and r.data["success"] is True
    assert r.text == (
        f"[DRY-RUN] Would append 13 chars to {root / '.env'}\nContent to append:\nNEW_KEY=value"
    )
    assert unchanged(root / ".env", before)


def test_append_to_file_not_exists(worker: Toolset, root: Path) -> None:
    r = worker.call("append_to_file", {"path": ".env", "content": "API_KEY=zzzz"})
    assert not r.ok and r.data["success"] is False
    assert r.text == r.data["message"] == f"File not found: {root / '.env'}"
    assert not (root / ".env").exists()


# -- replace_in_file ------------------------------------------------------------------------


def test_replace_in_file_exact_match(worker: Toolset, root: Path) -> None:
    (root / ".env").write_text("TOKEN=xxxx\nAPI_KEY=a.b\n")
    r = worker.call("replace_in_file", {"path": ".env", "old": "TOKEN=xxxx", "new": "TOKEN=yyyy"})
    assert r.ok and r.data["success"] is True and r.data["risk_level"] == "high"
    assert (root / ".env").read_text() == "TOKEN=yyyy\nAPI_KEY=a.b\n"
    assert r.text == f"Replaced 1 match in {root / '.env'}"
    # literal: regex characters mean themselves
    r = worker.call("replace_in_file", {"path": ".env", "old": "a.b", "new": "$1\\g<0>"})
    assert r.ok and (root / ".env").read_text() == "TOKEN=yyyy\nAPI_KEY=$1\\g<0>\n"
    r = worker.call("replace_in_file", {"path": ".env", "old": "TOKEN=.*", "new": "x"})
    assert r.ok and r.text == "No matches found for 'TOKEN=.*'"


def test_replace_in_file_multiple_matches(worker: Toolset, root: Path) -> None:
    (root / "config.yaml").write_text("TOKEN=old\nother: TOKEN=old\n")
    r = worker.call(
        "replace_in_file", {"path": "config.yaml", "old": "TOKEN=old", "new": "TOKEN=new"}
    )
    assert r.ok and r.data["replacements"] == 2 and r.data["matches_found"] == 2
    assert (root / "config.yaml").read_text() == "TOKEN=new\nother: TOKEN=new\n"
    assert r.text == f"Replaced 2 matches in {root / 'config.yaml'}"


def test_replace_in_file_with_count(worker: Toolset, root: Path) -> None:
    (root / "a.txt").write_text("x x x\n")
    r = worker.call("replace_in_file", {"path": "a.txt", "old": "x", "new": "y", "count": 2})
    assert r.ok and r.data["replacements"] == 2
    assert (root / "a.txt").read_text() == "y y x\n"
    assert r.text == f"Replaced 2 of 3 matches in {root / 'a.txt'}"


def test_replace_in_file_regex(worker: Toolset, root: Path) -> None:
    (root / ".env").write_text("TOKEN=xxxx\nAPI_KEY=k\n")
    r = worker.call(
        "replace_in_file",
        {"path": ".env", "old": r"^TOKEN=(\w+)$", "new": r"TOKEN=\1-new", "regex": True},
    )
    assert r.ok and r.data["replacements"] == 1
    assert (root / ".env").read_text() == "TOKEN=xxxx-new\nAPI_KEY=k\n"


def test_replace_in_file_no_match(worker: Toolset, root: Path) -> None:
    (root / ".env").write_text("TOKEN=xxxx\n")
    before = state(root / ".env")
    r = worker.call("replace_in_file", {"path": ".env", "old": "old_text", "new": "x"})
    assert r.ok and r.data["success"] is True
    assert r.text == r.data["message"] == "No matches found for 'old_text'"
    assert r.data["risk_level"] == "high"
    assert unchanged(root / ".env", before)


def test_replace_in_file_invalid_regex(worker: Toolset, root: Path) -> None:
    (root / ".env").write_text("TOKEN=xxxx\n")
    r = worker.call("replace_in_file", {"path": ".env", "old": "(TOKEN", "new": "x", "regex": True})
    assert not r.ok and r.data["success"] is False
    assert r.text == "Invalid regex pattern: missing ), unterminated subpattern at position 0"
    assert r.data["error"] == "invalid_regex"


def test_replace_in_file_not_exists(worker: Toolset, root: Path) -> None:
    r = worker.call("replace_in_file", {"path": ".env", "old": "a", "new": "b"})
    assert not r.ok and r.data["success"] is False
    assert r.text == f"File not found: {root / '.env'}"


def test_replace_in_file_dry_run(dry: Toolset, root: Path) -> None:
    (root / "config.yaml").write_text("TOKEN=old\nx: TOKEN=old\n")
    before = state(root / "config.yaml")
    r = dry.call("replace_in_file", {"path": "config.yaml", "old": "TOKEN=old", "new": "TOKEN=new"})
    assert r.ok and r.data["success"] is True
    assert r.text == (
        f"[DRY-RUN] Would replace in {root / 'config.yaml'}\n"
        '  "TOKEN=old" → "TOKEN=new"\n'
        "  Matches found: 2"
    )
    assert unchanged(root / "config.yaml", before)
