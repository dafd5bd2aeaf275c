"""The `apply_patch` toolset: the V4A patch tool OpenAI's models are trained to edit with.

Two forms, one parser (`filewright.edit.patch_parse`), one applier
(`filewright.edit.patch_apply`) and one all-or-nothing commit (`filewright.engine.batch`):

- the function tool `apply_patch` with one parameter, `input`: the whole patch
  (``*** Begin Patch`` ... ``*** End Patch``, any number of Add / Delete / Update File
  operations), for Chat Completions, Anthropic, Gemini, MCP and the CLI;
- the Responses API's built-in tool: ``definitions("openai-responses")`` is
  ``[{"type": "apply_patch"}]``; the model's ``apply_patch_call`` items (one
  ``create_file`` / ``update_file`` / ``delete_file`` operation each) are run by
  `apply_operation` (``filewright.dispatch`` calls it) and answered with
  ``apply_patch_call_output`` items.

What it does that the reference appliers do not: a hunk's lines are found through the
recovery ladder and must identify one place (else every place is listed; never the
first hit); ``@@`` scope lines are constraints (the hunk must be in the block they name;
a scope naming nothing is an error), ``*** End of File`` and hunk order narrow a repeated
context; operation keys the tool does not define and backslash paths are refused; a patch that fails anywhere changes no file; files keep their encoding, BOM,
line endings and final-newline state; every path goes through the sandbox and policy;
each file changed gets its own history entry (``filewright`` undo restores it, a deleted
file included); a move never replaces an existing file unless the patch deletes it
first. Failures name the file, the hunk, its line in the patch and the closest real text
with line numbers.
"""

from __future__ import annotations

from typing import Any

from filewright.core.result import Failure, Result
from filewright.edit.patch_apply import apply_hunks
from filewright.edit.patch_parse import (
    AddFile,
    DeleteFile,
    Hunk,
    Patch,
    PatchError,
    UpdateFile,
    parse_create_diff,
    parse_patch,
    parse_update_diff,
    path_problem,
)
from filewright.engine.batch import BatchOutcome, FileStep, apply_batch
from filewright.engine.change import MAX_DIFF_DATA, clip_diff
from filewright.tools.base import Tool, Toolset

DESCRIPTION = """Edit files with a patch. `input` holds the whole patch:
*** Begin Patch
*** Update File: path/to/file.py
@@ def function_name():
 an unchanged line, for context
-a line to remove
+a line to add
*** Add File: path/to/new.py
+every line of a new file starts with +
*** Delete File: path/to/old.py
*** End Patch
An Update File may be followed by `*** Move to: new/path` to rename the file. Start each hunk with `@@`, optionally followed by the line that opens the enclosing class or function; give about three unchanged lines before and after each change, copied exactly, so the hunk matches one place only. End a hunk that reaches the end of the file with `*** End of File`. Paths are relative to the workspace. Either the whole patch is applied or nothing is."""

_LETTER = {"add": "A", "update": "M", "delete": "D", "move_to": "R", "move_from": None}
_OPERATIONS = ("create_file", "update_file", "delete_file")
# the keys each operation defines (the Responses API's, plus the OpenAI Agents SDK's
# ``move_to`` on update_file); any other key is refused, not dropped
_KEYS = {
    "create_file": ("type", "path", "diff"),
    "update_file": ("type", "path", "diff", "move_to"),
    "delete_file": ("type", "path"),
}


