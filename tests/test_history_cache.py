"""What `History` keeps between operations (issue 32): the parsed index, reused only
while both slots hold the bytes it was parsed from or written as; the encodings of its
entries; and the eviction of what dropped entries stored. Plus `fs.held`'s
once-per-call check of a held directory."""

from __future__ import annotations

import json
import os
import zlib
from pathlib import Path

import pytest
from fsprobe import hold

from filewright.fs import held
from filewright.state import index
from filewright.state.history import History
from filewright.state.index import INDEX_SLOTS, Entry, encode_index


@pytest.fixture
def parses(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Counts the indexes parsed from their bytes (a missing one is not parsed)."""
    calls: list[int] = []
    real = index.parse_index

    def counted(raw: bytes | None) -> tuple[list[Entry], int] | None:
        if raw is not None:
            calls.append(1)
        return real(raw)

    monkeypatch.setattr(index, "parse_index", counted)
    return calls


def _slots_oldest_first(history: History) -> list[Path]:
    """The two index slots of f.txt's history, the older generation first."""
    d = history._dir("f.txt")
    return sorted(
        (d / s for s in INDEX_SLOTS), key=lambda p: json.loads(p.read_bytes())["generation"]
    )


def test_the_index_written_is_not_parsed_again(tmp_path: Path, parses: list[int]) -> None:
    history = History(tmp_path / "state")
    for i in range(15):
        history.record("f.txt", f"v{i}".encode(), "edit", f"h{i + 1}")
    assert parses == [], "each record used the index it had written itself"
    assert [e.hash_after for e in history.entries("f.txt")] == [f"h{i}" for i in range(6, 16)]
    history.pop("f.txt")
    assert [e.id for e in history.entries("f.txt")] == list(range(6, 15))
    assert parses == []


def test_another_process_change_is_seen(tmp_path: Path, parses: list[int]) -> None:
    """Another `History` (another process: its own memory) changes the index, even to
    bytes of the same size with the slots' modification times put back: the next read
    sees the change."""
    ours, theirs = History(tmp_path / "state", keep=2), History(tmp_path / "state", keep=2)
    for i in range(3):
        ours.record("f.txt", f"v{i}".encode(), "edit", f"h{i + 1}")
    d = ours._dir("f.txt")
    before = {slot: os.stat(d / slot) for slot in INDEX_SLOTS}
    theirs.amend_last("f.txt", "h8")
    theirs.amend_last("f.txt", "h9")  # both slots rewritten, each at its old size
    for slot, st in before.items():
        assert os.stat(d / slot).st_size == st.st_size
        os.utime(d / slot, ns=(st.st_atime_ns, st.st_mtime_ns))
    parsed = len(parses)
    assert [e.hash_after for e in ours.entries("f.txt")] == ["h2", "h9"]
    assert len(parses) > parsed
    ours.record("f.txt", b"v3", "edit", "h4")  # on top of theirs, not of what it had cached
    assert [e.hash_after for e in theirs.entries("f.txt")] == ["h9", "h4"]


def test_a_torn_slot_is_parsed_again(tmp_path: Path) -> None:
    history = History(tmp_path / "state")
    for i in range(3):
        history.record("f.txt", f"v{i}".encode(), "edit", f"h{i + 1}")
    newer = _slots_oldest_first(history)[1]
    newer.write_bytes(newer.read_bytes()[:40])
    assert [e.id for e in history.entries("f.txt")] == [1, 2]


def test_the_index_is_encoded_as_json_dumps_writes_it() -> None:
    entries = [
        Entry(1, "2025-01-12T10:30:00.000+00:00", "edit", True, "sha256:ab", 3),
        Entry(
            2,
            "t",
            "delete",
            False,
            "",
            0,
            kind="tree",
            stored=7,
            members=["/a/é", "/a/\u2028"],
            entry_type="dir",
            mode=0o755,
            owner=[1, 2],
            moved_to='/x"y',
        ),
        Entry(3, "t", "append", True, "h", 10, kind="truncate", size_after=12, mtime_before=5),
    ]
    fragments: index.Fragments = {}
    for generation in (1, 2):  # the second time from the kept encodings
        body = {
            "generation": generation,
            "path": 'dir/ü "q".txt',
            "entries": [e.to_dict() for e in entries],
        }
        plain = json.dumps(body, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
        head = plain[:-1]  # (all but the closing brace: what the check covers)
        expected = head + b',"check":"%08x"}' % zlib.crc32(head)
        raw = encode_index('dir/ü "q".txt', entries, generation, fragments)
        assert raw == expected
        assert json.loads(raw) == {**body, "check": f"{zlib.crc32(head):08x}"}
        parsed = index.parse_index(raw)
        assert parsed is not None and parsed[1] == generation
        assert [e.to_dict() for e in parsed[0]] == body["entries"]
    assert len(fragments) == 3


def test_dropped_entries_take_what_they_stored_with_them(tmp_path: Path) -> None:
    history = History(tmp_path / "state", keep=2)
    base, rel = history.tree_at("d", 1)
    (base / rel).mkdir()
    (base / rel / "kept.txt").write_text("x")
    history.record("d", None, "delete", "", existed=True, kind="tree", entry_type="dir")
    history.record("d", b"one", "edit", "h2")
    history.record("d", b"two", "edit", "h3")
    d = history._dir("d")
    assert sorted(p.name for p in d.iterdir() if not p.name.startswith("index")) == [
        "2.bak",
        "3.bak",
    ]
    history.record("d", b"three", "edit", "h4")
    assert sorted(p.name for p in d.iterdir() if not p.name.startswith("index")) == [
        "3.bak",
        "4.bak",
    ]


def test_a_held_directory_is_checked_once_per_call(tmp_path: Path) -> None:
    """Within one call a kept directory is confirmed at its first use; a directory moved
    away meanwhile is dropped at the next call, and at once after filewright itself
    renamed or removed a directory (`forget_checks`)."""
    d = tmp_path / "kept"
    d.mkdir()
    hold(d)
    with held.checked_once():
        first = held.reuse(str(d))
        assert first is not None
        os.close(first)
        d.rename(tmp_path / "moved")
        again = held.reuse(str(d))  # (the descriptor this call already uses)
        assert again is not None
        os.close(again)
        held.forget_checks()
        assert held.reuse(str(d)) is None
    (tmp_path / "moved").rename(d)
    hold(d)
    with held.checked_once():
        kept = held.reuse(str(d))
        assert kept is not None
        os.close(kept)
    d.rename(tmp_path / "moved2")
    with held.checked_once():
        assert held.reuse(str(d)) is None  # the next call checks again


def test_a_slot_is_written_over_in_place(tmp_path: Path) -> None:
    """No new directory entry per change: each slot keeps its inode (cut to length when
    the index shrinks); the other slot holds the previous index meanwhile."""
    history = History(tmp_path / "state", keep=3)
    for i in range(4):
        history.record("f.txt", f"v{i}".encode(), "edit", f"h{i + 1}")
    d = history._dir("f.txt")
    inodes = {slot: os.stat(d / slot).st_ino for slot in INDEX_SLOTS}
    for i in range(4, 8):
        history.record("f.txt", f"v{i}".encode(), "edit", f"h{i + 1}")
    history.pop("f.txt")
    assert {slot: os.stat(d / slot).st_ino for slot in INDEX_SLOTS} == inodes
    assert [e.id for e in History(tmp_path / "state").entries("f.txt")] == [6, 7]


def test_a_torn_slot_that_is_still_json_is_refused(tmp_path: Path) -> None:
    """A write over a slot cut short at a page leaves the new head on the old tail, which
    can be valid JSON: the check refuses it, and the other slot counts."""
    history = History(tmp_path / "state")
    for i in range(3):
        history.record("f.txt", f"v{i}".encode(), "edit", f"h{i + 1}")
    newer = _slots_oldest_first(history)[1]
    raw = newer.read_bytes()
    spliced = raw.replace(b'"hash_after":"h3"', b'"hash_after":"h9"')  # still JSON
    assert spliced != raw and json.loads(spliced)
    newer.write_bytes(spliced)
    assert [e.hash_after for e in History(tmp_path / "state").entries("f.txt")] == ["h1", "h2"]


def test_a_hard_link_at_the_slot_written_over_is_not_written_through(tmp_path: Path) -> None:
    history = History(tmp_path / "state")
    for i in range(2):
        history.record("f.txt", f"v{i}".encode(), "edit", f"h{i + 1}")
    older = _slots_oldest_first(history)[0]
    victim = tmp_path / "victim.txt"
    victim.write_bytes(b"precious\n")
    older.unlink()
    os.link(victim, older)
    history.record("f.txt", b"v2", "edit", "h3")
    assert victim.read_bytes() == b"precious\n"
    assert [e.hash_after for e in History(tmp_path / "state").entries("f.txt")] == [
        "h1",
        "h2",
        "h3",
    ]
