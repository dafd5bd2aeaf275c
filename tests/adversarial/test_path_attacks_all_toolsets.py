"""Path attacks through every toolset, not only the engine.

Every tool that names a path (`path`, `file_path`, the memo document option …) is driven
with the foundation's attack list (`..`, absolute paths outside, the prefix sibling
`ws-evil`, symlinks out: existing, dangling, chained, loops, through `/proc/self/root`;
NUL; `~`), the protected set under case variants, trailing dots and spaces and Unicode
folding, names created through a symlinked directory, and the less obvious ones: hard
links, FIFOs, a root that is itself a symlink, a file used as a directory, very long
names, newlines, the state directory and the policy file (directly and through links),
Windows separators, `file://` URLs and percent-encoding.

The invariants: a refused call is a clear failure that changes nothing in the root (nor
outside it); nothing outside the root is ever created, read or changed (the arena's canary
tree is compared after every test); protected files are neither modified nor created.
"""

from __future__ import annotations

import json
import os
import socket
import stat
from pathlib import Path
from typing import Any

import pytest
from forkserver import ForkServer, shared

from filewright import Workspace
from filewright.fs.textfile import content_hash
from filewright.state.statedir import _key

from .support import (
    SECRET,
    TOOLSETS,
    Arena,
    as_given,
    assert_clean_result,
    assert_no_secret,
    read_calls,
    read_first,
    snapshot_diff,
    toolset,
    write_calls,
)

WRITING_TOOLSETS = [t for t in TOOLSETS if t != "memo"]


@pytest.fixture(scope="module")
def forks(request: pytest.FixtureRequest) -> ForkServer:
    return shared(request.session)


def cli(forks: ForkServer, args: list[str], timeout: float = 60) -> Any:
    """The `filewright` command, forked from the test process's warm interpreter
    (tests/forkserver.py): a process of its own, without an interpreter start-up."""
    return forks.run(["filewright", *args], timeout=timeout)


def _escapes(arena: Arena) -> list[str]:
    root, out = str(arena.root), arena.outside
    return [
        "../outside/secret.txt",
        "a/../../outside/secret.txt",
        "sub/../../outside/new.txt",
        "../" * 50 + "etc/passwd",
        "../ws-evil/x.txt",
        str(out / "secret.txt"),
        str(out / "new.txt"),
        str(out / "dir" / "hooks" / "pre-commit"),
        str(arena.evil / "x.txt"),
        root + "-evil/x.txt",
        root + "/../outside/secret.txt",
        root + "/sub/../../outside/new.txt",
        "linkout/secret.txt",
        "linkout/new.txt",
        "linkout/dir/inner.txt",
        "secretlink",
        "dangling",
        "dangling-dir/x.txt",
        "chain1/inner.txt",
        "chain1/new.txt",
        "loop-a",
        "loop-a/x",
        "procroot/etc/passwd",
        "procroot" + str(out / "secret.txt"),
        "evil-link/x.txt",
        "evil-link/new.txt",
        "/etc/passwd",
        "/proc/self/root" + str(out / "secret.txt"),
        "a\x00b.txt",
        "a.txt\x00../../outside/secret.txt",
        "~/x.txt",
        "~root/x.txt",
        "a\nb.txt",
        "a\u202etxt.exe",
        "x\ud800.txt",
    ]


def file_management_calls(ts_name: str, path: str) -> list[tuple[str, dict[str, Any]]]:
    """Moving to and from `path`, deleting it, making a directory in it, asking about it."""
    if ts_name == "mcpfs":
        return [
            ("move_file", {"source": path, "destination": "moved.txt"}),
            ("move_file", {"source": "a.txt", "destination": path}),
            ("create_directory", {"path": path + "/d"}),
        ]
    return [
        ("move", {"source": path, "destination": "moved.txt"}),
        ("move", {"source": "a.txt", "destination": path}),
        ("move", {"source": "a.txt", "destination": path, "overwrite": True}),
        ("delete", {"path": path}),
        ("delete", {"path": path, "recursive": True}),
        ("mkdir", {"path": path + "/d"}),
        ("stat", {"path": path}),
        ("tree", {"path": path}),
    ]


