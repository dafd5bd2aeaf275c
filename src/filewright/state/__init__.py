"""What filewright remembers between calls, kept in the state directory: change history and
backups for undo, the read ledger, per-file locks. Knows nothing of policy or tools.

`History` is this package's lazy attribute: `filewright.state.History` imports
`state.history` when first used, so that a workspace that only reads (its checks of the
state directory and the read ledger are in `state.statedir`) never loads the change log
(issue 32: a `filewright call read` pays for every module it imports).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from filewright.state.history import History

__all__ = ["History"]


def __getattr__(name: str) -> Any:
    if name == "History":
        return importlib.import_module("filewright.state.history").History
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
