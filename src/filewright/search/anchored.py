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


def stat_below(dir_fd: int, rel: bytes | str, *, want_dir: bool = False) -> os.stat_result | None:
    """The stat of ``rel`` below ``dir_fd`` reached without links (``None`` if it is not
    there as that kind of entry now)."""
    try:
        fd = open_below(dir_fd, rel, want_dir=want_dir)
    except OSError:
        return None
    try:
        return os.fstat(fd)
    finally:
        os.close(fd)


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
            room = limit - len(line)
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
