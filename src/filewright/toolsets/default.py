"""The `default` toolset: the best of every seed, for new agents.

Tools: read, write, edit, append. Edits go through the engine's recovery ladder, return
a diff, and accept an optional `expected_hash` (optimistic locking against the hash a
read returned).
"""

from __future__ import annotations

from typing import Any

from pydantic import Field

from filewright.pipeline import Change, Outcome, clip_diff
from filewright.result import Result
from filewright.toolsets.base import Params, Tool, Toolset
from filewright.toolsets.common import read_result

_PAST = {"write": "Wrote", "edit": "Edited", "append": "Appended"}


class ReadParams(Params):
    path: str = Field(description="File path, relative to the workspace root or absolute inside it.")
    offset: int | None = Field(None, ge=1, description="1-based line to start reading at.")
    limit: int | None = Field(None, ge=1, description="Maximum number of lines to read (default 2000).")


class WriteParams(Params):
    path: str = Field(description="File path, relative to the workspace root or absolute inside it.")
    content: str = Field(description="The complete new content of the file.")
    expected_hash: str | None = Field(
        None, description="Refuse the write unless the file still has this hash (from read)."
    )


class EditParams(Params):
    path: str = Field(description="File path, relative to the workspace root or absolute inside it.")
    old_string: str = Field(description="The text to replace; must identify one place unless replace_all.")
    new_string: str = Field(description="The replacement text.")
    replace_all: bool = Field(False, description="Replace every occurrence instead of exactly one.")
    expected_hash: str | None = Field(
        None, description="Refuse the edit unless the file still has this hash (from read)."
    )


class AppendParams(Params):
    path: str = Field(description="File path, relative to the workspace root or absolute inside it.")
    content: str = Field(description="Text to add at the end of the file (created if missing).")


class UndoParams(Params):
    path: str = Field(description="File whose last change to undo (repeat to go further back).")


class DefaultToolset(Toolset):
    name = "default"

    def tools(self) -> list[Tool]:
        return [
            Tool("read", "Read a text file with line numbers (cat -n style). Returns the content hash for optimistic locking.",
                 ReadParams, self.read, read_only=True, title="Read file"),
            Tool("write", "Create a file or replace its whole content. Parent directories are created.",
                 WriteParams, self.write, destructive=True, title="Write file"),
            Tool("edit", "Replace text in a file. old_string must match one place (whitespace and "
                 "indentation differences are tolerated when unambiguous); use replace_all for every "
                 "occurrence. Returns a diff.", EditParams, self.edit, destructive=True, title="Edit file"),
            Tool("append", "Append text to the end of a file (created if missing).",
                 AppendParams, self.append, title="Append to file"),
            Tool("undo", "Undo the last change made to a file through these tools (restores its previous content).",
                 UndoParams, self.undo, destructive=True, title="Undo last change"),
        ]

    def _display(self, outcome: Outcome, given: str) -> str:
        return outcome.loc.lexical_rel if outcome.loc is not None else given

    def _changed(self, outcome: Outcome, given: str, verb: str) -> Result:
        path = self._display(outcome, given)
        if not outcome.ok:
            assert outcome.failure is not None
            return self.failed(outcome.failure, path)
        if outcome.dry_run:
            text = f"[dry run] Would {verb} {path}:\n{clip_diff(outcome.diff)}"
        else:
            what = "Created" if outcome.created else _PAST[verb]
            text = f"{what} {path}"
            if outcome.replacements:
                text += f" ({outcome.replacements} replacement{'s' if outcome.replacements != 1 else ''}"
                if outcome.strategy and outcome.strategy != "exact":
                    text += f", matched by {outcome.strategy.replace('_', ' ')}"
                text += ")"
            if outcome.diff:
                text += "\n" + clip_diff(outcome.diff).rstrip("\n")
        return Result(True, text, outcome.data())

    def read(self, p: ReadParams) -> Result:
        return read_result(self, p.path, offset=p.offset, limit=p.limit, style="default")

    def write(self, p: WriteParams) -> Result:
        content = p.content
        outcome = self.change(Change(p.path, "write", lambda _old: content, create_parents=True,
                                     expected_hash=p.expected_hash))
        return self._changed(outcome, p.path, "write")

    def edit(self, p: EditParams) -> Result:
        old, new, replace_all = p.old_string, p.new_string, p.replace_all
        if old == "":
            return self.failed_code("empty_old", p.path)

        from filewright import edits

        def compute(text: str | None) -> Any:
            return edits.replace(text or "", old, new, replace_all=replace_all)

        outcome = self.change(Change(p.path, "edit", compute, must_exist=True, expected_hash=p.expected_hash))
        return self._changed(outcome, p.path, "edit")

    def append(self, p: AppendParams) -> Result:
        content = p.content
        outcome = self.change(Change(p.path, "append", lambda old: (old or "") + content, create_parents=True))
        return self._changed(outcome, p.path, "append")

    def undo(self, p: UndoParams) -> Result:
        from filewright.pipeline import undo

        outcome = undo(self.engine, p.path, dry_run=self.workspace.dry_run)
        path = self._display(outcome, p.path)
        if not outcome.ok:
            assert outcome.failure is not None
            return self.failed(outcome.failure, path)
        undone = outcome.extra.get("undone", {})
        verb = "Would restore" if outcome.dry_run else "Restored"
        what = "removed it (it was created by that change)" if not undone.get("existed") else "restored its previous content"
        text = f"{verb} {path}: undid the {undone.get('operation', 'last')} of {undone.get('time', '?')}; {what}."
        if outcome.diff:
            text += "\n" + clip_diff(outcome.diff).rstrip("\n")
        return Result(True, text, outcome.data())

    def failed_code(self, code: str, path: str, **detail: Any) -> Result:
        from filewright.result import Failure

        return self.failed(Failure(code, path, detail), path)
