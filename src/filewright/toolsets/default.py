"""The `default` toolset: the best of every seed, for new agents.

Tools: read, write, edit, multi_edit (a batch, all or nothing), replace_span (between two
markers, with a `search_after` anchor and an optional regex start — the memo seed's tool
for any file), insert, append, undo, list, glob, grep, and the file-management tools of
`default_files` (move, delete, mkdir, stat, tree, read_many, roots). Every changing tool
takes `dry_run`; `read` takes `tail` or a negative `offset`. Every change goes through the
engine's recovery ladder where text is matched, returns a unified diff, and accepts an
optional `expected_hash` (optimistic locking against the hash a read returned). Paths are
relative to the first root or absolute inside a root; results show them relative.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from filewright.core.result import Result
from filewright.engine import streamops
from filewright.engine.change import Change, Outcome, clip_diff
from filewright.tools.base import Tool, Toolset
from filewright.toolsets.common import (
    glob_result,
    grep_result,
    listing_result,
    search_progress,
)
from filewright.toolsets.default_files import FileTools, read_tail_or_range
from filewright.toolsets.streaming import stream_replace, stream_write

if TYPE_CHECKING:
    from filewright.toolsets.default_params import (
        AppendParams,
        EditParams,
        GlobParams,
        GrepParams,
        InsertParams,
        ListParams,
        MultiEditParams,
        ReadParams,
        ReplaceSpanParams,
        UndoParams,
        WriteParams,
    )

MODELS = "filewright.toolsets.default_params:"


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


class DefaultToolset(FileTools, Toolset):
    name = "default"

    def tools(self) -> list[Tool]:
        return [
            Tool(
                "read",
                "Read a text file with line numbers (cat -n style). Returns the content hash for optimistic locking.",
                MODELS + "ReadParams",
                self.read,
                read_only=True,
                title="Read file",
            ),
            Tool(
                "write",
                "Create a file or replace its whole content. Parent directories are created.",
                MODELS + "WriteParams",
                self.write,
                destructive=True,
                title="Write file",
            ),
            Tool(
                "edit",
                "Replace text in a file. old_string must match one place (whitespace and "
                "indentation differences are tolerated when unambiguous); use replace_all for every "
                "occurrence. Returns a diff.",
                MODELS + "EditParams",
                self.edit,
                destructive=True,
                title="Edit file",
            ),
            Tool(
                "multi_edit",
                "Apply several edits to one file in order, all or nothing (none is written "
                "if any fails). Returns a diff.",
                MODELS + "MultiEditParams",
                self.multi_edit,
                destructive=True,
                title="Edit file (batch)",
            ),
            Tool(
                "replace_span",
                "Replace the text between a start and an end marker, without repeating the "
                "text in between. Use search_after to pick one of several sections with the same markers.",
                MODELS + "ReplaceSpanParams",
                self.replace_span,
                destructive=True,
                title="Replace a span",
            ),
            Tool(
                "insert",
                "Insert text after a given line of a file (0 = at the top).",
                MODELS + "InsertParams",
                self.insert,
                title="Insert lines",
            ),
            Tool(
                "append",
                "Append text to the end of a file (created if missing).",
                MODELS + "AppendParams",
                self.append,
                title="Append to file",
            ),
            Tool(
                "undo",
                "Undo the last change made to a file through these tools (restores its previous content).",
                MODELS + "UndoParams",
                self.undo,
                destructive=True,
                title="Undo last change",
            ),
            Tool(
                "list",
                "List one directory: directories first ([DIR]), then files.",
                MODELS + "ListParams",
                self.list,
                read_only=True,
                title="List directory",
            ),
            Tool(
                "glob",
                "Find files by glob pattern, newest first. Honours .gitignore; skips .git and node_modules.",
                MODELS + "GlobParams",
                self.glob,
                read_only=True,
                title="Find files",
            ),
            Tool(
                "grep",
                "Search file contents with a regular expression; matches grouped by file with line numbers.",
                MODELS + "GrepParams",
                self.grep,
                read_only=True,
                title="Search text",
            ),
            *self.file_tools(),
        ]

    def _display(self, outcome: Outcome, given: str) -> str:
        return outcome.loc.lexical_rel if outcome.loc is not None else given

    def _changed(self, outcome: Outcome, given: str, verb: str) -> Result:
        path = self._display(outcome, given)
        if not outcome.ok:
            assert outcome.failure is not None
            result = self.failed(outcome.failure, path)
            result.text += hints_text(outcome.failure.detail)
            return result
        if outcome.dry_run:
            text = f"[dry run] Would {verb} {path}:\n{clip_diff(outcome.diff)}"
        else:
            what = "Created" if outcome.created else _PAST[verb]
            text = f"{what} {path}"
            if outcome.replacements and verb == "edit":
                text += f" ({outcome.replacements} replacement{'s' if outcome.replacements != 1 else ''}"
                from filewright.edit.matching import LADDER

                if outcome.strategy in LADDER and outcome.strategy != "exact":
                    text += f", matched after allowing for {outcome.strategy.replace('_', ' ')}"
                text += ")"
            if outcome.diff:
                text += "\n" + clip_diff(outcome.diff).rstrip("\n")
        return Result(True, text, outcome.data())

    def read(self, p: ReadParams) -> Result:
        return read_tail_or_range(self, p.path, p.offset, p.limit, p.tail)

    def write(self, p: WriteParams) -> Result:
        from filewright.edit import edits

        content = p.content
        outcome = self.change(
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
        return self._changed(outcome, p.path, "write")

    def edit(self, p: EditParams) -> Result:
        old, new, replace_all = p.old_string, p.new_string, p.replace_all
        if old == "":
            return self.failed_code("empty_old", p.path)

        from filewright.edit import edits

        def compute(text: str | None) -> Any:
            return edits.replace(text or "", old, new, replace_all=replace_all)

        outcome = self.change(
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
        return self._changed(outcome, p.path, "edit")

    def multi_edit(self, p: MultiEditParams) -> Result:
        from filewright.edit import edits

        ops = [
            edits.Replace(e.old_string, e.new_string, replace_all=e.replace_all) for e in p.edits
        ]
        for index, op in enumerate(ops):
            if op.old == "":
                return self.failed_code("empty_old", p.path, edit_index=index)
        outcome = self.change(
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
        if (
            not outcome.ok
            and outcome.failure is not None
            and "edit_index" in outcome.failure.detail
        ):
            result = self._changed(outcome, p.path, "edit")
            index = outcome.failure.detail["edit_index"]
            result.text = (
                f"Edit {index + 1} of {len(ops)} failed; nothing was written. {result.text}"
            )
            return result
        return self._changed(outcome, p.path, "edit")

    def replace_span(self, p: ReplaceSpanParams) -> Result:
        from filewright.edit import edits

        op = edits.SpanReplace(
            p.start,
            p.end,
            p.new_text,
            search_after=p.search_after,
            keep_markers=p.keep_markers,
            start_is_regex=p.start_is_regex,
        )
        outcome = self.change(
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
        return self._changed(outcome, p.path, "edit")

    def insert(self, p: InsertParams) -> Result:
        from filewright.edit import edits

        line, new = p.line, p.text
        outcome = self.change(
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
        return self._changed(outcome, p.path, "insert")

    def list(self, p: ListParams) -> Result:
        from filewright import search

        loc = self.engine.locate_dir(p.path)
        result = search.list_directory(
            loc.real,
            ignore=p.ignore,
            respect_gitignore=p.respect_gitignore,
            **self.engine.search_scope(loc),
            symlink_root=loc.root,
            limit=p.max_entries,
        )
        total = len(result.entries) if result.total is None else result.total
        truncated = total > p.max_entries
        text = search.format_list_gemini(result, loc.lexical_rel)
        if truncated:
            text += (
                f"\n\n[{total - p.max_entries} more entries not shown: {total} in all; "
                "raise max_entries, or use glob to narrow]"
            )
        out = listing_result(loc, result, text)
        out.data.update(total=total, truncated=truncated)
        return out

    def glob(self, p: GlobParams) -> Result:
        from filewright import search

        loc = self.engine.locate_dir(p.path)
        result = search.glob(
            loc.real,
            p.pattern,
            case_sensitive=p.case_sensitive,
            respect_gitignore=p.respect_gitignore,
            **self.engine.search_scope(loc),
        )
        text = search.format_glob_gemini(result, p.pattern, loc.lexical_rel)
        return glob_result(loc, result, text, result.paths)

    def grep(self, p: GrepParams) -> Result:
        from filewright import search

        loc = self.engine.locate_dir(p.path)
        result = search.grep(
            loc.real,
            p.pattern,
            include=p.include,
            case_sensitive=p.case_sensitive,
            fixed_strings=p.fixed_strings,
            context=p.context,
            max_matches=p.max_matches,
            **self.engine.search_scope(loc),
            on_progress=search_progress,
        )
        text = search.format_grep_gemini(result, p.pattern, loc.lexical_rel, p.include)
        return grep_result(loc, result, text)

    def append(self, p: AppendParams) -> Result:
        content = p.content
        outcome = self.change(
            Change(
                p.path,
                "append",
                lambda old: (old or "") + content,
                create_parents=True,
                streamed=streamops.StreamAppend(content),
                dry_run=p.dry_run,
            )
        )
        return self._changed(outcome, p.path, "append")

    def undo(self, p: UndoParams) -> Result:
        from filewright.engine.undo import undo

        outcome = undo(self.engine, p.path, dry_run=self.workspace.dry_run or p.dry_run)
        path = self._display(outcome, p.path)
        if not outcome.ok:
            assert outcome.failure is not None
            return self.failed(outcome.failure, path)
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

    def failed_code(self, code: str, path: str, **detail: Any) -> Result:
        from filewright.core.result import Failure

        return self.failed(Failure(code, path, detail), path)
