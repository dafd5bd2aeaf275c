"""The CLI's table of a toolset's tools (`filewright tools` on a terminal), drawn with rich.
Loaded only for that table: it needs rich and the tools' schemas (pydantic)."""

from __future__ import annotations

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from filewright.tools.schemas import parameters_schema


def print_tools_table(ts: object, name: str) -> None:
    """The toolset's tools as a table: name, parameters ([optional]), kind, description."""
    table = Table(title=f"filewright toolset: {name}", show_lines=True)
    for column in ("tool", "parameters ([optional])", "kind", "description"):
        table.add_column(escape(column), overflow="fold")
    for t in ts.tools():  # type: ignore[attr-defined]
        schema = parameters_schema(t)
        required = set(schema.get("required", []))
        params = ", ".join(p if p in required else f"[{p}]" for p in schema.get("properties", {}))
        params = escape(params)  # "[offset]" is rich markup otherwise, and vanishes
        if t.read_only:
            kind = "read-only"
        elif t.destructive:
            kind = "changes (destructive)"
        else:
            kind = "changes (additive)"
        first = t.description.strip().split("\n")[0]
        table.add_row(escape(t.name), params, kind, escape(first[:160]))
    Console().print(table)
