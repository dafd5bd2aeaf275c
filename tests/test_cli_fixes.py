"""The command line a newcomer meets: each fix of issue 19 with its test (real processes;
a pseudo-terminal where the behaviour depends on one).

Commands are processes forked from one interpreter that has imported the CLI
(tests/forkserver.py: the `filewright` command's `main` with the same arguments, on pipes
or on a pseudo-terminal's end); `python -m filewright` and `filewright serve` on a
terminal (stopped by Ctrl-C) start from scratch."""

from __future__ import annotations

import json
import os
import pty
import re
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from forkserver import ForkServer, shared

CLI = [sys.executable, "-c", "from filewright.surfaces.cli.main import main; main()"]
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


_FORKS: list[ForkServer] = []


@pytest.fixture(scope="module", autouse=True)
def forks(request: pytest.FixtureRequest) -> ForkServer:
    server = shared(request.session)
    _FORKS[:] = [server]
    return server


def run(*args: str, cwd: Path, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    """`filewright ARGS` on pipes (forked), to its end."""
    return _FORKS[0].run(["filewright", *args], cwd=cwd, input=stdin, timeout=120)


def on_terminal(*args: str, cwd: Path, columns: int = 100) -> str:
    """Run with stdin, stdout and stderr on a pseudo-terminal; what it printed (no ANSI)."""
    master, slave = pty.openpty()
    env = {**os.environ, "COLUMNS": str(columns), "TERM": "xterm"}
    env.pop("NO_COLOR", None)
    proc = _FORKS[0].spawn(["filewright", *args], cwd=cwd, env=env, stdin=slave, stdout=slave,
                           stderr=slave)  # fmt: skip
    os.close(slave)
    out = b""
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        ready, _, _ = select.select([master], [], [], 0.5)
        if ready:
            try:
                chunk = os.read(master, 65536)
            except OSError:
                break
            if not chunk:
                break
            out += chunk
        elif proc.poll() is not None:
            break
    proc.wait(timeout=30)
    os.close(master)
    return ANSI.sub("", out.decode("utf-8", "replace")).replace("\r\n", "\n")


# -- filewright tools ---------------------------------------------------------------------------


def test_tools_table_keeps_optional_parameters(tmp_path: Path) -> None:
    shown = on_terminal("tools", cwd=tmp_path, columns=200)
    assert "[offset]" in shown and "[limit]" in shown and "[replace_all]" in shown, shown
    assert "parameters ([optional])" in shown, shown  # the header, not "parameters ()"


def test_every_toolset_option_lists_every_registered_toolset(tmp_path: Path) -> None:
    """The --toolset help is derived from the registry, so it cannot drift from it."""
    from filewright.engine.registry import REGISTRY

    for command in ("call", "tools", "serve", "undo"):
        shown = " ".join(run(command, "--help", cwd=tmp_path).stdout.split())
        listed = re.search(r"Toolset: ([a-z_, ]+)\.", shown)
        assert listed, shown
        assert listed.group(1).split(", ") == list(REGISTRY), (command, listed.group(1))


# -- insert past the end ------------------------------------------------------------------------


@pytest.mark.parametrize(("locale", "want"), [("en", "a.py has 2 lines"), ("zh", "a.py 共 2 行")])
def test_insert_past_the_end_names_the_line_count(tmp_path: Path, locale: str, want: str) -> None:
    (tmp_path / "a.py").write_text("x = 1\ny = 2\n")
    proc = run("call", "--locale", locale, "insert", '{"path": "a.py", "line": 9, "text": "z"}',
               cwd=tmp_path)  # fmt: skip
    out = json.loads(proc.stdout)
    assert not out["ok"] and want in out["text"] and "?" not in out["text"], out


# -- undo --force, history --show / --diff ------------------------------------------------------


def _two_changes(root: Path) -> Path:
    f = root / "n.txt"
    f.write_text("one\ntwo\n")
    assert (
        run("call", "write", '{"path": "n.txt", "content": "one\\nTWO\\n"}', cwd=root).returncode
        == 0
    )
    assert run("call", "edit", '{"path": "n.txt", "old_string": "one", "new_string": "ONE"}',
               cwd=root).returncode == 0  # fmt: skip
    return f


def test_undo_after_a_manual_edit_needs_force_and_keeps_the_edit(tmp_path: Path) -> None:
    f = _two_changes(tmp_path)
    f.write_text("ONE\nTWO\nmanual\n")
    refused = run("undo", "n.txt", cwd=tmp_path)
    out = json.loads(refused.stdout)
    assert refused.returncode == 1 and "undo --force n.txt" in out["text"]
    assert "read it again" not in out["text"]
    assert f.read_text() == "ONE\nTWO\nmanual\n"
    forced = run("undo", "--force", "n.txt", cwd=tmp_path)
    assert forced.returncode == 0, forced.stdout
    assert f.read_text() == "one\nTWO\n"
    again = run("undo", "n.txt", cwd=tmp_path)  # brings the manual edit back
    assert again.returncode == 0 and f.read_text() == "ONE\nTWO\nmanual\n"


def test_history_show_and_diff_of_an_entry(tmp_path: Path) -> None:
    f = _two_changes(tmp_path)
    listing = json.loads(run("history", "n.txt", cwd=tmp_path).stdout)
    assert [e["id"] for e in listing["data"]["entries"]] == [1, 2]
    shown = json.loads(run("history", "n.txt", "--show", "1", cwd=tmp_path).stdout)
    assert shown["ok"] and shown["text"] == "one\ntwo\n"
    first = json.loads(run("history", "n.txt", "--diff", "1", cwd=tmp_path).stdout)
    assert "-two\n+TWO\n" in first["data"]["diff"]
    last = json.loads(run("history", "n.txt", "--diff", "2", cwd=tmp_path).stdout)
    assert "-one\n+ONE\n" in last["data"]["diff"] and f.read_text() == "ONE\nTWO\n"
    missing = run("history", "n.txt", "--show", "7", cwd=tmp_path)
    assert missing.returncode == 1 and "recorded: 1, 2" in json.loads(missing.stdout)["text"]
    usage = run("history", "--show", "1", cwd=tmp_path)
    assert usage.returncode == 2 and "need a PATH" in usage.stderr


def test_history_and_undo_are_readable_on_a_terminal(tmp_path: Path) -> None:
    _two_changes(tmp_path)
    listing = on_terminal("history", "n.txt", cwd=tmp_path)
    assert not listing.lstrip().startswith("{") and "2 recorded change(s)" in listing
    assert "--diff N" in listing and "filewright undo n.txt" in listing
    diff = on_terminal("history", "n.txt", "--diff", "2", cwd=tmp_path)
    assert "-one" in diff and "+ONE" in diff and '"ok"' not in diff
    undone = on_terminal("undo", "n.txt", cwd=tmp_path)
    assert undone.startswith("Restored n.txt") and "+one" in undone, undone
    assert json.loads(on_terminal("history", "n.txt", "--json", cwd=tmp_path))["ok"]


# -- --human when piped ---------------------------------------------------------------------------


def test_human_output_is_not_wrapped_or_coloured_when_piped(tmp_path: Path) -> None:
    long_line = "word " * 60 + "END"
    (tmp_path / "a.txt").write_text(long_line + "\n")
    proc = run("call", "--human", "read", '{"path": "a.txt"}', cwd=tmp_path)
    assert proc.returncode == 0
    assert long_line in proc.stdout and not ANSI.search(proc.stdout)
    edit = run("call", "--human", "edit",
               json.dumps({"path": "a.txt", "old_string": "END", "new_string": "FIN " * 40}),
               cwd=tmp_path)  # fmt: skip
    assert "+" + long_line.replace("END", "FIN " * 40) in edit.stdout


# -- JSON-ARGS errors ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("toolset", "tool", "args", "example"),
    [
        ("default", "read", "a.py", '\'{"path": "a.py"}\''),
        ("default", "write", "{path: a.py}", '\'{"path": "a.py"}\''),
        ("default", "read", "[1]", '\'{"path": "a.py"}\''),
        ("claude", "Read", "a.py", '"file_path": "/'),
        ("gemini", "read_file", '"x"', "--toolset gemini read_file '{"),
        ("worker", "write_file", "notes.md", '\'{"path": "notes.md"}\''),
        ("memo", "memo_read", "x", "--toolset memo memo_read '{}'"),
        ("text_editor", "str_replace_based_edit_tool", "view", '"command": "view"'),
    ],
)
def test_every_json_args_error_shows_an_example(
    tmp_path: Path, toolset: str, tool: str, args: str, example: str
) -> None:
    proc = run("call", "--toolset", toolset, tool, args, cwd=tmp_path)
    assert proc.returncode == 2
    assert "e.g. filewright call" in proc.stderr and example in proc.stderr, proc.stderr
    assert example in json.loads(proc.stdout)["text"]


