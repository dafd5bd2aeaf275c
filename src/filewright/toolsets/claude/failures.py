"""The claude seed's error objects: which code and message each tool's handler gives.

See `messages` for the rule (thrown errors: `UNKNOWN_ERROR` for Read and Write,
`EDIT_ERROR` for Edit; Node's error codes; the seed's PathValidator and PermissionChecker
reasons). `SeedErrors` needs the workspace only to word a failure: whether a denied path
is denied by its extension, whether a path outside the roots went through a link inside.
"""

from __future__ import annotations

import os
import re
from typing import TYPE_CHECKING, Any

from filewright.core.result import Failure, Result
from filewright.fs.paths import PathRefused
from filewright.toolsets.claude import messages as M
from filewright.toolsets.claude import seed

if TYPE_CHECKING:
    from filewright.engine.workspace import Engine, Workspace


def external(path: str) -> dict[str, str]:
    """The seed's ConflictDetector report of an external modification."""
    return {
        "type": "external_modification",
        "message": M.render(M.EXTERNAL, path=path),
        "suggestion": M.EXTERNAL_SUGGESTION,
    }


class SeedErrors:
    """Engine failures as the claude seed's tools report them."""

    def __init__(self, workspace: Workspace, engine: Engine) -> None:
        self.workspace = workspace
        self.engine = engine

    def _policy_reason(self, path: str) -> str:
        """`Path is in a denied directory`, or `File extension .x is not allowed` when the
        rule that denies the path is one on its extension."""
        try:
            loc = self.workspace.sandbox.resolve(path, expect="any")
            _access, rule = self.engine.policy.decide(loc.lexical_rel, loc.rel, is_dir=loc.is_dir)
        except (PathRefused, OSError):  # only the wording depends on it
            return M.DENIED_DIRECTORY
        pattern = getattr(rule, "pattern", "") or ""
        ext = seed.extname(path)
        if ext and re.fullmatch(r"(\*\*/)?\*" + re.escape(ext), pattern, re.IGNORECASE):
            return M.render(M.DENIED_EXTENSION, ext=ext)
        return M.DENIED_DIRECTORY

    def _outside_reason(self, path: str) -> str:
        """A path named inside a root that leads outside went through a symbolic link."""
        lexical = os.path.normpath(path)
        for root in self.workspace.sandbox.roots:
            root_str = str(root)
            if lexical == root_str or lexical.startswith(root_str.rstrip("/") + "/"):
                return M.SYMLINK_OUTSIDE
        return M.OUTSIDE

    def _seed_error(
        self, failure: Failure, path: str, table: dict[str, tuple[str | None, str]], tool: str
    ) -> tuple[str, str]:
        """(code, message) of an engine failure as the seed's tool reports it."""
        code = failure.code
        if code == "too_large":
            size, limit = failure.detail.get("size"), int(failure.detail.get("limit") or 0)
            return M.THROWN_CODE[tool], M.size_message("File", size, limit)
        if code == "io_error" and failure.detail.get("errno") in M.NODE_ERRORS:
            return M.NODE_ERRORS[str(failure.detail["errno"])]
        if code == "denied":
            return M.THROWN_CODE[tool], self._policy_reason(path)
        if code == "outside":
            return M.THROWN_CODE[tool], self._outside_reason(path)
        if code == "permission" and table is M.WRITE_FAILURES and not self._exists(path):
            parent = os.path.dirname(path.rstrip("/")) or "/"
            return M.THROWN_CODE[tool], f"Permission denied: cannot write to {parent}"
        seed_code, template = table.get(code, (None, "{message}"))
        params = {
            **failure.detail,
            "path": path,
            "operation": M.seed_operation(str(failure.detail.get("operation") or "write")),
        }
        params.setdefault("message", f"{code}: {path}")
        return seed_code or M.THROWN_CODE[tool], M.render(template, **params)

    def _exists(self, path: str) -> bool:
        try:
            return self.workspace.sandbox.resolve(path, expect="any").exists
        except (PathRefused, OSError):  # only the wording depends on it
            return False

    def read_failure(self, failure: Failure, path: str, **extra: Any) -> Result:
        """A failure of Read, as the seed's Read reports it."""
        mime = extra.pop("mime", seed.UNKNOWN_MIME)
        code, message = self._seed_error(
            Failure(failure.code, failure.path, {**failure.detail, "mime": mime}),
            path,
            M.READ_FAILURES,
            "Read",
        )
        return self._failed(code, message, failure, **extra)

    def write_failure(self, failure: Failure, path: str, tool: str = "Write") -> Result:
        """A failure of the write step (Write's, or the Write that Edit calls)."""
        code, message = self._seed_error(failure, path, M.WRITE_FAILURES, tool)
        if code == M.EDIT_ERROR:  # Edit's Write codes its own failures as Write does
            code = M.THROWN_CODE["Write"]
        return self._failed(code, message, failure)

    @staticmethod
    def _failed(code: str, message: str, failure: Failure, **extra: Any) -> Result:
        detail = {k: v for k, v in failure.detail.items() if k not in ("message", "mime")}
        if failure.code == "busy":
            extra["suggestion"] = M.CONCURRENT_SUGGESTION
        if failure.code == "stale":
            extra["conflict"] = external(failure.path)
        return M.failure(code, message, failure.code, details=detail or None, **extra)
