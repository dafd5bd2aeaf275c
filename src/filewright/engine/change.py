"""What a change is and what came of it: `Change` (the request a toolset makes),
`Outcome` (the result `pipeline.apply_change` fills in), and the clipping of a diff.

A module of its own, importing nothing heavy, so that a toolset can name its changes
without loading the pipeline, the diff engine or the streamed-change engine: a plain
read loads none of them (tests/test_cli_fastpath.py).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from filewright.core.result import Failure
from filewright.fs.paths import Location
from filewright.policy.rules import Risk

MAX_DIFF_TEXT = 20_000  # characters of diff shown to a model in a result text
MAX_DIFF_DATA = 1_000_000  # characters of diff kept in a result's data


def clip_diff(diff: str, limit: int = MAX_DIFF_TEXT) -> str:
    """`diff` cut to about `limit` characters at a line boundary, with a note of what was left out."""
    if len(diff) <= limit:
        return diff
    head = diff[:limit]
    cut = head.rfind("\n")
    head = head[: cut + 1] if cut > 0 else head[:limit]
    rest = diff[len(head) :]
    return f"{head}... (diff truncated: {rest.count(chr(10)) + 1} more lines, {len(rest)} more characters)\n"


CLIPPED_NOTE = "... (diff truncated: "


def is_clipped(diff: str) -> bool:
    """Whether `diff` was cut at its limit (no diff line starts with "...")."""
    return diff.startswith(CLIPPED_NOTE) or f"\n{CLIPPED_NOTE}" in diff


Compute = Callable[[str | None], Any]


@dataclass
class Change:
    """A request to change one file. See module docstring for `compute`."""

    path: str
    operation: str  # write | edit | append | create | insert | undo
    compute: Compute
    must_exist: bool = False
    must_not_exist: bool = False
    create_parents: bool = False
    require_read: bool = False
    expected_hash: str | None = None
    check_stale: bool = True
    backup: bool = True
    sidecar_backup: str | None = None  # e.g. ".claude-backups": a visible backup next to the file
    dry_run: bool = False
    confirm: bool = False  # ask even when the policy does not require it
    encoding: str | None = None  # for new files
    max_bytes: int | None = None
    newline: str | None = None  # "\n" or "\r\n": write every line with it (None: keep the file's)
    # The same change as a streamed operation (engine.streamed.Stream*), used for files
    # above the workspace's stream_above_bytes; None: such files go the in-memory way.
    streamed: Any = None
    stream_above: int | None = None  # stream above this size (None: the workspace's)
    allow_read_only: bool = False  # replace a file even when it has no write permission
    lock_timeout: float | None = None  # seconds to wait for another change (None: default)
    backup_unchanged: bool = False  # keep a sidecar backup even when the bytes are the same
    encoder: Callable[[str], bytes] | None = (
        None  # bytes of the new text (else the file's encoding)
    )


@dataclass
class Outcome:
    """What happened (or would happen, for a dry run)."""

    ok: bool
    failure: Failure | None = None
    loc: Location | None = None
    created: bool = False
    old_text: str | None = None
    new_text: str | None = None
    diff: str = ""
    risk: Risk = Risk.LOW
    replacements: int = 0
    strategy: str | None = None
    changed_lines: tuple[int, int] | None = None
    backup: str | None = None
    bytes_written: int = 0
    dry_run: bool = False
    hash: str | None = None
    encoding: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    def data(self) -> dict[str, Any]:
        """The structured part of a tool result."""
        out: dict[str, Any] = {}
        if self.loc is not None:
            out["path"] = str(self.loc.path)
        if self.failure is not None:
            out["error"] = self.failure.code
            out.update({k: v for k, v in self.failure.detail.items() if _jsonable(v)})
            return out
        out.update(
            risk=self.risk.value,
            created=self.created,
            dry_run=self.dry_run,
            replacements=self.replacements,
            strategy=self.strategy,
            changed_lines=list(self.changed_lines) if self.changed_lines else None,
            diff=clip_diff(self.diff, MAX_DIFF_DATA),
            bytes=self.bytes_written,
        )
        if len(self.diff) > MAX_DIFF_DATA or is_clipped(self.diff):
            out["diff_truncated"] = True
        if self.backup:
            out["backup"] = self.backup
        if self.encoding:
            out["encoding"] = self.encoding
        out.update(self.extra)
        return out


def _jsonable(value: Any) -> bool:
    return isinstance(value, str | int | float | bool | list | dict | type(None))
