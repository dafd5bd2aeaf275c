"""The real `filewright` command, run in a subprocess: the public contract of design.md.

Each command is a process forked from a warm interpreter (tests/forkserver.py: the
command's `main`, the console script's entry point, with the same arguments, directory,
environment and stdin); tests/test_cli_fastpath.py runs the installed script from scratch.

filewright call [--root DIR]... [--toolset NAME] [--dry-run] [--yes] TOOL ['JSON-ARGS']
exit status 0 when ok, 1 when the tool reported a failure, 2 for a usage error
"""

from __future__ import annotations

import json
import os
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from forkserver import ForkServer, shared


@dataclass(frozen=True)
class Run:
    returncode: int
    stdout: str
    stderr: str

    @property
    def json(self) -> dict[str, Any]:
        lines = self.stdout.strip().splitlines()
        assert len(lines) == 1, f"expected one JSON line on stdout, got:\n{self.stdout}"
        value = json.loads(lines[0])
        assert isinstance(value, dict)
        return value


@pytest.fixture(scope="module")
def forks(request: pytest.FixtureRequest) -> ForkServer:
    return shared(request.session)


def run(forks: ForkServer, *args: str, cwd: Path | None = None, stdin: str | None = None) -> Run:
    env = {**os.environ, "NO_COLOR": "1", "COLUMNS": "200"}
    done = forks.run(["filewright", *args], input=stdin, cwd=cwd, env=env, timeout=120)
    assert "Traceback" not in done.stdout + done.stderr, done.stdout + done.stderr
    return Run(done.returncode, done.stdout, done.stderr)


def _state(path: Path) -> tuple[bytes, int]:
    return path.read_bytes(), path.stat().st_mtime_ns


# -- success and tool failure ------------------------------------------------------------------


def test_write_append_read(tmp_path: Path, forks: ForkServer) -> None:
    root = ["--root", str(tmp_path)]
    done = run(forks, "call", *root, "write", '{"path": "notes/a.txt", "content": "héllo\\n"}')
    assert done.returncode == 0, done
    result = done.json
    assert result["ok"] is True
    assert set(result) == {"ok", "text", "data"}
    assert result["data"]["path"] == str(tmp_path / "notes" / "a.txt")
    assert (tmp_path / "notes" / "a.txt").read_bytes() == "héllo\n".encode()

    done = run(forks, "call", *root, "append", '{"path": "notes/a.txt", "content": "wörld\\n"}')
    assert done.returncode == 0, done
    assert done.json["ok"] is True
    assert (tmp_path / "notes" / "a.txt").read_bytes() == "héllo\nwörld\n".encode()

    # cwd is the default root; arguments may come on stdin with '-'
    done = run(forks, "call", "read", "-", cwd=tmp_path, stdin='{"path": "notes/a.txt"}')
    assert done.returncode == 0, done
    result = done.json
    assert result["ok"] is True
    assert "héllo" in result["text"] and "wörld" in result["text"]


def test_tool_failure_exits_1(tmp_path: Path, forks: ForkServer) -> None:
    done = run(forks, "call", "--root", str(tmp_path), "read", '{"path": "missing.txt"}')
    assert done.returncode == 1, done
    result = done.json
    assert result["ok"] is False
    assert result["data"]["error"] == "not_found"
    assert "missing.txt" in result["text"]

    done = run(forks, "call", "--root", str(tmp_path), "read", '{"path": "../outside.txt"}')
    assert done.returncode == 1, done
    assert done.json["data"]["error"] == "outside"


# -- usage errors --------------------------------------------------------------------------------

# (id, arguments after `filewright`, a word the one-line error must contain)
USAGE: list[tuple[str, list[str], str]] = [
    ("invalid-json", ["call", "read", "{bad"], "json"),
    ("json-not-object", ["call", "read", "[1, 2]"], "object"),
    ("unknown-tool", ["call", "nosuch", "{}"], "nosuch"),
    ("missing-argument", ["call", "write", '{"path": "x.txt"}'], "content"),
    ("mistyped-argument", ["call", "write", '{"path": 1, "content": "x"}'], "path"),
    ("unexpected-argument", ["call", "read", '{"path": "x", "bogus": 1}'], "bogus"),
    ("unknown-toolset", ["call", "--toolset", "nosuch", "read", "{}"], "nosuch"),
    (
        "missing-root",
        ["call", "--root", "/nonexistent/filewright-root", "read", '{"path": "x"}'],
        "nonexistent",
    ),
    ("unknown-format", ["tools", "--format", "nosuch"], "nosuch"),
    # found by the option parser before any tool code runs
    ("unknown-option", ["call", "--nosuch", "read", "{}"], "--nosuch"),
    ("missing-tool", ["call"], "tool"),
    ("bad-locale", ["call", "--locale", "fr", "read", "{}"], "locale"),
    ("option-missing-value", ["call", "read", '{"path": "x.txt"}', "--toolset"], "toolset"),
    ("unknown-command", ["nosuchcommand"], "nosuchcommand"),
]


