"""glob: files by pattern under a directory, newest first (see `filewright.search.grep`).

With ripgrep, several single-threaded ripgreps walk disjoint parts of the tree
(directories found breadth first, dealt out), read first-come through small pipes,
while Python stats each match for the sort; the Python engine walks the tree itself.
"""

from __future__ import annotations

import itertools
import os
import re
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any, cast

from filewright.policy.gitignore import GlobError, Overrides, PathFilter, Verdict, root_rules
from filewright.policy.globs import compile_glob
from filewright.search.anchored import Below, open_below, open_real_dir
from filewright.search.python_engine import walk
from filewright.search.results import (
    GlobResult,
    Visible,
    always_visible,
    existing_dir,
    sort_key,
    visible_files,
)
from filewright.search.ripgrep import (
    RG_MISSING,
    cores,
    files_args,
    iter_path_batches,
    pick_engine,
    shrink_pipe,
    start_files,
)

GLOB_EXCLUDES = ("!.git", "!node_modules")
DEFAULT_MAX_GLOB_RESULTS = 1000


def _anchor(directory: Path, pattern: str) -> str:
    """The override glob for a glob-tool pattern: anchored at ``directory``."""
    if os.path.isabs(pattern):
        prefix = str(directory).rstrip("/") + "/"
        if pattern.startswith(prefix):
            pattern = pattern[len(prefix) :]
    while pattern.startswith("./"):
        pattern = pattern[2:]
    literal = directory / pattern
    try:
        if pattern and literal.is_file() and not literal.is_symlink():
            pattern = re.sub(r"([\\*?\[\]{}])", r"\\\1", pattern)
            if pattern.endswith(" "):
                pattern = pattern[:-1] + "\\ "
    except (OSError, ValueError):
        pass
    return "/" + pattern.lstrip("/")


def glob(
    directory: Path,
    pattern: str,
    *,
    case_sensitive: bool = False,
    respect_gitignore: bool = True,
    max_results: int = DEFAULT_MAX_GLOB_RESULTS,
    visible: Visible = always_visible,
    engine: str = "auto",
    count_ignored: bool = True,
    ignore_root: Path | None = None,
) -> GlobResult:
    """Find the files under ``directory`` whose relative path matches ``pattern``.

    Newest modification time first (ties in path order), at most ``max_results``
    (``truncated`` and ``total`` say how many matched).  ``ignored_count`` tells how many
    more files match but are hidden by ignore files (computing it means walking the
    ignored directories too; pass ``count_ignored=False`` to skip them).  An invalid
    pattern gives a result with ``error`` set.  Semantics: module docstring.
    """
    directory = existing_dir(directory)
    rg = pick_engine(engine)
    name = "rg" if rg else "python"
    if engine == "rg" and rg is None:
        return GlobResult([], False, 0, 0, "rg", error=RG_MISSING)
    if not pattern.strip():
        return GlobResult([], False, 0, 0, name, error="The pattern cannot be empty.")
    anchored = _anchor(directory, pattern)
    try:
        overrides = Overrides([(anchored, not case_sensitive), *((g, True) for g in GLOB_EXCLUDES)])
    except GlobError as exc:
        return GlobResult([], False, 0, 0, name, error=str(exc))
    count = count_ignored and respect_gitignore
    found = None
    if rg is not None:
        found = _glob_rg(
            rg,
            directory,
            anchored,
            overrides,
            case_sensitive,
            respect_gitignore,
            count,
            visible,
            ignore_root,
            max(0, max_results),
        )
        if found is None:  # ripgrep refused to run
            if engine == "rg":
                return GlobResult([], False, 0, 0, "rg", error="ripgrep failed")
            name = "python"
    cap = max(0, max_results)
    items, total, ignored = found or _glob_python(
        directory, overrides, respect_gitignore, count, visible, ignore_root, cap
    )
    items.sort()
    decode = _utf8 if found else os.fsdecode
    return GlobResult(
        # Only the paths shown are turned back from sort keys into text.
        paths=[decode(rel) for rel in _still_inside(directory, items, cap)],
        truncated=total > cap,
        total=total,
        ignored_count=ignored,
        engine=name,
    )


