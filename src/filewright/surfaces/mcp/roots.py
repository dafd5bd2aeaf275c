"""Where the model may work, over MCP: the client's roots, the fallback, and the texts
that name the roots (server instructions, path parameter descriptions)."""

from __future__ import annotations

import os
import urllib.parse
import urllib.request
from typing import Any

import mcp_types as types

from filewright.toolsets.companion_home import default_workspace

PATH_PARAMETERS = ("path", "file_path", "dir_path", "absolute_path", "directory")


def root_paths(listing: types.ListRootsResult) -> list[str]:
    """The existing local directories among a client's roots (non-file URIs are ignored)."""
    out: list[str] = []
    for root in listing.roots:
        parsed = urllib.parse.urlparse(str(root.uri))
        if parsed.scheme != "file" or parsed.netloc not in ("", "localhost"):
            continue
        path = urllib.request.url2pathname(parsed.path)
        if os.path.isdir(path) and path not in out:
            out.append(path)
    return out


def fallback_roots(toolset: str) -> list[str]:
    """The roots when neither --root nor the client names any: cwd (companion: its home)."""
    if toolset == "companion":
        return [str(default_workspace())]
    return [os.getcwd()]


def instructions_for(toolset: str, roots: list[str] | None, *, client_roots: bool) -> str:
    """The server instructions: which toolset, and the roots the model may work in."""
    if roots:
        where = "the workspace root " + roots[0] if len(roots) == 1 else (
            "the workspace roots " + ", ".join(roots) + f" (relative paths resolve against {roots[0]})"
        )  # fmt: skip
    elif client_roots:
        where = (
            "the workspace roots: the client's roots (MCP roots), else the server's current "
            "directory; the path parameters' descriptions name them"
        )
    else:
        where = "the workspace root: the server's current directory (" + os.getcwd() + ")"
    return (
        f"File tools (filewright toolset '{toolset}'): read, write and edit files inside "
        f"{where}. Paths outside are refused. Changes that need the user's approval are asked for."
    )


def with_roots(definition: dict[str, Any], roots: list[str], toolset: str) -> dict[str, Any]:
    """An MCP tool definition whose path parameters' descriptions also name the roots."""
    schema = definition.get("inputSchema") or {}
    props = schema.get("properties") or {}
    names = [n for n in PATH_PARAMETERS if isinstance(props.get(n), dict)]
    if not names:
        return definition
    if toolset == "companion":
        note = "（工作区根目录：" + "、".join(roots) + "）"
    elif len(roots) == 1:
        note = f" (workspace root: {roots[0]})"
    else:
        note = f" (workspace roots: {', '.join(roots)}; relative paths resolve against {roots[0]})"
    props = dict(props)
    for n in names:
        props[n] = {**props[n], "description": (props[n].get("description") or "").rstrip() + note}
    return {**definition, "inputSchema": {**schema, "properties": props}}
