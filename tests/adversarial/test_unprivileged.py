"""Without the permission to read every ancestor: under an ancestor directory that grants
search but not read permission (0711, as many home directories do), the descriptor walks
of searches, listings and the state directory still work, and copies stay private. Run
as the unprivileged user `nobody`, or, where that user cannot run this Python (a
checkout in a private directory), as root without the capabilities that bypass file
permissions (`tests/unprivileged.py`)."""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from unprivileged import SETPRIV, reachable_dir, unprivileged_prefix

pytestmark = pytest.mark.skipif(
    os.geteuid() != 0 or SETPRIV is None,
    reason="needs root and setpriv to drop its privileges",
)

SCRIPT = r"""
import json, sys
from filewright import Workspace
ws = Workspace(sys.argv[1], confirm=True, session="nobody")
d, g = ws.toolset("default"), ws.toolset("gemini")
out = {}
out["write"] = d.call("write", {"path": "secret.md", "content": "needle private\n"}).ok
out["edit"] = d.call("edit", {"path": "secret.md", "old_string": "private",
                               "new_string": "PRIVATE"}).ok
out["grep"] = d.call("grep", {"pattern": "needle"}).text
out["glob"] = d.call("glob", {"pattern": "**/*.md"}).text
out["list"] = d.call("list", {"path": "."}).text
out["search"] = g.call("search_file_content", {"pattern": "needle"}).text
out["undo"] = d.call("undo", {"path": "secret.md"}).ok
print(json.dumps(out))
"""


def _unprivileged() -> tuple[list[str], bool]:
    """The command prefix that drops privileges, and whether it becomes `nobody` (see
    `unprivileged`: root without the permission-bypassing capabilities when nobody
    cannot reach this checkout)."""
    dropped = unprivileged_prefix()
    assert dropped is not None
    return dropped


def test_tools_work_for_nobody_below_a_search_only_ancestor() -> None:
    prefix, as_nobody = _unprivileged()
    with reachable_dir() as base:
        _check_tools_below_a_search_only_ancestor(base, prefix, as_nobody)


def _check_tools_below_a_search_only_ancestor(
    base: Path, prefix: list[str], as_nobody: bool
) -> None:
    home = base / "home"
    root = home / "ws"
    root.mkdir(parents=True)
    os.chmod(home, 0o711 if as_nobody else 0o311)  # search, no read for the caller
    if as_nobody:
        shutil.chown(root, "nobody")
    os.chmod(root, 0o700)
    env = {**os.environ, "HOME": str(root), "XDG_CONFIG_HOME": str(root / ".cfg")}
    done = subprocess.run(
        [*prefix, sys.executable, "-c", SCRIPT, str(root)],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    out = json.loads(done.stdout)
    assert out["write"] and out["edit"] and out["undo"], out
    assert "needle" in out["grep"] and "needle" in out["search"], out
    assert "secret.md" in out["glob"] and "secret.md" in out["list"], out
    for dirpath, _dirs, files in os.walk(root / ".filewright"):
        for name in files:
            if name == ".gitignore":
                continue
            mode = stat.S_IMODE(os.lstat(os.path.join(dirpath, name)).st_mode)
            assert mode & 0o077 == 0, (dirpath, name, oct(mode))
