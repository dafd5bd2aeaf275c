"""Finding files and text: grep, glob and list_directory, at ripgrep speed.

The engine resolves the workspace path and the policy, then calls these functions with a
real directory and a ``visible`` callback; nothing here leaves that directory, follows a
symlink, or returns (or reads, in the Python engine) a path the callback refuses.

Two engines give the same results on the same tree:

* ``"rg"`` drives the ripgrep binary (``rg`` on ``PATH``, else the one the ``ripgrep``
  wheel installs next to Python) with JSON output;
* ``"python"`` is a pure-Python walker and matcher (:mod:`filewright.search.python_engine`).

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

import os
import re
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

from filewright.core import regexes
from filewright.fs.fsio import read_to_end
from filewright.policy.gitignore import GlobError, Overrides, PathFilter, root_rules
from filewright.search.anchored import Binary, open_file_at, open_real_dir
from filewright.search.python_engine import LineSearcher, searchable_text, walk_at
from filewright.search.results import (
    GrepResult,
    MatchCollector,
    ProgressCallback,
    RawCollector,
    Visible,
    always_visible,
    existing_dir,
)
from filewright.search.ripgrep import (
    RG_MISSING,
    grep_args,
    has_pcre2,
    is_regex_error,
    pick_engine,
    regex_error_detail,
    run_grep,
)


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
    directory = existing_dir(directory)
    rg = pick_engine(engine)
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

    finder = _compile_python(pattern, case_sensitive, fixed_strings)

    def locate(line: str) -> tuple[int, int] | None:
        assert not isinstance(finder, str)
        found = regexes.search(finder.line_re, line)
        return None if found is None else (found.start(), found.end() - found.start())

    def collector() -> MatchCollector:
        return MatchCollector(
            max_matches=max_matches,
            max_line_chars=max_line_chars,
            context=max(0, context),
            on_progress=progress,
            locate=None if isinstance(finder, str) else locate,
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
    first = collector()
    cap, max_chars = first.max_matches, first.max_line_chars
    try:
        dir_fd = open_real_dir(directory)
    except OSError as exc:
        return None, f"cannot open the directory: {exc.strerror or exc}"
    try:
        # A fast unordered (multi-threaded) run, whose files are then put in path order.
        # If it finds far more matches than the cap, rerun in path order (single-threaded
        # in ripgrep) and stop at the cap, so that the kept matches are the first ones.
        # Each file gives at most cap + 1 matching lines: ripgrep's per-file buffer stays
        # bounded (with --max-columns) however many lines match.
        args = dict(opts, per_file=cap + 1)
        raw = RawCollector(max(4 * cap, 1000), progress, cap)
        out = run_grep(
            rg, directory, grep_args(pattern, sort=False, **args), raw, accept, dir_fd, max_chars
        )
        col = collector()
        if out.error is None and out.completed:
            raw.replay(col)
        elif out.error is None:
            del raw
            out = run_grep(
                rg, directory, grep_args(pattern, sort=True, **args), col, accept, dir_fd, max_chars
            )
    finally:
        os.close(dir_fd)
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
        return path if visible(path, False) else None

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
    searched = 0
    for rel, _ignored, dir_fd, name in walk_at(directory, overrides, rules):
        path = os.fsdecode(rel)
        if not visible(path, False):
            continue
        try:
            fd = open_file_at(dir_fd, name)
        except OSError:
            continue
        try:
            searched += 1
            if progress is not None and searched % 1000 == 0:
                progress(col.total)
            lines = _search_fd(fd, searcher, context, col)
        except regexes.RegexTimeout as exc:
            result = col.result("python", searched)
            result.error = f"Pattern is too slow to search with: {exc}"
            return result
        finally:
            os.close(fd)
        if not lines:
            continue
        col.begin(path)
        if not all(col.line(n, line, is_ctx, more) for n, line, is_ctx, more in lines):
            break
        col.end()
    return col.result("python", searched)


WHOLE_FILE_BYTES = 1 << 20
"""Files up to this size are read whole and searched at once (fast: a file without a
match costs one regex search); larger ones are streamed line by line."""


def _search_fd(
    fd: int, searcher: LineSearcher, context: int, col: MatchCollector
) -> list[tuple[int, str, bool, int]]:
    """The lines of the open file to report (none for a binary file), memory bounded by
    :data:`WHOLE_FILE_BYTES` and the output budget whatever the file."""
    size = os.fstat(fd).st_size
    cap = max(col.max_matches - col.total, 0) + 1
    try:
        if size > WHOLE_FILE_BYTES:
            return searcher.search_stream(fd, context, col.max_line_chars, cap)
        data = read_to_end(fd, WHOLE_FILE_BYTES)
    except (Binary, OSError):
        return []
    if data is None:  # grew past the limit since the fstat
        os.lseek(fd, 0, os.SEEK_SET)
        try:
            return searcher.search_stream(fd, context, col.max_line_chars, cap)
        except (Binary, OSError):
            return []
    text = searchable_text(data)
    if text is None:
        return []
    return [(n, line, ctx, 0) for n, line, ctx in searcher.search(text, context, cap)]
