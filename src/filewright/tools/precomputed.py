"""Parameter schemas computed ahead of time, so a call need not import pydantic.

`precomputed.json` holds each parameter-model module's JSON schemas, stamped with the
SHA-256 of the module's source: a module edited since is validated by pydantic, never
wrongly. `scripts/precompute.py` rewrites the file (a test fails when it is stale).
"""

from __future__ import annotations

import hashlib
import json
from importlib.util import find_spec
from pathlib import Path
from typing import Any

FILE = Path(__file__).with_name("precomputed.json")

_data: dict[str, Any] | None = None
_fresh: dict[str, bool] = {}


def _load() -> dict[str, Any]:
    global _data
    if _data is None:
        try:
            loaded = json.loads(FILE.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            loaded = {}
        _data = loaded if isinstance(loaded, dict) else {}
    return _data


def source_hash(module: str) -> str | None:
    """SHA-256 of a module's source file, without importing the module."""
    try:
        spec = find_spec(module)
    except (ImportError, ValueError):
        return None
    if spec is None or spec.origin is None:
        return None
    try:
        return hashlib.sha256(Path(spec.origin).read_bytes()).hexdigest()
    except OSError:
        return None


def section(module: str) -> dict[str, Any] | None:
    """The data computed from `module`'s source, or None when missing or stale."""
    entry = _load().get(module)
    if not isinstance(entry, dict):
        return None
    if module not in _fresh:
        _fresh[module] = entry.get("source_sha256") == source_hash(module)
    data = entry.get("data")
    return data if _fresh[module] and isinstance(data, dict) else None
