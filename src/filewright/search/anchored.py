"""Race-free access for walks and searches: directory descriptors opened without following
links, and the lines of a file streamed from its descriptor within a memory budget.

A search directory is a real path (no symlink in it), so it is opened from ``/`` one
component at a time with ``O_NOFOLLOW``: a component swapped for a symlink makes the open
fail instead of leading out. Below it, every file and directory is opened relative to
its parent's descriptor, again with ``O_NOFOLLOW``. What an outside process swaps in
mid-walk is therefore never entered, and a result reported by a walker that works by
path (ripgrep) is re-read here before it is returned (see ``search.verify``).
"""

from __future__ import annotations

import bisect
import codecs
import os
import stat
from collections.abc import Iterator
from pathlib import Path

_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_DIR_FLAGS = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | _NOFOLLOW | _CLOEXEC
_PASS_FLAGS = (
    getattr(os, "O_PATH", os.O_RDONLY) | getattr(os, "O_DIRECTORY", 0) | _NOFOLLOW | _CLOEXEC
)
_FILE_FLAGS = os.O_RDONLY | _NOFOLLOW | getattr(os, "O_NONBLOCK", 0) | _CLOEXEC

CHUNK_BYTES = 1 << 20
LINE_LIMIT_BYTES = 8 << 20
"""The start of a line that is kept and searched (Python engine) or compared (ripgrep's
results); the rest of a longer line is counted, not kept."""

_CONTINUATION = bytes(range(0x80, 0xC0))


def open_real_dir(directory: Path | str | bytes) -> int:
    """A descriptor of the real directory ``directory``, opened component by component
    from ``/`` without following links (OSError if one of them is not a directory)."""
    parts = [p for p in os.fsencode(directory).split(b"/") if p and p != b"."]
    # Ancestors are opened with O_PATH where there is one: passing through a directory
    # needs search permission only, as for a path, not read permission.
    fd = os.open(b"/", _PASS_FLAGS if parts else _DIR_FLAGS)
    try:
        for i, part in enumerate(parts):
            nfd = os.open(part, _PASS_FLAGS if i < len(parts) - 1 else _DIR_FLAGS, dir_fd=fd)
            os.close(fd)
            fd = nfd
    except BaseException:
        os.close(fd)
        raise
    return fd


def open_subdir(dir_fd: int, name: bytes | str) -> int:
    """``name`` in the directory ``dir_fd`` as a directory, never through a link."""
    return os.open(name, _DIR_FLAGS, dir_fd=dir_fd)


def open_file_at(dir_fd: int, name: bytes | str) -> int:
    """``name`` in ``dir_fd`` opened for reading: a regular file, never through a link
    (OSError otherwise; a FIFO cannot block the open)."""
    fd = os.open(name, _FILE_FLAGS, dir_fd=dir_fd)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise OSError(f"not a regular file: {name!r}")
        os.set_blocking(fd, True)
    except BaseException:
        os.close(fd)
        raise
    return fd


def open_below(dir_fd: int, rel: bytes | str, *, want_dir: bool = False) -> int:
    """``rel`` (a relative path) below ``dir_fd``, each component opened without
    following links: a file (regular) or, with ``want_dir``, a directory."""
    parts = [p for p in os.fsencode(rel).split(b"/") if p and p != b"."]
    if not parts or b".." in parts:
        raise OSError(f"not a path below the directory: {rel!r}")
    fd = os.dup(dir_fd)
    try:
        for part in parts[:-1]:
            nfd = open_subdir(fd, part)
            os.close(fd)
            fd = nfd
        return open_subdir(fd, parts[-1]) if want_dir else open_file_at(fd, parts[-1])
    finally:
        os.close(fd)


class Below:
    """Stats of many paths below one directory descriptor, each reached without
    following a link, its parent directories opened once (``O_PATH``) and kept while
    the object lives (at most ``keep`` of them; use as a context manager)."""

    def __init__(self, dir_fd: int, keep: int = 256) -> None:
        self._root = dir_fd
        self._keep = keep
        self._dirs: dict[bytes, int] = {}

    def __enter__(self) -> Below:
        return self

    def __exit__(self, *_exc: object) -> None:
        self._close()

    def _close(self) -> None:
        for fd in self._dirs.values():
            os.close(fd)
        self._dirs.clear()

    def _dir(self, rel_dir: bytes) -> int:
        if not rel_dir:
            return self._root
        fd = self._dirs.get(rel_dir)
        if fd is not None:
            return fd
        # Down from the nearest directory already open (iterative: trees can be deep).
        missing = [rel_dir]
        parent = rel_dir.rpartition(b"/")[0]
        while parent and parent not in self._dirs:
            missing.append(parent)
            parent = parent.rpartition(b"/")[0]
        if len(self._dirs) + len(missing) > self._keep:
            # Too many to keep: start again from the root, keeping only rel_dir's own.
            self._close()
            fd = self._root
            for name in rel_dir.split(b"/"):
                nfd = self._open(fd, name, rel_dir)
                if fd != self._root:
                    os.close(fd)
                fd = nfd
            self._dirs[rel_dir] = fd
            return fd
        fd = self._dirs[parent] if parent else self._root
        for sub in reversed(missing):
            fd = self._dirs[sub] = self._open(fd, sub.rpartition(b"/")[2], rel_dir)
        return fd

    @staticmethod
    def _open(dir_fd: int, name: bytes, rel_dir: bytes) -> int:
        if not name or name in (b".", b".."):
            raise OSError(f"not a path below the directory: {rel_dir!r}")
        return os.open(name, _PASS_FLAGS, dir_fd=dir_fd)

    def regular(self, rel: bytes) -> os.stat_result | None:
        """The stat of the regular file ``rel`` (``None`` when it is not one, now)."""
        if rel[:1] in (b".", b"/") or b"/." in rel or b"//" in rel:
            parts = [p for p in rel.split(b"/") if p and p != b"."]
            if not parts or b".." in parts:
                return None
            rel = b"/".join(parts)
        parent, _, name = rel.rpartition(b"/")
        if not name or name in (b".", b".."):
            return None
        try:
            st = os.stat(name, dir_fd=self._dir(parent), follow_symlinks=False)
        except OSError:
            return None
        return st if stat.S_ISREG(st.st_mode) else None


