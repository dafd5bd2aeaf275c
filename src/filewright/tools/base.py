"""What a toolset is: named tools with parameter models, mapped onto the engine.

A toolset holds no matching, path, I/O or policy logic. It declares its tools (one
pydantic model per tool), turns arguments into engine calls and words the results in its
seed's language.
"""

from __future__ import annotations

import importlib
import json
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, ClassVar

from filewright.core import budget
from filewright.core.messages import failure_text
from filewright.core.result import Failure, OperationFailed, Result
from filewright.fs import held
from filewright.tools import arguments

if TYPE_CHECKING:
    from pydantic import BaseModel, ValidationError

    from filewright.engine.change import Change, Outcome
    from filewright.engine.workspace import Engine, Workspace
    from filewright.policy.rules import Rule


class Tool:
    """One tool: its name, description, parameter model, handler and MCP annotations
    (`mcp`: overrides of its MCP definition); `inline_ok` marks a bounded read of one
    file, which the MCP server may answer on its event loop (`filewright.core.inline`).

    `params` may be the model class or a reference "module:Name" to it: a reference is
    imported only when the model is needed (schemas, or arguments the light check in
    `filewright.tools.arguments` cannot vouch for), which keeps pydantic out of a plain call.
    """

    __slots__ = (
        "_model", "_ref", "anthropic_builtin", "description", "destructive", "handler",
        "idempotent", "inline_ok", "mcp", "name", "read_only", "responses_builtin", "title",
    )  # fmt: skip

    def __init__(
        self,
        name: str,
        description: str,
        params: type[BaseModel] | str,
        handler: Callable[[Any], Result],
        read_only: bool = False,
        destructive: bool = False,
        idempotent: bool = False,
        title: str | None = None,
        responses_builtin: dict[str, Any] | None = None,
        mcp: dict[str, Any] | None = None,
        anthropic_builtin: dict[str, Any] | None = None,
        inline_ok: bool = False,
    ) -> None:
        self.name, self.description, self.handler = name, description, handler
        # A bounded read of one file: a surface with an event loop may answer it on the
        # loop's thread (`filewright.core.inline`: the read gives up there, before reading,
        # when the file is not small and regular). Searches, listings, several files and
        # changes never are.
        self.inline_ok = inline_ok
        # A Responses API built-in tool type this tool stands for (e.g. {"type": "apply_patch"}):
        # its definition in the `openai-responses` format, instead of a function tool.
        self.responses_builtin = responses_builtin
        # An Anthropic tool type this tool stands for (e.g. {"type": "memory_20250818",
        # "name": "memory"}): its definition in the `anthropic` format, with no schema.
        self.anthropic_builtin = anthropic_builtin
        self.read_only, self.destructive, self.idempotent = read_only, destructive, idempotent
        self.title = title
        # Keys that replace or add to the tool's MCP definition (`annotations`,
        # `outputSchema`), for a toolset that mirrors an MCP server's own listing. With an
        # `outputSchema`, the MCP surface sends as structured content only the keys of
        # `data` the schema names.
        self.mcp = mcp
        self._ref = params if isinstance(params, str) else None
        self._model = None if isinstance(params, str) else params

    def __repr__(self) -> str:
        return f"Tool({self.name!r})"

    @property
    def params(self) -> type[BaseModel]:
        """The pydantic model of the arguments (imported on first use)."""
        if self._model is None:
            assert self._ref is not None
            module, _, name = self._ref.partition(":")
            self._model = getattr(importlib.import_module(module), name)
        return self._model

    def light_schema(self) -> dict[str, Any] | None:
        """The model's cached JSON schema, when the model is given by reference and cached."""
        if self._ref is None:
            return None
        module, _, name = self._ref.partition(":")
        return arguments.cached_schema(module, name)

    def required(self) -> list[str]:
        """Names of the required arguments."""
        schema = self.light_schema()
        if schema is not None:
            return list(schema.get("required", ()))
        return [n for n, f in self.params.model_fields.items() if f.is_required()]

    def validate(self, args: dict[str, Any]) -> Any:
        """The arguments as attributes; raises pydantic's ValidationError when invalid."""
        schema = self.light_schema()
        if schema is not None:
            checked = arguments.check(schema, args)
            if checked is not None:
                return checked
        return self.params.model_validate(args)


def __getattr__(name: str) -> Any:
    if name == "Params":  # the base model lives apart, so importing this module stays light
        # deferred: pydantic: heavy, loaded when a model is first defined
        from filewright.tools.params import Params

        return Params
    raise AttributeError(name)


def _trace() -> str:
    # deferred: traceback (linecache, tokenize) only when a tool fails unexpectedly
    import traceback

    return traceback.format_exc(limit=5)


def describe_validation_error(tool: str, exc: ValidationError) -> str:
    """One line per problem: `field: what is wrong`."""
    problems = []
    for err in exc.errors(include_url=False):
        loc = ".".join(str(p) for p in err["loc"]) or "(arguments)"
        kind = err["type"]
        if kind == "missing":
            problems.append(f"missing required parameter '{loc}'")
        elif kind == "extra_forbidden":
            problems.append(f"unexpected parameter '{loc}'")
        else:
            problems.append(f"'{loc}': {err['msg']}")
    return f"Invalid arguments for {tool}: " + "; ".join(problems)


