"""read_many: several files in one call, under one output budget, each failing alone."""

from __future__ import annotations

from dataclasses import dataclass

from filewright.core.result import Failure, OperationFailed
from filewright.engine.workspace import Engine
from filewright.read.readers import DEFAULT_LIMIT, ReadOutcome, read_any, render_outcome

DEFAULT_BUDGET = 100_000


@dataclass
class ManyItem:
    """One path's share of a read_many: its outcome and rendered text, its failure, or
    `skipped` when the budget ran out before it."""

    given: str
    outcome: ReadOutcome | None = None
    text: str = ""
    failure: Failure | None = None
    skipped: bool = False


def read_many(
    engine: Engine,
    paths: list[str],
    *,
    limit: int | None = DEFAULT_LIMIT,
    max_output_chars: int = DEFAULT_BUDGET,
    style: str = "default",
) -> list[ManyItem]:
    """Read each path (text, image, PDF, notebook) in order, rendered in `style`, until
    `max_output_chars` characters of output are used; a file that cannot be read gets a
    failure of its own, a hidden one exactly the failure of a missing one."""
    out: list[ManyItem] = []
    left = max_output_chars
    seen: set[str] = set()
    for given in paths:
        if given in seen:
            continue
        seen.add(given)
        item = ManyItem(given)
        out.append(item)
        if left <= 0:
            item.skipped = True
            continue
        try:
            item.outcome = read_any(engine, given, limit=limit, max_output_chars=left)
        except OperationFailed as exc:
            item.failure = exc.failure
            continue
        item.text = render_outcome(item.outcome, style)
        left -= len(item.text)
    return out
