"""The `filewright` command: call a tool, list tools, serve them, undo and inspect history.

    filewright call [--root DIR]... [--toolset NAME] [--locale en|zh] [--memory on|off]
                    [--dry-run] [--yes] TOOL ['JSON-ARGS']
    filewright tools [--toolset NAME] [--format FORMAT]
    filewright serve [--root DIR]... [--toolset NAME] [--http HOST:PORT]
    filewright undo PATH / filewright history [PATH]

`call` prints one JSON object {"ok", "text", "data"} and exits 0 when ok, 1 when the tool
reported a failure, 2 for a usage error.
"""

from __future__ import annotations

import json
import sys
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

if TYPE_CHECKING:
    from filewright.workspace import ConfirmRequest, Workspace

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2
USAGE_ERRORS = {"bad_arguments", "unknown_tool", "usage"}

app = typer.Typer(
    name="filewright",
    help="Safe, precise and fast file tools for LLM agents.\n\n"
    "Examples:\n\n"
    "  filewright call read '{\"path\": \"README.md\"}'\n\n"
    "  filewright call --toolset claude Edit '{\"file_path\": \"/abs/a.py\", \"old_string\": \"x\", \"new_string\": \"y\"}'\n\n"
    "  filewright tools --toolset gemini --format gemini\n\n"
    "  filewright serve --toolset claude --root .",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)


class OnOff(StrEnum):
    on = "on"
    off = "off"


class Locale(StrEnum):
    en = "en"
    zh = "zh"


Roots = Annotated[
    list[Path] | None,
    typer.Option("--root", "-r", help="Workspace root directory (repeatable; default: current directory)."),
]
ToolsetName = Annotated[str, typer.Option("--toolset", "-t", help="Toolset: default, claude, text_editor, gemini, worker, companion, memo.")]


def _usage_error(message: str) -> typer.Exit:
    print(json.dumps({"ok": False, "text": message, "data": {"error": "usage"}}, ensure_ascii=False))
    print(f"filewright: {message}", file=sys.stderr)
    return typer.Exit(EXIT_USAGE)


def _terminal_confirm(request: ConfirmRequest) -> bool:
    """Show the diff in colour on stderr and ask on the terminal."""
    from rich.console import Console
    from rich.syntax import Syntax

    console = Console(stderr=True)
    console.print(f"[bold]{request.operation}[/bold] {request.path}  (risk: {request.risk})")
    if request.diff:
        console.print(Syntax(request.diff, "diff", theme="ansi_dark", background_color="default"))
    console.print("Apply this change? [y/N] ", end="")
    try:
        answer = sys.stdin.readline()
    except (OSError, KeyboardInterrupt):
        return False
    return answer.strip().lower() in ("y", "yes")


def _workspace(
    roots: list[Path] | None,
    *,
    locale: str = "en",
    memory: bool = True,
    yes: bool = False,
    dry_run: bool = False,
    toolset: str = "default",
) -> Workspace:
    from filewright.workspace import Workspace

    confirm: Any = None
    if yes:
        confirm = True
    elif sys.stdin.isatty():
        confirm = _terminal_confirm
    chosen = [str(r) for r in (roots or [])]
    if not chosen and toolset == "companion":
        from filewright.toolsets.companion import default_workspace

        chosen = [str(default_workspace())]
    try:
        return Workspace(chosen or ["."], locale=locale, memory=memory, confirm=confirm,
                         session="cli", dry_run=dry_run)
    except ValueError as exc:
        raise _usage_error(str(exc)) from None


def _load_toolset(ws: Workspace, name: str) -> Any:
    try:
        return ws.toolset(name)
    except ValueError as exc:
        raise _usage_error(str(exc)) from None


@app.command()
def call(
    tool: Annotated[str, typer.Argument(help="Tool name, e.g. read, Edit, replace.")],
    args: Annotated[str | None, typer.Argument(help="Tool arguments as a JSON object ('-' reads stdin).")] = None,
    root: Roots = None,
    toolset: ToolsetName = "default",
    locale: Annotated[Locale, typer.Option(help="Language of engine messages.")] = Locale.en,
    memory: Annotated[OnOff, typer.Option(help="Memory switch (companion: USER.md / MEMORY.md).")] = OnOff.on,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Show what would change; write nothing.")] = False,
    yes: Annotated[bool, typer.Option("--yes", "-y", help="Approve changes that need confirmation.")] = False,
    human: Annotated[bool, typer.Option("--human", help="Readable output with a coloured diff instead of JSON.")] = False,
) -> None:
    """Call one tool and print its result as one JSON object."""
    raw = sys.stdin.read() if args == "-" else (args or "{}")
    try:
        parsed = json.loads(raw)
    except ValueError as exc:
        raise _usage_error(f"JSON-ARGS is not valid JSON: {exc}") from None
    if not isinstance(parsed, dict):
        raise _usage_error("JSON-ARGS must be a JSON object, e.g. '{\"path\": \"a.txt\"}'")
    ws = _workspace(root, locale=locale.value, memory=memory == OnOff.on, yes=yes, dry_run=dry_run,
                    toolset=toolset)
    result = _load_toolset(ws, toolset).call(tool, parsed)
    if human:
        _print_human(result)
    else:
        sys.stdout.write(result.to_json() + "\n")
    if result.ok:
        raise typer.Exit(EXIT_OK)
    if result.data.get("error") in USAGE_ERRORS:
        print(f"filewright: {result.text.splitlines()[0] if result.text else 'usage error'}", file=sys.stderr)
        raise typer.Exit(EXIT_USAGE)
    raise typer.Exit(EXIT_FAILED)


