"""Every shell, Python, JSON and TOML block of README.md and docs/*.md that a user would
copy runs in the test suite, as written (placeholders such as /path/to/project replaced
by temporary directories, port 8765 by a free one), and what it prints is what the docs
show. Blocks are named by the marker comment above them (`tests/docblocks.py`); the
inventory test fails on a copyable block without a marker or without a test that runs it.

Blocks that call a model API run against fake clients (tests/test_dispatch.py,
tests/test_apply_patch_docs.py, tests/test_memory_tool.py); blocks for Claude Code and
Gemini CLI run when the hosts are installed (on PATH or in $FILEWRIGHT_HOSTS_BIN) and
skip saying so otherwise; the MCP Inspector's when node and npm are there.
"""

from __future__ import annotations

import contextlib
import importlib.util
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
import tomllib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from docblocks import COPYABLE, REPO, all_blocks, block, shown_after
from test_hosts import host_binary

BIN = Path(sys.executable).parent  # this environment's filewright, ruff, mypy
UV = shutil.which("uv")

# Blocks the suite deliberately does not run, and why.
NOT_RUN = {
    "example: scoped-file": "a file's content shown in the text, not a command",
    "block: mcpfs-official": "the official server's configuration that mcpfs replaces "
    "(only its shape is checked: test_mcpfs_blocks)",
}


# -- the inventory -------------------------------------------------------------------------------


def _tests_text() -> str:
    here = Path(__file__).resolve()
    return "\n".join(
        p.read_text(encoding="utf-8") for p in sorted(here.parent.rglob("*.py")) if p != here
    )


def test_every_copyable_block_is_named_and_run() -> None:
    others = _tests_text()
    mine = Path(__file__).read_text(encoding="utf-8")
    unnamed, unrun = [], []
    for b in all_blocks():
        if b.lang not in COPYABLE:
            continue
        if b.marker is None:
            unnamed.append(f"{b.file}:{b.line}")
        elif b.marker not in NOT_RUN and b.marker not in mine + others:
            unrun.append(f"{b.file}:{b.line} <!-- {b.marker} -->")
    assert not unnamed, f"copyable blocks without a <!-- block: NAME --> marker: {unnamed}"
    assert not unrun, f"blocks no test runs: {unrun}"
    untagged = [
        f"{b.file}:{b.line}"
        for b in all_blocks()
        if not b.lang
        and re.match(r"(uv|uvx|pip|filewright|npx|claude|gemini) ", b.text)
        and "[--" not in b.text  # a synopsis, not a command
    ]
    assert not untagged, f"commands in blocks without a language: {untagged}"


# -- helpers ---------------------------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def env_for(home: Path, *, path: list[Path] | None = None, **extra: str) -> dict[str, str]:
    """A user's environment: HOME in the test's directory, this environment's `filewright`
    first on PATH (unless `path` says otherwise), no policy or state of the real user."""
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("FILEWRIGHT_POLICY", "XDG_CONFIG_HOME", "XDG_STATE_HOME", "VIRTUAL_ENV")
    }
    dirs = path if path is not None else [BIN]
    inherited = [d for d in os.environ["PATH"].split(os.pathsep) if d and Path(d) != BIN]
    env["PATH"] = os.pathsep.join([*(str(d) for d in dirs), *inherited])
    env["HOME"] = str(home)
    env.update(extra)
    return env


def fill(text: str, **places: Any) -> str:
    """The block with its placeholders replaced."""
    names = {
        "/path/to/filewright": REPO,
        "/path/to/project": places.get("project"),
        "/home/you/.local/bin": places.get("tool_bin"),
        "8765": places.get("port"),
    }
    for placeholder, value in names.items():
        if value is not None:
            text = text.replace(placeholder, str(value))
    return text


def bash(script: str, cwd: Path, env: dict[str, str], timeout: float = 120) -> str:
    """Run `script` as a bash script that stops at the first failing command; its output."""
    done = subprocess.run(["bash", "-e", "-c", script], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=timeout)  # fmt: skip
    assert done.returncode == 0, f"{script}\n--- stdout\n{done.stdout}\n--- stderr\n{done.stderr}"
    assert "Traceback" not in done.stderr, done.stderr
    return done.stdout


