"""The ripgrep engine: runs ``rg`` and stream-parses its output.

grep runs ``rg --null`` (NUL-terminated paths, so names with colons or newlines cannot
corrupt parsing; each line cut to a preview, and every reported line read again from the
file itself); glob runs ``rg --files --null`` (NUL-terminated paths).  Both pin ripgrep's configuration so that it agrees with the
pure-Python engine: no config file, hidden files included, ``.git`` excluded, symlinks
not followed, ignore files of the searched tree only (no global gitignore, no
``.git/info/exclude``, no ignore files above the searched directory).
"""

from __future__ import annotations

import contextlib
import os
import re
import selectors
import shutil
import signal
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import IO, BinaryIO, cast

from filewright.search.anchored import Binary, lines_numbered, open_below
from filewright.search.results import WINDOW_CHARS, LineSink

try:
    import fcntl
    import resource
except ImportError:  # pragma: no cover - not POSIX: no pipe sizing, no memory cap
    fcntl = resource = None  # type: ignore[assignment]

BASE_ARGS: tuple[str, ...] = (
    "--no-config",
    "--hidden",
    "--no-follow",
    "--no-require-git",
    "--no-ignore-global",
    "--no-ignore-parent",
    "--no-ignore-exclude",
    "--no-messages",
    "--path-separator",
    "/",
)


@lru_cache(maxsize=1)
def find_rg() -> str | None:
    """The ``rg`` binary: one on ``PATH``, else the ``ripgrep`` wheel's next to Python."""
    found = shutil.which("rg")
    if found:
        return found
    for name in ("rg", "rg.exe"):
        candidate = Path(sys.executable).parent / name
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return str(candidate)
    return None


@lru_cache(maxsize=4)
def has_pcre2(rg: str) -> bool:
    """Whether this ``rg`` was built with PCRE2 (``--pcre2``: look-around, backreferences)."""
    try:
        done = subprocess.run(
            [rg, "--pcre2-version"], capture_output=True, stdin=subprocess.DEVNULL, timeout=10
        )
    except (OSError, subprocess.SubprocessError):
        return False
    return done.returncode == 0


def _strip_dot(rel: bytes) -> bytes:
    return rel[2:] if rel.startswith(b"./") else rel


@dataclass(slots=True)
class RgOutcome:
    """How one ``rg`` run ended."""

    completed: bool
    """rg ran to the end (not stopped at the cap)."""
    files_searched: int | None
    error: str | None
    """rg's own message when it refused to run (bad regex or glob)."""


PREVIEW_BYTES = 1024
"""ripgrep prints at most this much of a line (``--max-columns``): its output, and what
it buffers per file when multi-threaded, stay bounded on lines of any length. The
lines shown are read again from the file itself (see :func:`verified_lines`)."""


def grep_args(
    pattern: str,
    *,
    include: str | None,
    case_sensitive: bool,
    fixed_strings: bool,
    context: int,
    respect_gitignore: bool,
    sort: bool,
    per_file: int,
    pcre2: bool = False,
) -> list[str]:
    """The ``rg`` command line (without the binary) for one grep: at most ``per_file``
    matching lines per file, each printed as ``path NUL number (:|-) line-start``."""
    args = [
        *BASE_ARGS,
        "--no-heading",
        "--with-filename",
        "--line-number",
        "--null",
        "--color",
        "never",
        "--no-context-separator",
        "--max-columns",
        str(PREVIEW_BYTES),
        "--max-columns-preview",
        "--max-count",
        str(max(per_file, 1)),
        "--no-mmap",
        "-s" if case_sensitive else "-i",
    ]
    if pcre2:
        args.append("--pcre2")
    if fixed_strings:
        args.append("-F")
    if context > 0:
        args += ["-C", str(context)]
    if not respect_gitignore:
        args.append("--no-ignore")
    if include:
        args += ["--glob", include]
    args += ["--glob", "!.git"]
    if sort:
        args += ["--sort", "path"]
    args += ["-e", pattern, "--", "."]
    return args


