"""The `default` toolset's file-management tools: move, delete, mkdir, stat, tree,
read_many, roots, and reads from the end. Mapping and wording only: the work is the
engine's (`engine.fileops`, `read.many`, `search.tree`)."""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Any

from filewright.core.result import Failure, OperationFailed, Result
from filewright.engine.change import clip_diff
from filewright.tools.base import Tool
from filewright.toolsets.common import read_result

if TYPE_CHECKING:
    from filewright.engine.change import Outcome
    from filewright.tools.base import Toolset
    from filewright.toolsets.default_params import (
        DeleteParams,
        MkdirParams,
        MoveParams,
        ReadManyParams,
        RootsParams,
        StatParams,
        TreeParams,
    )

MODELS = "filewright.toolsets.default_params:"


def read_tail_or_range(
    toolset: Toolset, path: str, offset: int | None, limit: int | None, tail: int | None
) -> Result:
    """`read` with a negative offset (counted from the end) or `tail` (last N lines)."""
    if offset == 0:
        return toolset.failed(
            Failure("invalid", path, {"message": "offset must not be 0 (1 is the first line)"}),
            path,
        )
    if tail is not None and offset is not None:
        return toolset.failed(
            Failure("invalid", path, {"message": "give offset or tail, not both"}), path
        )
    if offset is not None and offset < 0:
        tail = -offset
        if limit is not None and limit < tail:
            return _from_the_end(toolset, path, tail, limit)
        offset = None
    return read_result(toolset, path, offset=offset, limit=limit, tail=tail, style="default")


def _from_the_end(toolset: Toolset, path: str, back: int, limit: int) -> Result:
    """`limit` lines starting `back` lines before the end: the first of the last `back`
    lines found from the end, then read forwards from there (or, in a file too large to
    count its lines, the first `limit` of the last `back`)."""

    from filewright.read.readers import read_any, render_outcome

    first = read_result(toolset, path, tail=back, style="default")
    start = first.data.get("start_line") if first.ok else None
    if not isinstance(start, int):
        return first
    if start >= 1:
        return read_result(toolset, path, offset=start, limit=limit, style="default")
    try:
        outcome = read_any(toolset.engine, path, tail=back, limit=None)
    except OperationFailed as exc:
        return toolset.failed(exc.failure, path)
    s = outcome.text
    if s is None:
        return first
    outcome.text = dataclasses.replace(
        s, lines=s.lines[:limit], end=s.start + min(limit, len(s.lines)) - 1, truncated=True
    )
    return Result(True, render_outcome(outcome, "default"), outcome.data())


