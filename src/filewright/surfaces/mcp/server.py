"""filewright's MCP server: any toolset over stdio or streamable HTTP.

    filewright serve [--root DIR]... [--toolset NAME] [--http HOST:PORT] [--yes]

Tools are registered from filewright's own definitions (`schemas.definition(tool, "mcp")`:
the parameter JSON schema and the annotations), not from Python signatures; arguments go
to the toolset unchanged, which validates them with its own messages.

- **Results.** `text` is a TextContent; `data` is the structured content (images left
  out); images are ImageContent. A failure the toolset reports is a tool error
  (`isError: true`) carrying exactly the toolset's text.
- **Roots.** `--root` given: those directories only; client roots are ignored. No `--root`,
  over stdio: the client's roots (MCP `roots/list`, `file://` directories that exist) when
  the client offers them, re-asked after `notifications/roots/list_changed`; otherwise the
  current directory (for the `companion` toolset: its default workspace) — but never an
  implicit filesystem root (hosts often start servers in "/"). Over HTTP the
  client is never asked: `--root` or the current directory, so that a remote client
  cannot widen the sandbox.
- **Confirmation.** A change that needs approval is put to the user through MCP
  elicitation when the client supports it (the message shows the diff; accept approves,
  decline or cancel refuses). On 2026-07-28 connections the question travels as an
  `input_required` round and approval is bound to the exact diff shown. A client without
  elicitation gets a refusal (`no_confirmation`), unless the server runs with `--yes`,
  which approves such changes.
- **Progress.** A toolset handler that calls `filewright.surfaces.dispatch.report_progress` sends
  MCP progress notifications when the client asked for them.
- **Logs** go to stderr only.
- **Transport and threads.** Over stdio (when stdin and stdout are pipes or sockets, as when
  a host starts the server) the SDK's server loop reads and writes the descriptors through
  `MessageReader` / `MessageWriter`: non-blocking, waiting on the event loop, with the
  SDK's own JSON-RPC parsing and serialisation, instead of the SDK's stdio transport,
  which hops to a worker thread for every line read and every message written.
  Otherwise (a terminal, a file) the SDK's transport serves. While serving, fd 0 reads
  the null device and fd 1 writes to stderr, as with the SDK's transport, so stray output
  never reaches the wire. Tool calls run on `ToolThreads` (the contract of
  `anyio.to_thread.run_sync` at a lower cost per call), so file I/O never blocks the loop.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import sys
import threading
import time
import urllib.parse
import urllib.request
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

import anyio
import anyio.from_thread
import anyio.lowlevel
import anyio.to_thread
import mcp_types as types
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp_types.version import is_version_at_least

from filewright.core.progress import progress_reporter
from filewright.core.result import fail
from filewright.surfaces.dispatch import images_of
from filewright.surfaces.mcp.stdio import MessageReader, MessageWriter, claimed_stdio
from filewright.surfaces.mcp.threads import HAS_TOKENS, ToolThreads, from_thread
from filewright.tools import schemas

if TYPE_CHECKING:
    from filewright.core.result import Result
    from filewright.engine.workspace import ConfirmRequest, Workspace
    from filewright.tools.base import Tool, Toolset

log = logging.getLogger("filewright.surfaces.mcp.server")

LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")
MODERN = "2026-07-28"  # first protocol revision with input_required rounds
MAX_CONFIRM_ROUNDS = 16
MAX_DIFF_IN_QUESTION = 20_000
PROGRESS_INTERVAL = 0.1
APPROVE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "approve": {"type": "boolean", "title": "Apply this change", "default": True},
    },
}
NO_ROOT_MESSAGE = (
    "no workspace: the server was started without --root, the client names no roots, and the "
    "current directory is the filesystem root; start it with --root DIR"
)
NO_CONFIRM_MESSAGE = (
    "this change needs the user's confirmation and this MCP client cannot ask "
    "(it does not support elicitation); restart the server with --yes to approve such changes"
)


# -- confirmation ---------------------------------------------------------------------------


def request_key(request: ConfirmRequest) -> str:
    """A digest of what the user is asked to approve (path, operation and exact diff)."""
    blob = json.dumps([request.path, request.operation, request.diff], ensure_ascii=False)
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()[:32]


def question(request: ConfirmRequest) -> str:
    """The elicitation message: what will change, with the diff."""
    from filewright.fs.paths import printable

    verb = "create" if request.created else request.operation
    diff = printable(request.diff)  # no terminal escapes from the content in the question
    if len(diff) > MAX_DIFF_IN_QUESTION:
        diff = (
            diff[:MAX_DIFF_IN_QUESTION]
            + f"\n… ({len(diff) - MAX_DIFF_IN_QUESTION} more characters)"
        )
    return (
        f"filewright ({request.toolset or 'tools'}) wants to {verb} {request.path} "
        f"(risk: {request.risk}).\n\n{diff}\nApply this change?"
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
    the question for an input_required round (2026-07-28), `yes` approves (`--yes`, client
    cannot be asked), `refuse` refuses with `no_confirmation`.
    """

    def __init__(
        self,
        mode: str,
        context: Context | None,
        state: RoundState,
        token: Any = None,
    ) -> None:
        self.mode = mode
        self.context = context
        self.state = state
        self.token = token  # the event loop to ask from (the call runs on a worker thread)
        self.pending: ConfirmRequest | None = None

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
        raise fail("no_confirmation", request.path, message=NO_CONFIRM_MESSAGE)

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
    """The workspaces' confirm callback: delegates to the running call's Confirmer."""
    confirmer: Confirmer | None = getattr(_CURRENT, "confirmer", None)
    if confirmer is None:
        raise fail("no_confirmation", request.path, message=NO_CONFIRM_MESSAGE)
    return confirmer(request)


