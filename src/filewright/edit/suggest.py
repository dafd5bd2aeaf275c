"""Failure hints: where the closest real text is, and where ambiguous matches are.

Similarity (rapidfuzz) is used here and only here: to tell the model, after a refused edit,
which lines it probably meant and what differs, so the next attempt succeeds.  Nothing in
this module decides where an edit goes.
"""

from __future__ import annotations

import heapq
import re
from difflib import SequenceMatcher
from typing import Any

from rapidfuzz import fuzz, process

from filewright.edit.normalize import fold_typography

_MAX_QUERIES = 6
_PER_QUERY = 6
_MAX_LINE = 300
_MAX_COMPARE = 2_000
"""Characters of one line (or one text sent as a line) that similarity looks at, and
`_MAX_COMPARE * 4` of a block: a hint over a huge text or a huge `old` costs what these
cost, not the product of the two lengths (a 3 MB `old` against a 3 MB line took minutes)."""
_MAX_TOKENS = 600
"""Characters of two long lines whose tokens are compared: those around their first
difference."""
_MAX_LINES = 1_000
"""Lines of each side that `describe_differences` aligns (its labels come from the first
differences anyway)."""
_MAX_OLD_LINES = _MAX_COMPARE * 4
"""Lines of `old` that `closest` searches for (the block it scores is cut to
`_MAX_COMPARE * 4` characters, so no more lines than that ever reach it): a 120,000-line
`old` cost a Python pass over every line on each refused edit."""
_MAX_DESCRIBE = 1 << 16
"""Characters of each side that `describe_differences` looks at.  Above it, only that many
around their first difference are compared line by line (plus the exact line counts):
whether the whole texts
differ only in case, whitespace or typography is not claimed, since that would need a pass
over every character of both (0.3 s for a 2 MB `old` of CJK text)."""
_TOKEN = re.compile(r"\w+|[^\w\s]")


def _clip(line: str) -> str:
    return line if len(line) <= _MAX_LINE else line[:_MAX_LINE] + "…"


def _block(lines: list[str], limit: int = _MAX_COMPARE * 4) -> str:
    """The lines joined by newlines, stopping once `limit` characters are reached."""
    out: list[str] = []
    size = 0
    for line in lines:
        out.append(line)
        size += len(line) + 1
        if size > limit:
            break
    return "\n".join(out)[:limit]


def line_starts(text: str) -> list[int]:
    """Offsets where each line of ``text`` starts."""
    starts = [0]
    i = text.find("\n")
    while i != -1:
        starts.append(i + 1)
        i = text.find("\n", i + 1)
    return starts


def describe_differences(old: str, real: str, *, limit: int = 3) -> list[str]:
    """Name what differs between ``old`` (what the model sent) and ``real`` (the file's text).

    Returns labels such as ``"case"``, ``"whitespace"``, ``"indentation"``,
    ``"typography"``, ``"line count: old has 3 lines, file has 4"`` and
    ``"token: 'foo' vs 'bar'"`` (old's token first, the file's second).
    """
    if old == real:
        return []
    if len(old) > _MAX_DESCRIBE or len(real) > _MAX_DESCRIBE:
        return _describe_around_first_difference(old, real, limit)
    out: list[str] = []
    olines, rlines = old.split("\n"), real.split("\n")
    if old.lower() == real.lower():
        return ["case"]
    if [x.strip() for x in olines] == [x.strip() for x in rlines]:
        if [x.rstrip() for x in olines] != [x.rstrip() for x in rlines]:
            out.append("indentation")
        else:
            out.append("whitespace")
        return out
    if "".join(old.split()) == "".join(real.split()):
        return ["whitespace"]
    folded_old, folded_real = fold_typography(old), fold_typography(real)
    if folded_old == folded_real:
        return ["typography"]
    if folded_old.lower() == folded_real.lower():
        return ["typography", "case"]
    if len(olines) != len(rlines):
        out.append(f"line count: old has {len(olines)} lines, file has {len(rlines)}")
    return _line_differences(olines, rlines, out, limit)


