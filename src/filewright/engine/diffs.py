"""The diffs a change shows: unified diffs of two texts, built under a size budget.

A diff costs what its texts cost, not more: the unchanged head and tail are found by a
prefix/suffix scan of the two texts (compared in blocks, no list of lines), only the lines
between them (with their context) are diffed, and when those are large the one hunk they
make is written line by line until the diff reaches its limit (`MAX_DIFF_DATA`), then cut
with the note `clip_diff` writes. A 60 MB write costs a few megabytes of diff, not
gigabytes. `changed_lines` comes from the same scan. A small change of one block (say,
one line of a file) gets difflib's opcodes without difflib's matcher
(`one_block_opcodes`), and so does a change of any number of places between lines that
each occur once (`unique_lines_opcodes`): the same diff, byte for byte."""

from __future__ import annotations

import difflib
import re
from collections import Counter
from collections.abc import Iterable
from typing import Any

from filewright.engine.change import (
    CLIPPED_NOTE,
    MAX_DIFF_DATA,
    MAX_DIFF_TEXT,
    clip_diff,
    is_clipped,
)

__all__ = [
    "MAX_DIFF_DATA",
    "MAX_DIFF_TEXT",
    "changed_lines",
    "clip_diff",
    "is_clipped",
    "unified_diff",
]


SMALL_TEXTS = 1 << 20
"""Texts up to this size (together) are diffed whole, as difflib does; larger ones by
their changed region, under the budget."""


_HUNK = re.compile(r"([-+])(\d+)")


def unified_diff(
    old: str,
    new: str,
    path: str,
    context: int = 3,
    first_line: int = 1,
    limit: int = MAX_DIFF_DATA,
) -> str:
    """A unified diff of two texts ("\\n" newlines); `first_line`: the line number of their
    first line in the file (when they are an excerpt of it). Large texts get a diff of
    their changed region, cut at about `limit` characters (`is_clipped`)."""
    if len(old) + len(new) <= SMALL_TEXTS:
        return _difflib(old, new, path, context, first_line)
    if old == new:
        return ""
    head, old_end, new_end = _changed_region(old, new)
    before = _line_starts_back(old, head, context)
    after_old = _line_ends_forward(old, old_end, context)
    after_new = new_end + (after_old - old_end)
    line = first_line + old.count("\n", 0, before)
    if (old_end - head) + (new_end - head) <= SMALL_TEXTS:
        return _region_diff(old, new, path, context, line, (before, head, old_end, new_end))
    return _one_hunk(old, new, path, (before, head, old_end, after_old, new_end, after_new),
                     line, limit)  # fmt: skip


def _region_diff(
    old: str, new: str, path: str, context: int, first_line: int, cuts: tuple[int, int, int, int]
) -> str:
    """The diff of the changed region old[head:old_end] -> new[head:new_end] alone, shown
    with its context lines from the texts (which difflib is told are equal, so no hunk
    moves into them)."""
    before, head, old_end, new_end = cuts
    after = _line_ends_forward(old, old_end, context)
    lead = old[before:head].splitlines(keepends=True)
    trail = old[old_end:after].splitlines(keepends=True)
    a_mid = old[head:old_end].splitlines(keepends=True)
    b_mid = new[head:new_end].splitlines(keepends=True)
    k = len(lead)
    ops: list[tuple[str, int, int, int, int]] = [("equal", 0, k, 0, k)] if k else []
    mid: list[tuple[str, int, int, int, int]] | None = unique_lines_opcodes(a_mid, b_mid)
    if mid is None:
        mid = list(difflib.SequenceMatcher(None, a_mid, b_mid).get_opcodes())
    for op_tag, i1, i2, j1, j2 in mid:
        ops.append((op_tag, i1 + k, i2 + k, j1 + k, j2 + k))
    ea, eb = k + len(a_mid), k + len(b_mid)
    if trail:
        ops.append(("equal", ea, ea + len(trail), eb, eb + len(trail)))
    merged: list[tuple[str, int, int, int, int]] = []
    for op in ops:
        if merged and op[0] == "equal" and merged[-1][0] == "equal":
            _, i1, _, j1, _ = merged.pop()
            op = ("equal", i1, op[2], j1, op[4])
        merged.append(op)
    a, b = lead + a_mid + trail, lead + b_mid + trail
    return _finish(_format(merged, a, b, path, context), first_line)


