"""The README's first steps (`<!-- block: first-steps -->`) work as written: the commands
a newcomer runs after installing, in an empty directory, with `filewright` on PATH as
`uv tool install` (and `uv tool update-shell`) puts it there; `serve`, which waits for a
client, last, with no client. The README's other blocks: tests/test_doc_blocks.py."""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
import tomllib
from pathlib import Path

from docblocks import block

REPO = Path(__file__).resolve().parents[1]


def first_steps() -> list[str]:
    text = block("README.md", "block: first-steps")
    return [line.split("  #")[0].strip() for line in text.splitlines() if line.strip()]


def test_first_steps_run_without_a_failing_command(tmp_path: Path) -> None:
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    steps = first_steps()
    assert any(s.startswith("filewright serve") for s in steps)
    for step in steps:
        if step.startswith("filewright serve"):
            continue
        proc = subprocess.run(step, shell=True, cwd=tmp_path, env=env, capture_output=True,
                              text=True, timeout=120)  # fmt: skip
        assert proc.returncode == 0, f"{step}\n{proc.stdout}\n{proc.stderr}"
        assert "Traceback" not in proc.stderr
    assert (tmp_path / "notes.md").read_text() == "Helo, world\n"  # undone
    assert not (tmp_path / ".git").exists()
    assert shlex.split(steps[-1])[:2] == ["filewright", "serve"]
    # The server waits for a client on its standard input; with none, it ends cleanly.
    served = subprocess.run(steps[-1], shell=True, cwd=tmp_path, env=env, capture_output=True,
                            stdin=subprocess.DEVNULL, text=True, timeout=60)  # fmt: skip
    assert served.returncode == 0 and "Traceback" not in served.stderr, served.stderr


def test_uv_run_does_not_recompile_the_environment() -> None:
    """The quick start's `uv run filewright …` starts in ~0.2 s: with `[tool.uv]
    compile-bytecode = true`, uv recompiles every installed package on every `uv run`
    (astral-sh/uv#12202; +0.6 s wall, ~1.4 s CPU measured here). .ci/run compiles once
    with `uv sync --compile-bytecode` instead."""
    settings = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["uv"]
    assert not settings.get("compile-bytecode"), settings
    assert "uv sync --locked --compile-bytecode" in (REPO / ".ci" / "run").read_text()
