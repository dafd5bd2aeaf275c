"""The typer app behind `filewright`: every command, its options and its help.

`filewright.surfaces.cli.main.main` handles a plain `call` itself (fast start-up) and sends everything
else here through `run_app`, which also turns command-line usage errors into the
contract's form: exit status 2, one line on stderr, and for `call` the JSON object.
"""

from __future__ import annotations

import json
import os
import sys
from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer
from typer._click.exceptions import NoArgsIsHelpError
from typer._click.exceptions import UsageError as ClickUsageError

from filewright.core.version import __version__
from filewright.engine.registry import REGISTRY, toolset_class
from filewright.engine.workspace import Workspace
from filewright.surfaces.cli.calls import (
    UsageError,
    load_toolset,
    open_workspace,
    report_usage_error,
    run_call,
)
from filewright.surfaces.cli.changes import emit, run_history, undo_command, wants_json
from filewright.surfaces.cli.policy import policy_app
from filewright.surfaces.mcp.listen import listen

HELP = """Safe, precise and fast file tools for LLM agents.

Run one tool (prints one JSON object; exit 0 ok, 1 tool failure, 2 usage error):

  filewright call read '{"path": "README.md", "limit": 20}'

  filewright call --toolset claude Edit '{"file_path": "/abs/a.py", "old_string": "x = 1", "new_string": "x = 2"}'

  echo '{"path": "notes.md", "content": "hi"}' | filewright call --dry-run write -

See what an agent gets, or hand the tools to a model:

  filewright tools --toolset gemini

  filewright tools --toolset claude --format anthropic > tools.json

Serve them to an agent host over MCP (stdio; --http 127.0.0.1:8765 for HTTP):

  filewright serve --toolset claude --root ~/project

Take a change back:

  filewright history notes.md ; filewright undo notes.md

Version: filewright --version. Also runs as python -m filewright.
"""

app = typer.Typer(
    name="filewright",
    help=HELP,
    no_args_is_help=True,
    add_completion=True,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)


def _show_version(value: bool) -> None:
    if value:
        print(f"filewright {__version__}")
        raise typer.Exit(0)


@app.callback()
def _options(
    version: Annotated[
        bool,
        typer.Option(
            "--version", help="Print the version and exit.", is_eager=True, callback=_show_version
        ),
    ] = False,
) -> None:
    """Safe, precise and fast file tools for LLM agents."""


class OnOff(StrEnum):
    on = "on"
    off = "off"


class Locale(StrEnum):
    en = "en"
    zh = "zh"


Roots = Annotated[
    list[Path] | None,
    typer.Option(
        "--root",
        "-r",
        metavar="DIR",
        help="Workspace root directory (repeatable; relative paths resolve against the first; "
        "default: the current directory).",
    ),
]


def _complete_toolset(incomplete: str) -> list[str]:
    """Shell completion of --toolset: the registered names that start as typed."""
    return [name for name in REGISTRY if name.startswith(incomplete)]


ToolsetName = Annotated[
    str,
    typer.Option(
        "--toolset",
        "-t",
        metavar="NAME",
        help=f"Toolset: {', '.join(REGISTRY)}.",
        autocompletion=_complete_toolset,
    ),
]


def _roots(root: list[Path] | None) -> list[str] | None:
    return [str(r) for r in root] if root else None


def _fail(exc: UsageError, *, json_out: bool = True) -> typer.Exit:
    return typer.Exit(report_usage_error(str(exc), json_out=json_out))