def _call_all(ts: Any, calls: list[tuple[str, dict[str, Any]]]) -> list[tuple[str, Any]]:
    return [(tool, ts.call(tool, args)) for tool, args in calls]


# -- escapes -------------------------------------------------------------------------------


@pytest.mark.parametrize("ts_name", WRITING_TOOLSETS)
def test_escapes_are_refused_by_every_tool(arena: Arena, ts_name: str) -> None:
    ts = toolset(arena.workspace(confirm=True), ts_name)
    for raw in _escapes(arena):
        # "~/x" under an absolute root is a harmless name; for claude / text_editor send it raw
        path = raw if raw.startswith("~") else as_given(arena, ts_name, raw)
        before = arena.root_snapshot()
        calls = read_calls(ts_name, path) + write_calls(ts_name, path)
        if ts_name == "default":
            calls.append(("undo", {"path": path}))
            calls += file_management_calls("default", path)
        if ts_name == "mcpfs":
            calls += file_management_calls("mcpfs", path)
        for tool, result in _call_all(ts, calls):
            context = f"{ts_name}.{tool}({raw!r})"
            assert_clean_result(result, context)
            assert not result.ok, f"{context} succeeded: {result.text[:200]}"
            assert_no_secret(result, context)
        changed = snapshot_diff(before, arena.root_snapshot())
        assert not changed, f"{ts_name} {raw!r}: the root changed although refused: {changed}"


def test_escapes_through_the_memo_document(arena: Arena) -> None:
    ws = arena.workspace(confirm=True)
    for raw in _escapes(arena):
        try:
            ts = ws.toolset("memo", document=raw)
        except ValueError:
            continue
        before = arena.root_snapshot()
        for tool, args in [("memo_read", {}), *write_calls("memo", raw)]:
            result = ts.call(tool, args)
            assert_clean_result(result, f"memo[{raw!r}].{tool}")
            assert not result.ok, f"memo document {raw!r}: {tool} succeeded"
            assert_no_secret(result, f"memo[{raw!r}].{tool}")
        assert not snapshot_diff(before, arena.root_snapshot())


@pytest.mark.parametrize("ts_name", ["gemini", "text_editor", "default"])
def test_listing_and_search_never_cross_a_link_out(arena: Arena, ts_name: str) -> None:
    """Listings, globs and searches of the root do not descend into links that lead out,
    and a search never reports text from outside."""
    ts = toolset(arena.workspace(), ts_name)
    root = str(arena.root)
    if ts_name == "gemini":
        calls = [
            ("list_directory", {"path": root}),
            ("glob", {"pattern": "**/*"}),
            ("glob", {"pattern": "**/*", "case_sensitive": True, "respect_git_ignore": False}),
            ("glob", {"pattern": "linkout/**"}),
            ("glob", {"pattern": "../outside/*"}),
            ("glob", {"pattern": str(arena.outside) + "/*"}),
            ("glob", {"pattern": "**/../../outside/*"}),
            ("search_file_content", {"pattern": "CANARY"}),
            ("search_file_content", {"pattern": "CANARY", "include": "**/*"}),
            ("search_file_content", {"pattern": "CANARY", "include": "../outside/*"}),
            ("search_file_content", {"pattern": "CANARY", "include": str(arena.outside) + "/*"}),
            ("list_directory", {"path": root, "ignore": ["../*"]}),
        ]
    elif ts_name == "default":
        calls = [
            ("list", {"path": root}),
            ("list", {"path": "linkout"}),
            ("glob", {"pattern": "**/*"}),
            ("glob", {"pattern": "../outside/*"}),
            ("glob", {"pattern": "linkout/**"}),
            ("grep", {"pattern": "CANARY"}),
            ("grep", {"pattern": "CANARY", "include": "../outside/*"}),
            ("grep", {"pattern": "CANARY", "path": "linkout"}),
        ]
    else:
        calls = [("str_replace_editor", {"command": "view", "path": root})]
    for tool, args in calls:
        result = ts.call(tool, args)
        assert_clean_result(result, f"{ts_name}.{tool}")
        assert_no_secret(result, f"{ts_name}.{tool}({args})")
        assert "inner.txt" not in result.text and "ws-evil" not in result.text, result.text


