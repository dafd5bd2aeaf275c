"""Parameter models of the `mcpfs` toolset: the MCP filesystem server's tools, with its
names, types, defaults and descriptions (pydantic; imported only when needed).

As in that server, arguments it does not know are ignored rather than refused.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from filewright.tools.params import Params

TAIL = "If provided, returns only the last N lines of the file"
HEAD = "If provided, returns only the first N lines of the file"


class McpfsParams(Params):
    """Unknown arguments are dropped, as the MCP filesystem server's schemas drop them."""

    model_config = ConfigDict(
        extra="ignore",
        str_strip_whitespace=False,
        json_schema_extra={"$schema": "http://json-schema.org/draft-07/schema#"},
    )


class PathParams(McpfsParams):
    path: str


class ReadTextFileParams(McpfsParams):
    path: str
    tail: float | None = Field(None, description=TAIL)
    head: float | None = Field(None, description=HEAD)


class ReadMultipleFilesParams(McpfsParams):
    paths: list[str] = Field(
        min_length=1,
        description="Array of file paths to read. Each path must be a string pointing to a "
        "valid file within allowed directories.",
    )


class WriteFileParams(McpfsParams):
    path: str
    content: str


class EditOperation(BaseModel):
    model_config = ConfigDict(extra="ignore")

    oldText: str = Field(description="Text to search for - must match exactly")
    newText: str = Field(description="Text to replace with")


class EditFileParams(McpfsParams):
    path: str
    edits: list[EditOperation]
    dryRun: bool = Field(False, description="Preview changes using git-style diff format")


class ListDirectoryWithSizesParams(McpfsParams):
    path: str
    sortBy: Literal["name", "size"] = Field("name", description="Sort entries by name or size")


class DirectoryTreeParams(McpfsParams):
    path: str
    excludePatterns: list[str] = Field([])


class MoveFileParams(McpfsParams):
    source: str
    destination: str


class SearchFilesParams(McpfsParams):
    path: str
    pattern: str
    excludePatterns: list[str] = Field([])


class NoParams(McpfsParams):
    pass
