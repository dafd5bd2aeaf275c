"""The fork server the kill tests use (tests/forkserver.py) behaves like `Popen`."""

from __future__ import annotations

import json
import os
import signal
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from forkserver import ForkServer


@pytest.fixture(scope="module")
def forks() -> Iterator[ForkServer]:
    with ForkServer("filewright.surfaces.cli.main", "no.such.module") as server:
        yield server


def test_a_script_gets_its_argv_stdin_and_exit_code(forks: ForkServer) -> None:
    code = "import sys; print(sys.argv[1:], sys.stdin.read()); print('e', file=sys.stderr); sys.exit(3)"
    child = forks.spawn(["child", "a", "b"], code, text=True)
    assert child.communicate("in\n") == ("['a', 'b'] in\n\n", "e\n")
    assert child.returncode == 3


def test_the_command_runs_with_its_arguments(forks: ForkServer, tmp_path: Path) -> None:
    (tmp_path / "f.txt").write_text("hello\n")
    argv = ["filewright", "call", "--root", str(tmp_path), "read", "-"]
    out, err = forks.spawn(argv).communicate(json.dumps({"path": "f.txt"}).encode())
    assert json.loads(out)["ok"] is True, err
    usage = forks.spawn(["filewright", "call", "--root", str(tmp_path), "no_such_tool", "{}"])
    usage.communicate()
    assert usage.returncode == 2


def test_a_killed_child_reports_the_signal_and_its_pid_stays_its_own(forks: ForkServer) -> None:
    child = forks.spawn(["child"], "import sys; print('up', flush=True); sys.stdin.read()")
    assert child.stdout is not None and child.stdout.readline() == b"up\n"
    assert child.poll() is None
    child.send_signal(signal.SIGKILL)
    child.communicate()
    assert child.returncode == -signal.SIGKILL
    child.send_signal(signal.SIGKILL)  # reaped: no signal goes to whatever has the pid now


def test_children_run_at_once_and_outlive_nothing(tmp_path: Path) -> None:
    with ForkServer() as server:
        code = "import os, sys; print(os.getpid(), flush=True); sys.stdin.read()"
        children = [server.spawn(["child"], code) for _ in range(3)]
        pids = []
        for child in children:
            assert child.stdout is not None
            pids.append(int(child.stdout.readline()))
        assert len(set(pids)) == 3 and all(child.poll() is None for child in children)
    for pid in pids:  # closing the server killed and reaped them
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)


def test_poll_reports_an_exit_without_blocking(forks: ForkServer) -> None:
    child = forks.spawn(["child"], "import sys; sys.stdin.readline(); sys.exit(5)", text=True)
    assert child.poll() is None  # waiting for its line: running, and poll did not block
    assert child.stdin is not None and child.stdout is not None
    child.stdin.write("go\n")
    child.stdin.flush()
    assert child.stdout.read() == ""  # its end: it has exited or is exiting
    for _ in range(1000):
        if child.poll() is not None:
            break
        time.sleep(0.01)
    assert child.returncode == 5
    child.communicate()
