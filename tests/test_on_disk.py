"""The durability-sensitive cases on the checkout's own filesystem.

The suite's temporary directories may live in memory (tests/conftest.py puts them on
/dev/shm when it is a tmpfs), where fsync returns at once and nothing goes through a
journal. These tests run the cases whose point is what reaches the disk (atomic
rewrites and streamed rewrites killed at random moments, a patch commit killed midway,
file management killed midway, undo's exact bytes and mode) once
more in a directory on the filesystem that holds the checkout, as a user's project would.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
import test_apply_patch_crash
import test_crash
import test_crash_large
import test_fileops_crash
import test_pipeline
from forkserver import ForkServer, shared

REPO = Path(__file__).resolve().parents[1]


@pytest.fixture
def disk_path() -> Iterator[Path]:
    """A fresh directory beside the checkout (on its filesystem), removed afterwards."""
    path = Path(tempfile.mkdtemp(dir=REPO, prefix=".on-disk-"))
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)


@pytest.fixture
def forks(request: pytest.FixtureRequest) -> ForkServer:
    return shared(request.session)


def test_the_directory_is_on_the_checkouts_filesystem(disk_path: Path) -> None:
    assert os.stat(disk_path).st_dev == os.stat(REPO).st_dev


@pytest.mark.timeout(120)
def test_killed_atomic_rewrites_never_tear_the_file(disk_path: Path, forks: ForkServer) -> None:
    test_crash.test_sigkill_during_atomic_rewrites_never_tears_the_file(disk_path, forks)


@pytest.mark.timeout(120)
def test_killed_streamed_rewrites_leave_one_version(disk_path: Path, forks: ForkServer) -> None:
    test_crash_large.test_kill_during_streamed_rewrites_leaves_one_version(disk_path, forks)


@pytest.mark.timeout(120)
def test_a_killed_patch_commit_leaves_whole_files(disk_path: Path) -> None:
    test_apply_patch_crash.test_killed_commit_leaves_whole_files_each_undoable(disk_path)


@pytest.mark.timeout(120)
def test_killed_moves_lose_nothing(disk_path: Path, forks: ForkServer) -> None:
    test_fileops_crash.test_sigkill_during_file_management_loses_nothing(disk_path, "move", forks)


@pytest.mark.parametrize("tool", ["write", "edit", "append"])
def test_undo_restores_exact_previous_bytes(disk_path: Path, tool: str) -> None:
    test_pipeline.test_undo_restores_exact_previous_bytes(disk_path, tool)