# -- results ---------------------------------------------------------------------------------


def structured(data: dict[str, Any]) -> dict[str, Any]:
    """`data` as JSON-safe structured content: images without their bytes, no trace."""
    out = {k: v for k, v in data.items() if k not in ("images", "trace")}
    if isinstance(data.get("images"), list):
        out["images"] = [
            {k: v for k, v in i.items() if k not in ("data", "inlineData", "inline_data")}
            for i in data["images"]
            if isinstance(i, dict)
        ]
    return out if _plain_json(out) else json.loads(json.dumps(out, ensure_ascii=False, default=str))


_JSON_SCALARS = (str, int, float, bool, type(None))


def _plain_json(value: Any, depth: int = 0) -> bool:
    """True when `value` is already what a JSON round trip would return: dicts with str
    keys, lists, and plain scalars (finite floats) only."""
    kind = type(value)
    if kind in _JSON_SCALARS:
        return kind is not float or value - value == 0  # NaN and infinities round-trip oddly
    if depth > 32:
        return False
    if kind is dict:
        return all(type(k) is str and _plain_json(v, depth + 1) for k, v in value.items())
    if kind is list:
        return all(_plain_json(v, depth + 1) for v in value)
    return False


def to_mcp_result(
    result: Result, output_schema: dict[str, Any] | None = None
) -> types.CallToolResult:
    """A toolset Result as an MCP CallToolResult (text, images, structured data, isError).

    With the tool's `output_schema`, the structured content is the keys of `data` the
    schema names (none for a failure), and `data["content_blocks"]`, when a success has
    it, replaces the text and images as the content (image, audio and resource blocks).
    """
    blocks = result.data.get("content_blocks") if output_schema is not None else None
    if result.ok and isinstance(blocks, list):
        content: list[Any] = [_CONTENT_BLOCK.validate_python(b) for b in blocks]
    else:
        content = [types.TextContent(type="text", text=result.text or "(no output)")]
        content += [
            types.ImageContent(type="image", data=d, mime_type=m) for m, d in images_of(result)
        ]
    if "trace" in result.data:
        log.warning("tool failed unexpectedly:\n%s", result.data["trace"])
    if output_schema is not None:
        names = output_schema.get("properties") or {}
        data = {k: v for k, v in result.data.items() if k in names} if result.ok else None
    else:
        data = structured(result.data)
    return types.CallToolResult(content=content, structured_content=data, is_error=not result.ok)


class _ContentBlocks:
    """Validates content block dicts (built on first use: the adapter costs a few ms)."""

    _adapter: Any = None

    def validate_python(self, value: Any) -> Any:
        if self._adapter is None:
            from pydantic import TypeAdapter

            self._adapter = TypeAdapter(types.ContentBlock)
        return self._adapter.validate_python(value)


_CONTENT_BLOCK = _ContentBlocks()


# -- roots -----------------------------------------------------------------------------------


def root_paths(listing: types.ListRootsResult) -> list[str]:
    """The existing local directories among a client's roots (non-file URIs are ignored)."""
    out: list[str] = []
    for root in listing.roots:
        parsed = urllib.parse.urlparse(str(root.uri))
        if parsed.scheme != "file" or parsed.netloc not in ("", "localhost"):
            continue
        path = urllib.request.url2pathname(parsed.path)
        if os.path.isdir(path) and path not in out:
            out.append(path)
    return out


def fallback_roots(toolset: str) -> list[str]:
    """The roots when neither --root nor the client names any: cwd (companion: its home)."""
    if toolset == "companion":
        try:
            from filewright.toolsets.companion import default_workspace

            return [str(default_workspace())]
        except (ImportError, AttributeError):
            pass
    return [os.getcwd()]