# -- serve on a terminal ---------------------------------------------------------------------------


def test_serve_on_a_terminal_says_what_it_waits_for_and_stops_on_ctrl_c(tmp_path: Path) -> None:
    master, slave = pty.openpty()
    proc = subprocess.Popen([*CLI, "serve", "--root", str(tmp_path)], stdin=slave, stdout=slave,
                            stderr=slave, start_new_session=True)  # fmt: skip
    os.close(slave)
    out = b""
    try:
        deadline = time.monotonic() + 60
        while b"Ctrl-C" not in out and time.monotonic() < deadline:
            ready, _, _ = select.select([master], [], [], 0.5)
            if ready:
                out += os.read(master, 4096)
        hint = out.decode().strip().splitlines()
        assert len(hint) == 1 and "MCP client" in hint[0] and "Ctrl-C stops it" in hint[0]
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=30) == 130
    finally:
        if proc.poll() is None:
            proc.kill()
        os.close(master)


# -- --version, python -m filewright -----------------------------------------------------------


def test_version_and_python_m(tmp_path: Path) -> None:
    from filewright import __version__

    assert run("--version", cwd=tmp_path).stdout.strip() == f"filewright {__version__}"
    module = subprocess.run([sys.executable, "-m", "filewright", "call", "read", '{"path": "x"}'],
                            cwd=tmp_path, capture_output=True, text=True, timeout=60)  # fmt: skip
    assert module.returncode == 1 and json.loads(module.stdout)["data"]["error"] == "not_found"