def _still_inside(directory: Path, items: list[bytes], cap: int) -> list[bytes]:
    """The first ``cap`` matches (as relative paths) that are, now, regular files reached
    from the directory without following a link: a walker that went through a
    directory swapped for a symlink mid-walk named files that are not there."""
    try:
        dir_fd = open_real_dir(directory)
    except OSError:
        return []
    out: list[bytes] = []
    try:
        with Below(dir_fd) as below:
            for key in items:
                if len(out) >= cap:
                    break
                rel = key[_MTIME_BYTES:].replace(b"\0", b"/")
                if below.regular(rel) is not None:
                    out.append(rel)
    finally:
        os.close(dir_fd)
    return out


# A glob match as one sortable bytes string: newest first, then in path order.  (Bytes
# compare faster than (-mtime, path) tuples; 12 bytes hold any nanosecond timestamp.)
_MTIME_BYTES = 12
_MTIME_TOP = 1 << (8 * _MTIME_BYTES - 2)


def _mtime_key(mtime_ns: int) -> bytes:
    return (_MTIME_TOP - mtime_ns).to_bytes(_MTIME_BYTES, "big")


def _utf8(rel: bytes) -> str:
    return rel.decode("utf-8", "surrogateescape")


def _glob_rg(
    rg: str,
    directory: Path,
    anchored: str,
    overrides: Overrides,
    case_sensitive: bool,
    respect_gitignore: bool,
    count: bool,
    visible: Visible,
    ignore_root: Path | None,
    cap: int,
) -> tuple[list[bytes], int, int] | None:
    """Matching files (and the ignored count) from ``rg --files``; ``None`` if rg failed.

    Every match costs a ``stat`` here (for the sort by modification time), which is as
    much work per path as ripgrep's whole walk: the paths are handled as ripgrep prints
    them, with as little Python per path as possible (no ``str`` until a path must be
    shown or checked), while single-threaded ripgreps walk parts of the tree at once
    (see :func:`_split_walk`).
    """
    filt = PathFilter(directory, ignore_root) if respect_gitignore else None
    # Counting ignored files needs the ignored directories walked too: then walks that
    # ignore nothing, classified here.  Otherwise ripgrep prunes ignored directories
    # itself, and the files an including --glob let through (ripgrep ranks it above
    # ignore files) are re-checked here.
    rg_ignores = respect_gitignore and not count
    split = split_walk(
        directory,
        overrides,
        filt,
        rg_ignores,
        leading_dirs(anchored, case_sensitive),
        getattr(visible, "hidden_below", None),
    )
    common: dict[str, Any] = dict(
        case_sensitive=case_sensitive, respect_gitignore=rg_ignores, excludes=GLOB_EXCLUDES
    )
    if split is None:
        argvs = [files_args(anchored, **common)]
        loose: list[bytes] = []
    else:
        parts, loose = split
        argvs = [files_args(anchored, threads=1, paths=part, **common) for part in parts]
    items: list[bytes] = []
    total = 0
    ignored = 0
    seen = 0
    everyone = visible is always_visible
    lstat = os.lstat
    append = items.append
    keep_at_most = max(KEEP_AT_MOST, 2 * cap)
    top, width = _MTIME_TOP, _MTIME_BYTES
    dfd = open_real_dir(directory)
    procs: list[subprocess.Popen[bytes]] = []
    try:
        for args in argvs:
            proc = start_files(rg, directory, args)
            if proc is None:
                return None
            if len(argvs) > 1:
                shrink_pipe(proc)
            procs.append(proc)
        # The files met on the way to the split directories first (matched here, as
        # ripgrep would), then ripgrep's.
        batches = iter_path_batches(*(cast(IO[bytes], p.stdout) for p in procs))
        first = [rel for rel in loose if overrides.match(rel, False) is not Verdict.EXCLUDE]
        for batch in itertools.chain((first,), batches):
            seen += len(batch)
            if filt is not None:
                batch, hidden = filt.split_files(batch)
                if count:
                    ignored += len(hidden) if everyone else len(visible_files(visible, hidden))
            if not everyone:
                batch = visible_files(visible, batch)
            for rel in batch:
                try:
                    st = lstat(rel, dir_fd=dfd)
                except OSError:
                    continue
                # (_mtime_key, inlined)
                append((top - st.st_mtime_ns).to_bytes(width, "big") + rel.replace(b"/", b"\0"))
            if len(items) > keep_at_most:
                total += _keep_first(items, cap)
    finally:
        os.close(dfd)
        rcs = _reap(procs)
    if 2 in rcs and seen == len(first):
        return None  # ripgrep refused to run
    return items, total + len(items), ignored


