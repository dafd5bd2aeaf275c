"""Toolsets by name: the workspace finds a toolset here, without importing every one.

Each entry is "module:Class"; the module is imported the first time its toolset is used,
so `Workspace` (below the toolsets) never imports them. `register` adds a toolset of
your own under a new name.
"""

from __future__ import annotations

import importlib
from typing import Any, Protocol

from filewright.core.result import Result


class ToolsetLike(Protocol):
    """What the engine knows of a toolset (the class is `filewright.tools.Toolset`)."""

    name: str

    def call(self, tool: str, args: dict[str, Any] | str | None = None) -> Result: ...

    def definitions(
        self, format: str = "openai", *, strict: bool = False
    ) -> list[dict[str, Any]]: ...


REGISTRY: dict[str, str] = {
    "default": "filewright.toolsets.default:DefaultToolset",
    "claude": "filewright.toolsets.claude.toolset:ClaudeToolset",
    "text_editor": "filewright.toolsets.text_editor:TextEditorToolset",
    "gemini": "filewright.toolsets.gemini:GeminiToolset",
    "worker": "filewright.toolsets.worker:WorkerToolset",
    "companion": "filewright.toolsets.companion:CompanionToolset",
    "memo": "filewright.toolsets.memo:MemoToolset",
    "apply_patch": "filewright.toolsets.apply_patch:ApplyPatchToolset",
    "mcpfs": "filewright.toolsets.mcpfs:McpfsToolset",
    "memory": "filewright.toolsets.memory:MemoryToolset",
}

NAMES = tuple(REGISTRY)


def register(name: str, target: str) -> None:
    """Make the toolset class at `target` ("module:Class") available as `name`."""
    module, sep, cls = target.partition(":")
    if not (module and sep and cls):
        raise ValueError(f"toolset target must be 'module:Class', got {target!r}")
    REGISTRY[name] = target


def toolset_class(name: str) -> Any:
    """The class of the toolset called `name` (its module is imported now)."""
    target = REGISTRY.get(name)
    if target is None:
        raise ValueError(f"unknown toolset {name!r}; available: {', '.join(sorted(REGISTRY))}")
    module_name, _, cls_name = target.partition(":")
    return getattr(importlib.import_module(module_name), cls_name)


def create(name: str, workspace: Any, **options: Any) -> ToolsetLike:
    """Instantiate the toolset called `name` on `workspace`."""
    return toolset_class(name)(workspace, **options)
