"""The `claude` toolset's words: limits, error codes, messages, suggestions and previews.

Everything here is formatting: it turns engine failures and edit results into the texts
and structures the claude seed shows (`claude-code-file-tools.md`). The seed is the
spec, so messages are English whatever the workspace locale.
"""

from __future__ import annotations

import difflib
import mimetypes
from typing import Any

from filewright.core.result import Result

# -- the seed's limits ------------------------------------------------------------------

MAX_READ_BYTES = 100 * 1024 * 1024  # Read: "File too large"
MAX_CONTENT_BYTES = 10 * 1024 * 1024  # Write: "Content too large"
MAX_EDIT_BYTES = 10 * 1024 * 1024  # Edit / MultiEdit: files above this are not edited
DEFAULT_LIMIT = 2000
MAX_LINE_LENGTH = 2000
BACKUP_DIR = ".claude-backups"
PREVIEW_CONTEXT_LINES = 3
PREVIEW_MAX_LINES = 10
MAX_LOCATIONS_SHOWN = 10

# -- the seed's error codes, from engine failure codes ----------------------------------

CODES: dict[str, str] = {
    "not_found": "FILE_NOT_FOUND",
    "hidden": "FILE_NOT_FOUND",
    "permission": "PERMISSION_DENIED",
    "denied": "PERMISSION_DENIED",
    "is_directory": "IS_DIRECTORY",
    "not_regular": "NOT_A_FILE",
    "binary": "BINARY_FILE",
    "undecodable": "BINARY_FILE",
    "unencodable": "ENCODING_ERROR",
    "too_large": "FILE_TOO_LARGE",
    "outside": "ACCESS_DENIED",
    "protected": "PROTECTED_FILE",
    "no_match": "STRING_NOT_FOUND",
    "ambiguous": "MULTIPLE_MATCHES",
    "no_change": "NO_CHANGE",
    "empty_old": "INVALID_PARAMS",
    "placeholder": "INVALID_PARAMS",
    "not_read": "READ_REQUIRED",
    "stale": "EXTERNAL_MODIFICATION",
    "busy": "CONCURRENT_OPERATION",
    "line_out_of_range": "OFFSET_OUT_OF_RANGE",
    "invalid": "INVALID_PATH",
    "symlink_loop": "INVALID_PATH",
    "changed": "CONCURRENT_OPERATION",
    "parent_missing": "FILE_NOT_FOUND",
    "rejected": "REJECTED",
    "no_confirmation": "CONFIRMATION_REQUIRED",
    "bad_arguments": "INVALID_PARAMS",
    "io_error": "IO_ERROR",
    "encrypted": "UNSUPPORTED_FILE",
    "corrupt": "CORRUPT_FILE",
    "invalid_notebook": "INVALID_NOTEBOOK",
    "page_out_of_range": "OFFSET_OUT_OF_RANGE",
}

# Message templates by engine failure code; {path} is the path the model gave.
TEMPLATES: dict[str, str] = {
    "line_out_of_range": (
        "The file is shorter than the provided offset ({line}). The file has {lines} lines: {path}"
    ),
    "not_found": "File not found: {path}",
    "hidden": "File not found: {path}",
    "parent_missing": "File not found: {path}",
    "permission": "Permission denied: {path}",
    "denied": "Permission denied: {path}",
    "is_directory": "Path is a directory, not a file",
    "not_regular": "Not a regular file: {path}",
    "outside": "Access denied: file is outside allowed directories",
    "protected": "Cannot modify protected file: {path}",
    "not_read": "You must read the file before writing to it. Use the Read tool first: {path}",
    "stale": "File {path} was modified externally. Re-read the file before making changes.",
    "busy": "Concurrent write operation detected on {path}. Wait for other operations to complete.",
    "changed": "Concurrent write operation detected on {path}. Wait for other operations to complete.",
    "no_change": "new_string must be different from old_string",
    "empty_old": "old_string cannot be empty",
    "placeholder": (
        "Content contains an omission placeholder ({placeholder}) that would replace existing"
        " code. Provide the complete text instead: {path}"
    ),
    "no_match": "The string to replace was not found in {path}",
    "unencodable": "Cannot write {path}: {message}",
    "undecodable": "File appears to be binary ({mime}). Use appropriate tool for this file type.",
    "binary": "File appears to be binary ({mime}). Use appropriate tool for this file type.",
    "invalid": "Invalid path: {message}",
    "symlink_loop": "Invalid path: {path} contains a symlink loop",
    "rejected": "The user rejected this change to {path}",
    "no_confirmation": "This change to {path} needs the user's confirmation, and nobody can be asked",
    "io_error": "Cannot access {path}: {message}",
    "encrypted": "Cannot read {path}: {message}",
    "corrupt": "Cannot read {path}: {message}",
    "invalid_notebook": "Cannot read {path}: {message}",
}

