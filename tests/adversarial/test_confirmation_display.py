"""The person approving a change must see the change: content cannot redraw the prompt.

A model (or a document it read) controls the text it writes. Written into a diff that a
person reviews on a terminal, ANSI escapes such as "cursor up" + "erase line" could hide
the malicious line of a diff, and bidirectional overrides could reorder it. The CLI's
interactive confirmation, its `--human` output and the MCP elicitation question show such
characters as visible escapes instead.
"""

from __future__ import annotations

import json
import os
import pty
import select
import time
from pathlib import Path

import pytest
from forkserver import ForkServer, shared

from filewright.engine.workspace import ConfirmRequest
from filewright.surfaces.mcp.server import question

HIDING = (
    "harmless line\nrm -rf ~ # evil\x1b[1A\x1b[2K\r\x1b[2Kalso harmless\n\u202etxt.exe\n"
    "kind\U000e006f\U000e0062\u200b\u2060\n"
)
RAW = ("\x1b[1A", "\x1b[2K", "\r\x1b", "\u202e", "\U000e006f", "\u200b", "\u2060")


@pytest.fixture(scope="module")
def forks(request: pytest.FixtureRequest) -> ForkServer:
    return shared(request.session)


def _read_until(fd: int, needle: bytes, deadline: float) -> bytes:
    seen = b""
    while needle not in seen and time.monotonic() < deadline:
        ready, _, _ = select.select([fd], [], [], 0.2)
        if ready:
            try:
                chunk = os.read(fd, 65536)
            except OSError:
                break
            if not chunk:
                break
            seen += chunk
    return seen


def test_terminal_confirmation_shows_escapes_instead_of_obeying_them(
    tmp_path: Path, forks: ForkServer
) -> None:
    """The command runs on a pseudo-terminal, forked from the warm interpreter
    (tests/forkserver.py)."""
    root = tmp_path / "ws"
    root.mkdir()
    master, slave = pty.openpty()
    proc = forks.spawn(
        [
            "filewright",
            "call",
            "--root",
            str(root),
            "--toolset",
            "gemini",
            "write_file",
            json.dumps({"file_path": str(root / "notes.sh"), "content": HIDING}),
        ],
        stdin=slave,
        stderr=slave,
        env={**os.environ, "TERM": "xterm-256color", "COLUMNS": "200"},
    )
    os.close(slave)
    try:
        shown = _read_until(master, b"Apply this change?", time.monotonic() + 60)
        assert b"Apply this change?" in shown, shown[-500:]
        os.write(master, b"n\n")
        out, _ = proc.communicate(timeout=60)
    finally:
        os.close(master)
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    screen = shown.decode("utf-8", "replace")
    for raw in RAW:
        assert raw not in screen, f"raw {raw!r} from the content reached the terminal"
    assert "\\x1b[1A" in screen and "evil" in screen  # shown, visibly
    assert "y/N" in screen
    assert not json.loads(out)["ok"]
    assert not (root / "notes.sh").exists()


def test_human_output_shows_escapes(tmp_path: Path, forks: ForkServer) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    proc = forks.run(
        [
            "filewright",
            "call",
            "--root",
            str(root),
            "--human",
            "write",
            json.dumps({"path": "notes.sh", "content": HIDING}),
        ],
        timeout=60,
    )
    for raw in RAW:
        assert raw not in proc.stdout, f"raw {raw!r} reached the terminal"
    assert (root / "notes.sh").read_bytes() == HIDING.encode()  # the file itself is exact


def test_mcp_elicitation_question_shows_escapes() -> None:
    request = ConfirmRequest(
        path="/ws/notes.sh",
        operation="write",
        risk="high",
        diff="+" + HIDING.replace("\n", "\n+"),
        toolset="gemini",
        created=False,
    )
    text = question(request)
    for raw in RAW:
        assert raw not in text
    assert "\\x1b[2K" in text and "\\u202e" in text