@contextlib.contextmanager
def background(script: str, cwd: Path, env: dict[str, str], ready: str) -> Iterator[None]:
    """Run a block whose last command serves until stopped; wait for `ready` on stderr."""
    proc = subprocess.Popen(["bash", "-e", "-c", script], cwd=cwd, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)  # fmt: skip
    assert proc.stderr is not None
    seen = ""
    deadline = time.monotonic() + 60
    try:
        while ready not in seen:
            line = proc.stderr.readline()
            assert line or proc.poll() is None, f"exited {proc.poll()}: {seen}"
            seen += line
            assert time.monotonic() < deadline, seen
        yield
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout=30)


def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    root.mkdir(parents=True, exist_ok=True)
    (root / "notes.txt").write_text("alpha\nbeta\n", encoding="utf-8")
    return root


# -- README: install, quick start, first steps, development ---------------------------------------


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """The README's install block, as a new user runs it: uv's tool directories in a
    fresh home, not on PATH (as uv leaves them until `uv tool update-shell`)."""
    if UV is None:
        pytest.skip("uv is not on PATH")
    home = tmp_path_factory.mktemp("home")
    tool_bin = home / ".local" / "bin"
    extra = {"UV_TOOL_DIR": str(home / "tools"), "UV_TOOL_BIN_DIR": str(tool_bin),
             "SHELL": "/bin/bash"}  # fmt: skip
    system = [Path(UV).parent]  # uv itself, without this environment's filewright
    lines = block("README.md", "block: install").splitlines()
    # pip's build isolation fetches the build backend from the package index: not here.
    pip = [ln for ln in lines if ln.startswith(("pip install", "python -m filewright"))]
    assert len(pip) == 2, lines
    script = fill("\n".join(ln for ln in lines if ln not in pip))
    # `filewright --version` right after the install needs uv's bin directory on PATH,
    # which is what the README's next block is about: here it is (as after update-shell).
    out = bash(script, home, env_for(home, path=[tool_bin, *system], **extra), timeout=300)
    return {"home": home, "tool_bin": tool_bin, "env": extra, "system": system, "out": out}


def test_install_block(installed: dict[str, Any]) -> None:
    from filewright.core.version import __version__

    assert installed["out"].splitlines() == [f"filewright {__version__}"] * 2
    assert (installed["tool_bin"] / "filewright").exists()


def test_install_path_block_works_without_the_tool_directory_on_path(
    installed: dict[str, Any],
) -> None:
    """Item 3 of issue 31: off PATH, the README's remedy works as written."""
    from filewright.core.version import __version__

    home = installed["home"]
    env = env_for(home, path=installed["system"], **installed["env"])
    missing = subprocess.run(["bash", "-c", "filewright --version"], env=env,
                             capture_output=True, text=True)  # fmt: skip
    assert missing.returncode == 127  # the reported "command not found"
    out = bash(block("README.md", "block: install-path"), home, env)
    assert out.splitlines() == [f"filewright {__version__}"]
    # A new shell finds it.
    found = bash("source ~/.bashrc; command -v filewright", home, env)
    assert found.strip() == str(installed["tool_bin"] / "filewright")


def _uv_run(text: str) -> str:
    """`uv run X` in a block → this environment's X (uv run would re-sync the very
    environment the suite runs in, while other tests use it)."""
    return re.sub(r"\buv run (\w+)", lambda m: str(BIN / m.group(1)), text)


def test_quick_start_block(tmp_path: Path) -> None:
    lines = block("README.md", "block: quick-start").splitlines()
    assert lines[1] == "uv run pytest"  # the suite itself: running it here would recurse
    out = bash(_uv_run(lines[0]), REPO, env_for(tmp_path))
    answer = json.loads(out)
    assert answer["ok"] and "# filewright" in answer["text"]


