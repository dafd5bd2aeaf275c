"""Undo of file management: a move goes back (from either end), a delete is restored
(files' bytes and modes, links, directories, whole trees), a mkdir is removed. Called by
`engine.undo` with the path's lock held.

An undo is a change like any other: it first works out its whole effect, locates every
path it touches (`entrysteps.locate_recorded`: by the name history recorded, walked from
the root without following links, judged by the policy; `read`, `deny` or `hidden`
anywhere refuses), and, when any of them needs confirmation, asks once with all of them
listed (`_judge`), before anything is touched."""

from __future__ import annotations

import os
from typing import Any

from filewright.core.result import fail
from filewright.engine.change import Outcome
from filewright.engine.entrysteps import (
    confirm,
    current,
    entry_visible,
    identity,
    locate_recorded,
    locked,
    trash_location,
    tree_access,
)
from filewright.engine.workspace import Engine
from filewright.fs import entries, fsio
from filewright.fs.paths import Location
from filewright.policy.rules import Access, Risk
from filewright.state.index import Entry


def is_file_management(entry: Entry) -> bool:
    """True for entries `undo_entry` reverses (a move, delete or mkdir)."""
    return entry.operation in ("move", "delete", "mkdir")


def undo_entry(
    engine: Engine, loc: Location, access: Access, entry: Entry, outcome: Outcome, dry_run: bool
) -> None:
    """Reverse a move, delete or mkdir recorded at `loc` (its lock held by the caller;
    `access`: the policy's answer for `loc`)."""
    if entry.operation == "mkdir":
        _undo_mkdir(engine, loc, access, entry, outcome, dry_run)
    elif entry.operation == "delete":
        _undo_delete(engine, loc, access, entry, outcome, dry_run)
    else:
        _undo_move(engine, loc, access, entry, outcome, dry_run)


def _judge(
    engine: Engine, loc: Location, accesses: list[Access], outcome: Outcome, dry_run: bool
) -> None:
    """Strictest wins over every path the undo touches (each already located and judged:
    a refusal was raised there): `confirm` on any asks once, the whole effect listed in
    `outcome.diff`. A dry run asks nobody; it stops here."""
    outcome.risk = Risk.HIGH
    if dry_run:
        outcome.dry_run = True
        return
    if Access.CONFIRM in accesses:
        confirm(engine, loc, "undo", outcome.diff, outcome)


def _undo_mkdir(
    engine: Engine, loc: Location, access: Access, entry: Entry, outcome: Outcome, dry_run: bool
) -> None:
    found = [locate_recorded(engine, p, loc.given) for p in reversed(entry.members or [])]
    dirs = [d for d, _a in found] or [current(loc)]
    made = {d.real for d in dirs}
    for d in dirs:
        if d.exists and (not d.is_dir or d.is_link):
            raise fail("stale", loc.given, message=f"{d.path} changed after the mkdir")
        held = [n for n in entries.names(d) if d.real / n not in made] if d.exists else []
        if any(entry_visible(engine, d, n) for n in held):
            raise fail("not_empty", loc.given, message=f"directory is not empty: {d.path}")
        if held:  # only entries the agent cannot see: never "not empty"
            raise fail("protected", loc.given, message=f"protected path: {d.path}")
    outcome.diff = "".join(f"rmdir {d.lexical_rel}\n" for d in dirs if d.exists)
    _judge(engine, loc, [access, *(a for _d, a in found)], outcome, dry_run)
    if dry_run:
        return
    for d in dirs:
        if current(d).exists:
            try:
                entries.remove(d, "dir")
            except OSError as exc:
                raise fail(
                    "not_empty", loc.given, message=f"directory is not empty: {d.path}"
                ) from exc
    engine.workspace.history.pop(str(loc.real))


def _undo_delete(
    engine: Engine, loc: Location, access: Access, entry: Entry, outcome: Outcome, dry_run: bool
) -> None:
    """Restore what a delete removed. An entry still there as it was (a delete cut short
    by a crash, or an undo cut short) is only forgotten; one there but different is
    refused, never replaced."""
    if entry.kind == "tree":
        _undo_tree(engine, loc, access, entry, outcome, dry_run)
        return
    history = engine.workspace.history
    found = [locate_recorded(engine, p, loc.given) for p in entry.members or []]
    members = [m for m, _a in found]
    plan = []
    for item in [loc, *members]:  # parents before children
        last = entry if item is loc else _last(history, item)
        if last is None or last.operation != "delete":
            continue
        plan.append((item, last, _still_there(engine, item, last)))
    outcome.diff = "".join(
        f"restore {item.lexical_rel}\n" for item, _last_entry, there in plan if not there
    )
    _judge(engine, loc, [access, *(a for _m, a in found)], outcome, dry_run)
    if dry_run:
        return
    for item, last, there in plan:
        with locked(engine, item.real, held=loc.real):
            if not there:
                _restore(engine, current(item), last)
            history.pop(str(item.real))