class FileTools:
    """Mixin of `DefaultToolset`: the file-management tools and their handlers."""

    def file_tools(self: Any) -> list[Tool]:
        return [
            Tool(
                "move",
                "Move or rename a file or directory. Never replaces an existing destination "
                "unless overwrite is set (files only). Undo moves it back.",
                MODELS + "MoveParams",
                self.move,
                destructive=True,
                title="Move or rename",
            ),
            Tool(
                "delete",
                "Delete a file, link or empty directory (recursive: a directory and all it "
                "holds, after the user confirms). Undo restores what was deleted.",
                MODELS + "DeleteParams",
                self.delete,
                destructive=True,
                title="Delete",
            ),
            Tool(
                "mkdir",
                "Create a directory and any missing parents (an existing one is fine).",
                MODELS + "MkdirParams",
                self.mkdir,
                idempotent=True,
                title="Create directory",
            ),
            Tool(
                "stat",
                "Facts about a file or directory: type, size, mode, times; for text files "
                "also line count, encoding and hash.",
                MODELS + "StatParams",
                self.stat,
                read_only=True,
                title="File info",
            ),
            Tool(
                "tree",
                "Show a directory tree (depth and entry limits; honours .gitignore).",
                MODELS + "TreeParams",
                self.tree,
                read_only=True,
                title="Directory tree",
            ),
            Tool(
                "read_many",
                "Read several files (a list of paths, or a glob) in one call, numbered as "
                "read does, under one output budget; a file that cannot be read gets a line "
                "of its own.",
                MODELS + "ReadManyParams",
                self.read_many,
                read_only=True,
                title="Read files",
            ),
            Tool(
                "roots",
                "List the directories these tools may work in.",
                MODELS + "RootsParams",
                self.roots,
                read_only=True,
                title="Workspace roots",
            ),
        ]

    # -- changes -------------------------------------------------------------------------

    def _managed(self: Any, outcome: Outcome, given: str, done: str, would: str) -> Result:
        if not outcome.ok:
            assert outcome.failure is not None
            shown = outcome.loc.lexical_rel if outcome.loc is not None else given
            if outcome.failure.path and outcome.failure.path != given:
                shown = outcome.failure.path  # the other end of a move (its destination)
            return self.failed(outcome.failure, shown)
        if outcome.dry_run:
            text = f"[dry run] Would {would}"
            if outcome.diff:
                text += ":\n" + clip_diff(outcome.diff).rstrip("\n")
        else:
            text = done
        return Result(True, text, outcome.data())

    def move(self: Any, p: MoveParams) -> Result:
        from filewright.engine import fileops

        outcome = fileops.move(
            self.engine, p.source, p.destination, overwrite=p.overwrite, dry_run=p.dry_run
        )
        what = f"{p.source} to {p.destination}"
        done = f"Moved {what}" + (
            " (replacing the file there)" if "replaced" in outcome.extra else ""
        )
        return self._managed(outcome, p.source, done, f"move {what}")

    def delete(self: Any, p: DeleteParams) -> Result:
        from filewright.engine import fileops

        outcome = fileops.delete(self.engine, p.path, recursive=p.recursive, dry_run=p.dry_run)
        count = outcome.extra.get("entries", 0)
        inside = f" and the {count} entries in it" if count else ""
        return self._managed(
            outcome,
            p.path,
            f"Deleted {p.path}{inside} (undo restores it)",
            f"delete {p.path}{inside}",
        )

    def mkdir(self: Any, p: MkdirParams) -> Result:
        from filewright.engine import fileops

        outcome = fileops.mkdir(self.engine, p.path, dry_run=p.dry_run)
        done = f"Created directory {p.path}" if outcome.created else f"Directory {p.path} exists"
        return self._managed(outcome, p.path, done, f"create directory {p.path}")

    # -- facts ---------------------------------------------------------------------------

    def stat(self: Any, p: StatParams) -> Result:
        from filewright.engine import fileops

        try:
            info = fileops.stat(self.engine, p.path)
        except OperationFailed as exc:
            return self.failed(exc.failure, p.path)
        text = "\n".join(f"{k}: {v}" for k, v in info.items() if k != "path")
        return Result(True, f"{p.path}\n{text}", info)

    def tree(self: Any, p: TreeParams) -> Result:
        from filewright.search.tree import format_tree, path_matcher, tree

        loc = self.engine.locate_dir(p.path)
        result = tree(
            loc.real,
            max_depth=p.max_depth,
            max_entries=p.max_entries,
            exclude=path_matcher(p.exclude) if p.exclude else None,
            respect_gitignore=p.respect_gitignore,
            visible=self.engine.visibility(loc),
            ignore_root=loc.root,
        )
        data = {
            "path": str(loc.path),
            "entries": result.count,
            "truncated": result.truncated,
            "depth_limited": result.depth_limited,
            "ignored_count": result.ignored_count,
        }
        return Result(True, format_tree(result, loc.lexical_rel), data)

    def read_many(self: Any, p: ReadManyParams) -> Result:
        from filewright.read.many import read_many

        paths = list(p.paths or [])
        if p.pattern:
            from filewright import search

            loc = self.engine.locate_dir(None)
            found = search.glob(
                loc.real, p.pattern, visible=self.engine.visibility(loc), ignore_root=loc.root
            )
            if found.error:
                return Result(False, found.error, {"error": "invalid_pattern"})
            paths += [str(x) for x in found.paths]
        if not paths and p.pattern:
            return Result(
                False,
                f"No files match the pattern {p.pattern!r}: nothing to read.",
                {"error": "not_found", "pattern": p.pattern, "files": []},
            )
        if not paths:
            return Result(
                False, "Give paths or a pattern to read_many.", {"error": "bad_arguments"}
            )
        items = read_many(self.engine, paths, limit=p.limit, max_output_chars=p.max_output_chars)
        parts, files = [], []
        for item in items:
            shown = item.outcome.loc.lexical_rel if item.outcome else item.given
            if item.skipped:
                parts.append(f"==> {shown} <==\n[not read: the output budget is used up]")
                files.append({"path": item.given, "ok": False, "error": "budget"})
            elif item.failure is not None:
                parts.append(f"==> {shown} <==\n[{self.text_for(item.failure, item.given)}]")
                files.append({"path": item.given, "ok": False, "error": item.failure.code})
            else:
                assert item.outcome is not None
                parts.append(f"==> {shown} <==\n{item.text}")
                entry = {"path": str(item.outcome.loc.path), "ok": True}
                if item.outcome.hash:
                    entry["hash"] = item.outcome.hash
                files.append(entry)
        return Result(True, "\n\n".join(parts), {"files": files})

    def roots(self: Any, _p: RootsParams) -> Result:
        from filewright.engine import fileops

        dirs = [str(r) for r in fileops.roots(self.engine)]
        return Result(True, "Workspace roots:\n" + "\n".join(dirs), {"roots": dirs})
