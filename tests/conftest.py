"""Shared test fixtures: small and generic."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

import pytest

# One tree snapshot for the whole suite (the adversarial tests' version, which can also
# skip entries by name).
from adversarial.support import Snapshot, take_snapshot


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
