"""Finding files and text: grep, glob and list_directory, at ripgrep speed.

The engine resolves the workspace path and the policy, then calls these functions with a
real directory and a ``visible`` callback; nothing here leaves that directory, follows a
symlink, or returns (or reads, in the Python engine) a path the callback refuses.

Two engines give the same results on the same tree:

* ``"rg"`` drives the ripgrep binary (``rg`` on ``PATH``, else the one the ``ripgrep``
  wheel installs next to Python) with JSON output;
* ``"python"`` is a pure-Python walker and matcher (:mod:`filewright.search_py`).

``"auto"`` (the default) uses ripgrep when it is available.

Decisions, shared by both engines:

* **Which files**: regular files only (symlinks are neither followed nor reported),
  hidden files included (hiding is the policy's job), ``.git`` never searched.  With
  ``respect_gitignore`` the ``.gitignore``, ``.ignore`` and ``.rgignore`` files of the
  searched directory and its subdirectories apply, with git's syntax and ripgrep's
  precedence, whether or not the tree is a git repository.  The global gitignore and
  ``.git/info/exclude`` are not read; ignore files above the searched directory apply
  only when the caller passes ``ignore_root`` (the workspace root).
* **Order**: grep reports files in path order (ripgrep's ``--sort path``: directory by
  directory, names compared as bytes); when matches exceed ``max_matches`` the first
  ones in that order are kept, so results are deterministic.
* **Regex dialect**: ripgrep's (Rust ``regex``) in the rg engine, Python's :mod:`re`
  in the fallback.  Literal text, classes, ``\\d \\w \\s \\b``, anchors (``^``/``$`` at
  line ends), groups, alternation, repetition and inline flags behave alike.
  Look-around and backreferences are not in Rust's dialect: for such a pattern the rg
  engine reruns ripgrep with ``--pcre2`` when the binary has PCRE2 (the ``ripgrep``
  wheel does not); otherwise ``engine="auto"`` runs it on the Python engine and
  ``engine="rg"`` reports it as an invalid regular expression.  ``\\p{Greek}``-style classes, ``\\z``
  and POSIX classes exist only in ripgrep's.  A line is matched without its ``\\n``
  (so ``\\n`` never matches, and a ``\\r`` before it stays part of the line).
* **Binary files** (a NUL byte anywhere) are skipped; UTF-16 files with a BOM are
  searched as text; bytes that are not UTF-8 are shown as U+FFFD.
* **glob** patterns use Gemini CLI's semantics: the pattern matches the whole path
  relative to the searched directory, so ``*.md`` finds Markdown files at the top level
  only and ``**/*.md`` at any depth; ``*`` and ``?`` stop at ``/``; ``{a,b}``, ``[a-z]``
  and ``\\`` escapes work; dotfiles match ``*``.  Case-insensitive by default (ASCII
  letters).  A pattern naming an existing file is taken literally (for names such as
  ``[id].tsx``).  ``.git`` and ``node_modules`` are always skipped.  Newest modification
  first, ties in path order.
* **list_directory** sorts directories first, then files, each by case-insensitive
  name.  A symlink is listed (marked ``is_symlink``) but only counts as a directory when
  it resolves to a directory inside ``symlink_root`` (default: the listed directory).
"""

from __future__ import annotations

import itertools
import os
import re
import subprocess
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

from filewright import regexes
from filewright.gitignore import GlobError, Overrides, PathFilter, Verdict, root_rules
from filewright.globs import compile_glob
from filewright.search_format import format_glob_gemini, format_grep_gemini, format_list_gemini
from filewright.search_list import list_directory
from filewright.search_py import LineSearcher, read_file, searchable_text, walk
from filewright.search_rg import (
    cores,
    files_args,
    find_rg,
    grep_args,
    has_pcre2,
    is_regex_error,
    iter_path_batches,
    regex_error_detail,
    run_grep,
    shrink_pipe,
    start_files,
)
from filewright.search_types import (
    Entry,
    FileMatches,
    GlobResult,
    GrepResult,
    LineMatch,
    ListResult,
    MatchCollector,
    ProgressCallback,
    RawCollector,
    Visible,
    always_visible,
    sort_key,
)

