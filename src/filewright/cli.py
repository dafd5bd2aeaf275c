"""The `filewright` command: call a tool, list tools, serve them, undo and inspect history.

    filewright call [--root DIR]... [--toolset NAME] [--locale en|zh] [--memory on|off]
                    [--dry-run] [--yes] [--human] [--no-progress] TOOL ['JSON-ARGS']
    filewright tools [--toolset NAME] [--format FORMAT]
    filewright serve [--root DIR]... [--toolset NAME] [--http HOST:PORT] [--yes]
    filewright undo PATH / filewright history [PATH]

`call` prints one JSON object {"ok", "text", "data"} and exits 0 when ok, 1 when the tool
reported a failure, 2 for a usage error (then a one-line message goes to stderr).
When stderr is a terminal, a long call shows its progress there (`filewright.progress_bar`;
off with --no-progress).

Start-up matters for `call` (agents run it once per tool call), so this module imports
nothing heavy: a plain `call` command line is parsed here by `parse_call_argv`, which
accepts exactly the options of the typer command and hands everything else (help,
unknown or malformed options, other commands) to the typer app in `filewright.cli_typer`.
"""

from __future__ import annotations

import json
import sys
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from filewright.result import Result
    from filewright.toolsets.base import Toolset
    from filewright.workspace import ConfirmRequest, Workspace

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2
USAGE_ERRORS = {"bad_arguments", "unknown_tool", "usage"}
TOOLSET_NAMES = "default, claude, text_editor, gemini, worker, companion, memo"
LOCALES = ("en", "zh")
ON_OFF = ("on", "off")


class UsageError(Exception):
    """A usage error: reported as one line on stderr (and a JSON object for `call`)."""


def report_usage_error(message: str, *, json_out: bool = True) -> int:
    """Print the usage error (JSON on stdout when `json_out`, one line on stderr); return 2."""
    if json_out:
        payload = {"ok": False, "text": message, "data": {"error": "usage"}}
        sys.stdout.write(json.dumps(payload, ensure_ascii=False) + "\n")
        sys.stdout.flush()
    print(f"filewright: {message}", file=sys.stderr)
    return EXIT_USAGE


def terminal_confirm(request: ConfirmRequest) -> bool:
    """Show the diff in colour on stderr and ask on the terminal."""
    from rich.console import Console
    from rich.markup import escape
    from rich.syntax import Syntax

    from filewright.paths import printable

    console = Console(stderr=True)
    console.print(
        f"[bold]{escape(request.operation)}[/bold] {escape(request.path)}  (risk: {request.risk})"
    )
    if request.diff:
        # Escapes in the content must not redraw the terminal while a person reviews it.
        diff = printable(request.diff)
        console.print(Syntax(diff, "diff", theme="ansi_dark", background_color="default"))
    console.print("Apply this change? \\[y/N] ", end="")
    try:
        answer = sys.stdin.readline()
    except (OSError, KeyboardInterrupt):
        return False
    return answer.strip().lower() in ("y", "yes")


def open_workspace(
    roots: list[str] | None,
    *,
    locale: str = "en",
    memory: bool = True,
    yes: bool = False,
    dry_run: bool = False,
    toolset: str = "default",
) -> Workspace:
    """The CLI's workspace: confirm with --yes, on a terminal, or not at (refuse)."""
    from filewright.workspace import Workspace

    confirm: Any = None
    if yes:
        confirm = True
    elif sys.stdin.isatty():
        confirm = terminal_confirm
    chosen: list[Any] = list(roots or [])
    if not chosen and toolset == "companion":
        from filewright.toolsets.companion import default_workspace

        chosen = [str(default_workspace())]
    try:
        return Workspace(
            chosen or ["."],
            locale=locale,
            memory=memory,
            confirm=confirm,
            session="cli",
            dry_run=dry_run,
        )
    except ValueError as exc:
        raise UsageError(str(exc)) from None


def load_toolset(ws: Workspace, name: str) -> Toolset:
    """`ws.toolset(name)`, an unknown name being a usage error."""
    try:
        return ws.toolset(name)
    except ValueError as exc:
        raise UsageError(str(exc)) from None


