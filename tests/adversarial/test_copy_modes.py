"""No copy of a file's content is more readable than the file (issue 22, item 12).

Backups (claude's `.claude-backups`), history, indexes, locks and ledgers made while the
tools change a 0600 file are readable by their owner only.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from filewright import Workspace

from .support import TOOLSETS, as_given, read_first, toolset, write_calls


@pytest.mark.parametrize("ts_name", [t for t in TOOLSETS if t != "memo"])
def test_copies_of_a_private_file_stay_private(tmp_path: Path, ts_name: str) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    secret = root / "secret.md"
    secret.write_text("# token\nhunter2\n")
    secret.chmod(0o600)
    ws = Workspace(root, confirm=True, session="s")
    ts = toolset(ws, ts_name)

    class _A:
        pass

    a = _A()
    a.root = root  # type: ignore[attr-defined]
    given = as_given(a, ts_name, "secret.md")  # type: ignore[arg-type]
    if ts_name == "gemini":  # its write_file and replace take absolute paths (its seed)
        given = str(secret)
    for tool, args in write_calls(ts_name, given, "more\n"):
        read_first(ts, ts_name, given)
        ts.call(tool, args)
    assert stat.S_IMODE(secret.stat().st_mode) == 0o600
    seen = 0
    for dirpath, _dirs, files in os.walk(root):
        for name in files:
            path = Path(dirpath, name)
            if path == secret or path.name == ".gitignore":  # state's and backups' own
                continue
            seen += 1
            mode = stat.S_IMODE(path.lstat().st_mode)
            assert mode & 0o077 == 0, (path.relative_to(root), oct(mode))
    assert seen, "the change kept no copy at all"
