"""Undo is a change like any other (issue 30, findings 1 and 12).

Every path an undo touches is located again by the name history recorded, walked from the
root without following links (a directory on the way that became a link is refused), judged
by the policy, and confirmed once with the whole effect listed. Through every surface that
reaches an undo of file management: the default toolset, mcpfs' `move_file` (then undone by
the default toolset), and the CLI's `filewright undo`; as root and as an ordinary user.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from forkserver import ForkServer, shared

from filewright import Workspace
from filewright.engine.workspace import ConfirmRequest
from filewright.policy.rules import Access, Rule


def _repository(tmp_path: Path) -> Path:
    """The attack's arena: a repository whose `z/a` links to `.git/hooks`, and an
    executable script."""
    root = tmp_path / "repo"
    (root / ".git" / "hooks").mkdir(parents=True)
    (root / "scripts").mkdir()
    script = root / "scripts" / "lint.sh"
    script.write_text("#!/bin/sh\necho injected\n")
    script.chmod(0o755)
    (root / "z").mkdir()
    (root / "z" / "a").symlink_to("../.git/hooks")
    return root


# (toolset, tool, arguments) before the undo; mcpfs moves, default deletes and makes dirs.
def _steps(mover: str) -> list[tuple[str, str, dict[str, Any]]]:
    def move(src: str, dst: str) -> tuple[str, str, dict[str, Any]]:
        if mover == "mcpfs":
            return ("mcpfs", "move_file", {"source": src, "destination": dst})
        return ("default", "move", {"source": src, "destination": dst})

    return [
        ("default", "mkdir", {"path": "q/a"}),
        move("scripts/lint.sh", "q/a/pre-commit"),
        move("q/a/pre-commit", "lint2.sh"),
        ("default", "delete", {"path": "q/a"}),
        ("default", "delete", {"path": "q"}),
        move("z", "q"),
    ]


SCRIPT = r"""
import json, sys
from filewright import Workspace
root, steps = sys.argv[1], json.loads(sys.argv[2])
ws = Workspace(root, confirm=True)
for toolset, tool, args in steps:
    r = ws.toolset(toolset).call(tool, args)
    assert r.ok, (tool, args, r.text)
