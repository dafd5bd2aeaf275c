"""Parameter model of the `memory` toolset (pydantic; imported only when needed).

The fields are those of Anthropic's `memory_20250818` commands (the SDK's
`BetaMemoryTool20250818*Command` types): one model, `command` choosing which apply.
"""

from __future__ import annotations

from pydantic import Field

from filewright.tools.params import Params
from filewright.toolsets.memory import COMMANDS


class MemoryParams(Params):
    command: str = Field(
        description="The command to run: " + ", ".join(f"`{c}`" for c in COMMANDS) + ".",
        json_schema_extra={"enum": list(COMMANDS)},
    )
    path: str | None = Field(
        None,
        description="For every command but `rename`: the file or directory, a path under "
        "/memories such as `/memories/notes.md` (`/memories` itself for the whole memory).",
    )
    view_range: list[int] | None = Field(
        None,
        description="For `view` of a file: [first, last] line numbers to show (1-based, "
        "inclusive); -1 as last means to the end of the file.",
    )
    file_text: str | None = Field(None, description="For `create`: the content of the new file.")
    old_str: str | None = Field(
        None, description="For `str_replace`: the text to replace; it must occur once."
    )
    new_str: str | None = Field(
        None, description="For `str_replace`: the replacement (absent or empty deletes old_str)."
    )
    insert_line: int | None = Field(
        None, description="For `insert`: the line AFTER which the text goes (0 = the top)."
    )
    insert_text: str | None = Field(None, description="For `insert`: the text to insert.")
    old_path: str | None = Field(
        None, description="For `rename`: the file or directory to move, under /memories."
    )
    new_path: str | None = Field(
        None, description="For `rename`: where it goes, under /memories; must not exist yet."
    )