__all__ = [
    "Entry",
    "FileMatches",
    "GlobResult",
    "GrepResult",
    "LineMatch",
    "ListResult",
    "Visible",
    "find_rg",
    "format_glob_gemini",
    "format_grep_gemini",
    "format_list_gemini",
    "glob",
    "grep",
    "list_directory",
]

ENGINES = ("auto", "rg", "python")
GLOB_EXCLUDES = ("!.git", "!node_modules")
DEFAULT_MAX_GLOB_RESULTS = 1000
RG_MISSING = "ripgrep (rg) is not available; use engine='python' or 'auto'"


def _existing_dir(directory: Path | str) -> Path:
    directory = Path(directory)
    if not directory.is_dir():
        raise NotADirectoryError(f"not a directory: {directory}")
    return directory


def _pick_engine(engine: str) -> str | None:
    """The rg binary to use, or ``None`` for the Python engine."""
    if engine not in ENGINES:
        raise ValueError(f"engine must be one of {ENGINES}, not {engine!r}")
    return None if engine == "python" else find_rg()


def _compile_python(pattern: str, case_sensitive: bool, fixed_strings: bool) -> LineSearcher | str:
    """A compiled searcher, or the error text for an invalid pattern."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return LineSearcher(pattern, case_sensitive=case_sensitive, fixed_strings=fixed_strings)
    except (re.error, OverflowError, RecursionError) as exc:
        return f'Invalid regular expression "{pattern}": {exc}'


def _monotonic(cb: ProgressCallback | None) -> ProgressCallback | None:
    if cb is None:
        return None
    best = [-1]

    def report(n: int) -> None:
        if n > best[0]:
            best[0] = n
            cb(n)

    return report


# ------------------------------------------------------------------------------ grep


def grep(
    directory: Path,
    pattern: str,
    *,
    include: str | None = None,
    case_sensitive: bool = True,
    fixed_strings: bool = False,
    context: int = 0,
    max_matches: int = 2000,
    max_line_chars: int = 500,
    respect_gitignore: bool = True,
    visible: Visible = always_visible,
    engine: str = "auto",
    on_progress: ProgressCallback | None = None,
    ignore_root: Path | None = None,
) -> GrepResult:
    """Search the files under ``directory`` for lines matching ``pattern``.

    ``include`` is a glob filtering the files (ripgrep ``--glob`` syntax: ``*.ts``
    matches at any depth, ``src/**/*.ts`` from the directory).  ``context`` adds that
    many lines before and after each match.  At most ``max_matches`` matching lines are
    returned (``truncated`` says when more existed); lines longer than
    ``max_line_chars`` are cut.  ``on_progress`` receives the number of matching lines
    found so far, now and then.  An invalid pattern or include glob gives a result with
    ``error`` set.  See the module docstring for the engines and the regex dialect.
    """
    directory = _existing_dir(directory)
    rg = _pick_engine(engine)
    if engine == "rg" and rg is None:
        return GrepResult([], 0, False, "rg", error=RG_MISSING)
    if include:
        try:
            Overrides([(include, False)])
        except GlobError as exc:
            return GrepResult([], 0, False, "rg" if rg else "python", error=str(exc))
    progress = _monotonic(on_progress)
    opts: dict[str, Any] = dict(
        include=include or None,
        case_sensitive=case_sensitive,
        fixed_strings=fixed_strings,
        context=max(0, context),
        respect_gitignore=respect_gitignore,
    )

    def collector() -> MatchCollector:
        return MatchCollector(
            max_matches=max_matches,
            max_line_chars=max_line_chars,
            context=max(0, context),
            on_progress=progress,
        )

    if rg is not None:
        accept = _acceptor(directory, visible, respect_gitignore, include, ignore_root)
        found, error = _grep_rg(rg, directory, pattern, opts, collector, accept, progress)
        if error is not None and is_regex_error(error) and has_pcre2(rg):
            # Look-around or backreferences: ripgrep's PCRE2 engine has them.
            found, error = _grep_rg(
                rg, directory, pattern, {**opts, "pcre2": True}, collector, accept, progress
            )
        if found is not None:
            return found
        assert error is not None
        if not is_regex_error(error):
            # ripgrep refused to run (an rg on PATH too old for a flag, say): "auto"
            # falls back to the Python engine.
            if engine == "rg":
                return GrepResult([], 0, False, "rg", error=f"ripgrep failed: {error}")
        elif engine == "rg" or isinstance(
            _compile_python(pattern, case_sensitive, fixed_strings), str
        ):
            detail = regex_error_detail(error)
            return GrepResult(
                [], 0, False, "rg", error=f'Invalid regular expression "{pattern}": {detail}'
            )
    searcher = _compile_python(pattern, case_sensitive, fixed_strings)
    if isinstance(searcher, str):
        return GrepResult([], 0, False, "python", error=searcher)
    return _grep_python(directory, searcher, collector(), visible, ignore_root, progress, **opts)


def _grep_rg(
    rg: str,
    directory: Path,
    pattern: str,
    opts: dict[str, Any],
    collector: Callable[[], MatchCollector],
    accept: Callable[[bytes], str | None],
    progress: ProgressCallback | None,
) -> tuple[GrepResult | None, str | None]:
    """One grep with ripgrep: the result, or ripgrep's error message."""
    cap = collector().max_matches
    # A fast unordered (multi-threaded) run, whose files are then put in path order.
    # If it finds far more matches than the cap, rerun in path order (single-threaded in
    # ripgrep) and stop at the cap, so that the kept matches are the first ones.
    raw = RawCollector(max(4 * cap, 1000), progress, cap)
    out = run_grep(rg, directory, grep_args(pattern, sort=False, **opts), raw, accept)
    col = collector()
    if out.error is None and out.completed:
        raw.replay(col)
    elif out.error is None:
        del raw
        out = run_grep(rg, directory, grep_args(pattern, sort=True, **opts), col, accept)
    if out.error is not None:
        return None, out.error
    return col.result("rg", None), None


