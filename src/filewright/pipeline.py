"""The one pipeline every change goes through.

resolve → policy → load → compute → preview → confirm → commit → record → result.

`compute` is a pure function of the old text ("\\n" newlines; None when the file does not
exist) returning the new text, an `Edited`, or an `EditFailure`. Nothing is written
unless every step before commit succeeded; a failure anywhere is returned as a value.
"""

from __future__ import annotations

import contextlib
import difflib
import hashlib
import os
import re
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from filewright import fsio
from filewright.history import LockTimeout, file_lock, timestamp_for_filename
from filewright.paths import Location, PathRefused
from filewright.policy import Access, Risk, risk_of
from filewright.result import Failure, OperationFailed, fail
from filewright.textfile import TextFile, TextFileError, content_hash, encode, normalise_newlines
from filewright.workspace import ConfirmRequest, Engine

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
        if len(self.diff) > MAX_DIFF_DATA:
            out["diff_truncated"] = True
        if self.backup:
            out["backup"] = self.backup
        if self.encoding:
            out["encoding"] = self.encoding
        out.update(self.extra)
        return out


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


def _jsonable(value: Any) -> bool:
    return isinstance(value, str | int | float | bool | list | dict | type(None))


def unified_diff(old: str, new: str, path: str, context: int = 3) -> str:
    """A unified diff of two texts ("\\n" newlines)."""
    lines = difflib.unified_diff(
        old.splitlines(keepends=True),
        new.splitlines(keepends=True),
        fromfile=f"a/{path}",
        tofile=f"b/{path}",
        n=context,
    )
    out = []
    for line in lines:
        if not line.endswith("\n"):
            line += "\n\\ No newline at end of file\n"
        out.append(line)
    return "".join(out)


def _changed_lines(old: str, new: str) -> tuple[int, int] | None:
    """The 1-based range of lines in `new` that differ from `old` (prefix/suffix trim)."""
    if old == new:
        return None
    a, b = old.split("\n"), new.split("\n")
    start = 0
    while start < min(len(a), len(b)) and a[start] == b[start]:
        start += 1
    end_a, end_b = len(a), len(b)
    while end_a > start and end_b > start and a[end_a - 1] == b[end_b - 1]:
        end_a -= 1
        end_b -= 1
    return (start + 1, max(start + 1, end_b))


def _run_compute(change: Change, old: str | None, outcome: Outcome) -> str:
    result = change.compute(old)
    if isinstance(result, str):
        return result
    if hasattr(result, "code") and hasattr(result, "detail"):
        raise OperationFailed(Failure(result.code, change.path, dict(result.detail)))
    outcome.replacements = getattr(result, "replacements", 0)
    outcome.strategy = getattr(result, "strategy", None)
    lines = getattr(result, "changed_lines", None)
    if lines:
        outcome.changed_lines = tuple(lines)  # type: ignore[assignment]
    return result.text


def apply_change(engine: Engine, change: Change) -> Outcome:
    """Run `change` through the pipeline; never raises for expected failures."""
    outcome = Outcome(ok=False)
    try:
        _apply(engine, change, outcome)
        outcome.ok = True
    except OperationFailed as exc:
        outcome.ok = False
        outcome.failure = exc.failure
    except LockTimeout:
        outcome.failure = Failure(
            "busy", change.path, {"message": "file is locked by another process"}
        )
    except PathRefused as exc:
        outcome.failure = Failure(exc.code, change.path, {"message": exc.detail})
    except PermissionError:
        outcome.failure = Failure(
            "permission", change.path, {"message": f"permission denied: {change.path}"}
        )
    except FileNotFoundError:
        outcome.failure = Failure(
            "parent_missing",
            change.path,
            {"message": f"parent directory does not exist: {change.path}"},
        )
    except OSError as exc:
        outcome.failure = Failure(
            "io_error", change.path, {"message": f"{exc.strerror or exc}: {change.path}"}
        )
    return outcome