@pytest.mark.parametrize(
    ("file", "marker"),
    [("README.md", "block: development"), ("docs/reference.md", "block: reference-development")],
)
def test_development_blocks_pass_on_this_checkout(tmp_path: Path, file: str, marker: str) -> None:
    """Item 5 of issue 31: what the development block runs passes (ruff check and ruff
    format --check over the whole checkout, docs' Python blocks included). `uv run
    pytest` is this suite; `uv run mypy` is tests/test_types.py, which runs the same
    command (`[tool.mypy]` in pyproject.toml)."""
    commands = [
        c.strip()
        for line in block(file, marker).splitlines()
        for c in line.split("#")[0].split("&&")
        if c.strip()
    ]
    assert {"uv run pytest", "uv run ruff check", "uv run ruff format --check"} <= set(commands)
    for command in commands:
        if command in ("uv run pytest", "uv run mypy"):
            continue
        bash(_uv_run(command), REPO, env_for(tmp_path))
    assert '[sys.executable, "-m", "mypy"' in (REPO / "tests" / "test_types.py").read_text()


def test_public_contract_block(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "path" / "to" / "root").mkdir(parents=True)
    (tmp_path / "path" / "to" / "root" / "a.py").write_text("x = 1\n")
    scope: dict[str, Any] = {}
    exec(block("README.md", "block: public-contract"), scope)
    assert scope["result"].ok, scope["result"].text
    assert (tmp_path / "path" / "to" / "root" / "a.py").read_text() == "x = 2\n"


# -- docs/reference.md: the policy, serve, the Inspector ------------------------------------------


def test_policy_file_block(tmp_path: Path) -> None:
    from filewright import Workspace

    root = project(tmp_path)
    (root / ".filewright.toml").write_text(block("docs/reference.md", "block: policy-file"))
    (root / "secrets").mkdir()
    (root / "secrets" / "key.txt").write_text("k\n")
    (root / "docs").mkdir()
    (root / "docs" / "a.md").write_text("# a\n")
    tools = Workspace(root).toolset("default")
    assert tools.call("read", {"path": "secrets/key.txt"}).data["error"] in ("hidden", "not_found")
    refused = tools.call("write", {"path": "docs/a.md", "content": "b\n"})
    assert not refused.ok and (root / "docs" / "a.md").read_text() == "# a\n"


def test_policy_explain_block_prints_what_the_docs_show(tmp_path: Path) -> None:
    out = bash(block("docs/reference.md", "block: policy-explain"), tmp_path, env_for(tmp_path))
    assert out == shown_after("docs/reference.md", "block: policy-explain")


def test_serve_block(tmp_path: Path) -> None:
    (tmp_path / "project").mkdir()
    port = free_port()
    stdio, http = fill(block("docs/reference.md", "block: serve"), port=port).splitlines()
    env = env_for(tmp_path)
    done = subprocess.run(["bash", "-c", stdio], cwd=tmp_path, env=env, stdin=subprocess.DEVNULL,
                          capture_output=True, text=True, timeout=60)  # fmt: skip
    assert done.returncode == 0, done.stderr  # stdio: served until its input ended
    with background(http, tmp_path, env, ready=f"http://127.0.0.1:{port}/mcp"):
        pass


NPM_DIR = Path(os.environ.get("FILEWRIGHT_NPM_DIR", Path.home() / ".cache" / "filewright" / "npm"))


def pinned_inspector(version: str) -> Path:
    """The MCP Inspector at the version the docs pin (installed once, by npm)."""
    if shutil.which("npm") is None or shutil.which("node") is None:
        pytest.skip("node/npm unavailable (the MCP Inspector runs on node)")
    prefix = NPM_DIR / f"inspector-{version}"
    binary = prefix / "node_modules" / ".bin" / "mcp-inspector"
    if not binary.exists():
        subprocess.run(["npm", "install", "--no-audit", "--no-fund", "--prefix", str(prefix),
                        f"@modelcontextprotocol/inspector@{version}"],
                       capture_output=True, timeout=600)  # fmt: skip
    if not binary.exists():
        pytest.skip(f"@modelcontextprotocol/inspector@{version} could not be installed")
    return binary


