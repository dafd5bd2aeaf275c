"""Backups and undo: the change log of every file, kept in a state directory the agent
cannot see (its checks, its files and the read ledger: `state.statedir`; the per-file
locks: `state.locks`; one file's index and its entries: `state.index`).

Layout under a root's state directory (`.filewright/` by default):

    history/<key>/index.a.json  one file's change log, newest last, in two slots
    history/<key>/index.b.json  written in turn (the valid one of higher generation counts)
    history/<key>/<n>.bak       the file's bytes before change n
    history/<key>/<n>.tree/     a directory a recursive delete removed (moved here whole)
    sessions/<name>/<key>.json  a session's read ledger: one file per file read
    locks/<key>.lock            the cross-process lock of one file

`<key>` is derived from the file's path relative to its root. Nothing here is ever
replaced by a rename over an existing name or truncated to zero: on ext4 either forces
the new data to disk at once (auto_da_alloc), which made the index write cost ~0.3 ms.
A backup is a new file, or, past the cap, the file of the entry the change drops,
renamed to the new backup's name and written over in place (`_recycle`: no file freed
or made per change); an index slot is written over in place and cut to its new length
(`statedir.overwrite_at`; a torn one is told by its check: `state.index`).
State files are opened without following links, so a planted link is refused, never
followed. Each operation opens the file's history directory once and works relative to
that descriptor.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
from collections.abc import Callable
from pathlib import Path
from typing import Any

from filewright.state.index import (
    INDEX_SLOTS,
    LEGACY_INDEX,
    Entry,
    IndexCache,
    Loaded,
    encode_index,
    index_path,
    now_iso,
    stored_identity,
)
from filewright.state.statedir import (
    _dir_fd,
    _key,
    _read_state_file,
    overwrite_at,
    read_at,
    unlink_at,
    write_at,
)

DEFAULT_KEEP = 10
DEFAULT_MAX_BYTES = 512 * 1024 * 1024  # all of a root's history: oldest dropped beyond
_PRUNE_CHECK_BYTES = 1024 * 1024  # a record that stores this much checks the total


class _opened:  # used as a function: `with _opened(d) as dfd:`
    """The history directory `d`, open (made first with `create`); None when it is missing
    or cannot be opened (a planted link raises OSError(ELOOP)). A class rather than a
    generator context manager: every change enters one (issue 32)."""

    __slots__ = ("create", "d", "fd")

    def __init__(self, d: Path, *, create: bool = False) -> None:
        self.d, self.create, self.fd = d, create, -1

    def __enter__(self) -> int | None:
        try:
            self.fd = _dir_fd(self.d, create=self.create)
        except OSError as exc:
            if self.create or exc.errno == errno.ELOOP:
                raise
            return None
        return self.fd

    def __exit__(self, *_exc: object) -> None:
        if self.fd >= 0:
            os.close(self.fd)


class History:
    """Per-file change log with the previous bytes of each change, capped at `keep`
    entries per file and at `max_bytes` stored in all (oldest entries dropped first)."""

    def __init__(
        self, state_dir: Path, keep: int = DEFAULT_KEEP, max_bytes: int = DEFAULT_MAX_BYTES
    ) -> None:
        self.state_dir = state_dir
        self.keep = keep
        self.max_bytes = max_bytes
        self.last_pruned: list[dict[str, Any]] = []  # what the last record dropped
        self._index = IndexCache()
        self._dirs: dict[str, Path] = {}

    def _dir(self, rel: str) -> Path:
        d = self._dirs.get(rel)
        if d is None:
            if len(self._dirs) >= 1024:
                self._dirs.clear()
            d = self._dirs[rel] = self.state_dir / "history" / _key(rel)
        return d

    def entries(self, rel: str) -> list[Entry]:
        return self._load(self._dir(rel))[0]

    def _load(self, d: Path) -> tuple[list[Entry], int, str]:
        """(entries, generation, slot to write next) of the index in `d` (see
        `state.index`). A missing or unreadable index is an empty history; a planted
        link raises OSError(ELOOP)."""
        with _opened(d) as dfd:
            if dfd is None:
                return [], 0, INDEX_SLOTS[0]
            loaded = self._index.load(d, dfd)
        return list(loaded.entries), loaded.generation, loaded.slot

    def _save(self, d: Path, dfd: int, rel: str, entries: list[Entry], before: Loaded) -> None:
        """Write the index of `entries` into the slot `before` (the index as loaded) says
        is next, in `d` (open as `dfd`)."""
        fragments = self._index.fragments(d)
        raw = encode_index(rel, entries, before.generation + 1, fragments)
        # The other slot keeps the previous state until this one is complete.
        overwrite_at(dfd, before.slot, raw)
        if not self._index.legacy_gone(d):  # (once per directory and cache, not per change)
            unlink_at(dfd, LEGACY_INDEX)
        self._index.wrote(d, before, entries, raw, fragments)

    def record(
        self,
        rel: str,
        before: bytes | None,
        operation: str,
        hash_after: str,
        *,
        existed: bool | None = None,
        **fields: Any,
    ) -> Entry:
        """Keep `before` (the bytes the change replaced) and log the change.

        Call with the file's lock held (`file_lock`). The backup is written before the
        index, so an interrupted record leaves at most an unreferenced .bak file (and,
        where it took the dropped entry's file, that entry, the oldest, without its backup:
        see `_recycle`).
        `existed` (default: `before is not None`) and `fields` (the optional fields of
        `Entry`: kind, moved_from, moved_to, members, link, mode) describe file-management
        changes, whose "before" is not bytes (a directory, a move, a link).
        """
        d = self._dir(rel)
        with _opened(d, create=True) as dfd:
            assert dfd is not None
            loaded = self._index.load(d, dfd)
            entries = list(loaded.entries)
            next_id = (entries[-1].id + 1) if entries else 1
            # What this record drops (past `keep`): the oldest entries.
            dropping = entries[: max(0, len(entries) + 1 - self.keep)] if self.keep > 0 else []
            recycled = None
            if before is not None:
                # Written in place, not renamed into place: until the index names it, a
                # half-written backup is never read (and the next record overwrites it).
                recycled = _recycle(dfd, dropping, f"{next_id}.bak")
                if recycled is None:
                    write_at(dfd, f"{next_id}.bak", before, atomic=False)
                else:
                    overwrite_at(dfd, f"{next_id}.bak", before)
            entry = Entry(
                id=next_id,
                time=now_iso(),
                operation=operation,
                existed=before is not None if existed is None else existed,
                hash_after=hash_after,
                size_before=len(before) if before is not None else 0,
                **fields,
            )
            entries.append(entry)
            dropped, entries = entries[: -self.keep], entries[-self.keep :]
            self._save(d, dfd, rel, entries, loaded)
            for old in dropped:
                if old is not recycled:
                    _unlink_stored(dfd, old.id, old)
        return entry

    def before_bytes(self, rel: str, entry: Entry) -> bytes | None:
        if not entry.existed or entry.entry_type != "file" or entry.moved_to is not None:
            return None  # nothing kept: it did not exist, or it is not a file's bytes
        return _read_state_file(self._dir(rel) / f"{entry.id}.bak")

    def pop(self, rel: str) -> None:
        """Forget the newest entry (after it was undone)."""
        d = self._dir(rel)
        with _opened(d) as dfd:
            loaded = self._index.load(d, dfd) if dfd is not None else None
            if dfd is None or loaded is None or not loaded.entries:
                return
            entries = list(loaded.entries)
            last = entries.pop()
            self._save(d, dfd, rel, entries, loaded)
            _unlink_stored(dfd, last.id, last)

    def record_large(
        self,
        rel: str,
        operation: str,
        hash_after: str,
        *,
        kind: str,
        size_before: int,
        size_after: int,
        delta: bytes | None = None,
        store: Callable[[int, str], int] | None = None,
        mtime_before: int = 0,
    ) -> Entry | None:
        """Log a change of a large file: with a reverse `delta` ("delta"), nothing stored
        ("truncate": an append), or the old bytes put in place by `store(path)` ("full",
        say as a hard link; it is given the history directory's descriptor and the name,
        and returns the bytes it stored).

        Call with the file's lock held. Returns None, keeping nothing, when what undo
        needs is larger than `max_bytes`; `last_pruned` lists what older entries were
        dropped to stay under it.
        """
        self.last_pruned = []
        d = self._dir(rel)
        with _opened(d, create=True) as dfd:
            assert dfd is not None
            loaded = self._index.load(d, dfd)
            entries = list(loaded.entries)
            next_id = (entries[-1].id + 1) if entries else 1
            stored = 0
            stored_id = None
            if delta is not None:
                if len(delta) > self.max_bytes:
                    return None
                write_at(dfd, f"{next_id}.delta", delta, atomic=False)
                stored = len(delta)
            elif store is not None:
                if size_before > self.max_bytes:
                    return None
                name = f"{next_id}.bak"
                unlink_at(dfd, name)
                stored = store(dfd, name)
                stored_id = stored_identity(os.stat(name, dir_fd=dfd, follow_symlinks=False))
            entry = Entry(
                id=next_id,
                time=now_iso(),
                operation=operation,
                existed=True,
                hash_after=hash_after,
                size_before=size_before,
                kind=kind,
                size_after=size_after,
                stored=stored,
                mtime_before=mtime_before,
                stored_id=stored_id,
            )
            entries.append(entry)
            dropped, entries = entries[: -self.keep], entries[-self.keep :]
            self._save(d, dfd, rel, entries, loaded)
            for old in dropped:
                _unlink_stored(dfd, old.id, old)
        if stored >= _PRUNE_CHECK_BYTES:
            self.last_pruned = self.prune(keep_newest_of=rel)
        return entry

    def amend_last(self, rel: str, hash_after: str) -> None:
        """Set the newest entry's `hash_after` (an append's, once the append is done)."""
        d = self._dir(rel)
        with _opened(d) as dfd:
            loaded = self._index.load(d, dfd) if dfd is not None else None
            if dfd is not None and loaded is not None and loaded.entries:
                entries = list(loaded.entries)
                entries[-1] = entries[-1].replace(hash_after=hash_after)
                self._save(d, dfd, rel, entries, loaded)

    def tree_at(self, rel: str, entry_id: int) -> tuple[Path, str]:
        """Where the directory a recursive delete of `rel` removed is kept (entry
        `entry_id`, kind "tree"): a base directory and a path below it, for
        `fs.entries`' descriptor walks (its history directory is made if missing)."""
        os.close(_dir_fd(self._dir(rel), create=True))
        return self.state_dir / "history", f"{_key(rel)}/{entry_id}.tree"

    def delta_bytes(self, rel: str, entry: Entry) -> bytes:
        """The reverse delta of a "delta" entry."""
        return _read_state_file(self._dir(rel) / f"{entry.id}.delta")

    def backup_path(self, rel: str, entry: Entry) -> Path:
        """Where a "full" entry's old bytes are (open it without following links)."""
        return self._dir(rel) / f"{entry.id}.bak"

    def total_bytes(self) -> int:
        """Bytes held by all backups and deltas of this state directory."""
        # deferred: the size cap's accounting (state.budget) only for `history --prune` or
        # a large record; a read, which opens the history, never loads it
        from filewright.state.budget import stored

        return sum(item.size for item in stored(self))

    def prune(
        self, max_bytes: int | None = None, *, keep_newest_of: str | None = None
    ) -> list[dict[str, Any]]:
        """Drop the oldest entries (of any file) until what is stored fits `max_bytes`
        (default: the history's own cap); see `state.budget.prune`."""
        # deferred: as in `total_bytes`
        from filewright.state.budget import prune

        return prune(self, self.max_bytes if max_bytes is None else max_bytes, keep_newest_of)

    def forget_through(self, d: Path, entry_id: int) -> str:
        """Drop entry `entry_id` of the history in `d` and every older one (undo goes
        newest first: they could never be reached); returns the file's path."""
        with _opened(d) as dfd:
            if dfd is None:
                return ""
            loaded = self._index.load(d, dfd)
            rel = index_path(loaded.raws[0] or loaded.raws[1])
            keep = [e for e in loaded.entries if e.id > entry_id]
            if len(keep) != len(loaded.entries):
                self._save(d, dfd, rel, keep, loaded)
            for e in loaded.entries:
                if e.id <= entry_id:
                    _unlink_stored(dfd, e.id, e)
            _unlink_stored(dfd, entry_id)  # (also what no entry names any more)
        return rel

    def files(self) -> list[str]:
        """Paths (relative to the root) that have history."""
        out: list[str] = []
        base = self.state_dir / "history"
        try:
            fd = _dir_fd(base)
        except OSError:
            return out
        try:
            names = os.listdir(fd)
            for name in sorted(names):
                path = _path_in(fd, name, base / name)
                if path is not None:
                    out.append(path)
        finally:
            os.close(fd)
        return sorted(out)


