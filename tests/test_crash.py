"""kill -9 at any moment of a write leaves the old content or the new one, never a mix.

A child process rewrites one file in a loop through `fsio.write_atomic`, alternating two
contents of different sizes, and is killed with SIGKILL after a random (seeded) delay.
After every kill the file must be exactly one of the two contents. Children are forked
from one warm interpreter that has imported filewright (tests/forkserver.py), so none
pays for a start-up, and wait for a "go" line. The same is then done through the
`filewright call write` command (its `main`, forked the same way), and the command run
as a program afterwards must work.
"""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from forkserver import Forked, ForkServer

import filewright

A = b"A" * 200_000
B = b"B" * 300_000
KILLS = 100

# The code that writes is exactly the engine's.
CHILD = """
import itertools, sys
from filewright.fs import fsio
from filewright.fs.paths import Sandbox

loc = Sandbox([sys.argv[1]]).resolve(sys.argv[2], expect="file")
a, b = b"A" * 200_000, b"B" * 300_000
print("ready", flush=True)
if sys.stdin.readline() != "go\\n":
    sys.exit(0)
for i in itertools.count():
    fsio.write_atomic(loc, b if i % 2 else a, mode=None)
"""
PACKAGE_DIR = os.path.dirname(filewright.__file__)
# What the children import: the engine's writer, and what `filewright call write` imports
# on its way (the toolset, its change tools, the history), so that none pays for it (the
# CLI test's kill delays scale with the command's duration).
PRELOAD = (
    "filewright.fs.fsio",
    "filewright.surfaces.cli.main",
    "filewright",
    "filewright.toolsets.default",
    "filewright.toolsets.default_edits",
    "filewright.engine.pipeline",
    "filewright.engine.streamed",
    "filewright.state.history",
)


@pytest.fixture(scope="module")
def forks() -> Iterator[ForkServer]:
    with ForkServer(*PRELOAD) as server:
        yield server


def _spawn(forks: ForkServer, root: Path, name: str) -> Forked:
    child = forks.spawn(["child", str(root), name], CHILD, text=True)
    assert child.stdout is not None
    line = child.stdout.readline()
    if line != "ready\n":
        _, err = child.communicate(timeout=10)
        pytest.fail(f"writer child did not start: {line!r}\n{err}")
    return child


def _kill(child: subprocess.Popen[str] | Forked) -> None:
    child.send_signal(signal.SIGKILL)
    child.communicate(timeout=10)
    assert child.returncode == -signal.SIGKILL, child.returncode


def _check(path: Path, kill: int) -> None:
    data = path.read_bytes()  # raises if the file is missing
    if data not in (A, B):
        kinds = sorted(set(data[:16] + data[-16:]))
        pytest.fail(f"kill {kill}: torn file of {len(data)} bytes (bytes {kinds!r})")


@pytest.mark.timeout(120)
def test_sigkill_during_atomic_rewrites_never_tears_the_file(
    tmp_path: Path, forks: ForkServer
) -> None:
    path = tmp_path / "data.bin"
    path.write_bytes(A)
    rng = random.Random(20240611)
    rewritten = 0
    for kill in range(KILLS):
        child = _spawn(forks, tmp_path, path.name)
        before = path.stat().st_ino
        assert child.stdin is not None
        child.stdin.write("go\n")
        child.stdin.flush()
        time.sleep(rng.uniform(0.001, 0.030))
        _kill(child)
        _check(path, kill)
        rewritten += path.stat().st_ino != before
    # The kills must have hit a file that was really being rewritten.
    assert rewritten > 0
    leftovers = [p.name for p in tmp_path.iterdir() if p.name != path.name]
    assert all(name.endswith(".fwtmp") for name in leftovers), leftovers


@pytest.mark.timeout(120)
def test_sigkill_during_cli_writes_never_tears_the_file(
    tmp_path: Path, filewright_exe: Path, forks: ForkServer
) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    path = root / "data.txt"
    text_a, text_b = A.decode(), B.decode()
    path.write_bytes(A)
    payloads = [json.dumps({"path": "data.txt", "content": c}) for c in (text_b, text_a)]
    command = [str(filewright_exe), "call", "--root", str(root), "write", "-"]

    # One uninterrupted call: it must work, and its duration scales the kill delays so
    # that kills land from the command's start to the final rename.
    started = time.monotonic()
    out, err = forks.spawn(command, text=True).communicate(payloads[0])
    duration = time.monotonic() - started
    assert json.loads(out)["ok"] is True, err
    assert path.read_bytes() == B

    rng = random.Random(7)
    for kill in range(20):
        child = forks.spawn(command, text=True)
        assert child.stdin is not None
        child.stdin.write(payloads[(kill + 1) % 2])
        child.stdin.close()
        child.stdin = None
        time.sleep(rng.uniform(0.6, 1.05) * duration)
        child.send_signal(signal.SIGKILL)
        child.communicate(timeout=30)
        _check(path, kill)

    # Whatever the kills interrupted (locks, history, the read ledger), the next call works.
    done = subprocess.run(command, input=payloads[1], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stdout + done.stderr
    assert json.loads(done.stdout)["ok"] is True
    assert path.read_bytes() == A
    read = subprocess.run(
        [
            str(filewright_exe),
            "call",
            "--root",
            str(root),
            "read",
            '{"path": "data.txt", "limit": 1}',
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert read.returncode == 0, read.stdout + read.stderr
    assert os.path.getsize(path) == len(A)


# A child that writes one large file and stops in the middle of it (a pipe it writes to
# blocks), so that it can be killed while its temporary file is half written.
HALF_WRITE_CHILD = """
import os, sys, types
package = types.ModuleType("filewright")
package.__path__ = [sys.argv[3]]
sys.modules["filewright"] = package
from filewright.fs import fsio
from filewright.fs.paths import Sandbox

loc = Sandbox([sys.argv[1]]).resolve(sys.argv[2], expect="file")
real_write = os.write
calls = 0

def slow_write(fd, data):
    global calls
    calls += 1
    if calls == 2:  # the first chunk is on disk: say so, then wait to be killed
        print("writing", flush=True)
        sys.stdin.readline()
    return real_write(fd, data[: 1 << 20])

os.write = slow_write
fsio.write_atomic(loc, b"N" * (8 << 20), mode=None)
"""


def _tmpfile_supported(directory: Path) -> bool:
    flag = getattr(os, "O_TMPFILE", 0)
    if not flag or not os.path.isdir("/proc/self/fd"):
        return False
    try:
        os.close(os.open(directory, os.O_WRONLY | flag, 0o600))
    except OSError:
        return False
    return True


def test_a_write_killed_halfway_leaves_no_temporary_file(tmp_path: Path) -> None:
    if not _tmpfile_supported(tmp_path):
        pytest.skip("no O_TMPFILE here: a killed write leaves its named .fwtmp file")
    (tmp_path / "big.bin").write_bytes(b"old\n")
    child = subprocess.Popen(
        [sys.executable, "-c", HALF_WRITE_CHILD, str(tmp_path), "big.bin", PACKAGE_DIR],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert child.stdout is not None
    line = child.stdout.readline()
    assert line == "writing\n", child.communicate(timeout=10)
    _kill(child)
    assert (tmp_path / "big.bin").read_bytes() == b"old\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["big.bin"]
