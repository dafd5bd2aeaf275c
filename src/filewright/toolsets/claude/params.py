"""Parameter models of the `claude` toolset (pydantic; imported only when needed)."""

from __future__ import annotations

from pydantic import BaseModel, Field

from filewright.tools.params import Params


class ReadParams(Params):
    file_path: str = Field(description="The absolute path to the file to read")
    offset: int | None = Field(
        None,
        description="The line number to start reading from (1-based). Only provide if the "
        "file is too large to read at once",
        json_schema_extra={"minimum": 1},
    )
    limit: int | None = Field(
        None,
        description="The number of lines to read (default 2000). Only provide if the file "
        "is too large to read at once",
        json_schema_extra={"minimum": 1},
    )


class WriteParams(Params):
    file_path: str = Field(
        description="The absolute path to the file to write (must be absolute, not relative)"
    )
    content: str = Field(description="The content to write to the file")
    create_backup: bool = Field(
        True, description="Keep a copy of the previous content in .claude-backups/ (default true)"
    )
    encoding: str | None = Field(
        None,
        description="Encoding to write the content in, a Node.js Buffer encoding (utf8, "
        "utf16le, latin1, ascii, base64, base64url, hex); default utf-8, and an existing "
        "file keeps its own",
    )


class EditParams(Params):
    file_path: str = Field(description="The absolute path to the file to modify")
    old_string: str = Field(description="The text to replace")
    new_string: str = Field(
        description="The text to replace it with (must be different from old_string)"
    )
    replace_all: bool = Field(
        False, description="Replace all occurrences of old_string (default false)"
    )


class EditItem(BaseModel):
    old_string: str = Field(description="The text to replace")
    new_string: str = Field(description="The text to replace it with")
    replace_all: bool = Field(
        False, description="Replace all occurrences of old_string (default false)"
    )


class MultiEditParams(Params):
    file_path: str = Field(description="The absolute path to the file to modify")
    edits: list[EditItem] = Field(
        description="Edits to apply in order, each to the result of the previous one; "
        "all of them are applied or none"
    )
