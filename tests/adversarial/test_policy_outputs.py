"""Every way out of the engine gives the same verdict for the same file (issue 22, 1/2/4/5).

A `deny` or `hidden` file's lines and name never come back from a search, listing or
count of any toolset, over either search engine, also with context lines and through a
nested root; protected names are refused as files and as directories, in any case, for
every toolset that writes.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from forkserver import ForkServer, shared

from filewright import Workspace
from filewright.search import ripgrep

from .support import TOOLSETS, as_given, toolset, write_calls

SECRET_LINE = "password=hunter2"
POLICY = """
[[rules]]
pattern = "creds.txt"
access = "deny"

[[rules]]
pattern = "vault/"
access = "hidden"

[[rules]]
pattern = "inner/private.txt"
access = "hidden"
"""


def _search_calls(ts_name: str, path: str) -> list[tuple[str, dict[str, Any]]]:
    """Every search and listing of a toolset over `path`, with context where it exists."""
    if ts_name == "default":
        return [
            ("grep", {"pattern": "user", "path": path, "context": 2}),
            ("grep", {"pattern": "hunter|user", "path": path}),
            ("glob", {"pattern": "**/*", "path": path}),
            ("list", {"path": path}),
            ("list", {"path": path + "/inner"}),
        ]
    if ts_name == "gemini":
        return [
            ("search_file_content", {"pattern": "user", "path": path}),
            ("search_file_content", {"pattern": "hunter", "path": path}),
            ("glob", {"pattern": "**/*", "path": path}),
            ("list_directory", {"path": path}),
            ("list_directory", {"path": path + "/inner"}),
        ]
    if ts_name == "text_editor":
        return [
            ("str_replace_editor", {"command": "view", "path": path}),
            ("str_replace_editor", {"command": "view", "path": path + "/inner"}),
        ]
    return []


def _fill(root: Path) -> None:
    (root / ".filewright.toml").write_text(POLICY)
    (root / "creds.txt").write_text(f"user=admin\n{SECRET_LINE}\n")
    (root / "notes.txt").write_text("user notes\n")
    (root / "vault").mkdir()
    (root / "vault" / "key.txt").write_text(f"user\n{SECRET_LINE}\n")
    (root / "inner").mkdir()
    (root / "inner" / "private.txt").write_text(f"user\n{SECRET_LINE}\n")
    (root / "inner" / "creds.txt").write_text(f"user\n{SECRET_LINE}\n")
    (root / "inner" / "open.txt").write_text("user open\n")


def _blob(result: Any) -> str:
    return result.text + json.dumps(result.data, default=str)


@pytest.fixture(params=["rg", "python"])
def engine(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    if request.param == "python":
        monkeypatch.setattr(ripgrep, "find_rg", lambda: None)
    elif ripgrep.find_rg() is None:
        pytest.skip("ripgrep is not installed")
    return str(request.param)


@pytest.fixture(scope="module")
def forks(request: pytest.FixtureRequest) -> ForkServer:
    """The filewright command is forked from the warm interpreter (tests/forkserver.py)."""
    return shared(request.session)


@pytest.mark.parametrize("ts_name", ["default", "gemini", "text_editor"])
def test_denied_and_hidden_files_never_come_back_from_a_search(
    tmp_path: Path, engine: str, ts_name: str
) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    _fill(root)
    # Nested roots: the inner root reaches the same files under other names.
    ws = Workspace([root, root / "inner"], confirm=True)
    ts = toolset(ws, ts_name)
    calls = _search_calls(ts_name, str(root))
    inner = _search_calls(ts_name, str(root / "inner"))
    for tool, args in [*calls, *inner]:
        result = ts.call(tool, args)
        blob = _blob(result)
        assert SECRET_LINE not in blob, (tool, args, blob)
        assert "creds.txt" not in blob, (tool, args, blob)
        assert "key.txt" not in blob and "private.txt" not in blob, (tool, args, blob)
    # The open files are found, so the searches did run.
    found = ts.call(*calls[0])
    assert "notes" in _blob(found) or ts_name == "text_editor"


def test_nested_roots_agree_on_a_file(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    _fill(root)
    ws = Workspace([root, root / "inner"], confirm=True)
    ts = toolset(ws, "default")
    for path in (str(root / "inner" / "private.txt"), "inner/private.txt"):
        assert not ts.call("read", {"path": path}).ok
    for path in (str(root), str(root / "inner")):
        for tool, args in _search_calls("default", path):
            assert "private.txt" not in _blob(ts.call(tool, args)), (tool, args)


PROTECTED_TARGETS = [
    ".git",
    "sub/.git",
    "sub/.GIT",
    ".Git/config",
    ".vscode/mcp.json",
    ".vscode/tasks.json",
    ".gemini/settings.json",
    "proj.code-workspace",
    ".devcontainer/devcontainer.json",
    ".cargo/config.toml",
    ".husky/pre-commit",
    ".pre-commit-config.yaml",
    ".claude/settings.local.json",
    ".cursor/mcp.json",
    ".idea/runConfigurations/run.xml",
    ".envrc",
    ".claude-backups",
    "sub/.claude-backups/a.txt.2025-01-12T10-30-00-000Z.backup",
]


@pytest.mark.parametrize("ts_name", [t for t in TOOLSETS if t != "memo"])
def test_no_toolset_creates_a_protected_file_or_directory(tmp_path: Path, ts_name: str) -> None:
    root = tmp_path / "ws"
    (root / "sub").mkdir(parents=True)
    ws = Workspace(root, confirm=True)
    ts = toolset(ws, ts_name)
    for target in PROTECTED_TARGETS:
        given = as_given_root(root, ts_name, target)
        for tool, args in write_calls(ts_name, given, "gitdir: notes\n"):
            result = ts.call(tool, args)
            assert not result.ok, (tool, args, result.text)
    created = sorted(
        p.relative_to(root).as_posix() for p in root.rglob("*") if ".filewright" not in p.parts
    )
    assert created == ["sub"], created


def as_given_root(root: Path, ts_name: str, rel: str) -> str:
    class _A:
        pass

    a = _A()
    a.root = root  # type: ignore[attr-defined]
    return as_given(a, ts_name, rel)  # type: ignore[arg-type]


HIDDEN_POLICY = '[[rules]]\npattern = "secret*"\naccess = "hidden"\n'


def _calls_on(ts_name: str, path: str) -> list[tuple[str, dict[str, Any]]]:
    from .support import read_calls

    return [*read_calls(ts_name, path), *write_calls(ts_name, path, "x\n")]


@pytest.mark.parametrize("ts_name", [t for t in TOOLSETS if t != "memo"])
@pytest.mark.parametrize("kind", ["file", "dir", "file-as-parent"])
def test_a_hidden_path_answers_like_a_missing_one(tmp_path: Path, ts_name: str, kind: str) -> None:
    answers = {}
    for exists in (True, False):
        root = tmp_path / f"ws-{exists}"
        root.mkdir()
        (root / ".filewright.toml").write_text(HIDDEN_POLICY)
        rel = "secret.md" if kind != "file-as-parent" else "secret.md/x.md"
        if exists:
            target = root / "secret.md"
            if kind == "dir":
                target.mkdir()
                (target / "x.md").write_text("x\n")
            else:
                target.write_text("# title\nbody\n")
        ws = Workspace(root, confirm=True)
        ts = toolset(ws, ts_name)
        given = as_given_root(root, ts_name, rel)
        got = []
        for tool, args in _calls_on(ts_name, given):
            result = ts.call(tool, args)
            blob = json.dumps([result.ok, result.text, result.data], default=str)
            got.append(blob.replace(str(root), "ROOT"))
        answers[exists] = got
    assert answers[True] == answers[False]


def test_cli_history_names_no_hidden_or_denied_file(tmp_path: Path, forks: ForkServer) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    ts = Workspace(root, confirm=True).toolset("default")
    for name in ("secret.md", "creds.txt", "open.md"):
        assert ts.call("write", {"path": name, "content": "x\n"}).ok
    (root / ".filewright.toml").write_text(
        HIDDEN_POLICY + '[[rules]]\npattern = "creds.txt"\naccess = "deny"\n'
    )
    done = forks.run(["filewright", "history", "--root", str(root)], timeout=60)
    assert done.returncode == 0, done.stderr
    assert "open.md" in done.stdout
    assert "secret.md" not in done.stdout and "creds.txt" not in done.stdout
