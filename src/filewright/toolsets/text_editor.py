"""The `text_editor` toolset: the Anthropic text editor tool Claude models are trained on.

One tool, `str_replace_based_edit_tool` (versions 20250728 and 20250429) or
`str_replace_editor` (20250124, which adds `undo_edit`), with a `command`:

- `view`: a file numbered like `cat -n` (optionally only `view_range` [start, end], -1 for
  the end), or a directory listed two levels deep without hidden items;
- `create`: a new file from `file_text` (an existing file is refused unless the toolset
  option `allow_overwrite=True`); parent directories are created;
- `str_replace`: replace `old_str` (which must identify one place; the engine's recovery
  ladder tolerates whitespace and similar slips) with `new_str` (default "");
- `insert`: insert `insert_text` (or `new_str`) AFTER line `insert_line` (0 = the top);
- `undo_edit` (20250124 only): restore the file as it was before its last change.

Results use the wording of Anthropic's reference implementation. Deliberate differences:
paths must be absolute (as the reference requires) and inside the workspace; a file that
ends with a newline has no phantom empty last line (so `view_range` and `insert_line`
count real lines); tabs are shown and written as they are (the reference expands them);
views and listings are cut at `max_characters` (option; default 16000, the reference's
limit) with the reference's `<response clipped>` note.

Definitions: `definitions(format)` gives a plain function-calling tool generated from the
parameter model (works with any API). To use Anthropic's built-in, schema-less tool
type instead, put `toolset.anthropic_builtin()` in the Messages API `tools` list; the
calls it produces are run with `toolset.call(toolset.tool_name, input)` as usual.
"""

from __future__ import annotations

import os
from typing import Any, ClassVar

from filewright import search
from filewright.core.result import Failure, OperationFailed, Result
from filewright.edit import edits
from filewright.engine import streamops
from filewright.engine.change import Change, Outcome, clip_diff
from filewright.engine.undo import undo
from filewright.fs.paths import Location
from filewright.read import readers
from filewright.tools.base import Tool, Toolset
from filewright.toolsets.streaming import stream_replace

VERSIONS: dict[str, str] = {
    "20250728": "str_replace_based_edit_tool",
    "20250429": "str_replace_based_edit_tool",
    "20250124": "str_replace_editor",
}
COMMANDS = ("view", "create", "str_replace", "insert")
COMMANDS_WITH_UNDO = (*COMMANDS, "undo_edit")
SNIPPET_LINES = 4
MAX_RESPONSE_LEN = 16000
TRUNCATED_MESSAGE = (
    "<response clipped><NOTE>To save on context only part of this file has been shown to you. "
    "You should retry this tool after you have searched inside the file with `grep -n` in order "
    "to find the line numbers of what you are looking for.</NOTE>"
)
REVIEW = "Review the changes and make sure they are as expected. Edit the file again if necessary."
REVIEW_INSERT = (
    "Review the changes and make sure they are as expected (correct indentation, no duplicate "
    "lines, etc). Edit the file again if necessary."
)


DESCRIPTION = """View, create and edit text files. Give `path` as an absolute path.
- `view`: a file is shown with line numbers (`cat -n` style); a directory is listed two levels deep, without hidden entries. Long output is cut and ends with `<response clipped>`.
- `create`: write a new file with `file_text`{create_note}.
- `str_replace`: replace `old_str` with `new_str`. `old_str` must match the file exactly (whitespace and indentation included) and occur exactly once; add surrounding lines to make it unique.
- `insert`: put `insert_text` (or `new_str`) after line `insert_line`; 0 inserts at the top.{undo}"""


