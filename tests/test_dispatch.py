"""The dispatcher: model tool calls in each API's format in, that API's answer out.

Calls are built as the SDKs' own objects and as plain dicts; answers are validated with
the SDKs' parameter types. The README's agent loops run against fake clients that return
SDK response objects (no network).
"""

from __future__ import annotations

import functools
import json
import re
from pathlib import Path
from typing import Any

import pytest
from pydantic import TypeAdapter

from filewright import Result, Workspace
from filewright.surfaces.dispatch import (
    detect_format,
    dispatch,
    dispatch_response,
    extract_calls,
    format_result,
    images_of,
    parse_call,
    progress_reporter,
    report_progress,
)

adapter = functools.cache(TypeAdapter)
"""A pydantic TypeAdapter per SDK type, built once per module (building one for a large
union such as ResponseInputParam costs ~0.1 s; the validation is the same)."""

PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="


@pytest.fixture
def tools(tmp_path: Path) -> Any:
    (tmp_path / "a.txt").write_text("hello world\n", encoding="utf-8")
    return Workspace(str(tmp_path)).toolset("default")


def dump(value: Any) -> Any:
    """SDK model instances → plain dicts, recursively (for validating with TypedDicts)."""
    if hasattr(value, "model_dump"):
        return value.model_dump(exclude_none=True)
    if isinstance(value, list):
        return [dump(v) for v in value]
    if isinstance(value, dict):
        return {k: dump(v) for k, v in value.items()}
    return value


# -- calls in ---------------------------------------------------------------------------


def chat_call(name: str, args: str, call_id: str = "call_1") -> Any:
    from openai.types.chat import ChatCompletionMessageFunctionToolCall

    return ChatCompletionMessageFunctionToolCall.model_validate(
        {"id": call_id, "type": "function", "function": {"name": name, "arguments": args}}
    )


def responses_call(name: str, args: str, call_id: str = "call_1") -> Any:
    from openai.types.responses import ResponseFunctionToolCall

    return ResponseFunctionToolCall.model_validate(
        {"type": "function_call", "id": "fc_1", "call_id": call_id, "name": name, "arguments": args}
    )


def anthropic_call(name: str, args: dict[str, Any], call_id: str = "toolu_1") -> Any:
    from anthropic.types import ToolUseBlock

    return ToolUseBlock.model_validate(
        {"type": "tool_use", "id": call_id, "name": name, "input": args}
    )


def gemini_call(name: str, args: dict[str, Any], call_id: str | None = "g1") -> Any:
    from google.genai import types as gt

    return gt.Part(function_call=gt.FunctionCall(name=name, args=args, id=call_id))


def test_detect_and_parse_each_format() -> None:
    args = {"path": "a.txt"}
    cases = [
        (chat_call("read", json.dumps(args)), "openai", "call_1", json.dumps(args)),
        (responses_call("read", json.dumps(args)), "openai-responses", "call_1", json.dumps(args)),
        (anthropic_call("read", args), "anthropic", "toolu_1", args),
        (gemini_call("read", args), "gemini", "g1", args),
        ({"functionCall": {"name": "read", "args": args}}, "gemini", None, args),
        ({"name": "read", "args": args, "id": "x"}, "gemini", "x", args),
    ]
    for call, fmt, call_id, arguments in cases:
        assert detect_format(call) == fmt
        parsed = parse_call(call)
        assert (parsed.format, parsed.id, parsed.name, parsed.arguments) == (
            fmt,
            call_id,
            "read",
            arguments,
        )
    with pytest.raises(ValueError, match="not a tool call"):
        detect_format({"role": "user", "content": "hi"})


def test_openai_chat_answer(tools: Any) -> None:
    from openai.types.chat import ChatCompletionToolMessageParam

    [msg] = dispatch(tools, chat_call("read", '{"path": "a.txt"}'))
    adapter(ChatCompletionToolMessageParam).validate_python(msg)
    assert msg == {"role": "tool", "tool_call_id": "call_1", "content": "1\thello world"}


