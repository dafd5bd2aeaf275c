"""The `memory` toolset as the anthropic SDK's memory tool helper.

Anthropic's Python SDK runs the memory tool through a `BetaAbstractMemoryTool` subclass
(its own `BetaLocalFilesystemMemoryTool` writes with no policy, history or undo).
`memory_tool(toolset)` is one whose six commands run on a filewright `memory` toolset, so
it goes where the SDK's documentation puts the local one:

    runner = client.beta.messages.tool_runner(..., tools=[memory_tool(ws.toolset("memory"))])

Its definition is the SDK's (`{"type": "memory_20250818", "name": "memory"}`, plus
`cache_control` when given). The model's input is passed to the toolset as it came; a
failure is raised as the SDK's `ToolError` (the runner answers it with `is_error: true`);
an image `view` is a text block and an image block. anthropic is imported when called.
"""

from __future__ import annotations

import functools
from typing import Any

from filewright.surfaces.dispatch import images_of


def memory_tool(toolset: Any, *, cache_control: Any = None) -> Any:
    """A `BetaAbstractMemoryTool` (anthropic SDK) running on `toolset`, a `memory` toolset."""
    if getattr(toolset, "name", None) != "memory":
        raise ValueError(f"memory_tool needs the memory toolset, not {toolset!r}")
    return _tool_class()(toolset, cache_control=cache_control)


@functools.cache
def _tool_class() -> type:
    # deferred: anthropic: heavy, loaded only when this runs
    from anthropic.lib.tools import BetaAbstractMemoryTool, ToolError

    class FilewrightMemoryTool(BetaAbstractMemoryTool):  # type: ignore[misc]
        """Anthropic's memory tool, run by filewright's `memory` toolset."""

        def __init__(self, toolset: Any, *, cache_control: Any = None) -> None:
            super().__init__(cache_control=cache_control)
            self.toolset = toolset

        def call(self, input: object) -> Any:
            """Run the model's input (a dict) as it came."""
            result = self.toolset.call("memory", input if isinstance(input, dict) else {})
            if not result.ok:
                raise ToolError(result.text)
            images = images_of(result)
            if not images:
                return result.text
            return [
                {"type": "text", "text": result.text},
                *(
                    {"type": "image", "source": {"type": "base64", "media_type": m, "data": d}}
                    for m, d in images
                ),
            ]

        def _command(self, command: Any) -> Any:
            return self.call(command.model_dump(exclude_unset=True))

        view = create = str_replace = insert = delete = rename = _command

    return FilewrightMemoryTool