def _format(
    opcodes: list[tuple[str, int, int, int, int]],
    a: list[str],
    b: list[str],
    path: str,
    context: int,
) -> list[str]:
    """The lines `difflib.unified_diff(a, b, n=context)` writes, for the opcodes its
    matcher would find (grouped into hunks by difflib itself)."""
    matcher: Any = difflib.SequenceMatcher(None, [], [])
    matcher.opcodes = opcodes  # (get_opcodes returns these)
    lines: list[str] = []
    for group in matcher.get_grouped_opcodes(context):
        if not lines:
            lines += [f"--- a/{path}\n", f"+++ b/{path}\n"]
        (_, i1, _, j1, _), (_, _, i2, _, j2) = group[0], group[-1]
        lines.append(f"@@ -{_range(i1 + 1, i2 - i1)} +{_range(j1 + 1, j2 - j1)} @@\n")
        for tag, x1, x2, y1, y2 in group:
            if tag == "equal":
                lines += [" " + line for line in a[x1:x2]]
                continue
            lines += ["-" + line for line in a[x1:x2]]
            lines += ["+" + line for line in b[y1:y2]]
    return lines


def _difflib(old: str, new: str, path: str, context: int, first_line: int) -> str:
    a, b = old.splitlines(keepends=True), new.splitlines(keepends=True)
    opcodes = one_block_opcodes(a, b)
    if opcodes is None:
        opcodes = unique_lines_opcodes(a, b)
    if opcodes is not None:
        return _finish(_format(opcodes, a, b, path, context), first_line)
    lines = difflib.unified_diff(a, b, fromfile=f"a/{path}", tofile=f"b/{path}", n=context)
    return _finish(lines, first_line)


_AUTOJUNK_LINES = 200
"""From this many lines of the new text on, difflib's matcher treats lines that occur
often as junk (its "popular" heuristic), which `one_block_opcodes` does not model."""


def one_block_opcodes(a: list[str], b: list[str]) -> list[tuple[str, int, int, int, int]] | None:
    """difflib's opcodes for `a` -> `b` found directly, when they differ in one block:
    a common head and tail, and between them lines of `a` that `b` nowhere has and lines
    of `b` that `a` nowhere has (say, one line changed). None when that is not so.

    Then no matching block of difflib's matcher can hold a line of the block, so each
    lies in the head or the tail; the longest (earliest on ties) is the head or the tail
    whole, and the search on either side of it finds the other: the opcodes are equal,
    replace (or delete, or insert), equal. tests/test_diffs_direct.py checks it against
    difflib on random texts."""
    n_a, n_b = len(a), len(b)
    if n_b >= _AUTOJUNK_LINES:
        return None
    m = min(n_a, n_b)
    head = 0
    while head < m and a[head] == b[head]:
        head += 1
    tail = 0
    while tail < m - head and a[n_a - 1 - tail] == b[n_b - 1 - tail]:
        tail += 1
    a_end, b_end = n_a - tail, n_b - tail
    if head == a_end and head == b_end:  # equal texts: no hunks
        return [("equal", 0, n_a, 0, n_b)] if n_a else []
    in_b = set(b)
    if any(line in in_b for line in a[head:a_end]):
        return None
    in_a = set(a)
    if any(line in in_a for line in b[head:b_end]):
        return None
    tag = "replace" if head < a_end and head < b_end else "delete" if head < a_end else "insert"
    ops = [("equal", 0, head, 0, head)] if head else []
    ops.append((tag, head, a_end, head, b_end))
    if tail:
        ops.append(("equal", a_end, n_a, b_end, n_b))
    return ops


def unique_lines_opcodes(a: list[str], b: list[str]) -> list[tuple[str, int, int, int, int]] | None:
    """difflib's opcodes for `a` -> `b` found directly, when every line the two texts
    share occurs once in each and in the same order (say, a replace-all over lines that
    are each unique: log, data or numbered lines). None when that is not so.

    Then a shared line pairs only with its one counterpart, the pairs lie in runs along a
    diagonal each, and the runs are ordered on both sides: each longest match difflib's
    matcher takes is one whole run, leaving the runs before it on one side and those
    after it on the other, so it finds every run, whatever their lengths; its "popular"
    heuristic spares them (a line that occurs once is never popular), and a line one text
    has nowhere matches nothing. The opcodes are the gaps between the runs and the runs.
    That costs a pass over the lines, where the matcher's search for longest matches
    costs the product of the lengths on a change of many places (a replace-all of 3,000
    lines: seconds). When every line occurs once in its text (a data or numbered file),
    the common head and tail are runs of their own that nothing else can pair with, and
    only the lines between them are looked at (set sizes and a prefix and suffix scan
    tell it: a one-line change of an 800-line file 0.67 -> 0.33 ms).
    tests/test_diffs_direct.py checks it against difflib."""
    head = tail = 0
    if len(set(a)) == len(a) and len(set(b)) == len(b):
        m = min(len(a), len(b))
        while head < m and a[head] == b[head]:
            head += 1
        while tail < m - head and a[-1 - tail] == b[-1 - tail]:
            tail += 1
    if not head and not tail:
        return _unique_runs_opcodes(a, b)
    mid = _unique_runs_opcodes(a[head : len(a) - tail], b[head : len(b) - tail])
    if mid is None:
        return None
    ops = [("equal", 0, head, 0, head)] if head else []
    ops += [(tag, i1 + head, i2 + head, j1 + head, j2 + head) for tag, i1, i2, j1, j2 in mid]
    if tail:
        ops.append(("equal", len(a) - tail, len(a), len(b) - tail, len(b)))
    return ops


