"""filewright: safe, precise and fast file tools for LLM agents.

from filewright import Workspace
ws = Workspace("path/to/root")
tools = ws.toolset("default")
result = tools.call("edit", {"path": "a.txt", "old_string": "x", "new_string": "y"})
result.ok, result.text, result.data
"""

from filewright.result import Failure, Result
from filewright.workspace import ConfirmRequest, Workspace, approve_all

__all__ = ["ConfirmRequest", "Failure", "Result", "Workspace", "approve_all"]
__version__ = "0.1.0"
