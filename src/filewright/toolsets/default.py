"""The `default` toolset: the best of every seed, for new agents.

Tools: read, write, edit, multi_edit (a batch, all or nothing), replace_span (between two
markers, with a `search_after` anchor and an optional regex start — the memo seed's tool
for any file), insert, append, undo, list, glob, grep, and the file-management tools of
`default_files` (move, delete, mkdir, stat, tree, read_many, roots). Every changing tool
takes `dry_run`; `read` takes `tail` or a negative `offset`. Every change goes through the
engine's recovery ladder where text is matched, returns a unified diff, and accepts an
optional `expected_hash` (optimistic locking against the hash a read returned). Paths are
relative to the first root or absolute inside a root; results show them relative.
"""

from __future__ import annotations

from filewright.tools.base import Tool, Toolset
from filewright.toolsets.default_files import file_tools

# The tools' parameter models and handlers, loaded by name when first used: listing the
# tools or reading a file loads no edit, search or file-management machinery.
MODELS = "filewright.toolsets.default_params:"
READ = "filewright.toolsets.default_read:"
EDITS = "filewright.toolsets.default_edits:"
SEARCH = "filewright.toolsets.default_search:"


class DefaultToolset(Toolset):
    name = "default"

    def tools(self) -> list[Tool]:
        return [
            Tool(
                "read",
                "Read a text file with line numbers (cat -n style). Returns the content hash for optimistic locking.",
                MODELS + "ReadParams",
                self.by_name(READ + "read"),
                read_only=True,
                title="Read file",
                inline_ok=True,
            ),
            Tool(
                "write",
                "Create a file or replace its whole content. Parent directories are created.",
                MODELS + "WriteParams",
                self.by_name(EDITS + "write"),
                destructive=True,
                title="Write file",
            ),
            Tool(
                "edit",
                "Replace text in a file. old_string must match one place (whitespace and "
                "indentation differences are tolerated when unambiguous); use replace_all for every "
                "occurrence. Returns a diff.",
                MODELS + "EditParams",
                self.by_name(EDITS + "edit"),
                destructive=True,
                title="Edit file",
            ),
            Tool(
                "multi_edit",
                "Apply several edits to one file in order, all or nothing (none is written "
                "if any fails). Returns a diff.",
                MODELS + "MultiEditParams",
                self.by_name(EDITS + "multi_edit"),
                destructive=True,
                title="Edit file (batch)",
            ),
            Tool(
                "replace_span",
                "Replace the text between a start and an end marker, without repeating the "
                "text in between. Use search_after to pick one of several sections with the same markers.",
                MODELS + "ReplaceSpanParams",
                self.by_name(EDITS + "replace_span"),
                destructive=True,
                title="Replace a span",
            ),
            Tool(
                "insert",
                "Insert text after a given line of a file (0 = at the top).",
                MODELS + "InsertParams",
                self.by_name(EDITS + "insert"),
                title="Insert lines",
            ),
            Tool(
                "append",
                "Append text to the end of a file (created if missing).",
                MODELS + "AppendParams",
                self.by_name(EDITS + "append"),
                title="Append to file",
            ),
            Tool(
                "undo",
                "Undo the last change made to a file through these tools (restores its previous content).",
                MODELS + "UndoParams",
                self.by_name(EDITS + "undo"),
                destructive=True,
                title="Undo last change",
            ),
            Tool(
                "list",
                "List one directory: directories first ([DIR]), then files.",
                MODELS + "ListParams",
                self.by_name(SEARCH + "list_directory"),
                read_only=True,
                title="List directory",
            ),
            Tool(
                "glob",
                "Find files by glob pattern, newest first. Honours .gitignore; skips .git and node_modules.",
                MODELS + "GlobParams",
                self.by_name(SEARCH + "glob"),
                read_only=True,
                title="Find files",
            ),
            Tool(
                "grep",
                "Search file contents with a regular expression; matches grouped by file with line numbers.",
                MODELS + "GrepParams",
                self.by_name(SEARCH + "grep"),
                read_only=True,
                title="Search text",
            ),
            *file_tools(self),
        ]
