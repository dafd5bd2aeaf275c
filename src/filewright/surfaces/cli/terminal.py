"""What the CLI draws on a terminal with rich: a change to confirm, and a result in colour.
Loaded only when a person is at the terminal (`calls`), so a piped call never loads rich."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.console import Console
from rich.markup import escape
from rich.syntax import Syntax

from filewright.fs.paths import printable

if TYPE_CHECKING:
    from filewright.engine.workspace import ConfirmRequest


def show_request(request: ConfirmRequest) -> None:
    """The change to confirm, its diff in colour, and the question, on stderr."""
    console = Console(stderr=True)
    named = f"  (named {escape(printable(request.named))})" if request.named else ""
    console.print(
        f"[bold]{escape(request.operation)}[/bold] {escape(printable(request.path))}{named}"
        f"  (risk: {request.risk})"
    )
    if request.diff:
        # Escapes in the content must not redraw the terminal while a person reviews it.
        diff = printable(request.diff)
        console.print(Syntax(diff, "diff", theme="ansi_dark", background_color="default"))
    console.print("Apply this change? \\[y/N] ", end="")


def print_coloured(text: str, *, ok: bool = True, diff: str = "") -> None:
    """The text (green when ok, red when not) and a coloured diff, never wrapped."""
    console = Console(soft_wrap=True)
    console.print(printable(text), style="green" if ok else "red", markup=False, highlight=False)
    if diff:
        console.print(
            Syntax(printable(diff), "diff", theme="ansi_dark", background_color="default")
        )
