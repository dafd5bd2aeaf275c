"""Confirmation over MCP: who approves a change that needs the user's approval.

`Confirmer` answers one tool call's confirmation requests, on the worker thread running
the call, in the mode the server chose (`FilewrightServer.confirm_mode`): ask now by
elicitation, collect the question for a 2026-07-28 `input_required` round, approve
(`--confirm host`, or `--yes`), or refuse naming the option that would help.
"""

from __future__ import annotations

import hashlib
import json
import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import mcp_types as types
from mcp.server.mcpserver import Context

from filewright.core import inline
from filewright.core.result import fail
from filewright.fs.paths import printable
from filewright.surfaces.mcp.threads import from_thread

if TYPE_CHECKING:
    from filewright.engine.workspace import ConfirmRequest

log = logging.getLogger("filewright.surfaces.mcp.server")

MAX_CONFIRM_ROUNDS = 16
MAX_DIFF_IN_QUESTION = 20_000
APPROVE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "approve": {"type": "boolean", "title": "Apply this change", "default": True},
    },
}
CONFIRM_MODES = ("client", "host", "none")
NO_CONFIRM_MESSAGE = (
    "this change needs the user's confirmation and this MCP client cannot ask for it (it "
    "does not support elicitation); if the host asks the user before each tool call (Gemini "
    "CLI, Claude Desktop), start the server with --confirm host"
)
NOBODY_CONFIRMS_MESSAGE = (
    "this change needs the user's confirmation and the server was started with "
    "--confirm none (nobody confirms); start it with --confirm client or --confirm host"
)


def _safe(get: Callable[[], Any]) -> Any:
    try:
        return get()
    except (ValueError, AttributeError):
        return None


def request_key(request: ConfirmRequest) -> str:
    """A digest of what the user is asked to approve (path, operation and exact diff)."""
    blob = json.dumps(
        [request.path, request.named, request.operation, request.diff], ensure_ascii=False
    )
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()[:32]


def question(request: ConfirmRequest) -> str:
    """The elicitation message: what will change, with the diff."""

    verb = "create" if request.created else request.operation
    diff = printable(request.diff)  # no terminal escapes from the content in the question
    if len(diff) > MAX_DIFF_IN_QUESTION:
        diff = (
            diff[:MAX_DIFF_IN_QUESTION]
            + f"\n… ({len(diff) - MAX_DIFF_IN_QUESTION} more characters)"
        )
    named = f" (named {printable(request.named)})" if request.named else ""
    return (
        f"filewright ({request.toolset or 'tools'}) wants to {verb} {printable(request.path)}"
        f"{named} (risk: {request.risk}).\n\n{diff}\nApply this change?"
    )


def approved(result: types.ElicitResult) -> bool:
    """Accept approves, unless the form says approve=false; decline and cancel refuse."""
    if result.action != "accept":
        return False
    return (result.content or {}).get("approve", True) is not False


@dataclass
class RoundState:
    """What rides `request_state` between input_required rounds (sealed by the SDK)."""

    approved: list[str] = field(default_factory=list)
    declined: list[str] = field(default_factory=list)
    pending: str | None = None
    asked_roots: bool = False

    @classmethod
    def load(cls, context: Context | None) -> RoundState:
        raw = _safe(lambda: context.request_state) if context is not None else None
        state = cls()
        if raw:
            try:
                d = json.loads(raw)
                state = cls(
                    list(d.get("approved", [])),
                    list(d.get("declined", [])),
                    d.get("pending"),
                    bool(d.get("asked_roots")),
                )
            except (ValueError, TypeError, AttributeError):
                state = cls()
        if not state.pending or context is None:
            return state
        answer = (_safe(lambda: context.input_responses) or {}).get("confirm")
        if isinstance(answer, types.ElicitResult):
            (state.approved if approved(answer) else state.declined).append(state.pending)
            state.pending = None
        return state

    def dump(self) -> str:
        return json.dumps(
            {
                "approved": self.approved,
                "declined": self.declined,
                "pending": self.pending,
                "asked_roots": self.asked_roots,
            }
        )


class Confirmer:
    """Answers one tool call's confirmation requests (called on the worker thread).

    Modes: `push` asks now by elicitation (handshake-era connections), `rounds` collects
    the question for an input_required round (2026-07-28), `yes` approves (`--confirm
    host`, or `--yes` when the client cannot be asked), `refuse` refuses with
    `no_confirmation` (the client cannot ask), `nobody` refuses (`--confirm none`).
    """

    def __init__(
        self,
        mode: str | Callable[[], str],
        context: Context | None,
        state: RoundState | Callable[[], RoundState],
        token: Any = None,
    ) -> None:
        # The mode and the round's state may be given as functions, asked at the first
        # confirmation: most calls never ask (their look-ups in the context cost ~50 µs).
        self._mode = mode
        self.context = context
        self._state = state
        self.token = token  # the event loop to ask from (the call runs on a worker thread)
        self.pending: ConfirmRequest | None = None

    @property
    def mode(self) -> str:
        if not isinstance(self._mode, str):
            self._mode = self._mode()
        return self._mode

    @property
    def state(self) -> RoundState:
        if not isinstance(self._state, RoundState):
            self._state = self._state()
        return self._state

    def __call__(self, request: ConfirmRequest) -> bool:
        if self.mode == "yes":
            return True
        if self.mode == "push" and self.context is not None:
            return from_thread(self.token, self._ask, request)
        if self.mode == "rounds":
            key = request_key(request)
            if key in self.state.approved:
                return True
            if key in self.state.declined:
                return False
            if (
                self.pending is None
                and len(self.state.approved) + len(self.state.declined) < MAX_CONFIRM_ROUNDS
            ):
                self.pending = request
            return False
        message = NOBODY_CONFIRMS_MESSAGE if self.mode == "nobody" else NO_CONFIRM_MESSAGE
        raise fail("no_confirmation", request.path, message=message)

    async def _ask(self, request: ConfirmRequest) -> bool:
        assert self.context is not None
        try:
            result = await self.context.session.elicit_form(
                question(request),
                APPROVE_SCHEMA,
                related_request_id=self.context.request_context.request_id,
            )
        except Exception as exc:  # the client failed to answer: refuse, never approve
            log.warning("elicitation failed, refusing the change: %s", exc)
            return False
        return approved(result)

    def input_required(self) -> types.InputRequiredResult:
        assert self.pending is not None
        self.state.pending = request_key(self.pending)
        ask = types.ElicitRequest(
            params=types.ElicitRequestFormParams(
                message=question(self.pending), requested_schema=APPROVE_SCHEMA
            )
        )
        return types.InputRequiredResult(
            input_requests={"confirm": ask}, request_state=self.state.dump()
        )


_CURRENT: threading.local = threading.local()


def _confirm_current(request: ConfirmRequest) -> bool:
    """The workspaces' confirm callback: delegates to the running call's Confirmer (a
    call answered on the event loop gives up: asking needs the loop)."""
    inline.leave("confirmation")
    confirmer: Confirmer | None = getattr(_CURRENT, "confirmer", None)
    if confirmer is None:
        raise fail("no_confirmation", request.path, message=NO_CONFIRM_MESSAGE)
    return confirmer(request)
