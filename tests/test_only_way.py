"""One way per guarantee, for changes to directory entries and for undo (issue 30).

1. Only the modules made for it unlink, rename, link or make a directory entry: the source
   is scanned (as tests/test_layers.py scans imports), so a new `os.unlink` or
   `shutil.rmtree` elsewhere fails here; everything else calls `fs.entries`, `fs.fsio` or
   `fs.bigfile`, which walk by descriptors and ask the one "may this entry be replaced or
   removed" check.
2. Every kind of undo goes through locate + policy + confirmation: each is driven against
   a policy that puts a path it touches (the one it was called with, or the other end, or
   an entry inside) under `confirm` (the undo must ask, and a "no" changes nothing) and
   under `deny` (refused without asking, nothing changed).
"""

from __future__ import annotations

import ast
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from filewright import Workspace
from filewright.engine.workspace import ConfirmRequest
from filewright.policy.rules import Access, Rule

SRC = Path(__file__).resolve().parent.parent / "src" / "filewright"

# Calls that remove, rename, link or make a directory entry.
OS_CALLS = {
    "unlink", "remove", "rename", "replace", "rmdir", "removedirs", "renames", "link",
    "symlink", "mkdir", "makedirs", "truncate",
}  # fmt: skip
SHUTIL_CALLS = {"rmtree", "move", "copy", "copy2", "copyfile", "copytree"}
# (Path.replace is left out: it cannot be told from str.replace without types.)
PATH_METHODS = {
    "unlink", "rmdir", "rename", "symlink_to", "hardlink_to", "touch", "write_text",
    "write_bytes", "mkdir",
}  # fmt: skip

# module (relative to src/filewright) -> why it may
ALLOWED = {
    "fs/entries.py": "the one module for workspace entries: rename, remove, make, by descriptors",
    "fs/fsio.py": "atomic writes: its own temp file, parents made by the descriptor walk",
    "fs/bigfile.py": "streamed changes: its own staged file, the kept copy, orphan sweeping",
    "state/history.py": "filewright's state directory (history, locks, trash)",
    "state/statedir.py": "filewright's state directory (its files, the session ledgers)",
}
# (module, call) pairs allowed outside those modules, with why.
ALLOWED_CALLS = {
    ("toolsets/companion_home.py", "path.mkdir"): "makes the default root before it is a workspace",
}


def _calls(path: Path) -> list[tuple[int, str]]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    modules = {"os", "shutil"}
    for node in ast.walk(tree):  # names bound to modules are not paths
        if isinstance(node, ast.Import | ast.ImportFrom):
            modules.update((a.asname or a.name).split(".")[0] for a in node.names)
    out = []
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
            continue
        func = node.func
        base = func.value.id if isinstance(func.value, ast.Name) else None
        forbidden = (
            (base == "os" and func.attr in OS_CALLS)
            or (base == "shutil" and func.attr in SHUTIL_CALLS)
            or (base not in modules and func.attr in PATH_METHODS)
        )
        if not forbidden:
            continue
        out.append((node.lineno, ast.unparse(func)))
    return out


def test_only_the_entry_modules_unlink_rename_link_or_make_entries() -> None:
    found = []
    for path in sorted(SRC.rglob("*.py")):
        rel = path.relative_to(SRC).as_posix()
        if rel in ALLOWED:
            continue
        for line, call in _calls(path):
            if (rel, call) not in ALLOWED_CALLS:
                found.append(f"{rel}:{line}: {call}")
    assert not found, (
        "directory entries change only through fs.entries / fs.fsio / fs.bigfile "
        "(one walk by descriptors, one 'may it be replaced' check):\n" + "\n".join(found)
    )


