"""What every tool call returns, and how engine failures travel to toolsets."""

from __future__ import annotations

import json
from typing import Any

from filewright.core.record import Frozen, Record


class Result(Record):
    """The outcome of one tool call.

    `text` is exactly what the model sees; `data` is structured and JSON-serialisable
    (path, replacements, strategy, changed lines, diff, risk, backup, images, documents
    …). What a model needs is in `text` or in the images and documents, which every
    surface sends as content blocks; `data` alone reaches programs, not the model.
    """

    _fields = ("ok", "text", "data")
    __slots__ = _fields
    ok: bool
    text: str
    data: dict[str, Any]

    def __init__(self, ok: bool, text: str, data: dict[str, Any] | None = None) -> None:
        self.ok = ok
        self.text = text
        self.data = {} if data is None else data

    def to_dict(self) -> dict[str, Any]:
        return {"ok": self.ok, "text": self.text, "data": self.data}

    def to_json(self, **kwargs: Any) -> str:
        return json.dumps(self.to_dict(), ensure_ascii=False, default=str, **kwargs)

    @property
    def images(self) -> list[dict[str, str]]:
        """Images carried by the result: dicts with `mime_type` and base64 `data`."""
        return list(self.data.get("images", []))

    @property
    def documents(self) -> list[dict[str, Any]]:
        """Documents carried by the result (a PDF a seed returns as data): dicts with
        `mime_type`, base64 `data`, the file's `name` and its extracted `text` (or None).
        Every surface sends them as document blocks (see `surfaces.dispatch`)."""
        return list(self.data.get("documents", []))


class Failure(Frozen):
    """A failure as a value: a stable `code`, the path involved and details for messages.

    Codes: invalid, outside, symlink_loop, changed, not_found, is_directory,
    not_directory, not_regular, hidden, denied, protected, parent_missing, exists,
    binary, undecodable, unencodable, too_large, no_match, ambiguous, no_change,
    invalid_regex, marker_not_found, count_mismatch, line_out_of_range, empty_old,
    not_read, stale, rejected, no_confirmation, busy, io_error.
    """

    _fields = ("code", "path", "detail")
    __slots__ = _fields
    code: str
    path: str
    detail: dict[str, Any]

    def __init__(self, code: str, path: str = "", detail: dict[str, Any] | None = None) -> None:
        self._set(code, path, {} if detail is None else detail)

    def __str__(self) -> str:
        return f"{self.code}: {self.path} {self.detail.get('message', '')}".strip()


class OperationFailed(Exception):
    """Raised inside the engine to abort an operation with a Failure."""

    def __init__(self, failure: Failure) -> None:
        self.failure = failure
        super().__init__(str(failure))


def fail(code: str, path: str = "", **detail: Any) -> OperationFailed:
    return OperationFailed(Failure(code, path, detail))
