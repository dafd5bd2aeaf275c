"""The ripgrep engine: runs ``rg`` and stream-parses its output.

grep runs ``rg --json`` (every path and line arrives JSON-encoded, so names with
colons, newlines or invalid UTF-8 cannot corrupt parsing); glob runs ``rg --files
--null`` (NUL-terminated paths).  Both pin ripgrep's configuration so that it agrees with the
pure-Python engine: no config file, hidden files included, ``.git`` excluded, symlinks
not followed, ignore files of the searched tree only (no global gitignore, no
``.git/info/exclude``, no ignore files above the searched directory).
"""

from __future__ import annotations

import base64
import json
import json.scanner
import os
import selectors
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, BinaryIO

from filewright.search.python_engine import is_binary_file
from filewright.search.results import LineSink

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


def _path_bytes(obj: dict[str, str]) -> bytes:
    """Decode ripgrep's ``{"text": ...}`` / ``{"bytes": base64}`` into raw bytes."""
    text = obj.get("text")
    if text is not None:
        return text.encode("utf-8", "surrogateescape")
    return base64.b64decode(obj.get("bytes", ""))


def _line_text(obj: dict[str, str]) -> str:
    text = obj.get("text")
    if text is not None:
        return text
    return base64.b64decode(obj.get("bytes", "")).decode("utf-8", "replace")


def _strip_dot(rel: bytes) -> bytes:
    return rel[2:] if rel.startswith(b"./") else rel


@dataclass(slots=True)
class RgOutcome:
    """How one ``rg --json`` run ended."""

    completed: bool
    """rg ran to the end (not stopped at the cap)."""
    files_searched: int | None
    error: str | None
    """rg's own message when it refused to run (bad regex or glob)."""


def grep_args(
    pattern: str,
    *,
    include: str | None,
    case_sensitive: bool,
    fixed_strings: bool,
    context: int,
    respect_gitignore: bool,
    sort: bool,
    pcre2: bool = False,
) -> list[str]:
    """The ``rg`` command line (without the binary) for one grep."""
    args = ["--json", *BASE_ARGS, "--no-mmap", "-s" if case_sensitive else "-i"]
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


PENDING_LIMIT = 4096
"""Lines of one file held back before checking the file for binary data ourselves."""


def run_grep(
    rg: str,
    directory: Path,
    args: list[str],
    collector: LineSink,
    accept: Callable[[bytes], str | None],
) -> RgOutcome:
    """Run ``rg`` and feed its matches to ``collector`` until done or it says stop.

    ``accept`` maps a relative path to the display path, or ``None`` to drop the file
    (policy or ignore-rule post-filtering).  A file's lines are held back until its
    ``end`` message, which tells whether ripgrep met a NUL byte after its matches; such
    a file is binary and dropped.
    """
    base = os.fsencode(directory) + b"/"
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
        assert proc.stdout is not None
        stopped = False
        searched: int | None = None
        state = _FileState()
        try:
            for raw in proc.stdout:
                # The kind is read off the line's start; the JSON is parsed only when
                # its data is needed (not for files dropped, nor for "end" messages,
                # whose statistics are most of ripgrep's output for a selective pattern).
                msg = None
                kind = _KINDS.get(raw[9:12]) if raw[:9] == b'{"type":"' else None
                if kind is None:
                    msg = json.loads(raw)
                    kind = msg["type"]
                if kind == "match" or kind == "context":
                    if state.skip:
                        continue
                    data = (msg or _parse(raw))["data"]
                    state.pending.append(
                        (data["line_number"], _line_text(data["lines"]), kind == "context")
                    )
                    if len(state.pending) >= PENDING_LIMIT:
                        if state.streaming or not is_binary_file(base + state.rel):
                            state.streaming = True
                            if not state.flush(collector):
                                stopped = True
                                break
                        else:
                            state.skip = True
                elif kind == "begin":
                    data = (msg or _parse(raw))["data"]
                    rel = _strip_dot(_path_bytes(data["path"]))
                    shown = accept(rel)
                    state = _FileState(rel, shown)
                    if shown is not None:
                        collector.begin(shown)
                elif kind == "end":
                    if state.shown:
                        binary = not state.streaming and _binary_end(raw, msg)
                        if not (state.skip or binary) and not state.flush(collector):
                            stopped = True
                            break
                        collector.end()
                    state = _FileState()
                elif kind == "summary":
                    searched = (msg or _parse(raw))["data"]["stats"]["searches"]
        finally:
            if proc.poll() is None and (stopped or searched is None):
                proc.kill()
            proc.stdout.close()
            rc = proc.wait()
        if stopped:
            return RgOutcome(False, None, None)
        if searched is None and rc == 2:
            err.seek(0)
            return RgOutcome(False, None, _rg_message(err.read()))
        return RgOutcome(True, searched, None)


_KINDS = {b"beg": "begin", b"mat": "match", b"con": "context", b"end": "end", b"sum": "summary"}
"""ripgrep's JSON message types, by the 3 letters after ``{"type":"``."""

_scan_json = json.scanner.make_scanner(json.JSONDecoder())  # type: ignore[attr-defined]


def _parse(raw: bytes) -> dict[str, Any]:
    """One line of ripgrep's JSON (``json.loads`` less its checks of the encoding and
    of trailing text, which ripgrep's UTF-8 lines do not need)."""
    msg: dict[str, Any] = _scan_json(raw.decode("utf-8", "surrogatepass"), 0)[0]
    return msg


def _binary_end(raw: bytes, msg: dict[str, Any] | None) -> bool:
    """Whether an ``end`` message reports a NUL byte (``binary_offset`` not null).

    ``"binary_offset":null`` with its quotes cannot occur inside a JSON string (quotes
    there are escaped), so finding it settles the common case without parsing.
    """
    if msg is None:
        if b'"binary_offset":null' in raw:
            return False
        msg = _parse(raw)
    return msg["data"].get("binary_offset") is not None


class _FileState:
    """Lines of the file being parsed, held until ripgrep says whether it is binary."""

    __slots__ = ("pending", "rel", "shown", "skip", "streaming")

    def __init__(self, rel: bytes = b"", shown: str | None = None) -> None:
        self.rel = rel
        self.shown = shown is not None
        self.skip = shown is None
        self.streaming = False
        self.pending: list[tuple[int, str, bool]] = []

    def flush(self, collector: LineSink) -> bool:
        ok = all(collector.line(n, text, ctx) for n, text, ctx in self.pending)
        self.pending.clear()
        return ok


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
    try:
        import fcntl

        fcntl.fcntl(proc.stdout.fileno(), fcntl.F_SETPIPE_SZ, WAITING_PIPE_BYTES)  # type: ignore[union-attr,attr-defined]
    except (ImportError, AttributeError, OSError):
        pass


def iter_path_batches(*streams: BinaryIO) -> Iterator[list[bytes]]:
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
            stream = key.fileobj
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


def _batches(stream: BinaryIO) -> Iterator[list[bytes]]:
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