INSPECTOR_VERSION = "0.21.2"  # the version docs/reference.md pins (checked below)


def _inspector(text: str) -> str:
    """`npx -y @modelcontextprotocol/inspector@V` → the installed pinned binary."""
    m = re.search(r"npx -y @modelcontextprotocol/inspector@([\d.]+)", text)
    assert m, "the Inspector is not pinned"
    assert m.group(1) == INSPECTOR_VERSION
    return text.replace(m.group(0), str(pinned_inspector(m.group(1))))


def test_inspector_block(tmp_path: Path) -> None:
    out = bash(_inspector(block("docs/reference.md", "block: inspector")), REPO, env_for(tmp_path))
    decoder, answers, at = json.JSONDecoder(), [], 0
    while out[at:].strip():
        at += len(out[at:]) - len(out[at:].lstrip())
        answer, at = decoder.raw_decode(out, at)
        answers.append(answer)
    listed, read = answers
    tool = next(t for t in listed["tools"] if t["name"] == "read")
    assert tool["annotations"]["readOnlyHint"] is True
    assert tool["inputSchema"]["required"] == ["path"]
    assert read["isError"] is False and "# filewright" in read["content"][0]["text"]
    lines = (REPO / "README.md").read_text(encoding="utf-8").splitlines()
    assert read["structuredContent"]["total_lines"] == len(lines)


def test_inspector_http_block_reads_then_edits_through_one_server(tmp_path: Path) -> None:
    """Item 10 of issue 31: the pinned Inspector sends the token (`--header`), and a
    `Read` then an `Edit` succeed against one server."""
    port = free_port()
    script = _inspector(fill(block("docs/reference.md", "block: inspector-http"), port=port))
    out = bash(script, tmp_path, env_for(tmp_path))
    assert '"Successfully replaced 1 occurrence' in out, out
    assert (tmp_path / "notes.md").read_text() == "Hello, world\n"


# -- docs/apply_patch.md, docs/large-files.md, docs/mcpfs.md --------------------------------------


