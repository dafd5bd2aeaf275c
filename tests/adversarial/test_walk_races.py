"""Walks are as race-free as single-file access (issue 22, items 7 and 8).

A local process that can create symlinks in the workspace swaps a directory for a
symlink to outside the root, and back, as fast as it can, while the tools search, glob
and list (both search engines), and while they write (the state directory swapped). No
result may name or contain anything from outside, and nothing may be created outside.
Each loop is bounded by a number of calls (and the swapper stops when they are done).
"""

from __future__ import annotations

import json
import os
import shutil
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from filewright import Workspace
from filewright.search import ripgrep

from .support import stress, take_snapshot, toolset

CANARY = "CANARY-race-outside"
ROUNDS = 400 if stress() else 40
OUTSIDE_INNER_SIZE = 12345


@contextmanager
def swapping(real: Path, outside: Path) -> Iterator[list[int]]:
    """Swap directory ``real`` for a symlink to ``outside`` and back, until the block ends."""
    stop = threading.Event()
    swaps = [0]
    parked = real.with_name(real.name + ".parked")

    def loop() -> None:
        while not stop.is_set():
            try:
                if os.path.lexists(parked):  # the tool re-made `real` meanwhile: put it back
                    if real.is_symlink():
                        real.unlink()
                    elif real.exists():
                        shutil.rmtree(real)
                    os.rename(parked, real)
                os.rename(real, parked)
                os.symlink(outside, real)
                time.sleep(0.0003)
                os.unlink(real)
                os.rename(parked, real)
                swaps[0] += 1
                time.sleep(0.0003)
            except OSError:
                pass

    thread = threading.Thread(target=loop, daemon=True)
    thread.start()
    try:
        yield swaps
    finally:
        stop.set()
        thread.join(10)
        if real.is_symlink():
            real.unlink()
        if parked.exists() and not real.exists():
            os.rename(parked, real)


def _arena(tmp_path: Path) -> tuple[Path, Path]:
    root = tmp_path / "ws"
    outside = tmp_path / "outside"
    (root / "sub" / "deep").mkdir(parents=True)
    outside.mkdir()
    (root / "sub" / "inner.txt").write_text("needle inside\n")
    (root / "sub" / "deep" / "d.txt").write_text("needle deep\n")
    (root / "top.txt").write_text("needle top\n")
    same_name = f"needle {CANARY} same name\n"  # (a size no inside file has, for stat)
    (outside / "inner.txt").write_text(same_name + "x" * (OUTSIDE_INNER_SIZE - len(same_name)))
    (outside / "secret-outside.txt").write_text(f"needle {CANARY}\n")
    (outside / "deep").mkdir()
    (outside / "deep" / "d.txt").write_text(f"needle {CANARY} deep\n")
    for i in range(150):  # walks that take a while inside the swapped directory
        (root / "sub" / f"f{i:03}.txt").write_text("needle inside\n" * 20)
        (outside / f"f{i:03}.txt").write_text(f"needle {CANARY}\n" * 20)
    return root, outside


CALLS: dict[str, list[tuple[str, dict[str, Any]]]] = {
    "default": [
        ("grep", {"pattern": "needle", "context": 1}),
        ("glob", {"pattern": "**/*.txt"}),
        ("list", {"path": "sub"}),
        ("list", {"path": "."}),
        ("tree", {"path": "."}),
        ("stat", {"path": "sub/inner.txt"}),
    ],
    "mcpfs": [
        ("directory_tree", {"path": "ROOT"}),
        ("search_files", {"path": "ROOT", "pattern": "**/*.txt"}),
        ("list_directory_with_sizes", {"path": "ROOT/sub"}),
        ("get_file_info", {"path": "ROOT/sub/inner.txt"}),
    ],
    "gemini": [
        ("search_file_content", {"pattern": "needle"}),
        ("glob", {"pattern": "**/*.txt"}),
        ("list_directory", {"path": "sub"}),
    ],
    "text_editor": [("str_replace_editor", {"command": "view", "path": "ROOT"})],
}


@pytest.mark.parametrize("engine", ["rg", "python"])
@pytest.mark.parametrize("ts_name", sorted(CALLS))
def test_walks_never_follow_a_directory_swapped_for_a_symlink(
    tmp_path: Path, ts_name: str, engine: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    if engine == "python":
        monkeypatch.setattr(ripgrep, "find_rg", lambda: None)
    elif ripgrep.find_rg() is None:
        pytest.skip("ripgrep is not installed")
    root, outside = _arena(tmp_path)
    ts = toolset(Workspace(root, confirm=True), ts_name)
    calls = [
        (
            tool,
            {k: v.replace("ROOT", str(root)) if isinstance(v, str) else v for k, v in args.items()},
        )
        for tool, args in CALLS[ts_name]
    ]
    seen_inside = 0
    with swapping(root / "sub", outside) as swaps:
        for i in range(ROUNDS):
            tool, args = calls[i % len(calls)]
            result = ts.call(tool, args)
            blob = result.text + json.dumps(result.data, default=str)
            assert CANARY not in blob, (tool, args, blob[:2000])
            assert "secret-outside" not in blob, (tool, args, blob[:2000])
            assert str(OUTSIDE_INNER_SIZE) not in blob, (tool, args, blob[:2000])
            assert "12.06 KB" not in blob and "12.1 KB" not in blob, (tool, args, blob[:2000])
            seen_inside += "inside" in blob or "inner.txt" in blob
    assert swaps[0] > 0, "the swapper never ran"


# Session ledgers live in the user's state directory, outside the roots (issue 19): only
# what `.filewright/` in a root holds is within an agent's reach.
@pytest.mark.parametrize("what", ["history", "locks", ".filewright"])
def test_state_directory_swapped_for_a_symlink_creates_nothing_outside(
    tmp_path: Path, what: str
) -> None:
    root = tmp_path / "ws"
    outside = tmp_path / "outside"
    root.mkdir()
    outside.mkdir()
    (outside / "history").mkdir()
    (outside / "locks").mkdir()
    ws = Workspace(root, confirm=True, session="race")
    ts = ws.toolset("default")
    assert ts.call("write", {"path": "a.txt", "content": "0\n"}).ok  # state exists now
    state = root / ".filewright"
    target = state if what == ".filewright" else state / what
    before = take_snapshot(tmp_path, skip=(root,))
    with swapping(target, outside if what == ".filewright" else outside / what) as swaps:
        for i in range(ROUNDS):
            ts.call("write", {"path": "a.txt", "content": f"{i} agent content\n"})
            ts.call("edit", {"path": "a.txt", "old_string": "agent", "new_string": "AGENT"})
    after = take_snapshot(tmp_path, skip=(root,))
    created = sorted(set(after) - set(before))
    assert created == [], created[:20]
    assert swaps[0] > 0
