"""The `claude` toolset: Read / Write / Edit / MultiEdit as in Claude Code.

Seed: `claude-code-file-tools.md`. Paths must be absolute (inside a workspace root).
Read numbers lines `cat -n` style and handles images, PDFs and notebooks; Write and Edit
require that an existing file was read first and has not changed since (the engine's
read ledger), keep timestamped backups in `.claude-backups/` next to the file (the last
10), and refuse the seed's protected files. Edit finds `old_string` with the engine's
recovery ladder, insists on a unique match unless `replace_all`, and explains failures
with the seed's suggestions. MultiEdit applies several edits in order, all or nothing.
A change refused because the file changed on disk since it was read says so and advises
re-reading; with `Workspace(watch=True)` every result also names other files that were
modified externally since the agent read them. Concurrent changes of one file are
serialised by the engine's lock.

Messages are English whatever the locale (the seed is the spec); `data["code"]` carries
the seed's error code (FILE_NOT_FOUND, PERMISSION_DENIED, IS_DIRECTORY, BINARY_FILE,
FILE_TOO_LARGE, STRING_NOT_FOUND, MULTIPLE_MATCHES, NO_CHANGE, READ_REQUIRED,
EXTERNAL_MODIFICATION, PROTECTED_FILE, ACCESS_DENIED, INVALID_PARAMS, ...) and
`data["error"]` the engine's failure code. Words, limits and codes are in
`claude_messages`; Read is in `claude_read`.
"""

from __future__ import annotations

import codecs
import json
import os
from typing import TYPE_CHECKING, Any

from filewright.core.result import Failure, OperationFailed, Result
from filewright.edit import edits
from filewright.engine.pipeline import Change, Outcome
from filewright.fs.paths import Location
from filewright.policy.rules import Access, Rule
from filewright.read import readers
from filewright.tools.base import Tool, Toolset
from filewright.toolsets.claude import messages as M
from filewright.toolsets.claude.read import read_file

if TYPE_CHECKING:
    from filewright.toolsets.claude.params import (
        EditParams,
        MultiEditParams,
        ReadParams,
        WriteParams,
    )

MODELS = "filewright.toolsets.claude.params:"


PROTECTED_PATTERNS = (
    ".git/",
    "node_modules/",
    ".env",
    ".env.*",
    "package-lock.json",
    "yarn.lock",
    "pnpm-lock.yaml",
)