RG_DATA_BYTES = 192 << 20
"""ripgrep's data segment limit (``RLIMIT_DATA``): it holds a whole line in memory, so a
line of hundreds of megabytes would take twice that; past the limit it aborts and grep
answers with the Python engine, which keeps only a line's start."""

OUT_OF_MEMORY = "ripgrep stopped: a line is too long to search in memory"


def cap_memory(pid: int) -> None:
    """Apply :data:`RG_DATA_BYTES` to the ripgrep just started (where the OS allows)."""
    if resource is None:  # pragma: no cover - not POSIX
        return
    with contextlib.suppress(AttributeError, OSError, ValueError):
        resource.prlimit(pid, resource.RLIMIT_DATA, (RG_DATA_BYTES, RG_DATA_BYTES))


Record = tuple[int, bool, bytes]
"""One line ripgrep printed: line number, is_context, the start of the line."""


def run_grep(
    rg: str,
    directory: Path,
    args: list[str],
    collector: LineSink,
    accept: Callable[[bytes], str | None],
    dir_fd: int,
    max_chars: int,
) -> RgOutcome:
    """Run ``rg`` and feed its matches to ``collector`` until done or it says stop.

    ``accept`` maps a relative path to the display path, or ``None`` to drop the file
    (policy or ignore-rule post-filtering). Every file's lines are read again from the
    file, reached from ``dir_fd`` (the searched directory) without following links, and
    checked against what ripgrep printed (:func:`verified_lines`): a file ripgrep read
    through a symlink swapped in mid-walk, a binary file (a NUL after the matches) or a
    file that changed meanwhile is dropped; the lines shown are cut from the file's own
    text, with their full length.
    """
    with tempfile.TemporaryFile() as err:
        try:
            proc = subprocess.Popen(
                [rg, *args],
                cwd=directory,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=err,
            )
        except (OSError, ValueError) as exc:  # e.g. a NUL byte or an oversized argument
            return RgOutcome(False, None, f"could not run ripgrep: {exc}")
        cap_memory(proc.pid)
        assert proc.stdout is not None
        stopped = False
        printed = False
        try:
            for rel, records in _files(proc.stdout):
                printed = True
                shown = accept(rel)
                if shown is None:
                    continue
                lines = verified_lines(dir_fd, rel, records, max_chars)
                if not lines:
                    continue
                collector.begin(shown)
                if not all(collector.line(n, t, c, m) for n, t, c, m in lines):
                    stopped = True
                    break
                collector.end()
        finally:
            if proc.poll() is None:
                proc.kill()
            proc.stdout.close()
            rc = proc.wait()
        if stopped:
            return RgOutcome(False, None, None)
        if rc in (-signal.SIGABRT, 128 + signal.SIGABRT):
            return RgOutcome(False, None, OUT_OF_MEMORY)
        if rc == 2 and not printed:
            err.seek(0)
            message = err.read()
            if message.strip():
                return RgOutcome(False, None, _rg_message(message))
        return RgOutcome(True, None, None)


def _files(stream: IO[bytes]) -> Iterator[tuple[bytes, list[Record]]]:
    """ripgrep's output, file by file (a file's lines come together, in line order)."""
    current: bytes | None = None
    records: list[Record] = []
    for path, number, is_context, text in _records(stream):
        if path != current:
            if current is not None and records:
                yield _strip_dot(current), records
            current, records = path, []
        records.append((number, is_context, text))
    if current is not None and records:
        yield _strip_dot(current), records


