"""The `claude` toolset's words: limits, error codes and messages, as the seed's handlers
give them.

The seed (`claude-code-file-tools.md`) reports a failure as `{code, message}`. Errors its
tools *throw* get the code of the tool's `handleError`: Read and Write turn them into
`UNKNOWN_ERROR` (their message kept) except for Node's ENOENT/EACCES/EISDIR/ENOSPC
codes; Edit turns every thrown error into `EDIT_ERROR`. Edit also reads the file
through Read (so Read's failures come back as `EDIT_ERROR` with Read's message) and
writes it through Write (whose failures it passes on). Messages are English whatever
the workspace locale (the seed is the spec).
"""

from __future__ import annotations

import json
from typing import Any

from filewright.core.result import Result

# -- the seed's limits ------------------------------------------------------------------

MAX_READ_BYTES = 100 * 1024 * 1024  # Read: "File too large"
MAX_CONTENT_BYTES = 10 * 1024 * 1024  # Write: "Content too large"
MAX_EDIT_BYTES = 10 * 1024 * 1024  # Edit / MultiEdit: files above this are not edited
# Files above the workspace's stream limit (10 MB, the seed's ChunkedEditor size) are
# edited streamed, with the seed's Edit's verdicts: exact matches only, and more than one
# refused (MULTIPLE_MATCHES) unless replace_all, as on a small file.
STREAMED_NOTE = (
    "\nThe file is larger than {limit} bytes, so it was edited in streaming mode "
    "(chunked editor): exact matches only; old_string must occur once unless replace_all."
)
STREAMED_EXACT_NOTE = (
    "\nThe file is larger than {limit} bytes, so it is edited in streaming mode "
    "(chunked editor): old_string must match the file exactly."
)
DEFAULT_LIMIT = 2000
MAX_LINE_LENGTH = 2000
BACKUP_DIR = ".claude-backups"

UNKNOWN = "UNKNOWN_ERROR"
EDIT_ERROR = "EDIT_ERROR"

# The code a tool's handleError gives a thrown error without a Node error code.
THROWN_CODE = {"Read": UNKNOWN, "Write": UNKNOWN, "Edit": EDIT_ERROR, "MultiEdit": EDIT_ERROR}

MUST_READ = "You must read the file before writing to it. Use the Read tool first: {path}"
OUTSIDE = "Access denied: file is outside allowed directories"
SYMLINK_OUTSIDE = "Symbolic link points outside allowed directories"
DENIED_DIRECTORY = "Path is in a denied directory"
DENIED_EXTENSION = "File extension {ext} is not allowed"
TRAVERSAL = "Path traversal detected"
SPECIAL_FILE = "Cannot operate on special files"
IS_DIRECTORY = "Path is a directory, not a file"
BINARY = "File appears to be binary ({mime}). Use appropriate tool for this file type."
CONCURRENT = "Concurrent {operation} operation detected on {path}"
CONCURRENT_SUGGESTION = "Wait for other operations to complete"
EXTERNAL = "File {path} was modified externally"
EXTERNAL_SUGGESTION = "Re-read the file before making changes"
NOT_FOUND_IN = "The string to replace was not found in {path}"
NO_CHANGE = "new_string must be different from old_string"
MULTIPLE = (
    "Found {count} occurrences of the string. Either provide more context to make it "
    "unique, or use replace_all: true"
)
MULTIPLE_MATCH_SUGGESTIONS = (
    "Provide more surrounding context in old_string to make it unique",
    "Use replace_all: true to replace all occurrences",
    "Specify the exact line number range using Read tool with offset/limit",
)

