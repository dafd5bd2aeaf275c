"""The `default` toolset's file-management tools as the model sees them: move, delete,
mkdir, stat, tree, read_many, roots. Declarations only; the handlers (`default_manage`,
`default_search`) are loaded by name when first called. Mapping and wording only: the work
is the engine's (`engine.fileops`, `read.many`, `search.tree`)."""

from __future__ import annotations

from filewright.tools.base import Tool, Toolset

MODELS = "filewright.toolsets.default_params:"
MANAGE = "filewright.toolsets.default_manage:"
SEARCH = "filewright.toolsets.default_search:"


def file_tools(toolset: Toolset) -> list[Tool]:
    """The file-management tools, for `DefaultToolset.tools`."""
    return [
        Tool(
            "move",
            "Move or rename a file or directory. Never replaces an existing destination "
            "unless overwrite is set (files only). Undo moves it back.",
            MODELS + "MoveParams",
            toolset.by_name(MANAGE + "move"),
            destructive=True,
            title="Move or rename",
        ),
        Tool(
            "delete",
            "Delete a file, link or empty directory (recursive: a directory and all it "
            "holds, after the user confirms). Undo restores what was deleted.",
            MODELS + "DeleteParams",
            toolset.by_name(MANAGE + "delete"),
            destructive=True,
            title="Delete",
        ),
        Tool(
            "mkdir",
            "Create a directory and any missing parents (an existing one is fine).",
            MODELS + "MkdirParams",
            toolset.by_name(MANAGE + "mkdir"),
            idempotent=True,
            title="Create directory",
        ),
        Tool(
            "stat",
            "Facts about a file or directory: type, size, mode, times; for text files "
            "also line count, encoding and hash.",
            MODELS + "StatParams",
            toolset.by_name(MANAGE + "stat"),
            read_only=True,
            title="File info",
        ),
        Tool(
            "tree",
            "Show a directory tree (depth and entry limits; honours .gitignore).",
            MODELS + "TreeParams",
            toolset.by_name(SEARCH + "tree"),
            read_only=True,
            title="Directory tree",
        ),
        Tool(
            "read_many",
            "Read several files (a list of paths, or a glob) in one call, numbered as "
            "read does, under one output budget; a file that cannot be read gets a line "
            "of its own.",
            MODELS + "ReadManyParams",
            toolset.by_name(SEARCH + "read_many"),
            read_only=True,
            title="Read files",
        ),
        Tool(
            "roots",
            "List the directories these tools may work in.",
            MODELS + "RootsParams",
            toolset.by_name(MANAGE + "roots"),
            read_only=True,
            title="Workspace roots",
        ),
    ]
