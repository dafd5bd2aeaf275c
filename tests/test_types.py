"""The package type-checks: mypy over `src/filewright` reports nothing (configured in
pyproject.toml, `[tool.mypy]`)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.timeout(600)
def test_mypy_finds_no_errors() -> None:
    # mypy's own incremental cache (`.mypy_cache/`, ignored by git): a cold run costs ~30 s
    # of CPU, a warm one ~2 s, and the cache never changes mypy's verdict.
    done = subprocess.run(
        [sys.executable, "-m", "mypy", "--cache-dir", str(ROOT / ".mypy_cache")],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stdout + done.stderr