@app.command(
    epilog="Examples:\n\n"
    '  filewright call read \'{"path": "a.txt", "offset": 10, "limit": 5}\'\n\n'
    "  filewright call --root ws --toolset worker replace_in_file "
    '\'{"path": "a.txt", "old": "x", "new": "y"}\'\n\n'
    '  filewright call --human edit \'{"path": "a.txt", "old_string": "x", '
    '"new_string": "y"}\'   (coloured diff)'
)
def call(
    tool: Annotated[
        str, typer.Argument(metavar="TOOL", help="Tool name, e.g. read, Edit, replace.")
    ],
    args: Annotated[
        str | None,
        typer.Argument(
            metavar="JSON-ARGS", help="Tool arguments as a JSON object ('-' reads stdin)."
        ),
    ] = None,
    root: Roots = None,
    toolset: ToolsetName = "default",
    locale: Annotated[Locale, typer.Option(help="Language of engine messages.")] = Locale.en,
    memory: Annotated[
        OnOff, typer.Option(help="Memory switch (companion: USER.md / MEMORY.md).")
    ] = OnOff.on,
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="Show what would change; write nothing.")
    ] = False,
    yes: Annotated[
        bool, typer.Option("--yes", "-y", help="Approve changes that need confirmation.")
    ] = False,
    human: Annotated[
        bool, typer.Option("--human", help="Readable output with a coloured diff instead of JSON.")
    ] = False,
    no_progress: Annotated[
        bool,
        typer.Option(
            "--no-progress",
            help="Draw no progress bar on stderr (drawn only when stderr is a terminal and "
            "a long search reports progress).",
        ),
    ] = False,
) -> None:
    """Call one tool and print its result as one JSON object {"ok", "text", "data"}.

    Changes that need confirmation are asked on the terminal (diff on stderr), approved
    with --yes, and refused when nobody can be asked (stdin is not a terminal).

    When stderr is a terminal, a long search shows a progress bar there, erased before
    the result is printed (--no-progress: none; TERM=dumb: none; NO_COLOR: no colours).
    """
    code = run_call(
        tool,
        args,
        roots=_roots(root),
        toolset=toolset,
        locale=locale.value,
        memory=memory == OnOff.on,
        dry_run=dry_run,
        yes=yes,
        human=human,
        progress=not no_progress,
    )
    raise typer.Exit(code)


@app.command(
    epilog="Examples:\n\n"
    "  filewright tools --toolset claude\n\n"
    "  filewright tools --toolset gemini --format gemini\n\n"
    "  filewright tools --format mcp | jq '.[].annotations'"
)
def tools(
    toolset: ToolsetName = "default",
    format: Annotated[
        str | None,
        typer.Option(
            "--format",
            "-f",
            help="openai | openai-responses | anthropic | gemini | mcp (JSON). "
            "Default: a table on a terminal, openai JSON otherwise.",
        ),
    ] = None,
    root: Roots = None,
    memory: Annotated[
        OnOff, typer.Option(help="Memory switch (changes the companion's tools).")
    ] = OnOff.on,
    strict: Annotated[
        bool,
        typer.Option(
            "--strict",
            help="OpenAI strict mode (openai, openai-responses): closed objects, every "
            "parameter required, the optional ones nullable.",
        ),
    ] = False,
) -> None:
    """List a toolset's tools, or print their function-calling definitions."""
    # deferred: the schemas load pydantic, needed only when definitions are printed
    from filewright.tools.schemas import FORMATS, STRICT_FORMATS

    if format is not None and format not in FORMATS:
        raise _fail(
            UsageError(f"unknown format {format!r}; expected one of {', '.join(FORMATS)}"),
            json_out=False,
        )
    if strict and (format or "openai") not in STRICT_FORMATS:
        raise _fail(
            UsageError(f"--strict is for --format {' or '.join(STRICT_FORMATS)}"), json_out=False
        )
    try:
        ws = open_workspace(_roots(root), memory=memory == OnOff.on, toolset=toolset)
        ts = load_toolset(ws, toolset)
    except UsageError as exc:
        raise _fail(exc, json_out=False) from None
    if format is None and not strict and sys.stdout.isatty():
        # deferred: rich and the schemas (pydantic): heavy, loaded only to draw the table
        from filewright.surfaces.cli.tables import print_tools_table

        print_tools_table(ts, toolset)
        return
    shown = ts.definitions(format or "openai", strict=strict)
    sys.stdout.write(json.dumps(shown, ensure_ascii=False, indent=2) + "\n")


AsJson = Annotated[
    bool,
    typer.Option("--json", help="Print one JSON object even on a terminal (always when piped)."),
]


@app.command(
    epilog="Examples:\n\n"
    "  filewright undo notes.md\n\n"
    "  filewright undo --dry-run notes.md   (show what would be restored)\n\n"
    "  filewright undo --force notes.md     (after an edit made outside filewright)"
)
def undo(
    path: Annotated[str, typer.Argument(help="File whose last change to undo.")],
    root: Roots = None,
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="Show what undo would restore.")
    ] = False,
    toolset: ToolsetName = "default",
    yes: Annotated[
        bool, typer.Option("--yes", "-y", help="Approve a restore that needs confirmation.")
    ] = False,
    force: Annotated[
        bool,
        typer.Option(
            "--force",
            help="Restore even though the file changed since its last recorded change; the "
            "current content is recorded first, so undo again brings it back.",
        ),
    ] = False,
    as_json: AsJson = False,
) -> None:
    """Restore a file to its content before its last change (repeat to go further back).
    A file the toolset's policy confirms changes to is restored only after approval."""
    raise typer.Exit(
        undo_command(
            path,
            roots=_roots(root),
            toolset=toolset,
            dry_run=dry_run,
            yes=yes,
            force=force,
            as_json=as_json,
        )
    )