def test_openai_responses_answer(tools: Any) -> None:
    from openai.types.responses.response_input_item_param import FunctionCallOutput

    [item] = dispatch(tools, responses_call("read", '{"path": "a.txt"}', "call_9"))
    adapter(FunctionCallOutput).validate_python(item)
    assert item == {"type": "function_call_output", "call_id": "call_9", "output": "1\thello world"}


def test_anthropic_answer(tools: Any) -> None:
    from anthropic.types import ToolResultBlockParam

    [block] = dispatch(tools, anthropic_call("read", {"path": "missing.txt"}))
    adapter(ToolResultBlockParam).validate_python(block)
    assert block["tool_use_id"] == "toolu_1" and block["is_error"] is True
    assert block["content"] == [
        {"type": "text", "text": tools.call("read", {"path": "missing.txt"}).text}
    ]


def test_gemini_answer(tools: Any) -> None:
    from google.genai import types as gt

    parts = dispatch(tools, gemini_call("read", {"path": "a.txt"}))
    assert parts == [
        {"functionResponse": {"name": "read", "response": {"output": "1\thello world"}, "id": "g1"}}
    ]
    gt.Content(role="user", parts=parts)
    [fail] = dispatch(tools, {"functionCall": {"name": "read", "args": {"path": "nope"}}})
    assert "error" in fail["functionResponse"]["response"] and "id" not in fail["functionResponse"]


@pytest.mark.parametrize("bad", ['{"path": "a.txt"', "not json", "[1, 2]", "null"])
def test_bad_argument_json_is_an_error_result_never_an_exception(tools: Any, bad: str) -> None:
    [chat] = dispatch(tools, chat_call("read", bad))
    assert chat["role"] == "tool" and "Invalid arguments for read" in chat["content"]
    [resp] = dispatch(tools, responses_call("read", bad))
    assert "Invalid arguments for read" in resp["output"]


def test_empty_arguments_string_means_no_arguments(tools: Any) -> None:
    [msg] = dispatch(tools, chat_call("read", ""))
    assert "missing required parameter 'path'" in msg["content"]


def test_unknown_tool_is_reported_to_the_model(tools: Any) -> None:
    [block] = dispatch(tools, anthropic_call("delete_everything", {}))
    assert block["is_error"] is True and "Unknown tool" in block["content"][0]["text"]


# -- images ----------------------------------------------------------------------------------


IMAGE_RESULT = Result(
    True, "[Image file: x.png]", {"images": [{"mime_type": "image/png", "data": PNG}]}
)


def test_images_in_every_format() -> None:
    from anthropic.types import ToolResultBlockParam
    from google.genai import types as gt
    from openai.types.chat import ChatCompletionMessageParam
    from openai.types.responses.response_input_item_param import FunctionCallOutput

    chat = format_result(parse_call(chat_call("Read", "{}")), IMAGE_RESULT)
    adapter(list[ChatCompletionMessageParam]).validate_python(chat)
    assert chat[1]["role"] == "user"
    assert chat[1]["content"][1]["image_url"]["url"] == f"data:image/png;base64,{PNG}"

    [resp] = format_result(parse_call(responses_call("Read", "{}")), IMAGE_RESULT)
    adapter(FunctionCallOutput).validate_python(resp)
    assert resp["output"][1] == {
        "type": "input_image",
        "image_url": f"data:image/png;base64,{PNG}",
        "detail": "auto",
    }

    [block] = format_result(parse_call(anthropic_call("Read", {})), IMAGE_RESULT)
    adapter(ToolResultBlockParam).validate_python(block)
    assert block["content"][1]["source"] == {
        "type": "base64",
        "media_type": "image/png",
        "data": PNG,
    }

    parts = format_result(parse_call(gemini_call("Read", {})), IMAGE_RESULT)
    content = gt.Content(role="user", parts=parts)
    assert content.parts is not None and content.parts[1].inline_data is not None
    assert content.parts[1].inline_data.mime_type == "image/png"


