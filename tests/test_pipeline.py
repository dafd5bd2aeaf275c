"""The change pipeline: dry run, confirmation, stale reads, locking, backups and undo."""

from __future__ import annotations

import os
import subprocess
import textwrap
import time
from pathlib import Path

import pytest
from forkserver import ForkServer, shared

from filewright import ConfirmRequest, Workspace
from filewright.engine.pipeline import Change, apply_change
from filewright.engine.undo import undo


def _snapshot(path: Path) -> tuple[bytes, int]:
    return path.read_bytes(), path.stat().st_mtime_ns


def test_dry_run_writes_nothing(tmp_path: Path) -> None:
    target = tmp_path / "a.txt"
    target.write_bytes(b"one\r\ntwo\r\n")
    before = _snapshot(target)
    time.sleep(0.01)
    ws = Workspace(tmp_path, dry_run=True)
    tools = ws.toolset("default")
    for tool, args in [
        ("write", {"path": "a.txt", "content": "new\n"}),
        ("edit", {"path": "a.txt", "old_string": "two", "new_string": "2"}),
        ("append", {"path": "a.txt", "content": "three\n"}),
        ("write", {"path": "new/b.txt", "content": "b\n"}),
    ]:
        result = tools.call(tool, args)
        assert result.ok, result.text
        assert result.data["dry_run"] is True
        assert result.data["diff"].startswith("--- a/")
    assert _snapshot(target) == before
    assert not (tmp_path / "new").exists()
    assert not (tmp_path / ".filewright" / "history").exists()


