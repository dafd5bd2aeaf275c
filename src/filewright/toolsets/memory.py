"""The `memory` toolset: Anthropic's client-side memory tool (`memory_20250818`) on the engine.

One tool, `memory`, whose `command` is `view`, `create`, `str_replace`, `insert`,
`delete` or `rename`, on paths under `/memories`. Its Anthropic definition is the
Anthropic-defined tool type, exactly `{"type": "memory_20250818", "name": "memory"}` (no
schema: Claude knows the tool); every other format gets a function tool generated from
`MemoryParams`.

Where `/memories` is: the directory `memories` in the workspace's first root (the toolset
option `directory` names another one, relative to that root). This is where the anthropic
SDK's `BetaLocalFilesystemMemoryTool(base_path=ROOT)` keeps it, so the two read and write
the same files. `/memories/notes.md` is `ROOT/memories/notes.md` (with `directory="."`,
`ROOT/notes.md`: a workspace that holds only the memory). The directory is made
(through `fileops.mkdir`: policy, history) by the first command, as the SDK's tool makes
it, so the first `view` of an empty memory lists an empty directory.

Behaviour and texts are those of the SDK's reference handlers (`BetaLocalFilesystemMemoryTool`,
anthropic 2.12) and Anthropic's memory-tool documentation; `tests/test_memory_tool.py`
runs the same commands through both and compares. Every change goes through the engine:
`pipeline.apply_change` (create, str_replace, insert), `fileops.delete` and `fileops.move`
(delete, rename), so the sandbox, the policy, confirmation, history and undo apply.
Paths that do not start with `/memories`, `..` that would leave it, symlinks that lead
out of it (or out of the workspace) are refused with the reference's texts; so are `..`
hidden in percent-encoded (`%2e%2e%2f`) or backslash (`..\\`) forms, which Anthropic's
documentation asks handlers to refuse. `view` of an image answers with the image (Claude's
tool description says it does). Deliberate differences are in docs/deviations.md.
"""

from __future__ import annotations

import os
import posixpath
import re
from typing import Any, ClassVar
from urllib.parse import unquote

from filewright import search
from filewright.core.result import Failure, OperationFailed, Result
from filewright.edit import edits
from filewright.edit.matching import find
from filewright.edit.outcome import EditFailure
from filewright.engine import fileops
from filewright.engine.change import Change, Outcome
from filewright.engine.undo import undo
from filewright.fs.paths import Location, PathRefused
from filewright.read import readers
from filewright.tools.base import Tool, Toolset

ROOT = "/memories"
COMMANDS = ("view", "create", "str_replace", "insert", "delete", "rename")
BUILTIN: dict[str, Any] = {"type": "memory_20250818", "name": "memory"}
MAX_LINES = 999_999
WIDTH = len(str(MAX_LINES))  # line numbers right-aligned in 6 columns, then a tab
SNIPPET_BEFORE, SNIPPET_AFTER = 2, 3  # lines shown around a str_replace's match
IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png", ".gif", ".webp")

DESCRIPTION = """Your memory directory, /memories: files that persist between conversations. Check it before you start a task; record progress, decisions and what you learn as you work, and keep it organised (rename or delete files that are no longer relevant).
- `view`: `path` a directory (listed two levels deep, with sizes, without hidden items) or a file (shown with line numbers; `view_range` [first, last], -1 for the end).
- `create`: a new file at `path` with `file_text`; an existing file is not overwritten.
- `str_replace`: in the file at `path`, replace `old_str` (it must occur once) with `new_str`.
- `insert`: put `insert_text` after line `insert_line` of the file at `path` (0 = the top).
- `delete`: delete the file or directory at `path`.
- `rename`: move `old_path` to `new_path` (which must not exist).
Every path starts with /memories."""

NOT_FOUND = "The path {path} does not exist. Please provide a valid path."


