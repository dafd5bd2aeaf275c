"""The claude seed's own algorithms, reproduced so its texts and metadata come out exact.

Each function here is a pure re-statement of one routine of `claude-code-file-tools.md`
(named in its docstring), including its quirks: they define what the model sees. What
filewright knows beyond them (the closest real text, cut-line notices, true totals) is
computed elsewhere and goes into `data`.
"""

from __future__ import annotations

import base64
import binascii
import difflib
import json
import re
from collections import deque
from collections.abc import Iterable
from typing import Any

from filewright.read.textformat import numbered

# -- ReadTool.formatWithLineNumbers ------------------------------------------------------


def format_with_line_numbers(lines: list[str], start_line: int) -> str:
    """`ReadTool.formatWithLineNumbers`: `(empty file)` for no lines, else each line as
    its number padded to the widest number shown, a tab, the line."""
    if not lines:
        return "(empty file)"
    return numbered(lines, start_line, len(str(start_line + len(lines) - 1)))


def seed_total_lines(start: int, shown: int, total: int, truncated: bool) -> int:
    """`totalLines` as `ReadTool.readFileContent` counts it: it stops counting at the
    first line past the limit, so a truncated read reports the lines up to that one."""
    return start + shown if truncated else total


# -- ReadTool.detectMimeType ----------------------------------------------------------------

MIME_MAP: dict[str, str] = {
    ".txt": "text/plain",
    ".js": "text/javascript",
    ".ts": "text/typescript",
    ".json": "application/json",
    ".html": "text/html",
    ".css": "text/css",
    ".md": "text/markdown",
    ".java": "text/x-java",
    ".py": "text/x-python",
}
# The seed's map ends with "// ... 更多类型" (more types): the kinds its Read handles
# itself (images, PDFs, notebooks) are the ones it evidently means.
MORE_TYPES: dict[str, str] = {
    ".png": "image/png",
    ".jpg": "image/jpeg",
    ".jpeg": "image/jpeg",
    ".gif": "image/gif",
    ".bmp": "image/bmp",
    ".webp": "image/webp",
    ".pdf": "application/pdf",
    ".ipynb": "application/x-ipynb+json",
}
UNKNOWN_MIME = "application/octet-stream"


def extname(path: str) -> str:
    """Node's `path.extname(p).toLowerCase()`: from the last dot of the base name, unless
    the name starts with its only dot (`.env` has no extension)."""
    base = path.rstrip("/").rsplit("/", 1)[-1]
    dot = base.rfind(".")
    return base[dot:].lower() if dot > 0 else ""


def mime_type(path: str) -> str:
    """`ReadTool.detectMimeType`: the seed's map by extension, else octet-stream."""
    ext = extname(path)
    return MIME_MAP.get(ext) or MORE_TYPES.get(ext) or UNKNOWN_MIME


# -- ReadTool.formatNotebook -----------------------------------------------------------------


def _js_truthy(value: Any) -> bool:
    """JavaScript truthiness of a JSON value (an empty list or object is truthy)."""
    if isinstance(value, bool):
        return value
    if value is None:
        return False
    if isinstance(value, int | float):
        return value != 0
    if isinstance(value, str):
        return value != ""
    return True


def _js_join(value: Any) -> str:
    if isinstance(value, list):
        return "".join("" if v is None else _js_string(v) for v in value)
    return _js_string(value)


def _js_string(value: Any) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "null"
    if isinstance(value, dict):
        return "[object Object]"
    if isinstance(value, list):
        return ",".join("" if v is None else _js_string(v) for v in value)
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def format_notebook(notebook: Any) -> str:
    """`ReadTool.formatNotebook`: a header with the kernel's display name, then each
    cell's type, a rule of 60 `─`, its source and the text of its outputs."""
    metadata = notebook.get("metadata") if isinstance(notebook, dict) else None
    kernelspec = metadata.get("kernelspec") if isinstance(metadata, dict) else None
    name = kernelspec.get("display_name") if isinstance(kernelspec, dict) else None
    out = f"Jupyter Notebook ({_js_string(name) if _js_truthy(name) else 'Unknown kernel'})\n\n"
    cells = notebook.get("cells") if isinstance(notebook, dict) else None
    if not isinstance(cells, list):
        raise ValueError("Cannot read properties of undefined (reading 'forEach')")
    for index, cell in enumerate(cells):
        cell = cell if isinstance(cell, dict) else {}
        out += f"[Cell {index + 1}] Type: {_js_string(cell.get('cell_type'))}\n"
        out += "─" * 60 + "\n"
        source = cell.get("source")
        if _js_truthy(source):
            out += _js_join(source) + "\n"
        outputs = cell.get("outputs")
        if _js_truthy(outputs) and isinstance(outputs, list) and outputs:
            out += "\nOutput:\n"
            for item in outputs:
                text = item.get("text") if isinstance(item, dict) else None
                if _js_truthy(text):
                    out += _js_join(text) + "\n"
        out += "\n"
    return out


def parse_notebook(raw: bytes) -> Any:
    """`JSON.parse` of a notebook file read as UTF-8 (invalid bytes become U+FFFD)."""
    return json.loads(raw.decode("utf-8", "replace"))


