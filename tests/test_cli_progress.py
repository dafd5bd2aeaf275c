"""The progress bar of `filewright call`: on a real pseudo-terminal (stderr), never on stdout.

The CLI runs as a real subprocess over a generated tree of a few thousand files, with
stderr on a pty (a person watching) or a pipe (a program reading): forked from a warm
interpreter (tests/forkserver.py: the same entry point and arguments) where only the
output matters, a new interpreter where what it imports is the point. The bar normally
waits `FILEWRIGHT_PROGRESS_DELAY` seconds before it appears; these tests set it to 0, so
that whether it is drawn does not depend on how fast the machine searches.
"""

from __future__ import annotations

import fcntl
import json
import os
import pty
import re
import select
import struct
import subprocess
import sys
import termios
import time
from pathlib import Path
from typing import Any

import pytest
from forkserver import Forked, ForkServer, shared

from filewright.surfaces.cli import main as cli

BAR_TEXT = b"matching lines so far"  # the grep engine's progress message
COLOUR = re.compile(rb"\x1b\[(?:3|9)\d(?:;\d+)*m")  # a foreground colour
FAST = "from filewright.surfaces.cli.main import main; main()"
TYPER = (
    "import sys; from filewright.surfaces.cli.app import run_app; sys.exit(run_app(sys.argv[1:]))"
)
GREP = ["grep", '{"pattern": "needle", "max_matches": 10000}']
SEARCH = ["--toolset", "gemini", "search_file_content", '{"pattern": "needle"}']


@pytest.fixture(scope="module")
def forks(request: pytest.FixtureRequest) -> ForkServer:
    return shared(request.session)


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """3,000 files with a few matching lines each: grep reports progress along the way."""
    root = tmp_path_factory.mktemp("tree")
    body = "".join(
        f"line {i} needle here\n" if i % 9 == 0 else f"line {i} hay\n" for i in range(60)
    )
    for d in range(30):
        sub = root / f"dir{d:02}"
        sub.mkdir()
        for f in range(100):
            (sub / f"file{f:03}.txt").write_text(body, encoding="utf-8")
    return root


def environment(**changes: str | None) -> dict[str, str]:
    """The environment of a run: a capable terminal, colours on, the bar without delay."""
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("NO_COLOR", "FORCE_COLOR", "TTY_COMPATIBLE", "TTY_INTERACTIVE", "COLUMNS")
    }
    env.update(TERM="xterm-256color", FILEWRIGHT_PROGRESS_DELAY="0")
    for key, value in changes.items():
        if value is None:
            env.pop(key, None)
        else:
            env[key] = value
    return env


def command(entry: str, root: Path, args: list[str]) -> list[str]:
    return [sys.executable, "-c", entry, "call", "--root", str(root), *args]


def forked(forks: ForkServer, argv: list[str], env: dict[str, str], **fds: int) -> Forked:
    """`command(entry, ...)` forked from the warm interpreter: the same entry point and
    arguments (sys.argv as `python -c` sets it), stdin at its end at once (as /dev/null)."""
    assert argv[:2] == [sys.executable, "-c"], argv
    entry, rest = argv[2], argv[3:]
    if entry == FAST:
        child = forks.spawn(["filewright", *rest], env=env, **fds)
    else:
        child = forks.spawn(["-c", *rest], entry, env=env, **fds)
    assert child.stdin is not None
    child.stdin.close()
    child.stdin = None
    return child


def run_on_pty(
    argv: list[str], env: dict[str, str], timeout: float = 120.0, forks: ForkServer | None = None
) -> tuple[int, bytes, bytes]:
    """Run with stderr on a pty (100 columns) and stdout on a pipe: (status, stdout, pty);
    forked from the warm interpreter when `forks` is given, else a new interpreter."""
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 100, 0, 0))
    proc: Any = (
        forked(forks, argv, env, stderr=slave)
        if forks is not None
        else subprocess.Popen(
            argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=slave, env=env
        )
    )
    os.close(slave)
    assert proc.stdout is not None
    out_fd = proc.stdout.fileno()
    open_fds = {master, out_fd}
    chunks: dict[int, bytes] = {master: b"", out_fd: b""}
    deadline = time.monotonic() + timeout  # a guard against hanging, not a measurement
    try:
        while open_fds and time.monotonic() < deadline:
            ready, _, _ = select.select(list(open_fds), [], [], 0.5)
            for fd in ready:
                try:
                    data = os.read(fd, 65536)
                except OSError:  # EIO: every process closed the pty's other end
                    data = b""
                if data:
                    chunks[fd] += data
                else:
                    open_fds.discard(fd)
        assert not open_fds, "the CLI did not finish"
        code = proc.wait(timeout=timeout)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        os.close(master)
        proc.stdout.close()
    return code, chunks[out_fd], chunks[master]


def run_piped(
    argv: list[str], env: dict[str, str], forks: ForkServer | None = None
) -> subprocess.CompletedProcess[bytes]:
    """Run with stdout and stderr on pipes (forked when `forks` is given)."""
    if forks is None:
        return subprocess.run(
            argv, stdin=subprocess.DEVNULL, capture_output=True, env=env, timeout=120
        )
    child = forked(forks, argv, env)
    out, err = child.communicate(timeout=120)
    return subprocess.CompletedProcess(argv, child.wait(), out, err)


def assert_bar_drawn_and_erased(terminal: bytes, label: bytes) -> None:
    assert label in terminal and BAR_TEXT in terminal, terminal[:500]
    tail = terminal[terminal.rindex(BAR_TEXT) :]
    assert b"\x1b[?25h" in tail  # the cursor is shown again
    assert terminal.rstrip(b"\r\n").endswith(b"\x1b[2K")  # and the bar's line erased


