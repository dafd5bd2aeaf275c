"""The `call` fast path parses exactly what the typer command accepts, with the same results.

`filewright.surfaces.cli.main.parse_call_argv` handles plain `call` command lines without importing
typer; anything it does not fully understand goes to the typer app. These tests check
that both paths hand `run_call` the same arguments and print the same output (each
command forked from a warm interpreter, tests/forkserver.py), and what a plain `call read`
imports (in a new interpreter each).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from forkserver import ForkServer, shared

from filewright import Workspace
from filewright.surfaces.cli import main as cli

CASES = [
    ["call", "read"],
    ["call", "read", '{"path": "a.txt"}'],
    ["call", "--root", "ws", "read", "{}"],
    ["call", "-r", "ws", "-r", "./other/", "read", "{}"],
    ["call", "--root=ws", "--toolset=claude", "Read", "{}"],
    ["call", "-t", "worker", "--locale", "zh", "--memory", "off", "write_file", "{}"],
    ["call", "--dry-run", "--yes", "--human", "edit", "-"],
    ["call", "--no-progress", "grep", '{"pattern": "x"}'],
    ["call", "read", "{}", "--yes", "-y"],
    ["call", "--", "read", "{}"],
    ["call", "--locale=en", "--memory=on", "read"],
]

FALLBACK = [
    ["call"],
    ["call", "--help"],
    ["call", "-h"],
    ["call", "--bogus", "read"],
    ["call", "--locale", "fr", "read"],
    ["call", "--memory", "maybe", "read"],
    ["call", "--root"],
    ["call", "--root", "--yes", "read"],
    ["call", "-yr", "ws", "read"],
    ["call", "--dry-run=1", "read"],
    ["call", "a", "b", "c"],
    ["tools"],
    ["serve"],
    [],
]


def typer_kwargs(argv: list[str], monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    from filewright.surfaces.cli import app as cli_typer

    seen: dict[str, Any] = {}

    def fake(tool: str, args: str | None, **kwargs: Any) -> int:
        seen.update(tool=tool, args=args, **kwargs)
        return 0

    monkeypatch.setattr(cli_typer, "run_call", fake)
    assert cli_typer.run_app(argv) == 0
    return seen


@pytest.mark.parametrize("argv", CASES, ids=" ".join)
def test_fast_path_equals_typer(argv: list[str], monkeypatch: pytest.MonkeyPatch) -> None:
    fast = cli.parse_call_argv(argv)
    assert fast is not None
    want = typer_kwargs(argv, monkeypatch)
    got = {
        "tool": fast["tool"],
        "args": fast["args"],
        "roots": fast["roots"] or None,
        "toolset": fast["toolset"],
        "locale": fast["locale"],
        "memory": fast["memory"] == "on",
        "dry_run": fast["dry_run"],
        "yes": fast["yes"],
        "human": fast["human"],
        "progress": not fast["no_progress"],
    }
    assert got == want


@pytest.mark.parametrize("argv", FALLBACK, ids=lambda a: " ".join(a) or "(none)")
def test_anything_else_goes_to_typer(argv: list[str]) -> None:
    assert cli.parse_call_argv(argv) is None


@pytest.fixture(scope="module")
def forks(request: pytest.FixtureRequest) -> ForkServer:
    return shared(request.session)


TYPER = (
    "import sys; from filewright.surfaces.cli.app import run_app; sys.exit(run_app(sys.argv[1:]))"
)


def run(forks: ForkServer, argv: list[str], cwd: Path, *, force_typer: bool) -> tuple[int, str]:
    """Status and stdout of `python -c CODE ARGV` (CODE: the typer app, or the command's
    main with its fast path), forked from the warm interpreter, stdin at its end at once."""
    code = TYPER if force_typer else None
    child = forks.spawn(["-c", *argv], code, text=True, cwd=cwd)
    out, _ = child.communicate(timeout=60)
    return child.wait(), out


@pytest.mark.parametrize(
    "argv",
    [
        ["call", "read", '{"path": "a.txt"}'],
        ["call", "read", '{"path": "missing.txt"}'],
        ["call", "read", "not json"],
        ["call", "nope", "{}"],
        [
            "call",
            "--dry-run",
            "edit",
            '{"path": "a.txt", "old_string": "one", "new_string": "two"}',
        ],
        ["call", "--toolset", "nope", "read", "{}"],
        ["call", "--root", "missing-dir", "read", "{}"],
    ],
    ids=" ".join,
)
def test_same_output_and_status_both_ways(
    forks: ForkServer, argv: list[str], tmp_path: Path
) -> None:
    (tmp_path / "a.txt").write_text("one\n", encoding="utf-8")
    fast = run(forks, argv, tmp_path, force_typer=False)
    slow = run(forks, argv, tmp_path, force_typer=True)
    assert fast == slow
    json.loads(fast[1])


# -- `undo` --------------------------------------------------------------------------------

UNDO_CASES = [
    ["undo", "a.txt"],
    ["undo", "--dry-run", "a.txt"],
    ["undo", "a.txt", "--root", "ws", "-r", "./other/", "--yes", "--force", "--json"],
    ["undo", "--root=ws", "--toolset=claude", "-y", "a.txt"],
    ["undo", "-t", "worker", "--", "-a.txt"],
    ["undo", "-"],
]

UNDO_FALLBACK = [
    ["undo"],
    ["undo", "--help"],
    ["undo", "a.txt", "b.txt"],
    ["undo", "--bogus", "a.txt"],
    ["undo", "-yr", "ws", "a.txt"],
    ["undo", "--json=1", "a.txt"],
    ["undo", "--root"],
    ["undo", "--root", "--yes", "a.txt"],
    ["history", "a.txt"],
]


@pytest.mark.parametrize("argv", UNDO_CASES, ids=" ".join)
def test_undo_fast_path_equals_typer(argv: list[str], monkeypatch: pytest.MonkeyPatch) -> None:
    from filewright.surfaces.cli import app as cli_typer

    seen: dict[str, Any] = {}

    def fake(path: str, **kwargs: Any) -> int:
        seen.update(path=path, **kwargs)
        return 0

    monkeypatch.setattr(cli_typer, "undo_command", fake)
    assert cli_typer.run_app(argv) == 0
    assert cli.parse_undo_argv(argv) == seen


@pytest.mark.parametrize("argv", UNDO_FALLBACK, ids=" ".join)
def test_any_other_undo_goes_to_typer(argv: list[str]) -> None:
    assert cli.parse_undo_argv(argv) is None


def test_undo_both_ways(forks: ForkServer, tmp_path: Path) -> None:
    """Same output and status with and without typer (what does not change the files:
    a dry run, nothing to undo, usage errors); a real undo works."""
    tools = Workspace(tmp_path).toolset("default")
    (tmp_path / "a.txt").write_text("one\n", encoding="utf-8")
    assert tools.call("write", {"path": "a.txt", "content": "two\n"}).ok
    for argv in (
        ["undo", "--dry-run", "a.txt"],
        ["undo", "--json", "b.txt"],
        ["undo", "--toolset", "nope", "a.txt"],
        ["undo", "--root", "missing-dir", "a.txt"],
    ):
        fast = run(forks, argv, tmp_path, force_typer=False)
        assert fast == run(forks, argv, tmp_path, force_typer=True), argv
        json.loads(fast[1])
    status, out = run(forks, ["undo", "a.txt"], tmp_path, force_typer=False)
    assert status == 0 and json.loads(out)["ok"] is True
    assert (tmp_path / "a.txt").read_text(encoding="utf-8") == "one\n"


def test_undo_does_not_import_typer(tmp_path: Path) -> None:
    """`filewright undo` starts without typer, click and pydantic (~0.2 s to import)."""
    (tmp_path / "a.txt").write_text("one\n", encoding="utf-8")
    code = (
        "import sys\n"
        "from filewright.surfaces.cli.main import main\n"
        "try:\n    main(['undo', 'a.txt'])\nexcept SystemExit:\n    pass\n"
        "print(sorted(m for m in ('typer', 'click', 'pydantic', 'rich') if m in sys.modules), "
        "file=sys.stderr)\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=60
    )
    assert json.loads(proc.stdout)["data"]["error"] == "no_history", proc.stdout
    assert proc.stderr.strip() == "[]"


def test_usage_errors_print_json_and_one_stderr_line(tmp_path: Path) -> None:
    proc = subprocess.run(
        [
            sys.executable,
            "-c",
            "from filewright.surfaces.cli.main import main; main()",
            "call",
            "--bogus",
            "read",
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 2
    assert json.loads(proc.stdout) == {
        "ok": False,
        "text": "No such option: --bogus (see filewright call --help)",
        "data": {"error": "usage"},
    }
    assert proc.stderr == "filewright: No such option: --bogus (see filewright call --help)\n"


def _plain_read(tmp_path: Path, report: str) -> str:
    """Run `filewright call read a.txt` in a new interpreter, then `report` (code that
    prints what it found about `sys.modules` to stderr); its stderr, stripped. The read
    itself must have succeeded."""
    (tmp_path / "a.txt").write_text("one\n", encoding="utf-8")
    code = (
        "import sys\n"
        "sys.argv = ['filewright', 'call', 'read', '{\"path\": \"a.txt\"}']\n"
        "from filewright.surfaces.cli.main import main\n"
        "try:\n    main()\nexcept SystemExit as e:\n    code = e.code\n" + report
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=60
    )
    assert json.loads(proc.stdout)["ok"] is True
    return proc.stderr.strip()


def test_call_does_not_import_typer_rich_or_mcp(tmp_path: Path) -> None:
    heavy = _plain_read(
        tmp_path,
        "heavy = sorted(m for m in sys.modules if m.split('.')[0] in "
        "('typer', 'click', 'rich', 'mcp', 'anyio', 'pypdf', 'starlette'))\n"
        "print(heavy, file=sys.stderr)\n",
    )
    assert heavy == "[]"


# The change machinery a plain read must not load (issue 32: the streamed-change engine
# and its stages, the edit rules, the regex engine, the placeholder detector's pattern).
CHANGE_ONLY = (
    "filewright.engine.streamed",
    "filewright.engine.streamstages",
    "filewright.engine.streamrules",
    "filewright.fs.chunked",
    "filewright.edit.edits",
    "filewright.edit.replacement",
    "filewright.edit.matcher",
    "filewright.engine.fileops",
    "filewright.core.regexes",
    "regex",
    "difflib",
)


def test_a_plain_read_loads_no_change_machinery(tmp_path: Path) -> None:
    found = _plain_read(
        tmp_path,
        f"loaded = sorted(m for m in {CHANGE_ONLY!r} if m in sys.modules)\n"
        "from filewright.edit import placeholders\n"
        "compiled = placeholders._line.cache_info().currsize\n"
        "print(loaded, compiled, file=sys.stderr)\n",
    )
    assert found == "[] 0"


# Every filewright module `filewright call read` loads (issue 32: start-up light by
# layout). A module joining this list costs every CLI read its import time; make it a
# deliberate choice (and say why here), not a side effect of an import at some top.
READ_MODULES = {
    "filewright",
    "filewright.core",
    "filewright.core.budget",
    "filewright.core.inline",  # the check a read on the MCP server's event loop makes (issue 32)
    "filewright.core.messages",
    "filewright.core.progress",
    "filewright.core.record",  # the value classes' base (in place of `dataclasses`)
    "filewright.core.result",
    "filewright.core.version",
    "filewright.engine",
    "filewright.engine.registry",
    "filewright.engine.workspace",
    "filewright.fs",
    "filewright.fs.cjk",
    "filewright.fs.fingerprint",  # a large file's ledger hash (not fs.bigfile: its writer thread)
    "filewright.fs.fsio",
    "filewright.fs.held",
    "filewright.fs.paths",
    "filewright.fs.textfile",
    "filewright.policy",
    "filewright.policy.index",
    "filewright.policy.names",
    "filewright.policy.rules",
    "filewright.policy.verdicts",
    "filewright.policy.visibility",
    "filewright.read",
    "filewright.read.linesplit",  # lines decoded and cut; a small text's split in one step
    "filewright.read.linestream",
    "filewright.read.media",
    "filewright.read.memorylines",
    "filewright.read.readers",
    "filewright.read.textformat",  # the text styles and numbering (pure; readers' other half)
    "filewright.read.textread",
    "filewright.state",
    "filewright.state.statedir",  # the ledger a read records in (not state.history)
    "filewright.surfaces",
    "filewright.surfaces.cli",
    "filewright.surfaces.cli.calls",
    "filewright.surfaces.cli.main",
    "filewright.tools",
    "filewright.tools.arguments",
    "filewright.tools.base",
    "filewright.tools.precomputed",
    "filewright.toolsets",
    "filewright.toolsets.common",
    "filewright.toolsets.companion_home",
    "filewright.toolsets.default",
    "filewright.toolsets.default_files",
    "filewright.toolsets.default_read",
}


def test_a_plain_read_loads_exactly_the_pinned_modules(tmp_path: Path) -> None:
    """The filewright modules of a `call read` are `READ_MODULES`, and everything else it
    loads is the standard library's (no third-party package at all)."""
    found = _plain_read(
        tmp_path,
        "import json\n"
        "ours = sorted(m for m in sys.modules if m.split('.')[0] == 'filewright')\n"
        "other = sorted({m.split('.')[0] for m in sys.modules}\n"
        "    - set(sys.stdlib_module_names) - {'filewright', '__main__'})\n"
        "print(json.dumps([ours, other]), file=sys.stderr)\n",
    )
    ours, other = json.loads(found.splitlines()[-1])
    assert set(ours) == READ_MODULES
    assert other == []


# Standard-library modules a plain read must not load (issue 32): `dataclasses` imports
# `inspect`, `ast`, `dis` and `tokenize`, which alone cost more than 1.5 times `python -c
# "import json"`; the classes a read builds derive from `filewright.core.record` instead.
# `threading` and `queue` are the streamed writer's (`fs.bigfile`), not a read's; a read
# records nothing in the change log, so `filewright.state.history` stays unloaded too;
# an image's base64 comes from `binascii` itself (the `base64` module is only its wrapper).
NOT_FOR_A_READ = (
    "dataclasses",
    "inspect",
    "ast",
    "dis",
    "tokenize",
    "threading",
    "queue",
    "base64",
    "filewright.state.history",
)


def test_a_plain_read_loads_no_dataclasses_threads_or_history(tmp_path: Path) -> None:
    found = _plain_read(
        tmp_path,
        f"print(sorted(m for m in {NOT_FOR_A_READ!r} if m in sys.modules), file=sys.stderr)\n",
    )
    assert found == "[]"