# -- the protected set ------------------------------------------------------------------------

PROTECTED_EVERYWHERE = [
    ".git/config",
    ".git/hooks/pre-commit",
    ".git/HEAD",
    "sub/.git/config",
    ".gitmodules",
    ".vscode/settings.json",
    ".vscode/tasks.json",
    ".vscode/launch.json",
    ".mcp.json",
    ".claude/settings.json",
    ".claude/settings.local.json",
    ".cursor/rules/x.mdc",
    ".envrc",
    "uv.lock",
    "package-lock.json",
    "Cargo.lock",
    ".bashrc",
    ".filewright.toml",
    # case variants
    ".GIT/config",
    ".Git/hooks/pre-commit",
    ".VSCODE/SETTINGS.JSON",
    ".Mcp.Json",
    ".CLAUDE/Settings.json",
    "UV.LOCK",
    ".FILEWRIGHT.TOML",
    # trailing dots and spaces
    ".git./config",
    ".git /config",
    ".git. . /hooks/pre-commit",
    ".mcp.json.",
    ".mcp.json ",
    ".mcp.json. .",
    ".vscode./settings.json ",
    "uv.lock.",
    ".filewright.toml.",
    # Unicode folding (full-width letters and dots)
    "．git/config",
    ".ｇｉｔ/hooks/pre-commit",
    "\uff0emcp\uff0ejson",
    ".ＶＳＣＯＤＥ/settings.json",
    # through links inside the root
    "innocent/config",
    "innocent/hooks/pre-commit",
    "vs/settings.json",
    "mcp-link",
    "policy-link",
]
HIDDEN_STATE = [
    ".filewright/x",
    ".filewright/history/x",
    "state-link/x",
    ".FILEWRIGHT/x",
    "x.fwtmp",
]
PROTECTED_CLAUDE = [
    ".env",
    ".ENV",
    ".env.",
    ".env ",
    ".env.local",
    ".Env.Production",
    "．env",
    "sub/.env",
    "node_modules/x.js",
    "node_modules/.bin/tool",
    "yarn.lock",
    "pnpm-lock.yaml",
]


def _protected_for(ts_name: str) -> list[str]:
    return PROTECTED_EVERYWHERE + HIDDEN_STATE + (PROTECTED_CLAUDE if ts_name == "claude" else [])


@pytest.mark.parametrize("ts_name", WRITING_TOOLSETS)
def test_protected_files_are_neither_modified_nor_created(arena: Arena, ts_name: str) -> None:
    root = arena.root
    (root / ".filewright.toml").write_text("# the workspace's policy\n", encoding="utf-8")
    (root / ".vscode").mkdir()
    (root / ".vscode" / "settings.json").write_text("{}\n", encoding="utf-8")
    (root / "node_modules").mkdir()
    Workspace(str(root), confirm=True).toolset("default").call(
        "write", {"path": "seed.txt", "content": "s"}
    )
    assert (root / ".filewright").is_dir()
    ts = toolset(arena.workspace(confirm=True), ts_name)
    for rel in _protected_for(ts_name):
        path = as_given(arena, ts_name, rel)
        read_first(ts, ts_name, path)  # read-before-write must not be what stops the change
        before = arena.root_snapshot()
        state_before = _state_files(root)
        for tool, result in _call_all(ts, write_calls(ts_name, path)):
            context = f"{ts_name}.{tool}({rel!r})"
            assert_clean_result(result, context)
            assert not result.ok, f"{context} changed a protected file: {result.text[:200]}"
        changed = snapshot_diff(before, arena.root_snapshot())
        assert not changed, f"{ts_name} {rel!r}: {changed}"
        assert _state_files(root) == state_before, f"{ts_name} {rel!r}: state directory changed"


def _state_files(root: Path) -> dict[str, bytes]:
    out = {}
    for p in sorted((root / ".filewright").rglob("*")):
        if p.is_file() and not p.name.endswith(".lock") and "sessions" not in p.parts:
            out[str(p.relative_to(root))] = p.read_bytes()
    return out