def _undo_tree(
    engine: Engine, loc: Location, access: Access, entry: Entry, outcome: Outcome, dry_run: bool
) -> None:
    """Rename a directory a recursive delete moved into history's trash back into place,
    after judging every entry it holds where it will be. A delete cut short before its
    rename (the directory still there, nothing kept) is only forgotten."""
    history = engine.workspace.history
    kept = current(trash_location(engine, loc, entry.id))
    now = current(loc)
    if not kept.exists:
        if now.is_dir and not now.is_link:  # the delete never landed
            _judge(engine, loc, [access], outcome, dry_run)
            if not dry_run:
                history.pop(str(loc.real))
            return
        raise fail("not_found", loc.given, message=f"the deleted {loc.path} is no longer kept")
    if now.exists or now.is_link:
        raise fail("exists", loc.given, message=f"{loc.path} exists again; undo would replace it")
    if not fsio.parent_exists(loc):
        raise fail(
            "parent_missing",
            loc.given,
            message=f"parent directory does not exist: {loc.path.parent} (undo its delete first)",
        )
    found, tree = tree_access(engine, loc, entries.walk(kept))
    outcome.diff = f"restore {loc.lexical_rel}/\n" + "".join(
        f"restore {loc.lexical_rel}/{item.rel}\n" for item in found[:200]
    )
    if len(found) > 200:
        outcome.diff += f"... and {len(found) - 200} more\n"
    _judge(engine, loc, [access, tree], outcome, dry_run)
    if dry_run:
        return
    entries.rename(kept, current(loc))  # never replaces what may have appeared since
    history.pop(str(loc.real))


def _owner(entry: Entry) -> tuple[int, int] | None:
    """The (uid, gid) history recorded for what undo re-creates (None: not recorded)."""
    return (entry.owner[0], entry.owner[1]) if entry.owner else None


def _last(history: Any, item: Location) -> Entry | None:
    found = history.entries(str(item.real))
    return found[-1] if found else None


def _still_there(engine: Engine, item: Location, entry: Entry) -> bool:
    """True when `item` holds what the delete removed; False when it is gone; refused
    (OperationFailed) when something else is there now."""
    now = current(item)
    if not now.exists and not now.is_link:
        return False
    if entry.entry_type == "dir" and now.is_dir and not now.is_link:
        return True
    if entry.entry_type == "symlink" and now.is_link and os.readlink(now.real) == entry.link:
        return True
    if entry.entry_type == "file" and not now.is_dir and not now.is_link:
        kept = engine.workspace.history.before_bytes(str(item.real), entry)
        if engine.read_bytes(now).data == kept:
            return True
    raise fail("exists", item.given, message=f"{item.path} exists again; undo would replace it")


def _restore(engine: Engine, loc: Location, entry: Entry) -> None:
    if loc.exists and entry.entry_type == "dir" and loc.is_dir:
        return
    if entry.entry_type == "dir":
        entries.make_dir(loc, parents=True)
    elif entry.entry_type == "symlink":
        entries.make_link(loc, entry.link or "")
    else:
        data = engine.workspace.history.before_bytes(str(loc.real), entry) or b""
        fsio.write_atomic(loc, data, mode=entry.mode, owner=_owner(entry), create_parents=True)
        engine.record_read(loc, None)


def _undo_move(
    engine: Engine, loc: Location, access: Access, entry: Entry, outcome: Outcome, dry_run: bool
) -> None:
    """Undo from either end: the file goes back where it was (and a file it replaced
    comes back)."""
    history = engine.workspace.history
    if entry.moved_to is not None:
        src = loc
        dst, other = locate_recorded(engine, entry.moved_to, loc.given)
        dst_entries = history.entries(str(dst.real))
        if not dst_entries or dst_entries[-1].moved_from != str(src.real):
            if current(src).exists and not dry_run:
                # Cut short between the two ends' records: the move never happened.
                history.pop(str(src.real))
                return
            last = dst_entries[-1] if dst_entries else None
            if (
                last is not None
                and last.moved_to == str(src.real)
                and current(dst).exists
                and not dry_run
            ):
                # A later move back (dst -> src) was cut short between its two records (its
                # rename comes after both, so it never landed): forget it, then undo this.
                history.pop(str(dst.real))
                dst_entries = history.entries(str(dst.real))
        if not dst_entries or dst_entries[-1].moved_from != str(src.real):
            raise fail("stale", loc.given, message=f"{dst.path} changed after the move")
        dst_entry = dst_entries[-1]
    else:
        src, other = locate_recorded(engine, entry.moved_from or "", loc.given)
        dst = loc
        dst_entry = entry
    src_now, dst_now = current(src), current(dst)
    # Landed: the source is gone and the destination holds it. Otherwise a crash came
    # between history and rename (or an undo was cut short): only the entries go.
    landed = dst_now.exists and not src_now.exists
    outcome.diff = f"rename from {dst.lexical_rel}\nrename to {src.lexical_rel}\n"
    outcome.extra.update(source=str(dst.path), destination=str(src.path))
    if landed and identity(engine, dst_now) != dst_entry.hash_after:
        raise fail(
            "stale",
            loc.given,
            message=f"{dst.path} changed after the move; undo would lose that",
        )
    if not landed and not src_now.exists:
        raise fail("not_found", loc.given, message=f"neither {src.path} nor {dst.path} holds it")
    accesses = [access, other]
    if landed and dst_now.is_dir:  # every entry of the directory, at both ends
        found, tree = tree_access(engine, dst_now, entries.walk(dst_now), src_now)
        accesses.append(tree)
        outcome.diff += "".join(f"  {src.lexical_rel}/{item.rel}\n" for item in found[:200])
        if len(found) > 200:
            outcome.diff += f"  ... and {len(found) - 200} more\n"
    _judge(engine, loc, accesses, outcome, dry_run)
    if dry_run:
        return
    with locked(engine, src.real, dst.real, held=loc.real):
        if landed:
            entries.rename(dst_now, src_now)
            seen = engine.last_read(dst)
            engine.record_read(dst, None)
            engine.record_read(src, seen)
            before = history.before_bytes(str(dst.real), dst_entry)
            if before is not None:
                fsio.write_atomic(
                    current(dst), before, mode=dst_entry.mode, owner=_owner(dst_entry)
                )
        for end in (src, dst):
            newest = history.entries(str(end.real))
            if newest and newest[-1].operation == "move":
                history.pop(str(end.real))
