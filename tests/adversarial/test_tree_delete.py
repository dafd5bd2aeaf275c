"""A recursive delete keeps no file in memory, and invisible entries take no part in a
directory-level decision (issue 30, findings 5 and 14).

A recursive delete judges names only (a dry run reads nothing), then, after confirmation,
moves the directory whole into the history's trash in the state directory with one rename
(modes, owners, links and times kept); undo renames it back. A `deny` or `hidden` entry is
not listed, not counted and never what makes a directory "not empty"; a move takes it
along when it stays as hidden at the other end.
"""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from forkserver import ForkServer, shared

from filewright import Workspace
from filewright.policy.rules import Access, Rule

PEAK = r"""
import json, sys
from filewright import Workspace
ws = Workspace(sys.argv[1], confirm=True)
d = ws.toolset("default")
r = d.call("delete", {"path": "big", "recursive": True, "dry_run": sys.argv[2] == "dry"})
# this process's own high-water mark (ru_maxrss would carry the parent's across exec)
status = open("/proc/self/status").read()
peak_mb = int(status.split("VmHWM:")[1].split()[0]) / 1024
print(json.dumps({"ok": r.ok, "text": r.text[:300], "peak_mb": peak_mb}))
"""


@pytest.fixture(scope="module")
def forks(request: pytest.FixtureRequest) -> ForkServer:
    """The filewright command is forked from the warm interpreter (tests/forkserver.py)."""
    return shared(request.session)


