"""One "may this entry be replaced or removed" check, and metadata that travels with
content (issue 30, findings 10 and 11).

A read-only file is neither replaced nor removed by any path: write, move over, delete, a
patch's delete or move, undo (`fsio.check_writable`, asked first by the engine and again
where the entry is unlinked or renamed over). A file re-created from content it had
(a patch's move, the undo of a patch's delete, the rollback of a failed patch) keeps the
mode and owner it had: `fsio.write_atomic` has no default mode, so every caller says whose
it is.
"""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from forkserver import ForkServer, shared

from filewright import Workspace

AS_ROOT = os.geteuid() == 0


def patch(*body: str) -> str:
    return "\n".join(["*** Begin Patch", *body, "*** End Patch"])


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


# -- finding 11: a read-only file is neither replaced nor removed ---------------------------


@pytest.fixture
def ro(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    (root / "ro.txt").write_text("read-only\n")
    (root / "ro.txt").chmod(0o444)
    (root / "other.txt").write_text("other\n")
    return root


@pytest.fixture(scope="module")
def forks(request: pytest.FixtureRequest) -> ForkServer:
    """The filewright command is forked from the warm interpreter (tests/forkserver.py)."""
    return shared(request.session)


@pytest.mark.parametrize("dry_run", [False, True])
def test_move_over_a_read_only_file_is_refused(ro: Path, dry_run: bool) -> None:
    d = Workspace(ro, confirm=True).toolset("default")
    args = {"source": "other.txt", "destination": "ro.txt", "overwrite": True}
    result = d.call("move", {**args, "dry_run": dry_run})
    assert not result.ok and result.data["error"] == "permission", result.text
    assert "ro.txt" in result.text
    assert (ro / "ro.txt").read_text() == "read-only\n" and (ro / "other.txt").exists()


def test_delete_of_a_read_only_file_is_refused(ro: Path) -> None:
    d = Workspace(ro, confirm=True).toolset("default")
    result = d.call("delete", {"path": "ro.txt"})
    assert not result.ok and result.data["error"] == "permission", result.text
    assert (ro / "ro.txt").read_text() == "read-only\n"


@pytest.mark.parametrize(
    "body",
    [
        ("*** Delete File: ro.txt",),
        ("*** Update File: ro.txt", "*** Move to: moved.txt", "@@", "-read-only", "+changed"),
    ],
    ids=["delete", "move"],
)
def test_a_patch_neither_deletes_nor_moves_a_read_only_file(ro: Path, body: tuple[str]) -> None:
    p = Workspace(ro, confirm=True).toolset("apply_patch")
    result = p.call("apply_patch", {"input": patch(*body)})
    assert not result.ok and "ro.txt" in result.text, result.text
    assert (ro / "ro.txt").read_text() == "read-only\n" and not (ro / "moved.txt").exists()


def test_undo_does_not_remove_a_file_made_read_only_since(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    d = Workspace(root, confirm=True).toolset("default")
    assert d.call("write", {"path": "n.txt", "content": "new\n"}).ok
    (root / "n.txt").chmod(0o444)
    result = d.call("undo", {"path": "n.txt"})
    assert not result.ok and "read-only" in result.text, result.text
    assert (root / "n.txt").read_text() == "new\n"


def test_the_cli_refuses_a_move_over_a_read_only_file(ro: Path, forks: ForkServer) -> None:
    args = {"source": "other.txt", "destination": "ro.txt", "overwrite": True}
    done = forks.run(
        ["filewright", "call", "--root", str(ro), "--yes", "move", json.dumps(args)],
        timeout=120,
    )
    out = json.loads(done.stdout)
    assert done.returncode == 1 and out["data"]["error"] == "permission", out
    assert "ro.txt" in out["text"], out
    assert (ro / "ro.txt").read_text() == "read-only\n"


# -- finding 10: metadata travels with content -----------------------------------------------


@pytest.fixture
def private(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    secret = root / "secret.txt"
    secret.write_text("key = 1\n")
    secret.chmod(0o600)
    if AS_ROOT:  # someone else's file: the owner travels too
        os.chown(secret, 65534, 65534)
    return root


def _same_owner(path: Path) -> None:
    if AS_ROOT:
        st = path.stat()
        assert (st.st_uid, st.st_gid) == (65534, 65534)


def test_a_patch_move_keeps_the_mode_and_owner(private: Path) -> None:
    p = Workspace(private, confirm=True).toolset("apply_patch")
    body = ("*** Update File: secret.txt", "*** Move to: moved.txt", "@@", "-key = 1", "+key = 2")
    result = p.call("apply_patch", {"input": patch(*body)})
    assert result.ok, result.text
    assert mode(private / "moved.txt") == 0o600
    _same_owner(private / "moved.txt")


@pytest.mark.parametrize("surface", ["default", "cli"])
def test_the_undo_of_a_patch_delete_keeps_the_mode_and_owner(
    private: Path, forks: ForkServer, surface: str
) -> None:
    ws = Workspace(private, confirm=True)
    result = ws.toolset("apply_patch").call(
        "apply_patch", {"input": patch("*** Delete File: secret.txt")}
    )
    assert result.ok, result.text
    if surface == "default":
        assert ws.toolset("default").call("undo", {"path": "secret.txt"}).ok
    else:
        done = forks.run(
            ["filewright", "undo", "--json", "--root", str(private), "secret.txt"],
            timeout=120,
        )
        assert done.returncode == 0, done.stdout + done.stderr
    assert (private / "secret.txt").read_text() == "key = 1\n"
    assert mode(private / "secret.txt") == 0o600
    _same_owner(private / "secret.txt")


ROLLBACK = r"""
import json, os, stat, sys
from filewright import Workspace
root = sys.argv[1]
p = Workspace(root, confirm=True).toolset("apply_patch")
body = "\n".join(["*** Begin Patch", "*** Delete File: secret.txt",
                  "*** Add File: locked/new.txt", "+x", "*** End Patch"])
r = p.call("apply_patch", {"input": body})
st = os.stat(os.path.join(root, "secret.txt"))
print(json.dumps({"ok": r.ok, "text": r.text, "mode": stat.S_IMODE(st.st_mode)}))
"""


@pytest.mark.skipif(
    not AS_ROOT or shutil.which("setpriv") is None,
    reason="needs root and setpriv to drop the capabilities that bypass permissions",
)
def test_the_rollback_of_a_failed_patch_keeps_the_mode(tmp_path: Path) -> None:
    """As a user the permissions bind: the patch deletes secret.txt, then cannot write
    into a read-only directory, and puts secret.txt back as it was."""
    root = tmp_path / "ws"
    (root / "locked").mkdir(parents=True)
    (root / "secret.txt").write_text("key = 1\n")
    (root / "secret.txt").chmod(0o600)
    (root / "locked").chmod(0o555)
    prefix = [shutil.which("setpriv") or "setpriv", "--bounding-set",
              "-dac_override,-dac_read_search,-fowner", "--inh-caps", "-all", "--"]  # fmt: skip
    done = subprocess.run(
        [*prefix, sys.executable, "-c", ROLLBACK, str(root)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    out = json.loads(done.stdout)
    assert not out["ok"] and "restored" in out["text"], out
    assert out["mode"] == 0o600, out
