"""Function-calling definitions, checked with the official SDKs' own types.

Every toolset that imports is checked in every format: the definitions validate against
openai, anthropic, google-genai and mcp types, and their descriptions, required fields
and enums are those of the tool's parameter model.
"""

from __future__ import annotations

import functools
import importlib
from typing import Any, Literal, get_args, get_origin

import pytest
from pydantic import BaseModel, Field, TypeAdapter

from filewright import Workspace
from filewright.tools import schemas
from filewright.tools.base import Params, Tool
from filewright.toolsets import NAMES, REGISTRY

adapter = functools.cache(TypeAdapter)
"""A pydantic TypeAdapter per SDK type, built once per module (building one for a large
union such as ResponseInputParam costs ~0.1 s; the validation is the same)."""


def importable_toolsets() -> list[Any]:
    out = []
    for name in NAMES:
        module = REGISTRY[name].partition(":")[0]
        try:
            importlib.import_module(module)
        except ImportError as exc:
            out.append(pytest.param(name, marks=pytest.mark.skip(reason=f"{name}: {exc}")))
            continue
        out.append(name)
    return out


TOOLSETS = importable_toolsets()


@pytest.fixture
def workspace(tmp_path: Any) -> Workspace:
    return Workspace(str(tmp_path))


def tools_of(ws: Workspace, name: str) -> list[Tool]:
    return ws.toolset(name).tools()


def typed_dict_keys(td: Any) -> tuple[set[str], set[str]]:
    return set(td.__required_keys__), set(td.__required_keys__) | set(td.__optional_keys__)


def check_typed_dict(value: dict[str, Any], td: Any) -> None:
    """Validate with pydantic and refuse keys the TypedDict does not know."""
    adapter(td).validate_python(value)
    required, known = typed_dict_keys(td)
    assert required <= set(value), f"missing {required - set(value)}"
    assert set(value) <= known, f"unknown keys {set(value) - known}"


# -- what the model says -------------------------------------------------------------------


def literal_values(annotation: Any) -> list[Any] | None:
    """The Literal values of an annotation (through Optional), or None."""
    if get_origin(annotation) is Literal:
        return list(get_args(annotation))
    for arg in get_args(annotation):
        found = literal_values(arg)
        if found is not None:
            return found
    return None


def expected(tool: Tool) -> dict[str, Any]:
    fields = tool.params.model_fields
    return {
        "names": {f.alias or n for n, f in fields.items()},
        "required": {f.alias or n for n, f in fields.items() if f.is_required()},
        "descriptions": {f.alias or n: f.description for n, f in fields.items() if f.description},
        "enums": {
            f.alias or n: literal_values(f.annotation)
            for n, f in fields.items()
            if literal_values(f.annotation) is not None
        },
    }


def generic_parameters(fmt: str, d: dict[str, Any]) -> dict[str, Any] | None:
    return {
        "openai": lambda: d["function"]["parameters"],
        "openai-responses": lambda: d["parameters"],
        "anthropic": lambda: d["input_schema"],
        "gemini": lambda: d.get("parameters"),
        "mcp": lambda: d["inputSchema"],
    }[fmt]()


def enum_in(prop: dict[str, Any]) -> list[Any] | None:
    if "enum" in prop:
        return list(prop["enum"])
    if "const" in prop:
        return [prop["const"]]
    for branch in prop.get("anyOf", []):
        found = enum_in(branch)
        if found is not None:
            return found
    return None


@pytest.mark.parametrize("name", TOOLSETS)
@pytest.mark.parametrize("fmt", schemas.FORMATS)
def test_definitions_match_the_parameter_models(workspace: Workspace, name: str, fmt: str) -> None:
    tools = tools_of(workspace, name)
    defs = workspace.toolset(name).definitions(fmt)
    assert len(defs) == len(tools)
    for tool, d in zip(tools, defs, strict=True):
        if fmt == "openai-responses" and tool.responses_builtin:
            assert d == tool.responses_builtin  # a built-in tool type: no schema of ours
            continue
        if fmt == "anthropic" and tool.anthropic_builtin:
            assert d == tool.anthropic_builtin  # an Anthropic-defined tool type: no schema
            continue
        want = expected(tool)
        params = generic_parameters(fmt, d) or {"properties": {}}
        props = params.get("properties", {})
        assert set(props) == want["names"], tool.name
        assert set(params.get("required", [])) == want["required"], tool.name
        for pname, text in want["descriptions"].items():
            assert props[pname].get("description", "").startswith(text), (tool.name, pname)
        for pname, values in want["enums"].items():
            got = enum_in(props[pname])
            if fmt == "gemini" and not all(isinstance(v, str) for v in values):
                assert got is None and "One of" in props[pname]["description"]
            else:
                assert got == values, (tool.name, pname)
        name_key = d["function"]["name"] if fmt == "openai" else d["name"]
        assert name_key == tool.name
        desc = d["function"]["description"] if fmt == "openai" else d["description"]
        assert desc == tool.description


