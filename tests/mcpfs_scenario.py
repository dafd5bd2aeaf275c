"""One scenario run against the official MCP filesystem server and against
`filewright serve --toolset mcpfs`, on the same tree, with the official Python MCP client.

Used by tests/test_mcpfs_official.py (live when node and the npm package are present,
else against the recorded answers in tests/data/mcpfs_official.json) and by
bench/surfaces/mcpfs_compare.py (which installs the package and records the answers).
"""

from __future__ import annotations

import base64
import json
import os
import re
import shutil
import sys
from pathlib import Path
from typing import Any

from mcp import Client
from mcp.client.stdio import StdioServerParameters

PACKAGE = "@modelcontextprotocol/server-filesystem"
RECORDED = Path(__file__).parent / "data" / "mcpfs_official.json"
SERVE = [sys.executable, "-c", "from filewright.surfaces.cli.main import main; main()", "serve"]
PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
)

# Where filewright differs on purpose (docs/mcpfs.md): call index -> reason.
DELIBERATE = {
    "tail": "last N lines; the server's tail of a file ending in a newline gives N-1 lines",
    "crlf_edit": "line endings kept (the server rewrites CRLF files with LF)",
    "ambiguous_edit": "an oldText matching twice is refused (the server edits the first)",
    "empty_old": "an empty oldText is refused (the server inserts newText at the top)",
}


def make_tree(root: Path) -> Path:
    """The tree every run starts from. Nothing in the answers depends on the file system
    (a directory's own size does: none is shown or sorted on)."""
    root.mkdir(parents=True, exist_ok=True)
    (root / "a.txt").write_text("alpha\nbeta\ngamma\n")
    (root / "crlf.txt").write_bytes(b"one\r\ntwo\r\nthree\r\n")
    (root / "twice.txt").write_text("x = 1\ny = 2\nx = 1\n")
    (root / "long.txt").write_text("".join(f"line {i}\n" for i in range(1, 31)))
    (root / "sub" / "deep").mkdir(parents=True)
    (root / "sub" / "b.md").write_text("# b\n")
    (root / "sub" / "deep" / "c.py").write_text("print(1)\n")
    (root / "empty").mkdir()
    (root / "img.png").write_bytes(PNG)
    (root / "song.mp3").write_bytes(b"ID3\x03\x00\x00\x00\x00\x00\x00")
    (root / "data.bin").write_bytes(bytes(range(256)))
    (root / "sized").mkdir()
    for name, size in (("small", 10), ("large", 3000), ("medium", 300)):
        (root / "sized" / f"{name}.dat").write_bytes(b"z" * size)
    # Modes as the recording has them, whatever the umask (get_file_info shows them).
    for path in [root, *root.rglob("*")]:
        path.chmod(0o755 if path.is_dir() else 0o644)
    return root