class Toolset:
    """Base class: subclasses set `name`, `profile`, `messages` and implement `tools()`."""

    name: ClassVar[str] = ""
    profile: ClassVar[tuple[Rule, ...]] = ()
    # Per-locale message overrides of engine failure codes, in the seed's words.
    messages: ClassVar[dict[str, dict[str, str]]] = {}

    def __init__(self, workspace: Workspace, **options: Any) -> None:
        self.workspace = workspace
        self.options = options
        self.engine: Engine = workspace.engine(self.profile_rules(), toolset=self.name)

    # -- what subclasses provide -------------------------------------------------------

    def profile_rules(self) -> list[Rule]:
        return list(self.profile)

    def tools(self) -> list[Tool]:
        raise NotImplementedError

    # -- the public surface ------------------------------------------------------------

    @property
    def locale(self) -> str:
        return self.workspace.locale

    def tool(self, name: str) -> Tool | None:
        """The tool called `name` (None: no such tool). A toolset's tools are fixed once
        it is made (its options are), so they are built and indexed by name once: a call
        does not rebuild every tool's definition (issue 32: ~17 µs per call)."""
        index = self.__dict__.get("_tool_index")
        if index is None:
            index = self.__dict__["_tool_index"] = {t.name: t for t in reversed(self.tools())}
        return index.get(name)  # type: ignore[no-any-return]

    def tool_names(self) -> list[str]:
        return [t.name for t in self.tools()]

    def by_name(self, target: str) -> Callable[[Any], Result]:
        """The handler at `target` ("module:function", called with this toolset and the
        arguments), its module imported on the first call: a toolset declares its tools
        without loading every tool's implementation (a read loads no edit machinery)."""

        found: list[Callable[[Any, Any], Result]] = []  # the function, once imported

        def handler(params: Any) -> Result:
            if not found:
                module, _, name = target.partition(":")
                found.append(getattr(importlib.import_module(module), name))
            return found[0](self, params)

        return handler

    def call(self, tool: str, args: dict[str, Any] | str | None = None) -> Result:
        """Call `tool` with `args` (a dict, or a JSON object as a string)."""
        found = self.tool(tool) if isinstance(tool, str) else None
        if found is None:
            names = ", ".join(self.tool_names())
            return Result(
                False,
                f"Unknown tool: {tool!r}. Available tools: {names}",
                {"error": "unknown_tool"},
            )
        if args is None:
            args = {}
        if isinstance(args, str | bytes):
            try:
                args = json.loads(args) if args.strip() else {}
            except (ValueError, UnicodeDecodeError, RecursionError) as exc:
                return Result(
                    False,
                    f"Invalid arguments for {tool}: not valid JSON ({exc})",
                    {"error": "bad_arguments"},
                )
        if not isinstance(args, dict):
            return Result(
                False,
                f"Invalid arguments for {tool}: expected a JSON object",
                {"error": "bad_arguments"},
            )
        if _holds_null(args):  # strict mode's "not given" (see `definitions`)
            # deferred: the schemas load pydantic, needed only for a strict-mode null
            from filewright.tools.schemas import drop_strict_nulls, parameters_schema

            args = drop_strict_nulls(parameters_schema(found), args)
        try:
            params = found.validate(args)
        except Exception as exc:
            # deferred: pydantic: heavy, loaded only when this runs
            from pydantic import ValidationError

            if not isinstance(exc, ValidationError):
                raise
            return Result(False, describe_validation_error(tool, exc), {"error": "bad_arguments"})
        try:
            # One scope per call: its regexes share one time limit, its readers one output
            # budget; each held directory is confirmed once (`fs.held`).
            ws = self.workspace
            with budget.call_scope(ws.regex_seconds, ws.max_output_chars), held.checked_once():
                return found.handler(params)
        except OperationFailed as exc:
            return self.failed(exc.failure)
        except RecursionError:
            return Result(
                False, f"{tool} failed: input is too deeply nested", {"error": "internal"}
            )
        except Exception as exc:  # the model must never see a traceback
            return Result(
                False,
                f"{tool} failed unexpectedly: {type(exc).__name__}: {exc}",
                {"error": "internal", "trace": _trace()},
            )

    def definitions(self, format: str = "openai", *, strict: bool = False) -> list[dict[str, Any]]:
        """Function-calling definitions in `format`; see `filewright.tools.schemas.FORMATS`.
        `strict=True` (openai, openai-responses): OpenAI's strict mode, where a model sends
        null for an optional parameter it leaves out (`call` then drops it)."""
        # deferred: the schemas load pydantic, needed only when definitions are asked for
        from filewright.tools.schemas import definitions

        return definitions(self, format, strict=strict)

    # -- helpers for subclasses -------------------------------------------------------

    def text_for(self, failure: Failure, path: str | None = None) -> str:
        overrides = self.messages.get(self.locale) or self.messages.get("*")
        return failure_text(failure, self.locale, overrides, path)

    def failed(self, failure: Failure, path: str | None = None, **data: Any) -> Result:
        payload: dict[str, Any] = {"error": failure.code}
        payload.update({k: v for k, v in failure.detail.items() if k != "message"})
        payload.update(data)
        return Result(False, self.text_for(failure, path), payload)

    def change(self, change: Change) -> Outcome:
        # deferred: the change pipeline loads with the first change, never for a read
        # (tests/test_cli_fastpath.py)
        from filewright.engine.pipeline import apply_change

        if self.options.get("allow_read_only"):  # the explicit opt-in for read-only files
            change.allow_read_only = True
        return apply_change(self.engine, change)


def _holds_null(value: Any, depth: int = 0) -> bool:
    """Whether a JSON value holds a null anywhere (nested a few levels deep at most)."""
    if value is None:
        return True
    if depth > 4:
        return False
    if isinstance(value, dict):
        value = value.values()
    elif not isinstance(value, list):
        return False
    for item in value:  # (a loop: most arguments are strings and numbers, decided here)
        if item is None or (isinstance(item, dict | list) and _holds_null(item, depth + 1)):
            return True
    return False
