"""The `worker` toolset: the SystemWorker file actions of an orchestrated agent.

Seed: `system-worker-file-actions.md`. Three actions, called by an orchestrator as JSON
(`{"worker": "system", "action": "write_file", "args": {...}, "risk_level": "medium"}`):

- `write_file(path, content)`: create or overwrite a file. Parent directories are NOT
  created. Risk `medium` for a new file, `high` to overwrite an existing one.
- `append_to_file(path, content)`: append to a file that must already exist. Risk `medium`.
- `replace_in_file(path, old, new, regex=False, count=None)`: exact (literal) find and
  replace by default, a Python regular expression with `regex=True` (the replacement is
  then a `re` template: `\\1`, `\\g<name>`); `count` limits how many matches are replaced
  (`None` or `0`: all). Literal matching is exact on purpose (the seed's "exact match
  first, safe by default"): no whitespace-tolerant ladder. Risk `high`.

Every result carries `data["success"]`, `data["message"]` (= `text`) and
`data["risk_level"]`. Failures are worded as the seed's error table; "no matches" is a
success. Nothing here protects `.env`: writing it is the seed's own scenario.

Dry run (`Workspace(dry_run=True)` or the toolset option `dry_run=True`) writes nothing
and returns the seed's `[DRY-RUN] …` previews. Content previews show at most
`PREVIEW_LINES` lines and `PREVIEW_CHARS` characters, followed by
`... (N more chars not shown)` when cut; the quoted `old` / `new` of a replace preview
show newlines as `\\n` and are cut at `QUOTE_CHARS` characters with `...`.

Also exported for the orchestrator: `WORKER_CAPABILITIES` (the seed's capability list)
and `worker_details()` (the "Worker Details" prompt block), both generated from the
action specs below, so prompt and tools never drift.
"""

from __future__ import annotations

import contextlib
import importlib
import json
import os
import re
import types
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Union, get_args, get_origin

from filewright.core import regexes
from filewright.core.result import Failure, OperationFailed, Result
from filewright.edit import edits
from filewright.edit.placeholders import omission_placeholders
from filewright.engine import streamops
from filewright.engine.change import Change, Outcome
from filewright.fs.paths import PathRefused
from filewright.tools.base import Tool, Toolset
from filewright.toolsets.streaming import stream_write

if TYPE_CHECKING:
    from filewright.toolsets.worker_params import (
        AppendToFileParams,
        ReplaceInFileParams,
        WriteFileParams,
    )

MODELS = "filewright.toolsets.worker_params:"

PREVIEW_LINES = 20
PREVIEW_CHARS = 1000
QUOTE_CHARS = 200


@dataclass(frozen=True)
class ActionSpec:
    """One worker action as the orchestrator's prompt describes it."""

    name: str
    summary: str
    risk: str
    params: str  # "module:Name" of the parameter model
    details: str


ACTIONS: tuple[ActionSpec, ...] = (
    ActionSpec(
        "write_file",
        "Create or overwrite a file",
        "medium (new file), high (overwrite existing)",
        MODELS + "WriteFileParams",
        "Parent directories are not created: the directory must already exist.",
    ),
    ActionSpec(
        "append_to_file",
        "Append content to existing file",
        "medium",
        MODELS + "AppendToFileParams",
        "The file must already exist (use write_file to create it). Content is appended as given.",
    ),
    ActionSpec(
        "replace_in_file",
        "Find and replace text in file",
        "high",
        MODELS + "ReplaceInFileParams",
        "Exact text match by default; regex=true enables regular expressions; count limits the "
        "number of replacements (default: all). No match is reported as success.",
    ),
)

# Actions of the SystemWorker that existed before the file actions (not implemented here).
EXISTING_SYSTEM_ACTIONS: tuple[str, ...] = (
    "list_files",
    "find_large_files",
    "check_disk_usage",
    "delete_files",
)

WORKER_CAPABILITIES: dict[str, list[str]] = {
    "system": [*EXISTING_SYSTEM_ACTIONS, *(spec.name for spec in ACTIONS)],
}


