"""Shell completion: `filewright --show-completion SHELL` prints a script that completes
commands, options and toolset names, and `--install-completion bash` installs it where
a new bash finds it (real processes; bash itself runs the installed script)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
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


# What only that shell's script holds.
SCRIPT_OF = {
    "bash": "complete -o default -F _filewright_completion filewright",
    "zsh": "#compdef filewright",
    "fish": "complete --command filewright",
}


@pytest.mark.parametrize("shell", ["bash", "zsh", "fish"])
def test_show_completion_prints_a_script_for_the_shell(shell: str) -> None:
    """The shell named is the script printed, whatever shell runs the command (typer
    alone printed the detected shell's: bash's for `--show-completion zsh` here)."""
    done = subprocess.run([*CLI, "--show-completion", shell], capture_output=True, text=True,
                          timeout=60)  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "_FILEWRIGHT_COMPLETE" in done.stdout and "filewright" in done.stdout
    assert SCRIPT_OF[shell] in done.stdout
    assert not [m for s, m in SCRIPT_OF.items() if s != shell and m in done.stdout]


def test_show_completion_works_with_no_shell_among_the_parents(tmp_path: Path) -> None:
    """Run detached (a double fork: reparented away from every shell, as a service or a
    detached job is), `--show-completion zsh` still prints zsh's script, and `=bash`
    bash's (typer alone answered "Shell  not supported." and exit 1)."""
    launcher = (
        "import os, subprocess, sys\n"
        "if os.fork():\n    os._exit(0)\n"
        "os.setsid()\n"
        "if os.fork():\n    os._exit(0)\n"
        "out, rc = sys.argv[1], sys.argv[2]\n"
        "with open(out, 'wb') as o:\n"
        "    code = subprocess.run(sys.argv[3:], stdin=subprocess.DEVNULL, stdout=o,\n"
        "                          stderr=subprocess.STDOUT).returncode\n"
        "with open(rc + '.part', 'w') as f:\n    f.write(str(code))\n"
        "os.rename(rc + '.part', rc)\n"
    )
    for n, option in enumerate([["--show-completion", "zsh"], ["--show-completion=bash"]]):
        out, rc = tmp_path / f"out{n}", tmp_path / f"rc{n}"
        subprocess.run([sys.executable, "-c", launcher, str(out), str(rc), *CLI, *option],
                       check=True, timeout=60)  # fmt: skip
        deadline = time.monotonic() + 60  # a guard against hanging, not a measurement
        while not rc.exists() and time.monotonic() < deadline:
            time.sleep(0.02)
        printed = out.read_text()
        assert rc.read_text() == "0", printed
        assert SCRIPT_OF["zsh" if n == 0 else "bash"] in printed, printed


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


def test_an_unknown_shell_is_a_usage_error() -> None:
    """Typer alone ignored the word after the option and printed the detected shell's
    script, exit 0."""
    for args in (["--show-completion", "nosh"], ["--install-completion=nosh"],
                 ["--show-completion", "bash", "extra"]):  # fmt: skip
        done = subprocess.run([*CLI, *args], capture_output=True, text=True, timeout=60)
        assert done.returncode == 2 and done.stdout == "", (args, done.stdout)
        assert "takes one shell: bash, zsh, fish, powershell, pwsh" in done.stderr, done.stderr