@pytest.fixture(scope="module")
def usage_runs(tmp_path_factory: pytest.TempPathFactory, forks: ForkServer) -> dict[str, Run]:
    """All usage-error cases, run concurrently once (each is a separate process)."""
    root = tmp_path_factory.mktemp("usage")
    (root / "x.txt").write_text("x\n")
    cases = USAGE

    def one(args: list[str]) -> Run:
        if args and args[0] == "call" and "--root" not in args:
            args = [args[0], "--root", str(root), *args[1:]]
        return run(forks, *args, cwd=root)

    with ThreadPoolExecutor(max_workers=4) as pool:
        results = list(pool.map(one, [c[1] for c in cases]))
    return {case[0]: done for case, done in zip(cases, results, strict=True)}


@pytest.mark.parametrize(("name", "args", "word"), USAGE, ids=[c[0] for c in USAGE])
def test_usage_error_exits_2_with_one_line(
    usage_runs: dict[str, Run], name: str, args: list[str], word: str
) -> None:
    done = usage_runs[name]
    assert done.returncode == 2, done
    assert "Traceback" not in done.stdout + done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, f"expected a one-line error, got:\n{done.stderr}"
    assert word.lower() in lines[0].lower(), lines[0]
    if done.stdout.strip():
        assert done.json["ok"] is False


# -- dry run, roots, definitions, confirmation ---------------------------------------------------


def test_dry_run_writes_nothing(tmp_path: Path, forks: ForkServer) -> None:
    target = tmp_path / "keep.txt"
    target.write_bytes(b"one\r\ntwo\r\n")
    os.utime(target, ns=(1_000_000_000, 1_000_000_000))
    before = _state(target)
    args = ["call", "--root", str(tmp_path), "--dry-run"]
    done = run(forks, *args, "write", '{"path": "keep.txt", "content": "changed\\n"}')
    assert done.returncode == 0, done
    result = done.json
    assert result["ok"] is True and result["data"]["dry_run"] is True
    assert "-two" in result["data"]["diff"]
    done = run(forks, *args, "write", '{"path": "new/file.txt", "content": "x\\n"}')
    assert done.returncode == 0, done
    assert _state(target) == before
    assert not (tmp_path / "new").exists()
    assert sorted(p.name for p in tmp_path.iterdir() if p.name != ".filewright") == ["keep.txt"]


def test_multiple_roots(tmp_path: Path, forks: ForkServer) -> None:
    first, second = tmp_path / "first", tmp_path / "second"
    first.mkdir()
    second.mkdir()
    (tmp_path / "outside.txt").write_text("outside\n")
    roots = ["--root", str(first), "--root", str(second)]
    done = run(forks, "call", *roots, "write", '{"path": "rel.txt", "content": "1\\n"}')
    assert done.returncode == 0, done
    assert (first / "rel.txt").read_text() == "1\n"
    assert not (second / "rel.txt").exists()
    args = json.dumps({"path": str(second / "abs.txt"), "content": "2\n"})
    done = run(forks, "call", *roots, "write", args)
    assert done.returncode == 0, done
    assert (second / "abs.txt").read_text() == "2\n"
    args = json.dumps({"path": str(tmp_path / "outside.txt"), "content": "3\n"})
    done = run(forks, "call", *roots, "write", args)
    assert done.returncode == 1, done
    assert done.json["data"]["error"] == "outside"
    assert (tmp_path / "outside.txt").read_text() == "outside\n"


def test_tools_prints_json_definitions_without_a_tty(tmp_path: Path, forks: ForkServer) -> None:
    done = run(forks, "tools", cwd=tmp_path)
    assert done.returncode == 0, done
    definitions = json.loads(done.stdout)
    assert isinstance(definitions, list)
    names = {d["function"]["name"] for d in definitions}
    assert {"read", "write", "edit", "append"} <= names
    done = run(forks, "tools", "--format", "anthropic", cwd=tmp_path)
    assert done.returncode == 0, done
    assert {"read", "write"} <= {d["name"] for d in json.loads(done.stdout)}


def _confirm_workspace(tmp_path: Path) -> Path:
    (tmp_path / ".filewright.toml").write_text(
        '[[rules]]\npattern = "needs-ok.txt"\naccess = "confirm"\n', encoding="utf-8"
    )
    target = tmp_path / "needs-ok.txt"
    target.write_text("before\n")
    return target


def test_confirmation_refused_without_yes_and_without_a_tty(
    tmp_path: Path, forks: ForkServer
) -> None:
    target = _confirm_workspace(tmp_path)
    before = _state(target)
    args = [
        "call",
        "--root",
        str(tmp_path),
        "write",
        '{"path": "needs-ok.txt", "content": "after\\n"}',
    ]
    done = run(forks, *args)  # stdin is /dev/null: nobody can be asked
    assert done.returncode == 1, done
    result = done.json
    assert result["ok"] is False
    assert result["data"]["error"] == "no_confirmation"
    assert "confirm" in result["text"].lower()
    assert _state(target) == before


def test_yes_approves(tmp_path: Path, forks: ForkServer) -> None:
    target = _confirm_workspace(tmp_path)
    done = run(
        forks,
        "call",
        "--root",
        str(tmp_path),
        "--yes",
        "write",
        '{"path": "needs-ok.txt", "content": "after\\n"}',
    )
    assert done.returncode == 0, done
    assert done.json["ok"] is True
    assert target.read_text() == "after\n"