def _print_human(result: Any) -> None:
    from rich.console import Console
    from rich.syntax import Syntax

    console = Console()
    style = "green" if result.ok else "red"
    diff = result.data.get("diff") if isinstance(result.data, dict) else None
    text = result.text
    if diff and diff.rstrip("\n") in text:
        text = text.replace(diff.rstrip("\n"), "").rstrip()
    console.print(text, style=style, markup=False, highlight=False)
    if diff:
        console.print(Syntax(diff, "diff", theme="ansi_dark", background_color="default"))


@app.command()
def tools(
    toolset: ToolsetName = "default",
    format: Annotated[str | None, typer.Option("--format", "-f", help="openai | openai-responses | anthropic | gemini | mcp (JSON). Default: a table on a terminal, openai JSON otherwise.")] = None,
    root: Roots = None,
    memory: Annotated[OnOff, typer.Option(help="Memory switch (changes the companion's tools).")] = OnOff.on,
) -> None:
    """List a toolset's tools, or print their function-calling definitions."""
    from filewright.schemas import FORMATS

    ws = _workspace(root, memory=memory == OnOff.on, toolset=toolset)
    ts = _load_toolset(ws, toolset)
    if format is None and sys.stdout.isatty():
        from rich.console import Console
        from rich.table import Table

        table = Table(title=f"filewright toolset: {toolset}")
        for column in ("tool", "parameters", "kind", "description"):
            table.add_column(column)
        from filewright.schemas import parameters_schema

        for t in ts.tools():
            schema = parameters_schema(t)
            required = set(schema.get("required", []))
            params = ", ".join(p if p in required else f"[{p}]" for p in schema.get("properties", {}))
            kind = "read-only" if t.read_only else ("destructive" if t.destructive else "changes")
            table.add_row(t.name, params, kind, t.description.split("\n")[0][:100])
        Console().print(table)
        return
    fmt = format or "openai"
    if fmt not in FORMATS:
        raise _usage_error(f"unknown format {fmt!r}; expected one of {', '.join(FORMATS)}")
    sys.stdout.write(json.dumps(ts.definitions(fmt), ensure_ascii=False, indent=2) + "\n")


@app.command()
def undo(
    path: Annotated[str, typer.Argument(help="File whose last change to undo.")],
    root: Roots = None,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Show what undo would restore.")] = False,
) -> None:
    """Restore a file to its content before its last change (repeat to go further back)."""
    from filewright.pipeline import undo as undo_change

    ws = _workspace(root)
    outcome = undo_change(ws.engine(), path, dry_run=dry_run)
    if not outcome.ok:
        from filewright.messages import failure_text

        assert outcome.failure is not None
        text = failure_text(outcome.failure)
        print(json.dumps({"ok": False, "text": text, "data": outcome.data()}, ensure_ascii=False))
        raise typer.Exit(EXIT_FAILED)
    undone = outcome.extra.get("undone", {})
    verb = "Would restore" if dry_run else "Restored"
    text = f"{verb} {path} to before its {undone.get('operation', 'last')} of {undone.get('time', '?')}"
    print(json.dumps({"ok": True, "text": text, "data": outcome.data()}, ensure_ascii=False))


@app.command()
def history(
    path: Annotated[str | None, typer.Argument(help="File to show; omit to list files with history.")] = None,
    root: Roots = None,
) -> None:
    """Show the recorded changes of a file (newest last), or the files that have any."""
    ws = _workspace(root)
    if path is None:
        files = ws.history.files()
        print(json.dumps({"ok": True, "text": "\n".join(files) or "(no history)", "data": {"files": files}},
                         ensure_ascii=False))
        return
    from filewright.result import OperationFailed

    engine = ws.engine()
    try:
        loc, _ = engine.locate(path, purpose="read")
    except OperationFailed as exc:
        from filewright.messages import failure_text

        print(json.dumps({"ok": False, "text": failure_text(exc.failure), "data": {"error": exc.failure.code}}))
        raise typer.Exit(EXIT_FAILED) from None
    entries = [e.to_dict() for e in ws.history.entries(str(loc.real))]
    lines = [f"{e['id']:>3}  {e['time']}  {e['operation']:<8} {'modified' if e['existed'] else 'created'}"
             for e in entries]
    print(json.dumps({"ok": True, "text": "\n".join(lines) or f"(no history for {path})",
                      "data": {"path": str(loc.path), "entries": entries}}, ensure_ascii=False))


@app.command()
def serve(
    root: Roots = None,
    toolset: ToolsetName = "default",
    http: Annotated[str | None, typer.Option("--http", help="Serve streamable HTTP on HOST:PORT instead of stdio.")] = None,
    locale: Annotated[Locale, typer.Option(help="Language of engine messages.")] = Locale.en,
    memory: Annotated[OnOff, typer.Option(help="Memory switch (companion).")] = OnOff.on,
    yes: Annotated[bool, typer.Option("--yes", help="Approve confirmations when the client cannot be asked.")] = False,
) -> None:
    """Serve a toolset over MCP (stdio by default)."""
    try:
        from filewright.server import run_server
    except ImportError as exc:
        raise _usage_error(f"the MCP server is not available: {exc}") from None
    run_server(roots=[str(r) for r in (root or [])], toolset=toolset, http=http, locale=locale.value,
               memory=memory == OnOff.on, yes=yes)


def main() -> None:
    """Console-script entry point."""
    try:
        app()
    except KeyboardInterrupt:
        sys.exit(130)
