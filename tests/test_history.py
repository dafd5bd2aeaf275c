"""The history index (two slots, legacy file), state files opened without following
links, and the per-file lock, on real files and real processes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

from filewright import Workspace, state
from filewright.state.history import History
from filewright.state.index import INDEX_SLOTS as _INDEX_SLOTS
from filewright.state.locks import LockTimeout, file_lock
from filewright.state.statedir import _key


def _edit(tools, old: str, new: str) -> None:
    result = tools.call("edit", {"path": "a.txt", "old_string": old, "new_string": new})
    assert result.ok, result.text


def _history_dir(root: Path) -> Path:
    (d,) = [p for p in (root / ".filewright" / "history").iterdir() if p.is_dir()]
    return d


def _generation(path: Path) -> int:
    return json.loads(path.read_bytes())["generation"]


def test_slots_are_written_in_turn_and_the_newer_counts(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("v0\n", encoding="utf-8")
    tools = Workspace(tmp_path).toolset("default")
    for i in range(1, 6):
        _edit(tools, f"v{i - 1}", f"v{i}")
    d = _history_dir(tmp_path)
    gens = sorted(_generation(d / slot) for slot in _INDEX_SLOTS)
    assert gens == [4, 5]
    assert not (d / "index.json").exists()
    for i in range(5, 0, -1):
        assert tools.call("undo", {"path": "a.txt"}).ok
        assert (tmp_path / "a.txt").read_text(encoding="utf-8") == f"v{i - 1}\n"
    assert not tools.call("undo", {"path": "a.txt"}).ok


def test_a_half_written_newer_slot_falls_back_to_the_older(tmp_path: Path) -> None:
    """A process killed while writing the index leaves a prefix in one slot: the other
    slot (one change older) counts, and the next change writes over the broken one."""
    (tmp_path / "a.txt").write_text("v0\n", encoding="utf-8")
    tools = Workspace(tmp_path).toolset("default")
    _edit(tools, "v0", "v1")
    _edit(tools, "v1", "v2")
    d = _history_dir(tmp_path)
    newer = max((d / s for s in _INDEX_SLOTS), key=_generation)
    full = newer.read_bytes()
    newer.write_bytes(full[: len(full) // 2])
    history = Workspace(tmp_path).history
    rel = json.loads((d / ({*_INDEX_SLOTS} - {newer.name}).pop()).read_bytes())["path"]
    assert [e.id for e in history.entries(rel)] == [1]
    _edit(tools, "v2", "v3")  # the entry for v2 was lost with the torn index; v3's is kept
    assert [e.id for e in history.entries(rel)] == [1, 2]
    assert _generation(newer) == 2
    assert tools.call("undo", {"path": "a.txt"}).ok
    assert (tmp_path / "a.txt").read_text(encoding="utf-8") == "v2\n"


def test_a_legacy_index_is_read_and_replaced(tmp_path: Path) -> None:
    """History written before the two slots (one index.json) still undoes."""
    a = tmp_path / "a.txt"
    a.write_text("new\n", encoding="utf-8")
    rel = str(a.resolve())
    d = tmp_path / ".filewright" / "history" / _key(rel)
    d.mkdir(parents=True)
    (d / "1.bak").write_bytes(b"old\n")
    from filewright.engine.pipeline import content_hash

    entry = {
        "id": 1,
        "time": "2025-01-01T00:00:00.000+00:00",
        "operation": "write",
        "existed": True,
        "hash_after": content_hash(b"new\n"),
        "size_before": 4,
    }
    (d / "index.json").write_text(json.dumps({"path": rel, "entries": [entry]}), encoding="utf-8")
    ws = Workspace(tmp_path)
    assert ws.history.files() == [rel]
    tools = ws.toolset("default")
    _edit(tools, "new", "newer")
    assert not (d / "index.json").exists()
    assert [e.id for e in ws.history.entries(rel)] == [1, 2]
    assert tools.call("undo", {"path": "a.txt"}).ok
    assert tools.call("undo", {"path": "a.txt"}).ok
    assert a.read_text(encoding="utf-8") == "old\n"


def test_a_planted_index_link_is_refused_and_nothing_changes(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    outside = tmp_path / "outside.json"
    outside.write_text('{"generation": 99, "path": "x", "entries": []}', encoding="utf-8")
    (root / "a.txt").write_text("one\n", encoding="utf-8")
    tools = Workspace(root).toolset("default")
    _edit(tools, "one", "two")
    d = _history_dir(root)
    older = min((d / s for s in _INDEX_SLOTS if (d / s).exists()), key=_generation, default=None)
    target = older if older is not None else d / _INDEX_SLOTS[1]
    target.unlink(missing_ok=True)
    target.symlink_to(outside)
    result = tools.call("edit", {"path": "a.txt", "old_string": "two", "new_string": "three"})
    assert not result.ok
    assert "symlink in filewright's state directory" in result.text
    assert (root / "a.txt").read_text(encoding="utf-8") == "two\n"
    assert outside.read_text(encoding="utf-8").startswith('{"generation": 99')


def test_a_planted_fifo_backup_is_refused_without_hanging(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("one\n", encoding="utf-8")
    tools = Workspace(tmp_path).toolset("default")
    _edit(tools, "one", "two")
    d = _history_dir(tmp_path)
    (d / "1.bak").unlink()
    os.mkfifo(d / "1.bak")
    result = tools.call("undo", {"path": "a.txt"})
    assert not result.ok
    assert "not a regular file in filewright's state directory" in result.text
    assert (tmp_path / "a.txt").read_text(encoding="utf-8") == "two\n"


def test_a_planted_lock_link_is_refused_and_not_created(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    (root / "a.txt").write_text("one\n", encoding="utf-8")
    rel = str((root / "a.txt").resolve())
    locks = root / ".filewright" / "locks"
    locks.mkdir(parents=True)
    target = tmp_path / "made-by-lock"
    (locks / f"{_key(rel)}.lock").symlink_to(target)
    result = (
        Workspace(root)
        .toolset("default")
        .call("edit", {"path": "a.txt", "old_string": "one", "new_string": "two"})
    )
    assert not result.ok
    assert "symlink in filewright's state directory" in result.text
    assert not target.exists()
    assert (root / "a.txt").read_text(encoding="utf-8") == "one\n"


def _edited_once(tmp_path: Path) -> tuple[Path, Path, Any]:
    """A workspace whose a.txt went from "one" to "two" by one edit, a file outside it that
    must keep its bytes, and the default toolset."""
    root = tmp_path / "ws"
    root.mkdir()
    victim = tmp_path / "victim.txt"
    victim.write_bytes(b"precious\n")
    (root / "a.txt").write_text("one\n", encoding="utf-8")
    tools = Workspace(root).toolset("default")
    _edit(tools, "one", "two")
    return root, victim, tools


def test_a_planted_hard_link_slot_is_not_written_through(tmp_path: Path) -> None:
    root, victim, tools = _edited_once(tmp_path)
    d = _history_dir(root)
    free = next(d / s for s in _INDEX_SLOTS if not (d / s).exists())
    os.link(victim, free)
    _edit(tools, "two", "three")
    assert victim.read_bytes() == b"precious\n"
    assert _generation(free) == 2


@pytest.mark.parametrize("planted", ["hard link", "symlink", "leftover"])
def test_a_name_planted_at_the_next_backup_is_replaced_not_written_through(
    tmp_path: Path, planted: str
) -> None:
    """The next backup's name is created exclusively; whatever is already there (a
    backup a killed process left, a link to a file elsewhere: a repository can ship
    `.filewright/`) is unlinked first, and the other file keeps its bytes."""
    root, victim, tools = _edited_once(tmp_path)
    nxt = _history_dir(root) / "2.bak"
    if planted == "hard link":
        os.link(victim, nxt)
    elif planted == "symlink":
        nxt.symlink_to(victim)
    else:
        nxt.write_bytes(b"half-written\n")
    _edit(tools, "two", "three")
    assert victim.read_bytes() == b"precious\n"
    assert not nxt.is_symlink() and nxt.read_bytes() == b"two\n"
    assert tools.call("undo", {"path": "a.txt"}).ok
    assert (root / "a.txt").read_text(encoding="utf-8") == "two\n"


_HOLDER = textwrap.dedent(
    """
    import sys, time
    from pathlib import Path
    from filewright.state.locks import file_lock
    with file_lock(Path(sys.argv[1]), sys.argv[2]):
        print("held", flush=True)
        sys.stdin.readline()
    """
)


def test_the_lock_excludes_another_process_and_times_out(tmp_path: Path) -> None:
    state = tmp_path / ".filewright"
    holder = subprocess.Popen(
        [sys.executable, "-c", _HOLDER, str(state), "some/file.txt"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "held\n"
        with pytest.raises(LockTimeout), file_lock(state, "some/file.txt", timeout=0.2):
            pass
        with file_lock(state, "other/file.txt", timeout=0.2):  # other files are free
            pass
    finally:
        assert holder.stdin is not None
        holder.stdin.write("\n")
        holder.stdin.close()
        holder.wait(timeout=30)
    with file_lock(state, "some/file.txt", timeout=5):  # released when the holder ends
        pass


def test_the_holder_is_named_not_its_predecessor(tmp_path: Path) -> None:
    """The lock file keeps the last holder's name after release (no truncation per
    change); the next holder's name replaces it whole, also a shorter or an empty one."""
    import threading

    state = tmp_path / ".filewright"
    with file_lock(state, "f", operation="apply_patch"):
        pass
    for name in ("move", ""):
        inside, release = threading.Event(), threading.Event()

        def hold(name: str = name, inside: threading.Event = inside,
                 release: threading.Event = release) -> None:  # fmt: skip
            with file_lock(state, "f", operation=name):
                inside.set()
                release.wait(10)

        thread = threading.Thread(target=hold)
        thread.start()
        try:
            assert inside.wait(10)
            with pytest.raises(LockTimeout) as caught, file_lock(state, "f", timeout=0.05):
                pass
            assert caught.value.holder == name
        finally:
            release.set()
            thread.join(10)


