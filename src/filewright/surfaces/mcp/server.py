"""filewright's MCP server: any toolset over stdio or streamable HTTP.

    filewright serve [--root DIR]... [--toolset NAME] [--http HOST:PORT] [--yes]

Tools are registered from filewright's own definitions (`schemas.definition(tool, "mcp")`:
the parameter JSON schema and the annotations), not from Python signatures; arguments go
to the toolset unchanged, which validates them with its own messages.

- **Results.** `text` is a TextContent; `data` is the structured content (the bytes of
  images and documents left out); images are ImageContent, documents (a PDF) embedded
  resources with the file's bytes (BlobResourceContents). A failure the toolset reports is a tool error
  (`isError: true`) carrying exactly the toolset's text.
- **Roots.** `--root` given: those directories only; client roots are ignored. No `--root`,
  over stdio: the client's roots (MCP `roots/list`, `file://` directories that exist) when
  the client offers them, re-asked after `notifications/roots/list_changed`; otherwise the
  current directory (for the `companion` toolset: its default workspace) — but never an
  implicit filesystem root (hosts often start servers in "/"). Over HTTP the
  client is never asked: `--root` or the current directory, so that a remote client
  cannot widen the sandbox.
- **Confirmation** (`--confirm`, who confirms a change that needs approval):
  `client` (the default) puts it to the user through MCP elicitation when the client
  supports it (the message shows the diff; accept approves, decline or cancel refuses;
  on 2026-07-28 connections the question travels as an `input_required` round and
  approval is bound to the exact diff shown); a client without elicitation gets a
  refusal (`no_confirmation`, with a hint naming `--confirm host` in the structured
  content and on stderr), unless `--yes` is given, which approves such changes.
  `host`: the host's own tool approval is the confirmation (Gemini CLI and Claude
  Desktop ask the user before each tool call that is not read-only), so the server
  approves what reaches it. `none`: nobody confirms; such changes are refused.
- **Where the model may work.** The server instructions and every path parameter's
  description name the workspace roots; with client roots, the listing is rebuilt when
  they change (`notifications/tools/list_changed` is sent after the client's
  `notifications/roots/list_changed`). `describe_roots=False` serves the seed's
  descriptions unchanged.
- **Progress.** A toolset handler that calls `filewright.surfaces.dispatch.report_progress` sends
  MCP progress notifications when the client asked for them.
- **Logs** go to stderr only. **Tracing**: the SDK's OpenTelemetry middleware (a span
  per message) is kept only when a tracer provider is installed before the server starts
  (as `opentelemetry-instrument` does); without one its spans record nothing and cost
  ~20 µs a call, so it is dropped.
- **Transport and threads.** Over stdio (when stdin and stdout are pipes or sockets, as when
  a host starts the server) the SDK's server loop reads and writes the descriptors through
  `MessageReader` / `MessageWriter`: non-blocking, waiting on the event loop, with the
  SDK's own JSON-RPC parsing and serialisation, instead of the SDK's stdio transport,
  which hops to a worker thread for every line read and every message written.
  Otherwise (a terminal, a file) the SDK's transport serves. While serving, fd 0 reads
  the null device and fd 1 writes to stderr, as with the SDK's transport, so stray output
  never reaches the wire. Tool calls run on `ToolThreads` (the contract of
  `anyio.to_thread.run_sync` at a lower cost per call), so file I/O never blocks the loop,
  with one exception, made so that it cannot hang the loop either:
- **Small reads on the loop.** A tool marked `inline_ok` (each toolset's plain read of
  one file: default `read`, claude `Read`, gemini `read_file`, mcpfs `read_text_file`,
  `read_file` and `read_media_file`, companion `read`) is answered on the event-loop
  thread, saving the hop to a worker and back (0.3-0.5 ms of a 2 ms read, issue 32), when
  (1) the gate is open: every root and every mount beneath one is on a local filesystem
  (`mounts.MountGate`: `/proc/self/mountinfo`, polled without waiting on each call and
  read again when the kernel marks it changed; no mount table: closed), and (2) the read
  finds a small regular file: inside `core.inline.running_inline`, the one opener
  (`fs.fsio`) gives up right after its non-blocking open and fstat, before reading a
  byte, when the file is not regular or is over `MAX_INLINE_BYTES` (64 KiB); a PDF's
  text, a directory listing, legacy-encoding detection, a progress report and a
  confirmation give up too. Giving up raises `NotInline`, and the same call then runs on
  a worker thread: nothing was returned or changed, so the answer is the threaded one. What stays on the loop is bounded by the file's size (about 3 ms for
  64 KiB at most). Searches, listings, several files and changes always run on threads.
  `FILEWRIGHT_MCP_INLINE=0` (or `FilewrightServer(inline=False)`) runs every call on a thread.
- **Freed after the answer.** A file a change replaces keeps a second name in the state
  directory while the call runs (`state.trash`), and the worker thread unlinks it once the
  answer is handed back: the rename frees nothing while the client waits (freeing a file
  waits for the disk where it is mounted with `discard`: 0.15 ms to several ms an edit).
  The new file and its directory are fsync'd before the answer, as always.
"""

