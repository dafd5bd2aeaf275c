"""Shared test fixtures: small and generic."""

from __future__ import annotations

import os
import stat
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

# path relative to the snapshot base -> (kind, mode, mtime_ns, bytes or link target)
Snapshot = dict[str, tuple[str, int, int, bytes | str]]


def take_snapshot(base: Path, *, skip: tuple[Path, ...] = ()) -> Snapshot:
    """Every entry under `base` (never following symlinks): kind, mode, mtime and content.

    Entries under any of `skip` are left out. Directories are listed, so a created or
    removed entry shows up as a difference, as does any changed byte or mtime.
    """
    out: Snapshot = {}
    skipped = {os.fspath(p) for p in skip}
    for dirpath, dirnames, filenames in os.walk(base, followlinks=False):
        dirnames[:] = sorted(d for d in dirnames if os.path.join(dirpath, d) not in skipped)
        for name in [*dirnames, *sorted(filenames)]:
            full = os.path.join(dirpath, name)
            if full in skipped:
                continue
            st = os.lstat(full)
            rel = os.path.relpath(full, base)
            if stat.S_ISLNK(st.st_mode):
                out[rel] = ("link", 0, 0, os.readlink(full))
            elif stat.S_ISREG(st.st_mode):
                out[rel] = ("file", st.st_mode, st.st_mtime_ns, Path(full).read_bytes())
            elif stat.S_ISDIR(st.st_mode):
                out[rel] = ("dir", st.st_mode, st.st_mtime_ns, "")
            else:
                out[rel] = ("other", st.st_mode, st.st_mtime_ns, "")
    return out


@pytest.fixture
def snapshot() -> Callable[..., Snapshot]:
    """`snapshot(base, skip=(...))`: see `take_snapshot`."""
    return take_snapshot


@pytest.fixture(scope="session")
def filewright_exe() -> Path:
    """The installed `filewright` console script of the interpreter running the tests."""
    exe = Path(sys.executable).parent / "filewright"
    if not exe.exists():  # pragma: no cover - only on a broken environment
        pytest.fail(f"filewright command not found next to {sys.executable}")
    return exe