def _load_current(
    engine: Engine, loc: Location, change: Change
) -> tuple[TextFile | None, fsio.FileState | None]:
    try:
        tf, state = engine.load_text(loc, max_bytes=change.max_bytes)
        return tf, state
    except OperationFailed as exc:
        if exc.failure.code == "not_found":
            return None, None
        raise


def _apply(engine: Engine, change: Change, outcome: Outcome) -> None:
    ws = engine.workspace
    loc, access = engine.locate(change.path, purpose="write", expect="file")
    outcome.loc = loc
    if loc.exists and change.must_not_exist:
        raise fail("exists", change.path, message=f"file already exists: {change.path}")
    if not loc.exists and change.must_exist:
        raise fail("not_found", change.path, message=f"file not found: {change.path}")
    if not loc.exists and not change.create_parents and not fsio.parent_exists(loc):
        raise fail(
            "parent_missing",
            change.path,
            message=f"parent directory does not exist: {loc.path.parent}",
        )
    dry_run = change.dry_run or ws.dry_run
    needs_confirm = access == Access.CONFIRM or change.confirm

    def compute_once() -> tuple[TextFile | None, fsio.FileState | None, str, bytes]:
        current, state = _load_current(engine, loc, change) if loc.exists else (None, None)
        if current is None and change.must_exist:
            raise fail("not_found", change.path, message=f"file not found: {change.path}")
        old_text = current.text if current else None
        new_text = _run_compute(change, old_text, outcome)
        new_text_for_disk = new_text if current is None else normalise_newlines(new_text)
        base = current
        if change.newline is not None and current is None:
            new_text_for_disk = normalise_newlines(new_text).replace("\n", change.newline)
        elif change.newline is not None and current is not None:
            eols = tuple(change.newline if e else "" for e in current.eols)
            base = replace(current, newline=change.newline, eols=eols)
        try:
            data = encode(base, new_text_for_disk, encoding=change.encoding)
        except (TextFileError, LookupError) as exc:
            raise fail("unencodable", change.path, message=str(exc)) from None
        outcome.old_text = old_text
        outcome.new_text = normalise_newlines(new_text)
        return current, state, outcome.new_text, data

    def check_reads(current: TextFile | None) -> None:
        if current is None:
            return
        seen = engine.last_read(loc)
        if change.require_read and seen is None:
            raise fail(
                "not_read", change.path, message=f"file has not been read yet: {change.path}"
            )
        if change.expected_hash is not None and change.expected_hash != current.hash:
            raise fail(
                "stale",
                change.path,
                message=f"file changed since it was read: {change.path}",
                expected_hash=change.expected_hash,
                actual_hash=current.hash,
            )
        if change.check_stale and seen is not None and seen != current.hash:
            raise fail(
                "stale",
                change.path,
                message=f"file was modified since it was last read: {change.path}",
            )

    current, _state, new_text, data = compute_once()
    try:
        check_reads(current)
    except OperationFailed as exc:
        # A concurrent change by the same agent may be between its write and its ledger
        # update; staleness is decided again under the lock (at once when a person would
        # be asked to confirm, or for a dry run).
        if exc.failure.code != "stale" or needs_confirm or dry_run:
            raise
    outcome.created = current is None
    outcome.risk = risk_of(change.operation, current is not None)
    outcome.diff = unified_diff(current.text if current else "", new_text, loc.lexical_rel)
    if outcome.changed_lines is None and current is not None:
        outcome.changed_lines = _changed_lines(current.text, new_text)
    outcome.encoding = current.encoding_label if current else (change.encoding or "utf-8")
    if dry_run:
        outcome.dry_run = True
        outcome.bytes_written = len(data)
        return
    if needs_confirm:
        if ws.confirm is None:
            raise fail(
                "no_confirmation",
                change.path,
                message=f"this change needs the user's confirmation and nobody can be asked: {change.path}",
            )
        request = ConfirmRequest(
            path=str(loc.path),
            operation=change.operation,
            risk=outcome.risk.value,
            diff=outcome.diff,
            toolset=engine.toolset,
            created=outcome.created,
        )
        if not ws.confirm(request):
            raise fail("rejected", change.path, message="the user rejected this change")
    with file_lock(ws.state_dir, str(loc.real)):
        # Re-load under the lock: another process may have changed the file meanwhile.
        confirmed_diff = outcome.diff
        now = _raw_now(engine, loc, change) if _exists(loc) else None
        if now != (current.raw if current else None):
            current, _state, new_text, data = compute_once()
            check_reads(current)
            diff = unified_diff(current.text if current else "", new_text, loc.lexical_rel)
            if needs_confirm and diff != confirmed_diff:
                raise fail(
                    "stale",
                    change.path,
                    message=f"file changed while waiting for confirmation: {change.path}",
                )
            outcome.diff = diff
            outcome.created = current is None
        check_reads(current)  # under the lock, the file and the read ledger agree
        if current is not None and data == current.raw:
            outcome.bytes_written = 0
            outcome.hash = current.hash
            return
        before = current.raw if current else None
        if before is not None and change.sidecar_backup and change.backup:
            outcome.backup = _sidecar_backup(engine, loc, before, change.sidecar_backup)
        digest = content_hash(data)
        # History first (write-ahead): a crash between the two leaves an entry whose change
        # never landed, which undo recognises (the file still holds its "before" bytes);
        # the other order would lose the old bytes and block undo.
        if change.backup:
            ws.history.record(str(loc.real), before, change.operation, digest)
        try:
            fsio.write_atomic(loc, data, create_parents=change.create_parents)
        except BaseException:
            if change.backup:
                ws.history.pop(str(loc.real))
            raise
        outcome.hash = digest
        outcome.bytes_written = len(data)
        # The agent knows what it wrote: keep its ledger fresh where it had read the file
        # (or created it), but never invent a read of a file it has not seen. Still under
        # the lock, so no other change sees the new file with the old ledger entry.
        if before is None or engine.last_read(loc) is not None:
            engine.record_read(loc, digest)