# -- WriteTool: Buffer encodings ---------------------------------------------------------------

# `Buffer.isEncoding` accepts these names, in any case.
NODE_ENCODINGS = frozenset(
    {
        "utf8",
        "utf-8",
        "utf16le",
        "utf-16le",
        "ucs2",
        "ucs-2",
        "latin1",
        "binary",
        "ascii",
        "base64",
        "base64url",
        "hex",
    }
)


def is_node_encoding(name: str) -> bool:
    """`Buffer.isEncoding(name)`."""
    return name.lower() in NODE_ENCODINGS


def _utf16_units(text: str) -> list[int]:
    raw = text.encode("utf-16-le", "surrogatepass")
    return [raw[i] | raw[i + 1] << 8 for i in range(0, len(raw), 2)]


_LONE_SURROGATE = re.compile("[\ud800-\udfff]")
_HEX_PAIR = re.compile(r"[0-9a-fA-F]{2}")
_BASE64_CHARS = re.compile(r"[^A-Za-z0-9+/\-_]")


def node_bytes(text: str, encoding: str) -> bytes:
    """`Buffer.from(text, encoding)`: the bytes Node writes for `text` in `encoding`.

    utf8: lone surrogates become U+FFFD. utf16le/ucs2: UTF-16LE code units, no BOM.
    latin1/binary/ascii: the low byte of each UTF-16 code unit. hex: pairs of hex digits
    up to the first pair that is not one. base64/base64url: either alphabet, other
    characters skipped, decoding stops at `=`, a dangling character dropped.
    """
    name = encoding.lower()
    if name in ("utf8", "utf-8"):
        return _LONE_SURROGATE.sub("\ufffd", text).encode("utf-8")
    if name in ("utf16le", "utf-16le", "ucs2", "ucs-2"):
        return text.encode("utf-16-le", "surrogatepass")
    if name in ("latin1", "binary", "ascii"):
        return bytes(unit & 0xFF for unit in _utf16_units(text))
    if name == "hex":
        out = bytearray()
        for i in range(0, len(text) - 1, 2):
            pair = text[i : i + 2]
            if not _HEX_PAIR.fullmatch(pair):
                break
            out.append(int(pair, 16))
        return bytes(out)
    if name in ("base64", "base64url"):
        body = _BASE64_CHARS.sub("", text.split("=", 1)[0]).replace("-", "+").replace("_", "/")
        body = body[: len(body) - (len(body) % 4 == 1)]
        try:
            return base64.b64decode(body + "=" * (-len(body) % 4))
        except binascii.Error:  # pragma: no cover - the body is clean by construction
            return b""
    raise LookupError(encoding)


def lines_written(content: str) -> int:
    """`content.split('\\n').length`."""
    return content.count("\n") + 1


# -- WriteTool.securityCheck ------------------------------------------------------------------

DANGEROUS_EXTENSIONS = (".exe", ".dll", ".so", ".dylib", ".sh")


def dangerous_warning(path: str) -> str | None:
    """The warning `WriteTool.securityCheck` gives for a potentially dangerous file type."""
    ext = extname(path)
    if ext in DANGEROUS_EXTENSIONS:
        return f"Warning: Writing potentially dangerous file type: {ext}"
    return None


# -- EditTool: locations, suggestions, preview --------------------------------------------------


def count_occurrences(content: str, search: str) -> int:
    """`EditTool.countOccurrences`: non-overlapping occurrences."""
    return content.count(search) if search else 0


def find_all_locations(content: str, search: str) -> list[dict[str, Any]]:
    """`EditTool.findAllLocations`: every occurrence inside one line (a string spanning
    lines is found nowhere), 1-based line and column, two lines of context either side;
    overlapping occurrences included (the edit refuses them, so it shows them)."""
    return find_all_locations_in(content.split("\n"), search)


def find_all_locations_in(lines: Iterable[str], search: str) -> list[dict[str, Any]]:
    """`find_all_locations` over the content's lines given one by one (a large file read
    lazily: two lines before a match are kept, two after are awaited)."""
    out: list[dict[str, Any]] = []
    if not search:
        return out
    before: deque[str] = deque(maxlen=2)
    waiting: list[tuple[dict[str, Any], list[str]]] = []
    for index, line in enumerate(lines):
        for entry, context in waiting:
            context.append(line)
            if len(context) == entry["_size"]:
                entry["context"] = "\n".join(context)
        waiting = [(e, c) for e, c in waiting if "context" not in e]
        column = line.find(search)
        while column != -1:
            entry = {"line": index + 1, "column": column + 1, "_size": len(before) + 3}
            out.append(entry)
            waiting.append((entry, [*before, line]))
            column = line.find(search, column + 1)  # overlapping ones too (docs/deviations.md)
        before.append(line)
    for entry, context in waiting:
        entry["context"] = "\n".join(context)
    for entry in out:
        del entry["_size"]
    return out