@pytest.mark.parametrize("name", TOOLSETS)
def test_openai_chat_definitions_validate(workspace: Workspace, name: str) -> None:
    from openai.types.chat import (
        ChatCompletionFunctionTool,
        ChatCompletionFunctionToolParam,
        ChatCompletionToolParam,
    )
    from openai.types.shared import FunctionDefinition
    from openai.types.shared_params import FunctionDefinition as FunctionDefinitionParam

    for d in workspace.toolset(name).definitions("openai"):
        adapter(ChatCompletionToolParam).validate_python(d)
        check_typed_dict(d, ChatCompletionFunctionToolParam)
        check_typed_dict(d["function"], FunctionDefinitionParam)
        ChatCompletionFunctionTool.model_validate(d)
        FunctionDefinition.model_validate(d["function"])
        assert d["function"]["parameters"]["type"] == "object"


@pytest.mark.parametrize("name", TOOLSETS)
def test_openai_responses_definitions_validate(workspace: Workspace, name: str) -> None:
    from openai.types.responses import FunctionTool, FunctionToolParam, Tool, ToolParam

    for d in workspace.toolset(name).definitions("openai-responses"):
        adapter(ToolParam).validate_python(d)
        adapter(Tool).validate_python(d)
        if d["type"] == "function":
            check_typed_dict(d, FunctionToolParam)
            FunctionTool.model_validate(d)


def test_apply_patch_is_the_responses_builtin_tool(workspace: Workspace) -> None:
    from openai.types.responses import ApplyPatchTool, ApplyPatchToolParam

    defs = workspace.toolset("apply_patch").definitions("openai-responses")
    assert defs == [{"type": "apply_patch"}]
    check_typed_dict(defs[0], ApplyPatchToolParam)
    ApplyPatchTool.model_validate(defs[0])
    chat = workspace.toolset("apply_patch").definitions("openai")
    assert [d["function"]["name"] for d in chat] == ["apply_patch"]
    assert chat[0]["function"]["parameters"]["required"] == ["input"]


@pytest.mark.parametrize("name", TOOLSETS)
def test_anthropic_definitions_validate(workspace: Workspace, name: str) -> None:
    from anthropic.types import MemoryTool20250818Param, ToolParam, ToolUnionParam
    from anthropic.types.tool_param import InputSchema

    for d in workspace.toolset(name).definitions("anthropic"):
        if d.get("type") == "memory_20250818":  # an Anthropic-defined tool: no schema
            check_typed_dict(d, MemoryTool20250818Param)
            adapter(ToolUnionParam).validate_python(d)
            continue
        check_typed_dict(d, ToolParam)
        adapter(ToolUnionParam).validate_python(d)
        adapter(InputSchema).validate_python(d["input_schema"])
        assert d["input_schema"]["type"] == "object"


GEMINI_KEYS = {
    "type", "format", "description", "nullable", "enum", "items", "properties", "required",
    "minimum", "maximum", "minItems", "maxItems", "minLength", "maxLength", "pattern", "anyOf",
    "minProperties", "maxProperties",
}  # fmt: skip


def walk_gemini(node: dict[str, Any], path: str = "") -> None:
    assert set(node) <= GEMINI_KEYS, f"{path}: {set(node) - GEMINI_KEYS}"
    if "type" in node:
        assert node["type"] in {"STRING", "NUMBER", "INTEGER", "BOOLEAN", "ARRAY", "OBJECT"}, path
    if "enum" in node:
        assert all(isinstance(v, str) for v in node["enum"]), path
    for key, child in node.get("properties", {}).items():
        walk_gemini(child, f"{path}.{key}")
    if "items" in node:
        walk_gemini(node["items"], f"{path}[]")
    for i, branch in enumerate(node.get("anyOf", [])):
        walk_gemini(branch, f"{path}|{i}")


@pytest.mark.parametrize("name", TOOLSETS)
def test_gemini_declarations_validate(workspace: Workspace, name: str) -> None:
    from google.genai import types as gt

    decls = workspace.toolset(name).definitions("gemini")
    for d in decls:
        gt.FunctionDeclaration.model_validate(d)  # the Schema model forbids unknown keys
        if "parameters" in d:
            walk_gemini(d["parameters"])
    gt.Tool.model_validate({"functionDeclarations": decls})


READ_ONLY = {
    "read",
    "Read",
    "list_directory",
    "read_file",
    "glob",
    "search_file_content",
    "memo_read",
}
ADDITIVE = {"append", "append_to_file"}
DESTRUCTIVE = {"write", "Write", "edit", "Edit", "MultiEdit", "write_file", "replace",
               "replace_in_file", "memo_replace_literal", "memo_replace_span", "undo",
               "str_replace_based_edit_tool", "apply_patch"}  # fmt: skip