def _exists(loc: Location) -> bool:
    # A path stat, on purpose: beyond PATH_MAX it raises (ENAMETOOLONG), and the change is
    # refused as an I/O error instead of building a tree no ordinary tool can remove.
    return loc.real.exists()


def _raw_now(engine: Engine, loc: Location, change: Change) -> bytes | None:
    """The file's bytes as they are now (None: it does not exist). Compared with what the
    change was computed from; only a difference costs a second decode."""
    try:
        return engine.read_bytes(loc, max_bytes=change.max_bytes).data
    except OperationFailed as exc:
        if exc.failure.code == "not_found":
            return None
        raise


_MAX_NAME_BYTES = 255
_BACKUP_SUFFIX_BYTES = len(".2025-01-12T10-30-00-000Z-9999.backup")


def _backup_base(name: str) -> str:
    """The file name as used in its backups' names: itself, or, when a backup name would
    pass the 255-byte limit, a shortened prefix plus a hash of the whole name."""
    if len(os.fsencode(name)) + _BACKUP_SUFFIX_BYTES <= _MAX_NAME_BYTES:
        return name
    digest = hashlib.sha256(os.fsencode(name)).hexdigest()[:12]
    room = _MAX_NAME_BYTES - _BACKUP_SUFFIX_BYTES - len(digest) - 1
    short = os.fsencode(name)[:room].decode("utf-8", "ignore")
    return f"{short}~{digest}"