def test_the_lock_excludes_another_thread(tmp_path: Path) -> None:
    import threading

    state = tmp_path / ".filewright"
    order: list[str] = []
    inside = threading.Event()
    release = threading.Event()

    def hold() -> None:
        with file_lock(state, "f"):
            order.append("first in")
            inside.set()
            release.wait(10)
            order.append("first out")

    thread = threading.Thread(target=hold)
    thread.start()
    inside.wait(10)
    with pytest.raises(LockTimeout), file_lock(state, "f", timeout=0.05):
        pass
    release.set()
    with file_lock(state, "f", timeout=10):
        order.append("second in")
    thread.join(10)
    assert order == ["first in", "first out", "second in"]


def test_a_dropped_backup_becomes_the_next_one(tmp_path: Path) -> None:
    """Past the cap, the dropped entry's backup file is renamed to the new backup's name
    and written over (no file freed, none made); every kept entry has its own bytes."""
    history = History(tmp_path / ".filewright", keep=3)
    versions = [b"zero\n", b"one one one\n", b"2\n", b"three\n" * 50, b"four\n"]
    for i, data in enumerate(versions[:3]):
        history.record("r", data, "edit", f"h{i}")
    d = history._dir("r")
    first = os.stat(d / "1.bak").st_ino
    history.record("r", versions[3], "edit", "h3")  # longer than what it is written over
    assert os.stat(d / "4.bak").st_ino == first and not (d / "1.bak").exists()
    second = os.stat(d / "2.bak").st_ino
    history.record("r", versions[4], "edit", "h4")  # shorter: cut to its length
    assert os.stat(d / "5.bak").st_ino == second
    entries = history.entries("r")
    assert [e.id for e in entries] == [3, 4, 5]
    assert [history.before_bytes("r", e) for e in entries] == versions[2:]
    assert sorted(p.name for p in d.iterdir() if not p.name.startswith("index")) == [
        "3.bak",
        "4.bak",
        "5.bak",
    ]