@pytest.mark.parametrize("ts_name", ["default", "gemini", "text_editor", "companion", "claude"])
def test_state_directory_is_invisible(arena: Arena, ts_name: str) -> None:
    root = arena.root
    Workspace(str(root), session="s").toolset("default").call(
        "write", {"path": "n.txt", "content": "1"}
    )
    ts = toolset(arena.workspace(), ts_name)
    for rel in [
        ".filewright",
        ".filewright/sessions/s.json",
        "state-link",
        "state-link/sessions/s.json",
        ".filewright/.gitignore",
    ]:
        for tool, result in _call_all(ts, read_calls(ts_name, as_given(arena, ts_name, rel))):
            assert_clean_result(result, f"{ts_name}.{tool}({rel})")
            assert not result.ok, f"{ts_name}.{tool} showed {rel}: {result.text[:200]}"
    if ts_name == "gemini":
        for tool, args in [
            ("list_directory", {"path": str(root)}),
            ("glob", {"pattern": "**/*"}),
            ("glob", {"pattern": "**/.filewright/**"}),
            ("search_file_content", {"pattern": "n.txt|entries|\\*"}),
        ]:
            result = ts.call(tool, args)
            shown = result.text + json.dumps(result.data)
            for leak in (str(root / ".filewright") + "/", "s.json", "index.json", ".gitignore"):
                assert leak not in shown, result.text
    if ts_name == "text_editor":
        result = ts.call("str_replace_editor", {"command": "view", "path": str(root)})
        assert "/.filewright" not in result.text


# -- confirmation and the companion's memory switch ---------------------------------------


@pytest.mark.parametrize("confirm", [False, None], ids=["rejected", "nobody-to-ask"])
def test_soul_needs_confirmation_under_every_name(arena: Arena, confirm: Any) -> None:
    root = arena.root
    os.symlink("SOUL.md", root / "soul-link")
    ws = arena.workspace(confirm=(lambda _r: False) if confirm is False else None)
    ts = ws.toolset("companion")
    for name in [
        "SOUL.md",
        "./SOUL.md",
        "sub/../SOUL.md",
        "soul-link",
        str(root / "SOUL.md"),
        "SOUL.md/",
        "SOUL.md.",
    ]:
        before = arena.root_snapshot()
        for tool, result in _call_all(ts, write_calls("companion", name)):
            assert_clean_result(result, f"companion.{tool}({name!r})")
            assert not result.ok, f"SOUL.md changed without approval via {name!r}"
        assert not snapshot_diff(before, arena.root_snapshot())


def test_companion_memory_off_hides_user_and_memory(arena: Arena) -> None:
    root = arena.root
    os.symlink("MEMORY.md", root / "mem-link")
    ts = arena.workspace(memory=False).toolset("companion")
    for name in [
        "USER.md",
        "user.md",
        "./USER.md",
        "sub/../MEMORY.md",
        "mem-link",
        "MEMORY.md.",
        str(root / "MEMORY.md"),
        "ＭＥＭＯＲＹ.md",
    ]:
        before = arena.root_snapshot()
        for tool, result in _call_all(
            ts, read_calls("companion", name) + write_calls("companion", name)
        ):
            assert_clean_result(result, f"companion.{tool}({name!r})")
            assert not result.ok, f"memory off, but {tool} {name!r} worked: {result.text[:100]}"
            assert "# Memory" not in result.text and "name: A" not in result.text
        assert not snapshot_diff(before, arena.root_snapshot())


# -- things that are not attacks, only look like them ------------------------------------------

LITERAL_NAMES = [
    "%2e%2e/x.txt",
    "..%2f..%2fx.txt",
    "..\\..\\x.txt",
    "a\\..\\..\\x.txt",
    "file:///etc/passwd",
    "．．／x.txt",
    "\u2024\u2024/x.txt",
    "...",
    ".. .",
    "$HOME/x.txt",
    "-rf",
    "*.txt",
    "[a].txt",
    "ws-evil",
]


