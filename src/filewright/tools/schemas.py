"""Function-calling definitions, generated from each tool's parameter model.

One pydantic model per tool is the single source; every format is derived from its JSON
Schema:

- `openai`: Chat Completions `tools` entries (`{"type": "function", "function": {...}}`).
- `openai-responses`: Responses API function tools (`{"type": "function", "name", ...}`),
  or the built-in tool type a tool stands for (`Tool.responses_builtin`, e.g.
  `{"type": "apply_patch"}` for the `apply_patch` toolset).
- `anthropic`: Messages API `tools` entries (`{"name", "description", "input_schema"}`),
  or the Anthropic-defined tool type a tool stands for (`Tool.anthropic_builtin`, e.g.
  `{"type": "memory_20250818", "name": "memory"}` for the `memory` toolset).
- `gemini`: function declarations in the OpenAPI subset Gemini accepts (upper-case
  types, no `additionalProperties` / `default` / `const` / `$ref`, string enums only).
- `mcp`: MCP `Tool` objects with `annotations` (readOnlyHint, destructiveHint,
  idempotentHint, openWorldHint).

The generic schema (`parameters_schema`) is self-contained (no `$ref`), has no pydantic
titles, and turns optional parameters (`X | None = None`) into plain `X` that is simply not
required.
"""

from __future__ import annotations

import copy
from typing import Any

# filewright.tools.base's Tool and Toolset; not imported, since base imports this module.
Tool = Any
Toolset = Any

FORMATS = ("openai", "openai-responses", "anthropic", "gemini", "mcp")


def _inline_refs(schema: dict[str, Any]) -> dict[str, Any]:
    """Replace every `$ref` into `$defs` by the definition itself (models are not recursive)."""
    defs = schema.pop("$defs", {})

    def walk(node: Any, depth: int = 0) -> Any:
        if depth > 50:
            raise ValueError("parameter schema is too deeply nested (recursive model?)")
        if isinstance(node, dict):
            if "$ref" in node:
                name = node["$ref"].split("/")[-1]
                target = walk(copy.deepcopy(defs[name]), depth + 1)
                return {**target, **{k: walk(v, depth + 1) for k, v in node.items() if k != "$ref"}}
            return {k: walk(v, depth + 1) for k, v in node.items()}
        if isinstance(node, list):
            return [walk(v, depth + 1) for v in node]
        return node

    return walk(schema)


def _is_null(node: Any) -> bool:
    return isinstance(node, dict) and node.get("type") == "null"


def _simplify(node: Any, *, optional: bool = False) -> Any:
    """Drop pydantic's titles; for an optional value, turn `anyOf [X, null]` into X."""
    if isinstance(node, list):
        return [_simplify(v) for v in node]
    if not isinstance(node, dict):
        return node
    out: dict[str, Any] = {}
    required = set(node.get("required", ())) if isinstance(node.get("required"), list) else set()
    for key, value in node.items():
        if key == "title" and not isinstance(value, dict):
            continue
        if key == "properties" and isinstance(value, dict):
            out[key] = {
                name: _simplify(prop, optional=name not in required) for name, prop in value.items()
            }
        else:
            out[key] = _simplify(value)
    any_of = out.get("anyOf")
    if optional and isinstance(any_of, list) and any(_is_null(s) for s in any_of):
        rest = [s for s in any_of if not _is_null(s)]
        if len(rest) == 1:
            merged = {**rest[0], **{k: v for k, v in out.items() if k != "anyOf"}}
        else:
            merged = {**out, "anyOf": rest}
        if merged.get("default", 0) is None:
            merged.pop("default")
        return merged
    if optional and out.get("default", 0) is None:
        out.pop("default")
    return out


# Each parameter model's generic schema, built once: pydantic's schema generation costs
# ~1.5 ms a model, and a strict-mode call (one holding a null) needs the schema on every
# call (`Toolset.call`). The models are fixed classes; callers get a copy to change.
_SCHEMAS: dict[type, dict[str, Any]] = {}


def parameters_schema(tool: Tool) -> dict[str, Any]:
    """The JSON Schema of a tool's parameters: self-contained, no titles, optional = not required."""
    model = tool.params
    schema = _SCHEMAS.get(model)
    if schema is None:
        schema = _SCHEMAS[model] = _parameters_schema(model)
    return copy.deepcopy(schema)


def _parameters_schema(model: Any) -> dict[str, Any]:
    schema = model.model_json_schema()
    schema = _simplify(_inline_refs(schema))
    schema.setdefault("properties", {})
    schema["type"] = "object"
    schema.pop("description", None)
    if "required" in schema and not schema["required"]:
        schema.pop("required")
    return schema


# -- Gemini: the OpenAPI 3.0 subset of `google.genai.types.Schema` ------------------------

