"""kill -9 during streamed changes and in-place appends of large files.

Children are forked from one warm interpreter that has imported filewright
(tests/forkserver.py: no child pays for a start-up), wait for a "go" line, change one file
in a loop through the real engine (a workspace whose streaming threshold is 0, so every
change takes the streamed path a gigabyte file takes) and are killed with SIGKILL after a
random (seeded) delay.

* Streamed rewrites flip one token back and forth: after every kill the file is exactly
  one of the two versions, no temporary file is left, and undo still works.
* Appends add fixed-size records: after every kill, once filewright has looked at the
  file again (a half-written append of a killed process is rolled back by the next
  change or undo of that file), the file is the original plus whole records only, and
  undoing every recorded append gives back the original bytes.
"""

from __future__ import annotations

import os
import random
import signal
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from forkserver import Forked, ForkServer

from filewright import Workspace

KILLS = 24
BODY = b"".join(b"%07d some text of a line in a large file\n" % i for i in range(60_000))
A = BODY + b"TOKEN-AAAA\n" + BODY[:100_000]
B = A.replace(b"TOKEN-AAAA", b"TOKEN-B")
RECORD = 1024 * 1024
FILLER = b"r" * (RECORD - 9)  # a record: 8 digits, this, a newline

CHILD = """
import itertools, sys
from filewright import Workspace
root, mode = sys.argv[1], sys.argv[2]
tools = Workspace(root, stream_above_bytes=0, keep_backups=100_000).toolset("default")
print("ready", flush=True)
if sys.stdin.readline() != "go\\n":
    sys.exit(0)
if mode == "flip":
    pairs = [("TOKEN-AAAA", "TOKEN-B"), ("TOKEN-B", "TOKEN-AAAA")]
    start = int(b"TOKEN-B" in open(root + "/f.txt", "rb").read())
    for i in itertools.count(start):
        old, new = pairs[i % 2]
        r = tools.call("edit", {"path": "f.txt", "old_string": old, "new_string": new})
        assert r.ok, r.text
else:
    for i in itertools.count():
        record = (b"%08d" % i).decode() + "r" * (%(record)d - 9) + "\\n"
        r = tools.call("append", {"path": "f.txt", "content": record})
        assert r.ok, r.text
""".replace("%(record)d", str(RECORD))


@pytest.fixture(scope="module")
def forks() -> Iterator[ForkServer]:
    with ForkServer("filewright") as server:
        yield server


def _spawn(forks: ForkServer, root: Path, mode: str) -> Forked:
    child = forks.spawn(["child", str(root), mode], CHILD)
    assert child.stdout is not None
    line = child.stdout.readline()
    if line != b"ready\n":
        _, err = child.communicate(timeout=30)
        pytest.fail(f"child did not start: {line!r}\n{err.decode(errors='replace')}")
    return child


def _run_and_kill(child: Forked, delay: float) -> None:
    assert child.stdin is not None
    child.stdin.write(b"go\n")
    child.stdin.flush()
    time.sleep(delay)
    if child.poll() is not None:
        _, err = child.communicate(timeout=10)
        pytest.fail(f"child exited on its own ({child.returncode}): {err[-2000:]!r}")
    child.send_signal(signal.SIGKILL)
    child.communicate(timeout=10)
    assert child.returncode == -signal.SIGKILL, child.returncode


def _staged(root: Path) -> list[Path]:
    return [p for p in root.iterdir() if p.name.endswith(".fwtmp")]


def test_kill_during_streamed_rewrites_leaves_one_version(
    tmp_path: Path, forks: ForkServer
) -> None:
    path = tmp_path / "f.txt"
    path.write_bytes(A)
    rng = random.Random(18)
    for _ in range(KILLS):
        child = _spawn(forks, tmp_path, "flip")
        _run_and_kill(child, rng.uniform(0.02, 0.6))
        assert path.read_bytes() in (A, B)
        # A kill between naming the staged file and the rename (microseconds, but a
        # small file's edit takes only milliseconds) can leave that one name behind.
        assert len(_staged(tmp_path)) <= 1
    # ... which the next streamed change of the file removes once it is old enough.
    for orphan in _staged(tmp_path):
        os.utime(orphan, (time.time() - 3600, time.time() - 3600))
    flip = Workspace(tmp_path, stream_above_bytes=0, keep_backups=100_000).toolset("default")
    old, new = (
        ("TOKEN-B", "TOKEN-AAAA") if b"TOKEN-B" in path.read_bytes() else ("TOKEN-AAAA", "TOKEN-B")
    )
    assert flip.call("edit", {"path": "f.txt", "old_string": old, "new_string": new}).ok
    assert flip.call("undo", {"path": "f.txt"}).ok
    assert _staged(tmp_path) == []
    # The history is consistent with the file: undo goes back through whole versions.
    tools = Workspace(tmp_path, stream_above_bytes=0).toolset("default")
    for _ in range(5):
        result = tools.call("undo", {"path": "f.txt"})
        if not result.ok:
            assert result.data["error"] == "no_history", result.text
            break
        assert path.read_bytes() in (A, B)


