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

Texts, codes and metadata are the seed's, character for character (see `messages` for
how its handlers code errors, `seed` for its algorithms: previews, suggestions,
locations, notebooks, Buffer encodings), and the text shows the seed's result whole: an
error's message, its `details.locations` and its suggestions; a cut Read's metadata.
What filewright knows beyond them that the model needs for its next call (the closest
real text with its line numbers, how to read on, the streaming note) follows the seed's
text; the option `plain=True` leaves the text the seed's message alone. The recovery ladder stays (an Edit whose old_string differs from the file only
in meaning-preserving ways lands), but the text says only what the seed's success text
says; the option `strict=True` keeps the seed's exact-match rule. Other options:
`max_read_bytes`, `max_content_bytes`, `max_edit_bytes`, `lock_wait` (seconds to wait
for a concurrent change of the same file instead of refusing at once, default 0),
`python_encodings` (Write also accepts Python codec names), `allow_read_only`.
"""

from __future__ import annotations

import codecs
import json
import os
from typing import TYPE_CHECKING, Any

from filewright.core.result import Failure, OperationFailed, Result
from filewright.edit import edits
from filewright.engine import streamops
from filewright.engine.change import Change, Outcome
from filewright.engine.streamrules import file_lines
from filewright.fs.paths import Location
from filewright.policy.rules import Access, Rule
from filewright.read import readers
from filewright.tools.base import Tool, Toolset
from filewright.toolsets.claude import messages as M
from filewright.toolsets.claude import seed
from filewright.toolsets.claude.failures import SeedErrors, external
from filewright.toolsets.claude.read import read_file
from filewright.toolsets.streaming import stream_replace, stream_write

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
    `max_edit_bytes` (10 MB), `strict` (exact matches only), `lock_wait` (0 s),
    `python_encodings` (False), `allow_read_only` (False).
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
                inline_ok=True,
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
                    code = M.THROWN_CODE.get(found.name, M.UNKNOWN)
                    return M.failure(code, f"{name} is required", "bad_arguments")
        result = super().call(tool, parsed)
        target = parsed.get("file_path") if isinstance(parsed, dict) else None
        return self._with_external_changes(result, target if isinstance(target, str) else None)

    def _with_external_changes(self, result: Result, target: str | None) -> Result:
        """With a watching workspace: name, in `data`, the files that changed on disk since
        the agent read them (each change once), as the seed's ConflictDetector words it."""
        if self.workspace.watcher is None:
            return result
        own = os.path.realpath(target) if target and os.path.isabs(target) else None
        changed = [str(p) for p in self.workspace.external_changes() if str(p) != own]
        if changed:
            result.data["externallyModified"] = changed
            result.data["conflicts"] = [external(path) for path in changed]
        return result

    @staticmethod
    def _check_path(path: str, tool: str) -> Result | None:
        """The seed's `file_path must be an absolute path`, and its PathValidator's
        `Path traversal detected` for a `..` component."""
        code = M.THROWN_CODE[tool]
        if not os.path.isabs(path):
            return M.failure(code, "file_path must be an absolute path", "invalid")
        if ".." in path.split("/"):
            return M.failure(code, M.TRAVERSAL, "invalid")
        return None

    # -- failures (worded by `failures.SeedErrors`) ------------------------------------------

    def read_failure(self, failure: Failure, path: str, **extra: Any) -> Result:
        """A failure of Read, as the seed's Read reports it."""
        return SeedErrors(self.workspace, self.engine).read_failure(failure, path, **extra)

    def write_failure(self, failure: Failure, path: str, tool: str = "Write") -> Result:
        """A failure of the write step (Write's, or the Write that Edit calls)."""
        return SeedErrors(self.workspace, self.engine).write_failure(failure, path, tool)

    def fail_with(self, failure: Failure, path: str, **extra: Any) -> Result:
        """An engine failure in the seed's words (Read's wording)."""
        return self.read_failure(failure, path, **extra)

    def _lock_wait(self) -> float:
        return float(self.options.get("lock_wait", 0))

    def _locate_existing(self, path: str, tool: str) -> tuple[Location | None, Result | None]:
        """Resolve a file to edit: Edit reads it through Read first (Read's failures come
        back as EDIT_ERROR with Read's message), and its Write needs an earlier read."""
        try:
            loc = readers.locate_file(self.engine, path)
            with readers.open_file(self.engine, loc) as (_fd, size):
                pass
        except OperationFailed as exc:
            failed = self.read_failure(exc.failure, path)
            return None, self._as_edit_error(failed, tool)
        # Above the seed's 10 MB edit limit a change streams (its ChunkedEditor); only
        # files above the engine's one change limit are refused.
        limit = self.workspace.max_change_bytes
        if size > limit:
            too_large = Failure("too_large", path, {"size": size, "limit": limit})
            return None, self._as_edit_error(self.read_failure(too_large, path), tool)
        if self.engine.last_read(loc) is None:
            return None, self.write_failure(Failure("not_read", path), path, tool)
        return loc, None

    @staticmethod
    def _as_edit_error(result: Result, tool: str) -> Result:
        result.data["code"] = M.THROWN_CODE[tool]
        return result

    # -- Read ---------------------------------------------------------------------------------

    def read(self, p: ReadParams) -> Result:
        """Read: numbered lines, or an image / PDF / notebook, with the seed's metadata."""
        if (bad := self._check_path(p.file_path, "Read")) is not None:
            return bad
        if p.offset is not None and p.offset < 1:
            return M.failure(M.UNKNOWN, "offset must be >= 1", "invalid")
        if p.limit is not None and p.limit < 1:
            return M.failure(M.UNKNOWN, "limit must be >= 1", "invalid")
        return read_file(
            self, p.file_path, p.offset, p.limit, self._limit("max_read_bytes", M.MAX_READ_BYTES)
        )

    # -- Write --------------------------------------------------------------------------------

    def _encoder(self, encoding: str | None) -> Any:
        """The bytes Write writes for `encoding` (Node's Buffer meaning), or a Result
        refusing it; None: keep an existing file's encoding (UTF-8 for a new one)."""
        if encoding is None:
            return None
        if seed.is_node_encoding(encoding):
            return lambda text: seed.node_bytes(text, encoding)
        if self.options.get("python_encodings"):
            try:
                if codecs.lookup(encoding)._is_text_encoding:
                    return lambda text: text.encode(encoding)
            except LookupError:
                pass
        return M.failure(M.UNKNOWN, f"Invalid encoding: {encoding}", "invalid")

    def write(self, p: WriteParams) -> Result:
        """Write: create or overwrite (after a read), with a sidecar backup."""
        path, content = p.file_path, p.content
        if (bad := self._check_path(path, "Write")) is not None:
            return bad
        size = len(seed.node_bytes(content, "utf8"))
        limit = self._limit("max_content_bytes", M.MAX_CONTENT_BYTES)
        if size > limit:
            return M.failure(
                M.UNKNOWN,
                M.size_message("Content", size, limit),
                "too_large",
                details={"size": size, "limit": limit},
            )
        encoder = self._encoder(p.encoding)
        if isinstance(encoder, Result):
            return encoder
        try:
            loc, _ = self.engine.locate(path, purpose="write", expect="file")
        except OperationFailed as exc:
            return self.write_failure(exc.failure, path)
        if loc.exists and self.engine.last_read(loc) is None:
            return self.write_failure(Failure("not_read", path), path)
        outcome = self.change(
            Change(
                path,
                "write",
                lambda old: edits.overwrite(old, content),
                create_parents=True,
                require_read=True,
                sidecar_backup=M.BACKUP_DIR if p.create_backup else None,
                backup_unchanged=True,
                encoder=encoder,
                max_bytes=self._limit("max_read_bytes", M.MAX_READ_BYTES),
                streamed=stream_write(content) if encoder is None else None,
                lock_timeout=self._lock_wait(),
            )
        )
        if not outcome.ok:
            assert outcome.failure is not None
            return self.write_failure(outcome.failure, path)
        created = outcome.created
        verb = "created" if created else "overwritten"
        message = f"File {verb}: {path}"
        if outcome.dry_run:
            message = f"[dry run] File would be {verb}: {path}\n{outcome.diff}".rstrip("\n")
        data = outcome.data()
        data.update(
            message=message,
            backupPath=outcome.backup,
            bytesWritten=len(encoder(content) if encoder else seed.node_bytes(content, "utf8")),
            linesWritten=seed.lines_written(content),
            wasCreated=created,
            wasOverwritten=not created,
        )
        data["metadata"] = {
            k: data[k] for k in ("bytesWritten", "linesWritten", "wasCreated", "wasOverwritten")
        }
        warning = seed.dangerous_warning(path)
        if warning:
            data["warning"] = warning
        return Result(True, message, data)

    # -- Edit and MultiEdit ---------------------------------------------------------------------

    def _replace(self, old: str, new: str, replace_all: bool) -> edits.Replace:
        return edits.Replace(
            old, new, replace_all=replace_all, fuzzy=not self.options.get("strict")
        )

    def edit(self, p: EditParams) -> Result:
        """Edit: one replacement (or all, with replace_all) through the recovery ladder."""
        if (bad := self._check_path(p.file_path, "Edit")) is not None:
            return bad
        if p.old_string == p.new_string:
            return M.failure(M.EDIT_ERROR, "old_string and new_string must be different", "invalid")
        if p.old_string == "":
            return M.failure(M.EDIT_ERROR, "old_string cannot be empty", "empty_old")
        op = self._replace(p.old_string, p.new_string, p.replace_all)
        return self._apply(p.file_path, [op], single=True)

    def multi_edit(self, p: MultiEditParams) -> Result:
        """MultiEdit: the edits in order on one file, all or nothing."""
        if (bad := self._check_path(p.file_path, "MultiEdit")) is not None:
            return bad
        if not p.edits:
            return M.failure(M.EDIT_ERROR, "edits must contain at least one edit", "invalid")
        total = len(p.edits)
        for i, item in enumerate(p.edits, 1):
            if item.old_string == item.new_string:
                return M.failure(
                    M.EDIT_ERROR,
                    f"Edit {i} of {total}: old_string and new_string must be different",
                    "invalid",
                    edit_index=i - 1,
                )
            if item.old_string == "":
                return M.failure(
                    M.EDIT_ERROR,
                    f"Edit {i} of {total}: old_string cannot be empty",
                    "empty_old",
                    edit_index=i - 1,
                )
        ops = [self._replace(e.old_string, e.new_string, e.replace_all) for e in p.edits]
        return self._apply(p.file_path, ops, single=False)

    def _apply(self, path: str, ops: list[edits.Replace], *, single: bool) -> Result:
        tool = "Edit" if single else "MultiEdit"
        loc, refused = self._locate_existing(path, tool)
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
                # Above the edit limit: streamed (the seed's ChunkedEditor), with Edit's
                # verdicts: countOccurrences > 1 is MULTIPLE_MATCHES unless replace_all
                stream_above=self._limit("max_edit_bytes", M.MAX_EDIT_BYTES),
                streamed=streamops.StreamBatch(
                    tuple(
                        stream_replace(op.old, op.new, mode="all" if op.replace_all else "unique")
                        for op in ops
                    )
                ),
                lock_timeout=self._lock_wait(),
            )
        )
        if not outcome.ok:
            assert outcome.failure is not None and loc is not None
            if outcome.failure.code in (
                "no_match",
                "ambiguous",
                "no_change",
            ) and self._changed_on_disk(loc):
                return self.write_failure(Failure("stale", path), path, tool)
            return self._edit_failure(outcome, path, ops, seen, single, loc)
        done = seen.get("result")
        strategies = (
            list(done.notes.get("strategies", [])) if isinstance(done, edits.Edited) else []
        )
        return self._edited(outcome, path, len(ops), strategies, single)

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

    def _edit_failure(
        self,
        outcome: Outcome,
        path: str,
        ops: list[edits.Replace],
        seen: dict[str, Any],
        single: bool,
        loc: Location,
    ) -> Result:
        assert outcome.failure is not None
        failure = outcome.failure
        if failure.detail.get("streamed") and "text" not in seen:
            seen["lines"] = lambda: file_lines(loc)  # the seed's content: the file, read lazily
        index = int(failure.detail.get("edit_index") or seen.get("index") or 0)
        op = ops[min(index, len(ops) - 1)]
        prefix = (
            ""
            if single
            else f"Edit {index + 1} of {len(ops)} failed; no changes were made to {path}.\n"
        )
        extra: dict[str, Any] = {} if single else {"edit_index": index}
        content = seen.get("text", "")
        lines = seen.get("lines", lambda: content.split("\n"))
        if failure.code == "no_match":
            length = [0]

            def counted() -> Any:
                for line in lines():
                    length[0] += len(line) + 1
                    yield line

            suggestions = seed.generate_suggestions_in(op.old, counted())
            message = prefix + M.render(M.NOT_FOUND_IN, path=path)
            closest = list(failure.detail.get("closest") or [])
            note = ""
            if failure.detail.get("streamed"):
                note = M.STREAMED_EXACT_NOTE.format(
                    limit=self._limit("max_edit_bytes", M.MAX_EDIT_BYTES)
                ).strip()
                extra["streamed_note"] = note
            text = M.with_suggestions(message, suggestions)
            if not self.options.get("plain"):  # after the seed's text: what filewright knows
                text = M.joined(text, M.closest_text(closest), note)
            return M.failure(
                "STRING_NOT_FOUND",
                message,
                "no_match",
                text=text,
                suggestions=suggestions,
                details={"searchString": op.old, "fileLength": max(0, length[0] - 1)},
                closest=closest,
                strategies_tried=failure.detail.get("strategies_tried"),
                **extra,
            )
        if failure.code == "ambiguous":
            count = int(failure.detail.get("count") or 0)
            message = prefix + M.render(M.MULTIPLE, count=count)
            suggestions = list(M.MULTIPLE_MATCH_SUGGESTIONS)
            locations = seed.find_all_locations_in(lines(), op.old)
            matches = list(failure.detail.get("locations") or [])
            if self.options.get("plain"):
                text = M.with_suggestions(message, suggestions)
            else:  # the seed's error whole: message, details.locations, suggestions; where
                # its per-line search finds none (a multi-line or normalised match), the
                # engine's locations of the same matches
                shown = (
                    M.locations_text(locations)
                    if locations
                    else M.locations_text(matches, number=False)
                    if matches
                    else ""
                )
                text = M.with_suggestions(M.joined(message, shown), suggestions)
            return M.failure(
                "MULTIPLE_MATCHES",
                message,
                "ambiguous",
                text=text,
                suggestions=suggestions,
                details={"occurrences": count, "locations": locations},
                matches=matches,
                strategy=failure.detail.get("strategy"),
                **extra,
            )
        if failure.code == "no_change":
            return M.failure("NO_CHANGE", prefix + M.NO_CHANGE, "no_change", **extra)
        result = self.write_failure(failure, path, "Edit" if single else "MultiEdit")
        if prefix:
            result.text = prefix + result.text
            result.data["message"] = result.text
        result.data.update(extra)
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
        data = outcome.data()
        data.update(
            message=message,
            replacements=n,
            strategy=strategies[0] if single and strategies else outcome.strategy,
            strategies=strategies,
            preview=seed.generate_preview(outcome.old_text or "", outcome.new_text or ""),
            backupPath=outcome.backup,
        )
        text = message
        if outcome.extra.get("streamed"):  # the seed's ChunkedEditor: after the seed's text
            data["streamed_note"] = M.STREAMED_NOTE.format(
                limit=self._limit("max_edit_bytes", M.MAX_EDIT_BYTES)
            ).strip()
            if not self.options.get("plain"):
                text = M.joined(message, data["streamed_note"])
        return Result(True, text, data)