_GEMINI_KEYS = {
    "description": "description",
    "format": "format",
    "nullable": "nullable",
    "pattern": "pattern",
    "minimum": "minimum",
    "maximum": "maximum",
    "minItems": "minItems",
    "maxItems": "maxItems",
    "minLength": "minLength",
    "maxLength": "maxLength",
    "minProperties": "minProperties",
    "maxProperties": "maxProperties",
}
# Formats Gemini documents for STRING / INTEGER / NUMBER; others are dropped.
_GEMINI_FORMATS = {"enum", "date-time", "int32", "int64", "float", "double"}


def _gemini_type(name: str) -> str:
    return name.upper()


def gemini_schema(node: dict[str, Any]) -> dict[str, Any]:
    """Convert one generic JSON Schema node into Gemini's OpenAPI subset."""
    out: dict[str, Any] = {}
    types = node.get("type")
    nullable = False
    if isinstance(types, list):
        nullable = "null" in types
        types = [t for t in types if t != "null"]
        if len(types) == 1:
            types = types[0]
        elif types:
            out["anyOf"] = [gemini_schema({**node, "type": t}) for t in types]
            types = None
    if isinstance(types, str) and types != "null":
        out["type"] = _gemini_type(types)
    for key, target in _GEMINI_KEYS.items():
        if key in node:
            out[target] = node[key]
    if out.get("format") not in _GEMINI_FORMATS:
        out.pop("format", None)
    if "exclusiveMinimum" in node and "minimum" not in out:
        bound = node["exclusiveMinimum"]
        out["minimum"] = bound + 1 if node.get("type") == "integer" else bound
    if "exclusiveMaximum" in node and "maximum" not in out:
        bound = node["exclusiveMaximum"]
        out["maximum"] = bound - 1 if node.get("type") == "integer" else bound
    values = node.get("enum")
    if values is None and "const" in node:
        values = [node["const"]]
    if values is not None:
        if all(isinstance(v, str) for v in values):
            out["enum"] = list(values)
            out.setdefault("type", "STRING")
        else:
            listed = ", ".join(repr(v) for v in values)
            out["description"] = (out.get("description", "") + f" One of: {listed}.").strip()
    if isinstance(node.get("anyOf"), list):
        branches = [b for b in node["anyOf"] if not _is_null(b)]
        if len(branches) < len(node["anyOf"]):
            nullable = True
        converted = [gemini_schema(b) for b in branches]
        if len(converted) == 1:
            merged = {**converted[0], **out}
            out = merged
        elif converted:
            out["anyOf"] = converted
    if isinstance(node.get("items"), dict):
        out["items"] = gemini_schema(node["items"])
    if isinstance(node.get("properties"), dict):
        out["properties"] = {name: gemini_schema(prop) for name, prop in node["properties"].items()}
        required = [r for r in node.get("required", []) if r in out["properties"]]
        if required:
            out["required"] = required
    if nullable:
        out["nullable"] = True
    return out


# -- MCP ------------------------------------------------------------------------------------


def tool_annotations(tool: Tool) -> dict[str, Any]:
    """MCP tool annotations from the tool's flags.

    A read-only tool is never destructive and always idempotent; `destructiveHint` says
    whether a change may overwrite or remove existing content (append does not).
    """
    out: dict[str, Any] = {
        "readOnlyHint": tool.read_only,
        "destructiveHint": tool.destructive and not tool.read_only,
        "idempotentHint": tool.idempotent or tool.read_only,
        "openWorldHint": False,
    }
    if tool.title:
        out["title"] = tool.title
    return out


# -- OpenAI strict mode (structured outputs for function calls) -----------------------------

STRICT_FORMATS = ("openai", "openai-responses")
# Keywords OpenAI's strict mode accepts; others (default, minLength, …) are dropped there
# (the parameter model still checks them when the call arrives).
_STRICT_KEYS = {
    "type", "description", "properties", "required", "additionalProperties", "items",
    "enum", "const", "anyOf", "pattern", "format", "minimum", "maximum", "exclusiveMinimum",
    "exclusiveMaximum", "multipleOf", "minItems", "maxItems",
}  # fmt: skip


def _nullable(node: dict[str, Any]) -> dict[str, Any]:
    """`node` also accepting null (how strict mode says a parameter may be left out)."""
    out = dict(node)
    if "anyOf" in out:
        if not any(_is_null(s) for s in out["anyOf"]):
            out["anyOf"] = [*out["anyOf"], {"type": "null"}]
        return out
    kind = out.get("type")
    if isinstance(kind, str) and kind != "null":
        out["type"] = [kind, "null"]
    elif isinstance(kind, list) and "null" not in kind:
        out["type"] = [*kind, "null"]
    if "enum" in out and None not in out["enum"]:
        out["enum"] = [*out["enum"], None]
    return out


