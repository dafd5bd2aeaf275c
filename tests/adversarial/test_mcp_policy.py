"""Over MCP (a real client, in memory): a denied or hidden file never comes back from a
search, undo asks by elicitation, and the question names the real file and shows every
invisible character (issue 22, items 1, 3 and 6)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client, types

from filewright.surfaces.mcp.server import build_server

POLICY = """
[[rules]]
pattern = "creds.txt"
access = "deny"

[[rules]]
pattern = "vault/"
access = "hidden"

[[rules]]
pattern = "SOUL.md"
access = "confirm"
"""


def _tree(root: Path) -> Path:
    root.mkdir()
    (root / ".filewright.toml").write_text(POLICY)
    (root / "creds.txt").write_text("user=admin\npassword=hunter2\n")
    (root / "vault").mkdir()
    (root / "vault" / "k.txt").write_text("user\npassword=hunter2\n")
    (root / "notes.txt").write_text("user notes\n")
    (root / "SOUL.md").write_text("I am kind.\n")
    return root


def _blob(result: types.CallToolResult) -> str:
    texts = [c.text for c in result.content if isinstance(c, types.TextContent)]
    return "\n".join(texts) + json.dumps(result.structured_content, default=str)


@pytest.mark.parametrize("era", ["legacy", "auto"])
@pytest.mark.parametrize(
    ("toolset", "tool", "args"),
    [
        ("default", "grep", {"pattern": "user", "context": 2}),
        ("default", "glob", {"pattern": "**/*"}),
        ("default", "list", {}),
        ("gemini", "search_file_content", {"pattern": "user"}),
        ("gemini", "glob", {"pattern": "**/*"}),
    ],
)
def test_search_over_mcp_shows_no_denied_or_hidden_file(
    tmp_path: Path, era: str, toolset: str, tool: str, args: dict[str, Any]
) -> None:
    root = _tree(tmp_path / "ws")

    async def main() -> None:
        async with Client(build_server([str(root)], toolset=toolset), mode=era) as client:
            got = await client.call_tool(tool, args)
            blob = _blob(got)
            assert "hunter2" not in blob and "creds.txt" not in blob and "k.txt" not in blob
            assert "notes.txt" in blob

    anyio.run(main)


@pytest.mark.parametrize("era", ["legacy", "auto"])
def test_undo_over_mcp_asks_and_the_question_shows_the_real_file(tmp_path: Path, era: str) -> None:
    root = _tree(tmp_path / "ws")
    (root / "link.md").symlink_to("SOUL.md")
    asked: list[str] = []
    answers = iter([True, False])

    async def elicit(_ctx: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
        asked.append(params.message)
        return types.ElicitResult(action="accept", content={"approve": next(answers, False)})

    async def main() -> None:
        async with Client(
            build_server([str(root)]), mode=era, elicitation_callback=elicit
        ) as client:
            hidden = "I am kind.\U000e0062\U000e0065\u200b\n"
            got = await client.call_tool("write", {"path": "link.md", "content": hidden})
            assert not got.is_error, _blob(got)
            undo = await client.call_tool("undo", {"path": "SOUL.md"})
            assert undo.is_error, _blob(undo)

    anyio.run(main)
    real = str((root / "SOUL.md").resolve())
    assert len(asked) >= 2
    assert real in asked[0] and "link.md" in asked[0]
    assert "\\U000e0062" in asked[0] and "\\u200b" in asked[0]
    assert "\U000e0062" not in asked[0] and "\u200b" not in asked[0]
    assert real in asked[-1] and "undo" in asked[-1]
    assert (root / "SOUL.md").read_text() == "I am kind.\U000e0062\U000e0065\u200b\n"