def _records(stream: IO[bytes]) -> Iterator[tuple[bytes, int, bool, bytes]]:
    """``path NUL number (:|-) text LF`` records (a path may hold any byte but NUL)."""
    read = getattr(stream, "read1", stream.read)
    buf = b""
    pos = 0
    while True:
        nul = buf.find(b"\0", pos)
        eol = buf.find(b"\n", nul + 1) if nul >= 0 else -1
        if eol < 0:
            chunk = read(1 << 16)
            if not chunk:
                return
            buf = buf[pos:] + chunk
            pos = 0
            continue
        path = buf[pos:nul]
        notice = _NOTICE.match(buf, pos, nul)
        if notice is not None:  # ripgrep's line about a binary file: not a record
            pos = notice.end()
            continue
        head = buf[nul + 1 : eol]
        pos = eol + 1
        i = 0
        while i < len(head) and 48 <= head[i] <= 57:
            i += 1
        if i == 0 or i >= len(head) or head[i] not in b":-":
            continue  # not a line record (a message): ignore
        yield path, int(head[:i]), head[i] == 45, head[i + 1 :]


_NOTICE = re.compile(rb"[^\0]*?: WARNING: [^\0\n]*\n")
"""A line ripgrep prints on its own (``path: WARNING: stopped searching binary file
after match ...``), without a NUL after the path."""


def verified_lines(
    dir_fd: int, rel: bytes, records: list[Record], max_chars: int
) -> list[tuple[int, str, bool, int]]:
    """The lines ripgrep reported for ``rel``, read again from the file itself: ``(number,
    start of the line, is_context, characters cut off)``; empty when the file cannot be
    reached without links, is binary, or does not hold what ripgrep printed."""
    wanted = {n: (ctx, text) for n, ctx, text in records}
    last = max(wanted)
    keep = max(PREVIEW_BYTES, 4 * max(max_chars, WINDOW_CHARS) + 4)
    out: list[tuple[int, str, bool, int]] = []
    try:
        fd = open_below(dir_fd, rel)
    except OSError:
        return []
    number = 0
    try:
        # (lines after the last wanted one are still read: only looking for a NUL there)
        for number, raw, rest in lines_numbered(fd, set(wanted), limit=keep):
            is_context, printed = wanted[number]
            if not _same_start(raw, rest, printed):
                return []
            text = raw.decode("utf-8", "replace")
            kept = text[: (max_chars if is_context else WINDOW_CHARS) + 1]
            out.append((number, kept, is_context, len(text) - len(kept) + rest))
    except (Binary, OSError):
        return []
    finally:
        os.close(fd)
    if number < last:
        return []  # the file is shorter than what ripgrep read
    return out


def _same_start(raw: bytes, rest: int, printed: bytes) -> bool:
    """Whether ripgrep's printed line (cut to a preview when long) is this line."""
    if not rest and len(raw) <= PREVIEW_BYTES:
        return printed == raw
    k = max(min(len(printed), PREVIEW_BYTES, len(raw)) - 4, 0)
    return printed[:k] == raw[:k]


def _rg_message(stderr: bytes) -> str:
    text = stderr.decode("utf-8", "replace").strip()
    return text.removeprefix("rg: ") or "ripgrep failed"


def is_regex_error(message: str) -> bool:
    """Whether an rg error message is about the pattern (not a glob or the system)."""
    return message.startswith(("regex parse error", "the literal", "error parsing regex")) or (
        "regex" in message and "glob" not in message
    )


def regex_error_detail(message: str) -> str:
    """The gist of an rg regex error (its ``error: ...`` line, or its first line)."""
    for line in message.splitlines():
        if line.startswith("error: "):
            return line.removeprefix("error: ")
    return message.splitlines()[0] if message else message


def files_args(
    glob: str,
    *,
    case_sensitive: bool,
    respect_gitignore: bool,
    excludes: tuple[str, ...],
    threads: int | None = None,
    paths: list[bytes] | None = None,
) -> list[str | bytes]:
    """The ``rg --files`` command line for one glob (anchored at the searched directory).

    Without ``paths`` ripgrep walks its working directory (the searched one) and prints
    paths without ``./``; with them, it walks just those directories (relative paths,
    printed as ``path/...``).
    """
    args: list[str | bytes] = ["--files", "--null", *BASE_ARGS]
    if threads is not None:
        args += ["--threads", str(threads)]
    if not respect_gitignore:
        args.append("--no-ignore")
    args += ["--glob" if case_sensitive else "--iglob", glob]
    # ripgrep applies all --iglob after all --glob: excludes go last to take precedence.
    for ex in excludes:
        args += ["--iglob", ex]
    args.append("--")
    if paths:
        args += paths
    return args


