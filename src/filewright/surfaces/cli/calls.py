"""What both command-line parsers share: opening the workspace, running one call, printing
its result for people, usage errors and the terminal confirmation prompt.

Imports nothing heavy at module level (see `main`)."""

from __future__ import annotations

import json
import os
import re
import sys
from typing import TYPE_CHECKING, Any, cast

from filewright.engine.workspace import Workspace
from filewright.fs.paths import printable
from filewright.toolsets.companion_home import default_workspace

if TYPE_CHECKING:
    from filewright.core.result import Result
    from filewright.engine.workspace import ConfirmRequest
    from filewright.tools.base import Toolset

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2
USAGE_ERRORS = {"bad_arguments", "unknown_tool", "usage"}
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
    # deferred: rich: heavy, loaded only when a person is asked
    from filewright.surfaces.cli.terminal import show_request

    show_request(request)
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
    confirm: Any = None
    if yes:
        confirm = True
    elif sys.stdin.isatty():
        confirm = terminal_confirm
    chosen: list[Any] = list(roots or [])
    if not chosen and toolset == "companion":
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
        return cast("Toolset", ws.toolset(name))
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
            raise UsageError(
                f"JSON-ARGS is not valid JSON ({exc}); {args_example(tool, toolset, raw)}"
            ) from None
        if not isinstance(parsed, dict):
            raise UsageError(f"JSON-ARGS must be a JSON object; {args_example(tool, toolset, raw)}")
        ws = open_workspace(
            roots, locale=locale, memory=memory, yes=yes, dry_run=dry_run, toolset=toolset
        )
        ts = load_toolset(ws, toolset)
        if progress and _stderr_is_terminal():
            # deferred: the progress display (and rich, once drawn) only on a terminal
            from filewright.surfaces.cli.progress import shown_during

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


def args_example(tool: str, toolset: str, given: str = "") -> str:
    """An example command line for `tool`, its path argument taken from `given` when that
    looks like a bare path (`read a.py` instead of `read '{"path": "a.py"}'`)."""

    key = {"claude": "file_path", "memo": "", "companion": "path"}.get(toolset, "path")
    if toolset == "gemini" and tool in ("write_file", "replace"):
        key = "file_path"
    if toolset == "text_editor":
        return (
            "e.g. filewright call --toolset text_editor str_replace_based_edit_tool "
            '\'{"command": "view", "path": "/abs/a.py"}\''
        )
    if not key:
        return f"e.g. filewright call --toolset {toolset} {tool} '{{}}'"
    candidate = given.strip()
    if not candidate or not re.fullmatch(r"[\w./~\\-][^\s{}\[\]\"']*", candidate):
        candidate = "a.py"
    if key == "file_path" and not os.path.isabs(candidate):
        candidate = os.path.abspath(candidate)
    flag = "" if toolset == "default" else f"--toolset {toolset} "
    return (
        "pass the arguments as one JSON object in single quotes, "
        f"e.g. filewright call {flag}{tool} '{json.dumps({key: candidate})}'"
    )


def _stderr_is_terminal() -> bool:
    try:
        return sys.stderr is not None and sys.stderr.isatty()
    except (AttributeError, ValueError):  # replaced or closed stderr
        return False


def print_human(result: Result) -> None:
    """Readable output: the text (green when ok, red when not) and a coloured diff."""
    diff = result.data.get("diff") if isinstance(result.data, dict) else None
    text = result.text
    if diff and diff.rstrip("\n") in text:
        text = text.replace(diff.rstrip("\n"), "").rstrip()
    print_text(text, ok=result.ok, diff=diff or "")


def print_text(text: str, *, ok: bool = True, diff: str = "") -> None:
    """Text and a diff for a person: coloured on a terminal, never wrapped; plain (no
    colours, no wrapping, no cropping) when stdout is piped or a file."""
    try:
        terminal = sys.stdout.isatty()
    except (AttributeError, ValueError):
        terminal = False
    if not terminal:
        out = printable(text)
        sys.stdout.write(out + ("\n" if out and not out.endswith("\n") else ""))
        if diff:
            shown = printable(diff)
            sys.stdout.write(shown if shown.endswith("\n") else shown + "\n")
        return
    # deferred: rich: heavy, loaded only for output to a terminal
    from filewright.surfaces.cli.terminal import print_coloured

    print_coloured(text, ok=ok, diff=diff)