def test_the_scan_catches_a_way_around(tmp_path: Path) -> None:
    """The scan itself works: each kind of call it forbids is found."""
    sample = tmp_path / "sample.py"
    sample.write_text(
        "import os, shutil\nfrom pathlib import Path\n"
        "os.unlink('a')\nos.rename('a', 'b')\nshutil.rmtree('d')\nPath('x').unlink()\n"
        "p = Path('y')\np.rmdir()\nos.replace('a', 'b')\n'abc'.replace('a', 'b')\n"
    )
    calls = [call for _line, call in _calls(sample)]
    assert calls == [
        "os.unlink", "os.rename", "shutil.rmtree", "Path('x').unlink", "p.rmdir", "os.replace",
    ]  # fmt: skip


# -- every undo asks and refuses ----------------------------------------------------------------


class Asked:
    def __init__(self, answer: bool) -> None:
        self.answer = answer
        self.requests: list[ConfirmRequest] = []

    def __call__(self, request: ConfirmRequest) -> bool:
        self.requests.append(request)
        return self.answer


BIG = b"".join(b"line %d of a large file\n" % i for i in range(300))


def _files(root: Path) -> None:
    (root / "a.txt").write_text("alpha\n")
    (root / "b.txt").write_text("beta\n")
    (root / "big.txt").write_bytes(BIG)
    (root / "d" / "sub").mkdir(parents=True)
    (root / "d" / "sub" / "x.txt").write_text("x\n")
    (root / "empty").mkdir()
    (root / "ln").symlink_to("a.txt")


def _call(ws: Workspace, toolset: str, tool: str, args: dict[str, Any]) -> None:
    result = ws.toolset(toolset).call(tool, args)
    assert result.ok, (tool, args, result.text)


def _patch(*body: str) -> dict[str, Any]:
    return {"input": "\n".join(["*** Begin Patch", *body, "*** End Patch"])}


Forward = Callable[[Workspace], None]
# name -> (forward change, path undo is called with, pattern of a path the undo touches)
KINDS: dict[str, tuple[Forward, str, str]] = {
    "edit": (
        lambda ws: _call(ws, "default", "edit", {"path": "a.txt", "old_string": "alpha",
                                                 "new_string": "ALPHA"}),
        "a.txt", "a.txt",
    ),
    "create": (
        lambda ws: _call(ws, "default", "write", {"path": "new.txt", "content": "n\n"}),
        "new.txt", "new.txt",
    ),
    "streamed edit": (
        lambda ws: _call(ws, "default", "edit", {"path": "big.txt", "old_string": "line 7 ",
                                                 "new_string": "L7 "}),
        "big.txt", "big.txt",
    ),
    "streamed append": (
        lambda ws: _call(ws, "default", "append", {"path": "big.txt", "content": "more\n"}),
        "big.txt", "big.txt",
    ),
    "streamed write": (
        lambda ws: _call(ws, "default", "write", {"path": "big.txt", "content": "w\n" * 400}),
        "big.txt", "big.txt",
    ),
    "move, from the destination, judged at the source": (
        lambda ws: _call(ws, "default", "move", {"source": "a.txt", "destination": "c.txt"}),
        "c.txt", "a.txt",
    ),
    "move, from the source, judged at the destination": (
        lambda ws: _call(ws, "default", "move", {"source": "a.txt", "destination": "c.txt"}),
        "a.txt", "c.txt",
    ),
    "move over a file": (
        lambda ws: _call(ws, "default", "move", {"source": "a.txt", "destination": "b.txt",
                                                 "overwrite": True}),
        "b.txt", "a.txt",
    ),
    "directory move, judged inside": (
        lambda ws: _call(ws, "mcpfs", "move_file", {"source": str(ws.roots[0] / "d"),
                                                    "destination": str(ws.roots[0] / "e")}),
        "e", "d/sub/x.txt",
    ),
    "delete a file": (
        lambda ws: _call(ws, "default", "delete", {"path": "a.txt"}), "a.txt", "a.txt",
    ),
    "delete a link": (lambda ws: _call(ws, "default", "delete", {"path": "ln"}), "ln", "ln"),
    "delete an empty directory": (
        lambda ws: _call(ws, "default", "delete", {"path": "empty"}), "empty", "empty",
    ),
    "recursive delete, judged inside": (
        lambda ws: _call(ws, "default", "delete", {"path": "d", "recursive": True}),
        "d", "d/sub/x.txt",
    ),
    "mkdir of two levels, judged at the outer": (
        lambda ws: _call(ws, "default", "mkdir", {"path": "m/n"}), "m/n", "/m",
    ),
    "patch delete": (
        lambda ws: _call(ws, "apply_patch", "apply_patch", _patch("*** Delete File: a.txt")),
        "a.txt", "a.txt",
    ),
    "patch move": (
        lambda ws: _call(ws, "apply_patch", "apply_patch", _patch(
            "*** Update File: a.txt", "*** Move to: c.txt", "@@", "-alpha", "+moved")),
        "c.txt", "c.txt",
    ),
}  # fmt: skip


