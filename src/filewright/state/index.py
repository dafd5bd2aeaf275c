"""One file's change log on disk: its entries (`Entry`) and the index that lists them.

The index of a file's history directory lives in two slots, `index.a.json` and
`index.b.json`, written in turn (each over its older content, in place); the valid one
of higher generation counts (the other is older, or half-written by a process that was
killed: its "check", the CRC-32 of the bytes before it, tells a torn slot even where
the new head on the old tail still parses). Before the two slots it was one
`index.json`, still read when neither slot is valid.

`IndexCache` keeps the last index a `History` read or wrote per directory, parsed: the
next read still reads both slots (so another process's change is always seen) but
parses them again only when their bytes differ from what was cached, and the next write
encodes only the entries it has not encoded before. Byte equality, not the slots'
inode, size and mtime: a slot is rewritten as a fresh inode, the kernel hands a just
freed inode number out again at once, and mtime has the granularity of the kernel's
coarse clock (a few ms), so another process's rewrite of the same size in the same tick
would look unchanged.
"""

from __future__ import annotations

import _thread
import errno
import json
import os
import re
import time
import zlib
from collections import OrderedDict
from pathlib import Path
from typing import Any

from filewright.core.record import Frozen
from filewright.state.statedir import read_at

#: `Entry.hash_after` of a change that left no file (a delete, the source of a move).
ABSENT_HASH = ""
INDEX_SLOTS = ("index.a.json", "index.b.json")
LEGACY_INDEX = "index.json"  # one file replaced by rename (before two slots); still read

_FILE_MANAGEMENT_FIELDS = (
    "entry_type",
    "moved_from",
    "moved_to",
    "members",
    "link",
    "mode",
    "owner",
    "stored_id",
)


class Entry(Frozen):
    """One recorded change: the bytes before it (None: the file did not exist)."""

    _fields = (
        "id",
        "time",
        "operation",
        "existed",
        "hash_after",
        "size_before",
        "kind",
        "size_after",
        "stored",
        "mtime_before",
        *_FILE_MANAGEMENT_FIELDS,
    )
    __slots__ = _fields
    id: int
    time: str
    operation: str
    existed: bool
    hash_after: str
    size_before: int
    # How undo gets the old bytes back: "full" (<id>.bak holds them), "delta" (<id>.delta
    # holds the replaced ranges: a reverse delta), "truncate" (an append: cut the file
    # back to size_before) or "tree" (a recursive delete: <id>.tree is the directory
    # itself, moved there by one rename; `stored` is its files' size). `size_after` and `stored` (bytes kept for it) are -1 / 0 in
    # entries written before these existed.
    kind: str
    size_after: int
    stored: int
    mtime_before: int  # ns; undo gives the file back its mtime (large files' identity)
    # File management (move, delete, mkdir); written only when set, so an index without
    # them reads as before. `entry_type`: "file", "dir" or "symlink" (`link`: its target);
    # `moved_from` / `moved_to`: the other end of a move (real paths); `members`: what a
    # recursive delete or a mkdir of several levels recorded with it (real paths).
    entry_type: str
    moved_from: str | None
    moved_to: str | None
    members: list[str] | None
    link: str | None
    # Permission bits and (uid, gid) of the file before the change, where undo may have to
    # re-create it (a delete, a move over a file, a patch's delete or move).
    mode: int | None
    owner: list[int] | None
    # A large file's kept copy ("full"): "inode:size:mtime_ns" of <id>.bak as stored, so
    # undo can tell that nothing changed it since (see `stored_identity`).
    stored_id: str | None

    def __init__(
        self,
        id: int,
        time: str,
        operation: str,
        existed: bool,
        hash_after: str,
        size_before: int,
        kind: str = "full",
        size_after: int = -1,
        stored: int = 0,
        mtime_before: int = 0,
        entry_type: str = "file",
        moved_from: str | None = None,
        moved_to: str | None = None,
        members: list[str] | None = None,
        link: str | None = None,
        mode: int | None = None,
        owner: list[int] | None = None,
        stored_id: str | None = None,
    ) -> None:
        self._set(
            id,
            time,
            operation,
            existed,
            hash_after,
            size_before,
            kind,
            size_after,
            stored,
            mtime_before,
            entry_type,
            moved_from,
            moved_to,
            members,
            link,
            mode,
            owner,
            stored_id,
        )

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "id": self.id,
            "time": self.time,
            "operation": self.operation,
            "existed": self.existed,
            "hash_after": self.hash_after,
            "size_before": self.size_before,
        }
        if self.kind != "full" or self.size_after >= 0 or self.stored:
            out.update(
                kind=self.kind,
                size_after=self.size_after,
                stored=self.stored,
                mtime_before=self.mtime_before,
            )
        for name in _FILE_MANAGEMENT_FIELDS:
            value = getattr(self, name)
            if value is not None and value != "file":
                out[name] = value
        return out