def calls(root: str) -> list[tuple[str, str, dict[str, Any]]]:
    """(label, tool, arguments): the scenario, in order (later calls see earlier changes)."""
    r = root
    return [
        ("allowed", "list_allowed_directories", {}),
        ("list", "list_directory", {"path": r}),
        ("list_sizes", "list_directory_with_sizes", {"path": r}),
        ("list_by_size", "list_directory_with_sizes", {"path": f"{r}/sized", "sortBy": "size"}),
        ("tree", "directory_tree", {"path": r}),
        ("tree_exclude", "directory_tree", {"path": r, "excludePatterns": ["deep"]}),
        ("tree_exclude_glob", "directory_tree", {"path": r, "excludePatterns": ["**/*.md"]}),
        ("search_md", "search_files", {"path": r, "pattern": "**/*.md"}),
        ("search_top", "search_files", {"path": r, "pattern": "*.txt"}),
        ("search_exclude", "search_files", {"path": r, "pattern": "**/*", "excludePatterns": ["sub/**"]}),
        ("search_none", "search_files", {"path": r, "pattern": "*.nothing"}),
        ("read", "read_text_file", {"path": f"{r}/a.txt"}),
        ("read_relative", "read_text_file", {"path": "a.txt"}),
        ("read_deprecated", "read_file", {"path": f"{r}/a.txt"}),
        ("head", "read_text_file", {"path": f"{r}/long.txt", "head": 3}),
        ("tail", "read_text_file", {"path": f"{r}/long.txt", "tail": 3}),
        ("head_and_tail", "read_text_file", {"path": f"{r}/a.txt", "head": 1, "tail": 1}),
        ("read_crlf", "read_text_file", {"path": f"{r}/crlf.txt"}),
        ("read_missing", "read_text_file", {"path": f"{r}/nope.txt"}),
        ("read_outside", "read_text_file", {"path": "/etc/hostname"}),
        ("read_escape", "read_text_file", {"path": f"{r}/../etc/hostname"}),
        ("read_many", "read_multiple_files", {"paths": [f"{r}/a.txt", f"{r}/sub/b.md"]}),
        ("read_many_missing", "read_multiple_files", {"paths": [f"{r}/a.txt", f"{r}/nope.txt"]}),
        ("media_png", "read_media_file", {"path": f"{r}/img.png"}),
        ("media_mp3", "read_media_file", {"path": f"{r}/song.mp3"}),
        ("media_bin", "read_media_file", {"path": f"{r}/data.bin"}),
        ("info", "get_file_info", {"path": f"{r}/a.txt"}),
        ("write_new", "write_file", {"path": f"{r}/new.txt", "content": "fresh\n"}),
        ("write_over", "write_file", {"path": f"{r}/new.txt", "content": "again\n"}),
        ("write_no_parent", "write_file", {"path": f"{r}/no/such/dir.txt", "content": "x"}),
        ("edit_dry", "edit_file", {"path": f"{r}/a.txt", "edits": [{"oldText": "beta", "newText": "BETA"}], "dryRun": True}),
        ("edit", "edit_file", {"path": f"{r}/a.txt", "edits": [{"oldText": "beta", "newText": "BETA"}]}),
        ("edit_two", "edit_file", {"path": f"{r}/long.txt", "edits": [
            {"oldText": "line 2\n", "newText": "line two\n"},
            {"oldText": "line 29", "newText": "line twenty-nine"}]}),
        ("edit_indent", "edit_file", {"path": f"{r}/sub/deep/c.py", "edits": [{"oldText": "  print(1)", "newText": "print(2)"}]}),
        ("edit_missing", "edit_file", {"path": f"{r}/a.txt", "edits": [{"oldText": "delta", "newText": "x"}]}),
        ("crlf_edit", "edit_file", {"path": f"{r}/crlf.txt", "edits": [{"oldText": "two", "newText": "TWO"}]}),
        ("ambiguous_edit", "edit_file", {"path": f"{r}/twice.txt", "edits": [{"oldText": "x = 1", "newText": "x = 9"}]}),
        ("empty_old", "edit_file", {"path": f"{r}/a.txt", "edits": [{"oldText": "", "newText": "top\n"}], "dryRun": True}),
        ("read_after_edits", "read_text_file", {"path": f"{r}/a.txt"}),
        ("mkdir", "create_directory", {"path": f"{r}/x/y"}),
        ("mkdir_again", "create_directory", {"path": f"{r}/x/y"}),
        ("move", "move_file", {"source": f"{r}/new.txt", "destination": f"{r}/x/y/new.txt"}),
        ("move_onto", "move_file", {"source": f"{r}/a.txt", "destination": f"{r}/sub/b.md"}),
        ("move_missing", "move_file", {"source": f"{r}/gone.txt", "destination": f"{r}/g2.txt"}),
        ("move_dir", "move_file", {"source": f"{r}/empty", "destination": f"{r}/x/empty2"}),
        ("tree_after", "directory_tree", {"path": r}),
        ("unknown_args", "read_text_file", {"path": f"{r}/a.txt", "bogus": 1}),
    ]  # fmt: skip