@pytest.mark.parametrize("entry", [FAST, TYPER], ids=["fast-path", "typer"])
def test_grep_draws_a_bar_on_the_terminal_and_stdout_stays_the_same(
    forks: ForkServer, tree: Path, entry: str
) -> None:
    code, out, terminal = run_on_pty(command(entry, tree, GREP), environment(), forks=forks)
    assert code == 0, terminal
    assert_bar_drawn_and_erased(terminal, b"grep")
    assert COLOUR.search(terminal)

    piped = run_piped(command(entry, tree, GREP), environment(), forks=forks)
    assert piped.returncode == 0
    assert piped.stderr == b""  # stderr is not a terminal: no bar, nothing at all
    assert out == piped.stdout  # byte-identical JSON either way
    assert b"\x1b" not in out and BAR_TEXT not in out
    result = json.loads(out)
    assert result["ok"] is True and result["data"]["total_matches"] > 1000


def test_search_file_content_draws_a_bar_too(forks: ForkServer, tree: Path) -> None:
    code, out, terminal = run_on_pty(command(FAST, tree, SEARCH), environment(), forks=forks)
    assert code == 0, terminal
    assert_bar_drawn_and_erased(terminal, b"search_file_content")
    piped = run_piped(command(FAST, tree, SEARCH), environment(), forks=forks)
    assert piped.stderr == b"" and out == piped.stdout
    assert json.loads(out)["ok"] is True


def test_human_output_is_printed_after_the_bar_is_gone(forks: ForkServer, tree: Path) -> None:
    code, out, terminal = run_on_pty(
        command(FAST, tree, ["--human", *GREP]), environment(), forks=forks
    )
    assert code == 0, terminal
    assert_bar_drawn_and_erased(terminal, b"grep")
    assert out.startswith(b"Found ") and BAR_TEXT not in out


@pytest.mark.parametrize("entry", [FAST, TYPER], ids=["fast-path", "typer"])
def test_no_progress_draws_nothing(forks: ForkServer, tree: Path, entry: str) -> None:
    code, out, terminal = run_on_pty(
        command(entry, tree, ["--no-progress", *GREP]), environment(), forks=forks
    )
    assert code == 0
    assert terminal == b""
    piped = run_piped(command(entry, tree, GREP), environment(), forks=forks)
    assert out == piped.stdout


def test_dumb_terminal_draws_nothing(forks: ForkServer, tree: Path) -> None:
    code, out, terminal = run_on_pty(
        command(FAST, tree, GREP), environment(TERM="dumb"), forks=forks
    )
    assert code == 0 and terminal == b""
    assert json.loads(out)["ok"] is True


def test_no_color_draws_the_bar_without_colours(forks: ForkServer, tree: Path) -> None:
    code, _, terminal = run_on_pty(
        command(FAST, tree, GREP), environment(NO_COLOR="1"), forks=forks
    )
    assert code == 0
    assert_bar_drawn_and_erased(terminal, b"grep")
    assert not COLOUR.search(terminal)


MODULES_AFTER = (
    "import sys\n"
    "from filewright.surfaces.cli.main import main\n"
    "try:\n    main()\nexcept SystemExit:\n    pass\n"
    "print(sorted(m for m in sys.modules if m.split('.')[0] == 'rich' "
    "or m == 'filewright.surfaces.cli.progress'))\n"
)


def test_a_quick_call_on_a_terminal_imports_no_rich(tree: Path) -> None:
    """Before the delay has passed nothing is drawn, and rich is never imported."""
    env = environment(FILEWRIGHT_PROGRESS_DELAY="3600")
    code, out, terminal = run_on_pty(command(MODULES_AFTER, tree, GREP), env)
    assert code == 0 and terminal == b""
    assert out.splitlines()[-1] == b"['filewright.surfaces.cli.progress']"


def test_stderr_not_a_terminal_imports_nothing_for_the_bar(tree: Path) -> None:
    piped = run_piped(command(MODULES_AFTER, tree, GREP), environment())
    assert piped.returncode == 0 and piped.stderr == b""
    assert piped.stdout.splitlines()[-1] == b"[]"


def test_no_progress_is_parsed_alike_by_both_paths(monkeypatch: pytest.MonkeyPatch) -> None:
    from filewright.surfaces.cli import app as cli_typer

    seen: list[dict[str, Any]] = []

    def fake(tool: str, args: str | None, **kwargs: Any) -> int:
        seen.append(kwargs)
        return 0

    monkeypatch.setattr(cli_typer, "run_call", fake)
    for argv, wanted in (
        (["call", "--no-progress", "grep", "{}"], False),
        (["call", "grep", "{}", "--no-progress"], False),
        (["call", "grep", "{}"], True),
    ):
        fast = cli.parse_call_argv(argv)
        assert fast is not None and fast["no_progress"] is not wanted
        assert cli_typer.run_app(argv) == 0
        assert seen.pop().get("progress", True) is wanted
    assert cli.parse_call_argv(["call", "--no-progress=1", "grep"]) is None


def test_call_help_documents_no_progress() -> None:
    done = subprocess.run(
        [sys.executable, "-c", FAST, "call", "--help"],
        capture_output=True,
        text=True,
        timeout=60,
        env=environment(COLUMNS="200"),
    )
    assert done.returncode == 0
    assert "--no-progress" in done.stdout and "progress bar" in done.stdout
