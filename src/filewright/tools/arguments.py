"""Tool arguments checked without pydantic, from the parameter models' cached JSON schemas.

Importing pydantic and building the parameter models costs more than everything else a
`filewright call` does, so calls first try this light check. It understands a small,
strict subset of JSON Schema (the one the models produce) and answers either "valid, and
these are the values" or "not sure" — never "invalid": anything it does not accept
outright (a missing field, a string where an integer goes, an unknown keyword) goes to
pydantic, which then gives the verdict and the error message. So both paths agree by
construction: the light path accepts only input that pydantic would take unchanged.

The schemas come from `filewright.tools.precomputed` (generated from the models, stamped with
a hash of each model module's source; a module edited since is simply not used).
"""

from __future__ import annotations

import importlib
from types import SimpleNamespace
from typing import Any

from filewright.tools import precomputed

# The models whose schemas are cached: module → names of the model classes in it.
MODEL_MODULES: dict[str, tuple[str, ...]] = {
    "filewright.toolsets.default_params": (
        "ReadParams", "WriteParams", "EditParams", "MultiEditParams", "ReplaceSpanParams",
        "InsertParams", "AppendParams", "UndoParams", "ListParams", "GlobParams", "GrepParams",
        "MoveParams", "DeleteParams", "MkdirParams", "StatParams", "TreeParams",
        "ReadManyParams", "RootsParams",
    ),
    "filewright.toolsets.claude.params": (
        "ReadParams", "WriteParams", "EditParams", "MultiEditParams",
    ),
    "filewright.toolsets.gemini_params": (
        "ListDirectoryParams", "ReadFileParams", "WriteFileParams", "GlobParams",
        "SearchFileContentParams", "ReplaceParams",
    ),
    "filewright.toolsets.text_editor_params": ("TextEditorParams", "TextEditorParamsWithUndo"),
    "filewright.toolsets.memo_params": ("ReadParams", "LiteralParams", "SpanParams"),
    "filewright.toolsets.worker_params": (
        "WriteFileParams", "AppendToFileParams", "ReplaceInFileParams",
    ),
    "filewright.toolsets.mcpfs_params": (
        "PathParams", "ReadTextFileParams", "ReadMultipleFilesParams", "WriteFileParams",
        "EditFileParams", "ListDirectoryWithSizesParams", "DirectoryTreeParams",
        "MoveFileParams", "SearchFilesParams", "NoParams",
    ),
    "filewright.toolsets.companion_params": (
        "ReadParams", "WriteParams", "EditParams",
        "ReadParamsMemoryOn", "WriteParamsMemoryOn", "EditParamsMemoryOn",
        "ReadParamsMemoryOff", "WriteParamsMemoryOff", "EditParamsMemoryOff",
    ),
    "filewright.toolsets.apply_patch_params": ("ApplyPatchParams",),
    "filewright.toolsets.memory_params": ("MemoryParams",),
}  # fmt: skip

_ALLOWED = frozenset({
    "type", "title", "description", "default", "anyOf", "properties", "required",
    "additionalProperties", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum",
    "items", "$ref", "$defs", "minItems", "maxItems", "minLength", "maxLength", "enum",
})  # fmt: skip
_SCALARS = {"string": str, "integer": int, "boolean": bool}


class _Unsure(Exception):
    """The light check cannot vouch for this input; pydantic decides."""


# -- the check (pure) ------------------------------------------------------------------


def check(schema: dict[str, Any], args: dict[str, Any]) -> SimpleNamespace | None:
    """The validated arguments as attributes (defaults filled in), or None when unsure."""
    try:
        plan = _PLANS.get(id(schema))
        if plan is None or plan[0] is not schema:
            if len(_PLANS) >= 512:  # (schemas are the cached ones; others are not kept long)
                _PLANS.clear()
            plan = _PLANS[id(schema)] = (schema, _plan(schema))
        if plan[1] is None:
            return _object(schema, args, schema.get("$defs", {}))
        return _planned(plan[1], args, schema.get("$defs", {}))
    except (_Unsure, RecursionError):
        return None


# A tool's top-level schema, looked at once: (its property names, and per property its
# name, schema, whether it is required, whether it has a default, the default). None: a
# schema `_object` alone decides (it refuses it: it is not a closed object).
_Plan = tuple[frozenset[str], tuple[tuple[str, dict[str, Any], bool, bool, Any], ...]]
_PLANS: dict[int, tuple[dict[str, Any], _Plan | None]] = {}