def _sidecar_backup(engine: Engine, loc: Location, data: bytes, dirname: str) -> str:
    """Copy the old bytes to <dir>/<dirname>/<name>.<timestamp>.backup; keep the newest N.

    Names that would collide (two backups in one millisecond) get a counter
    (`<timestamp>-1`). Pruning only touches this file's own backups, through a directory
    descriptor, so a planted symlink cannot redirect it.
    """
    parent_rel = loc.rel.rsplit("/", 1)[0] if "/" in loc.rel else ""
    backup_rel = f"{parent_rel}/{dirname}" if parent_rel else dirname
    planted = loc.real.parent / dirname
    if planted.is_symlink() or (os.path.lexists(planted) and not planted.is_dir()):
        what = "a symbolic link" if planted.is_symlink() else "not a directory"
        raise fail(
            "io_error",
            loc.given,
            message=f"cannot keep a backup: {dirname} next to the file is {what} "
            "(remove it); nothing was written",
        )
    stamp = timestamp_for_filename()
    base = _backup_base(loc.real.name)
    pattern = re.compile(
        re.escape(base) + r"\.(\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d-\d{3}Z)(?:-(\d+))?\.backup"
    )
    with fsio.open_dir(loc.root, backup_rel.split("/"), create=True) as dfd:
        existing = set(os.listdir(dfd))
        name, counter = f"{base}.{stamp}.backup", 0
        while name in existing:
            counter += 1
            name = f"{base}.{stamp}-{counter}.backup"
    backup_dir = loc.real.parent / dirname
    target = Location(
        given=f"{backup_rel}/{name}",
        path=backup_dir / name,
        real=backup_dir / name,
        root=loc.root,
        rel=f"{backup_rel}/{name}",
        lexical_rel=f"{backup_rel}/{name}",
        exists=False,
        is_dir=False,
        is_link=False,
    )
    fsio.write_atomic(target, data, create_parents=True)
    keep = engine.workspace.history.keep
    with fsio.open_dir(loc.root, backup_rel.split("/")) as dfd:
        ours = []
        for entry in os.listdir(dfd):
            found = pattern.fullmatch(entry)
            if found:
                ours.append(((found.group(1), int(found.group(2) or 0)), entry))
        ours.sort()
        for _key, entry in ours[:-keep]:
            with contextlib.suppress(OSError):
                os.unlink(entry, dir_fd=dfd)
    return str(backup_dir / name)


def undo(engine: Engine, path: str, *, dry_run: bool = False) -> Outcome:
    """Restore the file's content from before its last recorded change."""
    outcome = Outcome(ok=False)
    try:
        loc, _access = engine.locate(path, purpose="write", expect="file")
        outcome.loc = loc
        ws = engine.workspace
        with file_lock(ws.state_dir, str(loc.real)):
            entries = ws.history.entries(str(loc.real))
            if not entries:
                raise fail("no_history", path, message=f"no recorded change to undo for {path}")
            last = entries[-1]
            current = fsio.read_bytes(loc).data if loc.real.exists() else None
            current_hash = content_hash(current) if current is not None else None
            before = ws.history.before_bytes(str(loc.real), last)
            if current_hash != last.hash_after and current == before:
                # The last change never landed, or an undo of it was cut short (a crash
                # between file and history): it is undone already; only forget it.
                outcome.extra["undone"] = last.to_dict()
                outcome.extra["remaining"] = len(entries) - 1
                if dry_run:
                    outcome.dry_run = True
                else:
                    ws.history.pop(str(loc.real))
                outcome.ok = True
                return outcome
            if current_hash != last.hash_after:
                raise fail(
                    "stale",
                    path,
                    message=f"file changed after its last recorded change; undo would lose that: {path}",
                )
            old_text = current.decode("utf-8", "replace") if current is not None else ""
            new_text = before.decode("utf-8", "replace") if before is not None else ""
            outcome.diff = unified_diff(old_text, new_text, loc.lexical_rel)
            outcome.risk = Risk.HIGH
            outcome.extra["undone"] = last.to_dict()
            if dry_run:
                outcome.dry_run = True
                outcome.ok = True
                return outcome
            if before is None:
                fsio.remove_file(loc)
                engine.record_read(loc, None)
            else:
                fsio.write_atomic(loc, before)
                engine.record_read(loc, content_hash(before))
                outcome.bytes_written = len(before)
            ws.history.pop(str(loc.real))
            outcome.extra["remaining"] = len(entries) - 1
        outcome.ok = True
    except OperationFailed as exc:
        outcome.failure = exc.failure
    except (PathRefused, OSError) as exc:
        outcome.failure = Failure("io_error", path, {"message": str(exc)})
    return outcome