def _prune_history(ws: object, max_bytes: int | None, as_json: bool) -> int:
    """`history --prune`: oldest entries first, until what is kept fits the cap."""
    assert isinstance(ws, Workspace)
    if max_bytes is not None and max_bytes < 0:
        raise _fail(UsageError("--max-bytes must be 0 or more"), json_out=as_json)
    before = ws.history.total_bytes()
    dropped = ws.history.prune(max_bytes)
    after = before - sum(d["bytes"] for d in dropped)
    text = (
        f"dropped {len(dropped)} entr{'y' if len(dropped) == 1 else 'ies'}; "
        f"history now holds {after} bytes"
    )
    data = {"dropped": dropped, "bytes_before": before, "bytes_after": after}
    return emit(True, text, data, as_json=as_json)


@app.command(
    epilog="Examples:\n\n"
    "  filewright history                     (files with recorded changes)\n\n"
    "  filewright history notes.md            (its changes, newest last)\n\n"
    "  filewright history notes.md --diff 3   (what change 3 did)\n\n"
    "  filewright history notes.md --show 3   (the content before change 3)\n\n"
    "  filewright history --prune             (drop the oldest entries beyond the cap)"
)
def history(
    path: Annotated[
        str | None, typer.Argument(help="File to show; omit to list files with history.")
    ] = None,
    root: Roots = None,
    prune: Annotated[
        bool,
        typer.Option(
            "--prune", help="Drop the oldest entries until the history fits its size cap."
        ),
    ] = False,
    max_bytes: Annotated[
        int | None,
        typer.Option("--max-bytes", help="With --prune: the cap in bytes (default 512 MB)."),
    ] = None,
    show: Annotated[
        int | None,
        typer.Option("--show", metavar="N", help="Print the file's content before change N."),
    ] = None,
    diff: Annotated[
        int | None,
        typer.Option("--diff", metavar="N", help="Show what change N did, as a diff."),
    ] = None,
    as_json: AsJson = False,
) -> None:
    """Show the recorded changes of a file (newest last), or the files that have any."""
    as_json = wants_json(as_json)
    if (show is not None or diff is not None) and path is None:
        raise _fail(UsageError("--show and --diff need a PATH"), json_out=as_json)
    if show is not None and diff is not None:
        raise _fail(UsageError("give --show or --diff, not both"), json_out=as_json)
    try:
        ws = open_workspace(_roots(root))
    except UsageError as exc:
        raise _fail(exc, json_out=as_json) from None
    if prune:
        raise typer.Exit(_prune_history(ws, max_bytes, as_json))
    raise typer.Exit(run_history(ws, path, show=show, diff=diff, as_json=as_json))


class ConfirmBy(StrEnum):
    client = "client"
    host = "host"
    none = "none"


