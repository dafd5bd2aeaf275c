"""Run a model's tool calls on a toolset and answer in the form its API expects back.

Formats (the same names as `filewright.tools.schemas.FORMATS`):

| format             | a call looks like                                              | the answer                                                     |
|--------------------|----------------------------------------------------------------|----------------------------------------------------------------|
| `openai`           | `{"id", "type": "function", "function": {"name", "arguments": "<JSON>"}}` | `{"role": "tool", "tool_call_id", "content"}` (+ a user message with the images) |
| `openai-responses` | `{"type": "function_call", "call_id", "name", "arguments": "<JSON>"}` | `{"type": "function_call_output", "call_id", "output"}` (`input_image` / `input_file` items) |
|                    | `{"type": "apply_patch_call", "call_id", "operation": {...}}` (the built-in tool) | `{"type": "apply_patch_call_output", "call_id", "status", "output"}` |
| `anthropic`        | `{"type": "tool_use", "id", "name", "input": {...}}`           | `{"type": "tool_result", "tool_use_id", "content": [...], "is_error"}` (`image` / `document` blocks) |
| `gemini`           | `{"functionCall": {"name", "args", "id"}}` (or the bare call)  | `{"functionResponse": {"name", "response", "id"}}` (+ `inlineData` parts) |

What a model needs travels in the text and in content blocks, never only in `data`:
a result's images (`Result.images`) and documents (`Result.documents`, a PDF) go as each
format's image and document blocks. A Chat Completions tool message holds text only: a
document's extracted text is appended to it with a line saying the document itself could
not be sent (images go in a following user message, as before).

An `apply_patch_call` (the Responses API's built-in apply_patch tool) is run by the
toolset's `apply_operation` (the `apply_patch` toolset has one); a toolset without it
answers with a failed output that says so.

Calls may be plain dicts or the SDKs' own objects (anything with `model_dump`).
`dispatch` returns a *list* of items to append to the conversation: chat messages,
Responses input items, Anthropic content blocks (put them in one `user` message) or Gemini
parts (put them in one `user` content). Invalid argument JSON becomes an error result the
model can read; it never raises. Only a value that is not a tool call at all raises
`ValueError`.

`report_progress` and `progress_reporter` (from `filewright.core.progress`) are
re-exported here for the surfaces that install a reporter.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from filewright.core.progress import progress_reporter, report_progress
from filewright.core.result import Result

if TYPE_CHECKING:
    from filewright.core.result import Result
    from filewright.tools.base import Toolset

CALL_FORMATS = ("openai", "openai-responses", "anthropic", "gemini")
APPLY_PATCH_CALL = "apply_patch_call"
EMPTY_TEXT = "(no output)"


@dataclass
class ToolCall:
    """One tool call, normalised: which API it came from, its id, the tool and arguments.

    `arguments` is what the model sent: a dict, or the raw JSON string (chat and Responses
    APIs send strings; the toolset parses and reports bad JSON itself).
    """

    format: str
    id: str | None
    name: str
    arguments: dict[str, Any] | str | None
    kind: str = "function"  # or "apply_patch_call": `arguments` is {"operation": {...}}


# -- images -------------------------------------------------------------------------------


def images_of(result: Result) -> list[tuple[str, str]]:
    """The images a result carries, as (mime type, base64 data).

    Accepts `{"mime_type"|"mimeType"|"media_type", "data"}` and Gemini-style
    `{"inlineData"|"inline_data": {"mimeType"|"mime_type", "data"}}` entries in
    `result.data["images"]`; without it, the image blocks of `data["content_blocks"]`
    (MCP-shaped results).
    """
    data = result.data if isinstance(result.data, dict) else {}
    raw = data.get("images")
    if raw is None and isinstance(data.get("content_blocks"), list):
        # a toolset that answers in MCP content blocks (mcpfs): its image blocks
        raw = [
            b for b in data["content_blocks"] if isinstance(b, dict) and b.get("type") == "image"
        ]
    out: list[tuple[str, str]] = []
    for item in raw or ():
        if not isinstance(item, dict):
            continue
        inner = item.get("inlineData") or item.get("inline_data") or item
        if not isinstance(inner, dict):
            continue
        mime = inner.get("mime_type") or inner.get("mimeType") or inner.get("media_type")
        payload = inner.get("data")
        if isinstance(mime, str) and isinstance(payload, str | bytes):
            out.append((mime, payload.decode("ascii") if isinstance(payload, bytes) else payload))
    return out


@dataclass(frozen=True)
class Document:
    """A document a result carries (a PDF): mime type, base64 data, file name and the
    text extracted from it (None when none could be)."""

    mime_type: str
    data: str
    name: str
    text: str | None


def documents_of(result: Result) -> list[Document]:
    """The documents in `result.data["documents"]` (see `Result.documents`)."""
    raw = result.data.get("documents") if isinstance(result.data, dict) else None
    out: list[Document] = []
    for item in raw or ():
        if not isinstance(item, dict):
            continue
        mime, data = item.get("mime_type") or item.get("mimeType"), item.get("data")
        if isinstance(mime, str) and isinstance(data, str | bytes):
            text = item.get("text")
            out.append(
                Document(
                    mime,
                    data.decode("ascii") if isinstance(data, bytes) else data,
                    str(item.get("name") or "document"),
                    text if isinstance(text, str) else None,
                )
            )
    return out


def document_fallback(doc: Document, where: str) -> str:
    """What a format without a document block says instead, and the extracted text."""
    head = f"[The document {doc.name} ({doc.mime_type}) cannot be sent as a document in {where}; "
    if doc.text is None:
        return head + "no text could be extracted from it.]"
    return head + "its extracted text follows.]\n" + doc.text


# -- parsing calls ------------------------------------------------------------------------


def _as_dict(call: Any) -> dict[str, Any]:
    if isinstance(call, dict):
        return call
    dump = getattr(call, "model_dump", None)
    if callable(dump):
        try:
            dumped = dump(by_alias=True, exclude_none=True)
        except TypeError:
            dumped = dump()
        if isinstance(dumped, dict):
            return dumped
    raise ValueError(f"not a tool call: {type(call).__name__}")


def detect_format(call: Any) -> str:
    """Which API a tool call came from (see `CALL_FORMATS`); ValueError if none."""
    d = _as_dict(call)
    if isinstance(d.get("function"), dict):
        return "openai"
    kind = d.get("type")
    if kind in ("function_call", APPLY_PATCH_CALL):
        return "openai-responses"
    if kind == "tool_use":
        return "anthropic"
    if isinstance(d.get("functionCall") or d.get("function_call"), dict):
        return "gemini"
    if "name" in d and ("args" in d or (kind is None and "id" in d and "input" not in d)):
        return "gemini"
    raise ValueError(f"not a tool call in a known format: keys {sorted(d)}")


def parse_call(call: Any, format: str | None = None) -> ToolCall:
    """Normalise a tool call (dict or SDK object) of `format` (detected when None)."""
    d = _as_dict(call)
    fmt = format or detect_format(d)
    if fmt == "openai":
        fn = d.get("function") or {}
        return ToolCall(fmt, d.get("id"), str(fn.get("name", "")), fn.get("arguments"))
    if fmt == "openai-responses" and d.get("type") == APPLY_PATCH_CALL:
        operation = d.get("operation")
        return ToolCall(
            fmt,
            d.get("call_id") or d.get("id"),
            "apply_patch",
            {"operation": operation if isinstance(operation, dict) else {}},
            APPLY_PATCH_CALL,
        )
    if fmt == "openai-responses":
        return ToolCall(
            fmt, d.get("call_id") or d.get("id"), str(d.get("name", "")), d.get("arguments")
        )
    if fmt == "anthropic":
        return ToolCall(fmt, d.get("id"), str(d.get("name", "")), d.get("input"))
    if fmt == "gemini":
        inner = d.get("functionCall") or d.get("function_call") or d
        return ToolCall(fmt, inner.get("id"), str(inner.get("name", "")), inner.get("args"))
    raise ValueError(f"unknown tool-call format {fmt!r}; expected one of {', '.join(CALL_FORMATS)}")


def extract_calls(response: Any, format: str | None = None) -> list[ToolCall]:
    """The tool calls in a whole model response (or message), in order.

    Understands a Chat Completion (or its message), a Responses `Response` (or its
    `output` list), an Anthropic `Message` (or its `content` list), a Gemini
    `GenerateContentResponse` (or a `Content`, or a list of parts), as SDK objects or dicts.
    """
    items = _call_items(response)
    calls = []
    for item in items:
        try:
            calls.append(parse_call(item, format))
        except ValueError:
            continue
    return calls


def _call_items(response: Any) -> list[Any]:
    if isinstance(response, list | tuple):
        return [i for i in response if _looks_like_call(i)]
    d = _as_dict(response)
    if "choices" in d:  # chat completion
        choices = d.get("choices") or []
        return _call_items(choices[0].get("message", {})) if choices else []
    if "tool_calls" in d:  # chat message
        return list(d.get("tool_calls") or [])
    if "candidates" in d:  # gemini response
        candidates = d.get("candidates") or []
        content = candidates[0].get("content", {}) if candidates else {}
        return _call_items(content.get("parts") or [])
    if "parts" in d:  # gemini content
        return _call_items(d.get("parts") or [])
    if isinstance(d.get("output"), list):  # responses
        return _call_items(d["output"])
    if isinstance(d.get("content"), list):  # anthropic message
        return _call_items(d["content"])
    return [d] if _looks_like_call(d) else []


def _looks_like_call(item: Any) -> bool:
    try:
        detect_format(item)
    except ValueError:
        return False
    return True


# -- answering ---------------------------------------------------------------------------


def _data_url(mime: str, data: str) -> str:
    return f"data:{mime};base64,{data}"


ANTHROPIC_IMAGE_TYPES = {"image/jpeg", "image/png", "image/gif", "image/webp"}


def format_result(call: ToolCall, result: Result) -> list[dict[str, Any]]:
    """The answer to `call` in its API's form: a list of items to append (see module doc)."""
    text = result.text or EMPTY_TEXT
    images = images_of(result)
    documents = documents_of(result)
    if call.format == "openai":  # a tool message holds text only
        for doc in documents:
            text += "\n\n" + document_fallback(doc, "a Chat Completions tool message")
        items: list[dict[str, Any]] = [
            {"role": "tool", "tool_call_id": call.id or "", "content": text}
        ]
        if images:
            parts: list[dict[str, Any]] = [
                {
                    "type": "text",
                    "text": f"Image output of the {call.name} call {call.id or ''}".rstrip(),
                }
            ]
            parts += [
                {"type": "image_url", "image_url": {"url": _data_url(m, d)}} for m, d in images
            ]
            items.append({"role": "user", "content": parts})
        return items
    if call.kind == APPLY_PATCH_CALL:
        status = "completed" if result.ok else "failed"
        return [
            {"type": "apply_patch_call_output", "call_id": call.id or "", "status": status,
             "output": text}
        ]  # fmt: skip
    if call.format == "openai-responses":
        output: str | list[dict[str, Any]] = text
        if images or documents:
            output = [{"type": "input_text", "text": text}]
            output += [
                {"type": "input_image", "image_url": _data_url(m, d), "detail": "auto"}
                for m, d in images
            ]
            output += [
                {
                    "type": "input_file",
                    "filename": doc.name,
                    "file_data": _data_url(doc.mime_type, doc.data),
                }
                for doc in documents
            ]
        return [{"type": "function_call_output", "call_id": call.id or "", "output": output}]
    if call.format == "anthropic":
        content: list[dict[str, Any]] = [{"type": "text", "text": text}]
        for mime, data in images:
            if mime in ANTHROPIC_IMAGE_TYPES:
                content.append(
                    {
                        "type": "image",
                        "source": {"type": "base64", "media_type": mime, "data": data},
                    }
                )
            else:
                content.append(
                    {"type": "text", "text": f"[image of type {mime} omitted: not supported]"}
                )
        for doc in documents:
            if doc.mime_type == "application/pdf":
                content.append(
                    {
                        "type": "document",
                        "source": {"type": "base64", "media_type": doc.mime_type, "data": doc.data},
                        "title": doc.name,
                    }
                )
            else:
                content.append({"type": "text", "text": document_fallback(doc, "this message")})
        return [
            {
                "type": "tool_result",
                "tool_use_id": call.id or "",
                "content": content,
                "is_error": not result.ok,
            }
        ]
    if call.format == "gemini":
        response = {"output": text} if result.ok else {"error": text}
        fr: dict[str, Any] = {"name": call.name, "response": response}
        if call.id:
            fr["id"] = call.id
        parts = [{"functionResponse": fr}]
        parts += [{"inlineData": {"mimeType": m, "data": d}} for m, d in images]
        parts += [
            {"inlineData": {"mimeType": doc.mime_type, "data": doc.data}} for doc in documents
        ]
        return parts
    raise ValueError(f"unknown tool-call format {call.format!r}")