@pytest.mark.parametrize("ts_name", WRITING_TOOLSETS)
def test_lookalike_names_stay_literal_names_inside(arena: Arena, ts_name: str) -> None:
    """Percent-encoding, backslashes, URLs and look-alike dots are names, not navigation:
    either refused or created inside the root under that literal name."""
    ts = toolset(arena.workspace(confirm=True), ts_name)
    for raw in LITERAL_NAMES:
        path = as_given(arena, ts_name, raw)
        before = arena.root_snapshot()
        tool, args = write_calls(ts_name, path)[0]
        result = ts.call(tool, args)
        assert_clean_result(result, f"{ts_name}.{tool}({raw!r})")
        created = snapshot_diff(before, arena.root_snapshot())
        if result.ok:
            assert created and all(c.startswith("created") or "mtime" in c for c in created), (
                created
            )
            target = os.path.normpath(os.path.join(str(arena.root), raw))
            assert os.path.isfile(target), (raw, created)
        else:
            assert not created


# -- hard links, FIFOs, sockets, devices ---------------------------------------------------------


@pytest.mark.parametrize("ts_name", WRITING_TOOLSETS)
def test_hard_link_to_an_outside_file_is_never_written_through(arena: Arena, ts_name: str) -> None:
    """A hard link inside the root shares its inode with a file outside. Reading it shows
    that file's content (a documented limit: the root's bytes are the workspace), but no
    write goes through it: the atomic rename replaces the link, the outside file keeps its
    bytes, mode and mtime. (Checked by the arena's canary comparison after the test.)"""
    victim = arena.base / "victim.txt"
    victim.write_text(f"{SECRET} victim\n", encoding="utf-8")
    os.utime(victim, (1_000_000_000, 1_000_000_000))
    os.link(victim, arena.root / "hard.txt")
    os.utime(arena.base, (1_000_000_000, 1_000_000_000))
    original = victim.read_bytes()
    ts = toolset(arena.workspace(confirm=True), ts_name)
    path = as_given(arena, ts_name, "hard.txt")
    read_first(ts, ts_name, path)
    for tool, args in write_calls(ts_name, path):
        result = ts.call(tool, args)
        assert_clean_result(result, f"{ts_name}.{tool}")
        read_first(ts, ts_name, path)
    assert victim.read_bytes() == original
    assert os.stat(victim).st_mtime == 1_000_000_000
    victim.unlink()  # the canary check after the test must not see it
    os.utime(arena.base, (1_000_000_000, 1_000_000_000))


@pytest.mark.parametrize("ts_name", WRITING_TOOLSETS)
def test_fifos_sockets_and_devices_are_refused_without_blocking(arena: Arena, ts_name: str) -> None:
    root = arena.root
    os.mkfifo(root / "fifo")
    sock = socket.socket(socket.AF_UNIX)
    sock.bind(str(root / "sock"))
    specials = ["fifo", "sock"]
    try:
        os.mknod(root / "null", 0o666 | stat.S_IFCHR, os.makedev(1, 3))
        specials.append("null")
    except (PermissionError, OSError):
        pass  # no CAP_MKNOD here; the FIFO and the socket still cover "not a regular file"
    os.symlink("fifo", root / "fifo-link")
    specials.append("fifo-link")
    try:
        ts = toolset(arena.workspace(confirm=True), ts_name)
        for name in specials:
            path = as_given(arena, ts_name, name)
            for tool, result in _call_all(
                ts, read_calls(ts_name, path)[:1] + write_calls(ts_name, path)
            ):
                assert_clean_result(result, f"{ts_name}.{tool}({name})")
                assert not result.ok, f"{ts_name}.{tool} on {name}: {result.text[:100]}"
            assert stat.S_ISFIFO(os.lstat(root / "fifo").st_mode)
            assert stat.S_ISSOCK(os.lstat(root / "sock").st_mode)
    finally:
        sock.close()


def test_searches_skip_fifos_without_blocking(arena: Arena, forks: ForkServer) -> None:
    """A FIFO in the searched tree must not hang grep, glob or listing (through the CLI,
    with a timeout, so a hang fails the test instead of the suite)."""
    os.mkfifo(arena.root / "sub" / "pipe.txt")
    for tool, args in [
        ("search_file_content", {"pattern": "return"}),
        ("search_file_content", {"pattern": "x", "include": "**/pipe.txt"}),
        ("glob", {"pattern": "**/*.txt"}),
        ("list_directory", {"path": "sub"}),
        ("read_file", {"path": "sub/pipe.txt"}),
    ]:
        proc = cli(
            forks,
            ["call", "--root", str(arena.root), "--toolset", "gemini", tool, json.dumps(args)],
            timeout=60,
        )
        out = json.loads(proc.stdout)
        assert "Traceback" not in proc.stdout + proc.stderr
        if tool == "read_file":
            assert not out["ok"]