def _safe(get: Callable[[], Any]) -> Any:
    try:
        return get()
    except (ValueError, AttributeError):
        return None


def _is_modern(context: Context) -> bool:
    version = _safe(lambda: context.protocol_version)
    return bool(version) and is_version_at_least(version, MODERN)


# -- the server --------------------------------------------------------------------------------


class FilewrightServer(MCPServer):
    """An MCPServer serving one filewright toolset; see the module doc for its behaviour."""

    def __init__(
        self,
        roots: list[str] | None = None,
        toolset: str = "default",
        *,
        locale: str = "en",
        memory: bool = True,
        yes: bool = False,
        client_roots: bool = True,
        log_level: str | None = None,
    ) -> None:
        from filewright.core.version import __version__

        level = (log_level or os.environ.get("FILEWRIGHT_LOG_LEVEL") or "WARNING").upper()
        super().__init__(
            name="filewright",
            title="filewright file tools",
            version=__version__,
            instructions=f"File tools (filewright toolset '{toolset}'): read, write and edit files "
            "inside the workspace roots. Changes that need the user's approval are asked for.",
            log_level=cast(Any, level if level in LOG_LEVELS else "WARNING"),
        )
        self.toolset_name = toolset
        self.locale = locale
        self.memory = memory
        self.yes = yes
        self.client_roots_enabled = client_roots and not roots
        # Absolute but not resolved: paths read as given, like the CLI and the Python API.
        self.fixed_roots = (
            [os.path.abspath(os.path.expanduser(r)) for r in roots] if roots else None
        )
        self._workspaces: dict[tuple[str, ...], Workspace] = {}
        self._ws_lock = threading.Lock()
        self._client_roots: list[str] | None = None
        self._threads = ToolThreads()
        first = self.workspace(self.fixed_roots or fallback_roots(toolset))
        self._tools: dict[str, Tool] = {t.name: t for t in first.toolset(toolset).tools()}
        self._listing = [
            types.Tool.model_validate(schemas.definition(t, "mcp")) for t in self._tools.values()
        ]
        self._lowlevel_server.add_notification_handler(
            "notifications/roots/list_changed", types.NotificationParams, self._roots_changed
        )

    # -- workspaces and roots ---------------------------------------------------------------

    def workspace(self, roots: list[str]) -> Workspace:
        """The (cached) workspace for a set of roots; raises ValueError for invalid roots."""
        from filewright.engine.workspace import Workspace

        key = tuple(roots)
        with self._ws_lock:
            ws = self._workspaces.get(key)
            if ws is None:
                ws = Workspace(
                    list(roots), locale=self.locale, memory=self.memory, confirm=_confirm_current
                )
                if len(self._workspaces) > 16:
                    self._workspaces.pop(next(iter(self._workspaces))).close()
                self._workspaces[key] = ws
            return ws

    async def _roots_changed(self, _ctx: Any, _params: Any) -> None:
        self._client_roots = None

    async def roots_for(
        self, context: Context | None, state: RoundState
    ) -> list[str] | types.InputRequiredResult:
        """The roots for this call (see the module doc), or an input_required round asking for them."""
        if self.fixed_roots:
            return self.fixed_roots
        fallback = fallback_roots(self.toolset_name)
        if not self.client_roots_enabled or context is None:
            return fallback
        if self._client_roots is not None:
            return self._client_roots or fallback
        caps = _safe(lambda: context.client_capabilities)
        if caps is None or caps.roots is None:
            return fallback
        if _is_modern(context):
            answer = (_safe(lambda: context.input_responses) or {}).get("roots")
            if isinstance(answer, types.ListRootsResult):
                self._client_roots = root_paths(answer)
            elif state.asked_roots:
                self._client_roots = []
            else:
                state.asked_roots = True
                return types.InputRequiredResult(
                    input_requests={"roots": types.ListRootsRequest()}, request_state=state.dump()
                )
        else:
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    listing = await context.session.list_roots()
                self._client_roots = root_paths(listing)
            except Exception as exc:
                log.info("client roots unavailable (%s); using %s", exc, fallback)
                self._client_roots = []
        return self._client_roots or fallback

    # -- MCPServer overrides ------------------------------------------------------------------

    async def run_stdio_async(self) -> None:
        """Serve over stdin/stdout: the SDK's server loop on filewright's pipe streams
        (`MessageReader`, `MessageWriter`) when stdin and stdout are pipes or sockets,
        else the SDK's own stdio transport."""
        with claimed_stdio() as fds:
            if fds is None:
                await super().run_stdio_async()
                return
            await self._lowlevel_server.run(
                cast(Any, MessageReader(fds[0])),
                cast(Any, MessageWriter(fds[1])),
                self._lowlevel_server.create_initialization_options(),
            )

    async def list_tools(self) -> list[types.Tool]:
        """The toolset's tools with filewright's own schemas and annotations."""
        return list(self._listing)

    async def call_tool(
        self, name: str, arguments: dict[str, Any], context: Context | None = None
    ) -> types.CallToolResult | types.InputRequiredResult:
        """Run one tool; failures come back as `isError` results with the toolset's text."""
        if name not in self._tools:
            raise ToolError(f"Unknown tool: {name!r}. Available tools: {', '.join(self._tools)}")
        state = RoundState.load(context)
        roots = await self.roots_for(context, state)
        if isinstance(roots, types.InputRequiredResult):
            return roots
        if not self.fixed_roots and any(
            Path(r).resolve() == Path(r).resolve().parent for r in roots
        ):
            # Hosts often start servers in "/": never make the whole disk the implicit workspace.
            raise ToolError(NO_ROOT_MESSAGE)
        try:
            toolset = self.workspace(roots).toolset(self.toolset_name)
        except ValueError as exc:
            raise ToolError(f"workspace unavailable: {exc}") from None
        token = anyio.lowlevel.current_token() if HAS_TOKENS else None
        confirmer = Confirmer(self.confirm_mode(context), context, state, token)
        reporter = self._progress(context, token)
        result = await self._threads.run(_run, toolset, name, arguments, confirmer, reporter)
        if confirmer.pending is not None:
            return confirmer.input_required()
        overrides = getattr(self._tools[name], "mcp", None) or {}
        return to_mcp_result(result, overrides.get("outputSchema"))

    def confirm_mode(self, context: Context | None) -> str:
        """push / rounds when the client can be asked, else yes (--yes) or refuse."""
        caps = _safe(lambda: context.client_capabilities) if context is not None else None
        elicit = caps.elicitation if caps is not None else None
        if elicit is not None and (elicit.form is not None or elicit.url is None):
            assert context is not None
            if _is_modern(context):
                return "rounds"
            if _safe(lambda: context.session.can_send_request):
                return "push"
        return "yes" if self.yes else "refuse"

    def _progress(
        self, context: Context | None, token: Any = None
    ) -> Callable[[float, float | None, str | None], None] | None:
        if context is None:
            return None
        last = [0.0]

        def report(done: float, total: float | None, message: str | None) -> None:
            now = time.monotonic()
            if now - last[0] < PROGRESS_INTERVAL and (total is None or done < total):
                return
            last[0] = now
            from_thread(token, context.report_progress, done, total, message)

        return report


