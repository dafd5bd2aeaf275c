"""Where the `companion` toolset works when no root is given: apart from the toolset, so
that the CLI and the MCP server can name it without loading the toolset."""

from __future__ import annotations

import os
from pathlib import Path

from filewright.engine.workspace import platform_dir


def default_workspace() -> Path:
    """The companion's default workspace directory, created if missing.

    `$FILEWRIGHT_COMPANION_DIR` when set, else `<user data dir>/filewright/companion`
    (platformdirs `user_data_dir("filewright")`). `--root` on the command line overrides it.
    """
    override = os.environ.get("FILEWRIGHT_COMPANION_DIR")
    path = Path(override).expanduser() if override else Path(platform_dir("data")) / "companion"
    path.mkdir(parents=True, exist_ok=True)
    return path
