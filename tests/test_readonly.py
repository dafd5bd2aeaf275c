"""Reads never write: every toolset reads a tree it cannot write, through the CLI, the
Python API and the MCP server, as a user without write access and on a read-only mount.

The unprivileged user is `nobody` (when the tests run as root and `nobody` could run this
interpreter, with `HOME=/nonexistent` as nobody has) or, when they do not, the test user itself on a tree
whose write bits are removed. The read-only mount is a bind mount in a private mount
namespace (root only). Cases that this machine cannot set up are skipped
with the reason.

The commands run as children forked from the worker's warm interpreter
(tests/forkserver.py) that first become that user (`setresuid`, no groups: root's
capabilities go with the uid) or enter that mount namespace (`unshare(CLONE_NEWNS)`, the
bind mount made read-only), then run the `filewright` command's `main` or the script:
an MCP server's start-up imports the SDK for ~1.5 s of CPU, and these tests start 14.
"""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from forked_mcp import forked_stdio
from forkserver import ForkServer, shared
from mcp import Client
from unprivileged import PRIVATE_CHECKOUT, nobody_can_run_python

CLI_MAIN = "import sys\nfrom filewright.surfaces.cli.main import main\nsys.exit(main())\n"
# What `setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all` does.
PRELUDE_NOBODY = """
import os
os.setgroups([])
os.setresgid(65534, 65534, 65534)
os.setresuid(65534, 65534, 65534)
"""
# What `unshare -m` and `mount --bind -o ro ROOT MOUNT` do.
PRELUDE_MOUNT = """
import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
def _check(rc):
    if rc != 0:
        raise OSError(ctypes.get_errno(), os.strerror(ctypes.get_errno()))
MS_RDONLY, MS_REMOUNT, MS_BIND, MS_REC, MS_PRIVATE = 1, 32, 4096, 16384, 1 << 18
_check(libc.unshare(0x00020000))  # CLONE_NEWNS
_check(libc.mount(b"none", b"/", None, MS_REC | MS_PRIVATE, None))
_check(libc.mount({root!r}.encode(), {mount!r}.encode(), None, MS_BIND, None))
_check(libc.mount(None, {mount!r}.encode(), None, MS_BIND | MS_REMOUNT | MS_RDONLY, None))
"""

# (toolset, tool, arguments, text expected in the result); {root} is the tree's path.
READS: list[tuple[str, str, dict[str, Any], str]] = [
    ("default", "read", {"path": "a.txt"}, "alpha"),
    ("default", "list", {}, "a.txt"),
    ("default", "grep", {"pattern": "alpha"}, "alpha"),
    ("default", "glob", {"pattern": "**/*.txt"}, "a.txt"),
    ("claude", "Read", {"file_path": "{root}/a.txt"}, "alpha"),
    ("text_editor", "str_replace_based_edit_tool", {"command": "view", "path": "{root}/a.txt"}, "alpha"),
    ("gemini", "read_file", {"path": "{root}/a.txt"}, "alpha"),
    ("gemini", "list_directory", {"path": "{root}"}, "a.txt"),
    ("gemini", "search_file_content", {"pattern": "alpha"}, "alpha"),
    ("companion", "read", {"path": "SOUL.md"}, "kind"),
    ("memo", "memo_read", {}, "remember"),
]  # fmt: skip
TOOLSETS = sorted({t for t, *_ in READS})
# worker has no read tool; its dry run of a change to a file the user cannot write answers
# what the change would get, the seed's permission error (issue 23), and writes nothing.
WORKER_DRY_RUN = (
    "replace_in_file",
    {"path": "a.txt", "old": "alpha", "new": "ALPHA"},
    "Permission denied",
)


def fill(value: Any, root: Path) -> Any:
    if isinstance(value, str):
        return value.replace("{root}", str(root))
    if isinstance(value, dict):
        return {k: fill(v, root) for k, v in value.items()}
    return value


def make_tree(base: Path) -> Path:
    root = base / "tree"
    (root / "sub").mkdir(parents=True)
    (root / "a.txt").write_text("alpha\nbeta\n", encoding="utf-8")
    (root / "sub" / "b.txt").write_text("alpha two\n", encoding="utf-8")
    (root / "SOUL.md").write_text("I am kind.\n", encoding="utf-8")
    (root / "MEMORY.md").write_text("remember this\n", encoding="utf-8")
    subprocess.run(["git", "init", "-q", str(root)], check=False, capture_output=True)
    return root


def snapshot(root: Path) -> dict[str, tuple[int, bytes]]:
    out = {}
    for p in sorted(root.rglob("*")):
        if ".git" in p.relative_to(root).parts:
            continue
        mode = p.lstat().st_mode
        out[str(p.relative_to(root))] = (mode, p.read_bytes() if stat.S_ISREG(mode) else b"")
    return out


# -- how each environment runs a command ----------------------------------------------------