def _path_in(base_fd: int, name: str, d: Path) -> str | None:
    """The file path the index in the history directory `name` names (None: none)."""
    try:
        dfd = os.open(name, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC,
                      dir_fd=base_fd)  # fmt: skip
    except OSError:
        return None
    try:
        for slot in (*INDEX_SLOTS, LEGACY_INDEX):
            try:
                raw = read_at(dfd, slot, d)
            except OSError:
                continue
            path = index_path(raw)
            if path:
                return path
    finally:
        os.close(dfd)
    return None


RECYCLE_MAX = 64 * 1024
"""The largest dropped backup whose file becomes the next backup (`_recycle`)."""


def _recycle(dfd: int, dropping: list[Entry], name: str) -> Entry | None:
    """Rename the backup of the entry this record drops to `name`, the new backup's name,
    for the new bytes to be written over it in place: the entry that would have been
    unlinked, and the new one created, if that one kept a small file's bytes of its own
    (not a hard link: `stored_id`). No file is freed or allocated per change: an unlink
    and a create cost ~20 us where the dropped backup is still only in the page cache
    (changes seconds apart), and where it has reached the disk (written back after ~30 s)
    the unlink waits for the disk on a filesystem mounted with `discard` (~0.17 ms on the
    bench's VM, more while other writes queue; issue 32).
    The dropped entry leaves the index only with the index written next, so a record
    cut short after this rename leaves that entry, the oldest, without its backup: its
    undo then refuses (missing file) instead of restoring. Returns the dropped entry
    whose backup was taken, or None (nothing to take: the caller writes a new file)."""
    for old in dropping:
        if (
            old.kind == "full"
            and old.existed
            and old.stored_id is None
            and old.size_before <= RECYCLE_MAX
            and old.entry_type == "file"
            and old.moved_to is None
        ):
            try:
                os.rename(f"{old.id}.bak", name, src_dir_fd=dfd, dst_dir_fd=dfd)
            except OSError:
                return None
            return old
    return None


