"""Parameter models of the `text_editor` toolset (pydantic; imported only when needed)."""

from __future__ import annotations

from typing import Any

from pydantic import Field

from filewright.tools.params import Params
from filewright.toolsets.text_editor import COMMANDS, COMMANDS_WITH_UNDO


def _command_doc(commands: tuple[str, ...]) -> str:
    return "The command to run. Allowed options are: " + ", ".join(f"`{c}`" for c in commands) + "."


class TextEditorParams(Params):
    command: str = Field(
        description=_command_doc(COMMANDS), json_schema_extra={"enum": list(COMMANDS)}
    )
    path: str = Field(
        description="Absolute path of the file or directory, such as `/repo/app.py` or `/repo`."
    )
    file_text: str | None = Field(
        None, description="For `create`: the whole content of the new file."
    )
    view_range: list[Any] | None = Field(
        None,
        description="For `view` of a file: [first, last] line numbers to show (1-based, inclusive); "
        "-1 as last means to the end of the file. Without it the whole file is shown.",
        json_schema_extra={"items": {"type": "integer"}},
    )
    old_str: str | None = Field(
        None,
        description="For `str_replace`: the exact text to replace; it must occur once in the file.",
    )
    new_str: str | None = Field(
        None,
        description="For `str_replace`: the replacement text (empty or absent deletes old_str). For "
        "`insert`: the text to insert (same as `insert_text`).",
    )
    insert_line: int | None = Field(
        None,
        description="For `insert`: the line number AFTER which the text goes (0 = before the first line).",
    )
    insert_text: str | None = Field(
        None, description="For `insert`: the text to insert (or give it as `new_str`)."
    )


class TextEditorParamsWithUndo(TextEditorParams):
    command: str = Field(
        description=_command_doc(COMMANDS_WITH_UNDO),
        json_schema_extra={"enum": list(COMMANDS_WITH_UNDO)},
    )