def run_call(
    tool: str,
    args: str | None,
    *,
    roots: list[str] | None = None,
    toolset: str = "default",
    locale: str = "en",
    memory: bool = True,
    dry_run: bool = False,
    yes: bool = False,
    human: bool = False,
    progress: bool = True,
) -> int:
    """The `call` command: run one tool, print the result, return the exit status.

    `progress`: show the progress the tool reports on stderr when it is a terminal.
    """
    try:
        raw = sys.stdin.read() if args == "-" else (args or "{}")
        try:
            parsed = json.loads(raw)
        except (ValueError, RecursionError) as exc:  # RecursionError: absurdly nested JSON
            raise UsageError(f"JSON-ARGS is not valid JSON: {exc}") from None
        if not isinstance(parsed, dict):
            raise UsageError('JSON-ARGS must be a JSON object, e.g. \'{"path": "a.txt"}\'')
        ws = open_workspace(
            roots, locale=locale, memory=memory, yes=yes, dry_run=dry_run, toolset=toolset
        )
        ts = load_toolset(ws, toolset)
        if progress and _stderr_is_terminal():
            from filewright.progress_bar import shown_during

            with shown_during(tool):  # erased before the result is printed
                result = ts.call(tool, parsed)
        else:
            result = ts.call(tool, parsed)
    except UsageError as exc:
        return report_usage_error(str(exc))
    if human:
        print_human(result)
    else:
        sys.stdout.write(result.to_json() + "\n")
    sys.stdout.flush()
    if result.ok:
        return EXIT_OK
    if result.data.get("error") in USAGE_ERRORS:
        first = result.text.splitlines()[0] if result.text else "usage error"
        print(f"filewright: {first}", file=sys.stderr)
        return EXIT_USAGE
    return EXIT_FAILED


def _stderr_is_terminal() -> bool:
    try:
        return sys.stderr is not None and sys.stderr.isatty()
    except (AttributeError, ValueError):  # replaced or closed stderr
        return False


def print_human(result: Result) -> None:
    """Readable output: the text (green when ok, red when not) and a coloured diff."""
    from rich.console import Console
    from rich.syntax import Syntax

    from filewright.paths import printable

    console = Console()
    style = "green" if result.ok else "red"
    diff = result.data.get("diff") if isinstance(result.data, dict) else None
    text = result.text
    if diff and diff.rstrip("\n") in text:
        text = text.replace(diff.rstrip("\n"), "").rstrip()
    console.print(printable(text), style=style, markup=False, highlight=False)
    if diff:
        console.print(
            Syntax(printable(diff), "diff", theme="ansi_dark", background_color="default")
        )


# -- the fast path for `call` ------------------------------------------------------------------

_VALUE_OPTIONS = {
    "--root": "roots",
    "-r": "roots",
    "--toolset": "toolset",
    "-t": "toolset",
    "--locale": "locale",
    "--memory": "memory",
}
_FLAGS = {
    "--dry-run": "dry_run",
    "--yes": "yes",
    "-y": "yes",
    "--human": "human",
    "--no-progress": "no_progress",
}


def parse_call_argv(argv: list[str]) -> dict[str, Any] | None:
    """Parse `call ...` exactly as the typer command would, or None to let typer do it.

    None for anything this parser does not fully understand: help, unknown options,
    combined short options, values that look like options, invalid choices, a wrong
    number of arguments. Typer then produces the same result or the proper error.
    """
    if not argv or argv[0] != "call":
        return None
    from pathlib import Path

    opts: dict[str, Any] = {
        "roots": [],
        "toolset": "default",
        "locale": "en",
        "memory": "on",
        "dry_run": False,
        "yes": False,
        "human": False,
        "no_progress": False,
    }
    positionals: list[str] = []
    i = 1
    while i < len(argv):
        token = argv[i]
        if token == "--":
            positionals.extend(argv[i + 1 :])
            break
        if token.startswith("-") and token != "-":
            name, eq, value = token.partition("=") if token.startswith("--") else (token, "", "")
            if name in _FLAGS and not eq:
                opts[_FLAGS[name]] = True
            elif name in _VALUE_OPTIONS:
                if not eq:
                    i += 1
                    if i >= len(argv) or (argv[i].startswith("-") and argv[i] != "-"):
                        return None
                    value = argv[i]
                key = _VALUE_OPTIONS[name]
                if key == "roots":
                    opts["roots"].append(str(Path(value)))
                else:
                    opts[key] = value
            else:
                return None
        else:
            positionals.append(token)
        i += 1
    if not 1 <= len(positionals) <= 2:
        return None
    if opts["locale"] not in LOCALES or opts["memory"] not in ON_OFF:
        return None
    opts["tool"] = positionals[0]
    opts["args"] = positionals[1] if len(positionals) > 1 else None
    return opts


def main(argv: list[str] | None = None) -> None:
    """Console-script entry point."""
    args = sys.argv[1:] if argv is None else argv
    try:
        fast = parse_call_argv(args)
        if fast is not None:
            sys.exit(
                run_call(
                    fast["tool"],
                    fast["args"],
                    roots=fast["roots"] or None,
                    toolset=fast["toolset"],
                    locale=fast["locale"],
                    memory=fast["memory"] == "on",
                    dry_run=fast["dry_run"],
                    yes=fast["yes"],
                    human=fast["human"],
                    progress=not fast["no_progress"],
                )
            )
        from filewright.cli_typer import run_app

        sys.exit(run_app(args))
    except KeyboardInterrupt:
        sys.exit(130)


def __getattr__(name: str) -> Any:
    """`filewright.cli.app`: the typer app, imported on first use."""
    if name == "app":
        from filewright.cli_typer import app

        return app
    raise AttributeError(name)