from __future__ import annotations

import asyncio
import logging
import os
import signal
import sys
import threading
import time
import warnings
from collections.abc import Callable
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
from opentelemetry.trace import ProxyTracerProvider, get_tracer_provider

from filewright.core.inline import NotInline, running_inline
from filewright.core.progress import progress_reporter
from filewright.core.version import __version__
from filewright.engine.workspace import Workspace
from filewright.state import trash
from filewright.surfaces.mcp.confirm import (
    _CURRENT,
    CONFIRM_MODES,
    NO_CONFIRM_MESSAGE,
    NOBODY_CONFIRMS_MESSAGE,
    Confirmer,
    RoundState,
    _confirm_current,
    _safe,
    approved,
    question,
    request_key,
)
from filewright.surfaces.mcp.listen import Listener
from filewright.surfaces.mcp.mounts import MountGate
from filewright.surfaces.mcp.results import to_mcp_result
from filewright.surfaces.mcp.roots import (
    fallback_roots,
    instructions_for,
    root_paths,
    with_roots,
)
from filewright.surfaces.mcp.stdio import MessageReader, MessageWriter, claimed_stdio
from filewright.surfaces.mcp.threads import HAS_TOKENS, ToolThreads, from_thread
from filewright.tools import schemas

if TYPE_CHECKING:
    from filewright.core.result import Result
    from filewright.engine.workspace import Workspace
    from filewright.tools.base import Tool, Toolset

log = logging.getLogger("filewright.surfaces.mcp.server")

LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")
MODERN = "2026-07-28"  # first protocol revision with input_required rounds
PROGRESS_INTERVAL = 0.1
LIST_ROOTS_TIMEOUT = 10.0  # seconds a tools/list waits for the client's roots
NO_ROOT_MESSAGE = (
    "no workspace: the server was started without --root, the client names no roots, and the "
    "current directory is the filesystem root; start it with --root DIR"
)
# Toolsets whose listing must stay identical to the server they replace (mcpfs), or whose
# paths do not name places in the roots (memory: every path starts with /memories).
EXACT_LISTINGS = frozenset({"mcpfs", "memory"})
# Toolset options the server turns on: without them a model could not see what a root holds.
SERVE_OPTIONS: dict[str, dict[str, Any]] = {"claude": {"list_directories": True}}


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
        confirm: str = "client",
        client_roots: bool = True,
        describe_roots: bool = True,
        log_level: str | None = None,
        inline: bool | None = None,
    ) -> None:

        if confirm not in CONFIRM_MODES:
            raise ValueError(
                f"--confirm expects one of {', '.join(CONFIRM_MODES)}, not {confirm!r}"
            )
        level = (log_level or os.environ.get("FILEWRIGHT_LOG_LEVEL") or "WARNING").upper()
        # Absolute but not resolved: paths read as given, like the CLI and the Python API.
        fixed = [os.path.abspath(os.path.expanduser(r)) for r in roots] if roots else None
        super().__init__(
            name="filewright",
            title="filewright file tools",
            version=__version__,
            instructions=instructions_for(toolset, fixed, client_roots=client_roots),
            log_level=cast(Any, level if level in LOG_LEVELS else "WARNING"),
        )
        self.toolset_name = toolset
        self.locale = locale
        self.memory = memory
        self.yes = yes
        self.confirm = confirm
        # A toolset that mirrors another server's listing (mcpfs) keeps its descriptions
        # exactly; its own tool (list_allowed_directories) names the roots.
        self.describe_roots = describe_roots and toolset not in EXACT_LISTINGS
        self.client_roots_enabled = client_roots and not roots
        self.fixed_roots = fixed
        self._workspaces: dict[tuple[str, ...], Workspace] = {}
        # per roots: the toolset serving calls and its workspace's real roots (made once)
        self._targets: dict[tuple[str, ...], tuple[Toolset, tuple[str, ...]]] = {}
        self._ws_lock = threading.Lock()
        # Marked reads answered on the event loop (module doc, "Transport and threads"):
        # on unless turned off (`inline=False`, or FILEWRIGHT_MCP_INLINE=0), and then only
        # while the gate says the roots are on local filesystems.
        if inline is None:
            inline = os.environ.get("FILEWRIGHT_MCP_INLINE", "1").strip().lower() not in (
                "0", "off", "no", "false",
            )  # fmt: skip
        self.gate: MountGate | None = MountGate() if inline else None
        self.inline_answers = 0  # calls answered on the event loop
        self.inline_fallbacks = 0  # calls that gave up there (NotInline) and ran on a thread
        self._client_roots: list[str] | None = None
        self._threads = ToolThreads(after=trash.reap)  # (frees what writes replaced)
        self._token: tuple[Any, Any] | None = None  # (event loop, its anyio token)
        self._hinted = False
        first = self.workspace(self.fixed_roots or fallback_roots(toolset))
        tools = cast("Toolset", first.toolset(toolset)).tools()
        self._tools: dict[str, Tool] = {t.name: t for t in tools}
        self._plain_listing = [schemas.definition(t, "mcp") for t in self._tools.values()]
        self._listings: dict[tuple[str, ...], list[types.Tool]] = {}
        self._lowlevel_server.add_notification_handler(
            "notifications/roots/list_changed", types.NotificationParams, self._roots_changed
        )
        if isinstance(get_tracer_provider(), ProxyTracerProvider):
            # No OpenTelemetry provider installed (`opentelemetry-instrument` installs one
            # before the server starts): the SDK's tracing middleware would only make a
            # non-recording span per message, ~20 µs a call. The SDK's documented opt-out.
            self._lowlevel_server.middleware = [
                m
                for m in self._lowlevel_server.middleware
                if type(m).__name__ != "OpenTelemetryMiddleware"
            ]
        # The listing names the roots: tell clients when it changes.
        make_options = self._lowlevel_server.create_initialization_options

        def options(notification_options: Any = None, *args: Any, **kwargs: Any) -> Any:
            # deferred: mcp: heavy, loaded only when this runs
            from mcp.server.lowlevel.server import NotificationOptions

            return make_options(notification_options or NotificationOptions(tools_changed=True),
                                *args, **kwargs)  # fmt: skip

        self._lowlevel_server.create_initialization_options = options  # type: ignore[method-assign]

    def listing(self, roots: list[str] | None) -> list[types.Tool]:
        """The tools as listed for `roots` (their path parameters name them)."""
        key = tuple(roots or ())
        found = self._listings.get(key)
        if found is None:
            found = [
                types.Tool.model_validate(
                    with_roots(d, roots, self.toolset_name) if roots and self.describe_roots else d
                )
                for d in self._plain_listing
            ]
            if len(self._listings) > 16:
                self._listings.pop(next(iter(self._listings)))
            self._listings[key] = found
        return found

    # -- workspaces and roots ---------------------------------------------------------------

    def workspace(self, roots: list[str]) -> Workspace:
        """The (cached) workspace for a set of roots; raises ValueError for invalid roots."""

        key = tuple(roots)
        with self._ws_lock:
            ws = self._workspaces.get(key)
            if ws is None:
                ws = Workspace(
                    list(roots), locale=self.locale, memory=self.memory, confirm=_confirm_current
                )
                if len(self._workspaces) > 16:
                    old = next(iter(self._workspaces))
                    self._targets.pop(old, None)
                    self._workspaces.pop(old).close()
                self._workspaces[key] = ws
            return ws

    def _target(self, roots: list[str]) -> tuple[Toolset, tuple[str, ...]]:
        """The toolset serving calls on `roots` and their real paths, made on the first
        call on them (the checks of the roots included) and kept: per call, one lookup."""
        key = tuple(roots)
        found = self._targets.get(key)
        if found is not None:
            return found
        if not self.fixed_roots and any(
            Path(r).resolve() == Path(r).resolve().parent for r in roots
        ):
            # Hosts often start servers in "/": never make the whole disk the implicit workspace.
            raise ToolError(NO_ROOT_MESSAGE)
        try:
            ws = self.workspace(roots)
            toolset = cast(
                "Toolset",
                ws.toolset(self.toolset_name, **SERVE_OPTIONS.get(self.toolset_name, {})),
            )
        except ValueError as exc:
            raise ToolError(f"workspace unavailable: {exc}") from None
        found = (toolset, tuple(str(r) for r in ws.roots))
        with self._ws_lock:
            if self._workspaces.get(key) is ws:  # (not evicted meanwhile)
                self._targets[key] = found
        return found

    async def _roots_changed(self, ctx: Any, _params: Any) -> None:
        self._client_roots = None
        try:  # the path descriptions name the roots: the client should list tools again
            await ctx.session.send_tool_list_changed()
        except Exception as exc:
            log.info("could not announce the new tool listing: %s", exc)

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
            writer = MessageWriter(fds[1])
            reader = MessageReader(fds[0], writer.send_raw)
            try:
                await self._lowlevel_server.run(
                    cast(Any, reader),
                    cast(Any, writer),
                    self._lowlevel_server.create_initialization_options(),
                )
            finally:  # (the event loop lets go of the descriptor before it is released)
                await reader.aclose()

    async def list_tools(self) -> list[types.Tool]:
        """The toolset's tools with filewright's own schemas and annotations."""
        return list(self.listing(self.fixed_roots or self._client_roots or None))

    async def _handle_list_tools(self, ctx: Any, params: Any) -> types.ListToolsResult:
        """tools/list (overrides the SDK's handler, to learn the client's roots first so
        that the path descriptions can name them)."""
        roots: list[str] | None = self.fixed_roots
        if roots is None and self.client_roots_enabled:
            try:
                context = Context(request_context=ctx, mcp_server=self)
                found: Any = None
                with anyio.move_on_after(LIST_ROOTS_TIMEOUT):  # a client that never answers
                    found = await self.roots_for(context, RoundState())
                roots = found if isinstance(found, list) else None
            except Exception as exc:
                log.info("client roots unavailable for the listing: %s", exc)
        if roots is None or any(Path(r).resolve() == Path(r).resolve().parent for r in roots):
            roots = None  # never describe "/" as the workspace
        return types.ListToolsResult(tools=list(self.listing(roots)))

    async def call_tool(
        self, name: str, arguments: dict[str, Any], context: Context | None = None
    ) -> types.CallToolResult | types.InputRequiredResult:
        """Run one tool; failures come back as `isError` results with the toolset's text."""
        if name not in self._tools:
            raise ToolError(f"Unknown tool: {name!r}. Available tools: {', '.join(self._tools)}")
        state: RoundState | None = None  # (read from the context only where needed: ~10 µs)
        if self.fixed_roots:
            roots: list[str] | types.InputRequiredResult = self.fixed_roots
        elif self._client_roots and self.client_roots_enabled and context is not None:
            roots = self._client_roots  # what roots_for answers once it knows them
        else:
            state = RoundState.load(context)
            roots = await self.roots_for(context, state)
        if isinstance(roots, types.InputRequiredResult):
            return roots
        toolset, real_roots = self._target(roots)
        result: Result | None = None
        if self._tools[name].inline_ok and self.gate is not None and self.gate.open_for(real_roots):
            try:
                with running_inline():
                    result = toolset.call(name, arguments)
                self.inline_answers += 1
            except NotInline:  # nothing was returned or changed: run it on a thread instead
                self.inline_fallbacks += 1
        if result is None:
            token = self._loop_token()
            # Who confirms, and the round's state, are looked up only if the call asks.
            loaded = state
            confirmer = Confirmer(
                lambda: self.confirm_mode(context),
                context,
                loaded if loaded is not None else lambda: RoundState.load(context),
                token,
            )
            reporter = self._progress(context, token)
            result = await self._threads.run(_run, toolset, name, arguments, confirmer, reporter)
            if confirmer.pending is not None:
                return confirmer.input_required()
        if result.data.get("error") == "no_confirmation":
            hint = NOBODY_CONFIRMS_MESSAGE if self.confirm == "none" else NO_CONFIRM_MESSAGE
            result.data["hint"] = hint
            if not self._hinted:
                self._hinted = True
                log.warning("a change was refused: %s", hint)
        overrides = getattr(self._tools[name], "mcp", None) or {}
        return to_mcp_result(result, overrides.get("outputSchema"))

    def _loop_token(self) -> Any:
        """anyio's token of the running event loop (None without tokens), made once per
        loop (~20 µs each time)."""
        if not HAS_TOKENS:
            return None
        try:
            loop: Any = asyncio.get_running_loop()
        except RuntimeError:  # not asyncio (trio): asked every time
            return anyio.lowlevel.current_token()
        kept = self._token
        if kept is None or kept[0] is not loop:
            kept = self._token = (loop, anyio.lowlevel.current_token())
        return kept[1]

    def confirm_mode(self, context: Context | None) -> str:
        """Who confirms this call's changes: `--confirm host` → yes, `none` → nobody;
        `client` → push / rounds when the client can be asked, else yes (--yes) or refuse."""
        if self.confirm == "host":
            return "yes"
        if self.confirm == "none":
            return "nobody"
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
        # What a write replaces is freed after the answer (`ToolThreads(after=...)`), not
        # before it: freeing can wait for the disk (`state.trash`).
        with progress_reporter(reporter), trash.deferred():
            return toolset.call(name, arguments)
    finally:
        _CURRENT.confirmer = None