def _arg_type(annotation: Any) -> str:
    """How the prompt shows a parameter's type: "string" (quoted), bool, int."""
    if get_origin(annotation) in (Union, types.UnionType):
        annotation = next(a for a in get_args(annotation) if a is not type(None))
    if annotation is str:
        return '"string"'
    return getattr(annotation, "__name__", str(annotation))


def _args_signature(ref: str) -> str:

    module, _, name = ref.partition(":")
    params = getattr(importlib.import_module(module), name)
    parts = []
    for name, field in params.model_fields.items():
        shown = f'"{name}": {_arg_type(field.annotation)}'
        if not field.is_required():
            shown += " (optional)"
        parts.append(shown)
    return "{" + ", ".join(parts) + "}"


def worker_details() -> str:
    """The seed's "Worker Details" block for the orchestrator's system prompt."""
    blocks = [
        f"- system.{spec.name}: {spec.summary}\n"
        f"  - args: {_args_signature(spec.params)}\n"
        f"  - risk_level: {spec.risk}"
        for spec in ACTIONS
    ]
    return "\n\n".join(blocks)


def _preview(content: str) -> str:
    """Content cut to PREVIEW_LINES lines / PREVIEW_CHARS chars, saying how much is hidden."""
    lines = content.split("\n")
    shown = "\n".join(lines[:PREVIEW_LINES])[:PREVIEW_CHARS]
    if len(shown) < len(content):
        shown += f"\n... ({len(content) - len(shown)} more chars not shown)"
    return shown


def _quote(text: str) -> str:
    one_line = text.replace("\r", "\\r").replace("\n", "\\n")
    if len(one_line) > QUOTE_CHARS:
        one_line = one_line[:QUOTE_CHARS] + "..."
    return f'"{one_line}"'


