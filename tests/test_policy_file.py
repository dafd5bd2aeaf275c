"""A policy file filewright cannot use stops the workspace (fail closed) with one error
naming the file, the line and the problem, the same on every surface: the Python
exception, the CLI's exit 2 (no traceback), the MCP server's start and its tool calls."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from mcp import Client
from test_server import roots_callback, run, text_of

from filewright import Workspace
from filewright.policy.rules import PolicyFileError
from filewright.surfaces.mcp.server import build_server

MAIN = [sys.executable, "-c", "from filewright.surfaces.cli.main import main; main()"]

# (file body, the line to blame, words of the problem)
BAD = [
    ('[[rules]]\npattern = "a\naccess = "hidden"\n', 2, "not valid TOML"),
    ("rules = 5\n", 1, "'rules' must be [[rules]] tables"),
    (
        '# two rules\n[[rules]]\npattern = "a"\n\n[[rules]]\npattern = "b"\nacess = "hidden"\n',
        5,
        "rules[1]: unknown key 'acess'",
    ),
    ('[[rule]]\npattern = "x"\naccess = "hidden"\n', 1, "unknown key 'rule'"),
    ("\n\n[[rules]]\npattern = 'x'\naccess = 'maybe'\n", 3, "access must be one of"),
    ("[[rules]]\naccess = 'hidden'\n", 1, "needs a string 'pattern'"),
    ("rules = ['x']\n", 1, "rules[0]: must be a table"),
    ("[[rules]]\npattern = 'a\\'\naccess = 'hidden'\n", 1, "rules[0]: pattern 'a\\\\' is not a"),
    ("# ok\n# \xff\n", 2, "not UTF-8"),
]


def _write(root: Path, body: str) -> Path:
    root.mkdir(exist_ok=True)
    config = root / ".filewright.toml"
    config.write_bytes(body.encode("utf-8", "surrogateescape").replace(b"\xc3\xbf", b"\xff"))
    return config


@pytest.mark.parametrize(("body", "line", "problem"), BAD)
def test_python_api_names_file_line_and_problem(
    tmp_path: Path, body: str, line: int, problem: str
) -> None:
    config = _write(tmp_path, body)
    with pytest.raises(PolicyFileError) as caught:
        Workspace(tmp_path)
    err = caught.value
    assert (err.path, err.line) == (config, line)
    assert problem in err.problem
    assert str(err).startswith(f"policy file {config}, line {line}: ")
    assert isinstance(err, ValueError)


def test_misspelt_access_key_fails_closed_instead_of_granting_write(tmp_path: Path) -> None:
    """`acess` (a typo) used to give a rule of `write`: the file's intent silently lost."""
    _write(tmp_path, '[[rules]]\npattern = "secret.txt"\nacess = "hidden"\n')
    (tmp_path / "secret.txt").write_text("k\n")
    with pytest.raises(PolicyFileError, match="unknown key 'acess'"):
        Workspace(tmp_path).toolset("default").call("read", {"path": "secret.txt"})


@pytest.mark.parametrize(("body", "line", "problem"), [BAD[0], BAD[1], BAD[-1]])
def test_cli_exits_2_with_the_message_and_no_traceback(
    tmp_path: Path, body: str, line: int, problem: str
) -> None:
    config = _write(tmp_path, body)
    done = subprocess.run(
        [*MAIN, "call", "--root", str(tmp_path), "list", "{}"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 2
    assert "Traceback" not in done.stderr + done.stdout
    assert f"policy file {config}, line {line}: " in done.stderr
    assert problem in done.stderr


def test_mcp_server_start_refuses_with_the_message(tmp_path: Path) -> None:
    config = _write(tmp_path, BAD[0][0])
    done = subprocess.run(
        [*MAIN, "serve", "--root", str(tmp_path)],
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        timeout=60,
        check=False,
    )
    assert done.returncode == 2
    assert "Traceback" not in done.stderr
    assert f"policy file {config}, line 2: not valid TOML" in done.stderr
    assert done.stdout == ""  # (nothing but JSON-RPC ever goes there)


def test_mcp_client_roots_with_a_bad_file_answer_each_call_with_the_message(
    tmp_path: Path,
) -> None:
    config = _write(tmp_path, BAD[2][0])

    async def main() -> None:
        async with Client(build_server(None), list_roots_callback=roots_callback([tmp_path])) as c:
            got = await c.call_tool("list", {})
            assert got.is_error
            assert f"policy file {config}, line 5: rules[1]: unknown key 'acess'" in text_of(got)

    run(main)


def test_the_users_policy_file_is_named_the_same_way(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    user = tmp_path / "policy.toml"
    user.write_text('[[rules]]\npattern = "x"\naccess = "hidden"\nmemroy = true\n')
    monkeypatch.setenv("FILEWRIGHT_POLICY", str(user))
    (tmp_path / "ws").mkdir()
    with pytest.raises(PolicyFileError) as caught:
        Workspace(tmp_path / "ws")
    assert str(caught.value) == (
        f"policy file {user}, line 1: rules[0]: unknown key 'memroy' "
        "(a rule has pattern, access, memory, reason)"
    )


def test_an_unreadable_policy_file_fails_closed_for_an_ordinary_user() -> None:
    """As an ordinary user a 0000 `.filewright.toml` cannot be read: no workspace opens
    (its rules are not silently dropped), and the CLI says which file and why."""
    import os

    from unprivileged import reachable_dir, unprivileged_prefix

    dropped = unprivileged_prefix()
    if dropped is None:
        pytest.skip("needs root and setpriv to drop its privileges")
    prefix, as_nobody = dropped
    with reachable_dir() as base:
        root = base / "ws"
        config = _write(root, '[[rules]]\npattern = "secret.txt"\naccess = "hidden"\n')
        (root / "secret.txt").write_text("k\n")
        if as_nobody:
            os.chown(root, 65534, 65534)
        os.chmod(root, 0o755)
        os.chmod(config, 0o000)
        env = {**os.environ, "HOME": str(base), "XDG_CONFIG_HOME": str(base / ".cfg")}
        done = subprocess.run(
            [*prefix, *MAIN, "call", "--root", str(root), "read", '{"path": "secret.txt"}'],
            capture_output=True,
            text=True,
            env=env,
            timeout=120,
            check=False,
        )
    assert done.returncode == 2, (done.stdout, done.stderr)
    assert "Traceback" not in done.stderr
    assert f"policy file {config}: cannot read it (Permission denied)" in done.stderr
    assert "k\n" not in done.stdout