class ApplyPatchToolset(Toolset):
    """OpenAI's apply_patch tool on the engine (see module docstring)."""

    name = "apply_patch"

    def tools(self) -> list[Tool]:
        return [
            Tool(
                "apply_patch",
                DESCRIPTION,
                "filewright.toolsets.apply_patch_params:ApplyPatchParams",
                self.run,
                destructive=True,
                title="Apply patch",
                responses_builtin={"type": "apply_patch"},
            )
        ]

    # -- the function tool --------------------------------------------------------------

    def run(self, p: Any) -> Result:
        parsed = parse_patch(p.input)
        if isinstance(parsed, PatchError):
            return _invalid(parsed, "patch")
        return self._apply(parsed, "patch")

    # -- the Responses built-in tool ------------------------------------------------------

    def apply_operation(self, operation: Any) -> Result:
        """Run one ``apply_patch_call`` operation (a dict or the SDK's object)."""
        op = _as_dict(operation)
        kind, path, diff = op.get("type"), op.get("path"), op.get("diff")
        if kind not in _OPERATIONS:
            return _bad(
                f"unknown operation type {kind!r}; expected one of {', '.join(_OPERATIONS)}"
            )
        assert isinstance(kind, str)
        extra = [k for k, v in op.items() if k not in _KEYS[kind] and v is not None]
        if extra:
            return _bad(
                f"{kind} does not take {', '.join(repr(k) for k in extra)}; its keys are "
                f"{', '.join(_KEYS[kind])}"
            )
        if not isinstance(path, str) or not path.strip():
            return _bad(f"{kind} needs a 'path'")
        if kind != "delete_file" and not isinstance(diff, str):
            return _bad(f"{kind} needs a 'diff'")
        move_to = op.get("move_to")
        if move_to is not None and (not isinstance(move_to, str) or not move_to.strip()):
            return _bad(f"'move_to' must be a path (a non-empty string), got {move_to!r}")
        for value in (path, move_to):
            problem = path_problem(value) if isinstance(value, str) else None
            if problem:
                return _bad(problem)
        if kind == "delete_file":
            return self._apply(Patch((DeleteFile(path, 0),)), "diff")
        assert isinstance(diff, str)  # (checked above for every kind but delete_file)
        if kind == "create_file":
            text = parse_create_diff(diff)
            if isinstance(text, PatchError):
                return _invalid(text, "diff")
            return self._apply(Patch((AddFile(path, text, 0),)), "diff")
        hunks = parse_update_diff(diff)
        if isinstance(hunks, PatchError):
            return _invalid(hunks, "diff")
        return self._apply(Patch((UpdateFile(path, hunks, move_to, 0),)), "diff")

    # -- shared -----------------------------------------------------------------------------

    def _apply(self, patch: Patch, source: str) -> Result:
        steps = [_step(op) for op in patch.operations]
        outcome = apply_batch(self.engine, steps)
        if not outcome.ok:
            return self._failure(patch, outcome, source)
        return _success(outcome)

    def _failure(self, patch: Patch, outcome: BatchOutcome, source: str) -> Result:
        failure = outcome.failure or Failure("internal", "", {})
        op = patch.operations[outcome.step] if outcome.step is not None else None
        head = _where(op, source) if op is not None else ""
        detail = failure.detail
        if failure.code.startswith("patch_"):
            body = _hunk_failure(failure, op, source)
        else:
            body = self.text_for(failure, failure.path or None)
        text = f"{head}{body}\nThe patch was not applied: no file was changed."
        data: dict[str, Any] = {"error": failure.code, "applied": []}
        if op is not None:
            data["file"] = op.path
            data["operation"] = _op_name(op)
        data.update({k: v for k, v in detail.items() if k != "message"})
        return Result(False, text, data)


def _as_dict(value: Any) -> dict[str, Any]:
    if isinstance(value, dict):
        return value
    dump = getattr(value, "model_dump", None)
    return dump() if callable(dump) else {}


def _bad(message: str) -> Result:
    return Result(
        False,
        f"Invalid apply_patch operation: {message}. No file was changed.",
        {"error": "bad_arguments", "applied": []},
    )


def _invalid(error: PatchError, source: str) -> Result:
    where = f"line {error.line} of the {source}: " if error.line else ""
    return Result(
        False,
        f"Invalid {source}: {where}{error.message}\nThe {source} was not applied: no file was "
        "changed.",
        {"error": "invalid_patch", "line": error.line, "applied": []},
    )


def _step(op: AddFile | DeleteFile | UpdateFile) -> FileStep:
    if isinstance(op, AddFile):
        return FileStep("add", op.path, text=op.text)
    if isinstance(op, DeleteFile):
        return FileStep("delete", op.path)
    hunks = op.hunks

    def compute(text: str | None) -> Any:
        return apply_hunks(text or "", hunks)

    return FileStep("update", op.path, compute=compute, move_to=op.move_to)


def _op_name(op: AddFile | DeleteFile | UpdateFile) -> str:
    return {AddFile: "add", DeleteFile: "delete", UpdateFile: "update"}[type(op)]


def _where(op: AddFile | DeleteFile | UpdateFile, source: str) -> str:
    kind = {AddFile: "Add File", DeleteFile: "Delete File", UpdateFile: "Update File"}[type(op)]
    line = f" (line {op.patch_line} of the {source})" if op.patch_line else ""
    return f"{kind}: {op.path}{line}: "


def _numbered(text: str, first: int) -> str:
    return "\n".join(f"  {first + i:>5}  {line}" for i, line in enumerate(text.split("\n")))


def _clip(line: str, width: int = 300) -> str:
    return line if len(line) <= width else line[:width] + "…"


def _quoted(text: str, limit: int = 12) -> str:
    lines = text.split("\n")
    shown = "\n".join(f"    {_clip(x)}" for x in lines[:limit])
    return shown + (f"\n    … ({len(lines) - limit} more lines)" if len(lines) > limit else "")