# -- odd shapes of paths -------------------------------------------------------------------------


@pytest.mark.parametrize("ts_name", WRITING_TOOLSETS)
def test_odd_paths_fail_clearly(arena: Arena, ts_name: str) -> None:
    ts = toolset(arena.workspace(confirm=True), ts_name)
    odd = [
        "a.txt/b",  # a file used as a directory
        "a.txt/b/c.txt",
        "a.txt/",
        "sub",  # a directory where a file is needed
        "sub/",
        ".",
        "x" * 256,  # ENAMETOOLONG for one component
        "d/" * 2100 + "x.txt",  # longer than PATH_MAX
        "/".join(["y" * 250] * 20) + "/z.txt",
        "",
        " ",
    ]
    for raw in odd:
        path = as_given(arena, ts_name, raw) if raw.strip() else raw
        before = arena.root_snapshot()
        for tool, result in _call_all(ts, write_calls(ts_name, path)):
            context = f"{ts_name}.{tool}({raw[:40]!r})"
            assert_clean_result(result, context)
            assert not result.ok, f"{context}: {result.text[:200]}"
            assert len(result.text) < 20_000, f"{context}: a {len(result.text)}-character error"
        assert not snapshot_diff(before, arena.root_snapshot()), raw[:40]
    assert (arena.root / "a.txt").is_file()


@pytest.mark.parametrize("ts_name", ["default", "claude", "gemini", "text_editor"])
def test_root_that_is_a_symlink(arena: Arena, ts_name: str) -> None:
    """A root given through a symlink: paths through the link or the real directory work,
    escapes from either are refused."""
    link = arena.base / "ws-link"
    os.symlink(arena.root, link)
    try:
        ts = toolset(Workspace(str(link), confirm=True), ts_name)
        for path in [str(link / "a.txt"), str(arena.root / "a.txt")]:
            result = ts.call(*read_calls(ts_name, path)[0])
            assert result.ok, result.text
        for path in [
            str(link / ".." / "outside" / "secret.txt"),
            str(link) + "/../outside/new.txt",
            str(link) + "-evil/x.txt",
            str(arena.evil / "x.txt"),
        ]:
            for tool, result in _call_all(
                ts, read_calls(ts_name, path)[:1] + write_calls(ts_name, path)
            ):
                assert_clean_result(result, f"{ts_name}.{tool}({path})")
                assert not result.ok
                assert_no_secret(result)
    finally:
        link.unlink()
        os.utime(arena.base, (1_000_000_000, 1_000_000_000))


def test_symlink_swapped_in_during_writes_never_escapes(arena: Arena) -> None:
    """A directory flipped between a real directory and a symlink to the outside while
    writes run (check-then-use races): the fd-relative, O_NOFOLLOW walk refuses the link,
    so no write ever lands outside. Whether a given write wins the race varies; the
    invariant does not."""
    import threading

    stop = threading.Event()
    flip_dir = arena.root / "flip"
    outside_target = arena.outside / "dir"

    def flipper() -> None:
        while not stop.is_set():
            try:
                if flip_dir.is_symlink():
                    flip_dir.unlink()
                    flip_dir.mkdir()
                else:
                    for child in flip_dir.iterdir():
                        child.unlink()
                    flip_dir.rmdir()
                    os.symlink(outside_target, flip_dir)
            except OSError:
                pass

    flip_dir.mkdir()
    thread = threading.Thread(target=flipper, daemon=True)
    thread.start()
    try:
        ts = arena.workspace(confirm=True).toolset("default")
        for i in range(300):
            result = ts.call("write", {"path": "flip/inner.txt", "content": f"PWNED {i}\n"})
            assert_clean_result(result)
            result = ts.call("read", {"path": "flip/inner.txt"})
            assert_clean_result(result)
            assert_no_secret(result)
    finally:
        stop.set()
        thread.join(10)
    # The arena fixture compares the canary tree (outside/dir/inner.txt holds SECRET).