def _acceptor(
    directory: Path,
    visible: Visible,
    respect_gitignore: bool,
    include: str | None,
    ignore_root: Path | None,
) -> Callable[[bytes], str | None]:
    """Decide, for each path ripgrep reports, the display path or ``None`` to drop it.

    ripgrep lets an including ``--glob`` override ignore files, and does not read ignore
    files above the directory; both are re-checked here when they can matter.
    """
    filt = (
        PathFilter(directory, ignore_root)
        if respect_gitignore and (include or ignore_root is not None)
        else None
    )

    def accept(rel: bytes) -> str | None:
        if filt is not None and filt.is_ignored(rel):
            return None
        path = os.fsdecode(rel)
        return path if visible(path) else None

    return accept


def _grep_python(
    directory: Path,
    searcher: LineSearcher,
    col: MatchCollector,
    visible: Visible,
    ignore_root: Path | None,
    progress: ProgressCallback | None,
    *,
    include: str | None,
    case_sensitive: bool,
    fixed_strings: bool,
    context: int,
    respect_gitignore: bool,
) -> GrepResult:
    overrides = Overrides([*([(include, False)] if include else []), ("!.git", False)])
    rules = root_rules(directory, ignore_root) if respect_gitignore else None
    base = os.fsencode(directory) + b"/"
    searched = 0
    for rel, _ignored in walk(directory, overrides, rules):
        path = os.fsdecode(rel)
        if not visible(path):
            continue
        data = read_file(base + rel)
        if data is None:
            continue
        searched += 1
        if progress is not None and searched % 1000 == 0:
            progress(col.total)
        text = searchable_text(data)
        if text is None:
            continue
        try:
            lines = searcher.search(text, context)
        except regexes.RegexTimeout as exc:
            result = col.result("python", searched)
            result.error = f"Pattern is too slow to search with: {exc}"
            return result
        if not lines:
            continue
        col.begin(path)
        if not all(col.line(n, line, is_ctx) for n, line, is_ctx in lines):
            break
        col.end()
    return col.result("python", searched)