def strict_schema(node: Any) -> Any:
    """`node` (a `parameters_schema`) as OpenAI's strict mode requires: every object closed
    (`additionalProperties: false`) with every property required, the optional ones
    nullable (null = not given, see `drop_strict_nulls`), no keyword strict mode rejects."""
    if isinstance(node, list):
        return [strict_schema(v) for v in node]
    if not isinstance(node, dict):
        return node
    out = {k: strict_schema(v) for k, v in node.items() if k in _STRICT_KEYS and k != "properties"}
    props = node.get("properties")
    if isinstance(props, dict) or node.get("type") == "object":
        props = props if isinstance(props, dict) else {}
        required = set(node.get("required", ()))
        out["properties"] = {
            name: strict_schema(p) if name in required else _nullable(strict_schema(p))
            for name, p in props.items()
        }
        out["required"] = list(props)
        out["additionalProperties"] = False
    return out


def drop_strict_nulls(schema: dict[str, Any], args: dict[str, Any]) -> dict[str, Any]:
    """`args` without the nulls a strict-mode model sends for optional parameters it leaves
    out: an optional property whose schema takes no null, given as null, is dropped (so
    its default applies), in nested objects too. `schema` is the tool's
    `parameters_schema`, where optional properties have no null."""
    props = schema.get("properties") or {}
    required = set(schema.get("required", ()))
    out: dict[str, Any] = {}
    for key, value in args.items():
        prop = props.get(key)
        if not isinstance(prop, dict):
            out[key] = value
        elif value is None and key not in required and not _takes_null(prop):
            continue
        elif isinstance(value, dict) and isinstance(prop.get("properties"), dict):
            out[key] = drop_strict_nulls(prop, value)
        elif isinstance(value, list) and isinstance(prop.get("items"), dict):
            items = prop["items"]
            out[key] = [drop_strict_nulls(items, v) if isinstance(v, dict) else v for v in value]
        else:
            out[key] = value
    return out


def _takes_null(node: dict[str, Any]) -> bool:
    kind = node.get("type")
    return (
        kind == "null"
        or (isinstance(kind, list) and "null" in kind)
        or any(_is_null(s) for s in node.get("anyOf", ()))
        or None in node.get("enum", ())
    )


def definition(tool: Tool, format: str, *, strict: bool = False) -> dict[str, Any]:
    """The definition of one tool in `format` (see `FORMATS`); `strict`: OpenAI's strict
    mode (`openai` and `openai-responses` only; see `strict_schema`)."""
    builtin = getattr(tool, "responses_builtin", None)
    if format == "openai-responses" and builtin:
        return dict(builtin)
    anthropic = getattr(tool, "anthropic_builtin", None)
    if format == "anthropic" and anthropic:
        return dict(anthropic)
    schema = parameters_schema(tool)
    if strict:
        schema = strict_schema(schema)
    if format == "openai":
        function: dict[str, Any] = {
            "name": tool.name,
            "description": tool.description,
            "parameters": schema,
        }
        if strict:
            function["strict"] = True
        return {"type": "function", "function": function}
    if format == "openai-responses":
        return {
            "type": "function",
            "name": tool.name,
            "description": tool.description,
            "parameters": schema,
            "strict": strict,
        }
    if format == "anthropic":
        return {"name": tool.name, "description": tool.description, "input_schema": schema}
    if format == "gemini":
        out: dict[str, Any] = {"name": tool.name, "description": tool.description}
        if schema.get("properties"):
            out["parameters"] = gemini_schema(schema)
        return out
    if format == "mcp":
        mcp: dict[str, Any] = {
            "name": tool.name,
            "description": tool.description,
            "inputSchema": schema,
            "annotations": tool_annotations(tool),
        }
        if tool.title:
            mcp["title"] = tool.title
        mcp.update(getattr(tool, "mcp", None) or {})
        return mcp
    raise ValueError(f"unknown definitions format {format!r}; expected one of {', '.join(FORMATS)}")


def definitions(
    toolset: Toolset, format: str = "openai", *, strict: bool = False
) -> list[dict[str, Any]]:
    """Definitions of every tool of `toolset` in `format` (see `FORMATS`); `strict` for
    OpenAI's strict mode (`openai`, `openai-responses`)."""
    if format not in FORMATS:
        raise ValueError(
            f"unknown definitions format {format!r}; expected one of {', '.join(FORMATS)}"
        )
    if strict and format not in STRICT_FORMATS:
        raise ValueError(
            f"strict mode is OpenAI's: formats {', '.join(STRICT_FORMATS)}, not {format!r}"
        )
    return [definition(tool, format, strict=strict) for tool in toolset.tools()]
