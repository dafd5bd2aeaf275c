"""Function-calling definitions, generated from each tool's parameter model.

Formats: `openai` (Chat Completions `tools`), `openai-responses` (Responses API function
tools), `anthropic` (Messages API `tools`), `gemini` (function declarations) and `mcp`
(MCP `Tool` objects with annotations).
"""

from __future__ import annotations

import copy
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from filewright.toolsets.base import Tool, Toolset

FORMATS = ("openai", "openai-responses", "anthropic", "gemini", "mcp")


def _inline_refs(schema: dict[str, Any]) -> dict[str, Any]:
    defs = schema.pop("$defs", {})

    def walk(node: Any) -> Any:
        if isinstance(node, dict):
            if "$ref" in node:
                name = node["$ref"].split("/")[-1]
                merged = {**walk(copy.deepcopy(defs[name])), **{k: v for k, v in node.items() if k != "$ref"}}
                return merged
            return {k: walk(v) for k, v in node.items()}
        if isinstance(node, list):
            return [walk(v) for v in node]
        return node

    return walk(schema)


def _simplify(node: Any) -> Any:
    """Drop pydantic's titles and turn Optional[X] (anyOf X|null) into X: optional
    parameters are simply not required."""
    if isinstance(node, dict):
        out: dict[str, Any] = {}
        for key, value in node.items():
            if key == "title":
                continue
            if key == "properties" and isinstance(value, dict):
                out[key] = {name: _simplify(prop) for name, prop in value.items()}
                continue
            out[key] = _simplify(value)
        any_of = out.get("anyOf")
        if isinstance(any_of, list):
            non_null = [s for s in any_of if s.get("type") != "null"]
            if len(non_null) == 1 and len(non_null) < len(any_of):
                rest = {k: v for k, v in out.items() if k != "anyOf"}
                merged = {**non_null[0], **rest}
                if merged.get("default", 0) is None:
                    merged.pop("default")
                return merged
        return out
    if isinstance(node, list):
        return [_simplify(v) for v in node]
    return node


def parameters_schema(tool: Tool) -> dict[str, Any]:
    """The JSON Schema of a tool's parameters, self-contained and without titles."""
    schema = tool.params.model_json_schema()
    schema = _simplify(_inline_refs(schema))
    schema.setdefault("properties", {})
    schema["type"] = "object"
    schema.pop("description", None)
    if "required" in schema and not schema["required"]:
        schema.pop("required")
    return schema


_GEMINI_DROP = {"additionalProperties", "default", "$schema", "examples", "const"}


def _gemini_schema(node: Any) -> Any:
    if isinstance(node, dict):
        return {k: _gemini_schema(v) for k, v in node.items() if k not in _GEMINI_DROP}
    if isinstance(node, list):
        return [_gemini_schema(v) for v in node]
    return node


def annotations(tool: Tool) -> dict[str, Any]:
    out: dict[str, Any] = {
        "readOnlyHint": tool.read_only,
        "destructiveHint": tool.destructive and not tool.read_only,
        "idempotentHint": tool.idempotent or tool.read_only,
        "openWorldHint": False,
    }
    if tool.title:
        out["title"] = tool.title
    return out


def definition(tool: Tool, format: str) -> dict[str, Any]:
    schema = parameters_schema(tool)
    if format == "openai":
        return {"type": "function", "function": {"name": tool.name, "description": tool.description, "parameters": schema}}
    if format == "openai-responses":
        return {"type": "function", "name": tool.name, "description": tool.description, "parameters": schema, "strict": False}
    if format == "anthropic":
        return {"name": tool.name, "description": tool.description, "input_schema": schema}
    if format == "gemini":
        return {"name": tool.name, "description": tool.description, "parameters": _gemini_schema(schema)}
    if format == "mcp":
        out: dict[str, Any] = {"name": tool.name, "description": tool.description, "inputSchema": schema,
                               "annotations": annotations(tool)}
        if tool.title:
            out["title"] = tool.title
        return out
    raise ValueError(f"unknown definitions format {format!r}; expected one of {', '.join(FORMATS)}")


def definitions(toolset: Toolset, format: str = "openai") -> list[dict[str, Any]]:
    if format not in FORMATS:
        raise ValueError(f"unknown definitions format {format!r}; expected one of {', '.join(FORMATS)}")
    return [definition(tool, format) for tool in toolset.tools()]