def test_dry_run_diff_shows_the_change(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("alpha\nbeta\n")
    result = (
        Workspace(tmp_path, dry_run=True)
        .toolset("default")
        .call("edit", {"path": "a.txt", "old_string": "beta", "new_string": "gamma"})
    )
    assert "-beta\n+gamma\n" in result.data["diff"]


def _confirm_ws(tmp_path: Path, answer: bool, seen: list[ConfirmRequest]) -> Workspace:
    (tmp_path / ".filewright.toml").write_text('[[rules]]\npattern = "*.cfg"\naccess = "confirm"\n')

    def confirm(request: ConfirmRequest) -> bool:
        seen.append(request)
        return answer

    return Workspace(tmp_path, confirm=confirm)


def test_confirmation_approve(tmp_path: Path) -> None:
    (tmp_path / "app.cfg").write_text("debug = false\n")
    seen: list[ConfirmRequest] = []
    tools = _confirm_ws(tmp_path, True, seen).toolset("default")
    result = tools.call("edit", {"path": "app.cfg", "old_string": "false", "new_string": "true"})
    assert result.ok, result.text
    assert (tmp_path / "app.cfg").read_text() == "debug = true\n"
    assert len(seen) == 1
    request = seen[0]
    assert request.path == str(tmp_path / "app.cfg")
    assert request.operation == "edit" and request.risk == "high" and not request.created
    assert "-debug = false\n+debug = true\n" in request.diff


def test_confirmation_reject(tmp_path: Path) -> None:
    (tmp_path / "app.cfg").write_text("debug = false\n")
    seen: list[ConfirmRequest] = []
    tools = _confirm_ws(tmp_path, False, seen).toolset("default")
    before = _snapshot(tmp_path / "app.cfg")
    result = tools.call("write", {"path": "app.cfg", "content": "debug = true\n"})
    assert not result.ok
    assert result.data["error"] == "rejected"
    assert "rejected" in result.text
    assert _snapshot(tmp_path / "app.cfg") == before
    # creation needs confirmation as well
    result = tools.call("write", {"path": "new.cfg", "content": "x\n"})
    assert not result.ok and not (tmp_path / "new.cfg").exists()
    assert seen[-1].created and seen[-1].risk == "medium"
    # files without a confirm rule are not asked about
    assert tools.call("write", {"path": "free.txt", "content": "x\n"}).ok
    assert len(seen) == 2


def test_stale_edit_refused_then_succeeds_after_reread(tmp_path: Path) -> None:
    target = tmp_path / "notes.md"
    target.write_text("status: draft\nowner: ann\n")
    tools = Workspace(tmp_path).toolset("default")
    assert tools.call("read", {"path": "notes.md"}).ok
    target.write_text("status: draft\nowner: bob\n")  # someone else edits
    result = tools.call("edit", {"path": "notes.md", "old_string": "draft", "new_string": "final"})
    assert not result.ok
    assert result.data["error"] == "stale"
    assert "read it again" in result.text
    assert target.read_text() == "status: draft\nowner: bob\n"
    assert tools.call("read", {"path": "notes.md"}).ok
    result = tools.call("edit", {"path": "notes.md", "old_string": "draft", "new_string": "final"})
    assert result.ok, result.text
    assert target.read_text() == "status: final\nowner: bob\n"
    # the agent's own edit keeps its view fresh: a second edit needs no re-read
    assert tools.call("edit", {"path": "notes.md", "old_string": "bob", "new_string": "cy"}).ok


def test_expected_hash_is_optimistic_locking(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("v1\n")
    tools = Workspace(tmp_path).toolset("default")
    digest = tools.call("read", {"path": "a.txt"}).data["hash"]
    assert not tools.call(
        "write", {"path": "a.txt", "content": "v2\n", "expected_hash": "0" * 64}
    ).ok
    assert tools.call("write", {"path": "a.txt", "content": "v2\n", "expected_hash": digest}).ok


def test_change_hash_rechecked_under_lock(tmp_path: Path) -> None:
    """A change computed from stale content is recomputed, not written blindly."""
    target = tmp_path / "a.txt"
    target.write_text("a\nb\n")
    ws = Workspace(tmp_path)
    engine = ws.engine()
    calls: list[str | None] = []

    def compute(old: str | None) -> str:
        calls.append(old)
        if len(calls) == 1:
            target.write_text("a\nb\nexternal\n")  # lands between load and commit
        return (old or "") + "mine\n"

    outcome = apply_change(engine, Change("a.txt", "append", compute))
    assert outcome.ok
    assert target.read_text() == "a\nb\nexternal\nmine\n"
    assert len(calls) == 2


@pytest.mark.parametrize(
    ("meanwhile", "must_exist", "expected_calls", "expected"),
    [
        ("same bytes", False, ["a\n"], "a\nmine\n"),  # rewritten unchanged: no recompute
        ("deleted", False, ["a\n", None], "mine\n"),  # gone: computed again from nothing
        ("deleted", True, ["a\n", None], None),  # gone, and the change needs it: refused
    ],
)
def test_change_rechecked_under_lock_when_the_file_is_rewritten_or_deleted(
    tmp_path: Path,
    meanwhile: str,
    must_exist: bool,
    expected_calls: list[str | None],
    expected: str | None,
) -> None:
    target = tmp_path / "a.txt"
    target.write_text("a\n")
    engine = Workspace(tmp_path).engine()
    calls: list[str | None] = []

    def compute(old: str | None) -> str:
        calls.append(old)
        if len(calls) == 1:
            if meanwhile == "deleted":
                target.unlink()
            else:
                target.write_text("a\n")
        return (old or "") + "mine\n"

    outcome = apply_change(engine, Change("a.txt", "append", compute, must_exist=must_exist))
    assert calls == expected_calls[: len(calls)] and len(calls) <= len(expected_calls)
    if expected is None:
        assert not outcome.ok and outcome.failure is not None
        assert outcome.failure.code == "not_found" and not target.exists()
    else:
        assert outcome.ok and target.read_text() == expected


@pytest.mark.parametrize("must_not_exist", [False, True])
def test_a_file_created_by_another_process_meanwhile_is_not_overwritten(
    tmp_path: Path, must_not_exist: bool
) -> None:
    target = tmp_path / "new.txt"
    engine = Workspace(tmp_path).engine()
    calls: list[str | None] = []

    def compute(old: str | None) -> str:
        calls.append(old)
        if len(calls) == 1:
            target.write_text("theirs\n")  # created after resolve, before the lock
        return (old or "") + "mine\n"

    change = Change("new.txt", "append", compute, must_not_exist=must_not_exist)
    outcome = apply_change(engine, change)
    if must_not_exist:
        assert not outcome.ok and outcome.failure is not None
        assert outcome.failure.code == "exists"
        assert target.read_text() == "theirs\n"
    else:
        assert outcome.ok, outcome.failure
        assert calls == [None, "theirs\n"]
        assert target.read_text() == "theirs\nmine\n"


def test_a_path_longer_than_path_max_is_refused_and_builds_nothing(tmp_path: Path) -> None:
    """The descriptor walk has no PATH_MAX; the check under the lock keeps the limit, so
    no tree is built that ordinary tools (and shutil.rmtree) cannot remove."""
    engine = Workspace(tmp_path).engine()
    deep = "d/" * 2100 + "x.txt"
    change = Change(deep, "write", lambda _old: "x\n", create_parents=True)
    outcome = apply_change(engine, change)
    assert not outcome.ok and outcome.failure is not None
    assert not (tmp_path / "d").exists()


WORKER = textwrap.dedent(
    """
    import sys
    from filewright import Workspace
    root, index, count = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    tools = Workspace(root).toolset("default")
    for i in range(count):
        old = f"line {index}-{i} todo"
        r = tools.call("edit", {"path": "shared.txt", "old_string": old, "new_string": f"line {index}-{i} done"})
        if not r.ok:
            print(r.text, file=sys.stderr)
            sys.exit(1)
    """
)


@pytest.fixture(scope="module")
def forks(request: pytest.FixtureRequest) -> ForkServer:
    return shared(request.session)


def test_concurrent_processes_lose_no_update(tmp_path: Path, forks: ForkServer) -> None:
    """Eight processes edit one file at once. They are forked from the test process's
    warm interpreter (tests/forkserver.py): each is a process of its own, without the
    start-up of a new interpreter."""
    procs, edits = 8, 100
    lines = [f"line {p}-{i} todo" for p in range(procs) for i in range(edits)]
    (tmp_path / "shared.txt").write_text("\n".join(lines) + "\n")
    running = [
        forks.spawn(["worker", str(tmp_path), str(p), str(edits)], WORKER, text=True)
        for p in range(procs)
    ]
    for proc in running:
        _, err = proc.communicate(timeout=240)
        assert proc.wait() == 0, err
    final = (tmp_path / "shared.txt").read_text().splitlines()
    assert final == [line.replace("todo", "done") for line in lines]


@pytest.mark.parametrize("tool", ["write", "edit", "append"])
def test_undo_restores_exact_previous_bytes(tmp_path: Path, tool: str) -> None:
    target = tmp_path / "f.txt"
    original = "première ligne\r\nsecond\r\n".encode("cp1252")
    target.write_bytes(original)
    os.chmod(target, 0o640)
    tools = Workspace(tmp_path).toolset("default")
    args = {
        "write": {"path": "f.txt", "content": "replaced\n"},
        "edit": {"path": "f.txt", "old_string": "second", "new_string": "deuxième"},
        "append": {"path": "f.txt", "content": "troisième\n"},
    }[tool]
    assert tools.call(tool, args).ok
    assert target.read_bytes() != original
    result = tools.call("undo", {"path": "f.txt"})
    assert result.ok, result.text
    assert target.read_bytes() == original
    assert target.stat().st_mode & 0o777 == 0o640
    assert not tools.call("undo", {"path": "f.txt"}).ok  # nothing left


def test_undo_of_creation_removes_the_file(tmp_path: Path) -> None:
    tools = Workspace(tmp_path).toolset("default")
    assert tools.call("write", {"path": "new.txt", "content": "x\n"}).ok
    assert tools.call("undo", {"path": "new.txt"}).ok
    assert not (tmp_path / "new.txt").exists()


def test_undo_walks_back_and_history_is_capped(tmp_path: Path) -> None:
    ws = Workspace(tmp_path, keep_backups=10)
    tools = ws.toolset("default")
    versions = [f"v{i}\n" for i in range(15)]
    for text in versions:
        assert tools.call("write", {"path": "h.txt", "content": text}).ok
    entries = ws.history.entries(str((tmp_path / "h.txt").resolve()))
    assert len(entries) == 10
    backups = list((tmp_path / ".filewright" / "history").rglob("*.bak"))
    assert len(backups) == 10
    for expected in reversed(versions[4:14]):
        assert tools.call("undo", {"path": "h.txt"}).ok
        assert (tmp_path / "h.txt").read_text() == expected
    assert not tools.call("undo", {"path": "h.txt"}).ok


def test_undo_refuses_to_lose_an_external_change(tmp_path: Path) -> None:
    tools = Workspace(tmp_path).toolset("default")
    assert tools.call("write", {"path": "a.txt", "content": "1\n"}).ok
    (tmp_path / "a.txt").write_text("someone else\n")
    result = tools.call("undo", {"path": "a.txt"})
    assert not result.ok and result.data["error"] == "stale"
    assert (tmp_path / "a.txt").read_text() == "someone else\n"


def test_undo_engine_dry_run(tmp_path: Path) -> None:
    ws = Workspace(tmp_path)
    assert ws.toolset("default").call("write", {"path": "a.txt", "content": "1\n"}).ok
    outcome = undo(ws.engine(), "a.txt", dry_run=True)
    assert outcome.ok and outcome.dry_run
    assert (tmp_path / "a.txt").exists()


def test_cli_undo_and_history(tmp_path: Path, forks: ForkServer) -> None:
    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return forks.run(["filewright", *args, "--root", str(tmp_path)], timeout=120)

    (tmp_path / "a.txt").write_text("old\n")
    assert run("call", "write", '{"path": "a.txt", "content": "new\\n"}').returncode == 0
    hist = run("history", "a.txt")
    assert hist.returncode == 0 and '"operation": "write"' in hist.stdout
    assert run("undo", "a.txt").returncode == 0
    assert (tmp_path / "a.txt").read_text() == "old\n"
    assert run("undo", "a.txt").returncode == 1


def test_watcher_reports_external_change(tmp_path: Path) -> None:
    (tmp_path / "w.txt").write_text("1\n")
    with Workspace(tmp_path, watch=True) as ws:
        tools = ws.toolset("default")
        assert tools.call("read", {"path": "w.txt"}).ok
        assert tools.call(
            "write", {"path": "w.txt", "content": "2\n"}
        ).ok  # own write: not external
        (tmp_path / "w.txt").write_text("3\n")
        deadline = time.monotonic() + 10
        changed: list[Path] = []
        while time.monotonic() < deadline and not changed:
            time.sleep(0.05)
            changed = ws.external_changes()
        assert changed == [(tmp_path / "w.txt").resolve()]
        assert ws.external_changes() == []
