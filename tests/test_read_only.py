"""Read-only files survive every toolset.

The atomic rename that replaces a file needs only the directory's permission, so a
file the caller could not write in place must be refused before it: a mode-444 file, a
file owned by someone else without write permission for the caller, and a file with no
write bit at all even for root (unless the toolset option `allow_read_only` says so).

Run as an unprivileged user: when the tests run as root, each case runs in a forked child
that drops to `nobody` (uid/gid 65534) before it touches the files; as another user the
tests are already unprivileged.
"""

from __future__ import annotations

import json
import os
import shutil
import stat
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from filewright import Workspace

NOBODY = 65534
ORIGINAL = "alpha = 1\nbeta = 2\n"

# (toolset, options, calls): the calls that would replace `name`; a read first where the
# toolset demands one. `{f}` is the file's absolute path.
Call = tuple[str, dict[str, Any]]
CASES: dict[str, tuple[str, dict[str, Any], list[Call], list[Call]]] = {
    "claude-Write": (
        "claude",
        {},
        [("Read", {"file_path": "{f}"})],
        [("Write", {"file_path": "{f}", "content": "new\n"})],
    ),
    "claude-Edit": (
        "claude",
        {},
        [("Read", {"file_path": "{f}"})],
        [("Edit", {"file_path": "{f}", "old_string": "alpha", "new_string": "gamma"})],
    ),
    "claude-MultiEdit": (
        "claude",
        {},
        [("Read", {"file_path": "{f}"})],
        [
            (
                "MultiEdit",
                {"file_path": "{f}", "edits": [{"old_string": "alpha", "new_string": "g"}]},
            )
        ],
    ),
    "worker-write_file": ("worker", {}, [], [("write_file", {"path": "{f}", "content": "x"})]),
    "worker-append": ("worker", {}, [], [("append_to_file", {"path": "{f}", "content": "x"})]),
    "worker-replace": (
        "worker",
        {},
        [],
        [("replace_in_file", {"path": "{f}", "old": "alpha", "new": "gamma"})],
    ),
    "gemini-write_file": (
        "gemini",
        {},
        [("read_file", {"path": "{f}"})],
        [("write_file", {"file_path": "{f}", "content": "x"})],
    ),
    "gemini-replace": (
        "gemini",
        {},
        [("read_file", {"path": "{f}"})],
        [("replace", {"file_path": "{f}", "old_string": "alpha", "new_string": "gamma"})],
    ),
    "companion-write": (
        "companion",
        {},
        [("read", {"path": "{f}"})],
        [("write", {"path": "{f}", "content": "x"})],
    ),
    "companion-edit": (
        "companion",
        {},
        [("read", {"path": "{f}"})],
        [("edit", {"path": "{f}", "oldText": "alpha", "newText": "gamma"})],
    ),
    "memo-literal": (
        "memo",
        {"document": "{f}"},
        [("memo_read", {})],
        [("memo_replace_literal", {"old_text": "alpha", "new_text": "gamma"})],
    ),
    "memo-span": (
        "memo",
        {"document": "{f}"},
        [("memo_read", {})],
        [("memo_replace_span", {"old_span_start": "alpha", "old_span_end": "2", "new_text": "g"})],
    ),
    "text_editor-str_replace": (
        "text_editor",
        {},
        [("str_replace_based_edit_tool", {"command": "view", "path": "{f}"})],
        [
            (
                "str_replace_based_edit_tool",
                {"command": "str_replace", "path": "{f}", "old_str": "alpha", "new_str": "g"},
            )
        ],
    ),
    "text_editor-insert": (
        "text_editor",
        {},
        [("str_replace_based_edit_tool", {"command": "view", "path": "{f}"})],
        [
            (
                "str_replace_based_edit_tool",
                {"command": "insert", "path": "{f}", "insert_line": 1, "new_str": "x"},
            )
        ],
    ),
    "default-write": (
        "default",
        {},
        [("read", {"path": "{f}"})],
        [("write", {"path": "{f}", "content": "x"})],
    ),
    "default-edit": (
        "default",
        {},
        [("read", {"path": "{f}"})],
        [("edit", {"path": "{f}", "old_string": "alpha", "new_string": "gamma"})],
    ),
    "default-append": ("default", {}, [], [("append", {"path": "{f}", "content": "x"})]),
}


def _fill(value: Any, f: str) -> Any:
    if isinstance(value, str):
        return value.replace("{f}", f)
    if isinstance(value, list):
        return [_fill(v, f) for v in value]
    if isinstance(value, dict):
        return {k: _fill(v, f) for k, v in value.items()}
    return value


def run_case(root: Path, target: Path, case: str, **extra: Any) -> list[dict[str, Any]]:
    """Run a case's calls in a fresh workspace; return each write call's result."""
    toolset_name, options, reads, writes = CASES[case]
    f = str(target)
    ws = Workspace(root, confirm=True)
    toolset = ws.toolset(toolset_name, **_fill(options, f), **extra)
    for tool, args in reads:
        toolset.call(tool, _fill(args, f))
    out = []
    for tool, args in writes:
        result = toolset.call(tool, _fill(args, f))
        out.append({"ok": result.ok, "text": result.text, "data": result.data})
    return out


