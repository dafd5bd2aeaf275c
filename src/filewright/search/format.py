"""The texts Gemini CLI's search tools show the model, from search results.

Pure functions of the results: ``format_grep_gemini`` (``search_file_content``),
``format_glob_gemini`` (``glob``) and ``format_list_gemini`` (``list_directory``),
worded as Gemini CLI words them.
"""

from __future__ import annotations

from collections.abc import Callable

from filewright.search.results import GlobResult, GrepResult, ListResult


def format_grep_gemini(
    result: GrepResult, pattern: str, path_display: str, include: str | None = None
) -> str:
    """The text Gemini CLI's ``search_file_content`` shows the model.

    Matching lines are ``L<n>: text``, context lines ``L<n>- text``; a capped result
    says ``(results limited to N matches for performance)``; an error reads
    ``Error during grep search operation: ...``.
    """
    if result.error:
        return f"Error during grep search operation: {result.error}"
    where = f'in path "{path_display}"' + (f' (filter: "{include}")' if include else "")
    if not result.files:
        return f'No matches found for pattern "{pattern}" {where}.'
    term = "match" if result.total_matches == 1 else "matches"
    out = [f'Found {result.total_matches} {term} for pattern "{pattern}" {where}']
    if result.truncated:
        out.append(f" (results limited to {result.total_matches} matches for performance)")
    out.append(":\n---\n")
    for f in result.files:
        out.append(f"File: {f.path}\n")
        for m in f.matches:
            out.append(f"L{m.line}{'-' if m.is_context else ':'} {m.text.rstrip()}\n")
        out.append("---\n")
    return "".join(out).strip()


def format_glob_gemini(
    result: GlobResult,
    pattern: str,
    dir_display: str,
    *,
    render_path: Callable[[str], str] | None = None,
    show_ignored: bool = True,
) -> str:
    """The text Gemini CLI's ``glob`` shows the model.

    ``render_path`` turns each relative path into what the model should see (Gemini
    shows absolute paths); by default the relative path is shown.  A capped result ends
    with a line saying how many of how many files are shown. ``show_ignored=False``
    leaves the count of ignored files out (the seed's header has none).
    """
    ignored = result.ignored_count if show_ignored else 0
    if result.error:
        return f"Error during glob search operation: {result.error}"
    if not result.paths:
        msg = f'No files found matching pattern "{pattern}" within {dir_display}'
        if ignored:
            msg += f" ({ignored} files were ignored)"
        return msg
    render = render_path or (lambda p: p)
    msg = f'Found {result.total} file(s) matching "{pattern}" within {dir_display}'
    if ignored:
        msg += f" ({ignored} additional files were ignored)"
    msg += ", sorted by modification time (newest first):\n"
    msg += "\n".join(render(p) for p in result.paths)
    if result.truncated:
        msg += (
            f"\n(showing the {len(result.paths)} most recently modified of {result.total} "
            "files; use a more specific pattern to see the others)"
        )
    return msg


def format_list_gemini(result: ListResult, dir_display: str, *, show_ignored: bool = True) -> str:
    """The text Gemini CLI's ``list_directory`` shows the model.

    ``[DIR] name`` for directories, bare names for files; ``(N ignored)`` after a blank
    line when ignore files hid entries (unless ``show_ignored=False``: the seed's text has
    no such line); ``Directory X is empty.`` when there is nothing at all.
    """
    if not result.entries and not result.ignored_count:
        return f"Directory {dir_display} is empty."
    body = "\n".join(f"[DIR] {e.name}" if e.is_dir else e.name for e in result.entries)
    msg = f"Directory listing for {dir_display}:\n{body}"
    if result.ignored_count and show_ignored:
        msg += f"\n\n({result.ignored_count} ignored)"
    return msg
