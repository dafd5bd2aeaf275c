"""Confirmation: the one place a change (or a restore from history) asks a person."""

from __future__ import annotations

from filewright.core.result import fail
from filewright.engine.workspace import ConfirmRequest, Engine
from filewright.fs.paths import Location
from filewright.policy.rules import Risk


def confirm_change(
    engine: Engine, loc: Location, given: str, operation: str, diff: str, risk: Risk, created: bool
) -> None:
    """Ask whoever confirms to approve `diff` to the file at `loc` (every change and every
    restore from history asks here). The request names the file by its real path (a
    symlink's target, not its name) and, when the agent named it otherwise, that name
    too. Raises OperationFailed when nobody can be asked or the answer is no."""
    ws = engine.workspace
    if ws.confirm is None:
        raise fail(
            "no_confirmation",
            given,
            message=f"this change needs the user's confirmation and nobody can be asked: {given}",
        )
    request = ConfirmRequest(
        path=str(loc.real),
        operation=operation,
        risk=risk.value,
        diff=diff,
        toolset=engine.toolset,
        created=created,
        named=str(loc.path) if loc.path != loc.real else "",
    )
    if not ws.confirm(request):
        raise fail("rejected", given, message="the user rejected this change")
