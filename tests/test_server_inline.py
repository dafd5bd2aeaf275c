"""Marked reads answered on the MCP server's event loop (`Tool.inline_ok`, issue 32).

The gate (`surfaces.mcp.mounts`: roots on local filesystems, from real mountinfo texts and
the kernel's own mount table), the give-up hook (`core.inline`: a file not small and
regular, a PDF, a directory listing, a progress report, a confirmation), and the answers:
for every marked tool, a server answering inline and one running every call on worker
threads (FILEWRIGHT_MCP_INLINE=0) give the same answer for the same files, over real
stdio with the official client.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import anyio
import pytest
from forked_mcp import forked_stdio
from forkserver import ForkServer, shared
from mcp import Client, types
from samples import pdf, png

from filewright import Result, Workspace
from filewright.core import inline
from filewright.core.inline import MAX_INLINE_BYTES, NotInline, running_inline
from filewright.surfaces.dispatch import report_progress
from filewright.surfaces.mcp.mounts import MountGate, all_local, parse_mountinfo
from filewright.surfaces.mcp.results import _plain_json, structured
from filewright.surfaces.mcp.server import SERVE_OPTIONS, build_server
from filewright.tools.base import Tool
from filewright.toolsets import NAMES, REGISTRY
from filewright.toolsets.default import DefaultToolset

# -- the gate: a pure function of the mount table and the roots --------------------------------

# Lines as Linux writes them (proc(5)): a desktop with ext4 and tmpfs, a container on overlay.
BASE = """\
22 27 0:21 / /proc rw,relatime shared:13 - proc proc rw
23 27 0:22 / /sys rw,relatime shared:2 - sysfs sysfs rw
24 27 0:6 / /dev rw,relatime shared:3 - devtmpfs devtmpfs rw,size=12334492k,mode=755
27 1 254:0 / / rw,relatime shared:1 - ext4 /dev/vda rw,discard
48 27 0:45 / /tmp rw,nosuid,nodev shared:30 - tmpfs tmpfs rw,size=64k
61 27 259:2 / /home rw,relatime shared:31 - xfs /dev/nvme0n1p2 rw,attr2,inode64
"""
NFS = "112 61 0:51 / /home/ann/work/share rw,relatime shared:96 - nfs4 srv:/export rw,vers=4.2\n"
SSHFS = (
    "215 61 0:57 / /home/ann/work/remote rw,nosuid,nodev,relatime shared:120 - fuse.sshfs "
    "ann@host:/srv rw,user_id=1000,group_id=1000\n"
)
TMPFS_UNDER = "130 61 0:60 / /home/ann/work/build rw,relatime shared:70 - tmpfs tmpfs rw\n"
CONTAINER = """\
610 520 0:120 / / rw,relatime master:1 - overlay overlay rw,lowerdir=/l,upperdir=/u,workdir=/w
611 610 0:123 / /proc rw,nosuid,nodev,noexec,relatime - proc proc rw
612 610 0:124 / /dev rw,nosuid - tmpfs tmpfs rw,size=65536k,mode=755
640 610 8:1 /var/lib/docker/volumes/code/_data /work rw,relatime - ext4 /dev/sda1 rw
"""


def test_local_roots_open_the_gate() -> None:
    assert all_local(BASE, ["/home/ann/work"])
    assert all_local(BASE, ["/home/ann/work", "/tmp/x"])
    assert all_local(BASE + TMPFS_UNDER, ["/home/ann/work"])  # a tmpfs beneath a root: local
    assert all_local(CONTAINER, ["/work/app", "/srv"])


@pytest.mark.parametrize("mount", [NFS, SSHFS], ids=["nfs4", "fuse.sshfs"])
def test_a_remote_mount_beneath_a_root_closes_the_gate(mount: str) -> None:
    point = mount.split(" ")[4]
    assert not all_local(BASE + mount, ["/home/ann/work"])
    assert not all_local(BASE + mount, ["/tmp", "/home/ann"])  # any root
    assert all_local(BASE + mount, ["/home/ann/other", "/home/ann/workshop"])  # not beneath
    assert not all_local(BASE + mount, [point, point + "/deep"])  # a root on it


def test_roots_on_unknown_or_virtual_filesystems_close_the_gate() -> None:
    assert not all_local(BASE, ["/"])  # proc, sysfs, devtmpfs beneath
    assert not all_local(BASE, ["/proc/self"])
    assert not all_local(BASE.replace(" - xfs ", " - mysteryfs "), ["/home/ann"])
    autofs = "70 61 0:40 / /home/ann/work/auto rw,relatime shared:40 - autofs systemd-1 rw\n"
    assert not all_local(BASE + autofs, ["/home/ann/work"])
    assert not all_local(BASE, ["relative/root"])
    assert not all_local("", ["/home/ann"])
    assert not all_local("not a mount table\n", ["/home/ann"])


def test_escaped_mount_points() -> None:
    spaced = "140 61 0:70 / /home/ann/my\\040work/share rw - cifs //srv/share rw\n"
    assert parse_mountinfo(spaced) == [("/home/ann/my work/share", "cifs")]
    assert not all_local(BASE + spaced, ["/home/ann/my work"])
    assert all_local(BASE + spaced, ["/home/ann/my"])  # not the escaped name's prefix
    tabbed = "141 61 0:71 / /home/ann/a\\011b\\134c rw - nfs srv:/x rw\n"
    assert parse_mountinfo(tabbed) == [("/home/ann/a\tb\\c", "nfs")]


def test_a_hidden_remote_mount_at_a_roots_mount_point_keeps_it_closed() -> None:
    """Two mounts at one point: the later hides the earlier, but the gate does not guess."""
    over = "150 61 0:80 / /home/ann/work/share rw - ext4 /dev/sdb1 rw\n"
    assert not all_local(BASE + NFS + over, ["/home/ann/work/share"])


def test_the_gate_reads_a_mount_table_file(tmp_path: Path) -> None:
    table = tmp_path / "mountinfo"
    table.write_text(BASE + NFS)
    gate = MountGate(str(table))
    assert gate.open_for(("/home/ann/elsewhere",))
    assert not gate.open_for(("/home/ann/work",))
    assert not MountGate(str(tmp_path / "missing")).open_for(("/home/ann/elsewhere",))
    gate.close()
    assert not gate.open_for(("/home/ann/elsewhere",))
    if os.path.isdir("/proc/self/fd"):
        open_fds = len(os.listdir("/proc/self/fd"))
        for _ in range(20):  # a gate dropped closes its descriptor (servers by the hundred)
            MountGate(str(table)).open_for(("/home",))
        assert len(os.listdir("/proc/self/fd")) == open_fds


def _mount(*argv: str) -> bool:
    if os.geteuid() != 0 or shutil.which("mount") is None:
        return False
    return subprocess.run(["mount", *argv], capture_output=True).returncode == 0


def test_the_gate_follows_the_kernels_mount_table(tmp_path: Path) -> None:
    """Real mounts beneath a root (needs root): the kernel marks /proc/self/mountinfo and
    the gate reads it again on its next call."""
    root = tmp_path / "ws"
    (root / "fast").mkdir(parents=True)
    (root / "virtual").mkdir()
    gate = MountGate()
    key = (str(root.resolve()),)
    if not gate.open_for(key):
        pytest.skip("this test's temporary directory is not on a local filesystem")
    if not _mount("-t", "tmpfs", "tmpfs", str(root / "fast")):
        pytest.skip("cannot mount here (not root, or no mount permission)")
    try:
        assert gate.open_for(key)  # a tmpfs beneath: still local
        assert _mount("-t", "proc", "proc", str(root / "virtual"))
        try:
            assert not gate.open_for(key)  # proc beneath the root: closed
        finally:
            subprocess.run(["umount", "-l", str(root / "virtual")], check=True)
        assert gate.open_for(key)
    finally:
        subprocess.run(["umount", "-l", str(root / "fast")], check=True)
    gate.close()


# -- which tools are marked, and the hook inside them ---------------------------------------------

MARKED = {
    "default": {"read"},
    "claude": {"Read"},
    "gemini": {"read_file"},
    "mcpfs": {"read_file", "read_text_file", "read_media_file"},
    "companion": {"read"},
}
PATH_ARG = {"claude": "file_path"}


def test_only_bounded_single_file_reads_are_marked(tmp_path: Path) -> None:
    """A search, a listing, several files, a change or a tool that does both (text_editor,
    memory) stays on threads: marking a tool is a decision this list records."""
    marked = {}
    for name in NAMES:
        ts = Workspace(str(tmp_path)).toolset(name, **SERVE_OPTIONS.get(name, {}))
        tools = {t.name for t in ts.tools() if t.inline_ok}
        if tools:
            marked[name] = tools
        assert all(t.read_only for t in ts.tools() if t.inline_ok)
    assert marked == MARKED


def make_files(root: Path) -> dict[str, Path]:
    root.mkdir(parents=True, exist_ok=True)
    files = {
        "small": root / "small.txt",
        "big": root / "big.txt",
        "missing": root / "missing.txt",
        "directory": root / "sub",
        "fifo": root / "pipe",
        "binary": root / "blob.bin",
        "image": root / "pixel.png",
        "pdf": root / "doc.pdf",
        "empty": root / "empty.txt",
        "legacy": root / "gbk.txt",
    }
    files["small"].write_text("".join(f"line {i} of the quick brown fox\n" for i in range(40)))
    line = "x" * 99 + "\n"
    files["big"].write_text(line * (MAX_INLINE_BYTES // len(line) + 10))
    files["directory"].mkdir()
    (files["directory"] / "inside.txt").write_text("inside\n")
    os.mkfifo(files["fifo"])
    files["binary"].write_bytes(bytes(range(256)) * 8)
    files["image"].write_bytes(png())
    files["pdf"].write_bytes(pdf(["hello from a pdf"]))
    files["empty"].write_bytes(b"")
    files["legacy"].write_bytes("学而时习之，不亦说乎？\n有朋自远方来。\n".encode("gbk"))
    return files


def args_for(toolset: str, path: Path) -> dict[str, Any]:
    return {PATH_ARG.get(toolset, "path"): str(path)}


CASES = [(ts, tool) for ts, tools in sorted(MARKED.items()) for tool in sorted(tools)]


@pytest.mark.parametrize(("toolset", "tool"), CASES)
def test_inline_reads_give_up_before_reading_what_is_not_small(
    tmp_path: Path, toolset: str, tool: str
) -> None:
    """In process: under `running_inline` a marked tool answers a small file exactly as
    outside it, and raises NotInline (never a failure result) for a file over the bound,
    a PDF's text, a directory listing and a text in a legacy encoding (its detection can
    take half a second)."""
    files = make_files(tmp_path / "ws")
    ts = Workspace(str(tmp_path / "ws")).toolset(toolset, **SERVE_OPTIONS.get(toolset, {}))

    def call(kind: str) -> Result:
        return ts.call(tool, args_for(toolset, files[kind]))

    for kind in ("small", "missing", "fifo", "binary", "image", "empty"):
        threaded = call(kind)
        with running_inline():
            got = call(kind)
        assert (got.ok, got.text, got.data) == (threaded.ok, threaded.text, threaded.data), kind
    with running_inline(), pytest.raises(NotInline):
        call("big")
    assert not inline.active()
    if tool != "read_media_file":  # (bytes: no decoding)
        with running_inline(), pytest.raises(NotInline):
            call("legacy")
    if toolset in ("default", "claude", "gemini"):  # they extract a PDF's text
        with running_inline(), pytest.raises(NotInline):
            call("pdf")
    if toolset == "claude":  # Read of a directory lists it (list_directories)
        with running_inline(), pytest.raises(NotInline):
            call("directory")


# -- through the server ---------------------------------------------------------------------------


def run(fn: Any) -> Any:
    return anyio.run(fn)


def answer(result: types.CallToolResult) -> tuple[Any, ...]:
    return (
        [c.model_dump(by_alias=True) for c in result.content],
        result.structured_content,
        result.is_error,
    )


@pytest.fixture(scope="module")
def forks(request: pytest.FixtureRequest) -> ForkServer:
    return shared(request.session)


KINDS = [
    "small",
    "big",
    "missing",
    "directory",
    "fifo",
    "binary",
    "image",
    "pdf",
    "empty",
    "legacy",
]


@pytest.mark.filterwarnings("ignore:ping is removed")
@pytest.mark.parametrize("toolset", sorted(MARKED))
def test_inline_and_threaded_servers_answer_alike_over_stdio(
    forks: ForkServer, tmp_path: Path, toolset: str
) -> None:
    """Two `filewright serve` processes on real pipes, one answering marked reads inline,
    one with FILEWRIGHT_MCP_INLINE=0: the same answer for every marked tool and file; a
    FIFO does not stop the server (a ping and a read after it are answered)."""
    root = tmp_path / "ws"
    files = make_files(root)
    argv = ["filewright", "serve", "--root", str(root), "--toolset", toolset]
    env = {k: v for k, v in os.environ.items() if k != "FILEWRIGHT_MCP_INLINE"}
    answers: dict[str, dict[tuple[str, str], Any]] = {}

    async def main() -> None:
        for label, extra in (("inline", {}), ("threaded", {"FILEWRIGHT_MCP_INLINE": "0"})):
            got = answers.setdefault(label, {})
            async with Client(
                forked_stdio(forks, argv, cwd=root, env={**env, **extra}), mode="legacy"
            ) as client:
                for tool in sorted(MARKED[toolset]):
                    for kind in KINDS:
                        with anyio.fail_after(30):
                            result = await client.call_tool(tool, args_for(toolset, files[kind]))
                        got[(tool, kind)] = answer(result)
                        if kind == "fifo":
                            with anyio.fail_after(30):
                                await client.send_ping()
                                again = await client.call_tool(
                                    tool, args_for(toolset, files["small"])
                                )
                            assert answer(again) == got[(tool, "small")]

    run(main)
    for key, threaded in answers["threaded"].items():
        assert answers["inline"][key] == threaded, key


def test_marked_reads_run_inline_and_give_up_over_the_bound(tmp_path: Path) -> None:
    files = make_files(tmp_path / "ws")
    server = build_server([str(tmp_path / "ws")])
    threaded = build_server([str(tmp_path / "ws")], inline=False)

    async def main() -> None:
        async with Client(server) as a, Client(threaded) as b:
            for kind, inline_now, fallback in (("small", 1, 0), ("big", 0, 1), ("fifo", 1, 0)):
                before = (server.inline_answers, server.inline_fallbacks)
                got = await a.call_tool("read", {"path": str(files[kind])})
                want = await b.call_tool("read", {"path": str(files[kind])})
                assert answer(got) == answer(want)
                assert (server.inline_answers - before[0], server.inline_fallbacks - before[1]) == (
                    inline_now,
                    fallback,
                ), kind
            # not marked: never inline
            before = (server.inline_answers, server.inline_fallbacks)
            await a.call_tool("list_directory", {"path": "."})
            assert (server.inline_answers, server.inline_fallbacks) == before
        assert (threaded.inline_answers, threaded.inline_fallbacks) == (0, 0)

    if server.gate is None or not server.gate.open_for((str((tmp_path / "ws").resolve()),)):
        pytest.skip("this test's temporary directory is not on a local filesystem")
    run(main)


def test_a_closed_gate_keeps_marked_reads_on_threads(tmp_path: Path) -> None:
    """Roots beneath a remote mount (a mount table that says so): no call runs inline."""
    root = (tmp_path / "ws").resolve()
    files = make_files(root)
    table = tmp_path / "mountinfo"
    table.write_text(BASE + f"112 27 0:51 / {root} rw,relatime - nfs4 srv:/export rw\n")
    server = build_server([str(root)])
    server.gate = MountGate(str(table))

    async def main() -> None:
        async with Client(server) as client:
            for kind in ("small", "big", "missing"):
                await client.call_tool("read", {"path": str(files[kind])})
        assert (server.inline_answers, server.inline_fallbacks) == (0, 0)

    run(main)


# -- a progress report or a confirmation asked for inline: the call goes to a thread ------------


class MarkedDefault(DefaultToolset):
    """`default` with its edit marked and a tool that reports progress marked: what a
    marked read that asked for either would do."""

    def tools(self) -> list[Tool]:
        tools = super().tools()
        for t in tools:
            t.inline_ok = t.inline_ok or t.name == "edit"
        tools.append(
            Tool(
                "steps",
                "Reports progress.",
                "filewright.toolsets.default_params:ReadParams",
                lambda _p: (report_progress(1, 1, "done"), Result(True, "stepped", {}))[1],
                read_only=True,
                inline_ok=True,
            )
        )
        return tools


def test_confirmation_and_progress_leave_the_loop(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(REGISTRY, "marked", f"{__name__}:MarkedDefault")
    root = tmp_path / "ws"
    root.mkdir()
    (root / "notes.txt").write_text("alpha\nbeta\n")
    (root / ".filewright.toml").write_text('[[rules]]\npattern = "notes.txt"\naccess = "confirm"\n')
    server = build_server([str(root)], "marked")
    if server.gate is None or not server.gate.open_for((str(root.resolve()),)):
        pytest.skip("this test's temporary directory is not on a local filesystem")
    asked: list[str] = []
    progress: list[Any] = []

    async def elicit(_ctx: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
        asked.append(params.message)
        return types.ElicitResult(action="accept", content={"approve": True})

    async def on_progress(done: float, total: float | None, message: str | None) -> None:
        progress.append((done, total, message))

    async def main() -> None:
        async with Client(server, mode="legacy", elicitation_callback=elicit) as client:
            edit = {"path": "notes.txt", "old_string": "alpha", "new_string": "ALPHA"}
            got = await client.call_tool("edit", edit)
            assert not got.is_error
            stepped = await client.call_tool(
                "steps", {"path": "notes.txt"}, progress_callback=on_progress
            )
            assert not stepped.is_error

    run(main)
    assert len(asked) == 1 and (root / "notes.txt").read_text() == "ALPHA\nbeta\n"
    assert progress == [(1, 1, "done")]
    assert (server.inline_answers, server.inline_fallbacks) == (0, 2)


# -- the per-call glue ----------------------------------------------------------------------------

DEEP: Any = []
for _ in range(40):
    DEEP = [DEEP]


@pytest.mark.parametrize(
    ("value", "plain"),
    [
        ({"a": 1, "b": [1.5, "x", None, True, {"c": []}]}, True),
        ({"a": float("nan")}, False),
        ([float("inf")], False),
        ({1: "int key"}, False),
        ({"t": (1, 2)}, False),  # a tuple comes back as a list
        ({"p": Path("/x")}, False),
        ([{"deep": DEEP}], False),
        ("s", True),
        (3, True),
    ],
)
def test_plain_json_is_what_a_json_round_trip_returns(value: Any, plain: bool) -> None:
    """`structured` skips the JSON round trip only for what it would return unchanged."""
    assert _plain_json(value) is plain
    assert structured({"v": value}) == json.loads(json.dumps({"v": value}, default=str))


TRACED = """
import sys
from opentelemetry import trace
from filewright.surfaces.mcp.server import build_server