def test_image_shapes_accepted() -> None:
    result = Result(True, "", {"images": [
        {"mime_type": "image/png", "data": PNG},
        {"mimeType": "image/jpeg", "data": "AAAA"},
        {"inlineData": {"mimeType": "image/gif", "data": "BBBB"}},
        {"inline_data": {"mime_type": "image/webp", "data": b"CCCC"}},
        "junk",
    ]})  # fmt: skip
    assert images_of(result) == [
        ("image/png", PNG),
        ("image/jpeg", "AAAA"),
        ("image/gif", "BBBB"),
        ("image/webp", "CCCC"),
    ]


def test_anthropic_unsupported_image_type_becomes_a_note() -> None:
    result = Result(True, "x", {"images": [{"mime_type": "image/svg+xml", "data": "AAAA"}]})
    [block] = format_result(parse_call(anthropic_call("Read", {})), result)
    assert block["content"][1] == {
        "type": "text",
        "text": "[image of type image/svg+xml omitted: not supported]",
    }


def test_claude_read_of_a_png_carries_the_image(tmp_path: Path) -> None:
    import base64

    (tmp_path / "pixel.png").write_bytes(base64.b64decode(PNG))
    ws = Workspace(str(tmp_path))
    try:
        claude = ws.toolset("claude")
    except ImportError:
        pytest.skip("claude toolset not available")
    [block] = dispatch(claude, anthropic_call("Read", {"file_path": str(tmp_path / "pixel.png")}))
    kinds = [c["type"] for c in block["content"]]
    assert "image" in kinds, block


# -- whole responses -------------------------------------------------------------------------


def chat_completion(message: dict[str, Any]) -> Any:
    from openai.types.chat import ChatCompletion

    return ChatCompletion.model_validate({
        "id": "c", "object": "chat.completion", "created": 0, "model": "m",
        "choices": [{"index": 0, "finish_reason": "tool_calls" if message.get("tool_calls") else "stop",
                     "message": {"role": "assistant", **message}}],
    })  # fmt: skip


def responses_response(output: list[dict[str, Any]]) -> Any:
    from openai.types.responses import Response

    return Response.model_validate({
        "id": "r", "object": "response", "created_at": 0, "model": "m", "output": output,
        "parallel_tool_calls": True, "tool_choice": "auto", "tools": [], "status": "completed",
    })  # fmt: skip


def anthropic_message(content: list[dict[str, Any]], stop: str) -> Any:
    from anthropic.types import Message

    return Message.model_validate({
        "id": "m", "type": "message", "role": "assistant", "model": "claude", "content": content,
        "stop_reason": stop, "stop_sequence": None,
        "usage": {"input_tokens": 1, "output_tokens": 1},
    })  # fmt: skip


def gemini_response(parts: list[dict[str, Any]]) -> Any:
    from google.genai import types as gt

    return gt.GenerateContentResponse.model_validate(
        {"candidates": [{"content": {"role": "model", "parts": parts}}]}
    )


