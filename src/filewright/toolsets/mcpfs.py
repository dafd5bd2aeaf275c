"""The `mcpfs` toolset: the official MCP filesystem server's tools on filewright's engine.

Names, parameters, defaults, descriptions, annotations, output schemas and output formats
are that server's (`@modelcontextprotocol/server-filesystem`), so a host config only
changes its command line. What differs, on purpose (docs/mcpfs.md lists it all): an
`edit_file` whose `oldText` matches more than one place is refused instead of applied at
the first; symlinks never lead out of the roots; every change goes through the pipeline
(policy, confirmation, lock, history for undo, stale-read protection); files keep their
encoding and line endings; binary files are not returned as text.
"""

from __future__ import annotations

import base64
import math
import os
from typing import TYPE_CHECKING, Any, ClassVar

from filewright import search
from filewright.core.result import Failure, OperationFailed, Result
from filewright.edit import edits
from filewright.engine import fileops
from filewright.engine.change import Change
from filewright.read.readers import media_bytes, read_any, take_output, whole_text
from filewright.search.tree import path_matcher, tree
from filewright.tools.base import Tool, Toolset
from filewright.toolsets import mcpfs_format as fmt
from filewright.toolsets.mcpfs_schemas import MEDIA_OUTPUT, READ_ONLY, hints, mcp_listing

if TYPE_CHECKING:
    from filewright.fs.paths import Location
    from filewright.toolsets.mcpfs_params import (
        DirectoryTreeParams,
        EditFileParams,
        ListDirectoryWithSizesParams,
        MoveFileParams,
        NoParams,
        PathParams,
        ReadMultipleFilesParams,
        ReadTextFileParams,
        SearchFilesParams,
        WriteFileParams,
    )

MODELS = "filewright.toolsets.mcpfs_params:"
MAX_WALK = 200_000  # entries a directory_tree or search_files walks at most
READ_TEXT_DESCRIPTION = (
    "Read the complete contents of a file from the file system as text. "
    "Handles various text encodings and provides detailed error messages "
    "if the file cannot be read. Use this tool when you need to examine "
    "the contents of a single file. Use the 'head' parameter to read only "
    "the first N lines of a file, or the 'tail' parameter to read only "
    "the last N lines of a file. Operates on the file as text regardless of extension. "
    "Only works within allowed directories."
)