def test_apply_patch_function_tool_block(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from filewright import Workspace

    monkeypatch.chdir(tmp_path)
    (tmp_path / "a.py").write_text("x = 1\n")
    patch = "*** Begin Patch\n*** Update File: a.py\n@@\n-x = 1\n+x = 2\n*** End Patch"
    scope: dict[str, Any] = {"Workspace": Workspace, "patch_text": patch}
    exec(block("docs/apply_patch.md", "block: apply-patch-function-tool"), scope)
    assert scope["result"].ok and (tmp_path / "a.py").read_text() == "x = 2\n"


def test_apply_patch_cli_block(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("x = 1\n")
    out = bash(block("docs/apply_patch.md", "block: apply-patch-cli"), tmp_path, env_for(tmp_path))
    assert json.loads(out)["ok"] and (tmp_path / "a.py").read_text() == "x = 2\n"


def test_large_files_block(tmp_path: Path) -> None:
    from filewright import Workspace

    ws = eval(block("docs/large-files.md", "block: large-files-options"),
              {"Workspace": Workspace, "root": str(tmp_path)})  # fmt: skip
    assert ws.stream_above_bytes == 10 * 2**20 and ws.max_change_bytes == 16 * 2**30


def test_mcpfs_blocks(tmp_path: Path) -> None:
    """The replacement keeps the official server's shape; only the command changes, and
    it serves the roots it is given."""
    official = json.loads("{" + block("docs/mcpfs.md", "block: mcpfs-official") + "}")
    ours = json.loads("{" + block("docs/mcpfs.md", "block: mcpfs-filewright") + "}")
    assert official["filesystem"]["args"][-2:] == ["/Users/me/project", "/Users/me/notes"]
    args = [
        str(tmp_path / a.rsplit("/", 1)[1]) if a.startswith("/Users/me/") else a
        for a in ours["filesystem"]["args"]
    ]
    for name in ("project", "notes"):
        (tmp_path / name).mkdir()
    assert ours["filesystem"]["command"] == "filewright"
    _mcp_list_tools(str(BIN / "filewright"), args, expect="list_allowed_directories")


def _mcp_list_tools(command: str, args: list[str], *, expect: str) -> None:
    """Start a stdio server as a host would and list its tools (the official client)."""
    import anyio
    from mcp import Client
    from mcp.client.stdio import StdioServerParameters

    async def main() -> None:
        async with Client(StdioServerParameters(command=command, args=args), mode="legacy") as c:
            assert expect in [t.name for t in (await c.list_tools()).tools]

    anyio.run(main)


# -- docs/hosts.md and the README's host blocks ---------------------------------------------------


def test_http_token_block_works_in_a_fresh_home(tmp_path: Path) -> None:
    """Item 4 of issue 31: the token file's directory is made first, and the server
    started as written requires the token."""
    import urllib.error
    import urllib.request

    home = tmp_path / "home"
    home.mkdir()
    port = free_port()
    script = fill(block("docs/hosts.md", "block: hosts-http-token"), project=project(tmp_path),
                  port=port)  # fmt: skip
    with background(script, tmp_path, env_for(home), ready="serving"):
        token = (home / ".config" / "filewright" / "token").read_text().strip()
        assert (home / ".config" / "filewright" / "token").stat().st_mode & 0o077 == 0
        init = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "t", "version": "0"}}}  # fmt: skip

        def post(headers: dict[str, str]) -> int:
            request = urllib.request.Request(
                f"http://127.0.0.1:{port}/mcp", json.dumps(init).encode(), method="POST",
                headers={"Content-Type": "application/json",
                         "Accept": "application/json, text/event-stream", **headers},
            )  # fmt: skip
            try:
                with urllib.request.urlopen(request, timeout=30) as answer:
                    return int(answer.status)
            except urllib.error.HTTPError as exc:
                return exc.code

        assert post({}) == 401
        assert post({"Authorization": f"Bearer {token}"}) == 200


CLAUDE = host_binary("claude")
GEMINI = host_binary("gemini")
needs_claude = pytest.mark.skipif(
    CLAUDE is None,
    reason="Claude Code not installed (npm install -g @anthropic-ai/claude-code, or set "
    "FILEWRIGHT_HOSTS_BIN)",
)
needs_gemini = pytest.mark.skipif(
    GEMINI is None,
    reason="Gemini CLI not installed (npm install -g @google/gemini-cli, or set "
    "FILEWRIGHT_HOSTS_BIN)",
)


def _host_env(home: Path, installed: dict[str, Any] | None = None) -> dict[str, str]:
    """A fresh home with the hosts on PATH and, when installed, uv's tool directories (not
    on PATH: the blocks name the full path)."""
    hosts = [Path(b).parent for b in (CLAUDE, GEMINI) if b]
    extra = installed["env"] if installed else {}
    system = installed["system"] if installed else []
    return env_for(home, path=[*hosts, *system], **extra)


@needs_claude
@pytest.mark.parametrize(
    ("file", "marker"),
    [("README.md", "block: readme-claude-code"), ("docs/hosts.md", "block: hosts-claude-code")],
)
def test_claude_code_blocks(
    tmp_path: Path, installed: dict[str, Any], file: str, marker: str
) -> None:
    """Each block, run in a fresh home: Claude Code reports the server Connected. The
    README's block and the guide's are the same text today; a text already run here is
    not run again (its output is what that text gave), a changed one is."""
    text = block(file, marker)
    if text not in _CLAUDE_RUNS:
        home = tmp_path / "home"
        home.mkdir()
        root = project(tmp_path)
        _CLAUDE_RUNS[text] = bash(fill(text, project=root), root, _host_env(home, installed))
    out = _CLAUDE_RUNS[text]
    assert re.search(r"filewright: .* - ✔ Connected", out), out