def test_extract_calls_from_whole_responses(tools: Any) -> None:
    read = {"path": "a.txt"}
    chat = chat_completion({"content": None, "tool_calls": [
        {"id": "1", "type": "function", "function": {"name": "read", "arguments": json.dumps(read)}},
        {"id": "2", "type": "function", "function": {"name": "read", "arguments": "{}"}},
    ]})  # fmt: skip
    assert [c.id for c in extract_calls(chat)] == ["1", "2"]
    resp = responses_response([
        {"type": "message", "id": "m", "role": "assistant", "status": "completed",
         "content": [{"type": "output_text", "text": "let me look", "annotations": []}]},
        {"type": "function_call", "id": "fc", "call_id": "c1", "name": "read", "arguments": json.dumps(read)},
    ])  # fmt: skip
    assert [(c.format, c.id) for c in extract_calls(resp)] == [("openai-responses", "c1")]
    msg = anthropic_message(
        [
            {"type": "text", "text": "ok"},
            {"type": "tool_use", "id": "t1", "name": "read", "input": read},
        ],
        "tool_use",
    )
    assert [(c.format, c.id) for c in extract_calls(msg)] == [("anthropic", "t1")]
    gem = gemini_response(
        [{"text": "hm"}, {"functionCall": {"name": "read", "args": read, "id": "g"}}]
    )
    assert [(c.format, c.id) for c in extract_calls(gem)] == [("gemini", "g")]
    assert extract_calls(chat_completion({"content": "done"})) == []
    items = dispatch_response(tools, chat)
    assert [i["tool_call_id"] for i in items] == ["1", "2"]
    assert "missing required parameter" in items[1]["content"]


# -- the documented loops (docs/agent-loops.md, linked from the README) ------------------------


README = Path(__file__).resolve().parents[1] / "docs" / "agent-loops.md"


def readme_block(marker: str) -> str:
    text = README.read_text(encoding="utf-8")
    m = re.search(rf"<!-- {re.escape(marker)} -->\s*```python\n(.*?)```", text, re.S)
    assert m, f"README has no python block after <!-- {marker} -->"
    return m.group(1)


class Script:
    """Fake model: returns the scripted responses in order and records each request."""

    def __init__(self, responses: list[Any]) -> None:
        self.responses = list(responses)
        self.requests: list[dict[str, Any]] = []

    def create(self, **kwargs: Any) -> Any:
        self.requests.append(json.loads(json.dumps(dump(kwargs), default=str)))
        return self.responses.pop(0)


