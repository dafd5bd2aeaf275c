"""filewright: safe, precise and fast file tools for LLM agents.

from filewright import Workspace
ws = Workspace("path/to/root")
tools = ws.toolset("default")
result = tools.call("edit", {"path": "a.txt", "old_string": "x", "new_string": "y"})
result.ok, result.text, result.data

The public surface is what `__all__` lists; `filewright.dispatch` (provider message
formats) is the other documented import path. The layers below are described in
docs/ARCHITECTURE.md.
"""

from filewright.core.result import Failure, Result
from filewright.core.version import __version__
from filewright.engine.workspace import ConfirmRequest, Workspace, approve_all

__all__ = ["ConfirmRequest", "Failure", "Result", "Workspace", "__version__", "approve_all"]