# ------------------------------------------------------------------------------ glob


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
    directory = _existing_dir(directory)
    rg = _pick_engine(engine)
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
        )
        if found is None:  # ripgrep refused to run
            if engine == "rg":
                return GlobResult([], False, 0, 0, "rg", error="ripgrep failed")
            name = "python"
    items, ignored = found or _glob_python(
        directory, overrides, respect_gitignore, count, visible, ignore_root
    )
    items.sort()
    cap = max(0, max_results)
    decode = _utf8 if found else os.fsdecode
    return GlobResult(
        # Only the paths shown are turned back from sort keys into text.
        paths=[decode(key[_MTIME_BYTES:].replace(b"\0", b"/")) for key in items[:cap]],
        truncated=len(items) > cap,
        total=len(items),
        ignored_count=ignored,
        engine=name,
    )


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
) -> tuple[list[bytes], int] | None:
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
    split = _split_walk(
        directory, overrides, filt, rg_ignores, _leading_dirs(anchored, case_sensitive)
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
    ignored = 0
    seen = 0
    everyone = visible is always_visible
    lstat = os.lstat
    append = items.append
    top, width = _MTIME_TOP, _MTIME_BYTES
    dfd = os.open(directory, os.O_RDONLY)
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
        batches = iter_path_batches(*(p.stdout for p in procs))  # type: ignore[misc]
        first = [rel for rel in loose if overrides.match(rel, False) is not Verdict.EXCLUDE]
        for batch in itertools.chain((first,), batches):
            seen += len(batch)
            if filt is not None:
                batch, hidden = filt.split_files(batch)
                if count:
                    ignored += len(hidden) if everyone else sum(visible(_utf8(r)) for r in hidden)
            for rel in batch:
                if not (everyone or visible(_utf8(rel))):
                    continue
                try:
                    st = lstat(rel, dir_fd=dfd)
                except OSError:
                    continue
                # (_mtime_key, inlined)
                append((top - st.st_mtime_ns).to_bytes(width, "big") + rel.replace(b"/", b"\0"))
    finally:
        os.close(dfd)
        rcs = _reap(procs)
    if 2 in rcs and seen == len(first):
        return None  # ripgrep refused to run
    return items, ignored


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


def _leading_dirs(anchored: str, case_sensitive: bool) -> list[re.Pattern[bytes]]:
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


def _split_walk(
    directory: Path,
    overrides: Overrides,
    filt: PathFilter | None,
    rg_ignores: bool,
    leading: list[re.Pattern[bytes]] | None = None,
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
    (``leading``: see :func:`_leading_dirs`) and, when ripgrep prunes, ignored ones are
    not handed out.
    """
    n = min(cores(), SPLIT_MAX_PROCESSES)
    if n < 2 or os.name != "posix":  # (several pipes are read with select())
        return None
    root = os.fsencode(directory)
    leading = leading or []
    level = [b""]
    loose: list[bytes] = []
    scanned = 0
    for depth in range(SPLIT_MAX_DEPTH):
        if len(level) >= 4 * n and depth >= len(leading):
            break
        deeper: list[bytes] = []
        met: list[bytes] = []
        must = leading[depth] if depth < len(leading) else None
        for d in level:
            try:
                with os.scandir(root + b"/" + d if d else root) as it:
                    entries = list(it)
                scanned += len(entries)
                if scanned > SPLIT_MAX_ENTRIES:
                    return None
                for e in entries:
                    rel = d + b"/" + e.name if d else e.name
                    if e.is_dir(follow_symlinks=False):
                        if (
                            (must is not None and must.match(e.name) is None)
                            or overrides.match(rel, True) is Verdict.EXCLUDE
                            or (rg_ignores and filt is not None and filt.is_ignored(rel, True))
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
) -> tuple[list[bytes], int]:
    rules = root_rules(directory, ignore_root) if respect_gitignore else None
    items: list[bytes] = []
    ignored = 0
    dfd = os.open(directory, os.O_RDONLY)
    try:
        for rel, is_ignored in walk(directory, overrides, rules, with_ignored=count):
            path = os.fsdecode(rel)
            if not visible(path):
                continue
            if is_ignored:
                ignored += 1
                continue
            try:
                st = os.stat(rel, dir_fd=dfd, follow_symlinks=False)
            except OSError:
                continue
            items.append(_mtime_key(st.st_mtime_ns) + sort_key(rel))
    finally:
        os.close(dfd)
    return items, ignored
