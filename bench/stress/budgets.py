"""The resource cases of issue 22 at full size: peak memory and time of one tool call each.

    uv run python bench/stress/budgets.py            # all cases (~3 GB of disk under /tmp, sparse)
    uv run python bench/stress/budgets.py pdf edit   # only cases whose name holds a word

Each call runs in its own process (filewright loaded, one tool call); its peak RSS comes
from the kernel (`wait4`), and ripgrep's (a child of the call) from `RUSAGE_CHILDREN` in
the call's process. "together" adds both peaks (an upper bound of what ran at once).
Target: together <= 300 MB for every case; the PDF bomb answered within 5 s.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import zlib
from pathlib import Path
from typing import Any

DRIVER = r"""
import json, resource, sys
spec = json.load(open(sys.argv[1]))
if spec.get("python_engine"):
    from filewright.search import ripgrep
    ripgrep.find_rg = lambda: None
from filewright import Workspace
ws = Workspace(spec["root"], confirm=spec.get("confirm", True), **spec.get("workspace", {}))
if spec.get("ask"):
    from filewright.policy.rules import Access, Rule
    ws = Workspace(spec["root"], confirm=None, rules=[Rule("**", Access.CONFIRM)])
ts = ws.toolset(spec["toolset"])
for tool, args in spec.get("first", []):
    ts.call(tool, args)
r = ts.call(spec["tool"], spec["args"])
blocks = sum(len(b.get("data", "")) for b in r.images + r.documents) + sum(len(str(b)) for b in r.data.get("content_blocks") or [])
print(json.dumps({"ok": r.ok, "error": r.data.get("error"), "length": len(r.text) + blocks,
                  "self_kb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
                  "rg_kb": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss}))