# -- planted state: a workspace that ships its own `.filewright` --------------------------------


def _write_via_cli(
    arena: Arena, forks: ForkServer, extra: list[str] | None = None
) -> dict[str, Any]:
    proc = cli(
        forks,
        [
            "call",
            "--root",
            str(arena.root),
            *(extra or []),
            "write",
            json.dumps({"path": "a.txt", "content": "changed\n"}),
        ],
    )
    assert "Traceback" not in proc.stdout + proc.stderr, proc.stderr
    assert proc.returncode in (0, 1, 2)
    return json.loads(proc.stdout) if proc.stdout.strip() else {"ok": False}


@pytest.mark.parametrize(
    "planted", [".filewright", ".filewright/history", ".filewright/locks", ".filewright/sessions"]
)
def test_planted_state_links_never_lead_outside(
    arena: Arena, forks: ForkServer, planted: str
) -> None:
    """A cloned repository may ship `.filewright` (or a part of it) as a symlink to a
    directory outside. filewright must not write its backups, locks or ledgers there."""
    target = arena.base / "planted-target"
    target.mkdir()
    os.utime(target, (1_000_000_000, 1_000_000_000))
    os.utime(arena.base, (1_000_000_000, 1_000_000_000))
    link = arena.root / planted
    link.parent.mkdir(parents=True, exist_ok=True)
    os.symlink(target, link)
    before = arena.outside_snapshot()
    out = _write_via_cli(arena, forks)
    assert not out["ok"] and "symlink" in out.get("text", ""), out
    assert (arena.root / "a.txt").read_text(encoding="utf-8").startswith("alpha")
    try:
        ws = Workspace(str(arena.root), confirm=True, session="s")
    except ValueError as exc:
        assert "symlink" in str(exc) and planted in str(exc)
    else:
        for tool, args in [
            ("read", {"path": "a.txt"}),
            ("write", {"path": "a.txt", "content": "x\n"}),
            ("undo", {"path": "a.txt"}),
        ]:
            assert_clean_result(
                ws.toolset("default").call(tool, args), f"{tool} with {planted} planted"
            )
    arena.assert_outside_unchanged(before, f"planted {planted}")
    assert not list(target.iterdir())
    target.rmdir()
    os.utime(arena.base, (1_000_000_000, 1_000_000_000))


def test_planted_backup_cannot_smuggle_an_outside_file_in(arena: Arena, forks: ForkServer) -> None:
    """A forged history whose "previous version" is a symlink to a file outside: undo must
    not copy that file's content into the workspace (where the agent could read it)."""
    a = arena.root / "a.txt"
    real_a = str(a.resolve())
    hist = arena.root / ".filewright" / "history" / _key(real_a)
    hist.mkdir(parents=True)
    entry = {
        "id": 1,
        "time": "2025-01-01T00:00:00.000+00:00",
        "operation": "write",
        "existed": True,
        "hash_after": content_hash(a.read_bytes()),
        "size_before": 10,
    }
    (hist / "index.json").write_text(
        json.dumps({"path": real_a, "entries": [entry]}), encoding="utf-8"
    )
    os.symlink(arena.outside / "secret.txt", hist / "1.bak")
    for ts_name, tool, args in [
        ("default", "undo", {"path": "a.txt"}),
        ("text_editor", "str_replace_editor", {"command": "undo_edit", "path": str(a)}),
    ]:
        result = toolset(arena.workspace(confirm=True), ts_name).call(tool, args)
        assert_clean_result(result, f"{ts_name} undo with a planted backup")
        assert SECRET not in a.read_text(encoding="utf-8"), (
            f"{ts_name}: undo copied an outside file in"
        )
    proc = cli(forks, ["undo", "--root", str(arena.root), "a.txt"])
    assert "Traceback" not in proc.stdout + proc.stderr
    assert SECRET not in a.read_text(encoding="utf-8"), "filewright undo copied an outside file in"


