"""The `gemini` toolset: the Gemini CLI / VeCLI file-system tools.

Seed: `vecli-filesystem-tools.md`. Tools (display names as MCP titles):

- `list_directory` (ReadFolder): `path`, `ignore`, `respect_git_ignore`.
- `read_file` (ReadFile): `path`, `offset` (0-based line), `limit`; text, images and PDFs
  (base64 `inlineData`, sent as image and document blocks on every surface), SVG as the
  text it is, other binary files skipped.
- `write_file` (WriteFile): `file_path`, `content`; creates parent directories; asks
  for confirmation with a diff.
- `glob` (FindFiles): `pattern`, `path`, `case_sensitive`, `respect_git_ignore`;
  absolute paths, newest first.
- `search_file_content` (SearchText): `pattern`, `path`, `include`.
- `replace` (Edit): `file_path`, `old_string`, `new_string`, `expected_replacements`;
  an empty `old_string` creates a new file; asks for confirmation with a diff.

Paths may be absolute (inside a workspace root) or relative to the first root, in every
tool (the seed's note under its title; Gemini CLI resolves them too); messages show
absolute paths, as the real tool does. A failed `replace` is followed by where the text is
(the most similar real text with `L<n>:` line numbers, or every occurrence with its
context); the option `plain=True` leaves the seed's message alone. Texts follow Gemini CLI's own wording where
the seed elides it ("Failed to edit, 0 occurrences found for old_string in … No edits
made. …", "[File content truncated: showing lines A-B of N total lines. Use
offset/limit parameters to view more.]", "[Operation Cancelled] Reason: User did not
allow tool call", "Tool execution for "Edit" requires user confirmation, which is not
supported in non-interactive mode.").

The seed's multi-stage edit correction is the engine's matching ladder. An application
may also pass `corrector=callable(file_text, old_string, new_string, error) -> (old, new)
| None` (a model-based corrector, say): it is called only after the ladder found no
region (or a different count than expected), with the message the model would get as
`error`; its proposal is matched by the same strict rules, never applied loosely.
"""

from __future__ import annotations

import base64
import dataclasses
import hashlib
import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from filewright import search
from filewright.core import inline
from filewright.core.result import Failure, OperationFailed, Result
from filewright.edit import edits
from filewright.engine.change import Change, Outcome
from filewright.read import media, readers
from filewright.read.textread import human_size
from filewright.tools.base import Tool, Toolset
from filewright.toolsets.common import (
    glob_result,
    grep_result,
    listing_result,
    locations_text,
    search_progress,
)
from filewright.toolsets.streaming import stream_replace, stream_write

Corrector = Callable[[str, str, str, str], "tuple[str, str] | None"]

if TYPE_CHECKING:
    from filewright.toolsets.gemini_params import (
        GlobParams,
        ListDirectoryParams,
        ReadFileParams,
        ReplaceParams,
        SearchFileContentParams,
        WriteFileParams,
    )

MODELS = "filewright.toolsets.gemini_params:"
NUISANCE_DIRS = frozenset({".git", "node_modules"})
# The seed: offset "requires `limit` to be set"; worded as Gemini CLI words its
# parameter errors.
OFFSET_NEEDS_LIMIT = "Error: Invalid parameters provided. Reason: offset requires limit to be set"
NO_OCCURRENCE_HINT = (
    "No edits made. The exact text in old_string was not found. Ensure you're not escaping "
    "content incorrectly and check whitespace, indentation, and context. Use read_file tool "
    "to verify."
)


