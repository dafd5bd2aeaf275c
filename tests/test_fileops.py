"""File management in the engine and the `default` toolset: move, delete, mkdir, stat,
tree, read_many, roots, reads from the end, and dry runs of every changing tool. On real
trees; undo of every change; the policy on both ends of a move and inside directories."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from forkserver import ForkServer, shared

from filewright import Workspace
from filewright.core.result import Result
from filewright.engine.workspace import ConfirmRequest
from filewright.policy.rules import Access, Rule


def snapshot(root: Path) -> dict[str, Any]:
    """Every path under root (the state directory aside) with its bytes, link or mode."""
    out: dict[str, Any] = {}
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = [d for d in dirnames if d != ".filewright"]
        for name in dirnames + filenames:
            path = Path(dirpath) / name
            rel = str(path.relative_to(root))
            if path.is_symlink():
                out[rel] = ("link", os.readlink(path))
            elif path.is_dir():
                out[rel] = ("dir", stat.S_IMODE(path.stat().st_mode))
            else:
                out[rel] = ("file", path.read_bytes(), stat.S_IMODE(path.stat().st_mode))
    return out


@pytest.fixture
def root(tmp_path: Path) -> Path:
    r = tmp_path / "ws"
    (r / "src" / "pkg").mkdir(parents=True)
    (r / "a.txt").write_text("alpha\nbeta\n")
    (r / "src" / "pkg" / "m.py").write_text("x = 1\n")
    (r / "src" / "run.sh").write_text("#!/bin/sh\n")
    (r / "src" / "run.sh").chmod(0o755)
    (r / "src" / "link").symlink_to("pkg/m.py")
    (r / "empty").mkdir()
    (r / ".git").mkdir()
    (r / ".git" / "config").write_text("[core]\n")
    return r


class Asked:
    """A confirm callback that records what it was asked and answers `answer`."""

    def __init__(self, answer: bool) -> None:
        self.answer = answer
        self.requests: list[ConfirmRequest] = []

    def __call__(self, request: ConfirmRequest) -> bool:
        self.requests.append(request)
        return self.answer


def tools(root: Path, **kw: Any) -> Any:
    return Workspace(str(root), **kw).toolset("default")


def ok(result: Result) -> Result:
    assert result.ok, result.text
    return result


# -- move --------------------------------------------------------------------------------------


def test_move_renames_and_undo_from_either_end_moves_it_back(root: Path) -> None:
    t = tools(root)
    before = snapshot(root)
    ok(t.call("move", {"source": "a.txt", "destination": "src/b.txt"}))
    assert not (root / "a.txt").exists() and (root / "src" / "b.txt").read_text() == "alpha\nbeta\n"
    ok(t.call("undo", {"path": "src/b.txt"}))
    assert snapshot(root) == before
    ok(t.call("move", {"source": "a.txt", "destination": "b.txt"}))
    ok(t.call("undo", {"path": "a.txt"}))  # the source end works too
    assert snapshot(root) == before
    assert not t.call("undo", {"path": "a.txt"}).ok  # nothing left to undo


def test_move_never_overwrites_unless_asked_and_undo_brings_the_replaced_file_back(
    root: Path,
) -> None:
    (root / "b.txt").write_text("bee\n")
    t = tools(root)
    before = snapshot(root)
    refused = t.call("move", {"source": "a.txt", "destination": "b.txt"})
    assert not refused.ok and refused.data["error"] == "exists"
    assert snapshot(root) == before
    ok(t.call("move", {"source": "a.txt", "destination": "b.txt", "overwrite": True}))
    assert (root / "b.txt").read_text() == "alpha\nbeta\n" and not (root / "a.txt").exists()
    ok(t.call("undo", {"path": "b.txt"}))
    assert snapshot(root) == before


def test_move_a_directory_and_undo(root: Path) -> None:
    t = tools(root)
    before = snapshot(root)
    ok(t.call("move", {"source": "src", "destination": "lib"}))
    assert (root / "lib" / "pkg" / "m.py").exists() and not (root / "src").exists()
    ok(t.call("undo", {"path": "lib"}))
    assert snapshot(root) == before


@pytest.mark.parametrize(
    ("source", "destination", "code"),
    [
        ("src", "src/inner", "into_itself"),
        (".", "elsewhere", "is_root"),
        ("a.txt", "a.txt", "same_path"),
        ("missing.txt", "b.txt", "not_found"),
        ("a.txt", "no/such/dir/b.txt", "parent_missing"),
        ("a.txt", "../outside.txt", "outside"),
        ("src/link", "moved-link", "symlink"),
        ("a.txt", "empty", "exists"),
    ],
)
def test_move_refusals_change_nothing(root: Path, source: str, destination: str, code: str) -> None:
    before = snapshot(root)
    result = tools(root).call("move", {"source": source, "destination": destination})
    assert not result.ok and result.data["error"] == code, result.text
    assert snapshot(root) == before


def test_a_link_at_the_destination_is_never_followed(root: Path) -> None:
    (root / "dangling").symlink_to(root / "nowhere")
    before = snapshot(root)
    assert not tools(root).call("move", {"source": "a.txt", "destination": "dangling"}).ok
    assert snapshot(root) == before and not (root / "nowhere").exists()


# -- the policy on both ends ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("source", "destination"),
    [
        (".git/config", "config"),  # out of a protected path (read)
        ("a.txt", ".git/a.txt"),  # into a protected path
        ("a.txt", ".envrc"),  # into a protected name
        ("secret.txt", "public.txt"),  # a denied file
        ("a.txt", "secret.txt.d/x"),  # into a denied directory
        ("hidden.txt", "seen.txt"),  # a hidden file
        ("a.txt", ".filewright/x"),  # into the state directory (hidden)
        ("proj", "proj2"),  # a directory holding a protected path
        ("keep", "keep2"),  # a directory holding a file hidden there, not at the other end
    ],
)
def test_a_move_touching_a_protected_path_is_refused(
    root: Path, source: str, destination: str
) -> None:
    (root / "secret.txt").write_text("s")
    (root / "secret.txt.d").mkdir()
    (root / "hidden.txt").write_text("h")
    (root / "proj" / ".git").mkdir(parents=True)
    (root / "notes").mkdir()
    (root / "notes" / "hidden.txt").write_text("h")
    (root / "keep").mkdir()
    (root / "keep" / "k.txt").write_text("k")
    rules = [
        Rule("secret.txt", Access.DENY),
        Rule("secret.txt.d/", Access.DENY),
        Rule("hidden.txt", Access.HIDDEN),
        Rule("/keep/k.txt", Access.HIDDEN),
    ]
    t = tools(root, rules=rules)
    t.call("mkdir", {"path": "x"})  # the state directory exists from here on
    before = snapshot(root)
    result = t.call("move", {"source": source, "destination": destination})
    assert not result.ok, result.text
    assert snapshot(root) == before
    if source == "hidden.txt":  # answers as a missing file does
        missing = t.call("move", {"source": "absent.txt", "destination": "seen.txt"})
        assert result.text == missing.text.replace("absent.txt", "hidden.txt")


def test_confirm_paths_ask_and_a_refusal_changes_nothing(root: Path) -> None:
    asked = Asked(False)
    t = tools(root, rules=[Rule("*.md", Access.CONFIRM)], confirm=asked)
    before = snapshot(root)
    result = t.call("move", {"source": "a.txt", "destination": "a.md"})
    assert not result.ok and result.data["error"] == "rejected"
    assert len(asked.requests) == 1 and "rename to a.md" in asked.requests[0].diff
    assert snapshot(root) == before
    asked.answer = True
    ok(t.call("move", {"source": "a.txt", "destination": "a.md"}))


# -- delete ---------------------------------------------------------------------------------------


def test_delete_a_file_and_undo_restores_bytes_and_mode(root: Path) -> None:
    t = tools(root)
    before = snapshot(root)
    ok(t.call("delete", {"path": "src/run.sh"}))
    assert not (root / "src" / "run.sh").exists()
    ok(t.call("undo", {"path": "src/run.sh"}))
    assert snapshot(root) == before


def test_delete_a_link_removes_the_link_not_its_target(root: Path) -> None:
    t = tools(root)
    before = snapshot(root)
    ok(t.call("delete", {"path": "src/link"}))
    assert not (root / "src" / "link").is_symlink() and (root / "src" / "pkg" / "m.py").exists()
    ok(t.call("undo", {"path": "src/link"}))
    assert snapshot(root) == before


def test_delete_directories_empty_or_recursive_with_confirmation(root: Path) -> None:
    before = snapshot(root)
    t = tools(root)  # nobody to confirm
    ok(t.call("delete", {"path": "empty"}))
    ok(t.call("undo", {"path": "empty"}))
    full = t.call("delete", {"path": "src"})
    assert not full.ok and full.data["error"] == "not_empty"
    unconfirmed = t.call("delete", {"path": "src", "recursive": True})
    assert not unconfirmed.ok and unconfirmed.data["error"] == "no_confirmation"
    assert snapshot(root) == before
    asked = Asked(True)
    t = tools(root, confirm=asked)
    ok(t.call("delete", {"path": "src", "recursive": True}))
    assert not (root / "src").exists() and len(asked.requests) == 1
    assert "deleted src/pkg/m.py" in asked.requests[0].diff
    ok(t.call("undo", {"path": "src"}))
    assert snapshot(root) == before


def test_delete_refuses_protected_and_stale_files(root: Path) -> None:
    t = tools(root, confirm=True)
    before = snapshot(root)
    assert not t.call("delete", {"path": ".git/config"}).ok
    (root / "proj" / ".git").mkdir(parents=True)
    assert not t.call("delete", {"path": "proj", "recursive": True}).ok
    assert (root / "proj" / ".git").is_dir()
    ok(t.call("read", {"path": "a.txt"}))
    (root / "a.txt").write_text("changed by someone else\n")
    stale = t.call("delete", {"path": "a.txt"})
    assert not stale.ok and stale.data["error"] == "stale"
    assert (root / "a.txt").read_text() == "changed by someone else\n"
    assert snapshot(root)[".git/config"] == before[".git/config"]


def test_undo_of_a_delete_never_replaces_what_is_there_now(root: Path) -> None:
    t = tools(root)
    ok(t.call("delete", {"path": "a.txt"}))
    (root / "a.txt").write_text("new content\n")
    result = t.call("undo", {"path": "a.txt"})
    assert not result.ok and (root / "a.txt").read_text() == "new content\n"


# -- mkdir -----------------------------------------------------------------------------------------


def test_mkdir_with_parents_is_idempotent_and_undoable(root: Path) -> None:
    t = tools(root)
    before = snapshot(root)
    ok(t.call("mkdir", {"path": "x/y/z"}))
    assert (root / "x" / "y" / "z").is_dir()
    again = ok(t.call("mkdir", {"path": "x/y/z"}))
    assert "exists" in again.text
    ok(t.call("undo", {"path": "x/y/z"}))
    assert snapshot(root) == before
    assert not t.call("mkdir", {"path": "a.txt"}).ok  # a file is in the way
    assert not t.call("mkdir", {"path": ".git/hooks"}).ok  # protected


def test_mkdir_over_a_file_or_a_dangling_link_says_a_file_is_there(root: Path) -> None:
    os.symlink("nowhere", root / "dangling")
    t = tools(root)
    for name in ("a.txt", "dangling"):
        result = t.call("mkdir", {"path": name})
        assert not result.ok and result.data["error"] == "exists", result.text
    assert os.path.islink(root / "dangling") and (root / "a.txt").is_file()


def test_undo_of_mkdir_refuses_a_directory_that_is_no_longer_empty(root: Path) -> None:
    t = tools(root)
    ok(t.call("mkdir", {"path": "x"}))
    (root / "x" / "f").write_text("keep me")
    assert not t.call("undo", {"path": "x"}).ok
    assert (root / "x" / "f").read_text() == "keep me"


# -- dry runs ---------------------------------------------------------------------------------------

CHANGES = [
    ("write", {"path": "a.txt", "content": "new\n"}),
    ("write", {"path": "new/file.txt", "content": "new\n"}),
    ("edit", {"path": "a.txt", "old_string": "beta", "new_string": "BETA"}),
    ("multi_edit", {"path": "a.txt", "edits": [{"old_string": "alpha", "new_string": "A"}]}),
    ("replace_span", {"path": "a.txt", "start": "alpha", "end": "beta", "new_text": "x"}),
    ("insert", {"path": "a.txt", "line": 1, "text": "inserted"}),
    ("append", {"path": "a.txt", "content": "more\n"}),
    ("append", {"path": "fresh.txt", "content": "more\n"}),
    ("move", {"source": "a.txt", "destination": "b.txt"}),
    ("move", {"source": "src", "destination": "lib"}),
    ("delete", {"path": "a.txt"}),
    ("delete", {"path": "src", "recursive": True}),
    ("mkdir", {"path": "x/y"}),
]


@pytest.mark.parametrize(
    ("tool", "args"), CHANGES, ids=[f"{t}-{i}" for i, (t, _) in enumerate(CHANGES)]
)
def test_a_dry_run_writes_nothing(root: Path, tool: str, args: dict[str, Any]) -> None:
    t = tools(root, confirm=True)
    ok(t.call("read", {"path": "a.txt"}))
    before = snapshot(root)
    result = ok(t.call(tool, {**args, "dry_run": True}))
    assert result.text.startswith("[dry run]") and result.data["dry_run"] is True
    assert snapshot(root) == before
    ok(t.call(tool, args))  # and the same call, for real, succeeds
    assert snapshot(root) != before


def test_a_dry_run_undo_restores_nothing(root: Path) -> None:
    t = tools(root)
    ok(t.call("delete", {"path": "a.txt"}))
    after = snapshot(root)
    ok(t.call("undo", {"path": "a.txt", "dry_run": True}))
    assert snapshot(root) == after
    ok(t.call("undo", {"path": "a.txt"}))
    assert (root / "a.txt").exists()


# -- stat, tree, read_many, roots, reads from the end -------------------------------------------------


def test_stat(root: Path) -> None:
    (root / "crlf.txt").write_bytes(b"a\r\nb\r\n")
    info = ok(tools(root).call("stat", {"path": "crlf.txt"})).data
    assert info["type"] == "file" and info["size"] == 6 and info["lines"] == 2
    assert info["newline"] == "crlf" and info["encoding"] == "utf-8" and info["mode"] == "644"
    directory = ok(tools(root).call("stat", {"path": "src"})).data
    assert directory["type"] == "directory" and "lines" not in directory
    assert not tools(root).call("stat", {"path": ".filewright"}).ok


def test_tree_limits_gitignore_and_policy(root: Path) -> None:
    (root / ".gitignore").write_text("*.log\n")
    (root / "debug.log").write_text("x")
    (root / "secret.txt").write_text("s")
    t = tools(root, rules=[Rule("secret.txt", Access.HIDDEN)])
    text = ok(t.call("tree", {})).text
    assert "m.py" in text and "debug.log" not in text and "secret" not in text
    assert ".git/" not in text
    shallow = ok(t.call("tree", {"max_depth": 1})).text
    assert "m.py" not in shallow and "src/ …" in shallow
    few = ok(t.call("tree", {"max_entries": 2}))
    assert few.data["truncated"] is True and few.data["entries"] == 2


def test_read_many_reports_each_failure_alone_and_hidden_as_missing(root: Path) -> None:
    (root / "secret.txt").write_text("TOP SECRET\n")
    t = tools(root, rules=[Rule("secret.txt", Access.HIDDEN)])
    result = ok(
        t.call("read_many", {"paths": ["a.txt", "secret.txt", "missing.txt", "src/pkg/m.py"]})
    )
    assert "TOP SECRET" not in result.text and "alpha" in result.text and "x = 1" in result.text
    secret = result.text.split("==> secret.txt <==\n")[1].split("\n")[0]
    missing = result.text.split("==> missing.txt <==\n")[1].split("\n")[0]
    assert secret == missing.replace("missing.txt", "secret.txt")
    errors = {f["path"]: f.get("error") for f in result.data["files"]}
    assert errors["secret.txt"] == errors["missing.txt"] == "hidden" or errors["secret.txt"] in (
        "hidden",
        "not_found",
    )
    globbed = ok(t.call("read_many", {"pattern": "**/*.txt"}))
    assert "TOP SECRET" not in globbed.text and "alpha" in globbed.text


@pytest.fixture(scope="module")
def forks(request: pytest.FixtureRequest) -> ForkServer:
    return shared(request.session)


def test_read_many_with_a_pattern_that_matches_nothing_says_so(
    root: Path, forks: ForkServer
) -> None:
    """The user gave a pattern: the answer says it matched nothing (exit 1, a tool
    failure), not "give paths or a pattern" (exit 2, a usage error)."""
    proc = forks.run(
        ["filewright", "call", "--root", str(root), "read_many", '{"pattern": "**/*.nothing"}'],
        timeout=60,
    )
    assert proc.returncode == 1, proc.stdout + proc.stderr
    answer = json.loads(proc.stdout)
    assert answer["text"] == "No files match the pattern '**/*.nothing': nothing to read."
    assert answer["data"]["error"] == "not_found"
    empty = tools(root).call("read_many", {})
    assert not empty.ok and empty.data["error"] == "bad_arguments"


def test_read_many_budget(root: Path) -> None:
    for i in range(5):
        (root / f"f{i}.txt").write_text("y" * 400 + "\n")
    result = ok(tools(root).call("read_many", {"pattern": "f*.txt", "max_output_chars": 900}))
    assert result.text.count("[not read: the output budget is used up]") >= 2


def test_roots(tmp_path: Path) -> None:
    one, two = tmp_path / "one", tmp_path / "two"
    one.mkdir()
    two.mkdir()
    result = ok(Workspace([str(one), str(two)]).toolset("default").call("roots", {}))
    assert result.data["roots"] == [str(one), str(two)]


def test_read_tail_and_negative_offset(root: Path) -> None:
    (root / "log.txt").write_text("".join(f"entry {i}\n" for i in range(1, 101)))
    t = tools(root)
    tail = ok(t.call("read", {"path": "log.txt", "tail": 3}))
    assert [line.split("\t")[1] for line in tail.text.split("\n")[:3]] == [
        "entry 98", "entry 99", "entry 100",
    ]  # fmt: skip
    back = ok(t.call("read", {"path": "log.txt", "offset": -5, "limit": 2}))
    assert back.data["start_line"] == 96 and back.data["end_line"] == 97
    assert not t.call("read", {"path": "log.txt", "offset": 0}).ok
    assert not t.call("read", {"path": "log.txt", "offset": 2, "tail": 2}).ok


def test_move_and_undo_through_the_command_line(root: Path, forks: ForkServer) -> None:
    def cli(*args: str) -> dict[str, Any]:
        proc = forks.run(["filewright", "call", "--root", str(root), *args], timeout=60)
        return json.loads(proc.stdout)

    before = snapshot(root)
    assert cli("move", json.dumps({"source": "a.txt", "destination": "z.txt"}))["ok"]
    assert (root / "z.txt").exists()
    assert cli("undo", json.dumps({"path": "z.txt"}))["ok"]
    assert snapshot(root) == before


def test_an_unprivileged_user_gets_clear_refusals_and_nothing_changes(tmp_path: Path) -> None:
    """As a user who may not write a directory (when the tests run as root: nobody, or
    root without the capabilities that bypass permissions where nobody cannot reach the
    checkout, see `unprivileged`): moving, deleting and making directories there fail
    cleanly and change nothing."""
    from unprivileged import reachable_dir, unprivileged_prefix

    prefix: list[str] = []
    as_nobody = False
    if os.geteuid() == 0:
        dropped = unprivileged_prefix()
        if dropped is None:
            pytest.skip("running as root without setpriv: cannot drop privileges")
        prefix, as_nobody = dropped
    with reachable_dir("fw-nobody-") as base:
        ws = base / "ws"
        (ws / "locked").mkdir(parents=True)
        (ws / "locked" / "f.txt").write_text("keep\n")
        (ws / "free.txt").write_text("free\n")
        if as_nobody:
            for path in (ws, ws / "locked", ws / "locked" / "f.txt", ws / "free.txt"):
                os.chown(path, 65534, 65534)
        (ws / "locked").chmod(0o555)
        before = snapshot(ws)
        calls = [
            ("delete", {"path": "locked/f.txt"}),
            ("move", {"source": "locked/f.txt", "destination": "g.txt"}),
            ("move", {"source": "free.txt", "destination": "locked/free.txt"}),
            ("mkdir", {"path": "locked/sub"}),
        ]
        for tool, args in calls:
            proc = subprocess.run(
                [*prefix, sys.executable, "-c",
                 "from filewright.surfaces.cli.main import main; main()",
                 "call", "--root", str(ws), "--yes", tool, json.dumps(args)],
                capture_output=True, text=True, timeout=60, env={**os.environ, "HOME": str(base)},
            )  # fmt: skip
            assert proc.returncode == 1, (tool, proc.stdout, proc.stderr)
            answer = json.loads(proc.stdout)
            assert answer["data"]["error"] in ("permission", "io_error"), answer
            assert "Traceback" not in proc.stdout + proc.stderr
            assert snapshot(ws) == before, tool


def test_negative_offset_in_a_file_too_large_to_count(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from filewright.read import textread

    monkeypatch.setattr(textread, "TAIL_COUNT_BYTES", 100)  # "large" from 100 bytes on
    (root / "log.txt").write_text("".join(f"entry {i}\n" for i in range(1, 301)))
    back = ok(tools(root).call("read", {"path": "log.txt", "offset": -5, "limit": 2}))
    assert back.data["start_line"] == -5 and back.data["end_line"] == -4
    assert [line.split("\t")[1] for line in back.text.split("\n")[:2]] == ["entry 296", "entry 297"]
    assert "entry 298" not in back.text


def test_the_rename_itself_never_replaces_what_appeared_at_the_destination(tmp_path: Path) -> None:
    """The last line of defence, below the checks: a file that appears at the destination
    after they ran is not replaced (renameat2 RENAME_NOREPLACE, or check-then-rename)."""
    from filewright.fs import entries
    from filewright.fs.paths import Sandbox

    (tmp_path / "a.txt").write_text("a")
    sandbox = Sandbox([str(tmp_path)])
    src, dst = sandbox.resolve("a.txt"), sandbox.resolve("b.txt")
    (tmp_path / "b.txt").write_text("appeared meanwhile")
    with pytest.raises(FileExistsError):
        entries.rename(src, dst)
    assert (tmp_path / "b.txt").read_text() == "appeared meanwhile"
    assert (tmp_path / "a.txt").read_text() == "a"
