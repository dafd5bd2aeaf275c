"""Binary content a seed returns reaches the model as real content blocks (issue 33).

A gemini `read_file` of a PDF goes as a document on every surface: an MCP embedded
resource (through the real MCP client), an Anthropic `document` block, a Responses
`input_file`, a Gemini `inlineData` part; a Chat Completions tool message, which has no
such block, says so and carries the extracted text. Each answer is validated against the
provider SDK's own types.
"""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

import anyio
from mcp import Client, types
from pydantic import TypeAdapter
from samples import pdf

from filewright import Workspace
from filewright.surfaces.dispatch import dispatch
from filewright.surfaces.mcp.server import build_server


def a_pdf(root: Path) -> bytes:
    raw = pdf(["The quarterly numbers"])
    (root / "report.pdf").write_bytes(raw)
    return raw


def test_gemini_pdf_is_an_embedded_resource_through_the_mcp_client(tmp_path: Path) -> None:
    raw = a_pdf(tmp_path)

    async def main() -> types.CallToolResult:
        async with Client(build_server([str(tmp_path)], "gemini")) as client:
            return await client.call_tool("read_file", {"path": "report.pdf"})

    got = anyio.run(main)
    resources = [c for c in got.content if isinstance(c, types.EmbeddedResource)]
    assert len(resources) == 1
    blob = resources[0].resource
    assert isinstance(blob, types.BlobResourceContents) and blob.mime_type == "application/pdf"
    assert base64.b64decode(blob.blob) == raw
    assert str(blob.uri) == (tmp_path / "report.pdf").as_uri()
    assert got.structured_content is not None  # the bytes travel once, as the block
    assert raw[:8].hex() not in json.dumps(got.structured_content["documents"])
    assert "data" not in got.structured_content["documents"][0]


def call(fmt: str) -> dict[str, Any]:
    args = {"path": "report.pdf"}
    return {
        "openai": {"id": "c1", "type": "function", "function": {"name": "read_file", "arguments": json.dumps(args)}},
        "openai-responses": {"type": "function_call", "call_id": "c1", "name": "read_file", "arguments": json.dumps(args)},
        "anthropic": {"type": "tool_use", "id": "c1", "name": "read_file", "input": args},
        "gemini": {"functionCall": {"name": "read_file", "args": args, "id": "c1"}},
    }[fmt]  # fmt: skip


def test_gemini_pdf_is_a_document_in_every_provider_format(tmp_path: Path) -> None:
    from anthropic.types import ToolResultBlockParam
    from google.genai import types as gt
    from openai.types.chat import ChatCompletionToolMessageParam
    from openai.types.responses.response_input_item_param import FunctionCallOutput

    raw = a_pdf(tmp_path)
    encoded = base64.b64encode(raw).decode()
    tools = Workspace(tmp_path).toolset("gemini")

    [block] = dispatch(tools, call("anthropic"))
    TypeAdapter(ToolResultBlockParam).validate_python(block, strict=True)
    [document] = [c for c in block["content"] if c["type"] == "document"]
    assert document["source"] == {
        "type": "base64",
        "media_type": "application/pdf",
        "data": encoded,
    }

    [item] = dispatch(tools, call("openai-responses"))
    TypeAdapter(FunctionCallOutput).validate_python(item, strict=True)
    [file] = [o for o in item["output"] if o["type"] == "input_file"]
    assert file["file_data"] == f"data:application/pdf;base64,{encoded}"
    assert file["filename"] == "report.pdf"

    parts = dispatch(tools, call("gemini"))
    content = gt.Content(role="user", parts=[gt.Part.model_validate(p) for p in parts])
    assert content.parts is not None
    inline = [p.inline_data for p in content.parts if p.inline_data is not None]
    assert len(inline) == 1 and inline[0].mime_type == "application/pdf"
    assert inline[0].data == raw

    [message] = dispatch(tools, call("openai"))  # no document block: said, and the text sent
    TypeAdapter(ChatCompletionToolMessageParam).validate_python(message, strict=True)
    assert "cannot be sent as a document in a Chat Completions tool message" in message["content"]
    assert "The quarterly numbers" in message["content"]


def test_gemini_pdf_reaches_no_surface_only_as_data(tmp_path: Path) -> None:
    a_pdf(tmp_path)
    result = Workspace(tmp_path).toolset("gemini").call("read_file", {"path": "report.pdf"})
    assert result.ok and len(result.documents) == 1
    assert result.documents[0]["mime_type"] == "application/pdf"


def test_claude_image_read_is_an_image_block_in_every_provider_format(tmp_path: Path) -> None:
    from anthropic.types import ToolResultBlockParam
    from google.genai import types as gt
    from openai.types.chat import ChatCompletionMessageParam
    from openai.types.responses.response_input_item_param import FunctionCallOutput
    from samples import png

    (tmp_path / "a.png").write_bytes(png())
    tools = Workspace(tmp_path).toolset("claude")
    args = {"file_path": str(tmp_path / "a.png")}
    encoded = base64.b64encode(png()).decode()
    chat = dispatch(
        tools,
        {
            "id": "c",
            "type": "function",
            "function": {"name": "Read", "arguments": json.dumps(args)},
        },
    )
    TypeAdapter(list[ChatCompletionMessageParam]).validate_python(chat, strict=True)
    assert chat[1]["content"][1]["image_url"]["url"] == f"data:image/png;base64,{encoded}"
    [item] = dispatch(
        tools,
        {"type": "function_call", "call_id": "c", "name": "Read", "arguments": json.dumps(args)},
    )
    TypeAdapter(FunctionCallOutput).validate_python(item, strict=True)
    assert item["output"][1]["type"] == "input_image"
    [block] = dispatch(tools, {"type": "tool_use", "id": "c", "name": "Read", "input": args})
    TypeAdapter(ToolResultBlockParam).validate_python(block, strict=True)
    assert block["content"][1]["source"]["data"] == encoded
    parts = dispatch(tools, {"functionCall": {"name": "Read", "args": args}})
    inline = [gt.Part.model_validate(p).inline_data for p in parts]
    assert inline[1] is not None and inline[1].data == png()  # fmt: skip


def test_claude_edit_locations_reach_the_model_through_the_mcp_client(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("a = 1\nb = 2\na = 1\n")
    path = str(tmp_path / "a.py")

    async def main() -> types.CallToolResult:
        async with Client(build_server([str(tmp_path)], "claude")) as client:
            await client.call_tool("Read", {"file_path": path})
            return await client.call_tool(
                "Edit", {"file_path": path, "old_string": "a = 1", "new_string": "x"}
            )

    got = anyio.run(main)
    text = "\n".join(c.text for c in got.content if isinstance(c, types.TextContent))
    assert got.is_error and "- line 1, column 1:" in text and "- line 3, column 1:" in text