# -- entry point -------------------------------------------------------------------------------


def build_server(
    roots: list[str] | None = None,
    toolset: str = "default",
    *,
    http: bool = False,
    locale: str = "en",
    memory: bool = True,
    yes: bool = False,
    confirm: str = "client",
    describe_roots: bool = True,
    inline: bool | None = None,
) -> FilewrightServer:
    """A configured server (raises ValueError for an unknown toolset or an invalid root)."""
    return FilewrightServer(
        roots,
        toolset,
        locale=locale,
        memory=memory,
        yes=yes,
        confirm=confirm,
        client_roots=not http,
        describe_roots=describe_roots,
        inline=inline,
    )


def _stdin_is_terminal() -> bool:
    try:
        return sys.stdin is not None and sys.stdin.isatty()
    except (AttributeError, ValueError):
        return False


def stop_on_interrupt() -> None:
    """Ctrl-C ends the process at once: the SDK's terminal transport reads stdin on a
    worker thread that no cancellation reaches. Safe for files: every write is atomic
    (a temp file renamed into place), so an interrupted change leaves the old file."""

    def stop(_signum: int, _frame: Any) -> None:
        print("\nfilewright: stopped", file=sys.stderr, flush=True)
        os._exit(130)

    signal.signal(signal.SIGINT, stop)


