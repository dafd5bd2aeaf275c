"""One walker and one stat, by descriptors (issue 30, finding 7): no module lists or
stat's a path by name except the few allowed below, each for a stated reason. Going
around the descriptor walks (`fs.fsio`, `fs.entries`, `search.anchored`) fails here, as
an upward import fails tests/test_layers.py.

Allowed forms anywhere: `os.stat`/`os.lstat`/`os.fwalk` with `dir_fd=`, and
`os.scandir`/`os.listdir` of a descriptor (an argument whose name holds `fd`). Forbidden
outside the allow-list: `os.walk`, those calls by path, and the `.stat()`, `.lstat()`,
`.iterdir()` methods (of `Path` or of a directory entry) on anything but the modules
`entries`/`fsio`/`fileops`, whose functions of those names are the descriptor ones.
"""

from __future__ import annotations

import ast
from pathlib import Path

SRC = Path(__file__).resolve().parent.parent / "src" / "filewright"

# module (relative to src/filewright) -> (how many such calls it may make, why)
ALLOWED: dict[str, tuple[int, str]] = {
    "fs/paths.py": (3, "the sandbox itself: resolves a path to its real target, and checks a root is a directory, before any descriptor exists"),
    "fs/bigfile.py": (1, "DirEntry.stat of a listing of a directory descriptor (scandir(dfd))"),
    "engine/watching.py": (3, "hashes files the agent read, to notice outside changes; returns nothing of them"),
    "state/budget.py": (3, "sizes in the state directory's history, links never followed (not a workspace path)"),
    "state/statedir.py": (2, "looks for links planted in the state directory (its lstat, one level listed), to refuse them"),
}  # fmt: skip

_OS_PATH_CALLS = {"stat", "lstat", "scandir", "listdir", "walk", "fwalk"}
_METHODS = {"stat", "lstat", "iterdir"}
_DESCRIPTOR_MODULES = {"entries", "fsio", "fileops", "os"}


def _by_path(call: ast.Call) -> str | None:
    """The name of a path-based listing or stat that `call` makes, or None."""
    func = call.func
    if not isinstance(func, ast.Attribute):
        return None
    keywords = {k.arg for k in call.keywords}
    owner = func.value
    if isinstance(owner, ast.Name) and owner.id == "os" and func.attr in _OS_PATH_CALLS:
        if func.attr in ("stat", "lstat", "fwalk"):
            return None if "dir_fd" in keywords else f"os.{func.attr}"
        if func.attr == "walk":
            return "os.walk"
        first = ast.unparse(call.args[0]) if call.args else ""
        return None if "fd" in first else f"os.{func.attr}"
    if func.attr in _METHODS:
        if isinstance(owner, ast.Name) and owner.id in _DESCRIPTOR_MODULES:
            return None
        return f".{func.attr}()"
    return None


def _violations() -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for path in sorted(SRC.rglob("*.py")):
        rel = path.relative_to(SRC).as_posix()
        tree = ast.parse(path.read_text(encoding="utf-8"))
        aliases = {  # `lstat = os.lstat` and the like: then their calls count
            t.id
            for node in ast.walk(tree)
            if isinstance(node, ast.Assign)
            and isinstance(node.value, ast.Attribute)
            and isinstance(node.value.value, ast.Name)
            and node.value.value.id == "os"
            and node.value.attr in _OS_PATH_CALLS
            for t in node.targets
            if isinstance(t, ast.Name)
        }
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call):
                continue
            what = _by_path(node)
            if (
                what is None
                and isinstance(node.func, ast.Name)
                and node.func.id in aliases
                and "dir_fd" not in {k.arg for k in node.keywords}
            ):
                what = node.func.id
            if what is not None:
                found.setdefault(rel, []).append(f"{rel}:{node.lineno}: {what}")
    return found


def test_no_path_based_walk_or_stat_outside_the_allowed_modules() -> None:
    found = _violations()
    problems = []
    for rel, calls in found.items():
        allowed, _why = ALLOWED.get(rel, (0, ""))
        if len(calls) > allowed:
            problems += calls
    assert not problems, (
        "list or stat workspace paths through the descriptor walks (fs.fsio.stat_entry, "
        "fs.entries, search.anchored), not by path:\n" + "\n".join(problems)
    )


def test_every_allowance_has_a_reason_and_a_module() -> None:
    for rel, (allowed, why) in ALLOWED.items():
        assert why and allowed > 0 and (SRC / rel).is_file(), rel


def test_the_scan_catches_what_it_forbids() -> None:
    source = (
        "import os\nfrom pathlib import Path\n"
        "os.stat(p)\nos.lstat(p)\nos.scandir(p)\nos.listdir(p)\nos.walk(p)\n"
        "Path(p).stat()\nPath(p).iterdir()\nx.lstat()\n"
        "os.stat(n, dir_fd=d)\nos.scandir(dir_fd)\nos.listdir(fd)\nentries.lstat(loc)\n"
    )
    calls = [n for n in ast.walk(ast.parse(source)) if isinstance(n, ast.Call)]
    flagged = [_by_path(c) for c in calls if _by_path(c) is not None]
    assert len(flagged) == 8, flagged