def size_text(n: int) -> str:
    """A size as the reference's listing shows it: `0B`, `512B`, `4K`, `1.5K`, `2M`, `1G`."""
    if n == 0:
        return "0B"
    units = ("B", "K", "M", "G")
    i = min((n.bit_length() - 1) // 10, len(units) - 1)
    size = n / (1024**i)
    return f"{int(size)}{units[i]}" if size == int(size) else f"{size:.1f}{units[i]}"


def _numbered(lines: list[str], first: int) -> str:
    return readers.numbered(lines, first, WIDTH)


def _inside(real: str, base: str) -> bool:
    return real == base or real.startswith(base.rstrip("/") + "/")


class _Refused(Exception):
    """A command refused with the reference's text."""

    def __init__(self, text: str, code: str = "invalid") -> None:
        super().__init__(text)
        self.text, self.code = text, code


class MemoryToolset(Toolset):
    """Anthropic's memory tool on the engine.

    Options: `directory` (where `/memories` is, relative to the workspace's first root;
    default "memories"; "." makes the root itself the memory directory).
    """

    name = "memory"
    tool_name = "memory"
    messages: ClassVar[dict[str, dict[str, str]]] = {
        "*": {
            "not_found": NOT_FOUND,
            "hidden": NOT_FOUND,
            "outside": "Path {path} would escape /memories directory",
            "stale": "The file {path} was modified since you last viewed it. View it again "
            "before changing it.",
            "binary": "The file {path} is not a text file; it cannot be shown or edited.",
            "not_regular": "Unsupported file type for {path}",
            "symlink": "The path {path} is a symbolic link; links are not renamed",
            "into_itself": "Cannot move {path} into itself",
            "io_error": "Cannot access {path} ({errno})",
        }
    }

    def __init__(self, workspace: Any, **options: Any) -> None:
        super().__init__(workspace, **options)
        given = str(options.get("directory", "memories"))
        directory = posixpath.normpath(given) if given else "."
        if os.path.isabs(given) or directory.split("/")[0] == "..":
            raise ValueError(
                f"memory directory must be a path relative to the first root, got {given!r}"
            )
        self.directory = directory

    @property
    def base(self) -> str:
        """The directory that `/memories` stands for ("." : the first root itself)."""
        root = self.workspace.roots[0]
        return str(root if self.directory == "." else root / self.directory)

    def tools(self) -> list[Tool]:
        return [
            Tool(
                self.tool_name,
                DESCRIPTION,
                "filewright.toolsets.memory_params:MemoryParams",
                self.run,
                destructive=True,
                title="Memory",
                anthropic_builtin=dict(BUILTIN),
            )
        ]

    def anthropic_builtin(self) -> dict[str, Any]:
        """The Anthropic definition: `{"type": "memory_20250818", "name": "memory"}`."""
        return dict(BUILTIN)

    # -- dispatch -----------------------------------------------------------------------

    def run(self, p: Any) -> Result:
        """Make the memory directory if needed, check the arguments, run the command."""
        if p.command not in COMMANDS:
            return self._error(
                f"Unknown command: {p.command}. The allowed commands for the memory tool "
                f"are: {', '.join(COMMANDS)}",
                "bad_arguments",
            )
        needed = {
            "view": ("path",),
            "create": ("path", "file_text"),
            "str_replace": ("path", "old_str"),
            "insert": ("path", "insert_line", "insert_text"),
            "delete": ("path",),
            "rename": ("old_path", "new_path"),
        }[p.command]
        for name in needed:
            if getattr(p, name) is None:
                return self._error(
                    f"Parameter `{name}` is required for command: {p.command}", "bad_arguments"
                )
        self._ensure_root()
        handler = getattr(self, "_" + p.command)
        try:
            result: Result = handler(p)
        except _Refused as exc:
            return self._error(exc.text, exc.code)
        except OperationFailed as exc:  # worded with the /memories path, never the disk's
            return self.failed(exc.failure, p.path if p.path is not None else p.old_path)
        return result

    def _error(self, text: str, code: str = "invalid", **data: Any) -> Result:
        return Result(False, text, {"error": code, **data})

    def _ensure_root(self) -> None:
        """Make the memory directory, as the reference does before any command. A failure
        here (policy, dry run) is not reported: the command then finds nothing there."""
        try:
            loc = self.workspace.sandbox.resolve(self.base, expect="any")
        except PathRefused:
            return
        if not loc.exists:
            fileops.mkdir(self.engine, self.base)

    # -- paths --------------------------------------------------------------------------

    def _disk(self, path: str) -> str:
        """The path on disk that a `/memories/...` path names (not yet resolved)."""
        if path != ROOT and not path.startswith(ROOT + "/"):
            raise _Refused(f"Path must start with /memories, got: {path}")
        decoded, before = path, None
        while decoded != before:  # %252e%252e is %2e%2e once decoded
            before, decoded = decoded, unquote(decoded)
        disguised = re.split(r"[/\\]", decoded).count("..") > path.split("/").count("..")
        if disguised:  # a `..` that only a decoder (or a backslash) makes one
            raise _Refused(f"Path {path} would escape /memories directory", "outside")
        rel = path[len(ROOT) :].lstrip("/")
        if posixpath.normpath("/" + rel).startswith("/.."):  # ".." past /memories itself
            raise _Refused(f"Path {path} would escape /memories directory", "outside")
        return self.base + ("/" + rel if rel else "")

    def _locate(self, path: str, purpose: str) -> tuple[str, Location]:
        """The disk path and location of a memory path, refused unless it stays inside the
        memory directory once every symlink is resolved."""
        disk = self._disk(path)
        try:
            loc, _ = self.engine.locate(disk, purpose=purpose, expect="any")
        except OperationFailed as exc:
            if exc.failure.code in ("outside", "symlink_loop"):
                raise _Refused(f"Path {path} would escape /memories directory", "outside") from None
            raise OperationFailed(Failure(exc.failure.code, path, exc.failure.detail)) from None
        if not _inside(str(loc.real), os.path.realpath(self.base)):
            raise _Refused(f"Path {path} would escape /memories directory", "outside")
        return disk, loc

    def _is_root(self, loc: Location) -> bool:
        return str(loc.real) == os.path.realpath(self.base)

    def _failed(self, outcome: Outcome, path: str) -> Result:
        assert outcome.failure is not None
        return self.failed(outcome.failure, path)

    # -- view ---------------------------------------------------------------------------

    def _view(self, p: Any) -> Result:
        _disk, loc = self._locate(p.path, "read")
        if not loc.exists:
            raise _Refused(NOT_FOUND.format(path=p.path), "not_found")
        if loc.is_dir:
            return self._listing(p.path, loc)
        if loc.name.lower().endswith(IMAGE_SUFFIXES):
            # Claude's tool description says view shows images: the image itself, as the
            # surfaces pass images on (an Anthropic image block beside the text).
            seen = readers.read_any(self.engine, loc, limit=1, record=False)
            if seen.image is not None:
                return Result(
                    True,
                    f"Here's the image {p.path}:",
                    {"path": str(loc.path), "command": "view", "images": [seen.image.to_dict()]},
                )
        text_file, _state = self.engine.load_text(loc)
        self.engine.record_read(loc, text_file.hash)
        lines = text_file.text.split("\n")
        if len(lines) > MAX_LINES:
            raise _Refused(
                f"File {p.path} exceeds maximum line limit of 999,999 lines.", "too_large"
            )
        first = 1
        if p.view_range and len(p.view_range) == 2:
            start, end = p.view_range
            first = max(1, start)
            lines = lines[first - 1 : len(lines) if end == -1 else end]
        text = f"Here's the content of {p.path} with line numbers:\n" + _numbered(lines, first)
        return Result(True, text, {"path": str(loc.path), "command": "view", "lines": len(lines)})

    def _listing(self, path: str, loc: Location) -> Result:
        """Two levels below `loc`, hidden names, links leading out of the memory directory
        and what the policy hides left out; sizes as `stat` gives them."""
        base_real = os.path.realpath(self.base)
        visible = self.engine.visibility(loc)
        sandbox = self.workspace.sandbox
        found: list[str] = []

        def walk(directory: Location, rel: str, depth: int) -> None:
            try:
                listing = search.list_directory(
                    directory.real,
                    respect_gitignore=False,
                    visible=lambda name, is_dir: (
                        not name.startswith(".") and visible(rel + name, is_dir)
                    ),
                )
            except OSError:
                return
            for entry in sorted(listing.entries, key=lambda e: e.name):
                if not visible(rel + entry.name, entry.is_dir):
                    continue
                try:
                    child = sandbox.resolve(str(directory.path / entry.name), expect="any")
                except PathRefused:
                    continue
                if not child.exists or not _inside(str(child.real), base_real):
                    continue
                size = size_text(fileops.entry_size(self.engine, directory, entry.name))
                found.append(f"{size}\t{path}/{rel}{entry.name}{'/' if child.is_dir else ''}")
                if child.is_dir and not entry.is_symlink and depth < 2:
                    walk(child, f"{rel}{entry.name}/", depth + 1)

        walk(loc, "", 1)
        own = fileops.stat(self.engine, str(loc.path))["size"]
        text = "\n".join(
            [
                f"Here're the files and directories up to 2 levels deep in {path}, "
                "excluding hidden items:",
                f"{size_text(own)}\t{path}",
                *found,
            ]
        )
        return Result(True, text, {"path": str(loc.path), "command": "view", "entries": len(found)})

    # -- changes --------------------------------------------------------------------------

    def _file(self, path: str) -> str:
        """The disk path of an existing file to change, or the reference's refusal."""
        disk, loc = self._locate(path, "write")
        if not loc.exists:
            raise _Refused(NOT_FOUND.format(path=path), "not_found")
        if loc.is_dir:
            raise _Refused(f"The path {path} is not a file.", "is_directory")
        return disk

    def _dry(self, outcome: Outcome, command: str, path: str) -> Result | None:
        if not outcome.dry_run:
            return None
        return Result(
            True,
            f"[dry run] No changes were written. The {command} would change {path}:\n"
            f"{outcome.diff}",
            {**outcome.data(), "command": command},
        )

    def _create(self, p: Any) -> Result:
        disk, loc = self._locate(p.path, "write")
        if loc.exists:
            raise _Refused(f"File {p.path} already exists", "exists")
        text = p.file_text
        outcome = self.change(
            Change(
                disk,
                "create",
                lambda old: edits.overwrite(old, text),
                must_not_exist=True,
                create_parents=True,
            )
        )
        if not outcome.ok:
            if outcome.failure is not None and outcome.failure.code in ("exists", "is_directory"):
                raise _Refused(f"File {p.path} already exists", "exists")
            return self._failed(outcome, p.path)
        if (dry := self._dry(outcome, "create", p.path)) is not None:
            return dry
        return Result(
            True,
            f"File created successfully at: {p.path}",
            {**outcome.data(), "command": "create"},
        )

    def _str_replace(self, p: Any) -> Result:
        disk = self._file(p.path)
        old, new = p.old_str, p.new_str or ""
        anchor: list[int] = []

        def compute(text: str | None) -> Any:
            text = text or ""
            match = find(text, old)
            anchor[:] = [match.regions[0].start_line] if match.regions else []
            done = edits.replace(text, old, new)
            if isinstance(done, EditFailure) and done.code == "no_change":
                return text  # the reference rewrites the same text: a success
            return done

        outcome = self.change(Change(disk, "edit", compute, must_exist=True, check_stale=False))
        if not outcome.ok:
            failure = outcome.failure
            assert failure is not None
            if failure.code == "no_match":
                raise _Refused(
                    f"No replacement was performed, old_str `{old}` did not appear verbatim in "
                    f"{p.path}.",
                    "no_match",
                )
            if failure.code == "ambiguous":
                lines = [str(where["line"]) for where in failure.detail.get("locations", [])]
                raise _Refused(
                    f"No replacement was performed. Multiple occurrences of old_str `{old}` in "
                    f"lines: {', '.join(lines)}. Please ensure it is unique",
                    "ambiguous",
                )
            if failure.code == "empty_old":
                raise _Refused(
                    "No replacement was performed: `old_str` is empty. Give the exact text to "
                    "replace, or use the `insert` command to add text.",
                    "empty_old",
                )
            return self._failed(outcome, p.path)
        if (dry := self._dry(outcome, "str_replace", p.path)) is not None:
            return dry
        new_lines = (outcome.new_text or "").split("\n")
        at = (anchor[0] if anchor else 1) - 1
        first = max(0, at - SNIPPET_BEFORE)
        shown = new_lines[first : min(len(new_lines), at + SNIPPET_AFTER)]
        text = (
            "The memory file has been edited. Here is the snippet showing the change (with "
            "line numbers):\n" + _numbered(shown, first + 1)
        )
        return Result(True, text, {**outcome.data(), "command": "str_replace"})

    def _insert(self, p: Any) -> Result:
        disk = self._file(p.path)
        line, block = p.insert_line, p.insert_text.rstrip("\n") + "\n"

        def compute(text: str | None) -> Any:
            text = text or ""  # the reference ends the file with a newline
            return edits.insert_at_line(
                text if not text or text.endswith("\n") else text + "\n", line, block
            )

        outcome = self.change(Change(disk, "insert", compute, must_exist=True))
        if not outcome.ok:
            failure = outcome.failure
            assert failure is not None
            if failure.code == "line_out_of_range":
                raise _Refused(
                    f"Invalid `insert_line` parameter: {line}. It should be within the range "
                    f"[0, {failure.detail.get('line_count', 0)}].",
                    "line_out_of_range",
                )
            return self._failed(outcome, p.path)
        if (dry := self._dry(outcome, "insert", p.path)) is not None:
            return dry
        return Result(
            True, f"The file {p.path} has been edited.", {**outcome.data(), "command": "insert"}
        )

    def _delete(self, p: Any) -> Result:
        disk, loc = self._locate(p.path, "write")
        if self._is_root(loc):
            raise _Refused("Cannot delete the /memories directory itself")
        if not loc.exists and not loc.is_link:
            raise _Refused(f"The path {p.path} does not exist", "not_found")
        outcome = fileops.delete(self.engine, disk, recursive=True)
        if not outcome.ok:
            return self._failed(outcome, p.path)
        if (dry := self._dry(outcome, "delete", p.path)) is not None:
            return dry
        return Result(
            True, f"Successfully deleted {p.path}", {**outcome.data(), "command": "delete"}
        )

    def _rename(self, p: Any) -> Result:
        old_disk, old = self._locate(p.old_path, "write")
        new_disk, new = self._locate(p.new_path, "write")
        if self._is_root(old):
            raise _Refused("Cannot rename the /memories directory itself")
        if new.exists:
            raise _Refused(f"The destination {p.new_path} already exists", "exists")
        if not old.exists:
            raise _Refused(f"The path {p.old_path} does not exist", "not_found")
        parent = os.path.dirname(new_disk)
        outcome = fileops.mkdir(self.engine, parent)  # the reference makes missing parents
        if not outcome.ok:
            return self._failed(outcome, p.new_path)
        made = outcome.created and not outcome.dry_run
        outcome = fileops.move(self.engine, old_disk, new_disk)
        if not outcome.ok:
            if made:  # nothing is left behind by a refused rename
                undo(self.engine, parent)
            return self._failed(outcome, p.old_path)
        if (dry := self._dry(outcome, "rename", p.old_path)) is not None:
            return dry
        return Result(
            True,
            f"Successfully renamed {p.old_path} to {p.new_path}",
            {**outcome.data(), "command": "rename"},
        )