_CLAUDE_RUNS: dict[str, str] = {}  # a block's text -> what running it printed


@needs_claude
def test_claude_code_http_blocks(tmp_path: Path, installed: dict[str, Any]) -> None:
    """Item 4 of issue 31: each HTTP block runs whole (the old one added one name twice),
    and with the token file made by the HTTP block the server reports Connected."""
    home = tmp_path / "home"
    home.mkdir()
    root = project(tmp_path)
    port = free_port()
    env = _host_env(home, installed)
    serve = fill(block("docs/hosts.md", "block: hosts-http-token"), project=root, port=port)
    plain = fill(block("docs/hosts.md", "block: hosts-claude-code-http"), port=port)
    token = fill(block("docs/hosts.md", "block: hosts-claude-code-http-token"), port=port)
    with background(serve.replace("--toolset default", "--toolset claude"), root, env_for(home),
                    ready="serving"):  # fmt: skip
        bash(plain, root, env)
        refused = bash("claude mcp list", root, env, timeout=180)
        assert "Failed to connect" in refused or "✘" in refused, refused
        bash("claude mcp remove filewright", root, env)
        bash(token, root, env)
        listed = bash("claude mcp list", root, env, timeout=180)
    assert re.search(r"filewright: .* - ✔ Connected", listed), listed


@needs_claude
def test_claude_code_deny_settings_pass_its_validation(tmp_path: Path) -> None:
    """Item 6 of issue 31: `claude doctor` (on a terminal) finds nothing invalid in the
    documented permission rules."""
    import pty
    import select

    home = tmp_path / "home"
    (tmp_path / "project" / ".claude").mkdir(parents=True)
    home.mkdir()
    settings = json.loads(block("docs/hosts.md", "block: hosts-claude-code-deny"))
    (tmp_path / "project" / ".claude" / "settings.json").write_text(json.dumps(settings))
    master, slave = pty.openpty()
    env = _host_env(home) | {"DISABLE_AUTOUPDATER": "1", "TERM": "xterm", "COLUMNS": "200",
                             "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1"}  # fmt: skip
    assert CLAUDE is not None
    proc = subprocess.Popen([CLAUDE, "doctor"], stdin=slave, stdout=slave, stderr=slave,
                            cwd=tmp_path / "project", env=env, start_new_session=True)  # fmt: skip
    os.close(slave)
    seen = ""
    deadline = time.monotonic() + 120
    try:
        while "Entertoclose" not in seen and time.monotonic() < deadline:
            ready, _, _ = select.select([master], [], [], 0.5)
            if ready:
                try:
                    chunk = os.read(master, 65536)
                except OSError:
                    break
                seen += re.sub(r"\x1b\[[0-9;?>]*[A-Za-z]", "", chunk.decode("utf-8", "replace"))
                seen = seen.replace(" ", "")
    finally:
        proc.kill()
        proc.wait(timeout=30)
        os.close(master)
    # The report ran to its end; its redraws skip unchanged cells (cursor moves, removed
    # above), so a word can lose a letter in one frame ("Diagnostcs" seen once).
    assert "Entertoclose" in seen and "Diagnost" in seen, seen[-2000:]
    assert "Invalid" not in seen, seen[-2000:]


def _gemini_list(home: Path, root: Path, settings: dict[str, Any], env: dict[str, str]) -> str:
    (home / ".gemini" / "policies").mkdir(parents=True, exist_ok=True)
    (home / ".gemini" / "settings.json").write_text(json.dumps(settings))
    (home / ".gemini" / "trustedFolders.json").write_text(json.dumps({str(root): "TRUST_FOLDER"}))
    return bash("gemini mcp list 2>&1", root, env, timeout=180)