def _unlink_stored(dfd: int, entry_id: int, entry: Entry | None = None) -> None:
    """Remove what entry `entry_id` stored (backup, delta, or a deleted directory's tree)
    from the history directory open as `dfd`: where `entry` is known, only what its kind
    stores (a "full" entry of a file that existed: its .bak; a "delta": its .delta; a
    "tree": the directory); else all of them."""
    if entry is None:
        suffixes: tuple[str, ...] = ("bak", "delta")
    elif entry.kind == "delta":
        suffixes = ("delta",)
    elif entry.kind == "full" and entry.existed:
        suffixes = ("bak",)
    else:
        suffixes = ()
    for suffix in suffixes:
        with contextlib.suppress(OSError):
            unlink_at(dfd, f"{entry_id}.{suffix}")
    if entry is not None and entry.kind != "tree":
        return
    tree = f"{entry_id}.tree"
    try:
        st = os.stat(tree, dir_fd=dfd, follow_symlinks=False)
    except OSError:
        return  # (the common case: nothing kept as a tree)
    if stat.S_ISDIR(st.st_mode):
        # deferred: shutil (and what it imports) only to remove a deleted directory's copy
        import shutil

        # By descriptors, links not followed (shutil's fd-based rmtree).
        shutil.rmtree(tree, dir_fd=dfd, ignore_errors=True)
