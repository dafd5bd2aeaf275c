"""Finding files and text: grep, glob and directory listings, at ripgrep speed.

Owns: the two search engines (ripgrep driven as a subprocess, a pure-Python fallback),
gitignore-aware walking, result types and the gemini-style result formatting. Gets a real
directory and a `visible` callback from the engine; never resolves workspace paths or
decides policy itself. See `grep` for the decisions both engines share.
"""

from filewright.search.format import format_glob_gemini, format_grep_gemini, format_list_gemini
from filewright.search.globbing import glob
from filewright.search.grep import grep
from filewright.search.listing import list_directory
from filewright.search.results import (
    Entry,
    FileMatches,
    GlobResult,
    GrepResult,
    LineMatch,
    ListResult,
    Visible,
)
from filewright.search.ripgrep import find_rg

__all__ = [
    "Entry",
    "FileMatches",
    "GlobResult",
    "GrepResult",
    "LineMatch",
    "ListResult",
    "Visible",
    "find_rg",
    "format_glob_gemini",
    "format_grep_gemini",
    "format_list_gemini",
    "glob",
    "grep",
    "list_directory",
]