def _plan(schema: dict[str, Any]) -> _Plan | None:
    """What `_object` looks up in `schema` on every call, looked up once."""
    _known(schema)
    if schema.get("type") != "object" or schema.get("additionalProperties") is not False:
        return None
    properties: dict[str, Any] = schema.get("properties", {})
    required = set(schema.get("required", ()))
    fields = tuple(
        (name, field, name in required, "default" in field, field.get("default"))
        for name, field in properties.items()
    )
    return frozenset(properties), fields


def _planned(plan: _Plan, value: Any, defs: dict[str, Any]) -> SimpleNamespace:
    """`_object` of a closed object schema, from its plan: the same answers."""
    names, fields = plan
    if type(value) is not dict or not names.issuperset(value):
        raise _Unsure
    out: dict[str, Any] = {}
    for name, field, required, has_default, default in fields:
        if name in value:
            out[name] = _value(field, value[name], defs)
        elif required or not has_default:
            raise _Unsure  # missing, or a default pydantic computes (default_factory)
        else:
            out[name] = default if default is None else _copy(default)
    return SimpleNamespace(**out)


def _object(schema: dict[str, Any], value: Any, defs: dict[str, Any]) -> SimpleNamespace:
    _known(schema)
    if type(value) is not dict or schema.get("type") != "object":
        raise _Unsure
    properties: dict[str, Any] = schema.get("properties", {})
    extra = schema.get("additionalProperties")
    if extra is not None and extra is not False:
        raise _Unsure
    if extra is False and any(key not in properties for key in value):
        raise _Unsure
    required = set(schema.get("required", ()))
    out: dict[str, Any] = {}
    for name, field in properties.items():
        if name in value:
            out[name] = _value(field, value[name], defs)
        elif name in required or "default" not in field:
            raise _Unsure  # missing, or a default pydantic computes (default_factory)
        else:
            out[name] = _copy(field["default"])
    return SimpleNamespace(**out)


def _value(schema: dict[str, Any], value: Any, defs: dict[str, Any]) -> Any:
    _known(schema)
    if "$ref" in schema:
        target = defs.get(schema["$ref"].removeprefix("#/$defs/"))
        if not isinstance(target, dict) or "properties" not in target:
            raise _Unsure  # enums and other non-model definitions
        return _object(target, value, defs)
    if "anyOf" in schema:
        for option in schema["anyOf"]:
            try:
                return _value(option, value, defs)
            except _Unsure:
                continue
        raise _Unsure
    kind = schema.get("type")
    if kind == "null":
        if value is not None:
            raise _Unsure
        return None
    if kind in _SCALARS:
        if type(value) is not _SCALARS[kind]:  # exact: True is not an integer here
            raise _Unsure
        _bounds(schema, value)
        if "enum" in schema and value not in schema["enum"]:
            raise _Unsure
        return value
    if kind == "array":
        if type(value) is not list:
            raise _Unsure
        _bounds(schema, value)
        items = schema.get("items", {})
        return [_value(items, item, defs) if items else item for item in value]
    if kind == "object":
        return _object(schema, value, defs)
    raise _Unsure


def _known(schema: dict[str, Any]) -> None:
    if not isinstance(schema, dict) or not _ALLOWED.issuperset(schema):
        raise _Unsure


def _bounds(schema: dict[str, Any], value: Any) -> None:
    if isinstance(value, int) and not isinstance(value, bool):
        if "minimum" in schema and value < schema["minimum"]:
            raise _Unsure
        if "maximum" in schema and value > schema["maximum"]:
            raise _Unsure
        if "exclusiveMinimum" in schema and value <= schema["exclusiveMinimum"]:
            raise _Unsure
        if "exclusiveMaximum" in schema and value >= schema["exclusiveMaximum"]:
            raise _Unsure
    if isinstance(value, str | list):
        low = schema.get("minLength", schema.get("minItems"))
        high = schema.get("maxLength", schema.get("maxItems"))
        if (low is not None and len(value) < low) or (high is not None and len(value) > high):
            raise _Unsure


def _copy(value: Any) -> Any:
    if isinstance(value, list):
        return [_copy(v) for v in value]
    if isinstance(value, dict):
        return {k: _copy(v) for k, v in value.items()}
    return value


# -- the schemas -----------------------------------------------------------------------


def cached_schema(module: str, name: str) -> dict[str, Any] | None:
    """The cached JSON schema of model `module:name`, or None if missing or stale."""
    models = precomputed.section(module)
    schema = models.get(name) if models is not None else None
    return schema if isinstance(schema, dict) else None


def build_schemas() -> dict[str, dict[str, Any]]:
    """The schemas of every model in MODEL_MODULES, from the models (imports pydantic)."""

    out: dict[str, dict[str, Any]] = {}
    for module, names in MODEL_MODULES.items():
        loaded = importlib.import_module(module)
        out[module] = {name: getattr(loaded, name).model_json_schema() for name in names}
    return out