class ClaudeToolset(Toolset):
    """Read / Write / Edit / MultiEdit in the claude seed's words.

    Options: `max_read_bytes` (default 100 MB), `max_content_bytes` (10 MB),
    `max_edit_bytes` (10 MB).
    """

    name = "claude"
    profile = (
        *(Rule(p, Access.READ, reason="claude seed: protected file") for p in PROTECTED_PATTERNS),
        Rule(f"{M.BACKUP_DIR}/", Access.READ, reason="claude seed: backups"),
    )

    def tools(self) -> list[Tool]:
        return [
            Tool(
                "Read",
                "Reads a file from the local filesystem. file_path must be an absolute path. "
                "By default reads up to 2000 lines from the start; give offset and limit for "
                "long files. Lines longer than 2000 characters are cut. Output is numbered "
                "like `cat -n` (line number, tab, line). Images are returned as images, PDFs "
                "as text per page, Jupyter notebooks as cells with their outputs.",
                MODELS + "ReadParams",
                self.read,
                read_only=True,
                title="Read",
            ),
            Tool(
                "Write",
                "Writes a file to the local filesystem, creating parent directories. An "
                "existing file is overwritten only after it has been read with the Read "
                "tool and has not changed since; its previous content is kept in "
                ".claude-backups/ next to it. Protected files (.git, node_modules, .env, "
                "lock files) cannot be written.",
                MODELS + "WriteParams",
                self.write,
                destructive=True,
                title="Write",
            ),
            Tool(
                "Edit",
                "Performs an exact string replacement in a file that was read with the Read "
                "tool. old_string must match one place in the file (give more surrounding "
                "context to make it unique) unless replace_all is true. Do not include the "
                "line-number prefix from Read output in old_string or new_string.",
                MODELS + "EditParams",
                self.edit,
                destructive=True,
                title="Edit",
            ),
            Tool(
                "MultiEdit",
                "Makes several replacements in one file in one operation: edits are applied "
                "in order, each to the result of the previous one, and either all succeed or "
                "none is applied. Each edit follows the rules of the Edit tool.",
                MODELS + "MultiEditParams",
                self.multi_edit,
                destructive=True,
                title="MultiEdit",
            ),
        ]

    # -- options ----------------------------------------------------------------------------

    def _limit(self, name: str, default: int) -> int:
        value = self.options.get(name, default)
        return int(value)

    # -- argument checks the seed words itself ------------------------------------------------

    def call(self, tool: str, args: dict[str, Any] | str | None = None) -> Result:
        """As `Toolset.call`, with the seed's `X is required` for missing arguments."""
        parsed: Any = args
        if isinstance(args, str | bytes):
            try:
                parsed = json.loads(args) if args.strip() else {}
            except (ValueError, UnicodeDecodeError, RecursionError):
                parsed = args
        found = self.tool(tool) if isinstance(tool, str) else None
        if found is not None and isinstance(parsed, dict):
            for name in found.required():
                value = parsed.get(name)
                if value is None or (name == "file_path" and value == ""):
                    return M.failure("INVALID_PARAMS", f"{name} is required", "bad_arguments")
        result = super().call(tool, parsed)
        target = parsed.get("file_path") if isinstance(parsed, dict) else None
        return self._with_external_changes(result, target if isinstance(target, str) else None)

    def _with_external_changes(self, result: Result, target: str | None) -> Result:
        """With a watching workspace: name the files that changed on disk since the agent
        read them (each change once), so it reads them again before editing them."""
        if self.workspace.watcher is None:
            return result
        own = os.path.realpath(target) if target and os.path.isabs(target) else None
        changed = [str(p) for p in self.workspace.external_changes() if str(p) != own]
        if changed:
            result.text += (
                "\n\nNote: these files were modified externally since you read them; "
                "Read them again before changing them: " + ", ".join(changed)
            )
            result.data["externallyModified"] = changed
        return result

    @staticmethod
    def _absolute(path: str) -> Result | None:
        if not os.path.isabs(path):
            return M.failure("INVALID_PARAMS", "file_path must be an absolute path", "invalid")
        return None

    # -- failures -----------------------------------------------------------------------------

    def fail_with(self, failure: Failure, path: str, **extra: Any) -> Result:
        """An engine failure in the seed's words, with the seed's error code."""
        code = failure.code
        detail = {k: v for k, v in failure.detail.items() if k != "message"}
        if code == "too_large":
            limit = failure.detail.get("limit")
            message = M.size_message("File", failure.detail.get("size"), int(limit or 0))
        else:
            template = M.TEMPLATES.get(code)
            params = {
                **failure.detail,
                "path": path,
                "mime": extra.pop("mime", "application/octet-stream"),
            }
            message = (
                M.render(template, **params)
                if template
                else str(failure.detail.get("message") or f"{code}: {path}")
            )
        if code == "stale":
            detail["suggestion"] = M.STALE_SUGGESTION
        return M.failure(
            M.CODES.get(code, "UNKNOWN_ERROR"), message, code, details=detail or None, **extra
        )

    def _outcome_failure(self, outcome: Outcome, path: str) -> Result:
        assert outcome.failure is not None
        failure = outcome.failure
        if failure.code == "permission" and not (outcome.loc and outcome.loc.exists):
            parent = os.path.dirname(path.rstrip("/")) or "/"
            return M.failure(
                "PERMISSION_DENIED", f"Permission denied: cannot write to {parent}", "permission"
            )
        return self.fail_with(failure, path)

    def _locate_existing(self, path: str) -> tuple[Location | None, Result | None]:
        """Resolve a file to change; refuse it when missing or never read. (Whether it changed
        since it was read is decided by the pipeline, under the file's lock.)"""
        try:
            loc, _ = self.engine.locate(path, purpose="write", expect="file")
        except OperationFailed as exc:
            return None, self.fail_with(exc.failure, path)
        if not loc.exists:
            return None, self.fail_with(Failure("not_found", path), path)
        if self.engine.last_read(loc) is None:
            # A file too large to edit cannot be "read first" either: say what is wrong.
            limit = self._limit("max_edit_bytes", M.MAX_EDIT_BYTES)
            try:
                with readers.open_file(self.engine, loc) as (_fd, size):
                    pass
            except OperationFailed as exc:
                return None, self.fail_with(exc.failure, path)
            if size > limit:
                return None, self.fail_with(
                    Failure("too_large", path, {"size": size, "limit": limit}), path
                )
            return None, self.fail_with(Failure("not_read", path), path)
        return loc, None

    def _changed_on_disk(self, loc: Location) -> bool:
        """True when the file now differs from what the agent last read (used to explain a
        failed edit: the file changed under the agent)."""
        seen = self.engine.last_read(loc)
        if seen is None:
            return False
        try:
            tf, _ = self.engine.load_text(
                loc, max_bytes=self._limit("max_edit_bytes", M.MAX_EDIT_BYTES)
            )
        except OperationFailed:
            return False  # the pipeline reports what is wrong with the file
        return tf.hash != seen

    # -- Read ---------------------------------------------------------------------------------

    def read(self, p: ReadParams) -> Result:
        """Read: numbered lines, or an image / PDF / notebook, with the seed's metadata."""
        if (bad := self._absolute(p.file_path)) is not None:
            return bad
        if p.offset is not None and p.offset < 1:
            return M.failure("INVALID_PARAMS", "offset must be >= 1", "invalid")
        if p.limit is not None and p.limit < 1:
            return M.failure("INVALID_PARAMS", "limit must be >= 1", "invalid")
        return read_file(
            self, p.file_path, p.offset, p.limit, self._limit("max_read_bytes", M.MAX_READ_BYTES)
        )

    # -- Write --------------------------------------------------------------------------------

    def write(self, p: WriteParams) -> Result:
        """Write: create or overwrite (after a read), with a sidecar backup."""
        path, content = p.file_path, p.content
        if (bad := self._absolute(path)) is not None:
            return bad
        size = len(content.encode("utf-8", "surrogatepass"))
        limit = self._limit("max_content_bytes", M.MAX_CONTENT_BYTES)
        if size > limit:
            return M.failure(
                "CONTENT_TOO_LARGE",
                M.size_message("Content", size, limit),
                "too_large",
                details={"size": size, "limit": limit},
            )
        encoding = p.encoding or "utf-8"
        try:
            if not codecs.lookup(encoding)._is_text_encoding:
                raise LookupError(encoding)
        except (LookupError, ValueError, TypeError):
            return M.failure("INVALID_PARAMS", f"Invalid encoding: {p.encoding}", "invalid")
        try:
            loc, _ = self.engine.locate(path, purpose="write", expect="file")
        except OperationFailed as exc:
            return self.fail_with(exc.failure, path)
        if loc.exists and self.engine.last_read(loc) is None:
            return self.fail_with(Failure("not_read", path), path)
        outcome = self.change(
            Change(
                path,
                "write",
                lambda old: edits.overwrite(old, content),
                create_parents=True,
                require_read=True,
                sidecar_backup=M.BACKUP_DIR if p.create_backup else None,
                encoding=encoding,
                max_bytes=self._limit("max_read_bytes", M.MAX_READ_BYTES),
            )
        )
        if not outcome.ok:
            return self._outcome_failure(outcome, path)
        created = outcome.created
        written = outcome.bytes_written or len(
            content.encode(outcome.encoding or encoding, "replace")
        )
        verb = "created" if created else "overwritten"
        message = f"File {verb}: {path}"
        if outcome.dry_run:
            message = f"[dry run] File would be {verb}: {path}\n{outcome.diff}".rstrip("\n")
        data = outcome.data()
        data.update(
            message=message,
            backupPath=outcome.backup,
            bytesWritten=written,
            linesWritten=edits.line_count(content),
            wasCreated=created,
            wasOverwritten=not created,
        )
        return Result(True, message, data)

    # -- Edit and MultiEdit ---------------------------------------------------------------------

    def edit(self, p: EditParams) -> Result:
        """Edit: one replacement (or all, with replace_all) through the recovery ladder."""
        if (bad := self._absolute(p.file_path)) is not None:
            return bad
        if p.old_string == p.new_string:
            return M.failure(
                "INVALID_PARAMS", "old_string and new_string must be different", "invalid"
            )
        if p.old_string == "":
            return M.failure("INVALID_PARAMS", "old_string cannot be empty", "empty_old")
        op = edits.Replace(p.old_string, p.new_string, replace_all=p.replace_all)
        return self._apply(p.file_path, [op], single=True)

    def multi_edit(self, p: MultiEditParams) -> Result:
        """MultiEdit: the edits in order on one file, all or nothing."""
        if (bad := self._absolute(p.file_path)) is not None:
            return bad
        if not p.edits:
            return M.failure("INVALID_PARAMS", "edits must contain at least one edit", "invalid")
        total = len(p.edits)
        for i, item in enumerate(p.edits, 1):
            if item.old_string == item.new_string:
                return M.failure(
                    "INVALID_PARAMS",
                    f"Edit {i} of {total}: old_string and new_string must be different",
                    "invalid",
                    edit_index=i - 1,
                )
            if item.old_string == "":
                return M.failure(
                    "INVALID_PARAMS",
                    f"Edit {i} of {total}: old_string cannot be empty",
                    "empty_old",
                    edit_index=i - 1,
                )
        ops = [
            edits.Replace(e.old_string, e.new_string, replace_all=e.replace_all) for e in p.edits
        ]
        return self._apply(p.file_path, ops, single=False)

    def _apply(self, path: str, ops: list[edits.Replace], *, single: bool) -> Result:
        loc, refused = self._locate_existing(path)
        if refused is not None:
            return refused
        seen: dict[str, Any] = {}

        def recording(index: int, op: edits.Replace) -> Any:
            def run(text: str) -> edits.Result:
                seen["text"], seen["index"] = text, index
                return op.apply(text)

            return run

        def compute(text: str | None) -> Any:
            result = edits.apply_batch(text or "", [recording(i, op) for i, op in enumerate(ops)])
            seen["result"] = result
            return result

        outcome = self.change(
            Change(
                path,
                "edit",
                compute,
                must_exist=True,
                require_read=True,
                sidecar_backup=M.BACKUP_DIR,
                max_bytes=self._limit("max_edit_bytes", M.MAX_EDIT_BYTES),
            )
        )
        if not outcome.ok:
            assert outcome.failure is not None and loc is not None
            if outcome.failure.code in (
                "no_match",
                "ambiguous",
                "no_change",
            ) and self._changed_on_disk(loc):
                return self.fail_with(Failure("stale", path), path)
            return self._edit_failure(outcome, path, ops, seen, single)
        done = seen.get("result")
        strategies = (
            list(done.notes.get("strategies", [])) if isinstance(done, edits.Edited) else []
        )
        return self._edited(outcome, path, len(ops), strategies, single)

    def _edit_failure(
        self,
        outcome: Outcome,
        path: str,
        ops: list[edits.Replace],
        seen: dict[str, Any],
        single: bool,
    ) -> Result:
        assert outcome.failure is not None
        failure = outcome.failure
        index = int(failure.detail.get("edit_index") or seen.get("index") or 0)
        op = ops[min(index, len(ops) - 1)]
        prefix = (
            ""
            if single
            else f"Edit {index + 1} of {len(ops)} failed; no changes were made to {path}.\n"
        )
        extra: dict[str, Any] = {} if single else {"edit_index": index}
        if failure.code == "no_match":
            closest = list(failure.detail.get("closest") or [])
            suggestions = M.not_found_suggestions(op.old, seen.get("text", ""), closest)
            message = M.with_suggestions(
                prefix + f"The string to replace was not found in {path}", suggestions
            )
            return M.failure(
                "STRING_NOT_FOUND",
                message,
                "no_match",
                suggestions=suggestions,
                details={
                    "searchString": op.old,
                    "fileLength": len(seen.get("text", "")),
                    "closest": closest,
                    "strategies_tried": failure.detail.get("strategies_tried"),
                },
                **extra,
            )
        if failure.code == "ambiguous":
            locations = list(failure.detail.get("locations") or [])
            count = int(failure.detail.get("count") or len(locations))
            message = prefix + M.multiple_matches_text(count, locations)
            return M.failure(
                "MULTIPLE_MATCHES",
                message,
                "ambiguous",
                suggestions=list(M.MULTIPLE_MATCH_SUGGESTIONS),
                details={
                    "occurrences": count,
                    "locations": locations,
                    "strategy": failure.detail.get("strategy"),
                },
                **extra,
            )
        result = self.fail_with(failure, path, **extra)
        if prefix:
            result.text = prefix + result.text
            result.data["message"] = result.text
        return result

    def _edited(
        self, outcome: Outcome, path: str, count: int, strategies: list[str], single: bool
    ) -> Result:
        n = outcome.replacements
        if single:
            message = f"Successfully replaced {n} occurrence(s) in {path}"
        else:
            message = f"Successfully applied {count} edit(s) to {path} ({n} occurrence(s) replaced)"
        if outcome.dry_run:
            message = (
                "[dry run] "
                + message.replace("Successfully replaced", "Would replace").replace(
                    "Successfully applied", "Would apply"
                )
                + "\n"
                + outcome.diff.rstrip("\n")
            )
        message += M.strategy_note(strategies)
        data = outcome.data()
        data.update(
            message=message,
            replacements=n,
            strategy=strategies[0] if single and strategies else outcome.strategy,
            strategies=strategies,
            preview=M.preview(outcome.old_text or "", outcome.new_text or ""),
            backupPath=outcome.backup,
        )
        return Result(True, message, data)
