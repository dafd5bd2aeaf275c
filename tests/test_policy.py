"""Policy tables: access levels, protected names and their variants, creation, memory switch."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from filewright import Workspace
from filewright.policy.rules import Access, Policy, Rule, load_rules, risk_of


@pytest.mark.parametrize(
    ("rel", "expected"),
    [
        ("src/main.py", Access.WRITE),
        (".git/config", Access.READ),
        (".GIT/config", Access.READ),
        (".git/hooks/pre-commit", Access.READ),
        ("sub/.git/HEAD", Access.READ),
        (".vscode/settings.json", Access.READ),
        (".VSCode/Settings.JSON", Access.READ),
        (".vscode/tasks.json", Access.READ),
        (".vscode/extensions.json", Access.READ),
        (".vscode/mcp.json", Access.READ),
        (".VSCODE", Access.READ),
        (".git", Access.READ),
        ("sub/.git", Access.READ),
        ("sub/.Git.", Access.READ),
        (".gitignore", Access.WRITE),
        ("notes/.gitkeep", Access.WRITE),
        (".gemini/settings.json", Access.READ),
        ("proj.code-workspace", Access.READ),
        ("a/B.Code-Workspace", Access.READ),
        (".devcontainer/devcontainer.json", Access.READ),
        (".devcontainer.json", Access.READ),
        (".cargo/config.toml", Access.READ),
        (".cargo/config", Access.READ),
        (".husky/pre-commit", Access.READ),
        (".pre-commit-config.yaml", Access.READ),
        (".idea/runConfigurations/x.xml", Access.READ),
        (".codex/config.toml", Access.READ),
        (".zed/tasks.json", Access.READ),
        (".yarnrc.yml", Access.READ),
        (".npmrc", Access.READ),
        (".hg/hgrc", Access.READ),
        ("lefthook.yml", Access.READ),
        (".envrc", Access.READ),
        ("Makefile", Access.WRITE),
        ("package.json", Access.WRITE),
        (".github/workflows/ci.yml", Access.WRITE),
        (".mcp.json", Access.READ),
        (".cursor/rules/x.mdc", Access.READ),
        (".claude/settings.json", Access.READ),
        (".claude/settings.local.json", Access.READ),
        ("package-lock.json", Access.READ),
        ("web/yarn.lock", Access.READ),
        ("uv.lock", Access.READ),
        (".bashrc", Access.READ),
        (".zshrc", Access.READ),
        (".filewright.toml", Access.READ),
        (".filewright/history/x", Access.HIDDEN),
        ("a/.b.txt.123abc.fwtmp", Access.HIDDEN),
        # trailing dots and spaces, full-width letters
        (".bashrc.", Access.READ),
        (".bashrc ", Access.READ),
        ("ｐackage-lock.json", Access.READ),
    ],
)
def test_default_protected_set(rel: str, expected: Access) -> None:
    assert Policy().access(rel, is_dir=False) == expected


def test_last_matching_rule_wins_and_engine_rules_cannot_be_overridden() -> None:
    policy = Policy(
        [
            Rule("docs/", Access.DENY),
            Rule("docs/public/", Access.WRITE),
            Rule(".filewright/", Access.WRITE),
        ]
    )
    assert policy.access("docs/secret.md", is_dir=False) == Access.DENY
    assert policy.access("docs/public/a.md", is_dir=False) == Access.WRITE
    assert policy.access(".filewright/sessions/x.json", is_dir=False) == Access.HIDDEN


def test_memory_switch_rules() -> None:
    rules = [
        Rule("USER.md", Access.WRITE, memory=True),
        Rule("USER.md", Access.HIDDEN, memory=False),
    ]
    assert Policy(rules, memory=True).access("USER.md", is_dir=False) == Access.WRITE
    assert Policy(rules, memory=False).access("user.md", is_dir=False) == Access.HIDDEN


def test_most_restrictive_name_counts() -> None:
    policy = Policy()
    # a symlink named innocently whose target is protected
    assert policy.access("link-to-git-config", ".git/config", is_dir=False) == Access.READ


def test_risk_levels() -> None:
    assert risk_of("read", True) == "low"
    assert risk_of("write", False) == "medium"
    assert risk_of("append", True) == "medium"
    assert risk_of("write", True) == "high"
    assert risk_of("edit", True) == "high"


def _config(root: Path, body: str) -> None:
    (root / ".filewright.toml").write_text(body, encoding="utf-8")


def test_user_config_levels_through_a_toolset(tmp_path: Path) -> None:
    _config(
        tmp_path,
        '[[rules]]\npattern = "secret/"\naccess = "hidden"\n'
        '[[rules]]\npattern = "locked.txt"\naccess = "deny"\n'
        '[[rules]]\npattern = "ro.txt"\naccess = "read"\n'
        '[[rules]]\npattern = "ask.txt"\naccess = "confirm"\n',
    )
    (tmp_path / "secret").mkdir()
    (tmp_path / "secret" / "k.txt").write_text("key\n")
    for name in ("locked.txt", "ro.txt", "ask.txt"):
        (tmp_path / name).write_text("x\n")
    tools = Workspace(tmp_path).toolset("default")

    hidden = tools.call("read", {"path": "secret/k.txt"})
    assert not hidden.ok and hidden.text == "File not found: secret/k.txt"
    denied = tools.call("read", {"path": "locked.txt"})
    assert not denied.ok and denied.data["error"] == "denied"
    assert tools.call("read", {"path": "ro.txt"}).ok
    ro = tools.call("write", {"path": "ro.txt", "content": "y\n"})
    assert not ro.ok and ro.data["error"] == "protected"
    ask = tools.call("write", {"path": "ask.txt", "content": "y\n"})
    assert not ask.ok and ask.data["error"] == "no_confirmation"
    for name in ("locked.txt", "ro.txt", "ask.txt"):
        assert (tmp_path / name).read_text() == "x\n"
    # creating a hidden or protected file is refused too
    assert not tools.call("write", {"path": "secret/new.txt", "content": "z"}).ok
    assert not (tmp_path / "secret" / "new.txt").exists()


@pytest.mark.parametrize(
    "name",
    [
        ".git/config",
        ".GIT/CONFIG",
        ".Git/hooks/post-checkout",
        ".vscode/TASKS.json",
        ".mcp.json",
        ".MCP.JSON",
        ".bashrc.",
        "Cargo.lock",
        ".claude/Settings.json",
    ],
)
def test_creating_protected_files_is_refused(tmp_path: Path, name: str) -> None:
    tools = Workspace(tmp_path).toolset("default")
    result = tools.call("write", {"path": name, "content": "evil\n"})
    assert not result.ok
    assert result.data["error"] == "protected"
    assert not (tmp_path / name).exists()


def test_protected_through_symlinked_directory(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    (tmp_path / "innocent").symlink_to(tmp_path / ".git")
    tools = Workspace(tmp_path).toolset("default")
    result = tools.call("write", {"path": "innocent/hooks/pre-commit", "content": "#!/bin/sh\n"})
    assert not result.ok and result.data["error"] == "protected"
    assert not (tmp_path / ".git" / "hooks").exists()


def test_policy_file_cannot_be_written_by_the_agent(tmp_path: Path) -> None:
    _config(tmp_path, '[[rules]]\npattern = "x"\naccess = "hidden"\n')
    tools = Workspace(tmp_path).toolset("default")
    result = tools.call("write", {"path": ".filewright.toml", "content": ""})
    assert not result.ok and result.data["error"] == "protected"


def test_malformed_config_is_a_clear_error(tmp_path: Path) -> None:
    _config(tmp_path, '[[rules]]\npattern = "x"\naccess = "maybe"\n')
    with pytest.raises(ValueError, match="access must be one of"):
        Workspace(tmp_path)
    _config(tmp_path, "not toml [")
    with pytest.raises(ValueError, match="line 1: not valid TOML"):
        load_rules(tmp_path / ".filewright.toml")


def test_state_directory_is_invisible(tmp_path: Path) -> None:
    tools = Workspace(tmp_path).toolset("default")
    assert tools.call("write", {"path": "a.txt", "content": "1\n"}).ok
    assert tools.call("write", {"path": "a.txt", "content": "2\n"}).ok
    assert (tmp_path / ".filewright").is_dir()
    for path in (
        ".filewright/.gitignore",
        ".FILEWRIGHT/.gitignore",
        "./.filewright/../.filewright/x",
    ):
        result = tools.call("read", {"path": path})
        assert not result.ok and result.data["error"] == "hidden", path
    # and through a symlink to it
    (tmp_path / "peek").symlink_to(tmp_path / ".filewright")
    assert tools.call("read", {"path": "peek/.gitignore"}).data["error"] == "hidden"


def test_workspace_policy_file_can_only_tighten(tmp_path: Path) -> None:
    _config(
        tmp_path,
        '[[rules]]\npattern = ".git/"\naccess = "write"\n'
        '[[rules]]\npattern = "notes/"\naccess = "read"\n',
    )
    (tmp_path / ".git").mkdir()
    (tmp_path / "notes").mkdir()
    tools = Workspace(tmp_path).toolset("default")
    hook = tools.call("write", {"path": ".git/hooks/pre-commit", "content": "#!/bin/sh\n"})
    assert not hook.ok and hook.data["error"] == "protected"
    assert not tools.call("write", {"path": "notes/a.md", "content": "x"}).ok


def test_trusted_rules_may_loosen(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "uv.lock").write_text("old\n")
    assert (
        not Workspace(tmp_path)
        .toolset("default")
        .call("write", {"path": "uv.lock", "content": "x"})
        .ok
    )
    loose = Workspace(tmp_path, rules=[Rule("uv.lock", Access.WRITE)]).toolset("default")
    assert loose.call("write", {"path": "uv.lock", "content": "new\n"}).ok
    policy_file = tmp_path.parent / f"{tmp_path.name}-policy.toml"
    policy_file.write_text('[[rules]]\npattern = "uv.lock"\naccess = "write"\n')
    monkeypatch.setenv("FILEWRIGHT_POLICY", str(policy_file))
    assert (
        Workspace(tmp_path)
        .toolset("default")
        .call("write", {"path": "uv.lock", "content": "v3\n"})
        .ok
    )


def test_policy_file_behind_a_symlink_is_ignored(tmp_path: Path) -> None:
    outside = tmp_path / "outside.toml"
    outside.write_text('[[rules]]\npattern = "a.txt"\naccess = "hidden"\n')
    root = tmp_path / "ws"
    root.mkdir()
    (root / ".filewright.toml").symlink_to(outside)
    (root / "a.txt").write_text("x\n")
    assert Workspace(root).toolset("default").call("read", {"path": "a.txt"}).ok


PATTERN_CHARS = st.sampled_from([*list("ab.-_/*?[]!\\ #"), "**/", "/**", ".git", "ß", "İ"])
KEY_CHARS = st.sampled_from([*list("ab.-_/ #"), ".git", "ß", "ss", "i̇"])


@settings(max_examples=400)
@given(
    pattern=st.lists(PATTERN_CHARS, min_size=1, max_size=8).map("".join),
    keys=st.lists(st.lists(KEY_CHARS, max_size=8).map("".join), min_size=1, max_size=6),
)
def test_the_literal_prefilter_never_changes_a_verdict(pattern: str, keys: list[str]) -> None:
    import re

    from pathspec.patterns.gitignore.basic import GitIgnoreBasicPattern

    from filewright.policy.rules import _Pattern

    folded = pattern.casefold()
    try:
        source, include = GitIgnoreBasicPattern.pattern_to_regex(folded)
    except ValueError:  # pathspec refuses it (a policy file with it is refused too)
        return
    if not include or not source:
        return
    try:
        reference = re.compile(source)
    except re.error:
        return
    for trusted in (True, False):
        matcher = _Pattern(folded, source, trusted)
        for key in keys:
            assert matcher.match(key) == (reference.match(key) is not None), (pattern, key)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the Linux shortcut")
@pytest.mark.parametrize("xdg", [None, "", "/tmp/xdg-config-test"])
def test_user_policy_path_is_where_platformdirs_says(
    monkeypatch: pytest.MonkeyPatch, xdg: str | None
) -> None:
    from platformdirs import user_config_dir

    from filewright.engine.workspace import user_policy_path

    monkeypatch.delenv("FILEWRIGHT_POLICY", raising=False)
    if xdg is None:
        monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    else:
        monkeypatch.setenv("XDG_CONFIG_HOME", xdg)
    assert user_policy_path() == Path(user_config_dir("filewright")) / "policy.toml"


def test_policies_share_compiled_patterns_and_keep_their_own_answers() -> None:
    """A pattern is compiled once per process (every workspace's built-in and toolset
    rules are the same): two policies giving one pattern different access still answer
    each with its own, trusted and untrusted alike."""
    hidden = Policy([Rule("*.env", Access.HIDDEN)])
    readable = Policy([Rule("*.env", Access.READ)])
    stricter = Policy([Rule("*.env", Access.READ)], untrusted=[Rule("*.env", Access.DENY)])
    assert hidden.access("a/.env", is_dir=False) is Access.HIDDEN
    assert readable.access("a/.env", is_dir=False) is Access.READ
    assert stricter.access("a/.env", is_dir=False) is Access.DENY
    assert hidden.access("a/env.txt", is_dir=False) is Access.WRITE
    assert hidden._compiled[0][1] is readable._compiled[0][1]
    assert stricter._compiled_untrusted[0][1] is not stricter._compiled[0][1]
