"""Shell completion: `filewright --show-completion SHELL` prints a script that completes
commands, options and toolset names, and `--install-completion bash` installs it where
a new bash finds it (real processes; bash itself runs the installed script)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

CLI = [sys.executable, "-c", "from filewright.surfaces.cli.main import main; main()"]
BIN = Path(sys.executable).parent


def _complete(words: str, cword: int) -> list[str]:
    """What the completion script asks the program for, done directly (as bash does)."""
    env = {**os.environ, "_FILEWRIGHT_COMPLETE": "complete_bash", "COMP_WORDS": words,
           "COMP_CWORD": str(cword)}  # fmt: skip
    done = subprocess.run([*CLI], env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return done.stdout.split()


@pytest.mark.parametrize("shell", ["bash", "zsh", "fish"])
def test_show_completion_prints_a_script_for_the_shell(shell: str) -> None:
    done = subprocess.run([*CLI, "--show-completion", shell], capture_output=True, text=True,
                          timeout=60)  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "_FILEWRIGHT_COMPLETE" in done.stdout and "filewright" in done.stdout
    if shell == "bash":
        assert "complete -o default -F _filewright_completion filewright" in done.stdout


def test_completion_knows_commands_options_and_toolsets() -> None:
    from filewright.engine.registry import REGISTRY

    assert _complete("filewright ser", 1) == ["serve"]
    assert {"--root", "--toolset", "--dry-run"} <= set(_complete("filewright call --", 2))
    assert _complete("filewright serve --toolset m", 3) == [
        n for n in REGISTRY if n.startswith("m")
    ]


@pytest.mark.skipif(shutil.which("bash") is None, reason="bash is not installed")
def test_install_completion_bash_works_in_a_new_shell(tmp_path: Path) -> None:
    env = {**os.environ, "HOME": str(tmp_path), "SHELL": "/bin/bash",
           "PATH": f"{BIN}{os.pathsep}{os.environ['PATH']}"}  # fmt: skip
    done = subprocess.run([*CLI, "--install-completion", "bash"], env=env, capture_output=True,
                          text=True, timeout=60)  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "bash completion installed" in done.stdout
    assert (tmp_path / ".bash_completions" / "filewright.sh").is_file()
    # A new interactive bash reads ~/.bashrc; then completing "filewright serve --toolset c".
    script = (
        "source ~/.bashrc; COMP_WORDS=(filewright serve --toolset c); COMP_CWORD=3; "
        '_filewright_completion filewright; echo "${COMPREPLY[@]}"'
    )
    shown = subprocess.run(["bash", "--norc", "-c", script], env=env, capture_output=True,
                           text=True, timeout=60)  # fmt: skip
    assert shown.returncode == 0, shown.stderr
    assert shown.stdout.split() == ["claude", "companion"], shown.stdout