STALE_SUGGESTION = "Re-read the file before making changes"
MULTIPLE_MATCH_SUGGESTIONS = (
    "Provide more surrounding context in old_string to make it unique",
    "Use replace_all: true to replace all occurrences",
    "Specify the exact line number range using Read tool with offset/limit",
)
WHITESPACE_SUGGESTION = (
    "The string exists but with different whitespace. Check spaces, tabs, and line endings."
)
CASE_SUGGESTION = "The string exists but with different case. Check capitalization."
SIMILARITY_THRESHOLD = 0.5
SEED_SIMILARITY = 0.8


def failure(code: str, message: str, engine_code: str | None = None, **data: Any) -> Result:
    """A failed result: `text` is the message, `data` carries the seed's error object."""
    payload: dict[str, Any] = {"code": code, "message": message}
    if engine_code:
        payload["error"] = engine_code
    payload.update({k: v for k, v in data.items() if v is not None})
    return Result(False, message, payload)


def size_message(kind: str, size: int | None, limit: int) -> str:
    """`File too large: N bytes (max: M bytes)` / `Content too large: ...`."""
    shown = "?" if size is None else str(size)
    return f"{kind} too large: {shown} bytes (max: {limit} bytes)"


def render(template: str, **params: Any) -> str:
    """Format a template; missing placeholders show as '?'."""

    class _Missing(dict[str, Any]):
        def __missing__(self, key: str) -> str:
            return "?"

    return template.format_map(_Missing(params))


# -- Read ---------------------------------------------------------------------------------


def mime_type(name: str, fallback: str = "text/plain") -> str:
    """The MIME type for a file name (Python's built-in table, not the system's, so the
    answer is the same everywhere); text files of unknown type are text/plain."""
    guessed, _ = _MIMES.guess_type(name, strict=False)
    if guessed is None:
        return fallback
    textual = (
        guessed.startswith("text/") or guessed.endswith(("+json", "+xml")) or guessed in _TEXTUAL
    )
    return guessed if textual or fallback != "text/plain" else fallback


_MIMES = mimetypes.MimeTypes()
for _type, _ext in (
    ("text/typescript", ".ts"),
    ("text/typescript", ".tsx"),
    ("text/markdown", ".md"),
    ("text/x-java", ".java"),
    ("application/x-ipynb+json", ".ipynb"),
    ("application/toml", ".toml"),
    ("application/yaml", ".yaml"),
    ("application/yaml", ".yml"),
):
    _MIMES.add_type(_type, _ext, strict=False)
_TEXTUAL = frozenset(
    {
        "application/json",
        "application/xml",
        "application/javascript",
        "application/x-sh",
        "application/x-python-code",
        "application/toml",
        "application/yaml",
        "application/x-yaml",
        "application/sql",
        "application/x-ipynb+json",
    }
)


# -- Edit: suggestions, locations and the preview ------------------------------------------


def _normalise_ws(text: str) -> str:
    return " ".join(text.split())


def not_found_suggestions(old: str, content: str, closest: list[dict[str, Any]]) -> list[str]:
    """The seed's suggestions for a string that was not found, in its order: whitespace,
    similar strings (the engine's closest regions, with line numbers and the file's
    actual text), partial presence, case."""
    out: list[str] = []
    norm_old = _normalise_ws(old)
    differs = [label for region in closest for label in region.get("differs", [])]
    if (norm_old and norm_old in _normalise_ws(content)) or any(
        label in ("whitespace", "indentation") for label in differs
    ):
        out.append(WHITESPACE_SUGGESTION)
    similar = similar_regions(closest)
    if similar:
        out.append("Similar strings found:\n" + "\n".join(_region(r) for r in similar))
    words = list(dict.fromkeys(old.split()))
    found = [w for w in words if w in content]
    if found and len(found) < len(words):
        shown = ", ".join(found[:20]) + (", ..." if len(found) > 20 else "")
        out.append(f"Some parts of the string exist in the file. Found: {shown}")
    if old.lower() in content.lower() or any(r.get("differs") == ["case"] for r in closest):
        out.append(CASE_SUGGESTION)
    return out


