"""Parameter models of the `gemini` toolset (pydantic; imported only when needed)."""

from __future__ import annotations

from pydantic import Field

from filewright.tools.params import Params


class ListDirectoryParams(Params):
    path: str = Field(
        description="The absolute path to the directory to list (or relative to the workspace root)."
    )
    ignore: list[str] | None = Field(
        None, description='List of glob patterns to ignore (e.g. ["*.log", ".git"]).'
    )
    respect_git_ignore: bool = Field(
        True, description="Whether to respect .gitignore patterns when listing files."
    )


class ReadFileParams(Params):
    path: str = Field(
        description="The absolute path to the file to read (or relative to the workspace root)."
    )
    offset: int | None = Field(
        None,
        ge=0,
        description="For text files, the 0-based line number to start reading from. Requires 'limit' to be set.",
    )
    limit: int | None = Field(
        None,
        ge=1,
        description="For text files, the maximum number of lines to read (default 2000).",
    )


class WriteFileParams(Params):
    file_path: str = Field(
        description="The absolute path to the file to write to (or relative to the workspace root)."
    )
    content: str = Field(description="The content to write to the file.")


class GlobParams(Params):
    pattern: str = Field(
        description="The glob pattern to match against (e.g. '*.py', 'src/**/*.js')."
    )
    path: str | None = Field(
        None,
        description="The absolute path to the directory to search within. If omitted, searches the root directory.",
    )
    case_sensitive: bool = Field(False, description="Whether the search should be case-sensitive.")
    respect_git_ignore: bool = Field(
        True, description="Whether to respect .gitignore patterns when finding files."
    )


class SearchFileContentParams(Params):
    pattern: str = Field(
        description="The regular expression (regex) to search for (e.g. 'function\\s+myFunction')."
    )
    path: str | None = Field(
        None,
        description="The absolute path to the directory to search within. Defaults to the root directory.",
    )
    include: str | None = Field(
        None,
        description="A glob pattern to filter which files are searched (e.g. '*.js', 'src/**/*.{ts,tsx}').",
    )


class ReplaceParams(Params):
    file_path: str = Field(
        description="The absolute path to the file to modify (or relative to the workspace root)."
    )
    old_string: str = Field(
        description="The exact literal text to replace. Include at least 3 lines of context before and after the target text, matching whitespace and indentation. An empty string creates a new file."
    )
    new_string: str = Field(description="The exact literal text to replace old_string with.")
    expected_replacements: int = Field(
        1,
        ge=1,
        description="Number of replacements expected. Defaults to 1. Use when you want to replace multiple occurrences.",
    )
