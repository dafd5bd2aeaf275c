"""Toolset results as MCP tool results: text, images and documents as content blocks,
`data` as structured content (JSON-safe, the bytes of images and documents left out)."""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

import mcp_types as types

from filewright.surfaces.dispatch import Document, documents_of, images_of

if TYPE_CHECKING:
    from filewright.core.result import Result

log = logging.getLogger("filewright.surfaces.mcp.server")


def structured(data: dict[str, Any]) -> dict[str, Any]:
    """`data` as JSON-safe structured content: images without their bytes, no trace."""
    out = {k: v for k, v in data.items() if k not in ("images", "documents", "trace")}
    for key in ("images", "documents"):  # their bytes travel as content blocks
        if isinstance(data.get(key), list):
            out[key] = [
                {k: v for k, v in i.items() if k not in ("data", "inlineData", "inline_data")}
                for i in data[key]
                if isinstance(i, dict)
            ]
    return out if _plain_json(out) else json.loads(json.dumps(out, ensure_ascii=False, default=str))


def _plain_json(value: Any, depth: int = 0) -> bool:
    """True when `value` is already what a JSON round trip would return: dicts with str
    keys, lists, and plain scalars (finite floats) only. (Scalars inside a container are
    checked in its loop: a call per value would double the cost, ~4 µs a read.)"""
    kind = type(value)
    if kind is dict or kind is list:
        if depth > 32:
            return False
        items = value.items() if kind is dict else enumerate(value)
        for key, item in items:
            if kind is dict and type(key) is not str:
                return False
            of = type(item)
            if of is str or of is int or of is bool or item is None:
                continue
            if not _plain_json(item, depth + 1):
                return False
        return True
    if kind is str or kind is int or kind is bool or value is None:
        return True
    return kind is float and value - value == 0  # NaN and infinities round-trip oddly


def to_mcp_result(
    result: Result, output_schema: dict[str, Any] | None = None
) -> types.CallToolResult:
    """A toolset Result as an MCP CallToolResult (text, images, structured data, isError).

    With the tool's `output_schema`, the structured content is the keys of `data` the
    schema names (none for a failure), and `data["content_blocks"]`, when a success has
    it, replaces the text and images as the content (image, audio and resource blocks).
    """
    blocks = result.data.get("content_blocks") if output_schema is not None else None
    if result.ok and isinstance(blocks, list):
        content: list[Any] = [_CONTENT_BLOCK.validate_python(b) for b in blocks]
    else:
        content = [types.TextContent(type="text", text=result.text or "(no output)")]
        content += [
            types.ImageContent(type="image", data=d, mime_type=m) for m, d in images_of(result)
        ]
        content += [_document_block(result, doc) for doc in documents_of(result)]
    if "trace" in result.data:
        log.warning("tool failed unexpectedly:\n%s", result.data["trace"])
    if output_schema is not None:
        names = output_schema.get("properties") or {}
        data = {k: v for k, v in result.data.items() if k in names} if result.ok else None
    else:
        data = structured(result.data)
    return types.CallToolResult(content=content, structured_content=data, is_error=not result.ok)


def _document_block(result: Result, doc: Document) -> types.EmbeddedResource:
    """A document (a PDF) as an embedded resource: its bytes, its mime type, its file URI."""
    path = result.data.get("path") if isinstance(result.data, dict) else None
    uri = Path(path).as_uri() if isinstance(path, str) and path.startswith("/") else None
    return types.EmbeddedResource(
        type="resource",
        resource=types.BlobResourceContents(
            uri=uri or f"file:///{quote(doc.name)}", mime_type=doc.mime_type, blob=doc.data
        ),
    )


class _ContentBlocks:
    """Validates content block dicts (built on first use: the adapter costs a few ms)."""

    _adapter: Any = None

    def validate_python(self, value: Any) -> Any:
        if self._adapter is None:
            # deferred: pydantic: heavy, loaded only when this runs
            from pydantic import TypeAdapter

            self._adapter = TypeAdapter(types.ContentBlock)
        return self._adapter.validate_python(value)


_CONTENT_BLOCK = _ContentBlocks()