def similar_regions(closest: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The engine's closest regions worth showing: the best one when it is at least
    half similar, and others as similar as the seed asks (0.8) or nearly as the best."""
    if not closest or closest[0].get("similarity", 0) < SIMILARITY_THRESHOLD:
        return []
    best = closest[0]["similarity"]
    keep = [closest[0]]
    keep += [r for r in closest[1:] if r.get("similarity", 0) >= min(SEED_SIMILARITY, best - 0.05)]
    return keep[:3]


def _region(region: dict[str, Any]) -> str:
    first, last = region["start_line"], region["end_line"]
    where = f"line {first}" if first == last else f"lines {first}-{last}"
    differs = "; ".join(region.get("differs", []))
    head = f"  {where}" + (f" (differs: {differs})" if differs else "") + ":"
    lines = region.get("text", "").split("\n")
    width = len(str(first + len(lines) - 1))
    body = "\n".join(f"    {first + i:>{width}}\t{line}" for i, line in enumerate(lines))
    return f"{head}\n{body}"


def with_suggestions(message: str, suggestions: list[str]) -> str:
    """The message followed by a bulleted list of suggestions."""
    if not suggestions:
        return message
    return message + "\nSuggestions:\n" + "\n".join(f"- {s}" for s in suggestions)


def multiple_matches_text(count: int, locations: list[dict[str, Any]]) -> str:
    """`Found N occurrences ...` with every location and the seed's three suggestions."""
    head = (
        f"Found {count} occurrences of the string. Either provide more context to make it "
        "unique, or use replace_all: true"
    )
    shown = locations[:MAX_LOCATIONS_SHOWN]
    parts = [head, "Locations:"]
    for loc in shown:
        parts.append(f"- line {loc['line']}, column {loc['column']}:")
        parts.extend(f"    {ctx}" for ctx in str(loc.get("context", "")).split("\n"))
    if len(locations) > len(shown):
        parts.append(f"- ... and {len(locations) - len(shown)} more")
    return with_suggestions("\n".join(parts), list(MULTIPLE_MATCH_SUGGESTIONS))


def _lines(text: str) -> list[str]:
    lines = text.split("\n")
    if len(lines) > 1 and lines[-1] == "":
        lines.pop()  # the "line" after the final newline
    return lines


def preview(old: str, new: str) -> dict[str, str]:
    """The seed's before/after preview of the first change: context lines prefixed with
    two spaces, removed lines with `- `, added lines with `+ `; at most 10 lines each."""
    a, b = _lines(old), _lines(new)
    matcher = difflib.SequenceMatcher(None, a, b, autojunk=False)
    groups = list(matcher.get_grouped_opcodes(PREVIEW_CONTEXT_LINES))
    if not groups:
        return {"before": "", "after": ""}
    before: list[str] = []
    after: list[str] = []
    for tag, i1, i2, j1, j2 in groups[0]:
        if tag == "equal":
            before.extend(f"  {line}" for line in a[i1:i2])
            after.extend(f"  {line}" for line in b[j1:j2])
            continue
        before.extend(f"- {line}" for line in a[i1:i2])
        after.extend(f"+ {line}" for line in b[j1:j2])
    return {
        "before": "\n".join(before[:PREVIEW_MAX_LINES]),
        "after": "\n".join(after[:PREVIEW_MAX_LINES]),
    }


_STRATEGY_WORDS: dict[str, str] = {
    "line_endings": "ignoring line-ending differences",
    "trailing_whitespace": "ignoring trailing whitespace",
    "indentation": "ignoring a uniform indentation difference",
    "blank_lines": "ignoring blank lines inside the block",
    "inner_spaces": "ignoring runs of spaces inside lines",
    "typography": "ignoring typographic quotes, dashes and spaces",
    "unescape": "after unescaping \\n, \\t and quotes",
    "line_numbers": "after removing copied line-number prefixes",
    "trim_blank_lines": "after trimming blank lines around it",
}


def strategy_note(strategies: list[str]) -> str:
    """A line telling the model that an old_string did not match byte for byte."""
    fuzzy = [s for s in dict.fromkeys(strategies) if s not in ("exact", "batch")]
    if not fuzzy:
        return ""
    how = "; ".join(_STRATEGY_WORDS.get(s, s.replace("_", " ")) for s in fuzzy)
    return (
        f"\nNote: old_string did not match the file exactly; it was matched {how}, "
        "and new_string was adapted to the file."
    )