# Engine failure code -> (seed code or None for "thrown", message template). {path} is the
# path the model gave.
READ_FAILURES: dict[str, tuple[str | None, str]] = {
    "not_found": (None, "File not found: {path}"),
    "hidden": (None, "File not found: {path}"),
    "parent_missing": (None, "File not found: {path}"),
    "permission": (None, "Permission denied: {path}"),
    "outside": (None, OUTSIDE),
    "denied": (None, DENIED_DIRECTORY),
    "is_directory": ("IS_DIRECTORY", IS_DIRECTORY),
    "not_directory": (None, "File not found: {path}"),
    "not_regular": (None, SPECIAL_FILE),
    "binary": ("BINARY_FILE", BINARY),
    "undecodable": ("BINARY_FILE", BINARY),
    "symlink_loop": (None, "ELOOP: too many symbolic links encountered, stat '{path}'"),
    "changed": (None, "File not found: {path}"),
    "invalid": (None, "{message}"),
    "io_error": (None, "{message}"),
    "encrypted": (None, "{message}"),
    "corrupt": (None, "{message}"),
    "invalid_notebook": (None, "{message}"),
    "page_out_of_range": (None, "{message}"),
}
WRITE_FAILURES: dict[str, tuple[str | None, str]] = {
    **READ_FAILURES,
    "permission": ("PERMISSION_DENIED", "Permission denied"),
    "is_directory": ("IS_DIRECTORY", IS_DIRECTORY),
    "protected": (None, "Cannot modify protected file: {path}"),
    "not_read": (None, MUST_READ),
    "stale": (None, MUST_READ),
    "busy": ("CONCURRENT_OPERATION", CONCURRENT),
    "changed": ("CONCURRENT_OPERATION", CONCURRENT),
    "unencodable": (None, "{message}"),
    # Not in the seed (a filewright refusal, docs/editing.md): a thrown error of the tool.
    "placeholder": (
        None,
        "Content contains an omission placeholder ({placeholder}) that would replace existing"
        " code. Provide the complete text instead: {path}",
    ),
    "rejected": ("REJECTED", "The user rejected this change to {path}"),
    "no_confirmation": (
        "CONFIRMATION_REQUIRED",
        "This change to {path} needs the user's confirmation, and nobody can be asked",
    ),
}
NODE_ERRORS = {"ENOSPC": ("NO_SPACE", "No space left on device")}


def failure(
    code: str, message: str, engine_code: str | None = None, *, text: str | None = None, **data: Any
) -> Result:
    """A failed result: `data` carries the seed's error object (`code`, `message`, and
    any of `details`, `suggestions`) and filewright's `error`; `text` is the message (or
    `text`, the message with its suggestions)."""
    payload: dict[str, Any] = {"code": code, "message": message}
    if engine_code:
        payload["error"] = engine_code
    payload.update({k: v for k, v in data.items() if v is not None})
    return Result(False, message if text is None else text, payload)


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


def with_suggestions(message: str, suggestions: list[str]) -> str:
    """The message followed by the error's suggestions, one per line."""
    if not suggestions:
        return message
    return message + "\nSuggestions:\n" + "\n".join(f"- {s}" for s in suggestions)


def locations_text(locations: list[dict[str, Any]], *, number: bool = True) -> str:
    """The seed's `details.locations` (line, column, context) as lines for the model; with
    `number`, each context line gets its line number (the seed's context is the matched
    line with two lines either side)."""
    out = ["Locations:"]
    for where in locations:
        line = int(where["line"])
        column = f", column {where['column']}" if where.get("column") else ""
        out.append(f"- line {line}{column}:")
        context = str(where.get("context", "")).split("\n")
        first = max(1, line - 2)
        out += [
            f"    {first + i}: {text}" if number else f"    {text}"
            for i, text in enumerate(context)
        ]
    return "\n".join(out)


def closest_text(closest: list[dict[str, Any]], limit: int = 1) -> str:
    """filewright's closest real text (from `edit.suggest.closest`) with its line numbers,
    `cat -n` style as Read shows lines, so the next old_string can be copied from it."""
    out: list[str] = []
    for region in [c for c in closest if c.get("similarity", 0) >= 0.5][:limit]:
        first, last = int(region["start_line"]), int(region["end_line"])
        where = f"line {first}" if first == last else f"lines {first}-{last}"
        differs = "; ".join(map(str, region.get("differs") or []))
        out.append(
            f"The most similar text in the file is at {where}"
            + (f" (differs: {differs})" if differs else "")
            + ":"
        )
        lines = str(region.get("text", "")).split("\n")
        width = len(str(first + len(lines) - 1))
        out += [f"{first + i:>{width}}\t{line}" for i, line in enumerate(lines)]
    return "\n".join(out)


def metadata_text(metadata: dict[str, Any]) -> str:
    """The seed's `metadata` object as one line, in its own names and order."""
    return "metadata: " + json.dumps(metadata, ensure_ascii=False)


def joined(*parts: str) -> str:
    """Non-empty parts, one after the other on their own lines."""
    return "\n".join(p for p in parts if p)


def seed_operation(operation: str) -> str:
    """An engine operation as one of the seed's operation names (read, write, edit)."""
    if operation in ("edit", "insert", "replace", "replace_span"):
        return "edit"
    return "read" if operation == "read" else "write"
