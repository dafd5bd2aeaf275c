"""The `default` toolset's file-management tools: move, delete, mkdir, stat, roots. Each is
a function of the toolset and its arguments, loaded by name when first called
(`Toolset.by_name`). Mapping and wording only: the work is `engine.fileops`'."""

from __future__ import annotations

from typing import TYPE_CHECKING

from filewright.core.result import OperationFailed, Result
from filewright.engine import fileops
from filewright.engine.change import Outcome, clip_diff

if TYPE_CHECKING:
    from filewright.tools.base import Toolset
    from filewright.toolsets.default_params import (
        DeleteParams,
        MkdirParams,
        MoveParams,
        RootsParams,
        StatParams,
    )


def _managed(ts: Toolset, outcome: Outcome, given: str, done: str, would: str) -> Result:
    if not outcome.ok:
        assert outcome.failure is not None
        shown = outcome.loc.lexical_rel if outcome.loc is not None else given
        if outcome.failure.path and outcome.failure.path != given:
            shown = outcome.failure.path  # the other end of a move (its destination)
        return ts.failed(outcome.failure, shown)
    if outcome.dry_run:
        text = f"[dry run] Would {would}"
        if outcome.diff:
            text += ":\n" + clip_diff(outcome.diff).rstrip("\n")
    else:
        text = done
    return Result(True, text, outcome.data())


def move(ts: Toolset, p: MoveParams) -> Result:
    outcome = fileops.move(
        ts.engine, p.source, p.destination, overwrite=p.overwrite, dry_run=p.dry_run
    )
    what = f"{p.source} to {p.destination}"
    done = f"Moved {what}" + (" (replacing the file there)" if "replaced" in outcome.extra else "")
    return _managed(ts, outcome, p.source, done, f"move {what}")


def delete(ts: Toolset, p: DeleteParams) -> Result:
    outcome = fileops.delete(ts.engine, p.path, recursive=p.recursive, dry_run=p.dry_run)
    count = outcome.extra.get("entries", 0)
    inside = f" and the {count} entries in it" if count else ""
    return _managed(
        ts,
        outcome,
        p.path,
        f"Deleted {p.path}{inside} (undo restores it)",
        f"delete {p.path}{inside}",
    )


def mkdir(ts: Toolset, p: MkdirParams) -> Result:
    outcome = fileops.mkdir(ts.engine, p.path, dry_run=p.dry_run)
    done = f"Created directory {p.path}" if outcome.created else f"Directory {p.path} exists"
    return _managed(ts, outcome, p.path, done, f"create directory {p.path}")


def stat(ts: Toolset, p: StatParams) -> Result:
    try:
        info = fileops.stat(ts.engine, p.path)
    except OperationFailed as exc:
        return ts.failed(exc.failure, p.path)
    text = "\n".join(f"{k}: {v}" for k, v in info.items() if k != "path")
    return Result(True, f"{p.path}\n{text}", info)


def roots(ts: Toolset, _p: RootsParams) -> Result:
    dirs = [str(r) for r in fileops.roots(ts.engine)]
    return Result(True, "Workspace roots:\n" + "\n".join(dirs), {"roots": dirs})
