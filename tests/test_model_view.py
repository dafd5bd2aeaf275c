"""What reaches the model, per toolset and surface (issue 33): docs/model-view.md.

Each scenario calls one tool on its failure or truncation path, formats the one result as
every surface delivers it (the MCP server's `to_mcp_result`, and `dispatch` for each
provider format) and checks that everything listed as "needed by the model" is in what
that surface shows the model: its text, or an image / document content block. `data`
never counts: a host does not show it to the model.

The table in docs/model-view.md is generated from these scenarios; the test fails when
the file is stale. Regenerate it with `FILEWRIGHT_WRITE_DOCS=1 uv run pytest -q
tests/test_model_view.py`.
"""

from __future__ import annotations

import base64
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from samples import pdf, png

from filewright import Result, Workspace, approve_all
from filewright.surfaces.dispatch import CALL_FORMATS, ToolCall, format_result
from filewright.surfaces.mcp.server import to_mcp_result

DOC = Path(__file__).resolve().parents[1] / "docs" / "model-view.md"
SURFACES = ("mcp", *CALL_FORMATS)
SURFACE_NAMES = {
    "mcp": "MCP",
    "openai": "Chat Completions",
    "openai-responses": "Responses",
    "anthropic": "Anthropic",
    "gemini": "Gemini",
}
IMAGE, DOCUMENT = "[image block]", "[document block]"


@dataclass(frozen=True)
class Scenario:
    """One call on a failure or truncation path, and what the model needs from it."""

    toolset: str
    tool: str
    path: str  # what happens, for the table
    setup: Callable[[Path], dict[str, Any]]  # writes files, returns the call's arguments
    needed: tuple[str, ...]  # substrings of the text, or IMAGE / DOCUMENT
    before: tuple[tuple[str, Callable[[Path], dict[str, Any]]], ...] = ()  # earlier calls
    options: tuple[tuple[str, Any], ...] = ()


def write(rel: str, content: str | bytes) -> Callable[[Path], None]:
    def make(root: Path) -> None:
        target = root / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            target.write_bytes(content)
        else:
            target.write_text(content, encoding="utf-8")

    return make


def args(rel: str, body: str | bytes, /, **call: Any) -> Callable[[Path], dict[str, Any]]:
    """Write `rel`, then the call's arguments; `{path}` in a value is the absolute path."""

    def make(root: Path) -> dict[str, Any]:
        write(rel, body)(root)
        absolute = str(root / rel)
        return {
            k: v.replace("{path}", absolute) if isinstance(v, str) else v for k, v in call.items()
        }

    return make


LONG = "".join(f"line {i}\n" for i in range(1, 2501))
TWICE = "a = 1\nb = 2\na = 1\n"
CODE = "def total(items):\n    return sum(items)\n"
MINIFIED = "var a=1;" * 200 + "function needle(){}" + "var b=2;" * 300 + "\n"
MEMORY = "# 记忆\n项目状态：进行中\n- 喜欢猫\n- 喜欢猫\n"


def read_first(
    tool: str, key: str, rel: str
) -> tuple[tuple[str, Callable[[Path], dict[str, Any]]]]:
    return ((tool, lambda root: {key: str(root / rel)}),)