def _snapshot(root: Path) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = [d for d in dirnames if d != ".filewright"]
        for name in dirnames + filenames:
            p = Path(dirpath) / name
            key = p.relative_to(root).as_posix()
            out[key] = (
                os.readlink(p) if p.is_symlink() else (None if p.is_dir() else p.read_bytes())
            )
    return out


@pytest.mark.parametrize("kind", list(KINDS))
@pytest.mark.parametrize("rule", ["confirm", "deny"])
def test_every_undo_goes_through_locate_policy_and_confirmation(
    tmp_path: Path, kind: str, rule: str
) -> None:
    forward, path, pattern = KINDS[kind]
    root = tmp_path / "ws"
    root.mkdir()
    _files(root)
    forward(Workspace(root, confirm=True, stream_above_bytes=2000))
    before = _snapshot(root)
    asked = Asked(False)
    access = Access.CONFIRM if rule == "confirm" else Access.DENY
    ws = Workspace(root, confirm=asked, stream_above_bytes=2000, rules=[Rule(pattern, access)])
    result = ws.toolset("default").call("undo", {"path": path})
    assert not result.ok, result.text
    if rule == "confirm":
        assert len(asked.requests) == 1, [r.diff for r in asked.requests]
        assert result.data["error"] == "rejected", result.text
    else:
        assert asked.requests == [], [r.diff for r in asked.requests]
    assert _snapshot(root) == before
    # Approved, the same undo goes through (the refusal was the policy's, nothing else).
    if rule == "confirm":
        asked.answer = True
        assert ws.toolset("default").call("undo", {"path": path}).ok


@pytest.mark.parametrize("rule", ["confirm", "deny"])
@pytest.mark.parametrize("surface", ["text_editor", "cli"])
def test_the_other_undo_surfaces_go_the_same_way(tmp_path: Path, rule: str, surface: str) -> None:
    """text_editor's `undo_edit` and `filewright undo` reach the same undo."""
    import json
    import subprocess
    import sys

    root = tmp_path / "ws"
    root.mkdir()
    _files(root)
    KINDS["move, from the destination, judged at the source"][0](Workspace(root, confirm=True))
    before = _snapshot(root)
    (root / ".filewright.toml").write_text(f'[[rules]]\npattern = "a.txt"\naccess = "{rule}"\n')
    if surface == "text_editor":
        asked = Asked(False)
        ws = Workspace(root, confirm=asked)
        tools = ws.toolset("text_editor", version="20250124")
        result = tools.call("str_replace_editor", {"command": "undo_edit",
                                                   "path": str(root / "c.txt")})  # fmt: skip
        assert not result.ok, result.text
        assert len(asked.requests) == (1 if rule == "confirm" else 0)
    else:  # nobody can be asked without --yes: refused either way
        done = subprocess.run(
            [sys.executable, "-m", "filewright", "undo", "--json", "--root", str(root), "c.txt"],
            capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL,
        )  # fmt: skip
        out = json.loads(done.stdout)
        assert done.returncode == 1 and not out["ok"], out
    (root / ".filewright.toml").unlink()
    assert _snapshot(root) == before
