"""The `default` toolset's changing tools: write, edit, multi_edit, replace_span, insert,
append, undo. Each is a function of the toolset and its arguments, loaded by name when
first called (`Toolset.by_name`), so that a read loads none of the edit machinery."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from filewright.core.result import Failure, Result
from filewright.edit import edits
from filewright.edit.matching import LADDER
from filewright.engine import streamops
from filewright.engine.change import Change, Outcome, clip_diff
from filewright.engine.undo import undo as undo_change
from filewright.toolsets.streaming import stream_replace, stream_write

if TYPE_CHECKING:
    from filewright.tools.base import Toolset
    from filewright.toolsets.default_params import (
        AppendParams,
        EditParams,
        InsertParams,
        MultiEditParams,
        ReplaceSpanParams,
        UndoParams,
        WriteParams,
    )


def hints_text(detail: dict[str, Any], limit: int = 3) -> str:
    """What a failed match teaches: the closest real text, or every ambiguous place."""
    out = []
    for hint in detail.get("closest", [])[:limit]:
        if hint.get("similarity", 0) < 0.5:
            continue
        lines = (
            f"line {hint['start_line']}"
            if hint["start_line"] == hint["end_line"]
            else (f"lines {hint['start_line']}-{hint['end_line']}")
        )
        differs = "; ".join(hint.get("differs", [])[:3])
        body = "\n".join(f"    {line}" for line in str(hint["text"]).split("\n")[:12])
        out.append(
            f"Closest text, {lines}" + (f" (differs: {differs})" if differs else "") + f":\n{body}"
        )
    for where in detail.get("locations", [])[:10]:
        out.append(f"Match at line {where['line']}:\n{where['context']}")
    return ("\n" + "\n".join(out)) if out else ""


_UNDONE = {
    "move": "moved it back",
    "delete": "restored what was deleted",
    "mkdir": "removed the directories it created",
}
_PAST = {"write": "Wrote", "edit": "Edited", "append": "Appended", "insert": "Inserted into"}


def _display(outcome: Outcome, given: str) -> str:
    return outcome.loc.lexical_rel if outcome.loc is not None else given


def _changed(ts: Toolset, outcome: Outcome, given: str, verb: str) -> Result:
    path = _display(outcome, given)
    if not outcome.ok:
        assert outcome.failure is not None
        result = ts.failed(outcome.failure, path)
        result.text += hints_text(outcome.failure.detail)
        return result
    if outcome.dry_run:
        text = f"[dry run] Would {verb} {path}:\n{clip_diff(outcome.diff)}"
    else:
        what = "Created" if outcome.created else _PAST[verb]
        text = f"{what} {path}"
        if outcome.replacements and verb == "edit":
            text += (
                f" ({outcome.replacements} replacement{'s' if outcome.replacements != 1 else ''}"
            )
            if outcome.strategy in LADDER and outcome.strategy != "exact":
                text += f", matched after allowing for {outcome.strategy.replace('_', ' ')}"
            text += ")"
        if outcome.diff:
            text += "\n" + clip_diff(outcome.diff).rstrip("\n")
    return Result(True, text, outcome.data())


def write(ts: Toolset, p: WriteParams) -> Result:
    content = p.content
    outcome = ts.change(
        Change(
            p.path,
            "write",
            lambda old: edits.overwrite(old, content),
            create_parents=True,
            expected_hash=p.expected_hash,
            streamed=stream_write(content),
            dry_run=p.dry_run,
        )
    )
    return _changed(ts, outcome, p.path, "write")


def edit(ts: Toolset, p: EditParams) -> Result:
    old, new, replace_all = p.old_string, p.new_string, p.replace_all
    if old == "":
        return failed_code(ts, "empty_old", p.path)

    def compute(text: str | None) -> Any:
        return edits.replace(text or "", old, new, replace_all=replace_all)

    outcome = ts.change(
        Change(
            p.path,
            "edit",
            compute,
            must_exist=True,
            expected_hash=p.expected_hash,
            streamed=stream_replace(old, new, mode="all" if replace_all else "unique"),
            dry_run=p.dry_run,
        )
    )
    return _changed(ts, outcome, p.path, "edit")


def multi_edit(ts: Toolset, p: MultiEditParams) -> Result:
    ops = [edits.Replace(e.old_string, e.new_string, replace_all=e.replace_all) for e in p.edits]
    for index, op in enumerate(ops):
        if op.old == "":
            return failed_code(ts, "empty_old", p.path, edit_index=index)
    outcome = ts.change(
        Change(
            p.path,
            "edit",
            lambda text: edits.apply_batch(text or "", ops),
            must_exist=True,
            expected_hash=p.expected_hash,
            streamed=streamops.StreamBatch(
                tuple(
                    stream_replace(op.old, op.new, mode="all" if op.replace_all else "unique")
                    for op in ops
                )
            ),
            dry_run=p.dry_run,
        )
    )
    if not outcome.ok and outcome.failure is not None and "edit_index" in outcome.failure.detail:
        result = _changed(ts, outcome, p.path, "edit")
        index = outcome.failure.detail["edit_index"]
        result.text = f"Edit {index + 1} of {len(ops)} failed; nothing was written. {result.text}"
        return result
    return _changed(ts, outcome, p.path, "edit")


def replace_span(ts: Toolset, p: ReplaceSpanParams) -> Result:
    op = edits.SpanReplace(
        p.start,
        p.end,
        p.new_text,
        search_after=p.search_after,
        keep_markers=p.keep_markers,
        start_is_regex=p.start_is_regex,
    )
    outcome = ts.change(
        Change(
            p.path,
            "edit",
            lambda text: op.apply(text or ""),
            must_exist=True,
            expected_hash=p.expected_hash,
            streamed=None
            if p.start_is_regex
            else streamops.StreamSpan(
                p.start,
                p.end,
                lambda span: edits.replace_span(
                    span, p.start, p.end, p.new_text, keep_markers=p.keep_markers
                ),
                search_after=p.search_after,
            ),
            dry_run=p.dry_run,
        )
    )
    return _changed(ts, outcome, p.path, "edit")


def insert(ts: Toolset, p: InsertParams) -> Result:
    line, new = p.line, p.text
    outcome = ts.change(
        Change(
            p.path,
            "insert",
            lambda text: edits.insert_at_line(text or "", line, new),
            must_exist=True,
            expected_hash=p.expected_hash,
            streamed=streamops.StreamInsert(line, new),
            dry_run=p.dry_run,
        )
    )
    return _changed(ts, outcome, p.path, "insert")


def append(ts: Toolset, p: AppendParams) -> Result:
    content = p.content
    outcome = ts.change(
        Change(
            p.path,
            "append",
            lambda old: (old or "") + content,
            create_parents=True,
            streamed=streamops.StreamAppend(content),
            dry_run=p.dry_run,
        )
    )
    return _changed(ts, outcome, p.path, "append")


def undo(ts: Toolset, p: UndoParams) -> Result:
    outcome = undo_change(ts.engine, p.path, dry_run=ts.workspace.dry_run or p.dry_run)
    path = _display(outcome, p.path)
    if not outcome.ok:
        assert outcome.failure is not None
        return ts.failed(outcome.failure, path)
    undone = outcome.extra.get("undone", {})
    verb = "Would restore" if outcome.dry_run else "Restored"
    what = _UNDONE.get(undone.get("operation", ""), "")
    if not what:
        what = (
            "removed it (it was created by that change)"
            if not undone.get("existed")
            else "restored its previous content"
        )
    text = f"{verb} {path}: undid the {undone.get('operation', 'last')} of {undone.get('time', '?')}; {what}."
    if outcome.diff:
        text += "\n" + clip_diff(outcome.diff).rstrip("\n")
    return Result(True, text, outcome.data())


def failed_code(ts: Toolset, code: str, path: str, **detail: Any) -> Result:
    return ts.failed(Failure(code, path, detail), path)
