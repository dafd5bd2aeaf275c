"""Visible backups next to a changed file (the claude seed's `.claude-backups/`).

`sidecar_backup` names the backup (`<name>.<timestamp>.backup`, a counter when two fall
in one millisecond, long names shortened with a hash), refuses a backup directory that is
a symlink or not a directory, gives the directory a `.gitignore` holding `*` (so git does
not list it, as pytest does for its cache), lets the caller store the old bytes there, and
drops the file's own oldest backups beyond the history's `keep`.
"""

from __future__ import annotations

import hashlib
import os
import re
import stat
from collections.abc import Callable

from filewright.core.result import fail
from filewright.engine.workspace import Engine
from filewright.fs import entries, fsio
from filewright.fs.paths import Location, PathRefused
from filewright.state.index import timestamp_for_filename

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


def _ignore_in_git(dfd: int) -> None:
    """Keep the backup directory out of `git status`, as pytest does for its cache: a
    `.gitignore` holding `*` (made once; one there already, or a planted link, is left)."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
    try:
        fd = os.open(".gitignore", flags, 0o644, dir_fd=dfd)
    except OSError:
        return
    try:
        os.write(fd, GITIGNORE)
    finally:
        os.close(fd)


GITIGNORE = b"*\n"


def sidecar_backup(
    engine: Engine, loc: Location, dirname: str, store: Callable[[Location, int], None]
) -> str:
    """Keep the old bytes at <dir>/<dirname>/<name>.<timestamp>.backup (`store(target,
    mode)` puts them there: a copy, or a hard link to the old file); keep the newest N.

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
        _ignore_in_git(dfd)
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
    # A copy is never more readable than the file: a 0600 secret's backup is 0600.
    try:
        mode = stat.S_IMODE(fsio.stat_entry(loc).st_mode) & 0o777
    except (OSError, PathRefused):
        mode = 0o600
    store(target, mode)
    keep = engine.workspace.history.keep
    with fsio.open_dir(loc.root, backup_rel.split("/")) as dfd:
        ours = []
        for entry in os.listdir(dfd):
            found = pattern.fullmatch(entry)
            if found:
                ours.append(((found.group(1), int(found.group(2) or 0)), entry))
        ours.sort()
        entries.remove_files_in(dfd, [entry for _key, entry in ours[:-keep]])
    return str(backup_dir / name)