class GeminiToolset(Toolset):
    """The six Gemini CLI file tools. Option: `corrector` (see the module docstring)."""

    name = "gemini"
    messages: ClassVar[dict[str, dict[str, str]]] = {
        "*": {
            "outside": "File path must be within one of the workspace directories: {roots}",
            "not_found": "File not found: {path}",
            "hidden": "File not found: {path}",
            "is_directory": "Path is a directory, not a file: {path}",
            "rejected": "[Operation Cancelled] Reason: User did not allow tool call",
            "no_confirmation": 'Tool execution for "{tool}" requires user confirmation, which is not supported in non-interactive mode.',
            "line_out_of_range": "Line offset {line} is out of range: {path} has {lines} lines",
        }
    }
    dir_messages: ClassVar[dict[str, str]] = {
        "not_found": "Error: Directory not found or inaccessible: {path}",
        "hidden": "Error: Directory not found or inaccessible: {path}",
        "not_directory": "Error: Path is not a directory: {path}",
        "outside": "Path must be within one of the workspace directories: {roots}",
    }

    def tools(self) -> list[Tool]:
        return [
            Tool(
                "list_directory",
                "Lists the names of files and subdirectories directly within a specified "
                "directory path. Can optionally ignore entries matching provided glob patterns.",
                MODELS + "ListDirectoryParams",
                self.list_directory,
                read_only=True,
                idempotent=True,
                title="ReadFolder",
            ),
            Tool(
                "read_file",
                "Reads and returns the content of a specified file. Handles text, images (PNG, "
                "JPG, GIF, WEBP, BMP) and PDF files. For text files, it can read specific line ranges with "
                "'offset' and 'limit'; long files are truncated with a notice.",
                MODELS + "ReadFileParams",
                self.read_file,
                read_only=True,
                idempotent=True,
                title="ReadFile",
                inline_ok=True,
            ),
            Tool(
                "write_file",
                "Writes content to a specified file. Overwrites the file if it exists; creates "
                "it (and any parent directories) if not. The user confirms the change.",
                MODELS + "WriteFileParams",
                self.write_file,
                destructive=True,
                idempotent=True,
                title="WriteFile",
            ),
            Tool(
                "glob",
                "Efficiently finds files matching specific glob patterns (e.g. `src/**/*.ts`, "
                "`**/*.md`), returning absolute paths sorted by modification time (newest first).",
                MODELS + "GlobParams",
                self.glob,
                read_only=True,
                idempotent=True,
                title="FindFiles",
            ),
            Tool(
                "search_file_content",
                "Searches for a regular expression pattern within the content of files "
                "in a specified directory. Can filter files by a glob pattern. Returns the lines containing "
                "matches, along with their file paths and line numbers.",
                MODELS + "SearchFileContentParams",
                self.search_file_content,
                read_only=True,
                idempotent=True,
                title="SearchText",
            ),
            Tool(
                "replace",
                "Replaces text within a file. By default, replaces a single occurrence; set "
                "`expected_replacements` to replace that many. `old_string` must match exactly (whitespace "
                "and indentation included) and identify the place with enough context. An empty "
                "`old_string` creates a new file. The user confirms the change.",
                MODELS + "ReplaceParams",
                self.replace,
                destructive=True,
                title="Edit",
            ),
        ]

    # -- helpers --------------------------------------------------------------------------

    def _title(self, tool: str) -> str:
        found = self.tool(tool)
        return (found.title or tool) if found else tool

    def _fail(
        self, failure: Failure, shown: str, tool: str, *, directory: bool = False, **data: Any
    ) -> Result:
        detail = dict(failure.detail)
        detail.setdefault("roots", ", ".join(str(r) for r in self.workspace.roots))
        detail.setdefault("tool", self._title(tool))
        enriched = Failure(failure.code, failure.path, detail)
        template = self.dir_messages.get(failure.code) if directory else None
        if template is not None:
            text = template.format(path=shown, roots=detail["roots"])
        else:
            text = self.text_for(enriched, shown)
        payload = {k: v for k, v in failure.detail.items() if k != "message"}
        if "error" in payload:
            payload["reason"] = payload.pop("error")
        payload.update(error=failure.code, path=shown, **data)
        return Result(False, text, payload)

    def _absolute(self, given: str | None) -> str:
        """`given` as an absolute path, for messages about paths that did not resolve."""
        root = self.workspace.roots[0]
        if not given:
            return str(root)
        raw = Path(given)
        return os.path.normpath(raw if raw.is_absolute() else root / raw)

    def _shown(self, outcome: Outcome, given: str) -> str:
        return str(outcome.loc.path) if outcome.loc is not None else self._absolute(given)

    def _failed_outcome(self, outcome: Outcome, given: str, tool: str) -> Result:
        assert outcome.failure is not None
        return self._fail(outcome.failure, self._shown(outcome, given), tool)

    def _dry_run_text(self, outcome: Outcome, what: str) -> str:
        return f"[Dry run: nothing written] {what}\n{outcome.diff}".rstrip("\n")

    # -- reading ---------------------------------------------------------------------------

    def read_file(self, p: ReadFileParams) -> Result:
        """Text (0-based `offset`, `limit`), images and PDFs as inlineData; binaries skipped."""
        if p.offset is not None and p.limit is None:
            return Result(
                False, OFFSET_NEEDS_LIMIT, {"error": "invalid", "path": self._absolute(p.path)}
            )
        offset = p.offset or 0
        try:
            loc = readers.locate_file(self.engine, p.path)
            with readers.open_file(self.engine, loc) as (fd, size):
                kind = media.sniff(os.pread(fd, 4096, 0), loc.name).kind
            if kind == "pdf":
                return self._pdf(loc, size)
            if kind == "notebook":  # Gemini CLI reads a notebook as the JSON text it is
                lines = readers.read_lines(
                    self.engine, loc, offset + 1, p.limit or readers.DEFAULT_LIMIT
                )
                outcome = readers.ReadOutcome("text", loc, size, "application/json", text=lines)
            else:
                outcome = readers.read_any(
                    self.engine, loc, offset=offset + 1, limit=p.limit or readers.DEFAULT_LIMIT
                )
        except OperationFailed as exc:
            failure = exc.failure
            shown = self._absolute(p.path)
            if failure.code == "binary":
                return Result(
                    True,
                    f"Cannot display content of binary file: {shown}",
                    {"path": shown, "binary": True, "mime_type": failure.detail.get("mime_type")},
                )
            if failure.code == "line_out_of_range":  # the seed's offsets are 0-based
                failure = Failure(
                    failure.code,
                    failure.path,
                    {**failure.detail, "line": int(failure.detail.get("line", 1)) - 1},
                )
            return self._fail(failure, shown, "read_file")
        data = outcome.data()
        if outcome.image is not None:
            data.update(media.inline_data_gemini(outcome.image))
            return Result(True, readers.render_outcome(outcome, "gemini"), data)
        text = outcome.text
        assert text is not None
        data["next_offset"] = text.end if text.truncated else None  # 0-based, for `offset`
        if text.cut_lines and not text.truncated:  # every line shown, some of them cut
            body = (
                f"[File content partially truncated: some lines exceeded maximum length of "
                f"{text.max_line_chars} characters.]\n{readers.format_plain(text)}"
            )
        else:
            body = readers.format_gemini(text)
        return Result(True, body, data)

    def _pdf(self, loc: Any, size: int) -> Result:
        """A PDF as inlineData: the file's bytes travel as a document block on every
        surface (`data["documents"]`), with its extracted text for a surface that has no
        document block (Chat Completions)."""
        inline.leave("a PDF's text")  # before anything is recorded: pypdf's parse is not bounded
        part = readers.pdf_inline(self.engine, loc)
        raw = base64.b64decode(part["inlineData"]["data"])
        self.engine.record_read(loc, hashlib.sha256(raw).hexdigest())
        try:
            extracted: str | None = readers.render_outcome(
                readers.read_any(self.engine, loc, record=False), "gemini"
            )
        except OperationFailed:  # no text to offer; the document itself still goes
            extracted = None
        document = {
            "mime_type": "application/pdf",
            "data": part["inlineData"]["data"],
            "name": loc.name,
            "text": extracted,
        }
        data = {
            "path": str(loc.path),
            "kind": "pdf",
            "mime_type": "application/pdf",
            "size": size,
            **part,
            "documents": [document],
        }
        return Result(
            True, f"[PDF file: {loc.name} ({human_size(size)}), sent as inline data]", data
        )

    # -- listing and searching -------------------------------------------------------------

    def _directory(self, path: str | None, tool: str) -> Any:
        try:
            return self.engine.locate_dir(path)
        except OperationFailed as exc:
            return self._fail(exc.failure, self._absolute(path), tool, directory=True)

    def list_directory(self, p: ListDirectoryParams) -> Result:
        """The entries of one directory, directories first (`[DIR] name`)."""
        loc = self._directory(p.path, "list_directory")
        if isinstance(loc, Result):
            return loc
        result = search.list_directory(
            loc.real,
            ignore=p.ignore,
            respect_gitignore=p.respect_git_ignore,
            **self.engine.search_scope(loc),
            symlink_root=loc.root,
        )
        text = search.format_list_gemini(result, str(loc.path), show_ignored=False)
        return listing_result(loc, result, text)

    def glob(self, p: GlobParams) -> Result:
        """Files matching `pattern`, as absolute paths, newest first."""
        loc = self._directory(p.path, "glob")
        if isinstance(loc, Result):
            return loc
        result = search.glob(
            loc.real,
            p.pattern,
            case_sensitive=p.case_sensitive,
            respect_gitignore=p.respect_git_ignore,
            **self.engine.search_scope(loc),
        )
        text = search.format_glob_gemini(
            result,
            p.pattern,
            str(loc.path),
            render_path=lambda rel: str(loc.path / rel),
            show_ignored=False,
        )
        return glob_result(loc, result, text, [str(loc.path / rel) for rel in result.paths])

    def search_file_content(self, p: SearchFileContentParams) -> Result:
        """Lines matching a regex, grouped by file (paths relative to the searched directory)."""
        loc = self._directory(p.path, "search_file_content")
        if isinstance(loc, Result):
            return loc
        # The seed: "searches most files (respecting common ignores)", as Gemini CLI's
        # grep skips .git and node_modules whatever the ignore files say.
        # Case-insensitive, as Gemini CLI's grep (git grep --ignore-case, grep -i, regex "i");
        # the seed has no case parameter for this tool.
        result = search.grep(
            loc.real,
            p.pattern,
            include=p.include,
            case_sensitive=False,
            on_progress=search_progress,
            **self.engine.search_scope(loc, skip_names=NUISANCE_DIRS),
        )
        text = search.format_grep_gemini(result, p.pattern, p.path or ".", p.include)
        return grep_result(loc, result, text)

    # -- writing ---------------------------------------------------------------------------

    def write_file(self, p: WriteFileParams) -> Result:
        """Create or overwrite a file (parents created) after the user approves the diff."""
        content = p.content

        def write(encoder: Any = None) -> Outcome:
            return self.change(
                Change(
                    p.file_path,
                    "write",
                    lambda old: edits.overwrite(old, content),
                    create_parents=True,
                    confirm=True,
                    streamed=stream_write(content) if encoder is None else None,
                    encoder=encoder,
                )
            )

        outcome = write()
        as_utf8 = False
        if outcome.failure is not None and outcome.failure.code == "unencodable":
            # The file's encoding cannot hold the new text: the whole file is replaced, so
            # it is saved as UTF-8 (and the text says so) instead of a dead end.
            as_utf8 = True
            outcome = write(lambda text: text.encode("utf-8"))  # a lone surrogate: refused
        if not outcome.ok:
            return self._failed_outcome(outcome, p.file_path, "write_file")
        path = self._shown(outcome, p.file_path)
        if outcome.created:
            text = f"Successfully created and wrote to new file: {path}"
        else:
            text = f"Successfully overwrote file: {path}"
        if as_utf8:
            text += (
                " (saved as UTF-8: the file's previous encoding cannot represent the new content)"
            )
            outcome.extra["encoding_changed"] = "utf-8"
        if outcome.dry_run:
            text = self._dry_run_text(outcome, text.replace("Successfully", "Would have", 1))
        return Result(True, text, outcome.data())

    def replace(self, p: ReplaceParams) -> Result:
        """Replace `expected_replacements` occurrences (ladder, then corrector); empty old creates."""
        if p.old_string == "":
            return self._create(p)
        old, new, expected = p.old_string, p.new_string, p.expected_replacements
        given = p.file_path
        corrected: dict[str, Any] = {}
        cache: dict[str, Any] = {}

        def compute(text: str | None) -> Any:
            current = text or ""
            key = hashlib.sha256(current.encode("utf-8", "surrogatepass")).hexdigest()
            if key not in cache:
                cache[key] = self._replace_text(current, old, new, expected, given, corrected)
            return cache[key]

        outcome = self.change(
            Change(
                given,
                "edit",
                compute,
                must_exist=True,
                check_stale=False,
                confirm=True,
                streamed=stream_replace(old, new, mode="all", expected=expected if expected else 1),
            )
        )
        path = self._shown(outcome, given)
        if not outcome.ok:
            assert outcome.failure is not None
            failure = outcome.failure
            if failure.code == "not_found":
                return Result(
                    False,
                    f"File not found: {path}. Cannot apply edit. Use an empty "
                    "old_string to create a new file.",
                    {"error": "not_found", "path": path},
                )
            text = self._edit_failure_text(failure.code, failure.detail, path, old, new, expected)
            if failure.code == "unencodable":  # what will work instead
                refused = self._failed_outcome(outcome, given, "replace")
                refused.text += (
                    " No edits made. Leave those characters out of new_string, or rewrite the"
                    " whole file with write_file, which saves it as UTF-8."
                )
                return refused
            if text is None:
                return self._failed_outcome(outcome, given, "replace")
            data = {k: v for k, v in failure.detail.items() if k != "message"}
            hint = _closest_hint(failure.detail.get("closest") or [])
            if failure.code == "count_mismatch":
                hint = _occurrences_hint(failure.detail.get("locations") or [])
            if hint:  # after the seed's text: where the text the model meant is
                data["closest_hint" if failure.code == "no_match" else "locations_hint"] = (
                    hint.strip()
                )
                if not self.options.get("plain"):
                    text += hint
            return Result(False, text, {**data, "error": failure.code, "path": path})
        text = f"Successfully modified file: {path} ({outcome.replacements} replacements)."
        if outcome.dry_run:
            text = self._dry_run_text(
                outcome, f"Would modify file: {path} ({outcome.replacements} replacements)."
            )
        data = outcome.data()
        if corrected:
            data["corrected"] = corrected
        return Result(True, text, data)

    def _create(self, p: ReplaceParams) -> Result:
        content = p.new_string
        outcome = self.change(
            Change(
                p.file_path,
                "create",
                lambda old: edits.overwrite(old, content),
                must_not_exist=True,
                create_parents=True,
                confirm=True,
            )
        )
        path = self._shown(outcome, p.file_path)
        if not outcome.ok:
            assert outcome.failure is not None
            if outcome.failure.code == "exists":
                return Result(
                    False,
                    f"File already exists, cannot create: {path}. To edit it, give the "
                    "exact text to replace in old_string.",
                    {"error": "exists", "path": path},
                )
            return self._failed_outcome(outcome, p.file_path, "replace")
        text = f"Created new file: {path} with provided content."
        if outcome.dry_run:
            text = self._dry_run_text(
                outcome, f"Would create new file: {path} with provided content."
            )
        return Result(True, text, outcome.data())

    def _replace_text(
        self, text: str, old: str, new: str, expected: int, given: str, corrected: dict[str, Any]
    ) -> Any:
        """The ladder first; then, if it found no region or another count, the corrector."""
        result = edits.replace(text, old, new, expected=expected)
        corrector: Corrector | None = self.options.get("corrector")
        if corrector is None or not isinstance(result, edits.EditFailure):
            return result
        if result.code not in ("no_match", "count_mismatch"):
            return result
        error = (
            self._edit_failure_text(result.code, result.detail, given, old, new, expected)
            or result.code
        )
        try:
            proposal = corrector(text, old, new, error)
        except Exception:  # an application's corrector must not break the tool
            return result
        if not proposal or not isinstance(proposal, tuple) or len(proposal) != 2:
            return result
        old2, new2 = proposal
        if not isinstance(old2, str) or not isinstance(new2, str) or old2 == "":
            return result
        second = edits.replace(text, old2, new2, expected=expected)
        if isinstance(second, edits.EditFailure):
            return result
        corrected.update(old_string=old2, new_string=new2)
        return dataclasses.replace(second, strategy=f"corrector+{second.strategy}")

    def _edit_failure_text(
        self, code: str, detail: dict[str, Any], path: str, old: str, new: str, expected: int
    ) -> str | None:
        if code == "no_match":
            return f"Failed to edit, 0 occurrences found for old_string in {path}. {NO_OCCURRENCE_HINT}"
        if code == "placeholder":
            return (
                f"Failed to edit, new_string contains an omission placeholder"
                f" ({detail.get('placeholder')}) in file: {path}. Provide the complete literal"
                " replacement text instead of a placeholder."
            )
        if code == "count_mismatch":
            found = detail.get("found", detail.get("count", "?"))
            return (
                f"Failed to edit, expected {expected} occurrences but found {found} "
                f"for old_string in file: {path}"
            )
        if code == "no_change":
            if old == new:
                return f"No changes to apply. The old_string and new_string are identical in file: {path}"
            return f"No changes to apply. The new content is identical to the current content in file: {path}"
        return None


def _closest_hint(closest: list[dict[str, Any]]) -> str:
    """Where the most similar real text is, its lines numbered as search_file_content
    numbers them (`L<n>: `); never used to apply an edit."""
    found = [c for c in closest if c.get("similarity", 0) >= 0.5]
    if not found:
        return ""
    best = found[0]
    start, end = int(best["start_line"]), int(best["end_line"])
    where = f"line {start}" if start == end else f"lines {start}-{end}"
    differs = best.get("differs") or []
    how = f" (differs in: {', '.join(map(str, differs))})" if differs else ""
    lines = str(best.get("text", "")).split("\n")
    body = "\n".join(f"L{start + i}: {line}" for i, line in enumerate(lines))
    return f"\n\nThe most similar text in the file is at {where}{how}:\n{body}"


def _occurrences_hint(locations: list[dict[str, Any]], limit: int = 10) -> str:
    """Where each occurrence is, with its numbered context (from `edit.suggest.locations`)."""
    return locations_text(
        locations,
        "The occurrences are at:",
        lambda line: f"- line {line}:",
        lambda rest: f"({rest} more not shown)",
        limit,
    )


__all__ = ["Corrector", "GeminiToolset"]