def _describe_around_first_difference(old: str, real: str, limit: int) -> list[str]:
    """`describe_differences` of two texts one of which is over `_MAX_DESCRIBE`: the exact
    line counts, then the differences among the lines of `_MAX_DESCRIBE` characters of each
    from the start of the line where they first differ (or from `_MAX_DESCRIBE // 2` before
    that difference, in a longer line), each label once.  What differs past them is not
    looked for."""
    out: list[str] = []
    old_count, real_count = old.count("\n") + 1, real.count("\n") + 1
    if old_count != real_count:
        out.append(f"line count: old has {old_count} lines, file has {real_count}")
    first = _first_difference(old, real)
    start = max(old.rfind("\n", 0, first) + 1, first - _MAX_DESCRIBE // 2)
    end = start + _MAX_DESCRIBE
    olines = old[start:end].split("\n", _MAX_LINES)[:_MAX_LINES]
    rlines = real[start:end].split("\n", _MAX_LINES)[:_MAX_LINES]
    alike = f"alike but for whitespace in the {_MAX_DESCRIBE} characters compared"
    return list(dict.fromkeys(_line_differences(olines, rlines, out, limit, alike)))


def _line_differences(
    olines: list[str], rlines: list[str], out: list[str], limit: int, alike: str = "whitespace"
) -> list[str]:
    """`out` plus the differences between the first `_MAX_LINES` lines of each side
    (`[alike]` if there are none)."""
    ostrip = [fold_typography(x.strip()) for x in olines[:_MAX_LINES]]
    rstrip = [fold_typography(x.strip()) for x in rlines[:_MAX_LINES]]
    lines_sm = SequenceMatcher(None, ostrip, rstrip, autojunk=False)
    for tag, i1, i2, j1, j2 in lines_sm.get_opcodes():
        if tag == "equal":
            continue
        pairs = list(zip(ostrip[i1:i2], rstrip[j1:j2], strict=False))
        for o, r in pairs:
            out.extend(_token_diff(o, r))
            if len(out) > limit:
                break
        out.extend(f"line only in old: '{_clip(o)}'" for o in ostrip[i1 + len(pairs) : i2])
        out.extend(f"line only in file: '{_clip(r)}'" for r in rstrip[j1 + len(pairs) : j2])
        if len(out) > limit:
            break
    if not out:
        out.append(alike)
    return out[: limit + 1]


def _first_difference(a: str, b: str) -> int:
    """The length of the common prefix of `a` and `b` (a binary search of slice compares)."""
    lo, hi = 0, min(len(a), len(b))
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if a[:mid] == b[:mid]:
            lo = mid
        else:
            hi = mid - 1
    return lo


def _token_diff(old: str, real: str) -> list[str]:
    if len(old) > _MAX_TOKENS or len(real) > _MAX_TOKENS:
        # Long lines: the tokens around where they first differ (aligning tokens costs
        # the product of their counts).
        start = max(0, _first_difference(old, real) - _MAX_TOKENS // 6)
        old, real = old[start : start + _MAX_TOKENS], real[start : start + _MAX_TOKENS]
    otok, rtok = _TOKEN.findall(old), _TOKEN.findall(real)
    out: list[str] = []
    if otok == rtok:
        return ["whitespace"] if old != real else []
    sm = SequenceMatcher(None, otok, rtok, autojunk=False)
    for tag, i1, i2, j1, j2 in sm.get_opcodes():
        a, b = " ".join(otok[i1:i2]), " ".join(rtok[j1:j2])
        if tag == "replace":
            kind = "case" if a.lower() == b.lower() else "token"
            out.append(f"{kind}: '{_clip(a)}' vs '{_clip(b)}'")
        elif tag == "delete":
            out.append(f"token: '{_clip(a)}' only in old")
        elif tag == "insert":
            out.append(f"token: '{_clip(b)}' only in file")
    return out


_PARTIAL_SAME_LENGTH = 256
"""Above this length, two texts of one length are compared by ratio, not partial_ratio:
rapidfuzz aligns those every way, which costs the square of their length (0.4 s for two
2,000-character lines); below it that costs microseconds."""


def _partial(a: str, b: str) -> float:
    """How well the shorter of `a` and `b` fits inside the longer (rapidfuzz's
    partial_ratio; see `_PARTIAL_SAME_LENGTH`)."""
    if len(a) == len(b) > _PARTIAL_SAME_LENGTH:
        return fuzz.ratio(a, b)
    return fuzz.partial_ratio(a, b)


def closest(text: str, old: str, *, limit: int = 3) -> list[dict[str, Any]]:
    """Up to ``limit`` non-overlapping regions of ``text`` most similar to ``old``.

    Each is ``{"start_line", "end_line", "text", "similarity", "differs"}`` with 1-based
    inclusive lines, the file's actual lines, a similarity in ``[0, 1]`` and
    :func:`describe_differences`.  Candidate windows are found by fuzzy-searching the lines
    of ``old`` among the text's lines (rapidfuzz, C speed), then scored as whole blocks.
    """
    body = old.strip("\n")
    if not body.strip() or not text.strip():
        return []
    lines = text.split("\n")
    m = body.count("\n") + 1
    olines = body.split("\n", _MAX_OLD_LINES)[:_MAX_OLD_LINES]
    stripped = [x.strip()[:_MAX_COMPARE] for x in lines]
    first: dict[str, int] = {}  # each distinct line of old: where it first is
    for k, x in enumerate(olines):
        q = x.strip()[:_MAX_COMPARE]
        if q and q not in first:
            first[q] = k
    queries = heapq.nsmallest(_MAX_QUERIES, first.items(), key=lambda q: (-len(q[0]), q[1]))
    starts: set[int] = set()
    for q, k in queries:
        found = process.extract(q, stripped, scorer=fuzz.ratio, limit=_PER_QUERY, score_cutoff=30)
        if m == 1:  # a short old text inside a longer line (see _partial)
            choices: Any = stripped  # (a list's matches carry their index, as a dict's key)
            if len(q) > _PARTIAL_SAME_LENGTH:
                choices = {i: x for i, x in enumerate(stripped) if len(x) != len(q)}
            found += process.extract(
                q, choices, scorer=fuzz.partial_ratio, limit=_PER_QUERY, score_cutoff=30
            )
        for _choice, _score, li in found:
            starts.add(max(0, min(li - k, len(lines) - 1)))
    target = _block([x.strip()[:_MAX_COMPARE] for x in olines])
    scored: list[tuple[float, int, int]] = []
    for s in starts:
        for size in {m, m - 1, m + 1} - {0}:
            e = min(len(lines), s + size)
            window = _block(stripped[s:e])
            score = fuzz.ratio(target, window)
            if m == 1:
                score = max(score, _partial(target, window) * 0.9)
            scored.append((score, s, e))
    scored.sort(key=lambda t: (-t[0], t[1], t[2]))
    picked: list[tuple[float, int, int]] = []
    for score, s, e in scored:
        if any(s < pe and ps < e for _, ps, pe in picked):
            continue
        picked.append((score, s, e))
        if len(picked) >= limit:
            break
    out = []
    for score, s, e in picked:
        real = "\n".join(lines[s:e])
        out.append(
            {
                "start_line": s + 1,
                "end_line": e,
                "text": "\n".join(_clip(x) for x in lines[s:e]),
                "similarity": round(score / 100, 3),
                "differs": describe_differences(body, real),
            }
        )
    return out


def real_text(text: str, start_line: int, end_line: int, old: str, why: str) -> dict[str, Any]:
    """The matched real lines as a :func:`closest` entry, ``why`` first among the differences."""
    lines = text.split("\n")[start_line - 1 : end_line]
    real = "\n".join(lines)
    return {
        "start_line": start_line,
        "end_line": end_line,
        "text": "\n".join(_clip(x) for x in lines),
        "similarity": 1.0,
        "differs": [why, *describe_differences(old.strip("\n"), real)],
    }


def locations(
    text: str, spans: list[tuple[int, int, int]], *, context: int = 2, first_line: int = 1
) -> list[dict[str, Any]]:
    """Describe matches for an ambiguity error.

    ``spans`` holds ``(offset, start_line, end_line)`` per match (1-based lines).  Each
    location is ``{"line", "column", "context"}``: column is 1-based, context is the
    matched lines with ``context`` lines either side, each prefixed by its line number.
    ``first_line``: the file's number of ``text``'s first line (``text`` an excerpt).
    """
    starts = line_starts(text)
    lines = text.split("\n")
    out = []
    shift = first_line - 1
    for offset, first, last in spans:
        ls = starts[first - 1]
        column = max(1, offset - ls + 1) if offset >= ls else 1
        lo, hi = max(1, first - context), min(len(lines), last + context)
        ctx = "\n".join(f"{n + shift}: {_clip(lines[n - 1])}" for n in range(lo, hi + 1))
        out.append({"line": first + shift, "column": column, "context": ctx})
    return out


def line_at(text: str, offset: int) -> int:
    """1-based line number of ``offset`` in ``text``."""
    return text.count("\n", 0, offset) + 1


def context_at(text: str, offset: int, *, before: int = 2, after: int = 4) -> str:
    """Numbered lines around ``offset``: where a search started or stopped."""
    lines = text.split("\n")
    line = line_at(text, offset)
    lo, hi = max(1, line - before), min(len(lines), line + after)
    return "\n".join(f"{n}: {_clip(lines[n - 1])}" for n in range(lo, hi + 1))