def run_call(toolset: Toolset, call: ToolCall) -> Result:
    """Run one normalised call on `toolset` (never raises for bad arguments)."""
    if call.kind == APPLY_PATCH_CALL:
        return _run_apply_patch(toolset, call)
    return toolset.call(call.name, call.arguments if call.arguments is not None else {})


def _run_apply_patch(toolset: Toolset, call: ToolCall) -> Result:

    apply = getattr(toolset, "apply_operation", None)
    if not callable(apply):
        return Result(
            False,
            f"This tool set ({toolset.name}) does not apply patches; nothing was changed.",
            {"error": "unknown_tool"},
        )
    args = call.arguments if isinstance(call.arguments, dict) else {}
    try:
        result: Result = apply(args.get("operation") or {})
    except Exception as exc:  # the model must never see a traceback
        return Result(
            False,
            f"apply_patch failed unexpectedly: {type(exc).__name__}: {exc}; nothing was changed.",
            {"error": "internal"},
        )
    return result


def dispatch(toolset: Toolset, call: Any, format: str | None = None) -> list[dict[str, Any]]:
    """Run one tool call (dict or SDK object) and return the items that answer it."""
    parsed = parse_call(call, format)
    return format_result(parsed, run_call(toolset, parsed))


def dispatch_response(
    toolset: Toolset, response: Any, format: str | None = None
) -> list[dict[str, Any]]:
    """Run every tool call in a model response; return all answering items, in order."""
    items: list[dict[str, Any]] = []
    for call in extract_calls(response, format):
        items.extend(format_result(call, run_call(toolset, call)))
    return items


__all__ = [
    "APPLY_PATCH_CALL",
    "CALL_FORMATS",
    "Document",
    "ToolCall",
    "detect_format",
    "dispatch",
    "dispatch_response",
    "documents_of",
    "extract_calls",
    "format_result",
    "images_of",
    "parse_call",
    "progress_reporter",
    "report_progress",
    "run_call",
]