def as_nobody(fn: Callable[[], Any]) -> Any:
    """Run `fn` as an unprivileged user: in a forked child that drops to nobody when this
    process is root, else here. Its value travels back as JSON."""
    if os.geteuid() != 0:
        return fn()
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        os.close(read_end)
        status = 0
        try:
            os.setgroups([])
            os.setresgid(NOBODY, NOBODY, NOBODY)
            os.setresuid(NOBODY, NOBODY, NOBODY)
            os.environ["HOME"] = "/nonexistent"  # nobody's home, as runuser would set it
            os.environ.pop("XDG_CONFIG_HOME", None)
            payload = {"value": fn()}
        except BaseException as exc:  # report everything to the parent
            payload, status = {"exception": f"{type(exc).__name__}: {exc}"}, 1
        with os.fdopen(write_end, "w") as out:
            json.dump(payload, out)
        os._exit(status)
    os.close(write_end)
    with os.fdopen(read_end) as inp:
        raw = inp.read()
    os.waitpid(pid, 0)
    payload = json.loads(raw)
    assert "exception" not in payload, payload.get("exception")
    return payload["value"]


@pytest.fixture
def shared_root() -> Iterator[Path]:
    """A workspace root anyone may write in (pytest's own temp dirs are private to root)."""
    base = Path(tempfile.mkdtemp(prefix="fw-readonly-"))
    base.chmod(0o777)
    yield base
    shutil.rmtree(base, ignore_errors=True)


@pytest.fixture(scope="module", autouse=True)
def _warm_imports(tmp_path_factory: pytest.TempPathFactory) -> None:
    """Import everything the cases need while the interpreter's files are readable (an
    unprivileged child cannot read the root user's Python installation)."""
    root = tmp_path_factory.mktemp("warm")
    for case in CASES:
        target = root / f"{case}.md"
        target.write_text(ORIGINAL)
        run_case(root, target, case)
        if CASES[case][0] == "memo":
            run_case(root, target, case)  # the second one fails: its failure path too


def _unchanged(target: Path, mode: int) -> None:
    assert target.read_text() == ORIGINAL
    assert stat.S_IMODE(target.stat().st_mode) == mode
    leftovers = [p.name for p in target.parent.iterdir() if p.name.endswith(".fwtmp")]
    assert leftovers == []


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_mode_444_file_of_ones_own_is_not_replaced(shared_root: Path, case: str) -> None:
    target = shared_root / "notes.md"
    target.write_text(ORIGINAL)
    if os.geteuid() == 0:
        os.chown(target, NOBODY, NOBODY)
    target.chmod(0o444)
    results = as_nobody(lambda: run_case(shared_root, target, case))
    assert [r["ok"] for r in results] == [False] * len(results), results
    _unchanged(target, 0o444)


@pytest.mark.parametrize("case", sorted(CASES))
def test_someone_elses_file_without_write_permission_is_not_replaced(
    shared_root: Path, case: str
) -> None:
    if os.geteuid() != 0:
        pytest.skip("needs root to make a file owned by another user")
    target = shared_root / "notes.md"
    target.write_text(ORIGINAL)
    target.chmod(0o644)  # root's file, in a directory nobody may write in
    results = as_nobody(lambda: run_case(shared_root, target, case))
    assert [r["ok"] for r in results] == [False] * len(results), results
    _unchanged(target, 0o644)


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_file_without_write_bits_is_read_only_for_root_too(tmp_path: Path, case: str) -> None:
    target = tmp_path / "notes.md"
    target.write_text(ORIGINAL)
    target.chmod(0o444)
    results = run_case(tmp_path, target, case)
    assert [r["ok"] for r in results] == [False] * len(results), results
    _unchanged(target, 0o444)


@pytest.mark.parametrize("case", ["claude-Write", "worker-write_file", "default-edit"])
def test_allow_read_only_is_the_explicit_way_to_replace_one(tmp_path: Path, case: str) -> None:
    if os.geteuid() != 0:
        pytest.skip("only root can replace a file without write bits")
    target = tmp_path / "notes.md"
    target.write_text(ORIGINAL)
    target.chmod(0o444)
    results = run_case(tmp_path, target, case, allow_read_only=True)
    assert all(r["ok"] for r in results), results
    assert target.read_text() != ORIGINAL
    assert stat.S_IMODE(target.stat().st_mode) == 0o444  # its mode is kept


def test_claude_write_says_what_the_seed_says(shared_root: Path) -> None:
    """claude seed, WriteTool.handleError: EACCES -> PERMISSION_DENIED, 'Permission denied'."""
    target = shared_root / "notes.md"
    target.write_text(ORIGINAL)
    if os.geteuid() == 0:
        os.chown(target, NOBODY, NOBODY)
    target.chmod(0o444)
    (result,) = as_nobody(lambda: run_case(shared_root, target, "claude-Write"))
    assert result["text"] == "Permission denied"
    assert result["data"]["code"] == "PERMISSION_DENIED"
    assert result["data"]["message"] == "Permission denied"


def test_worker_write_file_says_what_the_seed_says(shared_root: Path) -> None:
    """worker seed, error table: write_file, 权限不足 -> 'Permission denied: /path/to/.env'."""
    target = shared_root / ".env"
    target.write_text(ORIGINAL)
    target.chmod(0o644)
    if os.geteuid() != 0:
        target.chmod(0o444)
    (result,) = as_nobody(lambda: run_case(shared_root, target, "worker-write_file"))
    assert result["ok"] is False
    assert result["text"] == f"Permission denied: {target}"
    assert target.read_text() == ORIGINAL


def test_a_writable_file_is_still_written_by_an_unprivileged_user(shared_root: Path) -> None:
    target = shared_root / "notes.md"
    target.write_text(ORIGINAL)
    if os.geteuid() == 0:
        os.chown(target, NOBODY, NOBODY)
    target.chmod(0o640)
    (result,) = as_nobody(lambda: run_case(shared_root, target, "claude-Edit"))
    assert result["ok"], result
    assert target.read_text() == "gamma = 1\nbeta = 2\n"
    assert stat.S_IMODE(target.stat().st_mode) == 0o640
