"""The documented host configurations, replayed with each host's real `initialize`.

`tests/hosts/*.json` hold the `initialize` requests that Claude Code 2.1.197 and Gemini
CLI 0.61.0 (installed from npm) sent to a stub server at session start (`claude -p`,
`gemini -p`, no model key needed that far). Here a raw JSON-RPC client replays them
against `filewright serve` started with the README's arguments for that host, answers
the server's requests as the host would (roots from the project directory; elicitation
as the user would: accept or decline), and checks that a write and an edit succeed when
the user approves and are refused (file unchanged) when the user declines.

The replayed servers are `filewright serve` processes forked from one interpreter that
has imported the MCP SDK (tests/forkserver.py: the command's `main` with the host's
arguments, its own stdin/stdout/stderr), so each costs its work, not the SDK's import;
tests/test_server_process.py starts the command from scratch.

When the hosts themselves are installed (on PATH, or in `$FILEWRIGHT_HOSTS_BIN`), their
own health checks (`claude mcp list`, `gemini mcp list`, each starting the server as a
new process) run against the server too.
"""

from __future__ import annotations

import itertools
import json
import os
import select
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from forkserver import ForkServer, shared

HERE = Path(__file__).resolve().parent
CLI = [sys.executable, "-c", "from filewright.surfaces.cli.main import main; main()"]
CLAUDE_CODE = json.loads((HERE / "hosts" / "claude-code.json").read_text(encoding="utf-8"))
GEMINI_CLI = json.loads((HERE / "hosts" / "gemini-cli.json").read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def forks(request: pytest.FixtureRequest) -> ForkServer:
    return shared(request.session)


class HostReplay:
    """A stdio MCP client that speaks as a captured host: its `initialize`, its answers to
    roots/list (`roots`) and elicitation/create (`decide(message) -> action`)."""

    def __init__(
        self,
        forks: ForkServer,
        serve_args: list[str],
        initialize: dict[str, Any],
        roots: list[Path],
        decide: Callable[[str], str] | None = None,
        cwd: Path | None = None,
    ) -> None:
        self.proc = forks.spawn(["filewright", "serve", *serve_args], cwd=cwd)
        self.roots = roots
        self.decide = decide
        self.asked: list[str] = []
        self.notifications: list[str] = []
        self.ids = itertools.count(1)
        self._buffer = b""
        self.init = self.request("initialize", initialize["params"])
        self.notify("notifications/initialized")

    def send(self, message: dict[str, Any]) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps(message).encode() + b"\n")
        self.proc.stdin.flush()

    def notify(self, method: str) -> None:
        self.send({"jsonrpc": "2.0", "method": method})

    def request(self, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        rid = next(self.ids)
        self.send({"jsonrpc": "2.0", "id": rid, "method": method, "params": params or {}})
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            line = self.readline(deadline)
            if line is None:
                continue
            message = json.loads(line)
            if message.get("id") == rid and "method" not in message:
                assert "error" not in message, message
                return message["result"]
            if "method" in message and "id" in message:
                self.send({"jsonrpc": "2.0", "id": message["id"], "result": self.answer(message)})
            elif "method" in message:
                self.notifications.append(message["method"])
        raise AssertionError(f"no answer to {method}")

    def readline(self, deadline: float) -> bytes | None:
        """The next line from the server (None at the deadline), read with os.read into a
        buffer of our own: a buffered file could hold a whole line that select() never
        reports."""
        assert self.proc.stdout is not None
        fd = self.proc.stdout.fileno()
        while b"\n" not in self._buffer:
            ready, _, _ = select.select(
                [fd], [], [], max(0.0, min(1.0, deadline - time.monotonic()))
            )
            if not ready:
                if time.monotonic() >= deadline:
                    return None
                continue
            chunk = os.read(fd, 1 << 16)
            assert chunk, self.proc.stderr.read() if self.proc.stderr else "server exited"
            self._buffer += chunk
        line, _, self._buffer = self._buffer.partition(b"\n")
        return line

    def answer(self, message: dict[str, Any]) -> dict[str, Any]:
        method = message["method"]
        if method == "roots/list":
            return {"roots": [{"uri": r.as_uri(), "name": r.name} for r in self.roots]}
        if method == "elicitation/create":
            assert self.decide is not None, "this host cannot be asked (no elicitation)"
            self.asked.append(message["params"]["message"])
            action = self.decide(message["params"]["message"])
            return {
                "action": action,
                **({"content": {"approve": True}} if action == "accept" else {}),
            }
        if method == "ping":
            return {}
        raise AssertionError(f"the host would not know {method}")

    def call(self, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
        return self.request("tools/call", {"name": tool, "arguments": arguments})

    def close(self) -> str:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        self.proc.wait(timeout=60)
        return self.proc.stderr.read().decode() if self.proc.stderr else ""


def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    root.mkdir(parents=True)
    (root / "notes.txt").write_text("alpha\nbeta\n", encoding="utf-8")
    (root / "app.py").write_text("x = 1\n", encoding="utf-8")
    return root


def text(result: dict[str, Any]) -> str:
    return "\n".join(c.get("text", "") for c in result["content"])


# -- Claude Code: `serve --toolset claude --root DIR`, elicitation for what needs approval -----


@pytest.mark.parametrize("user", ["approves", "declines"])
def test_claude_code_config(forks: ForkServer, tmp_path: Path, user: str) -> None:
    """Claude Code asks before each tool call itself (its permission prompt) and declares
    elicitation, so the default `--confirm client` puts files under a `confirm` rule to
    the user with the diff: approve → changed; decline → refused, unchanged."""
    root = project(tmp_path)
    (root / ".filewright.toml").write_text('[[rules]]\npattern = "*.txt"\naccess = "confirm"\n')
    host = HostReplay(
        forks,
        ["--toolset", "claude", "--root", str(root)],
        CLAUDE_CODE["initialize"],
        [root],
        decide=lambda _m: "accept" if user == "approves" else "decline",
    )
    try:
        notes = str(root / "notes.txt")
        assert not host.call("Read", {"file_path": notes})["isError"]
        edit = host.call("Edit", {"file_path": notes, "old_string": "alpha", "new_string": "ALPHA"})
        write = host.call("Write", {"file_path": notes, "content": "rewritten\n"})
        host.call("Read", {"file_path": str(root / "app.py")})
        plain = host.call("Edit", {"file_path": str(root / "app.py"), "old_string": "x = 1",
                                   "new_string": "x = 2"})  # fmt: skip
    finally:
        host.close()
    assert len(host.asked) == 2 and all("notes.txt" in q for q in host.asked)
    assert "-alpha" in host.asked[0] and "+ALPHA" in host.asked[0]
    if user == "approves":
        assert not edit["isError"] and not write["isError"], (text(edit), text(write))
        assert (root / "notes.txt").read_text() == "rewritten\n"
    else:
        assert edit["isError"] and write["isError"]
        assert edit["structuredContent"]["error"] == "rejected"
        assert (root / "notes.txt").read_text() == "alpha\nbeta\n"
    # A file no rule guards is changed once the host's own prompt let the call through.
    assert not plain["isError"] and (root / "app.py").read_text() == "x = 2\n"


# -- Gemini CLI: `serve --toolset gemini --confirm host --root DIR` ---------------------------


@pytest.mark.parametrize("user", ["approves", "declines"])
def test_gemini_cli_config(forks: ForkServer, tmp_path: Path, user: str) -> None:
    """Gemini CLI declares no elicitation; it asks the user before every MCP tool call of
    a server it does not trust. With `--confirm host` a call that reaches the server was
    approved there: write_file and replace succeed. When the user declines, Gemini CLI
    sends no call at all, and nothing changes."""
    root = project(tmp_path)
    host = HostReplay(
        forks,
        ["--toolset", "gemini", "--confirm", "host", "--root", str(root)],
        GEMINI_CLI["initialize"],
        [root],
    )
    calls = [
        ("write_file", {"file_path": str(root / "new.txt"), "content": "hello\n"}),
        ("replace", {"file_path": str(root / "notes.txt"), "old_string": "alpha",
                     "new_string": "ALPHA"}),
    ]  # fmt: skip
    try:
        tools = {t["name"]: t for t in host.request("tools/list")["tools"]}
        for name, _ in calls:  # so that the host asks before calling them
            assert tools[name]["annotations"]["readOnlyHint"] is False
        results = [host.call(n, a) for n, a in calls] if user == "approves" else []
    finally:
        host.close()
    assert not host.asked
    if user == "approves":
        assert not any(r["isError"] for r in results), [text(r) for r in results]
        assert (root / "new.txt").read_text() == "hello\n"
        assert (root / "notes.txt").read_text() == "ALPHA\nbeta\n"
    else:
        assert not (root / "new.txt").exists()
        assert (root / "notes.txt").read_text() == "alpha\nbeta\n"


def test_gemini_cli_without_confirm_host_is_refused_with_a_hint(
    forks: ForkServer, tmp_path: Path
) -> None:
    """The reported failure: the gemini toolset asks before every change, Gemini CLI
    cannot be asked by elicitation, so with the default `--confirm client` each change is
    refused with the seed's words, and the structured content and stderr name the fix."""
    root = project(tmp_path)
    host = HostReplay(
        forks, ["--toolset", "gemini", "--root", str(root)], GEMINI_CLI["initialize"], [root]
    )
    try:
        got = host.call("write_file", {"file_path": str(root / "new.txt"), "content": "x\n"})
    finally:
        stderr = host.close()
    assert got["isError"] and "requires user confirmation" in text(got)
    assert "--confirm host" in got["structuredContent"]["hint"]
    assert "--confirm host" in stderr
    assert not (root / "new.txt").exists()


def test_confirm_none_refuses_and_says_so(forks: ForkServer, tmp_path: Path) -> None:
    root = project(tmp_path)
    host = HostReplay(
        forks,
        ["--toolset", "gemini", "--confirm", "none", "--root", str(root)],
        CLAUDE_CODE["initialize"],
        [root],
        decide=lambda _m: "accept",
    )
    try:
        got = host.call("write_file", {"file_path": str(root / "new.txt"), "content": "x\n"})
    finally:
        host.close()
    assert got["isError"] and not host.asked
    assert "--confirm none" in got["structuredContent"]["hint"]
    assert not (root / "new.txt").exists()


# -- the roots, told to the model ----------------------------------------------------------------


def _path_descriptions(listing: dict[str, Any]) -> list[str]:
    out = []
    for tool in listing["tools"]:
        props = tool["inputSchema"].get("properties", {})
        out += [v["description"] for k, v in props.items() if k in ("path", "file_path")]
    return out


@pytest.mark.parametrize("toolset", ["claude", "gemini", "default", "text_editor", "worker"])
def test_the_roots_are_in_the_instructions_and_path_descriptions(
    forks: ForkServer, tmp_path: Path, toolset: str
) -> None:
    root = project(tmp_path)
    host = HostReplay(
        forks, ["--toolset", toolset, "--root", str(root)], GEMINI_CLI["initialize"], [root]
    )
    try:
        listing = host.request("tools/list")
    finally:
        host.close()
    assert str(root) in host.init["instructions"]
    described = _path_descriptions(listing)
    assert described and all(str(root) in d for d in described)


def test_client_roots_are_described_and_kept_current(forks: ForkServer, tmp_path: Path) -> None:
    """Without --root, the client's roots are asked for the listing; after the client
    says its roots changed, the server says the tool list changed and lists the new ones."""
    first, second = project(tmp_path / "a"), project(tmp_path / "b")
    host = HostReplay(
        forks, ["--toolset", "claude"], GEMINI_CLI["initialize"], [first], cwd=tmp_path
    )
    try:
        assert host.init["capabilities"]["tools"]["listChanged"] is True
        before = _path_descriptions(host.request("tools/list"))
        host.roots = [second]
        host.notify("notifications/roots/list_changed")
        host.request("ping")
        after = _path_descriptions(host.request("tools/list"))
        read = host.call("Read", {"file_path": str(second / "notes.txt")})
    finally:
        host.close()
    assert all(str(first) in d for d in before)
    assert "notifications/tools/list_changed" in host.notifications
    assert all(str(second) in d and str(first) not in d for d in after)
    assert not read["isError"]


def test_claude_read_of_a_directory_lists_it(forks: ForkServer, tmp_path: Path) -> None:
    root = project(tmp_path)
    (root / "src").mkdir()
    (root / "src" / "main.py").write_text("print(1)\n")
    host = HostReplay(forks, ["--toolset", "claude", "--root", str(root)], CLAUDE_CODE["initialize"],
                      [root], decide=lambda _m: "decline")  # fmt: skip
    try:
        got = host.call("Read", {"file_path": str(root)})
        sub = host.call("Read", {"file_path": str(root / "src")})
    finally:
        host.close()
    assert not got["isError"], text(got)
    listing = text(got)
    assert "src/" in listing and "notes.txt" in listing and "app.py" in listing
    assert "main.py" in text(sub)


# -- the hosts' own health checks, when they are installed ----------------------------------------


def host_binary(name: str) -> str | None:
    extra = os.environ.get("FILEWRIGHT_HOSTS_BIN")
    if extra and (Path(extra) / name).exists():
        return str(Path(extra) / name)
    return shutil.which(name)


def _serve_command(root: Path, *extra: str) -> list[str]:
    return [*CLI, "serve", *extra, "--root", str(root)]


@pytest.mark.skipif(
    host_binary("claude") is None,
    reason="Claude Code not installed "
    "(npm install -g @anthropic-ai/claude-code, or set FILEWRIGHT_HOSTS_BIN)",
)
def test_claude_mcp_list_reports_connected(tmp_path: Path) -> None:
    root = project(tmp_path)
    home = tmp_path / "home"
    home.mkdir()
    env = {**os.environ, "HOME": str(home)}
    claude = host_binary("claude")
    assert claude is not None
    cmd = _serve_command(root, "--toolset", "claude")
    add = subprocess.run([claude, "mcp", "add", "filewright", "--", *cmd], cwd=root, env=env,
                         capture_output=True, text=True, timeout=120)  # fmt: skip
    assert add.returncode == 0, add.stderr
    listed = subprocess.run([claude, "mcp", "list"], cwd=root, env=env, capture_output=True,
                            text=True, timeout=180)  # fmt: skip
    assert "filewright" in listed.stdout and "Connected" in listed.stdout, listed.stdout


@pytest.mark.skipif(
    host_binary("gemini") is None,
    reason="Gemini CLI not installed "
    "(npm install -g @google/gemini-cli, or set FILEWRIGHT_HOSTS_BIN)",
)
def test_gemini_mcp_list_reports_connected(tmp_path: Path) -> None:
    root = project(tmp_path)
    home = tmp_path / "home"
    (home / ".gemini").mkdir(parents=True)
    cmd = _serve_command(root, "--toolset", "gemini", "--confirm", "host")
    settings = {
        "mcpServers": {"filewright": {"command": cmd[0], "args": cmd[1:], "timeout": 30000}}
    }
    (home / ".gemini" / "settings.json").write_text(json.dumps(settings))
    (home / ".gemini" / "trustedFolders.json").write_text(json.dumps({str(root): "TRUST_FOLDER"}))
    gemini = host_binary("gemini")
    assert gemini is not None
    listed = subprocess.run([gemini, "mcp", "list"], cwd=root, capture_output=True, text=True,
                            timeout=180, env={**os.environ, "HOME": str(home)})  # fmt: skip
    out = listed.stdout + listed.stderr
    assert "filewright" in out and "Connected" in out, out
