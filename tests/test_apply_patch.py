"""The apply_patch toolset on real files: all or nothing, history, policy, file styles."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from filewright import Workspace
from filewright.engine.workspace import ConfirmRequest
from filewright.policy.rules import Access, Rule

EXE = Path(sys.executable).parent / "filewright"


def patch(*body: str) -> str:
    return "\n".join(["*** Begin Patch", *body, "*** End Patch"])


def tools(root: Path, **kw: Any) -> Any:
    return Workspace(str(root), **kw).toolset("apply_patch")


def snapshot(root: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(root)): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and ".filewright" not in p.parts
    }


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    (tmp_path / "a.py").write_text("def f():\n    return 1\n")
    (tmp_path / "b.py").write_text("def g():\n    return 2\n")
    (tmp_path / "old.txt").write_text("old\n")
    return tmp_path


def test_multi_file_patch_applies_every_operation(tree: Path) -> None:
    t = tools(tree)
    r = t.call(
        "apply_patch",
        {
            "input": patch(
                "*** Update File: a.py",
                "@@ def f():",
                "-    return 1",
                "+    return 10",
                "*** Add File: pkg/new.py",
                "+x = 1",
                "*** Delete File: old.txt",
                "*** Update File: b.py",
                "*** Move to: pkg/b2.py",
                "@@",
                "-    return 2",
                "+    return 20",
            )
        },
    )
    assert r.ok, r.text
    assert r.text.splitlines() == [
        "Patch applied; files changed:",
        "M a.py",
        "A pkg/new.py",
        "D old.txt",
        "R b.py -> pkg/b2.py",
    ]
    assert (tree / "a.py").read_text() == "def f():\n    return 10\n"
    assert (tree / "pkg/new.py").read_text() == "x = 1\n"
    assert not (tree / "old.txt").exists() and not (tree / "b.py").exists()
    assert (tree / "pkg/b2.py").read_text() == "def g():\n    return 20\n"
    assert [f["operation"] for f in r.data["files"]] == [
        "update", "add", "delete", "move_from", "move_to",
    ]  # fmt: skip


def test_one_bad_hunk_changes_no_file(tree: Path) -> None:
    before = snapshot(tree)
    r = tools(tree).call(
        "apply_patch",
        {
            "input": patch(
                "*** Update File: a.py",
                "-    return 1",
                "+    return 10",
                "*** Add File: c.py",
                "+new",
                "*** Delete File: old.txt",
                "*** Update File: b.py",
                "@@ def g():",
                "-    return 3",
                "+    return 30",
            )
        },
    )
    assert not r.ok
    assert snapshot(tree) == before
    assert r.data["error"] == "patch_no_match" and r.data["file"] == "b.py"
    assert r.data["applied"] == []
    text = r.text
    assert "Update File: b.py (line 8 of the patch)" in text
    assert "hunk 1" in text and "return 3" in text
    assert "Closest text in the file, line 2" in text and "2      return 2" in text
    assert text.endswith("The patch was not applied: no file was changed.")


def test_ambiguous_context_lists_every_place_and_writes_nothing(tmp_path: Path) -> None:
    (tmp_path / "m.py").write_text("def a():\n    pass\n\ndef b():\n    pass\n")
    before = snapshot(tmp_path)
    r = tools(tmp_path).call(
        "apply_patch", {"input": patch("*** Update File: m.py", "-    pass", "+    return 1")}
    )
    assert not r.ok and r.data["error"] == "patch_ambiguous"
    assert "match 2 places" in r.text
    assert "Match at line 2" in r.text and "Match at line 5" in r.text
    assert snapshot(tmp_path) == before


def test_add_then_update_in_one_patch(tmp_path: Path) -> None:
    r = tools(tmp_path).call(
        "apply_patch",
        {
            "input": patch(
                "*** Add File: n.txt", "+one", "+two", "*** Update File: n.txt", "-two", "+2"
            )
        },
    )
    assert r.ok, r.text
    assert (tmp_path / "n.txt").read_text() == "one\n2\n"
    assert r.text.splitlines()[1:] == ["A n.txt"]


def test_move_never_overwrites_unless_deleted_first(tree: Path) -> None:
    before = snapshot(tree)
    move = ("*** Update File: a.py", "*** Move to: b.py")
    r = tools(tree).call("apply_patch", {"input": patch(*move)})
    assert not r.ok and r.data["error"] == "move_target_exists" and snapshot(tree) == before
    assert "delete it first" in r.text
    r = tools(tree).call("apply_patch", {"input": patch("*** Delete File: b.py", *move)})
    assert r.ok, r.text
    assert (tree / "b.py").read_text() == "def f():\n    return 1\n"
    assert not (tree / "a.py").exists()


def test_add_refuses_an_existing_file(tree: Path) -> None:
    r = tools(tree).call("apply_patch", {"input": patch("*** Add File: a.py", "+x")})
    assert not r.ok and r.data["error"] == "exists"
    assert (tree / "a.py").read_text() == "def f():\n    return 1\n"


def test_undo_per_file_including_a_delete_and_a_move(tree: Path) -> None:
    ws = Workspace(str(tree))
    r = ws.toolset("apply_patch").call(
        "apply_patch",
        {
            "input": patch(
                "*** Update File: a.py",
                "-    return 1",
                "+    return 10",
                "*** Delete File: old.txt",
                "*** Update File: b.py",
                "*** Move to: c.py",
            )
        },
    )
    assert r.ok, r.text
    d = ws.toolset("default")
    for path in ("old.txt", "a.py", "c.py", "b.py"):
        u = d.call("undo", {"path": path})
        assert u.ok, (path, u.text)
    assert (tree / "old.txt").read_text() == "old\n"
    assert (tree / "a.py").read_text() == "def f():\n    return 1\n"
    assert (tree / "b.py").read_text() == "def g():\n    return 2\n"
    assert not (tree / "c.py").exists()
    assert len(ws.history.entries(str((tree / "a.py").resolve()))) == 0


def test_file_styles_are_kept(tmp_path: Path) -> None:
    (tmp_path / "crlf.txt").write_bytes(
        b"\xef\xbb\xbfone\r\ntwo\r\nthree"
    )  # BOM, CRLF, no final newline
    (tmp_path / "latin.txt").write_bytes("caf\xe9\nna\xefve\n".encode("cp1252"))
    r = tools(tmp_path).call(
        "apply_patch",
        {
            "input": patch(
                "*** Update File: crlf.txt",
                " one",
                "-two",
                "+2",
                "+2b",
                " three",
                "*** Update File: latin.txt",
                "-na\xefve",
                "+na\xefve \xe0 la",
            )
        },
    )
    assert r.ok, r.text
    assert (tmp_path / "crlf.txt").read_bytes() == b"\xef\xbb\xbfone\r\n2\r\n2b\r\nthree"
    assert (tmp_path / "latin.txt").read_bytes() == "caf\xe9\nna\xefve \xe0 la\n".encode("cp1252")


def test_unencodable_text_changes_nothing(tmp_path: Path) -> None:
    (tmp_path / "latin.txt").write_bytes("caf\xe9\n".encode("cp1252"))
    (tmp_path / "u.txt").write_text("u\n")
    before = snapshot(tmp_path)
    r = tools(tmp_path).call(
        "apply_patch",
        {
            "input": patch(
                "*** Update File: u.txt",
                "-u",
                "+v",
                "*** Update File: latin.txt",
                "-caf\xe9",
                "+\u4e2d",
            )
        },
    )
    assert not r.ok and r.data["error"] == "unencodable"
    assert snapshot(tmp_path) == before


@pytest.mark.parametrize(
    ("body", "code"),
    [
        (("*** Add File: ../escape.txt", "+x"), "outside"),
        (("*** Update File: /etc/passwd", "-root", "+toor"), "outside"),
        (("*** Delete File: missing.txt",), "not_found"),
        (("*** Update File: a.py", "*** Move to: ../../x.py"), "outside"),
        (("*** Update File: a.py", "*** Move to: secret/x.py"), "denied"),
        (("*** Delete File: .filewright/x",), "hidden"),
        (("*** Update File: keep.txt", "-k", "+K"), "protected"),
        (("*** Update File: keep.txt", "*** Move to: k2.txt"), "protected"),
        (("*** Delete File: keep.txt",), "protected"),
        (("*** Update File: b.py", "*** Move to: keep.txt"), "protected"),
    ],
)
def test_sandbox_and_policy_refuse_and_nothing_changes(
    tree: Path, body: tuple[str, ...], code: str
) -> None:
    (tree / "keep.txt").write_text("k\n")
    rules = [Rule("secret/", Access.DENY), Rule("keep.txt", Access.READ)]
    before = snapshot(tree)
    r = tools(tree, rules=rules).call(
        "apply_patch",
        {"input": patch("*** Update File: a.py", "-    return 1", "+    return 9", *body)},
    )
    assert not r.ok and r.data["error"] == code, r.text
    assert snapshot(tree) == before
    assert "no file was changed" in r.text


def test_confirmation_is_asked_before_anything_is_written(tree: Path) -> None:
    asked: list[str] = []

    def refuse_b(req: ConfirmRequest) -> bool:
        asked.append(Path(req.path).name)
        return Path(req.path).name != "b.py"

    rules = [Rule("*.py", Access.CONFIRM)]
    before = snapshot(tree)
    r = tools(tree, rules=rules, confirm=refuse_b).call(
        "apply_patch",
        {
            "input": patch(
                "*** Update File: a.py",
                "-    return 1",
                "+    return 10",
                "*** Update File: b.py",
                "-    return 2",
                "+    return 20",
            )
        },
    )
    assert not r.ok and r.data["error"] == "rejected"
    assert asked == ["a.py", "b.py"]
    assert snapshot(tree) == before


def test_a_commit_failing_midway_restores_the_files_written(tree: Path) -> None:
    """Another process replaces a directory the patch writes into, after the patch was
    checked: the second write fails, the first file is put back, its history dropped."""
    (tree / "sub").mkdir()

    def meddle(req: ConfirmRequest) -> bool:
        if Path(req.path).name == "late.txt":
            (tree / "sub").rmdir()
            (tree / "sub").write_text("now a file\n")
        return True

    ws = Workspace(str(tree), rules=[Rule("sub/late.txt", Access.CONFIRM)], confirm=meddle)
    r = ws.toolset("apply_patch").call(
        "apply_patch",
        {
            "input": patch(
                "*** Update File: a.py",
                "-    return 1",
                "+    return 10",
                "*** Delete File: old.txt",
                "*** Add File: sub/late.txt",
                "+late",
            )
        },
    )
    assert not r.ok and r.data["error"] == "io_error", r.text
    assert sorted(r.data["restored"]) == ["a.py", "old.txt"]
    assert (tree / "a.py").read_text() == "def f():\n    return 1\n"
    assert (tree / "old.txt").read_text() == "old\n"
    assert ws.history.entries(str((tree / "a.py").resolve())) == []
    assert ws.history.entries(str((tree / "old.txt").resolve())) == []


def test_a_file_changed_by_another_process_before_the_commit_is_refused(tree: Path) -> None:
    def other_process_writes(req: ConfirmRequest) -> bool:
        (tree / "b.py").write_text("def g():\n    return 2\n# edited meanwhile\n")
        return True

    ws = Workspace(str(tree), rules=[Rule("a.py", Access.CONFIRM)], confirm=other_process_writes)
    r = ws.toolset("apply_patch").call(
        "apply_patch",
        {
            "input": patch(
                "*** Update File: a.py", "-    return 1", "+    return 10",
                "*** Update File: b.py", "-    return 2", "+    return 20",
            )
        },
    )  # fmt: skip
    assert not r.ok and r.data["error"] == "stale", r.text
    assert (tree / "a.py").read_text() == "def f():\n    return 1\n"
    assert (tree / "b.py").read_text().endswith("# edited meanwhile\n")


def test_stale_read_is_refused(tree: Path) -> None:
    ws = Workspace(str(tree))
    assert ws.toolset("default").call("read", {"path": "a.py"}).ok
    (tree / "a.py").write_text("def f():\n    return 1\n# changed by someone\n")
    r = ws.toolset("apply_patch").call(
        "apply_patch", {"input": patch("*** Update File: a.py", "-    return 1", "+    return 10")}
    )
    assert not r.ok and r.data["error"] == "stale"


def test_invalid_patch_is_a_clear_error(tree: Path) -> None:
    r = tools(tree).call("apply_patch", {"input": "*** Begin Patch\n*** Update File: a.py\n-x\n"})
    assert not r.ok and r.data["error"] == "invalid_patch"
    assert "End Patch" in r.text and "no file was changed" in r.text
    r = tools(tree).call("apply_patch", {"patch": "x"})
    assert not r.ok and r.data["error"] == "bad_arguments"


def test_cli_call(tree: Path) -> None:
    args = {"input": patch("*** Update File: a.py", "-    return 1", "+    return 5")}
    proc = subprocess.run(
        [str(EXE), "call", "--root", str(tree), "--toolset",
         "apply_patch", "apply_patch", json.dumps(args)],
        capture_output=True, text=True, env={**os.environ}, check=False,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["ok"] and out["text"].endswith("M a.py")
    assert (tree / "a.py").read_text() == "def f():\n    return 5\n"
    bad = {"input": patch("*** Update File: a.py", "-nope", "+x")}
    proc = subprocess.run(
        [str(EXE), "call", "--root", str(tree), "--toolset",
         "apply_patch", "apply_patch", json.dumps(bad)],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert proc.returncode == 1 and json.loads(proc.stdout)["data"]["error"] == "patch_no_match"


def test_delete_or_move_of_a_symlink_is_refused(tree: Path) -> None:
    (tree / "link.py").symlink_to(tree / "a.py")
    before = snapshot(tree)
    for body in (("*** Delete File: link.py",), ("*** Update File: link.py", "*** Move to: z.py")):
        r = tools(tree).call("apply_patch", {"input": patch(*body)})
        assert not r.ok and r.data["error"] == "is_link", r.text
        assert snapshot(tree) == before and (tree / "link.py").is_symlink()
    # an update writes through the link to its target, as every edit does
    r = tools(tree).call(
        "apply_patch",
        {"input": patch("*** Update File: link.py", "-    return 1", "+    return 7")},
    )
    assert r.ok and (tree / "link.py").is_symlink()
    assert (tree / "a.py").read_text() == "def f():\n    return 7\n"


def _as_nobody(fn: Any) -> Any:
    """Run `fn` in a forked child with the `nobody` user's ids (root) or as we are (others);
    return what it returns (JSON-able)."""
    import pwd

    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        os.close(read)
        code = 0
        try:
            if os.geteuid() == 0:
                nobody = pwd.getpwnam("nobody")
                os.setgroups([])
                os.setgid(nobody.pw_gid)
                os.setuid(nobody.pw_uid)
                os.environ["FILEWRIGHT_POLICY"] = (
                    "/nonexistent/policy.toml"  # root's HOME is closed
                )
            out = json.dumps(fn()).encode()
        except BaseException as exc:
            import traceback

            out = json.dumps({"child_error": repr(exc), "trace": traceback.format_exc()}).encode()
            code = 1
        os.write(write, out)
        os._exit(code)
    os.close(write)
    chunks = []
    while chunk := os.read(read, 65536):
        chunks.append(chunk)
    os.close(read)
    os.waitpid(pid, 0)
    return json.loads(b"".join(chunks))


def test_unprivileged_user_whose_second_write_is_denied_gets_nothing_changed() -> None:
    """As an ordinary user: a.py is theirs, the directory of the second file is not
    writable for them. The patch is checked, a.py written, the second write refused by the
    system: a.py is restored and its history entry dropped."""
    import pwd
    import shutil
    import tempfile

    base = Path(tempfile.mkdtemp(prefix="fw-nobody-"))
    try:
        (base / "locked").mkdir()
        (base / "a.py").write_text("def f():\n    return 1\n")
        if os.geteuid() == 0:
            nobody = pwd.getpwnam("nobody")
            os.chmod(base, 0o755)
            os.chown(base, nobody.pw_uid, nobody.pw_gid)
            os.chown(base / "a.py", nobody.pw_uid, nobody.pw_gid)
        else:
            os.chmod(base / "locked", 0o555)
        (base / "warm").mkdir()  # a workspace used once here: imports done before the fork
        warm = Workspace(str(base / "warm")).toolset("apply_patch")
        warm.call("apply_patch", {"input": patch("*** Add File: w.txt", "+w")})
        text = patch(
            "*** Update File: a.py", "-    return 1", "+    return 2",
            "*** Add File: locked/x.txt", "+x",
        )  # fmt: skip

        def run() -> Any:
            ws = Workspace(str(base))
            r = ws.toolset("apply_patch").call("apply_patch", {"input": text})
            return {"ok": r.ok, "data": r.data, "text": r.text,
                    "history": len(ws.history.entries(str((base / "a.py").resolve())))}  # fmt: skip

        got = _as_nobody(run)
        assert "child_error" not in got, got
        assert not got["ok"] and got["data"]["error"] == "io_error", got
        assert got["data"]["restored"] == ["a.py"], got
        assert "the files already written were restored: a.py" in got["text"]
        assert got["history"] == 0
        assert (base / "a.py").read_text() == "def f():\n    return 1\n"
        assert not (base / "locked" / "x.txt").exists()
    finally:
        os.chmod(base / "locked", 0o755)
        shutil.rmtree(base, ignore_errors=True)


def test_a_planted_link_in_the_state_directory_is_a_clear_failure(
    tree: Path, tmp_path_factory: Any
) -> None:
    outside = tmp_path_factory.mktemp("outside")
    t = tools(tree)  # planted after the workspace opened: found when the patch locks files
    (tree / ".filewright").mkdir()
    (tree / ".filewright" / "locks").symlink_to(outside, target_is_directory=True)
    before = snapshot(tree)
    r = t.call(
        "apply_patch", {"input": patch("*** Update File: a.py", "-    return 1", "+    return 2")}
    )
    assert not r.ok and r.data["error"] == "io_error", r.text
    assert "no file was changed" in r.text and "Traceback" not in r.text
    assert snapshot(tree) == before and list(outside.iterdir()) == []
