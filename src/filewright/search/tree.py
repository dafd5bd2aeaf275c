"""tree: the entries under a directory, recursively, with depth and entry limits.

Gets a real directory and a `visible` callback from the engine, like the other search
functions; links are listed, never followed; ignore files are honoured on request. The
walk goes by directory descriptors opened without following links (from `/` down, then
each subdirectory relative to its parent: `search.anchored`), so a directory swapped for
a symlink mid-walk is not entered and sizes are read relative to the descriptor.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from filewright.policy.gitignore import DirRules, root_rules
from filewright.policy.globs import GlobError, compile_glob
from filewright.search.anchored import open_real_dir, open_subdir
from filewright.search.results import Visible, always_visible


@dataclass
class TreeNode:
    """One entry: its name, path relative to the tree's top, kind, size (files) and,
    for a directory that was walked, its children."""

    name: str
    rel: str
    is_dir: bool
    is_link: bool = False
    size: int = 0
    children: list[TreeNode] | None = None


@dataclass
class Tree:
    """The walk's result: the top's children, how many entries, and what was cut."""

    nodes: list[TreeNode] = field(default_factory=list)
    count: int = 0
    truncated: bool = False  # stopped at max_entries
    depth_limited: bool = False  # directories below max_depth were not opened
    ignored_count: int = 0


def path_matcher(patterns: Sequence[str], *, anywhere: bool = True) -> Callable[[str], bool]:
    """Whether a relative path matches one of the glob patterns. With `anywhere`, a
    pattern without `*` also matches as a name or a directory at any depth (the MCP
    filesystem server's rule for directory_tree's `excludePatterns`)."""
    regexes = []
    for pattern in patterns:
        wrap = anywhere and "*" not in pattern
        forms = [pattern, f"**/{pattern}", f"**/{pattern}/**"] if wrap else [pattern]
        for form in forms:
            try:
                regexes.append(compile_glob(form))
            except GlobError:
                continue
    return lambda rel: any(r.match(os.fsencode(rel)) for r in regexes)


def tree(
    directory: Path,
    *,
    max_depth: int | None = None,
    max_entries: int | None = None,
    exclude: Callable[[str], bool] | None = None,
    respect_gitignore: bool = True,
    visible: Visible = always_visible,
    ignore_root: Path | None = None,
    sort: bool = True,
) -> Tree:
    """Walk `directory` depth-first (directories' entries by name when `sort`), at most
    `max_depth` levels (1: only its own entries) and `max_entries` entries in all;
    `exclude` (say, a `path_matcher`) drops a path and, for a directory, what it holds."""
    out = Tree()
    excluded = exclude
    rules = root_rules(directory, ignore_root) if respect_gitignore else None
    top = Path(directory)

    def walk(dir_fd: int, rel: str, depth: int, rules: DirRules | None) -> list[TreeNode]:
        nodes: list[TreeNode] = []
        try:
            with os.scandir(dir_fd) as it:
                found = list(it)
        except OSError:
            return nodes
        if sort:
            found.sort(key=lambda e: e.name)
        for e in found:
            if out.truncated:
                break
            child_rel = f"{rel}/{e.name}" if rel else e.name
            try:
                is_link = e.is_symlink()
                is_dir = e.is_dir(follow_symlinks=False)
            except OSError:
                continue
            if not visible(child_rel, is_dir):
                continue
            if excluded is not None and excluded(child_rel):
                continue
            if rules is not None and (
                e.name == ".git" or rules.is_ignored(os.fsencode(child_rel), is_dir)
            ):
                out.ignored_count += 1
                continue
            if max_entries is not None and out.count >= max_entries:
                out.truncated = True
                break
            out.count += 1
            node = TreeNode(e.name, child_rel, is_dir, is_link)
            if not is_dir:
                with contextlib.suppress(OSError):
                    node.size = os.stat(e.name, dir_fd=dir_fd, follow_symlinks=False).st_size
            elif max_depth is None or depth < max_depth:
                node.children = []
                try:  # (a directory swapped for a link since it was listed: not entered)
                    sub_fd = open_subdir(dir_fd, e.name)
                except OSError:
                    nodes.append(node)
                    continue
                try:
                    sub = (
                        rules.child(os.fsencode(top / child_rel), os.fsencode(child_rel))
                        if rules
                        else None
                    )
                    node.children = walk(sub_fd, child_rel, depth + 1, sub)
                finally:
                    os.close(sub_fd)
            else:
                out.depth_limited = True
            nodes.append(node)
        return nodes

    try:
        top_fd = open_real_dir(top)
    except OSError:
        return out
    try:
        out.nodes = walk(top_fd, "", 1, rules)
    finally:
        os.close(top_fd)
    return out


def format_tree(result: Tree, top: str) -> str:
    """An indented outline: directories end with `/`, files show their size."""
    lines = [top.rstrip("/") + "/"]

    def emit(nodes: list[TreeNode], indent: str) -> None:
        for node in nodes:
            if node.is_dir:
                more = "" if node.children is not None else " …"
                lines.append(f"{indent}{node.name}/{more}")
                if node.children:
                    emit(node.children, indent + "  ")
            else:
                link = " -> (link)" if node.is_link else ""
                lines.append(f"{indent}{node.name} ({_size(node.size)}){link}")

    emit(result.nodes, "  ")
    notes = []
    if result.truncated:
        notes.append(
            f"[stopped at {result.count} entries; raise max_entries or pick a subdirectory]"
        )
    if result.depth_limited:
        notes.append("[deeper directories not opened (…); raise max_depth to see them]")
    if result.ignored_count:
        notes.append(f"[{result.ignored_count} entries ignored by .gitignore]")
    return "\n".join(lines + notes)


def _size(n: int) -> str:
    for unit in ("B", "KB", "MB", "GB"):
        if n < 1024 or unit == "GB":
            return f"{n} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024  # type: ignore[assignment]
    return f"{n} B"
