"""Line-numbered text as a model sees it: `cat -n` numbering, the toolsets' text
styles and the notices on what a read left out. Pure: a `TextSlice` (or lines) in, text
out; `readers` re-exports these for the toolsets.

`numbered` is the one way a line-numbered text is made (every toolset's Read, view and
snippet numbering goes through it). It puts each line after a cached column of numbers
(the column for the same first line, count and width is made once) and joins them in
one step, instead of formatting each line (issue 32: 40 lines in ~3 µs, was ~15).
"""

from __future__ import annotations

import functools

from filewright.read.textread import CUT_MARKER, DEFAULT_LIMIT, TextSlice, human_size

_COLUMN_CACHED_LINES = 2048
"""Columns of up to this many numbers are kept (the 16 most recently used)."""


@functools.lru_cache(maxsize=16)
def _column(start: int, count: int, width: int) -> tuple[str, ...]:
    return _make_column(start, count, width)


def _make_column(start: int, count: int, width: int) -> tuple[str, ...]:
    """What comes before each of `count` lines numbered from `start`: the number
    right-aligned to `width`, a TAB, and a newline before every number but the first."""
    return (f"{start:>{width}}\t", *[f"\n{n:>{width}}\t" for n in range(start + 1, start + count)])


def numbered(lines: list[str], start: int, width: int) -> str:
    """`cat -n` style: each line after its number (from `start`, right-aligned to
    `width`) and a TAB, joined by newlines; "" for no lines. The same text as
    `"\\n".join(f"{start + i:>{width}}\\t{line}" for i, line in enumerate(lines))`."""
    count = len(lines)
    if not count:
        return ""
    if count <= _COLUMN_CACHED_LINES:
        column = _column(start, count, width)
    else:
        column = _make_column(start, count, width)
    parts: list[str] = [""] * (2 * count)
    parts[0::2] = column
    parts[1::2] = lines
    return "".join(parts)


def format_numbered(s: TextSlice, *, width: int | None = None, empty: str = "(empty file)") -> str:
    """`cat -n` style: right-aligned line number, a TAB, the line.

    `width` None pads to the widest number shown (the claude seed); 6 is `cat -n`.
    An empty file gives `empty`.
    """
    if not s.lines:
        return empty if s.total_lines == 0 else ""
    if width is None:
        width = max(len(str(s.start)), len(str(s.end)))
    return numbered(s.lines, s.start, width)


def format_plain(s: TextSlice) -> str:
    """The lines as they are, without numbers."""
    return "\n".join(s.lines)


def notices(s: TextSlice, *, offset_name: str = "offset", first_line: int = 1) -> list[str]:
    """Bracketed notes on what was left out and how to read it.

    `first_line` is the number the toolset's offset gives the first line (1, or 0 for
    0-based offsets); `offset_name` its parameter name.
    """
    shift = first_line - 1
    out: list[str] = []
    total = "?" if s.total_lines is None else str(s.total_lines)
    if s.from_end:
        out.append(
            f"[Showing the last {len(s.lines)} lines of a {human_size(s.size)} file. Its lines were "
            "not counted (too large to count quickly), so they are numbered from the end: -1 is the "
            "last line.]"
        )
    elif s.tail and s.truncated:
        earlier = max(s.start - DEFAULT_LIMIT, 1)
        out.append(
            f"[Showing the last {len(s.lines)} lines ({s.start}-{s.end} of {total}). To read earlier "
            f"lines use {offset_name}={earlier + shift} and limit={s.start - earlier}.]"
        )
    elif s.truncated:
        nxt = f"Use {offset_name}={s.end + 1 + shift} to read more."
        if s.truncated_by == "budget":
            out.append(
                f"[Output limit of {s.max_output_chars} characters reached: showing lines "
                f"{s.start}-{s.end} of {total}. {nxt}]"
            )
        else:
            out.append(f"[Showing lines {s.start}-{s.end} of {total}. {nxt}]")
    if s.cut_lines:
        listed = ", ".join(str(n) for n in s.cut_lines[:10]) + (
            ", …" if len(s.cut_lines) > 10 else ""
        )
        out.append(
            f"[{len(s.cut_lines)} line(s) longer than {s.max_line_chars} characters were cut "
            f"(marked{CUT_MARKER}): {listed}]"
        )
    if s.lossy:
        out.append(f"[Some bytes are not valid {s.encoding}; they are shown as \ufffd.]")
    return out


def with_notices(body: str, notes: list[str]) -> str:
    """`body`, then a blank line and the notes one per line (just `body` without notes)."""
    if not notes:
        return body
    return (body + "\n\n" if body else "") + "\n".join(notes)


def format_claude(s: TextSlice) -> str:
    """The claude seed's Read: numbers padded to the widest shown, then notices."""
    return with_notices(format_numbered(s), notices(s))


def format_default(s: TextSlice) -> str:
    """The default toolset: numbered lines, then notices."""
    return with_notices(format_numbered(s), notices(s))


def format_gemini(s: TextSlice) -> str:
    """The gemini seed's read_file: plain content, prefixed when anything was left out."""
    body = format_plain(s)
    if not (s.truncated or s.cut_lines):
        return body
    total = "?" if s.total_lines is None else str(s.total_lines)
    return (
        f"[File content truncated: showing lines {s.start}-{s.end} of {total} total lines. "
        f"Use offset/limit parameters to view more.]\n{body}"
    )