class McpfsToolset(Toolset):
    name = "mcpfs"
    # The server's messages for the failures its users know; the rest are filewright's.
    messages: ClassVar[dict[str, dict[str, str]]] = {
        "*": {"is_directory": "EISDIR: illegal operation on a directory, read"}
    }

    def tools(self) -> list[Tool]:
        return [
            Tool(
                "read_file",
                "Read the complete contents of a file as text. DEPRECATED: Use read_text_file instead.",
                MODELS + "ReadTextFileParams",
                self.read_text_file,
                read_only=True,
                title="Read File (Deprecated)",
                inline_ok=True,
                mcp=mcp_listing(READ_ONLY),
            ),
            Tool(
                "read_text_file",
                READ_TEXT_DESCRIPTION,
                MODELS + "ReadTextFileParams",
                self.read_text_file,
                read_only=True,
                title="Read Text File",
                inline_ok=True,
                mcp=mcp_listing(READ_ONLY),
            ),
            Tool(
                "read_media_file",
                "Read a file and return it as a base64-encoded content block with its MIME type. "
                "Image and audio files are returned as image/audio content; any other file type is "
                "returned as an embedded resource. Only works within allowed directories.",
                MODELS + "PathParams",
                self.read_media_file,
                read_only=True,
                title="Read Media File",
                inline_ok=True,
                mcp=mcp_listing(READ_ONLY, MEDIA_OUTPUT),
            ),
            Tool(
                "read_multiple_files",
                "Read the contents of multiple files simultaneously. This is more "
                "efficient than reading files one by one when you need to analyze "
                "or compare multiple files. Each file's content is returned with its "
                "path as a reference. Failed reads for individual files won't stop "
                "the entire operation. Only works within allowed directories.",
                MODELS + "ReadMultipleFilesParams",
                self.read_multiple_files,
                read_only=True,
                title="Read Multiple Files",
                mcp=mcp_listing(READ_ONLY),
            ),
            Tool(
                "write_file",
                "Create a new file or completely overwrite an existing file with new content. "
                "Use with caution as it will overwrite existing files without warning. "
                "Handles text content with proper encoding. Only works within allowed directories.",
                MODELS + "WriteFileParams",
                self.write_file,
                destructive=True,
                idempotent=True,
                title="Write File",
                mcp=mcp_listing(hints(True, True)),
            ),
            Tool(
                "edit_file",
                "Make line-based edits to a text file. Each edit replaces exact line sequences "
                "with new content. Returns a git-style diff showing the changes made. "
                "Only works within allowed directories.",
                MODELS + "EditFileParams",
                self.edit_file,
                destructive=True,
                title="Edit File",
                mcp=mcp_listing(hints(False, True)),
            ),
            Tool(
                "create_directory",
                "Create a new directory or ensure a directory exists. Can create multiple "
                "nested directories in one operation. If the directory already exists, "
                "this operation will succeed silently. Perfect for setting up directory "
                "structures for projects or ensuring required paths exist. Only works within "
                "allowed directories.",
                MODELS + "PathParams",
                self.create_directory,
                idempotent=True,
                title="Create Directory",
                mcp=mcp_listing(hints(True, False)),
            ),
            Tool(
                "list_directory",
                "Get a detailed listing of all files and directories in a specified path. "
                "Results clearly distinguish between files and directories with [FILE] and [DIR] "
                "prefixes. This tool is essential for understanding directory structure and "
                "finding specific files within a directory. Only works within allowed directories.",
                MODELS + "PathParams",
                self.list_directory,
                read_only=True,
                title="List Directory",
                mcp=mcp_listing(READ_ONLY),
            ),
            Tool(
                "list_directory_with_sizes",
                "Get a detailed listing of all files and directories in a specified path, "
                "including sizes. Results clearly distinguish between files and directories with "
                "[FILE] and [DIR] prefixes. This tool is useful for understanding directory "
                "structure and finding specific files within a directory. Only works within "
                "allowed directories.",
                MODELS + "ListDirectoryWithSizesParams",
                self.list_directory_with_sizes,
                read_only=True,
                title="List Directory with Sizes",
                mcp=mcp_listing(READ_ONLY),
            ),
            Tool(
                "directory_tree",
                "Get a recursive tree view of files and directories as a JSON structure. "
                "Each entry includes 'name', 'type' (file/directory), and 'children' for "
                "directories. Files have no children array, while directories always have a "
                "children array (which may be empty). The output is formatted with 2-space "
                "indentation for readability. Only works within allowed directories.",
                MODELS + "DirectoryTreeParams",
                self.directory_tree,
                read_only=True,
                title="Directory Tree",
                mcp=mcp_listing(READ_ONLY),
            ),
            Tool(
                "move_file",
                "Move or rename files and directories. Can move files between directories "
                "and rename them in a single operation. If the destination exists, the "
                "operation will fail. Works across different directories and can be used "
                "for simple renaming within the same directory. Both source and destination "
                "must be within allowed directories.",
                MODELS + "MoveFileParams",
                self.move_file,
                destructive=True,
                title="Move File",
                mcp=mcp_listing(hints(False, True)),
            ),
            Tool(
                "search_files",
                "Recursively search for files and directories matching a pattern. "
                "The patterns should be glob-style patterns that match paths relative to the "
                "working directory. Use pattern like '*.ext' to match files in current "
                "directory, and '**/*.ext' to match files in all subdirectories. Returns full "
                "paths to all matching items. Great for finding files when you don't know "
                "their exact location. Only searches within allowed directories.",
                MODELS + "SearchFilesParams",
                self.search_files,
                read_only=True,
                title="Search Files",
                mcp=mcp_listing(READ_ONLY),
            ),
            Tool(
                "get_file_info",
                "Retrieve detailed metadata about a file or directory. Returns comprehensive "
                "information including size, creation time, last modified time, permissions, "
                "and type. This tool is perfect for understanding file characteristics "
                "without reading the actual content. Only works within allowed directories.",
                MODELS + "PathParams",
                self.get_file_info,
                read_only=True,
                title="Get File Info",
                mcp=mcp_listing(READ_ONLY),
            ),
            Tool(
                "list_allowed_directories",
                "Returns the list of directories that this server is allowed to access. "
                "Subdirectories within these allowed directories are also accessible. "
                "Use this to understand which directories and their nested paths are available "
                "before trying to access files.",
                MODELS + "NoParams",
                self.list_allowed_directories,
                read_only=True,
                title="List Allowed Directories",
                mcp=mcp_listing(READ_ONLY),
            ),
        ]

    # -- results ------------------------------------------------------------------------

    def _text(self, text: str, **data: Any) -> Result:
        """A success: the text, also as structured `content` (the server's output schema)."""
        return Result(True, text, {"content": text, **data})

    def _absolute(self, path: str) -> str:
        first = str(self.workspace.roots[0])
        return os.path.normpath(path if os.path.isabs(path) else os.path.join(first, path))

    def failed(self, failure: Failure, path: str | None = None, **data: Any) -> Result:
        """A failure in the server's words where its users know them (Node's ENOENT for a
        missing or hidden path, its access-denied line), else filewright's."""
        result = super().failed(failure, path, **data)
        path = path if path is not None else failure.path
        if failure.code == "outside":
            roots = ", ".join(str(r) for r in self.workspace.roots)
            result.text = (
                "Access denied - path outside allowed directories: "
                f"{self._absolute(path)} not in {roots}"
            )
        elif failure.code in ("not_found", "hidden", "parent_missing"):
            result.text = f"ENOENT: no such file or directory, open '{self._absolute(path)}'"
        return result

    # -- reading ------------------------------------------------------------------------

    def _whole_text(self, path: str) -> str:
        """A text file's whole content (its own newlines kept), as much of it as the
        call's output budget allows; raises OperationFailed."""

        text = whole_text(self.engine, path)
        return take_output(fmt.with_eols(text.text, text.eols))[0]

    def read_text_file(self, p: ReadTextFileParams) -> Result:
        if p.head and p.tail:
            return Result(
                False,
                "Cannot specify both head and tail parameters simultaneously",
                {"error": "bad_arguments"},
            )
        count = p.tail or p.head
        try:
            if not count:
                return self._text(self._whole_text(p.path))
            if not math.isfinite(count) or count < 0 or count != int(count):
                raise ValueError
        except OperationFailed as exc:
            return self.failed(exc.failure, p.path)
        except ValueError:
            return Result(
                False, "head and tail must be whole numbers of lines", {"error": "bad_arguments"}
            )

        try:
            outcome = read_any(
                self.engine,
                p.path,
                offset=1,
                limit=None if p.tail else int(count),
                tail=int(count) if p.tail else None,
                max_line_chars=1 << 30,
            )
        except OperationFailed as exc:
            return self.failed(exc.failure, p.path)
        if outcome.text is None:
            return Result(
                False, f"Cannot read {p.path} as text: it is {outcome.kind}", {"error": "binary"}
            )
        return self._text("\n".join(outcome.text.lines))

    def read_media_file(self, p: PathParams) -> Result:

        try:
            loc, _ = self.engine.locate(p.path, purpose="read", expect="file")
            mime = fmt.MEDIA_TYPES.get(
                os.path.splitext(loc.real.name)[1].lower(), "application/octet-stream"
            )
            data = media_bytes(self.engine, loc, image=mime.startswith("image/"))
        except OperationFailed as exc:
            return self.failed(exc.failure, p.path)
        encoded = base64.b64encode(data).decode("ascii")
        if mime.startswith(("image/", "audio/")):
            block: dict[str, Any] = {"type": mime.split("/")[0], "data": encoded, "mimeType": mime}
        else:
            uri = loc.real.as_uri()
            block = {
                "type": "resource",
                "resource": {"uri": uri, "mimeType": mime, "blob": encoded},
            }
        text = f"[{mime}, {len(data)} bytes: {loc.lexical_rel}]"
        return Result(True, text, {"content": [block], "content_blocks": [block]})

    def read_multiple_files(self, p: ReadMultipleFilesParams) -> Result:
        parts = []
        for path in p.paths:
            try:
                parts.append(f"{path}:\n{self._whole_text(path)}\n")
            except OperationFailed as exc:
                parts.append(f"{path}: Error - {self.failed(exc.failure, path).text}")
        return self._text("\n---\n".join(parts))

    # -- changing -----------------------------------------------------------------------

    def write_file(self, p: WriteFileParams) -> Result:
        content = p.content
        outcome = self.change(Change(p.path, "write", lambda _old: content))
        if not outcome.ok:
            assert outcome.failure is not None
            return self.failed(outcome.failure, p.path)
        return self._text(f"Successfully wrote to {p.path}")

    def edit_file(self, p: EditFileParams) -> Result:
        ops = [edits.Replace(e.oldText, e.newText) for e in p.edits]
        for index, op in enumerate(ops):
            if op.old == "":
                return Result(
                    False,
                    f"Edit {index + 1}: oldText must not be empty",
                    {"error": "empty_old", "edit_index": index},
                )
        outcome = self.change(
            Change(
                p.path,
                "edit",
                lambda text: edits.apply_batch(text or "", ops),
                must_exist=True,
                dry_run=p.dryRun,
            )
        )
        if not outcome.ok:
            assert outcome.failure is not None
            return self._edit_failure(outcome.failure, p)
        assert outcome.loc is not None
        diff = fmt.two_files_patch(
            outcome.old_text or "", outcome.new_text or "", str(outcome.loc.real)
        )
        return self._text(fmt.fenced_diff(diff))

    def _edit_failure(self, failure: Failure, p: EditFileParams) -> Result:
        index = failure.detail.get("edit_index", 0)
        old = p.edits[index].oldText if 0 <= index < len(p.edits) else ""
        if failure.code == "no_match":
            text = f"Could not find exact match for edit:\n{old}"
        elif failure.code == "ambiguous":
            count = failure.detail.get("count", "several")
            text = (
                f"Found {count} matches for edit (refused: it would change only the first):\n"
                f"{old}\nInclude more surrounding lines so that oldText matches one place."
            )
        else:
            return self.failed(failure, p.path)
        return Result(False, text, {"error": failure.code, "edit_index": index})

    def create_directory(self, p: PathParams) -> Result:
        outcome = fileops.mkdir(self.engine, p.path)
        if not outcome.ok:
            assert outcome.failure is not None
            return self.failed(outcome.failure, p.path)
        return self._text(f"Successfully created directory {p.path}")

    def move_file(self, p: MoveFileParams) -> Result:
        outcome = fileops.move(self.engine, p.source, p.destination)
        if not outcome.ok:
            assert outcome.failure is not None
            code = outcome.failure.code
            if code == "exists":
                return Result(
                    False, f"Destination already exists: {p.destination}", {"error": code}
                )
            if code in ("not_found", "hidden", "parent_missing"):
                src, dst = self._absolute(p.source), self._absolute(p.destination)
                return Result(
                    False,
                    f"ENOENT: no such file or directory, rename '{src}' -> '{dst}'",
                    {"error": code},
                )
            return self.failed(outcome.failure, p.source)
        return self._text(f"Successfully moved {p.source} to {p.destination}")

    # -- listing ------------------------------------------------------------------------

    def _entries(self, path: str) -> tuple[Location, list[Any]]:
        loc = self.engine.locate_dir(path)
        listing = search.list_directory(
            loc.real,
            respect_gitignore=False,
            **self.engine.search_scope(loc),
            symlink_root=loc.root,
        )
        ordered = sorted(listing.entries, key=lambda e: os.fsencode(e.name))
        return loc, ordered

    def list_directory(self, p: PathParams) -> Result:
        _loc, found = self._entries(p.path)
        text = "\n".join(
            f"{'[DIR]' if e.is_dir and not e.is_symlink else '[FILE]'} {e.name}" for e in found
        )
        return self._text(text)

    def list_directory_with_sizes(self, p: ListDirectoryWithSizesParams) -> Result:
        loc, found = self._entries(p.path)
        rows = []
        for e in found:
            is_dir = e.is_dir and not e.is_symlink
            size = fileops.entry_size(self.engine, loc, e.name)  # a directory's sorts too
            rows.append({"name": e.name, "is_dir": is_dir, "size": size})
        return self._text(fmt.sized_listing(rows, p.sortBy))

    def directory_tree(self, p: DirectoryTreeParams) -> Result:
        loc = self.engine.locate_dir(p.path)
        result = tree(
            loc.real,
            exclude=path_matcher(p.excludePatterns) if p.excludePatterns else None,
            respect_gitignore=False,
            **self.engine.search_scope(loc),
            max_entries=MAX_WALK,
        )
        return self._text(fmt.tree_json(result.nodes), truncated=result.truncated)

    def search_files(self, p: SearchFilesParams) -> Result:
        loc = self.engine.locate_dir(p.path)
        matches = path_matcher([p.pattern], anywhere=False)
        result = tree(
            loc.real,
            exclude=path_matcher(p.excludePatterns, anywhere=False) if p.excludePatterns else None,
            respect_gitignore=False,
            **self.engine.search_scope(loc),
            max_entries=MAX_WALK,
        )
        found: list[str] = []

        def collect(nodes: list[Any]) -> None:
            for node in nodes:
                if matches(node.rel):
                    found.append(str(loc.path / node.rel))
                if node.children:
                    collect(node.children)

        collect(result.nodes)
        return self._text("\n".join(found) if found else "No matches found")

    def get_file_info(self, p: PathParams) -> Result:
        try:
            info = fileops.stat(self.engine, p.path)
        except OperationFailed as exc:
            return self.failed(exc.failure, p.path)
        return self._text(fmt.file_info(info))

    def list_allowed_directories(self, _p: NoParams) -> Result:
        dirs = [str(r) for r in self.workspace.roots]
        return self._text("Allowed directories:\n" + "\n".join(dirs))
