"""Why a path gets its access: the rule that decides it and where that rule was written
(`filewright policy explain PATH`, like `git check-ignore -v`).

The answer is the policy's own: `Policy.decide` over the names `Engine.access` judges
(`Engine.policy_names`), then the same two exceptions `Engine.access` makes (filewright's
own state is hidden; the user's trusted policy file is read-only to agents).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from filewright.policy.rules import ENGINE_RULES, PROTECTED_RULES, Access, Rule

if TYPE_CHECKING:
    from filewright.engine.workspace import Engine
    from filewright.fs.paths import Location

DEFAULT_SOURCE = "no rule matches (the default)"


@dataclass(frozen=True)
class Explanation:
    """One toolset's answer for one path: the access, the rule that decided it (None when
    no rule matches or filewright itself decides) and where that rule comes from."""

    toolset: str
    access: Access
    rule: Rule | None
    source: str

    def as_dict(self) -> dict[str, object]:
        rule = self.rule
        return {
            "toolset": self.toolset,
            "access": self.access.value,
            "pattern": rule.pattern if rule else None,
            "rule_access": rule.access.value if rule else None,
            "memory": rule.memory if rule else None,
            "reason": rule.reason if rule else "",
            "source": self.source,
        }


def explain(engine: Engine, loc: Location) -> Explanation:
    """The access `engine` gives `loc`, with the deciding rule and its source."""
    ws = engine.workspace
    if ws.is_private(loc.real):
        return Explanation(engine.toolset, Access.HIDDEN, None, "filewright's own state")
    access, rule = engine.policy.decide(*engine.policy_names(loc), is_dir=loc.is_dir)
    if loc.real == ws.user_policy_file and access in (Access.WRITE, Access.CONFIRM):
        return Explanation(
            engine.toolset, Access.READ, None, "the user's policy file (read-only to agents)"
        )
    return Explanation(engine.toolset, access, rule, source_of(engine, rule))


def source_of(engine: Engine, rule: Rule | None) -> str:
    """Where `rule` was written: a policy file's "FILE:LINE", the built-in sets, the
    Python caller, or the toolset's own profile."""
    if rule is None:
        return DEFAULT_SOURCE
    if rule.origin:
        return rule.origin
    if any(rule is r for r in PROTECTED_RULES):
        return "built-in: the protected set (SECURITY.md)"
    if any(rule is r for r in ENGINE_RULES):
        return "built-in: filewright's own files"
    if any(rule is r for r in engine.workspace.user_rules):
        return "Workspace(rules=...)"
    return f"toolset {engine.toolset}: its seed's rules"
