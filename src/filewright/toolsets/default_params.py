"""Parameter models of the `default` toolset (pydantic; imported only when needed)."""

from __future__ import annotations

from pydantic import Field

from filewright.tools.params import Params

PATH = "File path, relative to the workspace root or absolute inside it."
HASH = "Refuse the change unless the file still has this hash (from read)."
DRY_RUN = "Only show what would change (the diff); write nothing."


class ReadParams(Params):
    path: str = Field(
        description="File path, relative to the workspace root or absolute inside it."
    )
    offset: int | None = Field(
        None,
        description="1-based line to start reading at; negative counts from the end "
        "(-20: the last 20 lines).",
    )
    limit: int | None = Field(
        None, ge=1, description="Maximum number of lines to read (default 2000)."
    )
    tail: int | None = Field(
        None, ge=1, description="Read only the last N lines (streamed from the end)."
    )


class WriteParams(Params):
    path: str = Field(
        description="File path, relative to the workspace root or absolute inside it."
    )
    content: str = Field(description="The complete new content of the file.")
    expected_hash: str | None = Field(
        None, description="Refuse the write unless the file still has this hash (from read)."
    )
    dry_run: bool = Field(False, description=DRY_RUN)


class EditParams(Params):
    path: str = Field(
        description="File path, relative to the workspace root or absolute inside it."
    )
    old_string: str = Field(
        description="The text to replace; must identify one place unless replace_all."
    )
    new_string: str = Field(description="The replacement text.")
    replace_all: bool = Field(False, description="Replace every occurrence instead of exactly one.")
    expected_hash: str | None = Field(
        None, description="Refuse the edit unless the file still has this hash (from read)."
    )
    dry_run: bool = Field(False, description=DRY_RUN)


class AppendParams(Params):
    path: str = Field(
        description="File path, relative to the workspace root or absolute inside it."
    )
    content: str = Field(description="Text to add at the end of the file (created if missing).")
    dry_run: bool = Field(False, description=DRY_RUN)


class EditOp(Params):
    old_string: str = Field(description="The text to replace (as for edit).")
    new_string: str = Field(description="The replacement text.")
    replace_all: bool = Field(False, description="Replace every occurrence.")


class MultiEditParams(Params):
    path: str = Field(description=PATH)
    edits: list[EditOp] = Field(
        min_length=1,
        description="Edits applied in order, each to the result of the one before; all or nothing.",
    )
    expected_hash: str | None = Field(None, description=HASH)
    dry_run: bool = Field(False, description=DRY_RUN)


class ReplaceSpanParams(Params):
    path: str = Field(description=PATH)
    start: str = Field(
        description="Text (or, with start_is_regex, a regular expression) where the span starts."
    )
    end: str = Field(description="Text where the span ends (searched after the start).")
    new_text: str = Field(description="The new content of the span.")
    search_after: str | None = Field(
        None, description="Look for the start only after this text (to pick one of several)."
    )
    start_is_regex: bool = Field(
        False, description="Treat start as a Python regular expression (multiline)."
    )
    keep_markers: bool | None = Field(
        None,
        description="true: keep both markers and replace what is between; false: replace the markers "
        "too; omitted: a marker is replaced when new_text re-supplies it, kept otherwise.",
    )
    expected_hash: str | None = Field(None, description=HASH)
    dry_run: bool = Field(False, description=DRY_RUN)


class InsertParams(Params):
    path: str = Field(description=PATH)
    line: int = Field(ge=0, description="Insert after this line (0 = at the top).")
    text: str = Field(description="The text to insert, as one or more lines.")
    expected_hash: str | None = Field(None, description=HASH)
    dry_run: bool = Field(False, description=DRY_RUN)


class ListParams(Params):
    path: str | None = Field(None, description="Directory to list (default: the workspace root).")
    ignore: list[str] | None = Field(None, description="Glob patterns of entries to leave out.")
    respect_gitignore: bool = Field(True, description="Leave out what .gitignore ignores.")
    max_entries: int = Field(
        1000, ge=1, le=100_000, description="Show at most this many entries (default 1000)."
    )


class GlobParams(Params):
    pattern: str = Field(
        description="Glob pattern relative to the directory, e.g. 'src/**/*.py' or '*.md'."
    )
    path: str | None = Field(None, description="Directory to search (default: the workspace root).")
    case_sensitive: bool = Field(False, description="Match case exactly.")
    respect_gitignore: bool = Field(True, description="Leave out what .gitignore ignores.")


class GrepParams(Params):
    pattern: str = Field(
        description="Regular expression to look for (or a literal string with fixed_strings)."
    )
    path: str | None = Field(None, description="Directory to search (default: the workspace root).")
    include: str | None = Field(
        None, description="Only files matching this glob, e.g. '*.py' or 'src/**/*.{ts,tsx}'."
    )
    case_sensitive: bool = Field(True, description="Match case exactly.")
    fixed_strings: bool = Field(False, description="Treat pattern as a literal string.")
    context: int = Field(0, ge=0, le=20, description="Lines of context around each match.")
    max_matches: int = Field(
        500, ge=1, le=10000, description="Stop after this many matching lines."
    )


class UndoParams(Params):
    path: str = Field(description="File whose last change to undo (repeat to go further back).")
    dry_run: bool = Field(False, description=DRY_RUN)


class MoveParams(Params):
    source: str = Field(description="The file or directory to move or rename.")
    destination: str = Field(description="Its new path (the parent directory must exist).")
    overwrite: bool = Field(
        False, description="Replace an existing destination file (never a directory)."
    )
    dry_run: bool = Field(False, description=DRY_RUN)


class DeleteParams(Params):
    path: str = Field(description="The file, link or directory to delete.")
    recursive: bool = Field(
        False,
        description="Delete a directory with everything in it (asks the user to confirm).",
    )
    dry_run: bool = Field(False, description=DRY_RUN)


class MkdirParams(Params):
    path: str = Field(description="The directory to create (missing parents are created).")
    dry_run: bool = Field(False, description=DRY_RUN)


class StatParams(Params):
    path: str = Field(description="The file or directory to describe.")


class TreeParams(Params):
    path: str | None = Field(None, description="Directory to show (default: the workspace root).")
    max_depth: int = Field(3, ge=1, le=50, description="Levels to open (default 3).")
    max_entries: int = Field(
        500, ge=1, le=100_000, description="Show at most this many entries (default 500)."
    )
    respect_gitignore: bool = Field(True, description="Leave out what .gitignore ignores.")
    exclude: list[str] | None = Field(
        None, description="Glob patterns of paths to leave out, e.g. 'node_modules' or '*.log'."
    )


class ReadManyParams(Params):
    paths: list[str] | None = Field(None, description="Files to read, in order.")
    pattern: str | None = Field(
        None, description="Or a glob of files to read, e.g. 'src/**/*.py' (newest first)."
    )
    limit: int | None = Field(
        None, ge=1, description="Maximum number of lines per file (default 2000)."
    )
    max_output_chars: int = Field(
        100_000,
        ge=100,
        le=2_000_000,
        description="Total output budget; files past it are named, not read.",
    )


class RootsParams(Params):
    pass
