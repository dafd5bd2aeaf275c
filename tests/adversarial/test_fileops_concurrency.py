"""Processes racing file management: moves against moves, moves against edits, deletes
against writes, many mkdirs of one path. Nothing is lost or torn, and every refusal is
an expected one (the other process got there first), never an internal error.

The racing processes are forked from one interpreter that has imported the engine
(tests/forkserver.py), so that they race on the files rather than on start-ups."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest
from forkserver import ForkServer

from filewright import Workspace
from filewright.engine.undo import undo

WORKER = """
import json, sys
from filewright import Workspace
from filewright.engine import fileops
from filewright.engine.pipeline import Change, apply_change
root, role, rounds = sys.argv[1], sys.argv[2], int(sys.argv[3])
engine = Workspace(root).engine()
codes = []
for i in range(rounds):
    if role == "mover":
        a, b = ("a.txt", "b.txt") if i % 2 == 0 else ("b.txt", "a.txt")
        out = fileops.move(engine, a, b)
    elif role == "editor":
        name = "a.txt" if i % 2 == 0 else "b.txt"
        out = apply_change(engine, Change(name, "write", lambda old: "v%d\\n" % i * 500,
                                          must_exist=True, check_stale=False))
    elif role == "deleter":
        out = fileops.delete(engine, "a.txt")
    elif role == "writer":
        out = apply_change(engine, Change("a.txt", "write", lambda old: "w\\n" * 500,
                                          check_stale=False))
    else:
        out = fileops.mkdir(engine, "x/y/z/" + str(i % 3))
    codes.append("ok" if out.ok else out.failure.code)
print(json.dumps(codes))
"""


@pytest.fixture(scope="module")
def forks() -> Iterator[ForkServer]:
    preload = ("filewright", "filewright.engine.fileops", "filewright.engine.pipeline")
    with ForkServer(*preload) as server:
        yield server


def race(forks: ForkServer, root: Path, roles: list[str], rounds: int = 40) -> Counter[str]:
    procs = [
        forks.spawn(["worker", str(root), role, str(rounds)], WORKER, text=True) for role in roles
    ]
    codes: Counter[str] = Counter()
    for proc in procs:
        out, err = proc.communicate(timeout=300)
        assert proc.returncode == 0, err
        codes.update(json.loads(out))
    return codes


def holders(root: Path) -> list[Path]:
    return [p for p in (root / "a.txt", root / "b.txt") if p.exists()]


def test_racing_moves_keep_the_file_whole_in_one_place(tmp_path: Path, forks: ForkServer) -> None:
    (tmp_path / "a.txt").write_text("payload\n" * 1000)
    codes = race(forks, tmp_path, ["mover"] * 4)
    assert set(codes) <= {"ok", "not_found", "exists", "busy"}, codes
    assert codes["ok"] > 0
    found = holders(tmp_path)
    assert len(found) == 1 and found[0].read_text() == "payload\n" * 1000


def test_moves_racing_writes_never_tear_or_lose_the_file(tmp_path: Path, forks: ForkServer) -> None:
    (tmp_path / "a.txt").write_text("v\n" * 500)
    codes = race(forks, tmp_path, ["mover", "mover", "editor", "editor"])
    assert set(codes) <= {"ok", "not_found", "exists", "busy", "stale"}, codes
    found = holders(tmp_path)
    assert len(found) == 1
    text = found[0].read_text()
    lines = set(text.splitlines())
    assert len(lines) == 1 and len(text.splitlines()) == 500  # one whole write, never a mix


def test_deletes_racing_writes_then_undo_restores_every_kept_version(
    tmp_path: Path, forks: ForkServer
) -> None:
    (tmp_path / "a.txt").write_text("first\n")
    codes = race(forks, tmp_path, ["deleter", "writer", "writer"], rounds=30)
    assert set(codes) <= {"ok", "not_found", "busy", "stale", "exists"}, codes
    engine = Workspace(str(tmp_path)).engine()
    for _ in range(400):  # undo everything that was recorded, newest first
        outcome = undo(engine, "a.txt")
        if not outcome.ok:
            assert outcome.failure is not None
            assert outcome.failure.code in ("no_history", "exists", "stale"), outcome.failure
            break
    if (tmp_path / "a.txt").exists():
        assert (tmp_path / "a.txt").read_text() in ("first\n", "w\n" * 500)


def test_many_mkdirs_of_one_path_all_succeed(tmp_path: Path, forks: ForkServer) -> None:
    codes = race(forks, tmp_path, ["mkdir"] * 4, rounds=12)
    assert set(codes) == {"ok"}, codes
    assert sorted(p.name for p in (tmp_path / "x" / "y" / "z").iterdir()) == ["0", "1", "2"]


def test_a_file_moved_away_during_the_write_check_is_stale_not_read_only(tmp_path: Path) -> None:
    """The permission check asks access(2), which also says no for a name another process
    just moved away: that is a changed file, not a permission problem (seen once in the
    race above)."""
    import os

    import pytest

    from filewright.fs import fsio
    from filewright.fs.paths import PathRefused

    (tmp_path / "a.txt").write_text("v\n")
    dfd = os.open(tmp_path, os.O_RDONLY)
    try:
        st = os.stat("a.txt", dir_fd=dfd)
        os.rename(tmp_path / "a.txt", tmp_path / "b.txt")  # the other process's move
        with pytest.raises(PathRefused) as caught:
            fsio.refuse_if_read_only(dfd, "a.txt", st, "a.txt", False)
        assert caught.value.code == "stale"
    finally:
        os.close(dfd)