SCENARIOS = [
    # claude
    Scenario("claude", "Read", "2500 lines, cut at 2000", args("a.txt", LONG, file_path="{path}"),
             ('"truncated": true', "Use offset=2001 to read more")),
    Scenario("claude", "Read", "an image", args("a.png", png(), file_path="{path}"), (IMAGE,)),
    Scenario("claude", "Read", "a PDF", args("a.pdf", pdf(["Quarterly numbers"]), file_path="{path}"),
             ("Quarterly numbers",)),
    Scenario("claude", "Edit", "old_string not found", args("a.py", CODE, file_path="{path}", old_string="return summ(items)", new_string="x"),
             ("The string to replace was not found", "2\t    return sum(items)"), read_first("Read", "file_path", "a.py")),
    Scenario("claude", "Edit", "several matches", args("b.py", TWICE, file_path="{path}", old_string="a = 1", new_string="x"),
             ("Found 2 occurrences", "- line 1, column 1:", "- line 3, column 1:"), read_first("Read", "file_path", "b.py")),
    Scenario("claude", "Write", "existing file not read", args("c.txt", "x\n", file_path="{path}", content="y"),
             ("You must read the file before writing to it",)),
    # gemini
    Scenario("gemini", "read_file", "2500 lines, cut at 2000", args("a.txt", LONG, path="a.txt"),
             ("[File content truncated: showing lines 1-2000 of 2500 total lines.",)),
    Scenario("gemini", "read_file", "an image", args("a.png", png(), path="a.png"), (IMAGE,)),
    Scenario("gemini", "read_file", "a PDF", args("a.pdf", pdf(["Quarterly numbers"]), path="a.pdf"), (DOCUMENT,)),
    Scenario("gemini", "replace", "old_string not found", args("a.py", CODE, file_path="a.py", old_string="return summ(items)", new_string="x"),
             ("0 occurrences found", "L2:     return sum(items)")),
    Scenario("gemini", "replace", "several matches", args("b.py", TWICE, file_path="b.py", old_string="a = 1", new_string="x"),
             ("expected 1 occurrences but found 2", "- line 1:", "- line 3:")),
    Scenario("gemini", "search_file_content", "a match past column 500", args("min.js", MINIFIED, pattern="needle"),
             ("function needle(){}",)),
    Scenario("gemini", "write_file", "a GBK file that cannot hold the text", args("g.txt", "价格：一百元\n".encode("gbk"), file_path="g.txt", content="€100\n"),
             ("Successfully overwrote file", "saved as UTF-8")),
    # companion
    Scenario("companion", "edit", "oldText not found", args("notes.md", "- 住在北京\n", path="notes.md", oldText="- 住在上海", newText="x"),
             ("无法在 notes.md 中找到指定文本", "1: - 住在北京")),
    Scenario("companion", "edit", "several matches", args("notes.md", MEMORY, path="notes.md", oldText="喜欢猫", newText="x"),
             ("找到 2 处匹配", "- 第 3 行：", "- 第 4 行：")),
    # memo
    Scenario("memo", "memo_replace_literal", "old_text not found", args("MEMORY.md", MEMORY, old_text="项目状态：暂停", new_text="x"),
             ("在记忆中找不到 old_text", "当前记忆全文", "最接近的内容（第 2 行）")),
    Scenario("memo", "memo_replace_literal", "several matches", args("MEMORY.md", MEMORY, old_text="喜欢猫", new_text="x"),
             ("找到多个匹配项", "第一处匹配的上下文")),
    Scenario("memo", "memo_replace_span", "end marker not found", args("MEMORY.md", MEMORY, old_span_start="# 记忆", old_span_end="## 结束", new_text="x"),
             ("找不到结束标记",)),
    # text_editor
    Scenario("text_editor", "str_replace_based_edit_tool", "old_str not found", args("a.py", CODE, command="str_replace", path="{path}", old_str="return summ(items)", new_str="x"),
             ("did not appear verbatim", "2\t    return sum(items)")),
    Scenario("text_editor", "str_replace_based_edit_tool", "several matches", args("b.py", TWICE, command="str_replace", path="{path}", old_str="a = 1", new_str="x"),
             ("Multiple occurrences", "lines [1, 3]")),
    # memory
    Scenario("memory", "memory", "several matches", args("unused.txt", "", command="str_replace", path="/memories/a.md", old_str="a = 1", new_str="x"),
             ("Multiple occurrences", "1, 3"),
             (("memory", lambda root: {"command": "create", "path": "/memories/a.md", "file_text": TWICE}),)),
    # worker
    Scenario("worker", "replace_in_file", "no match", args("a.env", "A=1\n", path="a.env", old="B=1", new="B=2"),
             ("No matches found for 'B=1'",)),
    # default
    Scenario("default", "read", "2500 lines, cut at 2000", args("a.txt", LONG, path="a.txt"), ("offset=2001",)),
    Scenario("default", "edit", "old_string not found", args("a.py", CODE, path="a.py", old_string="return summ(items)", new_string="x"),
             ("return sum(items)", "line 2")),
    Scenario("default", "read", "an image", args("a.png", png(), path="a.png"), (IMAGE,)),
    # mcpfs
    Scenario("mcpfs", "read_media_file", "an image", args("a.png", png(), path="{path}"), (IMAGE,)),
    Scenario("mcpfs", "edit_file", "oldText not found", args("a.py", CODE, path="{path}", edits=[{"oldText": "return summ(items)", "newText": "x"}]),
             ("Could not find exact match",)),
    # apply_patch
    Scenario("apply_patch", "apply_patch", "context not found", args("a.py", CODE, input="*** Begin Patch\n*** Update File: a.py\n@@\n-    return summ(items)\n+    return 0\n*** End Patch"),
             ("return sum(items)",)),
]  # fmt: skip


