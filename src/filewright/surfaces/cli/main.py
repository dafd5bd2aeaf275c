"""The `filewright` command: call a tool, list tools, serve them, undo and inspect history.

    filewright call [--root DIR]... [--toolset NAME] [--locale en|zh] [--memory on|off]
                    [--dry-run] [--yes] [--human] [--no-progress] TOOL ['JSON-ARGS']
    filewright tools [--toolset NAME] [--format FORMAT]
    filewright serve [--root DIR]... [--toolset NAME] [--http HOST:PORT] [--yes]
    filewright undo PATH / filewright history [PATH]
    filewright policy explain PATH

`call` prints one JSON object {"ok", "text", "data"} and exits 0 when ok, 1 when the tool
reported a failure, 2 for a usage error (then a one-line message goes to stderr).
When stderr is a terminal, a long call shows its progress there (`filewright.surfaces.cli.progress`;
off with --no-progress).

Start-up matters for `call` (agents run it once per tool call), so this module imports
nothing heavy: a plain `call` command line is parsed here by `parse_call_argv`, and a
plain `undo` by `parse_undo_argv`, which accept exactly the options of the typer commands
and hand everything else (help, unknown or malformed options, other commands) to the
typer app in `filewright.surfaces.cli.app`.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from filewright.core.version import __version__
from filewright.surfaces.cli.calls import LOCALES, ON_OFF, run_call

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
    positionals = _parse(argv[1:], opts, _FLAGS, _VALUE_OPTIONS)
    if positionals is None or not 1 <= len(positionals) <= 2:
        return None
    if opts["locale"] not in LOCALES or opts["memory"] not in ON_OFF:
        return None
    opts["tool"] = positionals[0]
    opts["args"] = positionals[1] if len(positionals) > 1 else None
    return opts


# -- the fast path for `undo` (typer, click and pydantic cost ~0.2 s to import) -----------------

_UNDO_VALUE_OPTIONS = {"--root": "roots", "-r": "roots", "--toolset": "toolset", "-t": "toolset"}
_UNDO_FLAGS = {
    "--dry-run": "dry_run",
    "--yes": "yes",
    "-y": "yes",
    "--force": "force",
    "--json": "as_json",
}


def parse_undo_argv(argv: list[str]) -> dict[str, Any] | None:
    """Parse `undo ...` exactly as the typer command would (the keyword arguments of
    `changes.undo_command`), or None to let typer do it (as `parse_call_argv`)."""
    if not argv or argv[0] != "undo":
        return None
    opts: dict[str, Any] = {
        "roots": [],
        "toolset": "default",
        "dry_run": False,
        "yes": False,
        "force": False,
        "as_json": False,
    }
    positionals = _parse(argv[1:], opts, _UNDO_FLAGS, _UNDO_VALUE_OPTIONS)
    if positionals is None or len(positionals) != 1:
        return None
    opts["path"] = positionals[0]
    opts["roots"] = opts["roots"] or None
    return opts


def _parse(
    tokens: list[str], opts: dict[str, Any], flags: dict[str, str], values: dict[str, str]
) -> list[str] | None:
    """Fill `opts` from the options among `tokens` (a repeated "roots" value adds to a
    list); the positional arguments, or None for anything not fully understood."""
    positionals: list[str] = []
    i = 0
    while i < len(tokens):
        token = tokens[i]
        if token == "--":
            positionals.extend(tokens[i + 1 :])
            break
        if token.startswith("-") and token != "-":
            name, eq, value = token.partition("=") if token.startswith("--") else (token, "", "")
            if name in flags and not eq:
                opts[flags[name]] = True
            elif name in values:
                if not eq:
                    i += 1
                    if i >= len(tokens) or (tokens[i].startswith("-") and tokens[i] != "-"):
                        return None
                    value = tokens[i]
                key = values[name]
                if key == "roots":
                    opts["roots"].append(str(Path(value)))
                else:
                    opts[key] = value
            else:
                return None
        else:
            positionals.append(token)
        i += 1
    return positionals


def main(argv: list[str] | None = None) -> None:
    """Console-script entry point."""
    args = sys.argv[1:] if argv is None else argv
    if args in (["--version"], ["-V"]):
        print(f"filewright {__version__}")
        sys.exit(0)
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
        undo = parse_undo_argv(args)
        if undo is not None:
            # deferred: what undo needs (the engine's undo, diffs), not what a call needs
            from filewright.surfaces.cli.changes import undo_command

            sys.exit(undo_command(**undo))
        # deferred: typer (and click, rich): heavy, loaded for anything but a plain `call`
        # or `undo`
        from filewright.surfaces.cli.app import run_app

        sys.exit(run_app(args))
    except KeyboardInterrupt:
        sys.exit(130)


def __getattr__(name: str) -> Any:
    """`filewright.surfaces.cli.main.app`: the typer app, imported on first use."""
    if name == "app":
        from filewright.surfaces.cli.app import app  # typer: heavy, loaded on first use

        return app
    raise AttributeError(name)
