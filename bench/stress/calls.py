"""Issue 30's budget findings at full size: peak memory and time of one tool call each.

    uv run python bench/stress/calls.py              # every case (~2.5 GB of disk under /tmp)
    uv run python bench/stress/calls.py write mcpfs  # only cases whose name holds a word

Findings 3, 4, 8 and 9: an 11 MB replace_all that would write gigabytes, a 60 MB whole-file
write in every writing toolset (dry run and refused too), head/tail of a 1 GB single-line
file, read_multiple_files naming one 20 MB file 30 times, a 40 MB notebook, a 42 MB image,
and a pattern slow on every line. Each call runs in its own process (`budgets.run`: peak
RSS from the kernel); the target is at most 300 MB per call, and a slow pattern answered
within the call's regex time (5 s) plus the time to read the file.
"""

from __future__ import annotations

import json
import os
import shutil
import struct
import sys
import tempfile
import zlib
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from budgets import run, write_repeated

MB = 1 << 20


def png(path: Path, size: int) -> None:
    """A valid PNG of about `size` bytes (one stored, uncompressed row block)."""
    width = 4096
    rows = max(1, size // (width * 3 + 1))
    raw = b"".join(b"\x00" + os.urandom(64) * (width * 3 // 64) for _ in range(rows))
    data = zlib.compress(raw, 0)

    def chunk(kind: bytes, body: bytes) -> bytes:
        return (
            struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))
        )

    head = struct.pack(">IIBBBBB", width, rows, 8, 2, 0, 0, 0)
    path.write_bytes(
        b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", head) + chunk(b"IDAT", data) + chunk(b"IEND", b"")
    )


def notebook(path: Path, size: int) -> None:
    cell = {
        "cell_type": "code",
        "source": ["x = 1\n"] * 50,
        "outputs": [],
        "metadata": {},
        "execution_count": 1,
    }
    one = len(json.dumps(cell))
    cells = [cell] * (size // one)
    path.write_text(
        json.dumps({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5})
    )


Case = tuple[str, Path, str, str, dict[str, Any], dict[str, Any]]


def cases(base: Path) -> list[Case]:
    out: list[Case] = []
    amp = base / "amp"
    amp.mkdir()
    write_repeated(amp / "big.txt", b"a\n", 11 * MB)
    big = str(amp / "big.txt")
    new = "B" * 20_000
    out += [
        (
            "F3 replace_all 11 MB x 20 KB (default edit)",
            amp,
            "default",
            "edit",
            {"path": "big.txt", "old_string": "a", "new_string": new, "replace_all": True},
            {},
        ),
        (
            "F3 replace_all 11 MB x 20 KB (claude Edit)",
            amp,
            "claude",
            "Edit",
            {"file_path": big, "old_string": "a", "new_string": new, "replace_all": True},
            {"first": [["Read", {"file_path": big, "limit": 1}]]},
        ),
        (
            "F3 worker regex \\g<0> x 20,000 on 11 MB",
            amp,
            "worker",
            "replace_in_file",
            {"path": "big.txt", "old": "a+", "new": "\\g<0>" * 20_000, "regex": True},
            {},
        ),
        (
            "F3 worker literal all, dry run, 11 MB",
            amp,
            "worker",
            "replace_in_file",
            {"path": "big.txt", "old": "a", "new": new},
            {"workspace": {"dry_run": True}},
        ),
    ]
    w = base / "write"
    w.mkdir()
    text = "x" * 59 + "\n"
    content = text * (60 * MB // len(text))
    (w / "old.txt").write_text("y\n" * 1000)
    out += [
        (
            "F4 write 60 MB new file (default write)",
            w,
            "default",
            "write",
            {"path": "new1.txt", "content": content},
            {},
        ),
        (
            "F4 write 60 MB over a file (default write)",
            w,
            "default",
            "write",
            {"path": "old.txt", "content": content},
            {},
        ),
        (
            "F4 write 60 MB, dry run (default write)",
            w,
            "default",
            "write",
            {"path": "new2.txt", "content": content},
            {"workspace": {"dry_run": True}},
        ),
        (
            "F4 write 60 MB, refused (nobody confirms)",
            w,
            "default",
            "write",
            {"path": "new3.txt", "content": content},
            {"confirm": None, "ask": True},
        ),
        (
            "F4 write 60 MB (claude Write)",
            w,
            "claude",
            "Write",
            {"file_path": str(w / "new4.txt"), "content": content},
            {},
        ),
        (
            "F4 write 60 MB (gemini write_file)",
            w,
            "gemini",
            "write_file",
            {"file_path": str(w / "new5.txt"), "content": content},
            {},
        ),
        (
            "F4 write 60 MB (mcpfs write_file)",
            w,
            "mcpfs",
            "write_file",
            {"path": str(w / "new6.txt"), "content": content},
            {},
        ),
        (
            "F4 write 60 MB (worker write_file)",
            w,
            "worker",
            "write_file",
            {"path": "new7.txt", "content": content},
            {},
        ),
        (
            "F4 write 60 MB (companion write)",
            w,
            "companion",
            "write",
            {"path": "new8.txt", "content": content},
            {},
        ),
        (
            "F4 write 60 MB (text_editor create)",
            w,
            "text_editor",
            "str_replace_based_edit_tool",
            {"command": "create", "path": str(w / "new9.txt"), "file_text": content},
            {},
        ),
    ]
    line = base / "line"
    line.mkdir()
    write_repeated(line / "one.txt", b"abcdefghij", 1 << 30)
    one = str(line / "one.txt")
    out += [
        (
            "F8 mcpfs read_text_file head=1, 1 GB line",
            line,
            "mcpfs",
            "read_text_file",
            {"path": one, "head": 1},
            {},
        ),
        (
            "F8 mcpfs read_text_file tail=1, 1 GB line",
            line,
            "mcpfs",
            "read_text_file",
            {"path": one, "tail": 1},
            {},
        ),
    ]
    many = base / "many"
    many.mkdir()
    write_repeated(many / "twenty.txt", b"z" * 99 + b"\n", 20 * MB)
    out.append(
        (
            "F8 mcpfs read_multiple_files 20 MB x 30",
            many,
            "mcpfs",
            "read_multiple_files",
            {"paths": [str(many / "twenty.txt")] * 30},
            {},
        )
    )
    nb = base / "nb"
    nb.mkdir()
    notebook(nb / "big.ipynb", 40 * MB)
    out += [
        (f"F8 notebook 40 MB ({ts} {tool})", nb, ts, tool, {key: str(nb / "big.ipynb")}, {})
        for ts, tool, key in (
            ("default", "read", "path"),
            ("claude", "Read", "file_path"),
            ("gemini", "read_file", "path"),
            ("mcpfs", "read_text_file", "path"),
        )
    ]
    img = base / "img"
    img.mkdir()
    png(img / "big.png", 42 * MB)
    out += [
        (f"F8 image 42 MB ({ts} {tool})", img, ts, tool, {key: str(img / "big.png")}, {})
        for ts, tool, key in (
            ("mcpfs", "read_media_file", "path"),
            ("default", "read", "path"),
            ("claude", "Read", "file_path"),
            ("gemini", "read_file", "path"),
        )
    ]
    slow = base / "slow"
    slow.mkdir()
    (slow / "s.txt").write_text(("a," * 20 + "\n") * 8)
    long_slow = base / "slow1000"
    long_slow.mkdir()
    (long_slow / "s.txt").write_text(("a," * 20 + "\n") * 1000)
    out.append(
        (
            "F9 grep (.*?,){11}P, 1.8 s per line, 8 lines",
            slow,
            "default",
            "grep",
            {"pattern": "(.*?,){11}P"},
            {"python_engine": True},
        )
    )
    out.append(
        (
            "F9 the same pattern, 1000 lines (30 min at 1.8 s a line)",
            long_slow,
            "default",
            "grep",
            {"pattern": "(.*?,){11}P"},
            {"python_engine": True},
        )
    )
    return out


def main(argv: list[str]) -> int:
    base = Path(tempfile.mkdtemp(prefix="fw-calls-", dir="/tmp"))
    try:
        print(f"| {'case':52} | time | peak MB | result |")
        print(f"|{'-' * 54}|-----:|--------:|--------|")
        for name, root, toolset, tool, args, extra in cases(base):
            if argv and not any(word in name for word in argv):
                continue
            r = run(root, toolset, tool, args, **extra)
            result = "ok" if r["ok"] else f"refused ({r['error']})"
            print(
                f"| {name:52} | {r['seconds']:4.1f}s | {r['together_mb']:7} | "
                f"{result}, {r['length']} chars |",
                flush=True,
            )
    finally:
        shutil.rmtree(base, ignore_errors=True)
    return 0


if __name__ == "__main__":
    os.chdir(Path(__file__).resolve().parents[2])
    sys.exit(main(sys.argv[1:]))