def _dumps(data: Any) -> str:
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"))


Fragments = dict[int, tuple["Entry", str]]
"""`id(entry)` -> (the entry, its encoding): kept with the entry itself, so an id that a
new object took over after the entry was freed never matches."""


def encode_index(rel: str, entries: list[Entry], generation: int, fragments: Fragments) -> bytes:
    """The bytes of an index of `entries` at `generation`: the JSON object
    {"generation", "path", "entries", "check"}, compact, as `json.dumps` writes it;
    "check" is the CRC-32 of the bytes before it (see `parse_index`). Entries in
    `fragments` are not encoded again; the others are, and are added to it."""
    parts = []
    for entry in entries:
        hit = fragments.get(id(entry))
        if hit is None or hit[0] is not entry:
            hit = fragments[id(entry)] = (entry, _dumps(entry.to_dict()))
        parts.append(hit[1])
    head = f'{{"generation":{generation},"path":{_dumps(rel)},"entries":['
    body = (head + ",".join(parts) + "]").encode("utf-8")
    return body + b',"check":"%08x"}' % zlib.crc32(body)


class Loaded(Frozen):
    """An index as read: its entries, its generation, the slot to write next, and the
    bytes of both slots it was parsed from (None: missing or unreadable)."""

    _fields = ("entries", "generation", "slot", "raws")
    __slots__ = _fields
    entries: tuple[Entry, ...]
    generation: int
    slot: str
    raws: tuple[bytes | None, bytes | None]

    def __init__(
        self,
        entries: tuple[Entry, ...],
        generation: int,
        slot: str,
        raws: tuple[bytes | None, bytes | None],
    ) -> None:
        self._set(entries, generation, slot, raws)


class IndexCache:
    """The last index read or written per history directory (at most `LIMIT`), with the
    encodings of its entries (see the module's docstring)."""

    LIMIT = 128

    def __init__(self) -> None:
        self._loaded: OrderedDict[str, tuple[Loaded, Fragments]] = OrderedDict()
        self._lock = _thread.allocate_lock()
        # Directories whose legacy index this cache removed (or found none of) since it
        # last read one there (bounded with `_loaded`).
        self._no_legacy: set[str] = set()

    def load(self, d: Path, dfd: int) -> Loaded:
        """The index of the history directory `d`, open as `dfd`: the valid slot of the
        higher generation; a missing or unreadable index is an empty history; a
        planted link raises OSError(ELOOP)."""
        raws = (_read_index(dfd, INDEX_SLOTS[0], d), _read_index(dfd, INDEX_SLOTS[1], d))
        with self._lock:
            hit = self._loaded.get(str(d))
        if hit is not None and hit[0].raws == raws:
            return hit[0]
        loaded, from_slot = _parse_slots(raws, dfd, d)
        if from_slot:  # (the legacy index is read afresh every time: not cached)
            self._put(str(d), loaded, {})
        else:
            with self._lock:
                self._no_legacy.discard(str(d))
        return loaded

    def legacy_gone(self, d: Path) -> bool:
        """Whether the legacy index of `d` is known to be gone: this cache wrote `d`'s
        index (its writer removes the legacy one first) and has not read a legacy one
        there since. Only a version of filewright from before the two slots writes one,
        and the slots, when valid, are read before it."""
        with self._lock:
            return str(d) in self._no_legacy

    def fragments(self, d: Path) -> Fragments:
        """The encodings kept for the entries of the index cached for `d` (a copy)."""
        with self._lock:
            hit = self._loaded.get(str(d))
        return dict(hit[1]) if hit is not None else {}

    def wrote(self, d: Path, before: Loaded, entries: list[Entry], raw: bytes,
              fragments: Fragments) -> None:  # fmt: skip
        """`raw` (the index of `entries`, generation `before.generation + 1`) was written
        over `before.slot`."""
        i = INDEX_SLOTS.index(before.slot)
        raws = (raw, before.raws[1]) if i == 0 else (before.raws[0], raw)
        kept = {id(e): fragments[id(e)] for e in entries if id(e) in fragments}
        loaded = Loaded(tuple(entries), before.generation + 1, INDEX_SLOTS[1 - i], raws)
        self._put(str(d), loaded, kept, no_legacy=True)

    def _put(self, key: str, loaded: Loaded, fragments: Fragments, no_legacy: bool = False) -> None:
        with self._lock:
            self._loaded[key] = (loaded, fragments)
            self._loaded.move_to_end(key)
            if no_legacy:
                self._no_legacy.add(key)
            while len(self._loaded) > self.LIMIT:
                self._no_legacy.discard(self._loaded.popitem(last=False)[0])