"""

LAUNCHER = r"""
import os, subprocess, sys
child = subprocess.Popen([sys.executable, "-c", sys.argv[1], sys.argv[2]])
_, status, usage = os.wait4(child.pid, 0)
sys.stderr.write(f"\n@@rusage {usage.ru_maxrss} {os.waitstatus_to_exitcode(status)}\n")
"""


def run(root: Path, toolset: str, tool: str, args: dict[str, Any], **extra: Any) -> dict[str, Any]:
    spec = {"root": str(root), "toolset": toolset, "tool": tool, "args": args, **extra}
    with tempfile.NamedTemporaryFile("w", suffix=".json") as spec_file:
        json.dump(spec, spec_file)  # (a 60 MB argument is too long for a command line)
        spec_file.flush()
        start = time.monotonic()
        done = subprocess.run(
            [sys.executable, "-c", LAUNCHER, DRIVER, spec_file.name],
            capture_output=True,
            text=True,
            timeout=600,
        )
    seconds = time.monotonic() - start
    _, _, usage = done.stderr.rpartition("@@rusage ")
    own_kb, code = (int(x) for x in usage.split())
    reply = json.loads(done.stdout) if code == 0 else {"ok": False, "error": f"exit {code}"}
    rg_kb = reply.get("rg_kb", 0)
    # wait4's peak covers the call's process and its children (ripgrep): the call's own
    # peak is the one it measured itself (RUSAGE_SELF).
    own_kb = reply.get("self_kb", own_kb)
    return {
        "seconds": seconds,
        "filewright_mb": own_kb // 1024,
        "rg_mb": rg_kb // 1024,
        "together_mb": (own_kb + rg_kb) // 1024,
        "ok": reply["ok"],
        "error": reply.get("error"),
        "length": reply.get("length", 0),
    }


def pdf_bomb(path: Path, pages: int = 100, repeats: int = 1_600_000) -> None:
    """A PDF whose one compressed content stream is shared by every page."""
    content = b"BT /F1 12 Tf 72 712 Td " + b"(AAAAAAAA) Tj " * repeats + b" ET"
    packed = zlib.compress(content, 9)
    objs = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids ["
        + b" ".join(b"%d 0 R" % (5 + i) for i in range(pages))
        + b"] /Count %d >>" % pages,
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
        b"<< /Length %d /Filter /FlateDecode >>\nstream\n" % len(packed) + packed + b"\nendstream",
    ]
    page = (
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] "
        b"/Resources << /Font << /F1 3 0 R >> >> /Contents 4 0 R >>"
    )
    objs += [page] * pages
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for i, obj in enumerate(objs, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % i + obj + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objs) + 1)
    out += b"".join(b"%010d 00000 n \n" % o for o in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objs) + 1, xref)
    path.write_bytes(bytes(out))


def write_repeated(path: Path, unit: bytes, total: int) -> None:
    block = unit * max(1, (1 << 20) // len(unit))
    with open(path, "wb") as fh:
        written = 0
        while written < total:
            part = block[: total - written]
            fh.write(part)
            written += len(part)


def cases(base: Path) -> list[tuple[str, Path, str, str, dict[str, Any], dict[str, Any]]]:
    out = []
    line4 = base / "line4"
    line4.mkdir()
    write_repeated(line4 / "b.txt", b"b", 4 << 20)
    (line4 / "b.txt").open("ab").write(b"\n")
    for eng in ("rg", "python"):
        extra = {"python_engine": eng == "python"}
        out.append(
            (
                f"grep 4 MB line of b, pattern b ({eng})",
                line4,
                "default",
                "grep",
                {"pattern": "b"},
                extra,
            )
        )
    sparse = base / "sparse"
    sparse.mkdir()
    with open(sparse / "sparse.txt", "wb") as fh:
        fh.write(b"a lookbehind target ab\n")
        fh.truncate(2 << 30)
    out.append(
        (
            "grep 2 GB sparse file, look-around (python)",
            sparse,
            "default",
            "grep",
            {"pattern": "(?<=a)b"},
            {"python_engine": True},
        )
    )
    out.append(
        (
            "grep 2 GB sparse file, look-around (auto)",
            sparse,
            "gemini",
            "search_file_content",
            {"pattern": "(?<=a)b"},
            {},
        )
    )
    oneline = base / "oneline"
    oneline.mkdir()
    write_repeated(oneline / "one.txt", b"abcdefghix", 200 << 20)
    for eng in ("rg", "python"):
        out.append(
            (
                f"grep 200 MB one-line file, pattern x ({eng})",
                oneline,
                "default",
                "grep",
                {"pattern": "x"},
                {"python_engine": eng == "python"},
            )
        )
    log = base / "log"
    log.mkdir()
    write_repeated(log / "app.log", b"x" * 99 + b"\n", 60 << 20)
    out.append(
        ("grep 60 MB log, pattern x (rg threads)", log, "default", "grep", {"pattern": "x"}, {})
    )
    amp = base / "amp"
    amp.mkdir()
    (amp / "small.txt").write_text("a\n" * 50_000)
    out.append(
        (
            "edit replace_all 20 KB into 100 KB (1 GB result)",
            amp,
            "default",
            "edit",
            {
                "path": "small.txt",
                "old_string": "a",
                "new_string": "B" * 20_000,
                "replace_all": True,
            },
            {},
        )
    )
    out.append(
        (
            "worker regex \\g<0> x 20,000",
            amp,
            "worker",
            "replace_in_file",
            {"path": "small.txt", "old": "a+", "new": "\\g<0>" * 20_000, "regex": True},
            {},
        )
    )
    pdf = base / "pdf"
    pdf.mkdir()
    pdf_bomb(pdf / "bomb.pdf")
    out.append(
        (
            f"read PDF bomb ({(pdf / 'bomb.pdf').stat().st_size // 1024} KB, 100 pages)",
            pdf,
            "default",
            "read",
            {"path": "bomb.pdf"},
            {},
        )
    )
    tree = base / "tree"
    (tree / "big").mkdir(parents=True)
    for i in range(20):  # issue 30 finding 5: 20 x 60 MB (sparse: reading is what costs)
        with open(tree / "big" / f"f{i}.bin", "wb") as fh:
            fh.truncate(60 << 20)
    for dry in (True, False):
        out.append(
            (
                f"delete recursive 20 x 60 MB ({'dry run' if dry else 'confirmed'})",
                tree,
                "default",
                "delete",
                {"path": "big", "recursive": True, "dry_run": dry},
                {},
            )
        )
    kept = base / "kept"
    kept.mkdir()
    # issue 30 finding 2: the backup is a link, so history keeps a copy of its own
    write_repeated(kept / "big.txt", b"a line of the old file\n", 90 << 20)
    out.append(
        (
            "claude Write over a 90 MB file (backup link, history copy)",
            kept,
            "claude",
            "Write",
            {"file_path": str(kept / "big.txt"), "content": "short\n"},
            {"first": [("Read", {"file_path": str(kept / "big.txt"), "limit": 1})]},
        )
    )
    return out


def main(argv: list[str]) -> int:
    base = Path(tempfile.mkdtemp(prefix="fw-budgets-", dir="/tmp"))
    try:
        print(f"{'case':58} {'time':>7} {'fw MB':>6} {'rg MB':>6} {'sum MB':>7}  result")
        for name, root, toolset, tool, args, extra in cases(base):
            if argv and not any(word in name for word in argv):
                continue
            r = run(root, toolset, tool, args, **extra)
            result = "ok" if r["ok"] else f"refused ({r['error']})"
            print(
                f"{name:58} {r['seconds']:6.1f}s {r['filewright_mb']:6} {r['rg_mb']:6} "
                f"{r['together_mb']:7}  {result}, {r['length']} chars",
                flush=True,
            )
    finally:
        shutil.rmtree(base, ignore_errors=True)
    return 0


if __name__ == "__main__":
    os.chdir(Path(__file__).resolve().parents[2])
    sys.exit(main(sys.argv[1:]))