KEEP_AT_MOST = 65536
"""Sort keys held at most (beyond the ``cap`` shown) before the surplus is dropped: a
glob over a million files holds the first ones, not a million keys."""


def _keep_first(items: list[bytes], cap: int) -> int:
    """Keep the ``cap`` first of ``items`` (in sort order); how many were dropped."""
    items.sort()
    dropped = len(items) - cap
    del items[cap:]
    return dropped


def _reap(procs: list[subprocess.Popen[bytes]]) -> list[int]:
    """Stop (if still running) and wait for ripgreps; their exit codes."""
    for proc in procs:
        if proc.poll() is None:
            proc.kill()
        if proc.stdout is not None:
            proc.stdout.close()
    return [proc.wait() for proc in procs]


SPLIT_MAX_PROCESSES = 4
SPLIT_MAX_ENTRIES = 20_000
SPLIT_MAX_DEPTH = 3


def leading_dirs(anchored: str, case_sensitive: bool) -> list[re.Pattern[bytes]]:
    """Regexes for the directories a match must start with: the glob's leading
    components up to the first ``**`` (or class, alternation or escape, to keep it
    simple), not counting the last (which names the file).  ``src/pkg0*/**/*.md`` gives
    ``src`` and ``pkg0*``: nothing outside ``src/pkg0*`` can match."""
    out = []
    for comp in anchored.lstrip("/").split("/")[:-1]:
        if not comp or "**" in comp or any(c in comp for c in "[]{}\\"):
            break
        out.append(compile_glob(comp, case_insensitive=not case_sensitive))
    return out


def split_walk(
    directory: Path,
    overrides: Overrides,
    filt: PathFilter | None,
    rg_ignores: bool,
    leading: list[re.Pattern[bytes]] | None = None,
    hidden_below: Callable[[bytes], bool] | None = None,
) -> tuple[list[list[bytes]], list[bytes]] | None:
    """Disjoint sets of directories for single-threaded ripgreps to walk at once, and
    the files met on the way to them; ``None`` when one ripgrep should walk it all.

    On a small machine several ``rg -j1`` over parts of a tree finish sooner and use
    less CPU than one ripgrep's own parallel walk (2 cores, 105,000 files: 48 ms and
    90 ms of CPU against 65 ms and 118 ms), which leaves more for the ``stat`` calls here.
    Directories are listed breadth first (at most :data:`SPLIT_MAX_DEPTH` levels and
    :data:`SPLIT_MAX_ENTRIES` entries) until there are 4 per process; they are dealt out
    in name order.

    Each part is given to ripgrep as paths, so ripgrep does not read the ignore files of
    the directories above them.  That changes nothing when ripgrep ignores nothing
    (counting ignored files, or ``respect_gitignore=False``); when it prunes, it still
    lists a superset of the right files (re-checked here) provided no ``!`` line there
    outranks a deeper ignore file (see :attr:`DirRules.whitelists_over_deeper`);
    otherwise: ``None``.  Directories excluded by the glob, those no match can be in
    (``leading``: see :func:`_leading_dirs`), those whose whole subtree the listing
    keeps out whatever the policy says (``hidden_below``: the state directory) and, when
    ripgrep prunes, ignored ones are not handed out.
    """
    n = min(cores(), SPLIT_MAX_PROCESSES)
    if n < 2 or os.name != "posix":  # (several pipes are read with select())
        return None
    leading = leading or []
    level = [b""]
    loose: list[bytes] = []
    scanned = 0
    try:  # (listed by descriptors, as every walk: a directory swapped for a link is not)
        top = open_real_dir(directory)
    except OSError:
        return None
    try:
        return _split(
            top, n, overrides, filt, rg_ignores, leading, hidden_below, level, loose, scanned
        )
    finally:
        os.close(top)