class TextEditorToolset(Toolset):
    """The Anthropic text editor tool on the engine.

    Options: `version` ("20250728" default, "20250429", "20250124"), `allow_overwrite`
    (let `create` replace an existing file; default False), `max_characters` (cut views
    and listings at this many characters; default 16000).
    """

    name = "text_editor"
    messages: ClassVar[dict[str, dict[str, str]]] = {
        "*": {
            "not_found": "The path {path} does not exist. Please provide a valid path.",
            "hidden": "The path {path} does not exist. Please provide a valid path.",
            "parent_missing": "The path {path} does not exist. Please provide a valid path.",
            "is_directory": "The path {path} is a directory and only the `view` command can be used on directories",
            "exists": "File already exists at: {path}. Cannot overwrite files using command `create`.",
            "outside": "The path {path} is outside the workspace. Only paths inside the workspace can be used.",
            "binary": "Ran into a binary file while trying to read {path}; it cannot be shown or edited as text.",
            "undecodable": "Ran into {message} while trying to read {path}",
            "too_large": "The file {path} is too large to view whole; view a part of it with `view_range`.",
            "stale": "The file {path} was modified since you last viewed it. View it again before changing it.",
            "no_history": "No edit history found for {path}.",
            "line_out_of_range": "Invalid `insert_line` parameter: {line}. It should be within the range of "
            "lines of the file: [0, {line_count}]",
            "no_change": "No replacement was performed: `new_str` is the same as `old_str`, so the file "
            "would not change.",
            "empty_old": "No replacement was performed: `old_str` is empty. Give the exact text to replace, "
            "or use the `insert` command to add text.",
            "permission": "Ran into a permission error while trying to access {path}",
            "protected": "Cannot modify protected file: {path}",
            "denied": "Access denied by policy: {path}",
            "io_error": "Ran into {message} while trying to access {path}",
        }
    }

    def __init__(self, workspace: Any, **options: Any) -> None:
        super().__init__(workspace, **options)
        self.version = str(options.get("version", "20250728"))
        if self.version not in VERSIONS:
            raise ValueError(
                f"unknown text editor version {self.version!r}; expected one of {', '.join(VERSIONS)}"
            )
        self.allow_overwrite = bool(options.get("allow_overwrite", False))
        max_chars = options.get("max_characters")
        self.max_characters: int | None = int(max_chars) if max_chars is not None else None
        self.commands = COMMANDS_WITH_UNDO if self.version == "20250124" else COMMANDS

    @property
    def tool_name(self) -> str:
        """`str_replace_based_edit_tool`, or `str_replace_editor` for version 20250124."""
        return VERSIONS[self.version]

    @property
    def budget(self) -> int:
        return self.max_characters or MAX_RESPONSE_LEN

    def tools(self) -> list[Tool]:
        undo_note = "\n- `undo_edit`: restore the file at `path` as it was before its last edit."
        params = "filewright.toolsets.text_editor_params:" + (
            "TextEditorParamsWithUndo" if "undo_edit" in self.commands else "TextEditorParams"
        )
        description = DESCRIPTION.format(
            undo=undo_note if "undo_edit" in self.commands else "",
            create_note=" (replaces an existing file)"
            if self.allow_overwrite
            else "; an existing file is not overwritten",
        )
        return [
            Tool(
                self.tool_name, description, params, self.run, destructive=True, title="Text editor"
            )
        ]

    def anthropic_builtin(self) -> dict[str, Any]:
        """The tool in the form of Anthropic's built-in (schema-less) text editor type."""
        out: dict[str, Any] = {"type": f"text_editor_{self.version}", "name": self.tool_name}
        if self.max_characters is not None and self.version == "20250728":
            out["max_characters"] = self.max_characters
        return out

    # -- dispatch ---------------------------------------------------------------------------

    def _error(self, text: str, code: str = "invalid", **data: Any) -> Result:
        return Result(False, text, {"error": code, **data})

    def run(self, p: Any) -> Result:
        """Check the command and path as the reference does, then run the command."""
        if p.command not in self.commands:
            return self._error(
                f"Unrecognized command {p.command}. The allowed commands for the "
                f"{self.tool_name} tool are: {', '.join(self.commands)}",
                "bad_arguments",
            )
        path = p.path
        if not os.path.isabs(path):
            suggested = os.path.join(str(self.workspace.roots[0]), path)
            return self._error(
                f"The path {path} is not an absolute path, it should start with `/`. "
                f"Maybe you meant {suggested}?"
            )
        purpose = "read" if p.command == "view" else "write"
        try:
            loc, _ = self.engine.locate(path, purpose=purpose, expect="any")
        except OperationFailed as exc:
            return self.failed(exc.failure, path)
        if not loc.exists and p.command != "create":
            return self.failed(Failure("not_found", path), path)
        if loc.exists and p.command == "create" and (loc.is_dir or not self.allow_overwrite):
            code = "is_directory" if loc.is_dir else "exists"
            return self.failed(Failure(code, path), path)
        if loc.is_dir and p.command != "view":
            return self.failed(Failure("is_directory", path), path)
        handler = {
            "view": self._view,
            "create": self._create,
            "str_replace": self._str_replace,
            "insert": self._insert,
            "undo_edit": self._undo,
        }[p.command]
        return handler(p, loc)

    # -- output helpers ------------------------------------------------------------------------

    def _numbered(self, lines: list[str], start: int) -> str:
        return readers.numbered(lines, start, 6)

    def _cat_n(self, lines: list[str], start: int, descriptor: str, clipped: bool = False) -> str:
        body = self._numbered(lines, start)
        if clipped:
            body = (body + "\n" if body else "") + TRUNCATED_MESSAGE
        return f"Here's the result of running `cat -n` on {descriptor}:\n{body}\n"

    def _snippet(self, outcome: Outcome, path: str, first: int, last: int) -> tuple[list[str], int]:
        first = max(1, first)
        if outcome.new_text is None and outcome.extra.get("streamed"):
            # A streamed change keeps no text: the lines are read back from the file.
            try:
                s = readers.read_lines(
                    self.engine,
                    path,
                    first,
                    max(0, last - first + 1),
                    max_line_chars=self.budget,
                    max_output_chars=self.budget,
                    count_total=False,
                    record=False,
                )
            except OperationFailed:
                return [], first
            return s.lines, first
        lines = (outcome.new_text or "").split("\n")
        if lines and lines[-1] == "":
            lines.pop()
        return lines[first - 1 : max(first - 1, last)], first

    # -- view ----------------------------------------------------------------------------------

    def _view(self, p: Any, loc: Location) -> Result:
        if loc.is_dir:
            if p.view_range:
                return self._error(
                    "The `view_range` parameter is not allowed when `path` points to a directory."
                )
            return self._view_dir(p.path, loc)
        start, count, total = 1, None, None
        if p.view_range is not None:
            checked = self._check_range(p.view_range, loc, p.path)
            if isinstance(checked, Result):
                return checked
            start, count, total = checked
        try:
            s = readers.read_lines(
                self.engine,
                loc,
                start,
                count,
                max_line_chars=self.budget,
                max_output_chars=self.budget,
                # (the range check counted the lines: the view does not count them again,
                # a second pass over a large file)
                count_total=False if total is not None else None,
            )
        except OperationFailed as exc:
            return self.failed(exc.failure, p.path)
        if s.total_lines is None and total is not None:
            s = s.replace(total_lines=total)
        clipped = s.truncated and s.truncated_by == "budget"
        text = self._cat_n(s.lines, s.start, p.path, clipped)
        return Result(True, text, {"path": str(loc.path), "command": "view", **s.data()})

    def _check_range(
        self, view_range: list[Any], loc: Location, path: str
    ) -> tuple[int, int | None, int] | Result:
        """(first line, line count, the file's lines) of a valid `view_range`, else the
        error to return."""
        if len(view_range) != 2 or not all(
            isinstance(i, int) and not isinstance(i, bool) for i in view_range
        ):
            return self._error("Invalid `view_range`. It should be a list of two integers.")
        try:
            total = readers.read_lines(self.engine, loc, 1, 1, record=False).total_lines or 0
        except OperationFailed as exc:
            return self.failed(exc.failure, path)
        init, final = view_range
        shown = f"[{init}, {final}]"
        if init < 1 or init > total:
            return self._error(
                f"Invalid `view_range`: {shown}. Its first element `{init}` should be within "
                f"the range of lines of the file: [1, {total}]"
            )
        # An end past the last line shows up to the last line, as Anthropic's documentation
        # describes view_range (start and end lines; -1 reads to the end) and as OpenHands'
        # editor does; the start must still name a line of the file.
        final = min(final, total)
        if final != -1 and final < init:
            return self._error(
                f"Invalid `view_range`: {shown}. Its second element `{final}` should be "
                f"larger or equal than its first `{init}`"
            )
        # [init, -1] reads to the end: a bounded range (never a whole-file read), so the
        # tail of a file over the size limit can still be viewed.
        return init, (total - init + 1 if final == -1 else final - init + 1), total

    def _view_dir(self, path: str, loc: Location) -> Result:
        visible = self.engine.visibility(loc)
        shown = path.rstrip("/") or "/"
        found: list[str] = [shown]

        def walk(real: Any, rel: str, named: str, depth: int) -> None:
            try:
                listing = search.list_directory(
                    real,
                    respect_gitignore=False,
                    visible=lambda name, is_dir: (
                        not name.startswith(".") and visible(rel + name, is_dir)
                    ),
                )
            except OSError:
                return
            for entry in listing.entries:
                if not visible(rel + entry.name, entry.is_dir):
                    continue
                found.append(f"{named}/{entry.name}")
                if entry.is_dir and not entry.is_symlink and depth < 2:
                    walk(
                        real / entry.name, f"{rel}{entry.name}/", f"{named}/{entry.name}", depth + 1
                    )

        walk(loc.real, "", "" if shown == "/" else shown, 1)
        listing = "\n".join(found)
        clipped = len(listing) > self.budget
        if clipped:
            listing = listing[: self.budget] + TRUNCATED_MESSAGE
        text = (
            f"Here's the files and directories up to 2 levels deep in {path}, excluding hidden items:\n"
            f"{listing}\n\n"
        )
        return Result(
            True,
            text,
            {
                "path": str(loc.path),
                "command": "view",
                "entries": len(found) - 1,
                "truncated": clipped,
            },
        )

    # -- changes -------------------------------------------------------------------------------

    def _changed(self, outcome: Outcome, path: str, command: str) -> Result | None:
        if not outcome.ok:
            assert outcome.failure is not None
            return self.failed(outcome.failure, path)
        if outcome.dry_run:
            return Result(
                True,
                f"[dry run] No changes were written. The {command} would change {path}:\n"
                f"{clip_diff(outcome.diff)}",
                {**outcome.data(), "command": command},
            )
        return None

    def _create(self, p: Any, loc: Location) -> Result:
        if p.file_text is None:
            return self._error("Parameter `file_text` is required for command: create")
        text = p.file_text
        outcome = self.change(
            Change(
                p.path,
                "create",
                lambda old: edits.overwrite(old, text),
                must_not_exist=not self.allow_overwrite,
                create_parents=True,
            )
        )
        if (done := self._changed(outcome, p.path, "create")) is not None:
            return done
        verb = "created" if outcome.created else "overwritten"
        return Result(
            True, f"File {verb} successfully at: {p.path}", {**outcome.data(), "command": "create"}
        )

    def _str_replace(self, p: Any, loc: Location) -> Result:
        if p.old_str is None:
            return self._error("Parameter `old_str` is required for command: str_replace")
        old, new = p.old_str, p.new_str or ""
        outcome = self.change(
            Change(
                p.path,
                "edit",
                lambda text: edits.replace(text or "", old, new),
                must_exist=True,
                check_stale=False,
                streamed=stream_replace(old, new, mode="unique"),
            )
        )
        if (
            not outcome.ok
            and outcome.failure is not None
            and outcome.failure.code in ("no_match", "ambiguous")
        ):
            return self._replace_failed(outcome.failure, p.path, old)
        if (done := self._changed(outcome, p.path, "str_replace")) is not None:
            return done
        first, last = outcome.changed_lines or (
            self._line_count(outcome),
            self._line_count(outcome),
        )
        if outcome.new_text is None:  # streamed: the first changed line only is known
            last = first + max(1, edits.line_count(new)) - 1
        lines, start = self._snippet(outcome, p.path, first - SNIPPET_LINES, last + SNIPPET_LINES)
        text = (
            f"The file {p.path} has been edited. "
            + self._cat_n(lines, start, f"a snippet of {p.path}")
            + REVIEW
        )
        return Result(True, text, {**outcome.data(), "command": "str_replace"})

    @staticmethod
    def _line_count(outcome: Outcome) -> int:
        return edits.line_count(outcome.new_text or "")

    def _replace_failed(self, failure: Failure, path: str, old: str) -> Result:
        data = {
            "error": failure.code,
            **{k: v for k, v in failure.detail.items() if k != "message"},
        }
        if failure.code == "ambiguous":
            lines = [loc["line"] for loc in failure.detail.get("locations", [])]
            return Result(
                False,
                f"No replacement was performed. Multiple occurrences of old_str `{old}` in "
                f"lines {lines}. Please ensure it is unique",
                data,
            )
        text = f"No replacement was performed, old_str `{old}` did not appear verbatim in {path}."
        closest = [c for c in failure.detail.get("closest", []) if c.get("similarity", 0) >= 0.5][
            :1
        ]
        for region in closest:  # where the most similar text is: after the reference's text
            where = region["start_line"]
            lines = str(region.get("text", "")).split("\n")
            differs = "; ".join(region.get("differs", []))
            data["closest_hint"] = (
                f"The most similar text is at line {where}"
                + (f" (differs: {differs})" if differs else "")
                + ":\n"
                + self._numbered(lines, where)
            )
            if not self.options.get("plain"):
                text += "\n" + data["closest_hint"]
        return Result(False, text, data)

    def _insert(self, p: Any, loc: Location) -> Result:
        if p.insert_line is None:
            return self._error("Parameter `insert_line` is required for command: insert")
        if p.insert_text is not None and p.new_str is not None and p.insert_text != p.new_str:
            return self._error(
                "Give the text to insert as `insert_text` or as `new_str`, not both."
            )
        new = p.insert_text if p.insert_text is not None else p.new_str
        if new is None:
            return self._error(
                "Parameter `insert_text` (or `new_str`) is required for command: insert"
            )
        block = new if new else "\n"
        line = p.insert_line
        outcome = self.change(
            Change(
                p.path,
                "insert",
                lambda text: edits.insert_at_line(text or "", line, block),
                must_exist=True,
                streamed=streamops.StreamInsert(line, block),
            )
        )
        if (done := self._changed(outcome, p.path, "insert")) is not None:
            return done
        added = edits.line_count(block)
        lines, start = self._snippet(
            outcome, p.path, line - SNIPPET_LINES + 1, line + added + SNIPPET_LINES
        )
        text = (
            f"The file {p.path} has been edited. "
            + self._cat_n(lines, start, "a snippet of the edited file")
            + REVIEW_INSERT
        )
        return Result(True, text, {**outcome.data(), "command": "insert"})

    def _undo(self, p: Any, loc: Location) -> Result:
        outcome = undo(self.engine, p.path, dry_run=self.workspace.dry_run)
        if not outcome.ok:
            assert outcome.failure is not None
            if outcome.failure.code == "stale":
                return self._error(
                    f"Cannot undo the last edit to {p.path}: the file was changed after that "
                    "edit, and undoing it would lose those changes.",
                    "stale",
                )
            return self.failed(outcome.failure, p.path)
        data = {**outcome.data(), "command": "undo_edit"}
        if outcome.dry_run:
            return Result(
                True,
                f"[dry run] No changes were written. Undo would change {p.path}:\n{clip_diff(outcome.diff)}",
                data,
            )
        head = f"Last edit to {p.path} undone successfully. "
        if not outcome.extra.get("undone", {}).get("existed", True):
            return Result(
                True,
                head + "The file did not exist before that edit, so it has been removed.",
                data,
            )
        try:
            s = readers.read_lines(
                self.engine, loc, 1, None, max_line_chars=self.budget, max_output_chars=self.budget
            )
        except OperationFailed as exc:
            return Result(True, head + self.failed(exc.failure, p.path).text, data)
        clipped = s.truncated and s.truncated_by == "budget"
        return Result(True, head + self._cat_n(s.lines, s.start, p.path, clipped), data)