def _run(
    toolset: Toolset,
    name: str,
    arguments: dict[str, Any],
    confirmer: Confirmer,
    reporter: Callable[[float, float | None, str | None], None] | None,
) -> Result:
    """Worker-thread body: install the call's confirmer and progress reporter, run the tool."""
    _CURRENT.confirmer = confirmer
    try:
        with progress_reporter(reporter):
            return toolset.call(name, arguments)
    finally:
        _CURRENT.confirmer = None


# -- entry point -------------------------------------------------------------------------------


def parse_http(address: str) -> tuple[str, int]:
    """HOST:PORT (IPv6 as [::1]:PORT; a bare PORT means 127.0.0.1) → (host, port)."""
    host, sep, port = address.rpartition(":")
    if not sep:
        host, port = "127.0.0.1", address
    host = host.strip("[]") or "127.0.0.1"
    if not port.isdigit() or not 0 < int(port) < 65536:
        raise ValueError(f"--http expects HOST:PORT, e.g. 127.0.0.1:8765, not {address!r}")
    return host, int(port)


def build_server(
    roots: list[str] | None = None,
    toolset: str = "default",
    *,
    http: bool = False,
    locale: str = "en",
    memory: bool = True,
    yes: bool = False,
) -> FilewrightServer:
    """A configured server (raises ValueError for an unknown toolset or an invalid root)."""
    return FilewrightServer(
        roots, toolset, locale=locale, memory=memory, yes=yes, client_roots=not http
    )


def run_server(
    roots: list[str] | None = None,
    toolset: str = "default",
    http: str | None = None,
    locale: str = "en",
    memory: bool = True,
    yes: bool = False,
) -> None:
    """Serve `toolset` over stdio, or streamable HTTP at `http` ("HOST:PORT", path /mcp)."""
    address = parse_http(http) if http else None
    server = build_server(
        roots, toolset, http=address is not None, locale=locale, memory=memory, yes=yes
    )
    if address is None:
        anyio.run(server.run_stdio_async)
    else:
        host, port = address
        print(
            f"filewright: serving toolset {toolset!r} on http://{host}:{port}/mcp", file=sys.stderr
        )
        anyio.run(lambda: server.run_streamable_http_async(host=host, port=port))


__all__ = ["FilewrightServer", "build_server", "parse_http", "run_server", "to_mcp_result"]