def _split(
    top: int,
    n: int,
    overrides: Overrides,
    filt: PathFilter | None,
    rg_ignores: bool,
    leading: list[re.Pattern[bytes]],
    hidden_below: Callable[[bytes], bool] | None,
    level: list[bytes],
    loose: list[bytes],
    scanned: int,
) -> tuple[list[list[bytes]], list[bytes]] | None:
    for depth in range(SPLIT_MAX_DEPTH):
        if len(level) >= 4 * n and depth >= len(leading):
            break
        deeper: list[bytes] = []
        met: list[bytes] = []
        must = leading[depth] if depth < len(leading) else None
        for d in level:
            try:
                fd = open_below(top, d, want_dir=True) if d else os.dup(top)
                try:
                    with os.scandir(fd) as it:
                        entries = list(it)
                finally:
                    os.close(fd)
                scanned += len(entries)
                if scanned > SPLIT_MAX_ENTRIES:
                    return None
                for e in entries:
                    name = os.fsencode(e.name)
                    rel = d + b"/" + name if d else name
                    if e.is_dir(follow_symlinks=False):
                        if (
                            (must is not None and must.match(name) is None)
                            or overrides.match(rel, True) is Verdict.EXCLUDE
                            or (rg_ignores and filt is not None and filt.is_ignored(rel, True))
                            or (hidden_below is not None and hidden_below(rel))
                        ):
                            continue
                        deeper.append(rel)
                    elif e.is_file(follow_symlinks=False):
                        met.append(rel)
            except OSError:
                return None
        if level != [b""] and len(deeper) <= len(level) and must is None:
            break  # no more directories one level down: these will do
        if rg_ignores and filt is not None:
            for d in level:  # the ignore files ripgrep will not see
                rules = filt.rules(d)
                if rules is None or rules.whitelists_over_deeper:
                    return None
        level = deeper
        loose += met
    level.sort()
    n = min(n, len(level))  # (none: the files met on the way are all there is)
    return [level[i::n] for i in range(n)], loose


def _glob_python(
    directory: Path,
    overrides: Overrides,
    respect_gitignore: bool,
    count: bool,
    visible: Visible,
    ignore_root: Path | None,
    cap: int,
) -> tuple[list[bytes], int, int]:
    rules = root_rules(directory, ignore_root) if respect_gitignore else None
    items: list[bytes] = []
    total = 0
    keep_at_most = max(KEEP_AT_MOST, 2 * cap)
    ignored = 0
    dfd = open_real_dir(directory)
    try:
        for rel, is_ignored in walk(directory, overrides, rules, with_ignored=count):
            path = os.fsdecode(rel)
            if not visible(path, False):
                continue
            if is_ignored:
                ignored += 1
                continue
            try:
                st = os.stat(rel, dir_fd=dfd, follow_symlinks=False)
            except OSError:
                continue
            items.append(_mtime_key(st.st_mtime_ns) + sort_key(rel))
            if len(items) > keep_at_most:
                total += _keep_first(items, cap)
    finally:
        os.close(dfd)
    return items, total + len(items), ignored