def test_planted_gitignore_link_is_not_written_through(arena: Arena, forks: ForkServer) -> None:
    (arena.root / ".filewright").mkdir()
    os.symlink(arena.outside / "created-by-filewright", arena.root / ".filewright" / ".gitignore")
    before = arena.outside_snapshot()
    _write_via_cli(arena, forks)
    arena.assert_outside_unchanged(before, "planted .gitignore link")


def test_policy_file_is_read_only_for_agents_everywhere(arena: Arena) -> None:
    """`.filewright.toml` is the user's policy: no toolset may create or change it, also
    through a link or a case/dot variant; a second root's policy file likewise."""
    second = arena.root / "sub"
    (arena.root / ".filewright.toml").write_text(
        '[[rules]]\npattern = "sub/b.py"\naccess = "read"\n', encoding="utf-8"
    )
    ws = Workspace([str(arena.root), str(second)], confirm=True)
    for ts_name in WRITING_TOOLSETS:
        ts = toolset(ws, ts_name)
        for rel in [
            ".filewright.toml",
            "policy-link",
            "./.filewright.toml",
            str(second / ".filewright.toml"),
        ]:
            path = as_given(arena, ts_name, rel)
            read_first(ts, ts_name, path)
            before = arena.root_snapshot()
            for tool, result in _call_all(
                ts, write_calls(ts_name, path, '[[rules]]\npattern = "*"\naccess = "write"\n')
            ):
                assert_clean_result(result, f"{ts_name}.{tool}({rel})")
                assert not result.ok, f"{ts_name}.{tool} wrote the policy file via {rel}"
            assert not snapshot_diff(before, arena.root_snapshot())
        # and the policy it holds is in force: sub/b.py is read-only
        tool, args = write_calls(ts_name, as_given(arena, ts_name, "sub/b.py"))[0]
        read_first(ts, ts_name, as_given(arena, ts_name, "sub/b.py"))
        assert not ts.call(tool, args).ok


def test_workspace_policy_file_cannot_unprotect_git_hooks(arena: Arena) -> None:
    (arena.root / ".filewright.toml").write_text(
        '[[rules]]\npattern = ".git/"\naccess = "write"\n', encoding="utf-8"
    )
    result = (
        arena.workspace(confirm=True)
        .toolset("default")
        .call("write", {"path": ".git/hooks/pre-commit", "content": "#!/bin/sh\necho pwned\n"})
    )
    assert not result.ok
    assert not (arena.root / ".git" / "hooks" / "pre-commit").exists()


@pytest.mark.parametrize("how", ["xdg", "env"])
def test_trusted_user_policy_inside_a_root_is_read_only(
    arena: Arena, monkeypatch: pytest.MonkeyPatch, how: str
) -> None:
    """A root that holds the user's own (trusted) policy file, e.g. a root at $HOME: no tool
    may create or change it, or an agent could loosen its protections for the next run."""
    if how == "xdg":
        monkeypatch.delenv("FILEWRIGHT_POLICY", raising=False)
        monkeypatch.setenv("XDG_CONFIG_HOME", str(arena.root / ".config"))
        rel = ".config/filewright/policy.toml"
    else:
        monkeypatch.setenv("FILEWRIGHT_POLICY", str(arena.root / "sub" / "my-policy.toml"))
        rel = "sub/my-policy.toml"
    os.symlink(rel, arena.root / "user-policy-link")
    loosen = '[[rules]]\npattern = ".git/"\naccess = "write"\n'
    for ts_name in WRITING_TOOLSETS:
        ts = toolset(arena.workspace(confirm=True), ts_name)
        for name in [rel, "user-policy-link", "sub/../" + rel]:
            path = as_given(arena, ts_name, name)
            before = arena.root_snapshot()
            for tool, result in _call_all(ts, write_calls(ts_name, path, loosen)):
                assert_clean_result(result, f"{ts_name}.{tool}({name})")
                assert not result.ok, f"{ts_name}.{tool} wrote the user's policy file via {name}"
            assert not snapshot_diff(before, arena.root_snapshot())
    hook = (
        arena.workspace(confirm=True)
        .toolset("default")
        .call("write", {"path": ".git/hooks/pre-commit", "content": "evil\n"})
    )
    assert not hook.ok
