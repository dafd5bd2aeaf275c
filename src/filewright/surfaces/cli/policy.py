"""`filewright policy explain PATH`: which rule decides a path's access, and where that
rule was written (file and line, the built-in sets, a toolset's own rules), for every
toolset or the one named; like `git check-ignore -v`. The answer is
`filewright.engine.explain`'s, which asks the policy exactly as the tools do."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated

import typer

from filewright.engine.explain import explain as explain_one
from filewright.engine.registry import REGISTRY
from filewright.fs.paths import PathRefused
from filewright.surfaces.cli.calls import (
    UsageError,
    load_toolset,
    open_workspace,
    report_usage_error,
)

policy_app = typer.Typer(
    name="policy",
    help="Inspect the access policy (the rules from .filewright.toml, the user's policy "
    "file, the built-in protected set and each toolset's own rules).",
    no_args_is_help=True,
    rich_markup_mode=None,
)

MEANING = {
    "write": "read and change",
    "confirm": "read; change after approval",
    "read": "read only",
    "deny": 'neither read nor changed ("access denied")',
    "hidden": 'as if it did not exist ("not found")',
}


@policy_app.callback()
def _policy() -> None:
    """Inspect the access policy."""


@policy_app.command(
    epilog="Examples:\n\n"
    "  filewright policy explain secrets/key.pem\n\n"
    "  filewright policy explain --toolset claude .claude-backups/\n\n"
    "  filewright policy explain --json docs/index.md | jq '.toolsets[0]'\n\n"
    "A path ending in / is judged as a directory when it does not exist."
)
def explain(
    path: Annotated[str, typer.Argument(help="The path to explain (need not exist).")],
    root: Annotated[
        list[Path] | None,
        typer.Option(
            "--root",
            "-r",
            metavar="DIR",
            help="Workspace root directory (repeatable; default: the current directory).",
        ),
    ] = None,
    toolset: Annotated[
        list[str] | None,
        typer.Option(
            "--toolset",
            "-t",
            metavar="NAME",
            help=f"Only this toolset (repeatable; default: every one: {', '.join(REGISTRY)}).",
        ),
    ] = None,
    memory: Annotated[
        str, typer.Option("--memory", metavar="on|off", help="The memory switch.")
    ] = "on",
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
) -> None:
    """Say which rule decides PATH's access in each toolset: the access, the rule's
    pattern and where it was written (FILE:LINE for a policy file)."""

    if memory not in ("on", "off"):
        raise typer.Exit(report_usage_error("--memory must be on or off", json_out=as_json))
    names = toolset or list(REGISTRY)
    try:
        ws = open_workspace([str(r) for r in root] if root else None, memory=memory == "on")
        loaded = [load_toolset(ws, name) for name in names]
        loc = ws.sandbox.resolve(path)
    except UsageError as exc:
        raise typer.Exit(report_usage_error(str(exc), json_out=as_json)) from None
    except PathRefused as exc:
        raise typer.Exit(report_usage_error(str(exc), json_out=as_json)) from None
    if not loc.exists and path.endswith("/"):
        loc = loc.replace(is_dir=True)
    answers = [explain_one(ts.engine, loc) for ts in loaded]
    kind = "directory" if loc.is_dir else "file"
    shown = loc.lexical_rel + ("/" if loc.is_dir and loc.lexical_rel != "." else "")
    if as_json:
        payload = {
            "path": str(loc.path),
            "relative": loc.lexical_rel,
            "is_dir": loc.is_dir,
            "exists": loc.exists,
            "toolsets": [a.as_dict() for a in answers],
        }
        sys.stdout.write(json.dumps(payload, ensure_ascii=False, indent=2) + "\n")
        return
    print(f"{shown} ({kind}{'' if loc.exists else ', does not exist'})")
    width = max(len(a.toolset) for a in answers)
    for a in answers:
        source = _from_here(a.source)
        rule = f"{source}: {a.rule.pattern}" if a.rule else source
        print(f"  {a.toolset:<{width}}  {a.access.value:<7}  {rule}")
    used = sorted({a.access.value for a in answers}, key=list(MEANING).index)
    print("  (" + "; ".join(f"{u}: {MEANING[u]}" for u in used) + ")")


def _from_here(source: str) -> str:
    """A policy file's "FILE:LINE" relative to the current directory when the file is
    below it (as `git check-ignore -v` names its .gitignore); anything else as it is."""
    name, sep, line = source.rpartition(":")
    if not (sep and line.isdigit() and name.startswith("/")):
        return source
    try:
        return f"{Path(name).relative_to(Path.cwd())}:{line}"
    except ValueError:
        return source
