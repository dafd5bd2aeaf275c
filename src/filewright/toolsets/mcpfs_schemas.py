"""The MCP filesystem server's output schemas and annotations, as its listing declares
them (for the `mcpfs` toolset's `Tool(mcp=...)`). Plain data; no pydantic."""

from __future__ import annotations

from typing import Any

_DRAFT7 = "http://json-schema.org/draft-07/schema#"
TEXT_OUTPUT = {
    "$schema": _DRAFT7,
    "type": "object",
    "properties": {"content": {"type": "string"}},
    "required": ["content"],
    "additionalProperties": False,
}
MEDIA_BLOCK = {
    "anyOf": [
        {
            "type": "object",
            "properties": {
                "type": {"type": "string", "enum": ["image", "audio"]},
                "data": {"type": "string"},
                "mimeType": {"type": "string"},
            },
            "required": ["type", "data", "mimeType"],
            "additionalProperties": False,
        },
        {
            "type": "object",
            "properties": {
                "type": {"type": "string", "const": "resource"},
                "resource": {
                    "type": "object",
                    "properties": {
                        "uri": {"type": "string"},
                        "mimeType": {"type": "string"},
                        "blob": {"type": "string"},
                    },
                    "required": ["uri", "blob"],
                    "additionalProperties": False,
                },
            },
            "required": ["type", "resource"],
            "additionalProperties": False,
        },
    ]
}
MEDIA_OUTPUT = {
    "$schema": _DRAFT7,
    "type": "object",
    "properties": {"content": {"type": "array", "items": MEDIA_BLOCK}},
    "required": ["content"],
    "additionalProperties": False,
}
READ_ONLY = {"readOnlyHint": True, "openWorldHint": False}


def hints(idempotent: bool, destructive: bool) -> dict[str, Any]:
    return {
        "readOnlyHint": False,
        "idempotentHint": idempotent,
        "destructiveHint": destructive,
        "openWorldHint": False,
    }


def mcp_listing(
    annotations: dict[str, Any], output: dict[str, Any] = TEXT_OUTPUT
) -> dict[str, Any]:
    return {"annotations": annotations, "outputSchema": output}
