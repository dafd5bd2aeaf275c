"""Pure formatting for the `mcpfs` toolset: the MCP filesystem server's output formats
(its git-style diff, sizes, JavaScript dates, listings, JSON tree). No I/O."""

from __future__ import annotations

import difflib
import json
import math
from datetime import datetime
from typing import Any

MEDIA_TYPES = {
    ".png": "image/png",
    ".jpg": "image/jpeg",
    ".jpeg": "image/jpeg",
    ".gif": "image/gif",
    ".webp": "image/webp",
    ".bmp": "image/bmp",
    ".svg": "image/svg+xml",
    ".mp3": "audio/mpeg",
    ".wav": "audio/wav",
    ".ogg": "audio/ogg",
    ".flac": "audio/flac",
}
_RULE = "=" * 67
_NO_NEWLINE = "\\ No newline at end of file"


def format_size(n: int) -> str:
    """1536 -> "1.50 KB", as the server's formatSize."""
    units = ["B", "KB", "MB", "GB", "TB"]
    if n <= 0:
        return "0 B"
    i = math.floor(math.log(n) / math.log(1024))
    if i <= 0:
        return f"{n} {units[0]}"
    unit = min(i, len(units) - 1)
    return f"{n / 1024**unit:.2f} {units[unit]}"


def js_date(seconds: float) -> str:
    """A time as JavaScript's Date.toString() writes it, in the local time zone:
    "Wed Nov 25 2026 14:39:51 GMT+0000 (Coordinated Universal Time)"."""
    local = datetime.fromtimestamp(seconds).astimezone()
    name = local.tzname() or ""
    if name in ("UTC", "GMT", "Etc/UTC") and not local.utcoffset():
        name = "Coordinated Universal Time"
    return local.strftime("%a %b %d %Y %H:%M:%S GMT%z") + f" ({name})"


def _lines(text: str) -> list[str]:
    return text.split("\n")[:-1] if text.endswith("\n") else text.split("\n")


def two_files_patch(old: str, new: str, name: str, context: int = 4) -> str:
    """The unified diff `createTwoFilesPatch(name, name, old, new, "original", "modified")`
    of the jsdiff library writes: an Index header, hunks with both counts always given,
    and the no-newline marker."""
    out = [f"Index: {name}", _RULE, f"--- {name}\toriginal", f"+++ {name}\tmodified"]
    a, b = _lines(old), _lines(new)
    a_open = bool(old) and not old.endswith("\n")
    b_open = bool(new) and not new.endswith("\n")
    matcher = difflib.SequenceMatcher(None, a, b, autojunk=False)
    for group in matcher.get_grouped_opcodes(context):
        i1, i2 = group[0][1], group[-1][2]
        j1, j2 = group[0][3], group[-1][4]
        old_len, new_len = i2 - i1, j2 - j1
        old_start = i1 + 1 if old_len else i1
        new_start = j1 + 1 if new_len else j1
        out.append(f"@@ -{old_start},{old_len} +{new_start},{new_len} @@")
        for tag, x1, x2, y1, y2 in group:
            if tag == "equal":
                for k in range(x1, x2):
                    out.append(f" {a[k]}")
                    if a_open and b_open and k == len(a) - 1:
                        out.append(_NO_NEWLINE)
                continue
            for k in range(x1, x2):
                out.append(f"-{a[k]}")
                if a_open and k == len(a) - 1:
                    out.append(_NO_NEWLINE)
            for k in range(y1, y2):
                out.append(f"+{b[k]}")
                if b_open and k == len(b) - 1:
                    out.append(_NO_NEWLINE)
    return "\n".join(out) + "\n"


def fenced_diff(diff: str) -> str:
    """The diff in a ```diff fence long enough not to be closed by the diff itself."""
    ticks = 3
    while "`" * ticks in diff:
        ticks += 1
    fence = "`" * ticks
    return f"{fence}diff\n{diff}{fence}\n\n"


def name_order(name: str) -> tuple[str, str]:
    """An approximation of `String.localeCompare` in an English locale: letters without
    regard to case first, lower case before upper case on a tie."""
    return (name.casefold(), name.swapcase())


def sized_listing(entries: list[dict[str, Any]], sort_by: str) -> str:
    """list_directory_with_sizes: one padded line per entry, then the totals."""
    if sort_by == "size":
        ordered = sorted(entries, key=lambda e: -e["size"])
    else:
        ordered = sorted(entries, key=lambda e: name_order(e["name"]))
    lines = []
    for e in ordered:
        tag = "[DIR]" if e["is_dir"] else "[FILE]"
        size = "" if e["is_dir"] else format_size(e["size"]).rjust(10)
        lines.append(f"{tag} {e['name'].ljust(30)} {size}")
    files = sum(1 for e in entries if not e["is_dir"])
    dirs = len(entries) - files
    total = sum(e["size"] for e in entries if not e["is_dir"])
    lines += [
        "",
        f"Total: {files} files, {dirs} directories",
        f"Combined size: {format_size(total)}",
    ]
    return "\n".join(lines)


def tree_json(nodes: list[Any]) -> str:
    """directory_tree: [{"name", "type", "children"?}] with 2-space indentation."""

    def convert(node: Any) -> dict[str, Any]:
        out: dict[str, Any] = {"name": node.name, "type": "directory" if node.is_dir else "file"}
        if node.is_dir:
            out["children"] = [convert(c) for c in node.children or []]
        return out

    return json.dumps([convert(n) for n in nodes], indent=2, ensure_ascii=False)


def file_info(info: dict[str, Any]) -> str:
    """get_file_info: `key: value` lines in the server's order and words."""
    times = info["timestamps"]
    rows = [
        ("size", info["size"]),
        ("created", js_date(times["created"])),
        ("modified", js_date(times["modified"])),
        ("accessed", js_date(times["accessed"])),
        ("isDirectory", "true" if info["type"] == "directory" else "false"),
        ("isFile", "true" if info["type"] == "file" else "false"),
        ("permissions", info["mode"][-3:]),
    ]
    return "\n".join(f"{k}: {v}" for k, v in rows)


_PLAIN_EOLS = frozenset(("\n", ""))


def with_eols(text: str, eols: tuple[str, ...]) -> str:
    """Decoded text ("\n" newlines) with each line's own ending again (CRLF stays CRLF)."""
    if len(eols) < text.count("\n") or _PLAIN_EOLS.issuperset(eols):
        return text
    pieces = text.split("\n")
    return "".join(
        piece + ((eols[i] or "\n") if i < len(pieces) - 1 else "") for i, piece in enumerate(pieces)
    )