def _hunk_failure(failure: Failure, op: Any, source: str) -> str:
    d = failure.detail
    hunk = d.get("hunk")
    hunks: tuple[Hunk, ...] = getattr(op, "hunks", ())
    line = d.get("patch_line") or (hunks[hunk - 1].patch_line if hunk and hunks else 0)
    at = f"hunk {hunk}" + (f" (line {line} of the {source})" if line else "")
    if failure.code == "patch_no_match":
        where = "in the file"
        if d.get("scope"):
            spans = ", ".join(f"{a}-{b}" for a, b in d.get("scope_lines", [])[:5])
            where = f"inside {_scopes(d['scope'])} (lines {spans})"
        out = [f"{at}: these lines were not found {where}:", _quoted(d.get("expected", ""))]
        hints = [c for c in d.get("closest", []) if c.get("similarity", 0) >= 0.5][:3]
        for c in hints:
            differs = "; ".join(c.get("differs", [])[:3])
            span = (
                f"line {c['start_line']}"
                if c["start_line"] == c["end_line"]
                else f"lines {c['start_line']}-{c['end_line']}"
            )
            outside = d.get("scope") and not any(
                a <= c["start_line"] <= b for a, b in d.get("scope_lines", [])
            )
            label = (
                f"Closest text in the file, {span}"
                + (", outside the scope" if outside else "")
                + (f" (differs: {differs})" if differs else "")
            )
            out.append(f"{label}:\n{_numbered(c['text'], c['start_line'])}")
        if not hints:
            out.append(
                "Nothing in the file is close to them; read the file and write the hunk again."
            )
        return "\n".join(out)
    if failure.code == "patch_ambiguous":
        if d.get("scope"):  # the patch has its @@ line already: ask for what it lacks
            ask = (
                f"{at}: its lines match {d.get('count')} places inside {_scopes(d['scope'])}; "
                "add unchanged lines around the change, or one more @@ line naming the block "
                "inside it that holds the change, so that they match one place:"
            )
        else:
            ask = (
                f"{at}: its lines match {d.get('count')} places in the file; add unchanged "
                "lines around the change, or an @@ line with the enclosing class or function, "
                "so that they match one place:"
            )
        out = [ask]
        out += [f"Match at line {w['line']}:\n{w['context']}" for w in d.get("locations", [])[:10]]
        return "\n".join(out)
    if failure.code == "patch_scope_not_found":
        inner = f" inside {_scopes(d['within'])}" if d.get("within") else ""
        out = [
            f"{at}: its scope '@@ {d.get('scope')}' names no line{inner}: no line starts with "
            "that text. Give the line that opens the enclosing block as the file has it, or "
            "leave the @@ line bare."
        ]
        for c in d.get("closest", [])[:3]:
            if c.get("similarity", 0) >= 0.5:
                out.append(f"Closest line in the file:\n{_numbered(c['text'], c['start_line'])}")
        return "\n".join(out)
    if failure.code == "patch_no_context":
        return (
            f"{at}: it only adds lines under '@@ {' '.join(d.get('scope', []))}'; include at "
            "least one existing line around them as context, so their place is known"
        )
    if failure.code == "patch_overlap":
        return f"two hunks change the same lines (near lines {d.get('lines')})"
    return failure.code


def _scopes(scopes: list[str]) -> str:
    return " / ".join(f"'@@ {x}'" for x in scopes)


def _success(outcome: BatchOutcome) -> Result:
    lines = []
    moved_from = [f for f in outcome.files if f.operation == "move_from"]
    for f in outcome.files:
        letter = _LETTER.get(f.operation)
        if letter is None:
            continue
        if f.operation == "move_to" and moved_from:
            source = moved_from.pop(0)
            lines.append(f"R {source.display} -> {f.display}")
        else:
            lines.append(f"{letter} {f.display}")
    verb = "would change" if outcome.dry_run else "changed"
    if not lines:
        text = "Patch applied: no file needed a change."
    else:
        head = "Patch checked (dry run)" if outcome.dry_run else "Patch applied"
        text = f"{head}; files {verb}:\n" + "\n".join(lines)
    files = []
    for f in outcome.files:
        entry: dict[str, Any] = {
            "path": f.display,
            "operation": f.operation,
            "created": f.created,
            "deleted": f.deleted,
            "bytes": f.bytes_written,
            "diff": clip_diff(f.diff, MAX_DIFF_DATA),
        }
        if f.strategy:
            entry["strategy"] = f.strategy
        if f.encoding:
            entry["encoding"] = f.encoding
        files.append(entry)
    return Result(
        True,
        text,
        {"files": files, "dry_run": outcome.dry_run, "risk": outcome.risk.value},
    )
