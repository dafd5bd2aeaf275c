"""The toolsets: each maps one seed document (or the best-of-all `default`) onto the engine."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from filewright.toolsets.base import Toolset
    from filewright.workspace import Workspace

# name -> "module:Class"; modules load only when their toolset is used.
REGISTRY: dict[str, str] = {
    "default": "filewright.toolsets.default:DefaultToolset",
    "claude": "filewright.toolsets.claude:ClaudeToolset",
    "text_editor": "filewright.toolsets.text_editor:TextEditorToolset",
    "gemini": "filewright.toolsets.gemini:GeminiToolset",
    "worker": "filewright.toolsets.worker:WorkerToolset",
    "companion": "filewright.toolsets.companion:CompanionToolset",
    "memo": "filewright.toolsets.memo:MemoToolset",
}

NAMES = tuple(REGISTRY)


def toolset_class(name: str) -> type[Toolset]:
    """The class of the toolset called `name` (its module is imported now)."""
    target = REGISTRY.get(name)
    if target is None:
        raise ValueError(f"unknown toolset {name!r}; available: {', '.join(sorted(REGISTRY))}")
    module_name, _, cls_name = target.partition(":")
    return getattr(importlib.import_module(module_name), cls_name)


def create(name: str, workspace: Workspace, **options: Any) -> Toolset:
    """Instantiate the toolset called `name` on `workspace`."""
    return toolset_class(name)(workspace, **options)
