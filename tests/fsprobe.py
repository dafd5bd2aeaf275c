"""What tests use to look at the work filewright does: a directory's descriptor kept in
`fs.held` as filewright keeps it, the syscalls a child makes under `strace`, and the
Python functions a call runs."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from filewright.fs import held


def hold(directory: Path) -> None:
    """Keep a descriptor of `directory` in `fs.held`, as the first file filewright opens
    there does (held keeps its own copy)."""
    fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY)
    try:
        held.keep(str(directory), fd)
    finally:
        os.close(fd)


def traced_calls(log: Path, traced: str, script: str, *args: str) -> list[str]:
    """The calls in `traced` (strace's `-e trace=` list) that `python -c script args`
    makes between its marks, `os.write(1, b"")` and `os.getppid()`, each as strace prints
    it after the pid (`openat(...) = 3`). Skips where strace cannot trace (no ptrace)."""
    argv = ["strace", "-f", "-o", str(log), "-e", f"trace={traced},write,getppid"]
    proc = subprocess.run(
        [*argv, sys.executable, "-c", script, *args], capture_output=True, text=True, timeout=60
    )
    if proc.returncode != 0 and "ptrace" in proc.stderr:
        pytest.skip(f"strace cannot trace here: {proc.stderr.strip()[:200]}")
    assert proc.returncode == 0, proc.stderr
    calls: list[str] = []
    on = False
    for line in log.read_text(encoding="utf-8").splitlines():
        body = line.split(None, 1)[1] if " " in line else line
        if body.startswith('write(1, "", 0)'):
            on = True
        elif body.startswith("getppid("):
            on = False
        elif on and not body.startswith(("write(", "<...", "+++", "---")):
            calls.append(body)
    return calls


def python_calls(run: Callable[[], Any], under: str | None = None) -> int:
    """How many functions `run` calls: Python and built-in ones, or with `under` only the
    Python functions whose file's path contains it (e.g. "/filewright/policy/")."""
    count = 0

    def profile(frame: Any, event: str, _arg: Any) -> None:
        nonlocal count
        if under is None:
            count += event in ("call", "c_call")
        elif event == "call" and under in frame.f_code.co_filename:
            count += 1

    sys.setprofile(profile)
    try:
        run()
    finally:
        sys.setprofile(None)
    return count
