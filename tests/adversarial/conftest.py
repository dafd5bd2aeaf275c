"""Fixtures of the adversarial suite (see `support.py` for the arena)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from .support import Arena


@pytest.fixture
def arena(tmp_path: Path) -> Iterator[Arena]:
    """A fresh arena; after the test, nothing outside the root may have changed."""
    a = Arena(tmp_path / "arena")
    before = a.outside_snapshot()
    yield a
    a.assert_outside_unchanged(before, "the test")