class Env:
    """Runs commands as a user who may read the tree but not write it."""

    def __init__(self, kind: str, root: Path, mount: Path | None = None) -> None:
        self.kind, self.root, self.mount = kind, root, mount

    @property
    def tree(self) -> Path:
        """The tree as the commands see it."""
        return self.mount or self.root

    def prelude(self) -> str:
        """Code a forked child runs first to become this environment's user or enter its
        mount namespace (what `setpriv ...` or `unshare -m ... mount --bind -o ro` would
        make of an exec'd one)."""
        if self.kind == "nobody":
            return PRELUDE_NOBODY
        if self.kind == "readonly-mount":
            return PRELUDE_MOUNT.format(root=str(self.root), mount=str(self.mount))
        return ""

    def env(self) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if k != "FILEWRIGHT_STATE_HOME"}
        env["FILEWRIGHT_COMPANION_DIR"] = str(self.tree)
        if self.kind == "nobody":
            env.update(HOME="/nonexistent", XDG_STATE_HOME="", XDG_CONFIG_HOME="")
        else:
            env["FILEWRIGHT_STATE_HOME"] = os.environ["FILEWRIGHT_STATE_HOME"]
        return env

    def run(
        self, forks: ForkServer, argv: list[str], code: str = CLI_MAIN, cwd: str | None = None
    ) -> subprocess.CompletedProcess[str]:
        """`argv` (sys.argv of `code`: the `filewright` command by default) in a child
        forked into this environment, its output and return code."""
        child = forks.spawn(argv, self.prelude() + code, text=True, cwd=cwd, env=self.env())
        out, err = child.communicate(timeout=120)
        return subprocess.CompletedProcess(argv, child.wait(), out, err)


def _can(cmd: list[str]) -> bool:
    try:
        return subprocess.run(cmd, capture_output=True, timeout=30).returncode == 0
    except (OSError, subprocess.SubprocessError):
        return False


@pytest.fixture(params=["nobody", "readonly-mount"])
def env(request: pytest.FixtureRequest) -> Iterator[Env]:
    base = Path(tempfile.mkdtemp(prefix="filewright-ro-"))
    base.chmod(0o755)  # nobody must be able to reach the tree
    root = make_tree(base)
    for p in [root, *root.rglob("*")]:
        p.chmod(p.stat().st_mode | stat.S_IROTH | (stat.S_IXOTH if p.is_dir() else 0))
    try:
        if request.param == "nobody":
            if os.geteuid() != 0:
                # Not root: the test user itself, on a tree without write bits.
                for p in [root, *root.rglob("*")]:
                    p.chmod(p.stat().st_mode & ~0o222)
                yield Env("self", root)
            else:
                if shutil.which("setpriv") is None:
                    pytest.skip("running as root without setpriv: cannot drop to nobody")
                if not nobody_can_run_python():
                    pytest.skip(PRIVATE_CHECKOUT)
                yield Env("nobody", root)
        else:
            mount = base / "mnt"
            mount.mkdir()
            mount.chmod(0o755)
            probe = Env("readonly-mount", root, mount)
            if os.geteuid() != 0 or not _can([sys.executable, "-c", probe.prelude()]):
                pytest.skip("no private mount namespace here (needs root and unshare -m)")
            yield probe
    finally:
        for p in [base, *base.rglob("*")]:
            if p.is_dir() and not p.is_symlink():
                p.chmod(0o755)
        shutil.rmtree(base, ignore_errors=True)


@pytest.fixture
def forks(request: pytest.FixtureRequest) -> ForkServer:
    return shared(request.session)


def check(out: dict[str, Any], want: str, context: str) -> None:
    assert out["ok"], f"{context}: {out['text'][:300]}"
    assert want in out["text"], f"{context}: {out['text'][:300]}"
    assert "trace" not in out.get("data", {}), context


def check_refused(out: dict[str, Any], want: str, context: str) -> None:
    assert not out["ok"] and want in out["text"], f"{context}: {out['text'][:300]}"
    assert "trace" not in out.get("data", {}), context


# -- the three surfaces ------------------------------------------------------------------------


def test_cli_reads_in_every_toolset(env: Env, forks: ForkServer) -> None:
    before = snapshot(env.root)
    for toolset, tool, args, want in READS:
        proc = env.run(
            forks,
            ["filewright", "call", "--toolset", toolset, "--root", str(env.tree), tool,
             json.dumps(fill(args, env.tree))],
            cwd="/",
        )  # fmt: skip
        assert "Traceback" not in proc.stderr, proc.stderr
        assert proc.stdout, proc.stderr
        check(json.loads(proc.stdout), want, f"{env.kind} cli {toolset}.{tool}")
    tool, args, want = WORKER_DRY_RUN
    proc = env.run(
        forks,
        ["filewright", "call", "--toolset", "worker", "--dry-run", "--root", str(env.tree),
         tool, json.dumps(args)],
    )  # fmt: skip
    check_refused(json.loads(proc.stdout), want, f"{env.kind} cli worker dry run")
    assert snapshot(env.root) == before


API = """
import json, sys
from filewright import Workspace
root, reads = sys.argv[1], json.loads(sys.argv[2])
out = []
for toolset, tool, args in reads:
    ws = Workspace(root, session="api")
    out.append(ws.toolset(toolset).call(tool, args).to_dict())
ws = Workspace(root, dry_run=True)
out.append(ws.toolset("worker").call("replace_in_file", json.loads(sys.argv[3])).to_dict())
print(json.dumps(out))
"""