def run_readme(
    marker: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, patch: dict[str, Any]
) -> None:
    (tmp_path / "README.md").write_text("A smal typo.\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    for target, value in patch.items():
        monkeypatch.setattr(target, value)
    exec(compile(readme_block(marker), f"README:{marker}", "exec"), {"__name__": "readme"})


EDIT = {"path": "README.md", "old_string": "smal", "new_string": "small"}


def test_readme_openai_chat_loop(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from openai.types.chat import ChatCompletionMessageParam, ChatCompletionToolParam

    script = Script([
        chat_completion({"content": None, "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "edit", "arguments": json.dumps(EDIT)}}]}),
        chat_completion({"content": "Fixed."}),
    ])  # fmt: skip

    class FakeOpenAI:
        def __init__(self, **_: Any) -> None:
            self.chat = type("Chat", (), {"completions": script})()

    run_readme("loop: openai-chat", tmp_path, monkeypatch, {"openai.OpenAI": FakeOpenAI})
    assert (tmp_path / "README.md").read_text() == "A small typo.\n"
    last = script.requests[-1]
    adapter(list[ChatCompletionMessageParam]).validate_python(last["messages"])
    adapter(list[ChatCompletionToolParam]).validate_python(last["tools"])
    assert (
        last["messages"][-1]["role"] == "tool"
        and "Edited README.md" in last["messages"][-1]["content"]
    )


def test_readme_openai_responses_loop(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from openai.types.responses import ResponseInputParam, ToolParam

    script = Script([
        responses_response([{"type": "function_call", "id": "fc", "call_id": "c1", "name": "edit",
                             "arguments": json.dumps(EDIT)}]),
        responses_response([{"type": "message", "id": "m", "role": "assistant", "status": "completed",
                             "content": [{"type": "output_text", "text": "Fixed.", "annotations": []}]}]),
    ])  # fmt: skip

    class FakeOpenAI:
        def __init__(self, **_: Any) -> None:
            self.responses = script

    run_readme("loop: openai-responses", tmp_path, monkeypatch, {"openai.OpenAI": FakeOpenAI})
    assert (tmp_path / "README.md").read_text() == "A small typo.\n"
    last = script.requests[-1]
    adapter(ResponseInputParam).validate_python(last["input"])
    adapter(list[ToolParam]).validate_python(last["tools"])
    assert last["input"][-1]["type"] == "function_call_output"


def test_readme_anthropic_loop(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from anthropic.types import MessageParam, ToolUnionParam

    script = Script(
        [
            anthropic_message(
                [{"type": "tool_use", "id": "t1", "name": "edit", "input": EDIT}], "tool_use"
            ),
            anthropic_message([{"type": "text", "text": "Fixed."}], "end_turn"),
        ]
    )

    class FakeAnthropic:
        def __init__(self, **_: Any) -> None:
            self.messages = script

    run_readme("loop: anthropic", tmp_path, monkeypatch, {"anthropic.Anthropic": FakeAnthropic})
    assert (tmp_path / "README.md").read_text() == "A small typo.\n"
    last = script.requests[-1]
    adapter(list[MessageParam]).validate_python(last["messages"])
    adapter(list[ToolUnionParam]).validate_python(last["tools"])
    assert last["messages"][-1]["content"][0]["type"] == "tool_result"


def test_readme_gemini_loop(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from google import genai
    from google.genai import types as gt

    script = Script(
        [
            gemini_response([{"functionCall": {"name": "edit", "args": EDIT, "id": "g1"}}]),
            gemini_response([{"text": "Fixed."}]),
        ]
    )
    seen: list[Any] = []

    class Models:
        def generate_content(self, **kwargs: Any) -> Any:
            contents = [
                gt.Content.model_validate(c) if isinstance(c, dict) else c
                for c in kwargs["contents"]
            ]
            seen.append((contents, kwargs["config"]))
            return script.responses.pop(0)

    class FakeClient:
        def __init__(self, **_: Any) -> None:
            self.models = Models()

    monkeypatch.setattr(genai, "Client", FakeClient)
    run_readme("loop: gemini", tmp_path, monkeypatch, {})
    assert (tmp_path / "README.md").read_text() == "A small typo.\n"
    contents, config = seen[-1]
    gt.GenerateContentConfig.model_validate(config)
    assert contents[-1].parts[0].function_response.name == "edit"


# -- progress hook ---------------------------------------------------------------------------


def test_progress_hook() -> None:
    report_progress(1, 2, "nobody listens")
    got: list[tuple[Any, ...]] = []
    with progress_reporter(lambda done, total, msg: got.append((done, total, msg))):
        report_progress(1, 4, "a")
        report_progress(4, 4, None)
    report_progress(5, 5, "after")
    assert got == [(1, 4, "a"), (4, 4, None)]

    def broken(*_: Any) -> None:
        raise RuntimeError("reporter failed")

    with progress_reporter(broken):
        report_progress(1)  # a failing reporter never breaks the tool


@pytest.mark.parametrize("name", ["default", "claude", "gemini", "mcpfs", "text_editor"])
def test_a_call_does_not_rebuild_the_toolset_s_tools(tmp_path: Path, name: str) -> None:
    """A toolset's tools are built once and found by name (issue 32: `tool(name)` rebuilt
    every tool definition for every call); what is found is what `tools()` lists first."""
    tools = Workspace(tmp_path).toolset(name)
    built = [0]
    listed = type(tools).tools

    def counting(self: Any) -> Any:
        built[0] += 1
        return listed(self)

    type(tools).tools = counting  # type: ignore[method-assign]
    try:
        first = {t.name: t for t in reversed(listed(tools))}
        for _ in range(3):
            for tool_name in first:
                found = tools.tool(tool_name)
                assert found is not None and found.name == tool_name
        assert tools.tool("no such tool") is None
        assert built[0] <= 1
    finally:
        type(tools).tools = listed  # type: ignore[method-assign]