def official_binary() -> str | None:
    """The official server's command: $FILEWRIGHT_MCPFS_OFFICIAL, else an npm install in
    the bench cache (bench/surfaces/mcpfs_compare.py makes one); None when absent."""
    given = os.environ.get("FILEWRIGHT_MCPFS_OFFICIAL")
    if given:
        return given if Path(given).exists() else None
    cache = Path(
        os.environ.get("FILEWRIGHT_BENCH_CACHE", Path.home() / ".cache" / "filewright-bench")
    )
    found = cache / "npm" / "node_modules" / ".bin" / "mcp-server-filesystem"
    if found.exists() and shutil.which("node"):
        return str(found)
    return None


def official_params(root: Path, binary: str) -> StdioServerParameters:
    return StdioServerParameters(command=binary, args=[str(root)], cwd=str(root))


def filewright_params(root: Path) -> StdioServerParameters:
    return StdioServerParameters(
        command=SERVE[0], args=[*SERVE[1:], "--toolset", "mcpfs", "--root", str(root)],
        cwd=str(root),
    )  # fmt: skip


def _block(block: Any) -> dict[str, Any]:
    return block.model_dump(mode="json", by_alias=True, exclude_none=True)


async def run_scenario(params: StdioServerParameters, root: Path) -> dict[str, Any]:
    """The listing and every call's answer, with the root written as {ROOT}."""
    out: dict[str, Any] = {"calls": {}}
    async with Client(params, mode="legacy") as client:
        tools = (await client.list_tools()).tools
        out["tools"] = [{k: v for k, v in _block(t).items() if k != "execution"} for t in tools]
        for label, tool, args in calls(str(root)):
            try:
                got = await client.call_tool(tool, args)
            except Exception as exc:  # the client refused the answer (schema)
                out["calls"][label] = {"client_error": f"{type(exc).__name__}: {exc}"}
                continue
            out["calls"][label] = {
                "is_error": bool(got.is_error),
                "content": [_block(b) for b in got.content],
                "structured": got.structured_content,
            }
    text = json.dumps(out, ensure_ascii=False).replace(str(root), "{ROOT}")
    text = text.replace(str(root.parent), "{PARENT}")
    return normalise(json.loads(text))


_JS_DATE = re.compile(r"\w{3} \w{3} \d\d \d{4} \d\d:\d\d:\d\d GMT[+-]\d{4} \([^)]*\)")


def normalise(value: Any) -> Any:
    """Dates written as JavaScript writes them become <date> (they differ run to run)."""
    if isinstance(value, str):
        return _JS_DATE.sub("<date>", value)
    if isinstance(value, list):
        return [normalise(v) for v in value]
    if isinstance(value, dict):
        return {k: normalise(v) for k, v in value.items()}
    return value


def compare(official: dict[str, Any], ours: dict[str, Any]) -> list[tuple[str, str, str]]:
    """(label, verdict, detail) per listing and call: same, deliberate, or DIFFERENT."""
    rows: list[tuple[str, str, str]] = []
    same_tools = official["tools"] == ours["tools"]
    rows.append(("list_tools", "same" if same_tools else "DIFFERENT", ""))
    for label, expected in official["calls"].items():
        got = ours["calls"].get(label)
        if got == expected:
            rows.append((label, "same", ""))
        elif label in DELIBERATE:
            rows.append((label, "deliberate", DELIBERATE[label]))
        elif got is not None and expected.get("is_error") and got.get("is_error"):
            rows.append((label, "error (both)", _first_text(expected) + " | " + _first_text(got)))
        else:
            rows.append((label, "DIFFERENT", f"{_first_text(expected)!r} | {_first_text(got)!r}"))
    return rows


def _first_text(answer: dict[str, Any] | None) -> str:
    if not answer:
        return "(none)"
    if "client_error" in answer:
        return answer["client_error"][:160]
    for block in answer.get("content", []):
        if block.get("type") == "text":
            return str(block.get("text"))[:160]
    return json.dumps(answer.get("content"))[:160]