def _parse_slots(raws: tuple[bytes | None, bytes | None], dfd: int, d: Path) -> tuple[Loaded, bool]:
    """The index the slots' bytes hold, and whether it came from a slot (else from the
    legacy index, or none)."""
    # Parse the newer slot first; the older one only when the newer is not valid.
    order = sorted(range(2), key=lambda i: peek_generation(raws[i]), reverse=True)
    for i in order:
        parsed = parse_index(raws[i])
        if parsed is not None:
            return Loaded(tuple(parsed[0]), parsed[1], INDEX_SLOTS[1 - i], raws), True
    legacy = parse_index(_read_index(dfd, LEGACY_INDEX, d))
    return Loaded(tuple(legacy[0]) if legacy else (), 0, INDEX_SLOTS[0], raws), False


def _read_index(dfd: int, name: str, d: Path) -> bytes | None:
    """An index file's bytes; None when missing or unreadable (a planted link raises)."""
    try:
        return read_at(dfd, name, d)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise
        return None


_GENERATION = re.compile(rb'\{"generation":(\d{1,18}),')


def peek_generation(raw: bytes | None) -> int:
    """The generation an index says it has (-1: none), read off its start unparsed."""
    found = _GENERATION.match(raw) if raw else None
    return int(found.group(1)) if found else -1


def parse_index(raw: bytes | None) -> tuple[list[Entry], int] | None:
    """(entries, generation) of an index; None when missing, partial or malformed.

    A slot is written over in place (`statedir.overwrite_at`): a process killed while
    writing one of several pages leaves the new bytes' head on the old bytes' tail,
    which could still be JSON. Its "check" (the CRC-32 of the bytes before it) tells:
    a slot whose check does not match is torn. An index without one (written before
    the check existed) is read as it is."""
    if raw is None:
        return None
    try:
        data = json.loads(raw)
        generation = data.get("generation", 0)
        entries = [Entry(**e) for e in data.get("entries", [])]
        check = data.get("check")
    except (ValueError, AttributeError, TypeError):
        return None
    if not isinstance(generation, int):
        return None
    if check is not None:
        cut = raw.rfind(b',"check":')  # (a quote inside a JSON string is escaped)
        if not isinstance(check, str) or cut < 0 or check != f"{zlib.crc32(raw[:cut]):08x}":
            return None
    return entries, generation


def index_path(raw: bytes | None) -> str:
    """The file path an index names ("" when it names none)."""
    try:
        path = json.loads(raw or b"{}").get("path", "")
    except (ValueError, TypeError, AttributeError):
        return ""
    return path if isinstance(path, str) else ""


def stored_identity(st: os.stat_result) -> str:
    """What a kept copy is, to notice any change to it: inode, size, modification time."""
    return f"{st.st_ino}:{st.st_size}:{st.st_mtime_ns}"


_SECOND: tuple[int, str] = (-1, "")  # the last whole second formatted, and its text


def now_iso() -> str:
    """2025-01-12T10:30:00.000+00:00 (UTC, milliseconds)."""
    global _SECOND
    now = time.time()
    second = int(now)
    kept = _SECOND
    if kept[0] != second:  # (formatted once a second, not once a change)
        kept = _SECOND = (second, time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(second)))
    return f"{kept[1]}.{int(now * 1000) % 1000:03d}+00:00"


def timestamp_for_filename() -> str:
    """2025-01-12T10-30-00-000Z, as in the claude seed's backup names."""
    now = time.time()
    base = time.strftime("%Y-%m-%dT%H-%M-%S", time.gmtime(now))
    return f"{base}-{int(now * 1000) % 1000:03d}Z"