@pytest.mark.parametrize("mode", ["dry", "real"])
def test_a_recursive_delete_of_20_files_of_60_mb_reads_none_of_them(
    tmp_path: Path, mode: str
) -> None:
    root = tmp_path / "ws"
    (root / "big").mkdir(parents=True)
    for i in range(20):  # sparse: reading them would make 1.2 GB resident
        with open(root / "big" / f"f{i}.bin", "wb") as f:
            f.truncate(60 * 1024 * 1024)
    done = subprocess.run(
        [sys.executable, "-c", PEAK, str(root), mode], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr[-2000:]
    out = json.loads(done.stdout)
    assert out["ok"], out
    assert out["peak_mb"] < 150, out
    assert (root / "big").exists() == (mode == "dry")


def _tree(root: Path) -> Path:
    d = root / "d"
    (d / "sub").mkdir(parents=True)
    (d / "sub" / "run.sh").write_text("#!/bin/sh\n")
    (d / "sub" / "run.sh").chmod(0o750)
    (d / "secret.txt").write_text("s\n")
    (d / "secret.txt").chmod(0o600)
    (d / "link").symlink_to("sub/run.sh")
    (d / "sub").chmod(0o710)
    os.utime(d / "secret.txt", ns=(1_000_000_000, 1_000_000_000))
    return d


def _facts(d: Path) -> dict[str, tuple[int, int, int, str]]:
    out = {}
    for p in sorted(d.rglob("*")):
        st = p.lstat()
        link = os.readlink(p) if p.is_symlink() else ""
        out[str(p.relative_to(d))] = (stat.S_IMODE(st.st_mode), st.st_ino, st.st_mtime_ns, link)
    return out


@pytest.mark.parametrize("surface", ["default", "cli"])
def test_undo_of_a_recursive_delete_puts_the_same_tree_back(
    tmp_path: Path, forks: ForkServer, surface: str
) -> None:
    root = tmp_path / "ws"
    d = _tree(root)
    before, inode = _facts(d), d.stat().st_ino
    ws = Workspace(root, confirm=True)
    deleted = ws.toolset("default").call("delete", {"path": "d", "recursive": True})
    assert deleted.ok, deleted.text
    assert not os.path.lexists(d)
    if surface == "default":
        assert ws.toolset("default").call("undo", {"path": "d"}).ok
    else:
        done = forks.run(
            ["filewright", "undo", "--json", "--yes", "--root", str(root), "d"],
            timeout=120,
        )
        assert done.returncode == 0, done.stdout + done.stderr
    # The same inodes, modes, times and link: the directory was renamed, never copied.
    assert d.stat().st_ino == inode and _facts(d) == before
    assert not list((root / ".filewright" / "history").rglob("*.tree"))


def test_undo_of_a_recursive_delete_never_replaces_what_appeared_since(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    _tree(root)
    d = Workspace(root, confirm=True).toolset("default")
    assert d.call("delete", {"path": "d", "recursive": True}).ok
    (root / "d").mkdir()
    (root / "d" / "new.txt").write_text("new\n")
    result = d.call("undo", {"path": "d"})
    assert not result.ok and result.data["error"] == "exists", result.text
    assert [p.name for p in (root / "d").iterdir()] == ["new.txt"]


def test_history_cap_drops_a_kept_tree(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    (root / "d").mkdir(parents=True)
    (root / "d" / "f.bin").write_bytes(b"x" * (2 << 20))
    ws = Workspace(root, confirm=True, history_max_bytes=1 << 20)
    d = ws.toolset("default")
    assert d.call("delete", {"path": "d", "recursive": True}).ok
    (root / "e").mkdir()
    (root / "e" / "g.bin").write_bytes(b"y" * (2 << 20))
    assert d.call("delete", {"path": "e", "recursive": True}).ok
    # The older tree went to stay under the cap; the newest is kept.
    assert not d.call("undo", {"path": "d"}).ok
    assert d.call("undo", {"path": "e"}).ok and (root / "e" / "g.bin").exists()


# -- finding 14: invisible entries take no part -----------------------------------------------


def _arena(tmp_path: Path) -> tuple[Path, Workspace]:
    root = tmp_path / "ws"
    (root / "only-hidden").mkdir(parents=True)
    (root / "only-hidden" / ".env").write_text("KEY=1\n")
    (root / "truly-empty").mkdir()
    return root, Workspace(root, confirm=True, rules=[Rule(".env", Access.HIDDEN)])


def test_a_directory_holding_only_hidden_files_is_not_called_not_empty(tmp_path: Path) -> None:
    root, ws = _arena(tmp_path)
    d = ws.toolset("default")
    listed = d.call("list", {"path": "only-hidden"})
    assert ".env" not in listed.text
    result = d.call("delete", {"path": "only-hidden"})
    assert not result.ok
    assert "not empty" not in result.text and ".env" not in result.text, result.text
    assert (root / "only-hidden" / ".env").exists()
    recursive = d.call("delete", {"path": "only-hidden", "recursive": True})
    assert not recursive.ok and ".env" not in recursive.text, recursive.text
    assert (root / "only-hidden" / ".env").exists()


@pytest.mark.parametrize("tool", ["default", "mcpfs"])
def test_a_move_of_it_answers_as_for_an_empty_directory(tmp_path: Path, tool: str) -> None:
    root, ws = _arena(tmp_path)
    if tool == "default":
        d = ws.toolset("default")

        def move(src: str, dst: str, dry: bool) -> tuple[bool, str]:
            r = d.call("move", {"source": src, "destination": dst, "dry_run": dry})
            return r.ok, r.text.replace(src, "X").replace(dst, "Y")

        assert move("only-hidden", "moved", True) == move("truly-empty", "other", True)
        ok, _text = move("only-hidden", "moved", False)
    else:
        m = ws.toolset("mcpfs")
        r = m.call(
            "move_file", {"source": str(root / "only-hidden"), "destination": str(root / "moved")}
        )
        ok = r.ok
    assert ok
    assert (root / "moved" / ".env").read_text() == "KEY=1\n"  # travelled, still hidden
    assert ".env" not in ws.toolset("default").call("list", {"path": "moved"}).text


def test_a_move_that_would_show_a_hidden_file_is_refused_without_naming_it(
    tmp_path: Path,
) -> None:
    root = tmp_path / "ws"
    (root / "keep").mkdir(parents=True)
    (root / "keep" / "k.txt").write_text("k\n")
    ws = Workspace(root, confirm=True, rules=[Rule("/keep/k.txt", Access.HIDDEN)])
    result = ws.toolset("default").call("move", {"source": "keep", "destination": "shown"})
    assert not result.ok and "k.txt" not in result.text, result.text
    assert (root / "keep" / "k.txt").exists() and not (root / "shown").exists()


@pytest.mark.parametrize("access", [Access.HIDDEN, Access.DENY])
def test_a_link_does_not_tell_the_size_of_an_invisible_file(tmp_path: Path, access: Access) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    (root / "secret.bin").write_bytes(b"s" * 12345)
    (root / "pointer").symlink_to("secret.bin")
    ws = Workspace(root, rules=[Rule("secret.bin", access)])
    listed = ws.toolset("mcpfs").call("list_directory_with_sizes", {"path": str(root)})
    assert listed.ok and "pointer" in listed.text, listed.text
    assert "12345" not in listed.text and "12.06 KB" not in listed.text, listed.text


def test_undo_of_a_mkdir_holding_only_hidden_files_is_not_called_not_empty(
    tmp_path: Path,
) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    ws = Workspace(root, confirm=True, rules=[Rule(".env", Access.HIDDEN)])
    d = ws.toolset("default")
    assert d.call("mkdir", {"path": "m"}).ok
    (root / "m" / ".env").write_text("KEY=1\n")
    result = d.call("undo", {"path": "m"})
    assert not result.ok and "not empty" not in result.text, result.text
    assert (root / "m" / ".env").exists()
    (root / "m" / "seen.txt").write_text("s\n")
    assert "not empty" in d.call("undo", {"path": "m"}).text