def _normalize_whitespace(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


def _levenshtein_within(a: str, b: str, limit: int) -> int | None:
    """Levenshtein distance of a and b when it is at most `limit`, else None (a banded
    computation: only cells within `limit` of the diagonal can stay under it)."""
    if abs(len(a) - len(b)) > limit:
        return None
    if len(a) < len(b):
        a, b = b, a
    previous = list(range(len(b) + 1))
    for i in range(1, len(a) + 1):
        low, high = max(1, i - limit), min(len(b), i + limit)
        current = [i] + [limit + 1] * len(b)
        if low > 1:
            current[low - 1] = limit + 1
        best = current[0] if low == 1 else limit + 1
        ch = a[i - 1]
        for j in range(low, high + 1):
            cost = 0 if b[j - 1] == ch else 1
            value = min(previous[j - 1] + cost, previous[j] + 1, current[j - 1] + 1)
            current[j] = value
            best = min(best, value)
        if best > limit:
            return None
        previous = current
    return previous[len(b)] if previous[len(b)] <= limit else None


def similarity(a: str, b: str, threshold: float) -> float | None:
    """`EditTool.calculateSimilarity` ((longer - distance) / longer) when it reaches
    `threshold`, else None."""
    longer = max(len(a), len(b))
    if longer == 0:
        return 1.0
    limit = int(longer - threshold * longer + 1e-9)
    distance = _levenshtein_within(a, b, limit)
    if distance is None:
        return None
    value = (longer - distance) / longer
    return value if value >= threshold else None


def find_similar_strings(target: str, content: str, threshold: float = 0.8) -> list[str]:
    """`EditTool.findSimilarStrings`: the trimmed lines at least `threshold` similar to
    the whole search string."""
    return [
        line.strip()
        for line in content.split("\n")
        if similarity(target, line, threshold) is not None
    ]


def generate_suggestions(search: str, content: str) -> list[str]:
    """`EditTool.generateSuggestions`, in its order: whitespace, similar strings, parts
    found, case."""
    return generate_suggestions_in(search, content.split("\n"))


_PIECE_CHARS = 1 << 16


def generate_suggestions_in(search: str, lines: Iterable[str]) -> list[str]:
    """`generate_suggestions` over the content's lines given one by one, in one pass (a
    large file read lazily): the whole-content searches run on pieces of lines with the
    end of the previous piece kept, so that what spans two pieces is found."""
    spaced = _normalize_whitespace(search)
    lower = search.lower()
    words = re.split(r"\s+", search)
    missing = {w for w in words if w}
    similar: list[str] = []
    found = {"spaced": False, "lower": False}
    tails = {"spaced": "", "lower": ""}
    piece: list[str] = []

    def scan(text: str) -> None:
        if not found["spaced"]:
            window = re.sub(r"\s+", " ", tails["spaced"] + text)
            found["spaced"] = spaced in window
            tails["spaced"] = window[-len(spaced) :] if spaced else ""
        if not found["lower"]:
            window = tails["lower"] + text.lower()
            found["lower"] = lower in window
            tails["lower"] = window[max(0, len(window) - len(lower) + 1) :]

    size = 0
    for index, line in enumerate(lines):
        if len(similar) < 3 and similarity(search, line, 0.8) is not None:
            similar.append(line.strip())
        if missing:
            missing = {w for w in missing if w not in line}
        piece.append(("\n" if index else "") + line)
        size += len(line) + 1
        if size >= _PIECE_CHARS:
            scan("".join(piece))
            piece, size = [], 0
    scan("".join(piece))
    out: list[str] = []
    if found["spaced"]:
        out.append(
            "The string exists but with different whitespace. Check spaces, tabs, and line endings."
        )
    if similar:
        out.append("Similar strings found: " + ", ".join(f'"{s}"' for s in similar[:3]))
    present = [word for word in words if word not in missing]
    if present and len(present) < len(words):
        out.append(f"Some parts of the string exist in the file. Found: {', '.join(present)}")
    if found["lower"]:
        out.append("The string exists but with different case. Check capitalization.")
    return out


_LINE_TOKEN = re.compile(r"[^\n]*\n|[^\n]+\Z")


def _line_tokens(text: str) -> list[str]:
    """jsdiff's line tokens: each line with its line break."""
    return _LINE_TOKEN.findall(text)


def generate_preview(old: str, new: str, context_lines: int = 3) -> dict[str, str]:
    """`EditTool.generatePreview`: over the line diff of old and new, removed lines as
    `- `, added as `+ `, the last `context_lines` of every unchanged run as context on
    both sides (empty lines left out), then the last 10 lines of each side."""
    a, b = _line_tokens(old), _line_tokens(new)
    before: list[str] = []
    after: list[str] = []

    def lines_of(tokens: list[str]) -> list[str]:
        return [line for line in "".join(tokens).split("\n") if line != ""]

    matcher = difflib.SequenceMatcher(None, a, b, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            context = lines_of(a[i1:i2])[-context_lines:]
            before.extend(f"  {line}" for line in context)
            after.extend(f"  {line}" for line in context)
            continue
        before.extend(f"- {line}" for line in lines_of(a[i1:i2]))
        after.extend(f"+ {line}" for line in lines_of(b[j1:j2]))
    return {"before": "\n".join(before[-10:]), "after": "\n".join(after[-10:])}