def test_kill_during_appends_leaves_only_whole_appends(tmp_path: Path, forks: ForkServer) -> None:
    path = tmp_path / "f.txt"
    path.write_bytes(A)
    rng = random.Random(19)
    torn = 0
    for _ in range(KILLS):
        child = _spawn(forks, tmp_path, "append")
        _run_and_kill(child, rng.uniform(0.02, 0.4))
        extra = path.stat().st_size - len(A)
        torn += extra % RECORD != 0
        # filewright looks at the file again: a half-written append is rolled back by the
        # next change (an append: any streamed change heals the file first, and an append
        # and its undo cost what they append, where a rewrite costs the whole file twice)
        tools = Workspace(tmp_path, stream_above_bytes=0, keep_backups=100_000).toolset("default")
        assert tools.call("append", {"path": "f.txt", "content": "probe"}).ok
        assert tools.call("undo", {"path": "f.txt"}).ok
        # compared in place, without copies (bytes.startswith: memcmp; comparing
        # memoryviews goes byte by byte)
        data = path.read_bytes()
        assert data.startswith(A)
        tail = len(data) - len(A)
        assert tail % RECORD == 0, f"a partial append survived ({tail} bytes)"
        for i in range(len(A), len(data), RECORD):
            assert data[i + RECORD - 1] == ord("\n") and data.startswith(FILLER, i + 8)
    tools = Workspace(tmp_path, stream_above_bytes=0, keep_backups=100_000).toolset("default")
    while tools.call("undo", {"path": "f.txt"}).ok:
        pass
    assert path.read_bytes() == A
    print(f"{torn} of {KILLS} kills left a half-written append before recovery")


def test_a_staged_file_orphaned_by_a_killed_process_is_swept_later(tmp_path: Path) -> None:
    """A kill between naming the staged file and the rename leaves `.<name>.<hex>.fwtmp`
    behind; the next streamed change of that file removes it once it is old enough, and
    touches nothing else."""
    (tmp_path / "big.log").write_bytes(b"line alpha\n" * 100)
    old = tmp_path / ".big.log.0123456789ab.fwtmp"
    fresh = tmp_path / ".big.log.ba9876543210.fwtmp"
    others = [tmp_path / ".big.log.notours.fwtmp", tmp_path / ".other.log.0123456789ab.fwtmp"]
    for path in (old, fresh, *others):
        path.write_bytes(b"partial")
    stale = time.time() - 3600
    for path in (old, *others):
        os.utime(path, (stale, stale))
    tools = Workspace(tmp_path, stream_above_bytes=0).toolset("default")
    result = tools.call(
        "edit",
        {"path": "big.log", "old_string": "alpha", "new_string": "beta", "replace_all": True},
    )
    assert result.ok, result.text
    assert not old.exists()
    assert fresh.exists() and all(p.exists() for p in others)
    assert (tmp_path / "big.log").read_bytes() == b"line beta\n" * 100


KILLED_BEFORE_RENAME = """
import os, sys
from filewright import Workspace
from filewright.fs import bigfile
bigfile.Staged.commit = lambda self: os._exit(9)  # killed here: after history, before rename
tools = Workspace(sys.argv[1], stream_above_bytes=0).toolset("default")
tools.call("edit", {"path": "f.txt", "old_string": "TOKEN-AAAA", "new_string": "TOKEN-B"})
"""


def test_a_rewrite_killed_before_its_rename_is_forgotten_by_undo(
    tmp_path: Path, forks: ForkServer
) -> None:
    """Was open (a rare failure of the kill test above): a process killed after a
    streamed rewrite's write-ahead history entry and before its rename left an entry for
    a change that never landed, and undo refused the file as stale from then on. Undo
    now forgets such an entry (the file has the size and mtime it had before the change),
    also when entries above it are undone first."""
    path = tmp_path / "f.txt"
    path.write_bytes(A)
    child = forks.spawn(["child", str(tmp_path)], KILLED_BEFORE_RENAME)
    child.communicate(timeout=60)
    assert child.returncode == 9 and path.read_bytes() == A
    tools = Workspace(tmp_path, stream_above_bytes=0).toolset("default")
    assert tools.call("edit", {"path": "f.txt", "old_string": "TOKEN-AAAA", "new_string": "T"}).ok
    assert tools.call("undo", {"path": "f.txt"}).ok and path.read_bytes() == A
    result = tools.call("undo", {"path": "f.txt"})
    assert result.ok, result.text
    assert path.read_bytes() == A
    assert tools.call("undo", {"path": "f.txt"}).data["error"] == "no_history"