class WorkerToolset(Toolset):
    """write_file / append_to_file / replace_in_file with risk levels and dry-run previews.

    Options: `dry_run=True` previews every action without writing.
    """

    name = "worker"
    profile = ()  # deliberately nothing: the worker's scenario is writing `.env` files
    messages: ClassVar[dict[str, dict[str, str]]] = {
        "*": {
            "parent_missing": "Parent directory does not exist: {path}",
            "permission": "Permission denied: {path}",
            "is_directory": "Path is a directory: {path}",
            "not_found": "File not found: {path}",
            "hidden": "File not found: {path}",
            "invalid_regex": "Invalid regex pattern: {error}",
        }
    }

    def tools(self) -> list[Tool]:
        handlers: dict[str, tuple[Callable[[Any], Result], bool]] = {
            "write_file": (self.write_file, True),
            "append_to_file": (self.append_to_file, False),
            "replace_in_file": (self.replace_in_file, True),
        }
        out = []
        for spec in ACTIONS:
            handler, destructive = handlers[spec.name]
            out.append(
                Tool(
                    spec.name,
                    f"{spec.summary}. {spec.details} Risk level: {spec.risk}.",
                    spec.params,
                    handler,
                    destructive=destructive,
                    title=spec.summary,
                )
            )
        return out

    # -- the orchestrator's side ----------------------------------------------------------

    def run_action(self, action: dict[str, Any] | str) -> Result:
        """Run one orchestrator action: `{"worker": "system", "action": ..., "args": {...},
        "risk_level": ...}` (a dict or its JSON text). The declared `risk_level` is kept in
        `data["declared_risk_level"]`; `data["risk_level"]` is the action's real risk."""
        if isinstance(action, str):
            try:
                action = json.loads(action)
            except ValueError as exc:
                return self._result(
                    False, f"Invalid action: not valid JSON ({exc})", "", error="bad_action"
                )
        if not isinstance(action, dict):
            return self._result(
                False, "Invalid action: expected a JSON object", "", error="bad_action"
            )
        worker = action.get("worker", "system")
        name = action.get("action")
        if worker != "system":
            return self._result(
                False,
                f"Unknown worker: {worker!r} (this worker is 'system')",
                "",
                error="bad_action",
            )
        if name not in self.tool_names():
            known = ", ".join(self.tool_names())
            return self._result(
                False,
                f"Unknown action: {name!r}. Available file actions: {known}",
                "",
                error="bad_action",
            )
        result = self.call(name, action.get("args") or {})
        result.data.setdefault("success", result.ok)
        result.data.setdefault("message", result.text)
        result.data["action"] = name
        if "risk_level" in action:
            result.data["declared_risk_level"] = action["risk_level"]
        return result

    def risk_level(self, action: str, args: dict[str, Any]) -> str:
        """The risk of `action` with `args` now: medium to create or append, high to
        overwrite an existing file or replace."""
        if action == "append_to_file":
            return "medium"
        if action == "write_file":
            return "high" if self._exists(str(args.get("path", ""))) else "medium"
        return "high"

    # -- the actions ----------------------------------------------------------------------

    def write_file(self, p: WriteFileParams) -> Result:
        """Create or overwrite a file; the parent directory must exist."""
        content = p.content
        outcome = self.change(
            Change(
                p.path,
                "write",
                lambda old: edits.overwrite(old, content),
                check_stale=False,
                dry_run=self._dry_run,
                streamed=stream_write(content),
            )
        )
        risk = outcome.risk.value if outcome.ok else self.risk_level("write_file", {"path": p.path})
        if not outcome.ok:
            return self._failure(outcome, p.path, risk)
        path = self._shown(outcome, p.path)
        n = len(content)
        if outcome.dry_run:
            text = (
                f"[DRY-RUN] Would write {n} chars to {path}\nContent preview:\n{_preview(content)}"
            )
        elif outcome.created:
            text = f"Created file {path} ({n} chars)"
        else:
            text = f"Overwrote file {path} ({n} chars)"
        return self._result(True, text, risk, outcome, chars=n)

    def append_to_file(self, p: AppendToFileParams) -> Result:
        """Append to an existing file exactly as given."""
        content = p.content
        outcome = self.change(
            Change(
                p.path,
                "append",
                lambda old: edits.append(old or "", content),
                must_exist=True,
                check_stale=False,
                dry_run=self._dry_run,
                streamed=streamops.StreamAppend(content),
            )
        )
        if not outcome.ok:
            return self._failure(outcome, p.path, "medium")
        path = self._shown(outcome, p.path)
        n = len(content)
        if outcome.dry_run:
            text = f"[DRY-RUN] Would append {n} chars to {path}\nContent to append:\n{_preview(content)}"
        else:
            text = f"Appended {n} chars to {path}"
        return self._result(True, text, "medium", outcome, chars=n)

    def replace_in_file(self, p: ReplaceInFileParams) -> Result:
        """Literal (or regex) replace of all, or the first `count`, matches; none is a success."""
        old, new = p.old, p.new
        if not p.regex:
            old, new = old.replace("\r\n", "\n"), new.replace("\r\n", "\n")
        pattern = old if p.regex else re.escape(old)
        found: dict[str, int] = {"matches": 0}

        def compute(text: str | None) -> Any:
            current = text or ""
            if placeholders := omission_placeholders(new, old):
                return edits.placeholder_failure(placeholders)
            # replace_regex reports an invalid or runaway pattern itself
            with contextlib.suppress(regexes.error, regexes.RegexTimeout):
                found["matches"] = regexes.count(
                    regexes.compile(pattern, regexes.MULTILINE), current
                )
            result = edits.replace_regex(
                current, pattern, new, count=p.count or None, literal_replacement=not p.regex
            )
            if isinstance(result, edits.EditFailure) and result.code == "no_change":
                return current  # matched, but replacing changes nothing: not an error
            return result

        outcome = self.change(
            Change(
                p.path,
                "edit",
                compute,
                must_exist=True,
                check_stale=False,
                dry_run=self._dry_run,
                streamed=self._streamed_replace(p, old, new, pattern),
            )
        )
        if outcome.extra.get("streamed") and outcome.ok:
            found["matches"] = outcome.replacements
        extra = {"matches_found": found["matches"], "regex": p.regex}
        if not outcome.ok:
            assert outcome.failure is not None
            if outcome.failure.code == "no_match":
                text = f"No matches found for '{p.old}'"
                return self._result(
                    True,
                    text,
                    "high",
                    None,
                    path=self._shown(outcome, p.path),
                    replacements=0,
                    dry_run=self._dry_run,
                    **extra,
                )
            return self._failure(outcome, p.path, "high", **extra)
        path = self._shown(outcome, p.path)
        m, k = found["matches"], outcome.replacements
        if outcome.dry_run:
            text = f"[DRY-RUN] Would replace in {path}\n  {_quote(p.old)} → {_quote(p.new)}\n  Matches found: {m}"
            if p.count and p.count < m:
                text += f"\n  Replacements (count={p.count}): {p.count}"
        else:
            text = (
                f"Replaced {k} of {m} matches in {path}"
                if k < m
                else f"Replaced {k} match{'es' if k != 1 else ''} in {path}"
            )
        return self._result(True, text, "high", outcome, **extra)

    # -- helpers --------------------------------------------------------------------------

    @staticmethod
    def _streamed_replace(p: ReplaceInFileParams, old: str, new: str, pattern: str) -> Any:
        """The replace as a streamed operation (for large files); None when the pattern
        does not compile (the in-memory path reports it). Omission placeholders in `new`
        that `old` lacks are refused whatever the file holds, as in memory."""
        refused: dict[str, Any] = {
            "placeholders": tuple(omission_placeholders(new, old)),
            "refuse_placeholders_always": True,
        }
        if not p.regex:
            if p.count:
                return streamops.StreamReplace(old, new, mode="count", count=p.count, **refused)
            return streamops.StreamReplace(old, new, mode="all", **refused)
        try:
            rx = regexes.compile(pattern, regexes.MULTILINE)
        except regexes.error:
            return None
        return streamops.StreamRegex(rx, new, count=p.count or None, **refused)

    @property
    def _dry_run(self) -> bool:
        return bool(self.options.get("dry_run", False)) or self.workspace.dry_run

    def _absolute(self, given: str) -> str:
        """The path as an absolute path (for messages about paths that did not resolve)."""
        raw = Path(given)
        base = raw if raw.is_absolute() else self.workspace.roots[0] / raw
        return os.path.normpath(base)

    def _shown(self, outcome: Outcome, given: str) -> str:
        return str(outcome.loc.path) if outcome.loc is not None else self._absolute(given)

    def _exists(self, given: str) -> bool:
        """Whether `given` names an existing file the policy lets the worker see (a hidden
        file must not raise the risk: that would tell it exists)."""
        try:
            loc, _access = self.engine.locate(given, purpose="read", expect="any")
        except (PathRefused, OperationFailed, OSError):
            return False
        return loc.exists and not loc.is_dir

    def _failure(self, outcome: Outcome, given: str, risk: str, **data: Any) -> Result:
        failure = outcome.failure or Failure("io_error", given, {})
        shown = self._shown(outcome, given)
        if failure.code == "parent_missing":
            shown = os.path.dirname(shown)
        text = self.text_for(failure, shown)
        payload = {k: v for k, v in failure.detail.items() if k != "message"}
        if "error" in payload:  # e.g. the regex engine's message
            payload["reason"] = payload.pop("error")
        payload["error"] = failure.code
        return self._result(False, text, risk, None, path=shown, **payload, **data)

    def _result(
        self, ok: bool, text: str, risk: str, outcome: Outcome | None = None, **data: Any
    ) -> Result:
        payload: dict[str, Any] = outcome.data() if outcome is not None else {}
        payload.pop("risk", None)
        payload.update(data)
        payload.update(success=ok, message=text)
        if risk:
            payload["risk_level"] = risk
        return Result(ok, text, payload)