def test_api_reads_in_every_toolset(env: Env, forks: ForkServer) -> None:
    before = snapshot(env.root)
    reads = [(t, tool, fill(a, env.tree)) for t, tool, a, _ in READS]
    argv = ["api", str(env.tree), json.dumps(reads), json.dumps(WORKER_DRY_RUN[1])]
    proc = env.run(forks, argv, API)
    assert proc.returncode == 0, proc.stderr
    results = json.loads(proc.stdout)
    for (toolset, tool, _, want), out in zip(READS, results, strict=False):
        check(out, want, f"{env.kind} api {toolset}.{tool}")
    check_refused(results[-1], WORKER_DRY_RUN[2], f"{env.kind} api worker dry run")
    assert snapshot(env.root) == before


@pytest.mark.parametrize("toolset", TOOLSETS)
def test_mcp_reads_in_every_toolset(env: Env, toolset: str, forks: ForkServer) -> None:
    before = snapshot(env.root)
    argv = ["filewright", "serve", "--toolset", toolset, "--root", str(env.tree)]
    code = env.prelude() + CLI_MAIN

    async def main() -> None:
        stdio = forked_stdio(forks, argv, code=code, cwd="/", env=env.env())
        async with Client(stdio, mode="legacy") as client:
            for name, tool, args, want in READS:
                if name != toolset:
                    continue
                got = await client.call_tool(tool, fill(args, env.tree))
                text = "\n".join(getattr(c, "text", "") for c in got.content)
                assert not got.is_error, f"{env.kind} mcp {toolset}.{tool}: {text[:300]}"
                assert want in text, text[:300]

    anyio.run(main)
    assert snapshot(env.root) == before


def test_a_plain_read_leaves_the_tree_untouched(tmp_path: Path, forks: ForkServer) -> None:
    """In a writable git repository a read creates nothing (no `.filewright/` to commit),
    and the CLI's read ledger still carries a read over to the next call."""
    root = make_tree(tmp_path)
    before = snapshot(root)
    cli = ["filewright", "call", "--toolset", "claude", "--root", str(root)]
    read = forks.run([*cli, "Read", json.dumps({"file_path": str(root / "a.txt")})], timeout=60)
    assert json.loads(read.stdout)["ok"], read.stdout
    assert snapshot(root) == before
    status = subprocess.run(["git", "status", "--porcelain", "--untracked-files=all"],
                            cwd=root, capture_output=True, text=True)  # fmt: skip
    assert ".filewright" not in status.stdout
    edit = forks.run(
        [*cli, "Edit", json.dumps({"file_path": str(root / "a.txt"), "old_string": "beta",
                                   "new_string": "BETA"})],
        timeout=60,
    )  # fmt: skip
    assert json.loads(edit.stdout)["ok"], edit.stdout
    assert (root / ".filewright" / ".gitignore").read_text() == "*\n"
    status = subprocess.run(["git", "status", "--porcelain", "--untracked-files=all"],
                            cwd=root, capture_output=True, text=True)  # fmt: skip
    assert ".filewright" not in status.stdout


def test_the_ledger_is_hidden_when_a_root_holds_it(tmp_path: Path, forks: ForkServer) -> None:
    """A root at $HOME holds the user's state directory: the session ledgers in it are
    as invisible to the agent as `.filewright/` (it could forge a read otherwise)."""
    home = tmp_path / "home"
    state = home / ".local" / "state" / "filewright"
    (home / "a.txt").parent.mkdir(parents=True)
    (home / "a.txt").write_text("alpha\n")
    env = {**os.environ, "FILEWRIGHT_STATE_HOME": str(state)}
    cli = ["filewright", "call", "--root", str(home)]
    assert forks.run([*cli, "read", '{"path": "a.txt"}'], env=env).returncode == 0
    ledgers = [p for p in state.rglob("*.json")]
    assert ledgers, "the read was not recorded"
    rel = str(ledgers[0].relative_to(home))
    for tool, args in [("read", {"path": rel}), ("list", {"path": ".local/state"}),
                       ("glob", {"pattern": "**/*.json"}), ("grep", {"pattern": "hash"}),
                       ("write", {"path": rel, "content": "{}"})]:  # fmt: skip
        out = json.loads(forks.run([*cli, "--yes", tool, json.dumps(args)], env=env).stdout)
        if tool in ("read", "write"):  # answered exactly as for a missing file
            missing = "nope/missing.json"
            other = json.loads(forks.run([*cli, "--yes", tool, json.dumps({**args, "path": missing})],
                                         env=env).stdout)  # fmt: skip
            assert not out["ok"], (tool, out)
            if tool == "read":
                assert out["text"].replace(rel, "P") == other["text"].replace(missing, "P")
        else:
            assert out["ok"] and ledgers[0].name not in out["text"], (tool, out["text"])
            assert "sessions" not in out["text"], (tool, out["text"])
