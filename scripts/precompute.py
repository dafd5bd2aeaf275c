"""Rewrite the data files that keep `filewright call` from importing heavy libraries.

- `src/filewright/tools/precomputed.json`: the JSON schemas of every parameter-model
  module (pydantic), stamped with the module's source hash;
- `src/filewright/policy/patterns.json`: pathspec's regex for every built-in policy
  pattern (the protected set, the engine's rules, each toolset's profile).

Run `uv run python scripts/precompute.py` after changing a parameter model or a built-in
pattern; tests/test_arguments.py fails while either file is stale. A stale file costs
time, never correctness: stale schemas are ignored and missing patterns translated.
"""

from __future__ import annotations

import json
import sys
from typing import Any

from filewright.engine.registry import NAMES, toolset_class
from filewright.policy import rules as policy_rules
from filewright.tools import precomputed
from filewright.tools.arguments import build_schemas


def builtin_patterns() -> list[str]:
    """Every pattern of the built-in policy, case-folded as the policy matches them."""
    rules = [*policy_rules.PROTECTED_RULES, *policy_rules.ENGINE_RULES]
    for name in NAMES:
        rules += toolset_class(name).profile
    return sorted({rule.pattern.casefold() for rule in rules})


def build_schema_file() -> dict[str, Any]:
    return {
        module: {"source_sha256": precomputed.source_hash(module), "data": schemas}
        for module, schemas in build_schemas().items()
    }


def build_pattern_file() -> dict[str, Any]:
    from pathspec.patterns.gitignore.basic import GitIgnoreBasicPattern

    return {p: list(GitIgnoreBasicPattern.pattern_to_regex(p)) for p in builtin_patterns()}


def render(data: dict[str, Any]) -> str:
    return json.dumps(data, indent=1, ensure_ascii=False, sort_keys=True) + "\n"


def outputs() -> dict[Any, str]:
    """Each file's path and the text it should hold."""
    return {
        precomputed.FILE: render(build_schema_file()),
        policy_rules.PATTERNS_FILE: render(build_pattern_file()),
    }


def main() -> None:
    for path, text in outputs().items():
        path.write_text(text, encoding="utf-8")
        print(f"wrote {path}", file=sys.stderr)


if __name__ == "__main__":
    main()