def shown(
    surface: str, call: ToolCall, result: Result, schema: dict[str, Any] | None = None
) -> tuple[str, list[str]]:
    """What `surface` shows the model of `result`: its text and its content blocks (MCP:
    as the server answers, with the tool's `outputSchema` when it declares one)."""
    if surface == "mcp":
        out = to_mcp_result(result, schema)
        texts, blocks = [], []
        for c in out.content:
            kind = getattr(c, "type", "")
            if kind == "text":
                texts.append(c.text)
            else:
                blocks.append(IMAGE if kind == "image" else DOCUMENT)
        return "\n".join(texts), blocks
    items = format_result(ToolCall(surface, "c1", call.name, call.arguments), result)
    texts, blocks = [], []
    for item in items:
        parts: Any = item.get("content", item.get("output", item))
        if surface == "gemini":
            if "functionResponse" in item:
                texts += [str(v) for v in item["functionResponse"]["response"].values()]
            else:
                mime = item["inlineData"]["mimeType"]
                blocks.append(IMAGE if mime.startswith("image/") else DOCUMENT)
            continue
        for part in [parts] if isinstance(parts, str) else parts:
            if isinstance(part, str):
                texts.append(part)
                continue
            kind = part.get("type")
            if kind in ("text", "input_text"):
                texts.append(part["text"])
            elif kind in ("image", "image_url", "input_image"):
                blocks.append(IMAGE)
            elif kind in ("document", "input_file"):
                blocks.append(DOCUMENT)
    return "\n".join(texts), blocks


def run(scenario: Scenario, root: Path) -> tuple[ToolCall, Result, dict[str, Any] | None]:
    tools = Workspace(root, confirm=approve_all).toolset(scenario.toolset, **dict(scenario.options))
    arguments = scenario.setup(root)
    for tool, make in scenario.before:
        assert tools.call(tool, make(root)).ok
    found = tools.tool(scenario.tool)
    schema = (found.mcp or {}).get("outputSchema") if found else None
    call = ToolCall("anthropic", "c1", scenario.tool, arguments)
    return call, tools.call(scenario.tool, arguments), schema


def reaches(needed: str, text: str, blocks: list[str], surface: str, result: Result) -> str | None:
    """How `needed` reaches the model on `surface`, or None when it does not."""
    if needed == IMAGE:
        return "image block" if IMAGE in blocks else None
    if needed == DOCUMENT:
        if DOCUMENT in blocks:
            return "document block"
        extracted = [d.get("text") for d in result.documents]
        said = "cannot be sent as a document" in text
        return "text (extracted)" if said and all(t and t in text for t in extracted) else None
    return "text" if needed in text else None


def cells(scenario: Scenario, tmp_path: Path) -> list[str]:
    call, result, schema = run(scenario, tmp_path)
    row = []
    for surface in SURFACES:
        text, blocks = shown(surface, call, result, schema)
        ways = []
        for needed in scenario.needed:
            way = reaches(needed, text, blocks, surface, result)
            assert way is not None, (
                f"{scenario.toolset}.{scenario.tool} ({scenario.path}): {needed!r} does not reach "
                f"the model on {surface} (it may be only in data)\n--- text ---\n{text}"
            )
            ways.append(way)
        row.append(" + ".join(dict.fromkeys(ways)))
    return row