def run_server(
    roots: list[str] | None = None,
    toolset: str = "default",
    listener: Listener | None = None,
    locale: str = "en",
    memory: bool = True,
    yes: bool = False,
    confirm: str = "client",
    describe_roots: bool = True,
) -> None:
    """Serve `toolset` over stdio, or streamable HTTP (path /mcp) on `listener`.

    The listener comes from `filewright.surfaces.mcp.listen.listen`, which checks the HTTP
    options (address, bearer token, exposure) and binds. Raises ValueError for an unknown
    toolset or an invalid root.
    """
    try:
        server = build_server(
            roots,
            toolset,
            http=listener is not None,
            locale=locale,
            memory=memory,
            yes=yes,
            confirm=confirm,
            describe_roots=describe_roots,
        )
    except BaseException:
        if listener is not None:
            listener.sock.close()
        raise
    if listener is None:
        if _stdin_is_terminal():
            print(
                f"filewright: serving toolset {toolset!r} over stdio: an MCP client (agent host) "
                "starts this command and talks on stdin/stdout; Ctrl-C stops it",
                file=sys.stderr,
            )
            stop_on_interrupt()
        anyio.run(server.run_stdio_async)
        return
    # deferred: the HTTP transport loads uvicorn, h11 and the SDK's HTTP parts: only to
    # serve over HTTP, never for stdio
    from filewright.surfaces.mcp import http as http_transport

    http_transport.serve(server, listener, toolset)


__all__ = [
    "FilewrightServer",
    "approved",
    "build_server",
    "question",
    "request_key",
    "root_paths",
    "run_server",
    "to_mcp_result",
    "with_roots",
]