class Binary(Exception):
    """The file holds a NUL byte: it is binary and not searched."""


def char_count(data: bytes) -> int:
    """Characters in UTF-8 ``data`` (every byte that does not continue a sequence)."""
    return len(data.translate(None, _CONTINUATION))


def iter_lines(fd: int, *, limit: int = LINE_LIMIT_BYTES) -> Iterator[tuple[bytes, int]]:
    """The lines of the file at ``fd`` as ripgrep reads them: ``(start, rest_chars)``, the
    line's first ``limit`` bytes (UTF-8, without its ``\\n``) and the characters after
    them. UTF-16 with a BOM is transcoded, a UTF-8 BOM dropped; a NUL anywhere raises
    :class:`Binary` (when it is met: lines before it have been yielded by then).
    Memory: a chunk and ``limit`` bytes, whatever the file."""
    chunks = _utf8_chunks(fd)
    line = bytearray()
    rest = 0
    for chunk in chunks:
        if b"\0" in chunk:
            raise Binary
        start = 0
        while True:
            end = chunk.find(b"\n", start)
            piece = chunk[start:] if end < 0 else chunk[start:end]
            room = limit - len(line)  # (`_cut`, inlined: this runs once per line)
            if len(piece) <= room:
                line += piece
            else:
                line += piece[:room]
                rest += char_count(piece[room:])
            if end < 0:
                break
            yield bytes(line), rest
            line.clear()
            rest = 0
            start = end + 1
    if line or rest:
        yield bytes(line), rest


def _cut(piece: bytes, room: int) -> tuple[bytes, int]:
    """`piece` kept up to `room` bytes, and how many characters were cut off."""
    if len(piece) <= room:
        return piece, 0
    return piece[:room], char_count(piece[room:])


def lines_numbered(
    fd: int, wanted: set[int], *, limit: int = LINE_LIMIT_BYTES
) -> Iterator[tuple[int, bytes, int]]:
    """:func:`iter_lines` numbered from 1, only the lines whose numbers are in ``wanted``:
    ``(number, start, rest_chars)``. The other lines are counted, not built (a chunk
    holding none of the wanted lines costs a count of its newlines, one holding some is
    split at its newlines and only those built), so checking a few lines of a 200 MB
    file does not walk its millions of lines in Python. A NUL anywhere
    raises :class:`Binary` when it is met, as there."""
    numbers = sorted(wanted)
    number = 0  # lines ended so far
    line = bytearray()
    rest = 0
    for chunk in _utf8_chunks(fd):
        if b"\0" in chunk:
            raise Binary
        ends = chunk.count(b"\n")
        i = bisect.bisect_left(numbers, number + 1)
        if i == len(numbers) or numbers[i] > number + ends + 1:
            # none of the lines this chunk ends or continues is wanted
            if ends:
                number += ends
                line.clear()
                rest = 0
            continue
        pieces = chunk.split(b"\n")  # pieces[k] ends line number + 1 + k; the last goes on
        for wanted_number in numbers[i : bisect.bisect_right(numbers, number + ends)]:
            k = wanted_number - number - 1
            piece = pieces[k]
            head, more = (bytes(line), rest) if k == 0 else (b"", 0)
            kept, cut = _cut(piece, limit - len(head))
            yield wanted_number, head + kept, more + cut
        if ends:
            number += ends
            line.clear()
            rest = 0
        kept, cut = _cut(pieces[-1], limit - len(line))
        line += kept
        rest += cut
    if (line or rest) and number + 1 in wanted:
        yield number + 1, bytes(line), rest


def _utf8_chunks(fd: int) -> Iterator[bytes]:
    """The file's bytes in chunks, as UTF-8 (UTF-16 with a BOM transcoded, a UTF-8 BOM
    dropped)."""
    first = os.read(fd, CHUNK_BYTES)
    if first.startswith((b"\xff\xfe", b"\xfe\xff")):
        decoder = codecs.getincrementaldecoder("utf-16")("replace")
        chunk = first
        while chunk:
            yield decoder.decode(chunk).encode("utf-8", "surrogatepass")
            chunk = os.read(fd, CHUNK_BYTES)
        yield decoder.decode(b"", final=True).encode("utf-8", "surrogatepass")
        return
    if first.startswith(b"\xef\xbb\xbf"):
        first = first[3:]
    chunk = first
    while chunk:
        yield chunk
        chunk = os.read(fd, CHUNK_BYTES)