@pytest.mark.parametrize("scenario", SCENARIOS, ids=lambda s: f"{s.toolset}-{s.tool}-{s.path}")
def test_what_the_model_needs_reaches_it_on_every_surface(
    scenario: Scenario, tmp_path: Path
) -> None:
    cells(scenario, tmp_path)


def needed_text(needed: tuple[str, ...]) -> str:
    shown = [n if n in (IMAGE, DOCUMENT) else f"`{n}`" for n in needed]
    return "; ".join(s.replace("|", "\\|").replace("\n", "\\n").replace("\t", "\\t") for s in shown)


def render(rows: list[tuple[Scenario, list[str]]]) -> str:
    head = [
        "# What reaches the model",
        "",
        "Generated by `tests/test_model_view.py` (regenerate: `FILEWRIGHT_WRITE_DOCS=1 uv run",
        "pytest -q tests/test_model_view.py`); the test fails when this file is stale, and when",
        "something listed as needed by the model reaches a surface only in `data`.",
        "",
        "A model acts only on what it is shown: a result's text and its content blocks. Each",
        'row calls one tool on a failure or truncation path; "needed by the model" lists what',
        "its next call depends on; each surface's cell says how that reaches the model there:",
        "in the text, as an image or document block, or (a Chat Completions tool message, which",
        "holds text only) as a line saying the document could not be sent plus its extracted",
        "text. MCP is the server's `CallToolResult`; the others are `filewright.dispatch`'s",
        "answers in each provider's format.",
        "",
    ]
    out = head
    for toolset in dict.fromkeys(s.toolset for s, _ in rows):
        out += [f"## {toolset}", ""]
        names = " | ".join(SURFACE_NAMES[s] for s in SURFACES)
        out.append(f"| tool | path | needed by the model | {names} |")
        out.append("|" + "---|" * (3 + len(SURFACES)))
        for scenario, row in rows:
            if scenario.toolset == toolset:
                out.append(
                    f"| `{scenario.tool}` | {scenario.path} | {needed_text(scenario.needed)} | "
                    + " | ".join(row)
                    + " |"
                )
        out.append("")
    return "\n".join(out)


def test_the_model_view_document_is_current(tmp_path_factory: pytest.TempPathFactory) -> None:
    rows = [(s, cells(s, tmp_path_factory.mktemp("view"))) for s in SCENARIOS]
    text = render(rows)
    if os.environ.get("FILEWRIGHT_WRITE_DOCS"):
        DOC.write_text(text, encoding="utf-8")
    assert DOC.read_text(encoding="utf-8") == text, (
        "docs/model-view.md is stale: FILEWRIGHT_WRITE_DOCS=1 uv run pytest -q tests/test_model_view.py"
    )


def test_every_toolset_has_a_row() -> None:
    from filewright.toolsets import NAMES

    covered = {s.toolset for s in SCENARIOS}
    missing = set(NAMES) - covered
    assert not missing, f"no model-view scenario for {sorted(missing)}"


def test_a_need_only_in_data_fails(tmp_path: Path) -> None:
    """The check itself: a closest text put only in `data` does not count."""
    result = Result(False, "not found", {"closest_hint": "2\treturn sum(items)"})
    call = ToolCall("anthropic", "c1", "Edit", {})
    for surface in SURFACES:
        text, blocks = shown(surface, call, result)
        assert reaches("2\treturn sum(items)", text, blocks, surface, result) is None
    image_only_in_data = Result(
        True, "[Image]", {"imageData": "data:image/png;base64," + base64.b64encode(png()).decode()}
    )
    for surface in SURFACES:
        text, blocks = shown(surface, call, image_only_in_data)
        assert reaches(IMAGE, text, blocks, surface, image_only_in_data) is None