@needs_gemini
def test_gemini_cli_blocks_and_the_deny_policy(tmp_path: Path, installed: dict[str, Any]) -> None:
    """The README's configuration (full path to the installed command) with the
    documented policy that turns Gemini CLI's own file tools off (item 6 of issue 31):
    the policy passes Gemini CLI's validation and filewright connects."""
    home = tmp_path / "home"
    root = project(tmp_path)
    policy = block("docs/hosts.md", "block: hosts-gemini-deny")
    tomllib.loads(policy)
    (home / ".gemini" / "policies").mkdir(parents=True)
    (home / ".gemini" / "policies" / "filewright.toml").write_text(policy)
    readme = json.loads(fill(block("README.md", "block: readme-gemini-cli"), project=root,
                             tool_bin=installed["tool_bin"]))  # fmt: skip
    out = _gemini_list(home, root, readme, _host_env(home, installed))
    assert "Policy file error" not in out and "deprecated" not in out, out
    assert "filewright" in out and "Connected" in out, out


@needs_gemini
def test_gemini_cli_hosts_block(tmp_path: Path) -> None:
    if UV is None:
        pytest.skip("uv is not on PATH (the configuration runs the checkout with uv)")
    home = tmp_path / "home"
    root = project(tmp_path)
    config = json.loads(fill(block("docs/hosts.md", "block: hosts-gemini-cli"), project=root))
    env = _host_env(home)
    env["PATH"] = os.pathsep.join([env["PATH"], os.environ["PATH"]])  # uv, as the user has it
    out = _gemini_list(home, root, config, env)
    assert "filewright" in out and "Connected" in out, out


def test_claude_desktop_blocks(tmp_path: Path) -> None:
    """Both Claude Desktop configurations start the server as Desktop would (the README's
    runs in tests/test_server_process.py; the guide's is the same)."""
    readme = json.loads(block("README.md", "block: readme-claude-desktop"))
    hosts = json.loads(block("docs/hosts.md", "block: hosts-claude-desktop"))
    assert readme == hosts
    assert (
        "test_claude_desktop_command_from_readme"
        in (REPO / "tests" / "test_server_process.py").read_text()
    )


def _sdk_module(package: str, relative: str) -> Any:
    """One file of an installed SDK, loaded alone: these hold plain typing aliases, and
    importing the SDK package itself costs seconds of CPU."""
    spec = importlib.util.find_spec(package)
    assert spec is not None and spec.submodule_search_locations, package
    path = Path(next(iter(spec.submodule_search_locations))) / relative
    loaded = importlib.util.spec_from_file_location(f"_sdk_{package}_{path.stem}", path)
    assert loaded is not None and loaded.loader is not None, path
    module = importlib.util.module_from_spec(loaded)
    loaded.loader.exec_module(module)
    return module


def test_model_names_are_current_and_in_one_place() -> None:
    """Item 11 of issue 31: every `model=` in the docs is one of the table's names in
    docs/agent-loops.md, each is in its SDK's list of models, and none is one the
    anthropic SDK lists as deprecated (claude-sonnet-4-5 reaches end of life 2026-11-30)."""
    from typing import get_args

    DEPRECATED_MODELS = _sdk_module("anthropic", "_data/deprecated_models.py").DEPRECATED_MODELS
    ModelParam = _sdk_module("anthropic", "types/model_param.py").ModelParam
    ChatModel = _sdk_module("openai", "types/shared/chat_model.py").ChatModel

    text = (REPO / "docs" / "agent-loops.md").read_text(encoding="utf-8")
    table = text.split("<!-- models -->", 1)[1].split("\n\n", 1)[0]
    kept = dict(re.findall(r"^\| (\w+) \| `([\w.-]+)` \|$", table, re.M))
    assert set(kept) == {"OpenAI", "Anthropic", "Gemini"}, table
    used = {m for b in all_blocks() for m in re.findall(r'model="([^"]+)"', b.text)}
    assert used and used <= set(kept.values()), used - set(kept.values())
    assert kept["OpenAI"] in get_args(ChatModel)
    anthropic_models = {a for arg in get_args(ModelParam) for a in get_args(arg)}
    assert kept["Anthropic"] in anthropic_models
    assert not set(kept.values()) & set(DEPRECATED_MODELS)