def test_a_large_dropped_backup_is_removed_not_reused(tmp_path: Path) -> None:
    from filewright.state.history import RECYCLE_MAX

    history = History(tmp_path / ".filewright", keep=1)
    history.record("r", b"x" * (RECYCLE_MAX + 1), "edit", "h1")
    d = history._dir("r")
    large = os.stat(d / "1.bak")
    history.record("r", b"small\n", "edit", "h2")
    assert not (d / "1.bak").exists()
    assert (d / "2.bak").read_bytes() == b"small\n"
    assert os.stat(d / "2.bak").st_size == 6 and large.st_size == RECYCLE_MAX + 1


def test_a_planted_hard_link_at_a_dropped_backup_is_not_written_through(tmp_path: Path) -> None:
    """A dropped entry's backup replaced by a hard link to another file: that file is
    not written over by the next backup (a new file is made instead)."""
    outside = tmp_path / "outside.txt"
    outside.write_bytes(b"precious\n")
    history = History(tmp_path / ".filewright", keep=2)
    history.record("r", b"one\n", "edit", "h1")
    history.record("r", b"two\n", "edit", "h2")
    d = history._dir("r")
    (d / "1.bak").unlink()
    os.link(outside, d / "1.bak")
    history.record("r", b"three\n", "edit", "h3")
    assert outside.read_bytes() == b"precious\n"
    assert (d / "3.bak").read_bytes() == b"three\n"
    assert os.stat(d / "3.bak").st_ino != os.stat(outside).st_ino
    assert [history.before_bytes("r", e) for e in history.entries("r")] == [b"two\n", b"three\n"]


def test_history_capped_with_slots(tmp_path: Path) -> None:
    history = History(tmp_path / ".filewright", keep=3)
    for i in range(7):
        history.record("r", f"{i}".encode(), "edit", "h")
    entries = history.entries("r")
    assert [e.id for e in entries] == [5, 6, 7]
    assert sorted(p.name for p in history._dir("r").glob("*.bak")) == ["5.bak", "6.bak", "7.bak"]
    assert history.before_bytes("r", entries[0]) == b"4"


def test_the_state_package_gives_history_lazily(tmp_path: Path) -> None:
    """`filewright.state.History` (what `Workspace.history` is made with) is the class."""
    assert state.History is History
    with pytest.raises(AttributeError):
        _ = state.Nope  # type: ignore[attr-defined]
    ws = Workspace(tmp_path)
    assert isinstance(ws.history, History) and ws.history is ws.history
    assert ws.history.state_dir == ws.state_dir