def _unique_runs_opcodes(a: list[str], b: list[str]) -> list[tuple[str, int, int, int, int]] | None:
    """`unique_lines_opcodes` by a pass over all the lines of `a` and `b`."""
    in_a = Counter(a)
    at_b: dict[str, int] = {}
    for j, line in enumerate(b):
        if line in in_a:
            if in_a[line] != 1 or line in at_b:
                return None
            at_b[line] = j
    runs: list[list[int]] = []
    last = -1
    for i, line in enumerate(a):
        if (j := at_b.get(line, -1)) < 0:
            continue
        if j < last:
            return None
        if runs and runs[-1][0] + runs[-1][2] == i and runs[-1][1] + runs[-1][2] == j:
            runs[-1][2] += 1
        else:
            runs.append([i, j, 1])
        last = j
    ops: list[tuple[str, int, int, int, int]] = []
    i = j = 0
    for ai, bj, size in [*runs, [len(a), len(b), 0]]:
        tag = "replace" if i < ai and j < bj else "delete" if i < ai else "insert" if j < bj else ""
        if tag:
            ops.append((tag, i, ai, j, bj))
        i, j = ai + size, bj + size
        if size:
            ops.append(("equal", ai, i, bj, j))
    return ops


def _finish(lines: Iterable[str], first_line: int) -> str:
    """Diff lines with their hunks moved to `first_line` and last lines marked."""
    out = []
    for line in lines:
        if first_line != 1 and line.startswith("@@ "):
            line = _HUNK.sub(lambda m: f"{m[1]}{int(m[2]) + first_line - 1}", line)
        if not line.endswith("\n"):
            line += "\n\\ No newline at end of file\n"
        out.append(line)
    return "".join(out)


_BLOCK = 1 << 16


def common_prefix(a: str, b: str) -> int:
    """The length of the longest common prefix (compared a block at a time)."""
    n = min(len(a), len(b))
    lo = 0
    while lo < n:
        hi = min(n, lo + _BLOCK)
        if a[lo:hi] != b[lo:hi]:
            while hi - lo > 1:  # a[:lo] == b[:lo], a[lo:hi] != b[lo:hi]
                mid = (lo + hi) // 2
                if a[lo:mid] == b[lo:mid]:
                    lo = mid
                else:
                    hi = mid
            return lo
        lo = hi
    return n


def common_suffix(a: str, b: str, most: int) -> int:
    """The length of the longest common suffix, at most `most`."""
    la, lb = len(a), len(b)
    n = max(0, min(la, lb, most))
    lo = 0  # the last lo characters are equal
    while lo < n:
        hi = min(n, lo + _BLOCK)
        if a[la - hi : la - lo] != b[lb - hi : lb - lo]:
            while hi - lo > 1:
                mid = (lo + hi) // 2
                if a[la - mid : la - lo] == b[lb - mid : lb - lo]:
                    lo = mid
                else:
                    hi = mid
            return lo
        lo = hi
    return n


def _changed_region(old: str, new: str) -> tuple[int, int, int]:
    """(head, old_end, new_end): old[head:old_end] became new[head:new_end]; head is a line
    start, and the ends are line starts (or the texts' ends) with equal text after them."""
    p = common_prefix(old, new)
    head = old.rfind("\n", 0, p) + 1
    s = common_suffix(old, new, min(len(old), len(new)) - head)
    old_end, new_end = len(old) - s, len(new) - s
    if not (_starts_line(old, old_end) and _starts_line(new, new_end)):
        # to the next line start: inside the common tail, so one in both texts
        nl = old.find("\n", old_end)
        old_end = nl + 1 if nl >= 0 else len(old)
        new_end = len(new) - (len(old) - old_end)
    return head, old_end, new_end


def _line_starts_back(text: str, pos: int, lines: int) -> int:
    """The start of the line `lines` lines before the one starting at `pos`."""
    for _ in range(lines):
        if pos == 0:
            break
        pos = text.rfind("\n", 0, pos - 1) + 1
    return pos


