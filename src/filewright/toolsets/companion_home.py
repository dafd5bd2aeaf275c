"""Where the `companion` toolset works when no root is given: apart from the toolset, so
that the CLI and the MCP server can name it without loading the toolset."""

from __future__ import annotations

import os
from pathlib import Path


def default_workspace() -> Path:
    """The companion's default workspace directory, created if missing.

    `$FILEWRIGHT_COMPANION_DIR` when set, else `<user data dir>/filewright/companion`
    (platformdirs `user_data_dir("filewright")`). `--root` on the command line overrides it.
    """
    override = os.environ.get("FILEWRIGHT_COMPANION_DIR")
    if override:
        path = Path(override).expanduser()
    else:
        # deferred: platformdirs: heavy, loaded only when this runs
        from platformdirs import user_data_dir

        path = Path(user_data_dir("filewright")) / "companion"
    path.mkdir(parents=True, exist_ok=True)
    return path
