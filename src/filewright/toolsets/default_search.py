"""The `default` toolset's finding tools: list, glob, grep, tree, read_many. Each is a
function of the toolset and its arguments, loaded by name when first called
(`Toolset.by_name`). Mapping and wording only: the work is `search`'s and `read.many`'s."""

from __future__ import annotations

from typing import TYPE_CHECKING

from filewright import search
from filewright.core.result import Result
from filewright.read.many import read_many as read_files
from filewright.search.tree import format_tree, path_matcher
from filewright.search.tree import tree as walk_tree
from filewright.toolsets.common import glob_result, grep_result, listing_result, search_progress

if TYPE_CHECKING:
    from filewright.tools.base import Toolset
    from filewright.toolsets.default_params import (
        GlobParams,
        GrepParams,
        ListParams,
        ReadManyParams,
        TreeParams,
    )


def list_directory(ts: Toolset, p: ListParams) -> Result:
    loc = ts.engine.locate_dir(p.path)
    result = search.list_directory(
        loc.real,
        ignore=p.ignore,
        respect_gitignore=p.respect_gitignore,
        **ts.engine.search_scope(loc),
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


def glob(ts: Toolset, p: GlobParams) -> Result:
    loc = ts.engine.locate_dir(p.path)
    result = search.glob(
        loc.real,
        p.pattern,
        case_sensitive=p.case_sensitive,
        respect_gitignore=p.respect_gitignore,
        **ts.engine.search_scope(loc),
    )
    text = search.format_glob_gemini(result, p.pattern, loc.lexical_rel)
    return glob_result(loc, result, text, result.paths)


def grep(ts: Toolset, p: GrepParams) -> Result:
    loc = ts.engine.locate_dir(p.path)
    result = search.grep(
        loc.real,
        p.pattern,
        include=p.include,
        case_sensitive=p.case_sensitive,
        fixed_strings=p.fixed_strings,
        context=p.context,
        max_matches=p.max_matches,
        **ts.engine.search_scope(loc),
        on_progress=search_progress,
    )
    text = search.format_grep_gemini(result, p.pattern, loc.lexical_rel, p.include)
    return grep_result(loc, result, text)


def tree(ts: Toolset, p: TreeParams) -> Result:
    loc = ts.engine.locate_dir(p.path)
    result = walk_tree(
        loc.real,
        max_depth=p.max_depth,
        max_entries=p.max_entries,
        exclude=path_matcher(p.exclude) if p.exclude else None,
        respect_gitignore=p.respect_gitignore,
        visible=ts.engine.visibility(loc),
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


def read_many(ts: Toolset, p: ReadManyParams) -> Result:
    paths = list(p.paths or [])
    if p.pattern:
        loc = ts.engine.locate_dir(None)
        found = search.glob(
            loc.real, p.pattern, visible=ts.engine.visibility(loc), ignore_root=loc.root
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
        return Result(False, "Give paths or a pattern to read_many.", {"error": "bad_arguments"})
    items = read_files(ts.engine, paths, limit=p.limit, max_output_chars=p.max_output_chars)
    parts, files = [], []
    for item in items:
        shown = item.outcome.loc.lexical_rel if item.outcome else item.given
        if item.skipped:
            parts.append(f"==> {shown} <==\n[not read: the output budget is used up]")
            files.append({"path": item.given, "ok": False, "error": "budget"})
        elif item.failure is not None:
            parts.append(f"==> {shown} <==\n[{ts.text_for(item.failure, item.given)}]")
            files.append({"path": item.given, "ok": False, "error": item.failure.code})
        else:
            assert item.outcome is not None
            parts.append(f"==> {shown} <==\n{item.text}")
            entry = {"path": str(item.outcome.loc.path), "ok": True}
            if item.outcome.hash:
                entry["hash"] = item.outcome.hash
            files.append(entry)
    return Result(True, "\n\n".join(parts), {"files": files})
