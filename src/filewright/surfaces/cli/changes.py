"""`filewright undo` and `filewright history`: what they compute and how they print it.

Both print one JSON object {"ok", "text", "data"} when stdout is not a terminal (or with
`--json`), and readable text (a coloured diff, hints for the next command) on a terminal.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from filewright.core.messages import failure_text
from filewright.core.result import OperationFailed
from filewright.engine.diffs import unified_diff
from filewright.engine.undo import undo as undo_change
from filewright.fs import fsio
from filewright.surfaces.cli.calls import (
    EXIT_FAILED,
    EXIT_OK,
    UsageError,
    load_toolset,
    open_workspace,
    print_text,
    report_usage_error,
)

if TYPE_CHECKING:
    from filewright.engine.workspace import Engine, Workspace
    from filewright.state.index import Entry


def emit(ok: bool, text: str, data: dict[str, Any], *, as_json: bool, diff: str = "") -> int:
    """Print a result: JSON when `as_json`, else readable text (and `diff` in colour)."""
    if as_json:
        sys.stdout.write(json.dumps({"ok": ok, "text": text, "data": data}, ensure_ascii=False))
        sys.stdout.write("\n")
        return EXIT_OK if ok else EXIT_FAILED

    print_text(text, ok=ok, diff=diff)
    return EXIT_OK if ok else EXIT_FAILED


def wants_json(flag: bool) -> bool:
    """JSON unless stdout is a terminal (`--json` forces it)."""
    if flag:
        return True
    try:
        return not sys.stdout.isatty()
    except (AttributeError, ValueError):
        return True


def _when(entry: Entry) -> str:
    return entry.time.replace("T", " ").split(".")[0] + " UTC"


def undo_command(
    path: str,
    *,
    roots: list[str] | None,
    toolset: str,
    dry_run: bool,
    yes: bool,
    force: bool,
    as_json: bool,
) -> int:
    """`filewright undo` (from the typer command or the start-up's fast path): its exit
    status."""
    as_json = wants_json(as_json)
    try:
        ws = open_workspace(roots, yes=yes, toolset=toolset)
        tools = load_toolset(ws, toolset)
    except UsageError as exc:
        return report_usage_error(str(exc), json_out=as_json)
    return run_undo(tools.engine, path, dry_run=dry_run, force=force, as_json=as_json)


def run_undo(engine: Engine, path: str, *, dry_run: bool, force: bool, as_json: bool) -> int:
    """Undo the last recorded change of `path` through `engine` (its toolset's policy
    decides whether the restore needs approval; see `engine.undo.undo`)."""

    outcome = undo_change(engine, path, dry_run=dry_run, force=force)
    if not outcome.ok:
        assert outcome.failure is not None
        text = failure_text(outcome.failure)
        if outcome.failure.code == "stale":
            text = (
                f"{path} changed after its last recorded change (edited outside filewright?), "
                f"so undo would lose that. `filewright history {path} --diff N` shows a change; "
                f"`filewright undo --force {path}` restores anyway and records the current "
                "content as a change of its own (undo again to get it back)."
            )
        return emit(False, text, outcome.data(), as_json=as_json)
    undone = outcome.extra.get("undone", {})
    verb = "Would restore" if dry_run else "Restored"
    when = str(undone.get("time", "?")).replace("T", " ").split(".")[0]
    text = f"{verb} {path} to before its {undone.get('operation', 'last')} of {when} UTC"
    if outcome.extra.get("forced") and not dry_run:
        text += " (its content before this undo is kept: undo again to get it back)"
    return emit(True, text, outcome.data(), as_json=as_json, diff=outcome.diff or "")


def run_history(
    ws: Workspace, path: str | None, *, show: int | None, diff: int | None, as_json: bool
) -> int:
    """List the files with history, a file's changes, or one change's content or diff."""

    if path is None:
        # Listed like any listing: a file the policy denies or hides is not named.
        visible = ws.engine().is_visible_real
        files = [f for f in ws.history.files() if visible(Path(f), is_dir=False)]
        text = "\n".join(files) if files else "(no history)"
        if files and not as_json:
            text += "\n\nfilewright history PATH   lists one file's changes"
        return emit(True, text, {"files": files}, as_json=as_json)
    engine = ws.engine()
    try:
        loc, _ = engine.locate(path, purpose="read")
    except OperationFailed as exc:
        return emit(False, failure_text(exc.failure), {"error": exc.failure.code}, as_json=as_json)
    real = str(loc.real)
    entries = ws.history.entries(real)
    data: dict[str, Any] = {"path": str(loc.path), "entries": [e.to_dict() for e in entries]}
    if show is None and diff is None:
        return emit(True, _listing(path, entries, as_json), data, as_json=as_json)
    wanted = show if show is not None else diff
    index = next((i for i, e in enumerate(entries) if e.id == wanted), None)
    if index is None:
        ids = ", ".join(str(e.id) for e in entries) or "none"
        text = f"{path} has no recorded change {wanted} (recorded: {ids})"
        return emit(False, text, {**data, "error": "no_history"}, as_json=as_json)
    entry = entries[index]
    before = ws.history.before_bytes(real, entry)
    data["entry"] = entry.to_dict()
    if show is not None:
        if before is None:
            return emit(True, f"({path} did not exist before change {entry.id})", data,
                        as_json=as_json)  # fmt: skip
        return emit(True, before.decode("utf-8", "replace"), data, as_json=as_json)
    after, label = _after(ws, loc, entries, index)

    changes = unified_diff(
        (before or b"").decode("utf-8", "replace"),
        (after or b"").decode("utf-8", "replace"),
        loc.lexical_rel,
    )
    data["diff"] = changes
    head = f"change {entry.id} of {path}: {entry.operation} at {_when(entry)} ({label})"
    if as_json:
        return emit(True, head + "\n" + changes, data, as_json=True)
    return emit(True, head, data, as_json=False, diff=changes or "(no difference)\n")


def _after(ws: Workspace, loc: Any, entries: list[Entry], index: int) -> tuple[bytes | None, str]:
    """The bytes a change left: the next change's before, or the file as it is now."""

    if index + 1 < len(entries):
        return ws.history.before_bytes(
            str(loc.real), entries[index + 1]
        ), "as the next change found it"
    try:
        return fsio.read_bytes(loc).data, "against the file as it is now"
    except OSError:
        return None, "the file is gone now"


def _listing(path: str, entries: list[Entry], as_json: bool) -> str:
    if not entries:
        return f"(no history for {path})"
    rows = [
        f"{e.id:>3}  {_when(e)}  {e.operation:<12} "
        f"{'modified' if e.existed else 'created'}"
        + (f" ({e.size_before} bytes before)" if e.existed else "")
        for e in entries
    ]
    if as_json:
        return "\n".join(rows)
    return "\n".join(
        [
            f"{path}: {len(entries)} recorded change(s), newest last",
            *rows,
            "",
            f"filewright history {path} --diff N   what change N did",
            f"filewright history {path} --show N   the content before change N",
            f"filewright undo {path}               take the newest change back",
        ]
    )