@pytest.mark.parametrize("name", TOOLSETS)
def test_mcp_definitions_and_annotations(workspace: Workspace, name: str) -> None:
    from mcp.types import Tool as MCPTool

    for tool, d in zip(
        tools_of(workspace, name), workspace.toolset(name).definitions("mcp"), strict=True
    ):
        parsed = MCPTool.model_validate(d)
        ann = parsed.annotations
        assert ann is not None
        assert ann.read_only_hint is tool.read_only
        assert ann.open_world_hint is False
        if tool.read_only and tool.mcp:
            # A mirror of another server's listing (mcpfs) may leave the hints that only
            # mean something for a changing tool unset, as that server does.
            assert ann.destructive_hint is not True
        elif tool.read_only:
            assert ann.destructive_hint is False and ann.idempotent_hint is True
        if tool.name in READ_ONLY:
            assert ann.read_only_hint, tool.name
        if tool.name in ADDITIVE:
            assert not ann.read_only_hint and not ann.destructive_hint, tool.name
        if tool.name in DESTRUCTIVE:
            assert not ann.read_only_hint and ann.destructive_hint, tool.name


# -- tricky schemas ------------------------------------------------------------------------


class Edit(BaseModel):
    old: str = Field(description="text to find")
    new: str = Field(description="replacement")


class Tricky(Params):
    path: str = Field(description="the file")
    mode: Literal["a", "b"] = Field("a", description="mode")
    level: Literal[1, 2, 3] = Field(1, description="level")
    count: int | None = Field(None, gt=0, description="how many")
    edits: list[Edit] = Field(default_factory=list, description="batch")
    target: str | list[str] | None = Field(None, description="one or many")
    nullable: str | None = Field(description="required but may be null")
    title: str = Field("t", description="a parameter called title")


TRICKY = Tool("tricky", "Tricky tool.", Tricky, lambda p: None)


def test_generic_schema_is_self_contained_and_plain() -> None:
    schema = schemas.parameters_schema(TRICKY)
    text = repr(schema)
    assert "$ref" not in text and "$defs" not in text
    props = schema["properties"]
    assert "title" in props and props["title"]["description"] == "a parameter called title"
    assert props["count"] == {"type": "integer", "exclusiveMinimum": 0, "description": "how many"}
    assert props["target"]["anyOf"] == [
        {"type": "string"},
        {"type": "array", "items": {"type": "string"}},
    ]
    assert {"type": "null"} in props["nullable"]["anyOf"]
    assert set(schema["required"]) == {"path", "nullable"}
    assert props["edits"]["items"]["required"] == ["old", "new"]
    assert schema["additionalProperties"] is False


def test_generic_schema_is_built_once_and_each_caller_gets_a_copy(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A strict-mode call needs the schema on every call: pydantic builds it once per
    model; what a caller changes in its copy reaches no later caller."""
    first = schemas.parameters_schema(TRICKY)
    built: list[object] = []
    monkeypatch.setattr(Tricky, "model_json_schema", classmethod(lambda cls: built.append(cls)))
    first["properties"]["path"]["description"] = "changed"
    first["required"].append("mode")
    again = schemas.parameters_schema(TRICKY)
    assert not built
    assert again["properties"]["path"]["description"] == "the file"
    assert set(again["required"]) == {"path", "nullable"}


def test_gemini_schema_of_tricky_model() -> None:
    from google.genai import types as gt

    d = schemas.definition(TRICKY, "gemini")
    gt.FunctionDeclaration.model_validate(d)
    walk_gemini(d["parameters"])
    props = d["parameters"]["properties"]
    assert props["count"]["minimum"] == 1 and props["count"]["type"] == "INTEGER"
    assert props["mode"]["enum"] == ["a", "b"]
    assert "enum" not in props["level"] and "One of: 1, 2, 3" in props["level"]["description"]
    assert props["nullable"]["nullable"] is True and props["nullable"]["type"] == "STRING"
    assert props["edits"]["items"]["properties"]["old"]["type"] == "STRING"
    assert len(props["target"]["anyOf"]) == 2


def test_tool_without_parameters_has_no_gemini_parameters() -> None:
    from google.genai import types as gt

    class Nothing(Params):
        pass

    d = schemas.definition(Tool("ping", "Ping.", Nothing, lambda p: None), "gemini")
    assert "parameters" not in d
    gt.FunctionDeclaration.model_validate(d)
    openai = schemas.definition(Tool("ping", "Ping.", Nothing, lambda p: None), "openai")
    assert openai["function"]["parameters"] == {
        "properties": {},
        "type": "object",
        "additionalProperties": False,
    }


def test_unknown_format_is_refused(workspace: Workspace) -> None:
    with pytest.raises(ValueError, match="unknown definitions format"):
        workspace.toolset("default").definitions("cohere")


def test_formats_are_documented() -> None:
    for fmt in schemas.FORMATS:
        assert f"`{fmt}`" in (schemas.__doc__ or "")
