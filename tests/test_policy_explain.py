"""`filewright policy explain PATH` (real processes): which rule decides a path's access
in each toolset, and where it was written; the same answer the tools act on.

Each command is a process forked from one interpreter that has imported the CLI
(tests/forkserver.py: the `filewright` command's `main` with the same arguments)."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest
from forkserver import ForkServer, shared

from filewright import Workspace
from filewright.engine.explain import explain
from filewright.engine.registry import REGISTRY

POLICY = """\
[[rules]]
pattern = "secrets/"
access = "hidden"

[[rules]]
pattern = "docs/*.md"
access = "confirm"

[[rules]]
pattern = ".git/"
access = "write"
"""


@pytest.fixture(scope="module")
def forks(request: pytest.FixtureRequest) -> ForkServer:
    return shared(request.session)


def run(
    forks: ForkServer, root: Path, *args: str, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    argv = ["filewright", "policy", "explain", *args]
    return forks.run(argv, cwd=root, env=env, timeout=60)


def as_json(forks: ForkServer, root: Path, *args: str, **kw: Any) -> dict[str, Any]:
    done = run(forks, root, "--json", *args, **kw)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


@pytest.fixture
def root(tmp_path: Path) -> Path:
    r = tmp_path / "repo"
    (r / "secrets").mkdir(parents=True)
    (r / "secrets" / "api.key").write_text("k")
    (r / "docs").mkdir()
    (r / "docs" / "index.md").write_text("# docs\n")
    (r / ".git").mkdir()
    (r / ".git" / "config").write_text("[core]\n")
    (r / "SOUL.md").write_text("soul\n")
    (r / ".filewright.toml").write_text(POLICY)
    return r


def test_names_the_file_line_and_pattern_in_every_toolset(forks: ForkServer, root: Path) -> None:
    got = as_json(forks, root, "secrets/api.key")
    assert [t["toolset"] for t in got["toolsets"]] == list(REGISTRY)
    for t in got["toolsets"]:
        assert (t["access"], t["pattern"]) == ("hidden", "secrets/"), t
        assert t["source"] == f"{root / '.filewright.toml'}:1"
    shown = run(forks, root, "--toolset", "default", "docs/index.md")
    assert shown.returncode == 0, shown.stderr
    assert shown.stdout.splitlines() == [
        "docs/index.md (file)",
        "  default  confirm  .filewright.toml:5: docs/*.md",
        "  (confirm: read; change after approval)",
    ]


def test_built_in_rules_the_default_and_a_toolset_s_own_rules(
    forks: ForkServer, root: Path
) -> None:
    git = as_json(forks, root, "-t", "default", ".git/config")["toolsets"][0]
    # The workspace file's `write` for .git/ cannot loosen the protected set.
    assert git["access"] == "read" and git["pattern"] == ".git"
    assert git["source"].startswith("built-in: the protected set")
    plain = as_json(forks, root, "-t", "default", "notes.txt")
    assert plain["exists"] is False
    assert plain["toolsets"][0] | {"toolset": None} == {
        "toolset": None, "access": "write", "pattern": None, "rule_access": None,
        "memory": None, "reason": "", "source": "no rule matches (the default)",
    }  # fmt: skip
    soul = {t["toolset"]: t for t in as_json(forks, root, "-t", "default", "-t", "companion",
                                             "SOUL.md")["toolsets"]}  # fmt: skip
    assert soul["default"]["access"] == "write"
    assert soul["companion"]["access"] == "confirm"
    assert soul["companion"]["source"] == "toolset companion: its seed's rules"
    state = as_json(forks, root, "-t", "default", ".filewright/")["toolsets"][0]
    assert state["access"] == "hidden"


def test_a_directory_only_rule_and_a_missing_directory(forks: ForkServer, root: Path) -> None:
    as_dir = as_json(forks, root, "-t", "default", "secrets/")
    assert as_dir["is_dir"] and as_dir["toolsets"][0]["access"] == "hidden"
    missing = as_json(forks, root, "-t", "default", "docs/new/")
    assert missing["is_dir"] and not missing["exists"]
    assert missing["toolsets"][0]["access"] == "write"


def test_the_user_policy_file_is_named_with_its_line(
    forks: ForkServer, root: Path, tmp_path: Path
) -> None:
    user = tmp_path / "policy.toml"
    user.write_text('# mine\n[[rules]]\npattern = "*.log"\naccess = "deny"\n')
    env = {**os.environ, "FILEWRIGHT_POLICY": str(user)}
    got = as_json(forks, root, "-t", "gemini", "build/out.log", env=env)["toolsets"][0]
    assert (got["access"], got["pattern"], got["source"]) == ("deny", "*.log", f"{user}:2")


def test_bad_input_is_a_usage_error(forks: ForkServer, root: Path) -> None:
    outside = run(forks, root, "../elsewhere.txt")
    assert outside.returncode == 2 and "outside the workspace" in outside.stderr
    unknown = run(forks, root, "--toolset", "nope", "a.txt")
    assert unknown.returncode == 2 and "unknown toolset" in unknown.stderr
    assert "Traceback" not in outside.stderr + unknown.stderr


def test_explain_agrees_with_the_access_the_tools_act_on(root: Path) -> None:
    """The one mechanism: for every path and toolset, explain's access is Engine.access's
    (the fast per-directory verdicts included: more than Policy.FAST_AFTER queries)."""
    ws = Workspace(root)
    paths = ["secrets/api.key", "secrets", "docs/index.md", "docs", ".git/config", ".git",
             "SOUL.md", ".filewright.toml", "new.txt", "docs/sub/x.md"]  # fmt: skip
    for name in REGISTRY:
        engine = ws.toolset(name).engine  # type: ignore[attr-defined]
        for _ in range(2):  # the second round is answered by the compiled verdicts
            for p in paths:
                loc = ws.sandbox.resolve(p)
                assert explain(engine, loc).access == engine.access(loc), (name, p)
