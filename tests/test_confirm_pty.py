"""Interactive confirmation through the real CLI on a pseudo-terminal."""

from __future__ import annotations

import os
import pty
import select
import subprocess
import sys
import time
from pathlib import Path

import pytest

EXE = str(Path(sys.executable).parent / "filewright")


def _run_on_pty(args: list[str], answer: str, timeout: float = 60.0) -> tuple[int, str, str]:
    """Run the CLI with a pty as stdin; type `answer` once the prompt shows on stderr."""
    master, slave = pty.openpty()
    proc = subprocess.Popen(args, stdin=slave, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    os.close(slave)
    assert proc.stderr is not None and proc.stdout is not None
    err = b""
    deadline = time.monotonic() + timeout
    answered = False
    while time.monotonic() < deadline:
        ready, _, _ = select.select([proc.stderr], [], [], 0.2)
        if ready:
            chunk = os.read(proc.stderr.fileno(), 65536)
            if not chunk:
                break
            err += chunk
        if not answered and b"Apply this change?" in err:
            os.write(master, answer.encode())
            answered = True
        if proc.poll() is not None:
            break
    out = proc.stdout.read()
    rest = proc.stderr.read()
    proc.wait(timeout=timeout)
    os.close(master)
    return proc.returncode, out.decode(), (err + rest).decode()


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    (tmp_path / ".filewright.toml").write_text(
        '[[rules]]\npattern = "guarded.txt"\naccess = "confirm"\n'
    )
    (tmp_path / "guarded.txt").write_text("mode = safe\n")
    return tmp_path


def test_terminal_approve_writes_and_shows_the_diff(workspace: Path) -> None:
    code, out, err = _run_on_pty(
        [
            EXE,
            "call",
            "--root",
            str(workspace),
            "edit",
            '{"path": "guarded.txt", "old_string": "safe", "new_string": "fast"}',
        ],
        "y\n",
    )
    assert code == 0, (out, err)
    assert "-mode = safe" in err and "+mode = fast" in err
    assert '"ok": true' in out
    assert (workspace / "guarded.txt").read_text() == "mode = fast\n"


def test_terminal_reject_writes_nothing(workspace: Path) -> None:
    before = (workspace / "guarded.txt").stat().st_mtime_ns
    code, out, err = _run_on_pty(
        [
            EXE,
            "call",
            "--root",
            str(workspace),
            "write",
            '{"path": "guarded.txt", "content": "x\\n"}',
        ],
        "n\n",
    )
    assert code == 1, (out, err)
    assert '"error": "rejected"' in out
    assert (workspace / "guarded.txt").read_text() == "mode = safe\n"
    assert (workspace / "guarded.txt").stat().st_mtime_ns == before


def test_no_terminal_refuses_without_yes(workspace: Path) -> None:
    args = [
        EXE,
        "call",
        "--root",
        str(workspace),
        "write",
        '{"path": "guarded.txt", "content": "x\\n"}',
    ]
    done = subprocess.run(
        args, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 1 and '"error": "no_confirmation"' in done.stdout
    done = subprocess.run(
        [*args[:2], "--yes", *args[2:]],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stdout
    assert (workspace / "guarded.txt").read_text() == "x\n"