before = [type(m).__name__ for m in build_server([sys.argv[1]])._lowlevel_server.middleware]
trace.set_tracer_provider(trace.NoOpTracerProvider())  # what opentelemetry-instrument does
after = [type(m).__name__ for m in build_server([sys.argv[1]])._lowlevel_server.middleware]
print("OpenTelemetryMiddleware" in before, "OpenTelemetryMiddleware" in after)
"""


def test_the_sdks_tracing_middleware_only_with_a_tracer_provider(
    forks: ForkServer, tmp_path: Path
) -> None:
    """No OpenTelemetry provider installed: the SDK's span per message (~20 µs of a read)
    is dropped by its documented opt-out; a provider installed before the server starts
    (in a child: the provider is process-wide) keeps it."""
    child = forks.spawn(["traced", str(tmp_path)], TRACED, text=True)
    out, err = child.communicate(timeout=60)
    assert child.wait() == 0, err
    assert out.split() == ["False", "True"]


@pytest.mark.filterwarnings("ignore:The roots capability is deprecated")
def test_client_roots_answer_inline_and_follow_a_change(tmp_path: Path) -> None:
    """No --root: the client's roots, asked once, then known without reading the call's
    round state; after roots/list_changed the new roots serve, inline as well."""
    first, second = make_tree_at(tmp_path / "one", "one"), make_tree_at(tmp_path / "two", "two")
    current = [first]
    server = build_server(None)
    if server.gate is None or not server.gate.open_for((str(first.resolve()),)):
        pytest.skip("this test's temporary directory is not on a local filesystem")

    async def roots(_ctx: Any) -> types.ListRootsResult:
        return types.ListRootsResult(roots=[types.Root(uri=current[0].as_uri())])

    async def main() -> None:
        async with Client(server, mode="legacy", list_roots_callback=roots) as client:
            for _ in range(2):
                got = await client.call_tool("read", {"path": "which.txt"})
                assert "one" in got.content[0].text  # type: ignore[union-attr]
            current[0] = second
            await client.send_roots_list_changed()
            for _ in range(50):  # the notification is handled by the server's loop
                got = await client.call_tool("read", {"path": "which.txt"})
                if "two" in got.content[0].text:  # type: ignore[union-attr]
                    break
            assert "two" in got.content[0].text  # type: ignore[union-attr]
        assert server.inline_answers >= 3 and server.inline_fallbacks == 0

    run(main)


def make_tree_at(root: Path, word: str) -> Path:
    root.mkdir(parents=True)
    (root / "which.txt").write_text(word + "\n")
    return root
