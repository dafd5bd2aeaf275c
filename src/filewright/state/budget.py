"""The size cap of a root's undo history: what is stored, and dropping the oldest first.

Every backup (`<id>.bak`), reverse delta (`<id>.delta`) and deleted tree (`<id>.tree`,
counted at the size its entry recorded) of every file counts. Entries
are dropped oldest first, across files; dropping one drops the older entries of the same
file with it (undo goes newest first, so they could never be reached).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

# `history.History` (not imported: it imports this module). Used: `state_dir`, `_load`,
# `_dir`, `entries`, `forget_through`.
History = Any


@dataclass(frozen=True)
class Stored:
    """One entry's stored bytes: its time ("" for a file no entry names), its history
    directory, its id, and its size."""

    time: str
    directory: Path
    entry_id: int
    size: int


def stored(history: History) -> list[Stored]:
    """Every stored backup or delta of the history (links are never followed)."""
    out: list[Stored] = []
    base = history.state_dir / "history"
    if not base.is_dir():
        return out
    for d in base.iterdir():
        if d.is_symlink() or not d.is_dir():
            continue
        sizes: dict[int, int] = {}
        trees: set[int] = set()
        for item in os.scandir(d):
            stem, dot, ext = item.name.partition(".")
            if not (dot and ext in ("bak", "delta", "tree") and stem.isdigit()):
                continue
            if ext == "tree" and item.is_dir(follow_symlinks=False):
                trees.add(int(stem))  # its size is what its entry recorded
                sizes.setdefault(int(stem), 0)
            elif item.is_file(follow_symlinks=False):
                size = item.stat(follow_symlinks=False).st_size
                sizes[int(stem)] = sizes.get(int(stem), 0) + size
        if not sizes:
            continue
        for entry in history._load(d)[0]:
            if entry.id in sizes:
                size = sizes.pop(entry.id) + (entry.stored if entry.id in trees else 0)
                out.append(Stored(entry.time, d, entry.id, size))
        out.extend(Stored("", d, orphan, size) for orphan, size in sizes.items())
    return out


def prune(history: History, max_bytes: int, keep_newest_of: str | None) -> list[dict[str, Any]]:
    """Drop the oldest entries until what is stored fits `max_bytes`; the newest entry of
    `keep_newest_of` (a file's key path) stays. Returns what was dropped:
    {"path", "id", "time", "bytes"}."""
    items = sorted(stored(history), key=lambda item: (item.time, item.entry_id))
    total = sum(item.size for item in items)
    protect = history._dir(keep_newest_of) if keep_newest_of is not None else None
    newest = None
    if keep_newest_of is not None:
        entries = history.entries(keep_newest_of)
        newest = entries[-1].id if entries else None
    dropped: list[dict[str, Any]] = []
    for item in items:
        if total <= max_bytes:
            break
        if item.directory == protect and item.entry_id == newest:
            continue
        path = history.forget_through(item.directory, item.entry_id)
        total -= item.size
        dropped.append({"path": path, "id": item.entry_id, "time": item.time, "bytes": item.size})
    return dropped