def cores() -> int:
    """The CPUs this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def start_files(
    rg: str, directory: Path, args: list[str | bytes], stdout: BinaryIO | int = subprocess.PIPE
) -> subprocess.Popen[bytes] | None:
    """Start ``rg --files`` (``None`` if it cannot be started, e.g. for a NUL byte in an
    argument); read its output with :func:`iter_path_batches`."""
    try:
        return subprocess.Popen(
            [rg, *args],
            cwd=directory,
            stdin=subprocess.DEVNULL,
            stdout=stdout,
            stderr=subprocess.DEVNULL,
        )
    except (OSError, ValueError):
        return None


WAITING_PIPE_BYTES = 16384
"""Pipe size for ripgreps read side by side: small, so that one whose output is not
being read soon waits (on 2 cores, with 64 KiB pipes, the Python side loses up to a
third of its core to walkers running ahead)."""


def shrink_pipe(proc: subprocess.Popen[bytes]) -> None:
    """Give ``proc``'s stdout pipe :data:`WAITING_PIPE_BYTES` where the OS allows."""
    if fcntl is None:  # pragma: no cover - not POSIX
        return
    with contextlib.suppress(AttributeError, OSError):
        fcntl.fcntl(proc.stdout.fileno(), fcntl.F_SETPIPE_SZ, WAITING_PIPE_BYTES)  # type: ignore[union-attr,attr-defined]


def iter_path_batches(*streams: IO[bytes]) -> Iterator[list[bytes]]:
    """The NUL-terminated paths ``rg --files --null`` prints (``./`` stripped), a list
    at a time, read as they come; from several ripgreps at once, as each has output."""
    if len(streams) == 1:
        yield from _batches(streams[0])
        return
    sel = selectors.DefaultSelector()
    try:
        rests = {}
        for rank, stream in enumerate(streams):
            sel.register(stream, selectors.EVENT_READ, rank)
            rests[stream] = b""
        while rests:
            # The first stream with output is read first: while Python is busy with
            # it, the others fill their pipes and wait (using no CPU).
            key = min((k for k, _ in sel.select()), key=lambda k: k.data)
            stream = cast(IO[bytes], key.fileobj)
            chunk = os.read(key.fd, 1 << 16)
            if chunk:
                paths = (rests[stream] + chunk).split(b"\0")  # type: ignore[index]
                rests[stream] = paths.pop()  # type: ignore[index]
                yield _strip_dots(paths)
            else:
                sel.unregister(stream)
                if rest := rests.pop(stream):  # type: ignore[call-overload]
                    yield [_strip_dot(rest)]
    finally:
        sel.close()


def _batches(stream: IO[bytes]) -> Iterator[list[bytes]]:
    rest = b""
    read = getattr(stream, "read1", stream.read)
    while chunk := read(1 << 16):
        paths = (rest + chunk).split(b"\0")
        rest = paths.pop()
        yield _strip_dots(paths)
    if rest:
        yield [_strip_dot(rest)]


def _strip_dots(paths: list[bytes]) -> list[bytes]:
    # Given no path or relative ones, ripgrep prints no "./"; given ".", on every path.
    return [p[2:] for p in paths] if paths and paths[0][:2] == b"./" else paths


ENGINES = ("auto", "rg", "python")
RG_MISSING = "ripgrep (rg) is not available; use engine='python' or 'auto'"


def pick_engine(engine: str) -> str | None:
    """The rg binary to use, or ``None`` for the Python engine."""
    if engine not in ENGINES:
        raise ValueError(f"engine must be one of {ENGINES}, not {engine!r}")
    return None if engine == "python" else find_rg()