r = ws.toolset("default").call("undo", {"path": "lint2.sh"})
print(json.dumps({"ok": r.ok, "text": r.text}))
"""


def _assert_refused_and_untouched(root: Path, ok: bool, text: str) -> None:
    assert not ok, text
    assert "symbolic link" in text, text
    assert not os.path.lexists(root / ".git" / "hooks" / "pre-commit")
    assert (root / "lint2.sh").read_text() == "#!/bin/sh\necho injected\n"


@pytest.fixture(scope="module")
def forks(request: pytest.FixtureRequest) -> ForkServer:
    """The filewright command is forked from the warm interpreter (tests/forkserver.py)."""
    return shared(request.session)


@pytest.mark.parametrize("mover", ["default", "mcpfs"])
def test_undo_of_a_move_never_writes_through_a_link_swapped_in_since(
    tmp_path: Path, mover: str
) -> None:
    root = _repository(tmp_path)
    ws = Workspace(root, confirm=True)
    for toolset, tool, args in _steps(mover):
        result = ws.toolset(toolset).call(tool, args)
        assert result.ok, (tool, result.text)
    # Writing through the link directly is refused; the undo must be refused the same way.
    direct = ws.toolset("default").call("write", {"path": "q/a/x", "content": "x"})
    assert not direct.ok
    undone = ws.toolset("default").call("undo", {"path": "lint2.sh"})
    _assert_refused_and_untouched(root, undone.ok, undone.text)


def test_the_cli_undo_is_refused_the_same_way(tmp_path: Path, forks: ForkServer) -> None:
    root = _repository(tmp_path)
    ws = Workspace(root, confirm=True)
    for toolset, tool, args in _steps("default"):
        assert ws.toolset(toolset).call(tool, args).ok
    done = forks.run(
        ["filewright", "undo", "--json", "--yes", "--root", str(root), "lint2.sh"],
        timeout=120,
    )
    out = json.loads(done.stdout)
    assert done.returncode == 1
    _assert_refused_and_untouched(root, out["ok"], out["text"])


@pytest.mark.skipif(
    os.geteuid() != 0 or shutil.which("setpriv") is None,
    reason="needs root and setpriv to drop its privileges",
)
def test_an_ordinary_user_is_refused_the_same_way(tmp_path: Path) -> None:
    """Without root's power over file permissions (setpriv drops the capabilities that
    bypass them, as tests/adversarial/test_unprivileged.py does), in a repository the
    user owns."""
    root = _repository(tmp_path)
    prefix = [shutil.which("setpriv") or "setpriv", "--bounding-set",
              "-dac_override,-dac_read_search,-fowner", "--inh-caps", "-all", "--"]  # fmt: skip
    done = subprocess.run(
        [*prefix, sys.executable, "-c", SCRIPT, str(root), json.dumps(_steps("default"))],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    out = json.loads(done.stdout)
    _assert_refused_and_untouched(root, out["ok"], out["text"])


# -- finding 12: an undo judges every path it touches and asks once -----------------------


class Asked:
    def __init__(self, answer: bool) -> None:
        self.answer = answer
        self.requests: list[ConfirmRequest] = []

    def __call__(self, request: ConfirmRequest) -> bool:
        self.requests.append(request)
        return self.answer


def _tree(root: Path) -> dict[str, bytes | None]:
    out: dict[str, bytes | None] = {}
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = [d for d in dirnames if d != ".filewright"]
        for name in dirnames + filenames:
            path = Path(dirpath) / name
            out[str(path.relative_to(root))] = None if path.is_dir() else path.read_bytes()
    return out


@pytest.mark.parametrize("answer", [True, False])
def test_undo_of_a_directory_move_asks_about_the_files_it_puts_back(
    tmp_path: Path, answer: bool
) -> None:
    root = tmp_path / "ws"
    (root / "d").mkdir(parents=True)
    (root / "d" / "s.txt").write_text("secret-ish\n")
    ws = Workspace(root, confirm=True, rules=[Rule("d/s.txt", Access.CONFIRM)])
    assert ws.toolset("default").call("move", {"source": "d", "destination": "e"}).ok
    asked = Asked(answer)
    ws.confirm = asked
    before = _tree(root)
    undone = ws.toolset("default").call("undo", {"path": "e"})
    assert len(asked.requests) == 1, [r.diff for r in asked.requests]
    assert "d/s.txt" in asked.requests[0].diff
    if answer:
        assert undone.ok, undone.text
        assert (root / "d" / "s.txt").exists() and not (root / "e").exists()
    else:
        assert not undone.ok and _tree(root) == before


@pytest.mark.parametrize("answer", [True, False])
def test_undo_of_a_recursive_delete_asks_about_every_file_it_restores(
    tmp_path: Path, answer: bool
) -> None:
    root = tmp_path / "ws"
    (root / "d" / "sub").mkdir(parents=True)
    (root / "d" / "sub" / "s.txt").write_text("s\n")
    (root / "d" / "plain.txt").write_text("p\n")
    ws = Workspace(root, confirm=True, rules=[Rule("d/sub/s.txt", Access.CONFIRM)])
    assert ws.toolset("default").call("delete", {"path": "d", "recursive": True}).ok
    asked = Asked(answer)
    ws.confirm = asked
    undone = ws.toolset("default").call("undo", {"path": "d"})
    assert len(asked.requests) == 1
    assert "d/sub/s.txt" in asked.requests[0].diff and "d/plain.txt" in asked.requests[0].diff
    assert undone.ok == answer, undone.text
    assert (root / "d").exists() == answer


def test_undo_of_a_move_refuses_when_the_other_end_is_now_protected(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    (root / "a.txt").write_text("a\n")
    ws = Workspace(root, confirm=True)
    assert ws.toolset("default").call("move", {"source": "a.txt", "destination": "b.txt"}).ok
    (root / ".filewright.toml").write_text('[[rules]]\npattern = "a.txt"\naccess = "deny"\n')
    strict = Workspace(root, confirm=True)
    undone = strict.toolset("default").call("undo", {"path": "b.txt"})
    assert not undone.ok and "protected" in undone.text, undone.text
    assert (root / "b.txt").exists() and not (root / "a.txt").exists()


def test_the_cli_undo_asks_about_every_path(tmp_path: Path, forks: ForkServer) -> None:
    """Without --yes nobody can be asked: the CLI's undo of a directory move whose files
    need confirmation is refused, whatever the rule on the directory itself."""
    root = tmp_path / "ws"
    (root / "d").mkdir(parents=True)
    (root / "d" / "s.txt").write_text("s\n")
    (root / ".filewright.toml").write_text('[[rules]]\npattern = "d/s.txt"\naccess = "confirm"\n')
    ws = Workspace(root, confirm=True)
    assert ws.toolset("default").call("move", {"source": "d", "destination": "e"}).ok
    done = forks.run(
        ["filewright", "undo", "--json", "--root", str(root), "e"],
        timeout=120,
    )
    out = json.loads(done.stdout)
    assert done.returncode == 1 and not out["ok"], out
    assert (root / "e" / "s.txt").exists() and not (root / "d").exists()