def _line_ends_forward(text: str, pos: int, lines: int) -> int:
    """The end of `lines` whole lines from `pos` (a line start) on."""
    for _ in range(lines):
        if pos >= len(text):
            break
        nl = text.find("\n", pos)
        pos = nl + 1 if nl >= 0 else len(text)
    return pos


def _range(start: int, length: int) -> str:
    """A hunk range as difflib writes it (`start`: 1-based first line)."""
    if length == 1:
        return f"{start}"
    return f"{start - 1 if not length else start},{length}"


def _count_lines(text: str, lo: int, hi: int) -> int:
    if hi <= lo:
        return 0
    return text.count("\n", lo, hi) + (0 if text[hi - 1] == "\n" else 1)


def _one_hunk(
    old: str, new: str, path: str, cuts: tuple[int, int, int, int, int, int], line: int, limit: int
) -> str:
    """The changed region as one hunk (context, every old line removed, every new line
    added, context), written until `limit` characters and then cut with a note."""
    before, head, old_end, after_old, new_end, after_new = cuts
    old_len = _count_lines(old, before, after_old)
    new_len = _count_lines(new, before, after_new)
    out = [f"--- a/{path}\n+++ b/{path}\n@@ -{_range(line, old_len)} +{_range(line, new_len)} @@\n"]
    size = len(out[0])
    parts = [(" ", old, before, head), ("-", old, head, old_end), ("+", new, head, new_end),
             (" ", old, old_end, after_old)]  # fmt: skip
    for index, (mark, text, lo, hi) in enumerate(parts):
        pos = lo
        while pos < hi:
            cut, lines = _lines_that_fit(text, pos, hi, limit - size)
            if cut > pos:  # whole lines that fit, marked at C speed
                out.append(mark + text[pos : cut - 1].replace("\n", "\n" + mark) + "\n")
                size += (cut - pos) + lines
                pos = cut
                if pos >= hi:
                    break
            nl = text.find("\n", pos, hi)
            end = nl + 1 if nl >= 0 else hi
            piece = mark + text[pos:end]
            if not piece.endswith("\n"):
                piece += "\n\\ No newline at end of file\n"
            if size + len(piece) > limit:
                rest_lines = _count_lines(text, pos, hi) + sum(
                    _count_lines(t, a, b) for _, t, a, b in parts[index + 1 :]
                )
                rest_chars = (hi - pos) + sum(b - a for _, _, a, b in parts[index + 1 :])
                out.append(
                    f"{CLIPPED_NOTE}{rest_lines} more lines, {rest_chars + rest_lines} more characters)\n"
                )
                return "".join(out)
            out.append(piece)
            size += len(piece)
            pos = end
    return "".join(out)


def _lines_that_fit(text: str, pos: int, hi: int, budget: int) -> tuple[int, int]:
    """(end, count) of the whole lines of text[pos:hi] that, each with its one-character
    mark, fit in `budget` characters (end == pos: none)."""
    end = min(hi, pos + budget)
    while end > pos:
        cut = text.rfind("\n", pos, end) + 1
        if cut <= pos:
            return pos, 0
        lines = text.count("\n", pos, cut)
        if (cut - pos) + lines <= budget:
            return cut, lines
        end = pos + (cut - pos) * budget // ((cut - pos) + lines)  # < cut: shrinks
    return pos, 0


def changed_lines(old: str, new: str) -> tuple[int, int] | None:
    """The 1-based range of lines in `new` that differ from `old`: the lines between the
    texts' common head and tail (a prefix/suffix scan; whole lines)."""
    if old == new:
        return None
    p = common_prefix(old, new)
    start = old.count("\n", 0, p)  # equal leading lines
    line_start = old.rfind("\n", 0, p) + 1
    if new[p : p + 1] in ("\n", "") and old[p : p + 1] in ("\n", ""):
        # one text ends where the other's line ends: that line is equal too
        start += 1
        line_start = p + 1
    s = common_suffix(old, new, min(len(old), len(new)) - line_start)
    # Trailing lines equal in both: each newline inside the common tail starts one, and
    # the tail itself is one more when it starts a line in both texts.
    tail = old.count("\n", len(old) - s) if s else 0
    if _starts_line(old, len(old) - s) and _starts_line(new, len(new) - s):
        tail += 1
    n_a, n_b = old.count("\n") + 1, new.count("\n") + 1
    tail = min(tail, n_a - start, n_b - start)
    return (start + 1, max(start + 1, n_b - tail))


def _starts_line(text: str, pos: int) -> bool:
    return pos == 0 or text[pos - 1] == "\n"