@app.command(
    epilog="Roots: --root given → those directories only. Without --root, over stdio, the "
    "client's MCP roots when it offers them, else the current directory; over HTTP the "
    "client is not asked. The server instructions and the path parameters' descriptions "
    "name the roots.\n\n"
    "Confirmation (--confirm): client = MCP elicitation (the diff in the question) when the "
    "client supports it, else refused (approved with --yes); host = the host asks the user "
    "before each tool call (Gemini CLI, Claude Desktop), so what reaches the server is "
    "approved; none = such changes are refused.\n\n"
    "HTTP: a bearer token (--token-file PATH or $FILEWRIGHT_TOKEN) is required of every "
    "request when given; an address other than loopback needs one (or --allow-no-token).\n\n"
    "Examples:\n\n"
    "  filewright serve --toolset claude --root ~/project\n\n"
    "  filewright serve --toolset gemini --confirm host --root ~/project\n\n"
    "  filewright serve --http 127.0.0.1:8765 --root ~/notes --toolset memo\n\n"
    "  claude mcp add filewright -- filewright serve --toolset claude --root ~/project"
)
def serve(
    root: Roots = None,
    toolset: ToolsetName = "default",
    http: Annotated[
        str | None,
        typer.Option(
            "--http",
            metavar="HOST:PORT",
            help="Serve streamable HTTP on HOST:PORT (path /mcp) instead of stdio.",
        ),
    ] = None,
    confirm: Annotated[
        ConfirmBy,
        typer.Option(
            "--confirm",
            help="Who confirms changes that need approval: client (MCP elicitation), host "
            "(the host's own tool approval), none (refuse them).",
        ),
    ] = ConfirmBy.client,
    locale: Annotated[Locale, typer.Option(help="Language of engine messages.")] = Locale.en,
    memory: Annotated[OnOff, typer.Option(help="Memory switch (companion).")] = OnOff.on,
    yes: Annotated[
        bool,
        typer.Option(
            "--yes",
            help="With --confirm client: approve when the client cannot be asked (no "
            "elicitation support).",
        ),
    ] = False,
    token_file: Annotated[
        str | None,
        typer.Option(
            "--token-file",
            metavar="PATH",
            help="HTTP: require 'Authorization: Bearer TOKEN', TOKEN being this file's first "
            "line (default: $FILEWRIGHT_TOKEN when set).",
        ),
    ] = None,
    allow_no_token: Annotated[
        bool,
        typer.Option(
            "--allow-no-token",
            help="HTTP: serve an address other than loopback without a token.",
        ),
    ] = False,
    plain_descriptions: Annotated[
        bool,
        typer.Option(
            "--plain-descriptions",
            help="Serve the toolset's parameter descriptions exactly, without the roots.",
        ),
    ] = False,
) -> None:
    """Serve a toolset over MCP (stdio by default). Logs go to stderr."""
    # Usage errors before the MCP SDK is imported (a second or more): the toolset, the
    # roots, the HTTP options, the port (bound here, served on once the server is built).
    try:
        toolset_class(toolset)
        if root:  # (as the server will open them)
            Workspace([os.path.expanduser(r) for r in _roots(root) or []]).close()
        listener = listen(http, token_file, allow_no_token)
    except ValueError as exc:
        raise _fail(UsageError(str(exc)), json_out=False) from None
    try:
        # deferred: mcp (the SDK, anyio, pydantic): heavy, loaded only to serve
        from filewright.surfaces.mcp.server import run_server
    except ImportError as exc:
        raise _fail(UsageError(f"the MCP server is not available: {exc}"), json_out=False) from None
    try:
        run_server(
            roots=_roots(root),
            toolset=toolset,
            listener=listener,
            locale=locale.value,
            memory=memory == OnOff.on,
            yes=yes,
            confirm=confirm.value,
            describe_roots=not plain_descriptions,
        )
    except ValueError as exc:
        raise _fail(UsageError(str(exc)), json_out=False) from None
    except KeyboardInterrupt:
        print("filewright: stopped", file=sys.stderr)
        raise typer.Exit(130) from None


def _add_policy() -> None:
    app.add_typer(policy_app)


_add_policy()


COMPLETION_OPTIONS = ("--show-completion", "--install-completion")
COMPLETION_SHELLS = ("bash", "zsh", "fish", "powershell", "pwsh")


def completion_shell(args: list[str]) -> str | None:
    """The shell `args` names after `--show-completion` or `--install-completion` (as
    the next word or `=SHELL`); None for other command lines and for those options alone."""
    if not args:
        return None
    option, eq, value = args[0].partition("=")
    if option not in COMPLETION_OPTIONS:
        return None
    if not eq and len(args) > 1:
        value = args[1]
    return value or None


def run_app(args: list[str]) -> int:
    """Run the typer app on `args`; usage errors as one line on stderr (JSON too for call)."""
    shell = completion_shell(args)
    if shell is not None:
        if shell not in COMPLETION_SHELLS or len(args) > (1 if "=" in args[0] else 2):
            return report_usage_error(
                f"{args[0].partition('=')[0]} takes one shell: {', '.join(COMPLETION_SHELLS)}"
                f" (or none, for the current shell); got {' '.join(args[1:]) or shell!r}",
                json_out=False,
            )
        # Typer's completion options detect the shell from the parent processes and take
        # no value: `--show-completion zsh` printed the detected shell's script, and
        # failed ("Shell  not supported.") where no shell is among the parents (a service,
        # a detached job). With this (typer's switch for naming the shell), they take it.
        os.environ["_TYPER_COMPLETE_TEST_DISABLE_SHELL_DETECTION"] = "1"
    try:
        result = app(args=args, prog_name="filewright", standalone_mode=False)
    except typer.Exit as exc:
        return int(exc.exit_code or 0)
    except NoArgsIsHelpError as exc:
        print(exc.format_message())
        return 2
    except ClickUsageError as exc:
        command = args[0] if args else ""
        hint = (
            f" (see filewright {command} --help)"
            if command in ("call", "tools", "serve", "undo", "history", "policy")
            else ""
        )
        return report_usage_error(exc.format_message() + hint, json_out=command == "call")
    except typer.Abort:
        return 130
    return int(result) if isinstance(result, int) else 0
