"""The tree walker and `stat` go by descriptors (issue 30, finding 7): a directory (or the
entry itself) swapped for a symlink to outside between the moment a path is resolved or
listed and the moment it is entered or stat'ed is refused, never followed.

Deterministic: the swap is made at the exact point of the race, by wrapping the step
that comes before it (the sandbox's resolution, the listing's policy filter) so that
the real code runs with the tree changed under it. `test_walk_races.py` adds the same
tools to its threaded swapper, and the unprivileged test checks that going by
descriptors needs no more permission than going by path."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from filewright import Workspace
from filewright.engine.workspace import Engine
from filewright.fs.paths import Sandbox
from filewright.toolsets.mcpfs_format import format_size

OUTSIDE_SIZE = 7777
CANARY = "outside-canary-name"


def _arena(tmp_path: Path) -> tuple[Path, Path]:
    root, outside = tmp_path / "ws", tmp_path / "outside"
    (root / "sub" / "deep").mkdir(parents=True)
    (root / "sub" / "f.txt").write_text("inside\n")
    (root / "sub" / "deep" / "d.txt").write_text("inside\n")
    os.chmod(root / "sub" / "f.txt", 0o644)
    outside.mkdir()
    (outside / "f.txt").write_bytes(b"x" * OUTSIDE_SIZE)
    os.chmod(outside / "f.txt", 0o600)
    (outside / f"{CANARY}.txt").write_text("outside\n")
    (outside / "deep").mkdir()
    (outside / "deep" / f"{CANARY}-deep.txt").write_text("outside\n")
    return root, outside


def _swap(real: Path, outside: Path) -> None:
    """`real` (a directory or file) becomes a symlink to `outside`."""
    real.rename(real.with_name(real.name + ".parked"))
    real.symlink_to(outside)


def _after(
    monkeypatch: pytest.MonkeyPatch, cls: type, name: str, when: Callable[..., bool], act: Any
) -> list[int]:
    """Wrap `cls.name` so that `act()` runs once, right after a call that `when` picks."""
    original = getattr(cls, name)
    done: list[int] = []

    def wrapped(self: Any, *args: Any, **kwargs: Any) -> Any:
        got = original(self, *args, **kwargs)
        if not done and when(*args, **kwargs):
            done.append(1)
            act()
        return got

    monkeypatch.setattr(cls, name, wrapped)
    return done


STAT_CALLS = [
    ("default", "stat", "path"),
    ("mcpfs", "get_file_info", "path"),
]


@pytest.mark.parametrize(("ts_name", "tool", "key"), STAT_CALLS)
@pytest.mark.parametrize("swapped", ["parent", "entry"])
def test_stat_never_reports_an_outside_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, ts_name: str, tool: str, key: str, swapped: str
) -> None:
    root, outside = _arena(tmp_path)
    target = root / "sub" / "f.txt"
    if swapped == "parent":
        act = lambda: _swap(root / "sub", outside)  # noqa: E731
    else:
        act = lambda: _swap(target, outside / "f.txt")  # noqa: E731
    done = _after(
        monkeypatch,
        Engine,
        "locate",
        lambda path, **_kw: str(path).endswith("sub/f.txt"),
        act,
    )
    ts = Workspace(root).toolset(ts_name)
    result = ts.call(tool, {key: str(target)})
    assert done, "the swap did not happen"
    blob = result.text + json.dumps(result.data, default=str)
    assert str(OUTSIDE_SIZE) not in blob and format_size(OUTSIDE_SIZE) not in blob, blob
    assert "600" not in json.dumps(result.data.get("mode", "")), blob
    assert not result.ok, blob


def test_list_directory_with_sizes_never_shows_an_outside_size(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root, outside = _arena(tmp_path)
    target = root / "sub" / "f.txt"
    done = _after(
        monkeypatch,
        Sandbox,
        "resolve",
        lambda path, **_kw: str(path).endswith("sub/f.txt"),
        lambda: _swap(target, outside / "f.txt"),
    )
    result = (
        Workspace(root)
        .toolset("mcpfs")
        .call("list_directory_with_sizes", {"path": str(root / "sub")})
    )
    assert done and result.ok, result.text
    outside_size = format_size(OUTSIDE_SIZE)  # ("7.59 KB")
    assert outside_size not in result.text and str(OUTSIDE_SIZE) not in result.text, result.text


TREE_CALLS = [
    ("default", "tree", lambda root: {"path": "."}),
    ("mcpfs", "directory_tree", lambda root: {"path": str(root)}),
    ("mcpfs", "search_files", lambda root: {"path": str(root), "pattern": "**/*"}),
]


@pytest.mark.parametrize(("ts_name", "tool", "args"), TREE_CALLS)
def test_tree_never_enters_a_directory_swapped_after_it_was_listed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, ts_name: str, tool: str, args: Any
) -> None:
    root, outside = _arena(tmp_path)
    original = Engine.visibility
    swapped: list[int] = []

    def scope(self: Engine, directory: Any, **kw: Any) -> Any:
        visible = original(self, directory, **kw)

        def swapping_visible(rel: str, is_dir: bool) -> bool:
            ok = visible(rel, is_dir)
            if rel == "sub" and not swapped:  # listed as a directory, not yet entered
                swapped.append(1)
                _swap(root / "sub", outside)
            return bool(ok)

        return swapping_visible

    monkeypatch.setattr(Engine, "visibility", scope)
    result = Workspace(root).toolset(ts_name).call(tool, args(root))
    assert swapped, "the swap did not happen"
    blob = result.text + json.dumps(result.data, default=str)
    assert CANARY not in blob, blob


def test_stat_and_tree_below_a_search_only_directory(tmp_path: Path) -> None:
    """Descriptors opened to pass through need search permission only, as a path does."""
    from unprivileged import reachable_dir, unprivileged_prefix

    dropped = unprivileged_prefix()
    if dropped is None:
        pytest.skip("needs root and setpriv to drop its privileges")
    prefix, as_nobody = dropped
    script = (
        "import json, sys\n"
        "from filewright import Workspace\n"
        "ws = Workspace(sys.argv[1], session='x')\n"
        "d, m = ws.toolset('default'), ws.toolset('mcpfs')\n"
        "f = sys.argv[1] + '/locked/f.txt'\n"
        "print(json.dumps([d.call('stat', {'path': 'locked/f.txt'}).data.get('size'),\n"
        "    m.call('get_file_info', {'path': f}).text, d.call('tree', {'path': '.'}).text]))\n"
    )
    with reachable_dir() as base:
        root = base / "ws"
        (root / "locked").mkdir(parents=True)
        (root / "locked" / "f.txt").write_text("12345\n")
        if as_nobody:
            for p in (root, root / "locked", root / "locked" / "f.txt"):
                os.chown(p, 65534, 65534)
        os.chmod(root / "locked", 0o311)  # search (and write), no read
        env = {**os.environ, "HOME": str(base), "XDG_CONFIG_HOME": str(base / ".cfg")}
        done = subprocess.run(
            [*prefix, sys.executable, "-c", script, str(root)],
            capture_output=True,
            text=True,
            env=env,
            timeout=120,
            check=False,
        )
        assert done.returncode == 0, done.stderr[-2000:]
        size, info, tree = json.loads(done.stdout)
        assert size == 6, (size, info)
        assert "size: 6" in info, info
        assert "locked/" in tree, tree
