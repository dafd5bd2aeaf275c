"""What a call would otherwise import a library to compute, computed ahead of time.

`filewright call` runs once per tool call, so its start-up counts. Two things it needs
come from libraries that cost more to import than the rest of the call:
- the JSON schemas of the tool parameter models (pydantic), for `filewright.arguments`;
- the regular expressions of the built-in policy patterns (pathspec's gitignore
  translation), for `filewright.policy`.

Both are kept in `precomputed.json`, rewritten by `python -m filewright.precomputed` and
checked by the tests (tests/test_arguments.py). Schemas are stamped with a hash of their
module's source and ignored when it no longer matches; a pattern missing from the table
is translated by pathspec at run time. So a stale file costs time, never correctness.
"""

from __future__ import annotations

import hashlib
import json
import sys
from importlib.util import find_spec
from pathlib import Path
from typing import Any

FILE = Path(__file__).with_name("precomputed.json")
PATTERNS = "gitignore_patterns"

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


def pattern_regex(pattern: str) -> tuple[str | None, bool | None] | None:
    """pathspec's translation of a gitignore `pattern` if precomputed, else None."""
    found = _load().get(PATTERNS, {}).get(pattern)
    if isinstance(found, list) and len(found) == 2:
        return found[0], found[1]
    return None


def builtin_patterns() -> list[str]:
    """Every pattern of the built-in policy: the protected set, the engine's rules and
    each toolset's profile, case-folded as the policy matches them."""
    from filewright.policy import ENGINE_RULES, PROTECTED_RULES
    from filewright.toolsets import NAMES, toolset_class

    rules = [*PROTECTED_RULES, *ENGINE_RULES]
    for name in NAMES:
        rules += toolset_class(name).profile
    return sorted({rule.pattern.casefold() for rule in rules})


def build() -> dict[str, Any]:
    """The file's content, computed from the libraries themselves."""
    from pathspec.patterns.gitignore.basic import GitIgnoreBasicPattern

    from filewright.arguments import build_schemas

    out: dict[str, Any] = {
        module: {"source_sha256": source_hash(module), "data": schemas}
        for module, schemas in build_schemas().items()
    }
    out[PATTERNS] = {
        pattern: list(GitIgnoreBasicPattern.pattern_to_regex(pattern))
        for pattern in builtin_patterns()
    }
    return out


def render() -> str:
    return json.dumps(build(), indent=1, ensure_ascii=False, sort_keys=True) + "\n"


def main() -> None:
    """`python -m filewright.precomputed`: rewrite the file."""
    FILE.write_text(render(), encoding="utf-8")
    print(f"wrote {FILE}", file=sys.stderr)


if __name__ == "__main__":
    main()
