"""Parameter models of the `worker` toolset (pydantic; imported only when needed)."""

from __future__ import annotations

from pydantic import Field

from filewright.tools.params import Params


class WriteFileParams(Params):
    path: str = Field(
        description="File path (absolute inside the workspace, or relative to its root)."
    )
    content: str = Field(description="The complete content of the file.")


class AppendToFileParams(Params):
    path: str = Field(
        description="Path of an existing file (absolute inside the workspace, or relative to its root)."
    )
    content: str = Field(
        description="Text appended exactly as given (include a leading newline if needed)."
    )


class ReplaceInFileParams(Params):
    path: str = Field(
        description="Path of an existing file (absolute inside the workspace, or relative to its root)."
    )
    old: str = Field(
        min_length=1,
        description="The text to find (exact text; a regular expression when regex is true).",
    )
    new: str = Field(
        description="The replacement text (with regex: a template, \\1 / \\g<name> refer to groups)."
    )
    regex: bool = Field(
        False,
        description="Treat `old` as a Python regular expression (multiline: ^ and $ match at line ends).",
    )
    count: int | None = Field(
        None, ge=0, description="Replace at most this many matches (default: all)."
    )
