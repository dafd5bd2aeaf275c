r"""Span replace between a start and an end marker (the memo seed's ``memo_replace_span``).

Search
    ``search_after`` (optional) is found first (its first occurrence); the start marker is
    the first occurrence at or after its end (``start_is_regex``: a ``re.MULTILINE`` regex,
    the seed's ``old_span_start_regex``); the end marker is the first occurrence after the
    start marker.  Markers need not be unique.  Missing → ``marker_not_found``.

Which markers are replaced (``keep_markers``)
    ``True``: both markers stay; ``new`` replaces exactly what lies between them.
    ``False``: ``new`` replaces the whole span, markers included.
    ``None`` (auto, the default): a marker is replaced when ``new`` *re-supplies* it,
    otherwise it stays (the seed: "默认保留标记，可选替换标记").  ``new`` re-supplies

    * the start marker if ``new`` starts with it, or if ``new``'s first line has the same
      markup *shape* as the marker (its characters other than letters, digits, ``_`` and
      whitespace, at least two of them: ``<!-- BEGIN X -->`` and ``<!-- NEW -->`` are both
      ``<!---->``; ``### 技术栈`` is ``###``);
    * the end marker if ``new`` (ignoring trailing newlines) ends with it, or if ``new``
      has two or more lines and its last line has the end marker's shape.

Line breaks
    When the start marker stays and is followed by a newline, the newline stays too
    (unless ``new`` starts with one).  When the end marker stays and ``new`` does not end
    with a newline, the whitespace run containing a newline just before the end marker
    stays, so the marker keeps its own line.  With an empty ``new`` between kept markers,
    the lines between them are removed.

The seed's three scenarios, with this rule (auto)::

    1. text  "## 2024年总结\n### 技术栈\n主要使用 Python。\n\n### 团队协作\n…"
       search_after "## 2024年总结", start "### 技术栈", end "### 团队协作",
       new "### 技术栈\n主要使用 Rust 和 TypeScript，全面迁移到异步架构。"
       → "## 2024年总结\n### 技术栈\n主要使用 Rust 和 TypeScript，全面迁移到异步架构。\n\n### 团队协作\n…"
       (start marker re-supplied by new, end marker kept with its blank line)
    2. text  "关于项目进度：<500 字>预计完成时间：六月。"
       start "关于项目进度：", end "预计完成时间",
       new "关于项目进度：已完成 80%，剩余核心功能开发中。"
       → "关于项目进度：已完成 80%，剩余核心功能开发中。预计完成时间：六月。"
    3. text  "前言\n<!-- BEGIN DEPRECATED -->\n旧方案\n<!-- END DEPRECATED -->\n后记"
       start "<!-- BEGIN DEPRECATED -->", end "<!-- END DEPRECATED -->",
       new "<!-- UPDATED SECTION -->\n新的实现方案\n<!-- END UPDATED -->"
       → "前言\n<!-- UPDATED SECTION -->\n新的实现方案\n<!-- END UPDATED -->\n后记"
       (both markers replaced: new's first and last lines have the markers' shape)
"""

from __future__ import annotations

from typing import Any

from filewright.core import regexes
from filewright.edit.outcome import EditFailure, Result, edited
from filewright.edit.suggest import closest, context_at, line_at


def _shape(s: str) -> str:
    return "".join(ch for ch in s if not (ch.isalnum() or ch.isspace() or ch == "_"))


def _resupplies_start(new: str, marker: str) -> bool:
    if new.startswith(marker):
        return True
    k = marker.count("\n") + 1
    head = "\n".join(new.split("\n")[:k])
    shape = _shape(marker)
    return len(shape) >= 2 and _shape(head) == shape


def _resupplies_end(new: str, marker: str) -> bool:
    body = new.rstrip("\n")
    if body.endswith(marker):
        return True
    lines = body.split("\n")
    k = marker.count("\n") + 1
    if len(lines) <= k:
        return False
    shape = _shape(marker)
    return len(shape) >= 2 and _shape("\n".join(lines[-k:])) == shape


def _not_found(text: str, which: str, marker: str, pos: int) -> EditFailure:
    return EditFailure(
        "marker_not_found",
        {
            "marker": which,
            "text": marker,
            "search_from_line": line_at(text, pos),
            "context": context_at(text, pos),
            "closest": _closest_after(text, marker, pos)
            if which != "search_after"
            else closest(text, marker),
        },
    )


def _closest_after(text: str, marker: str, pos: int) -> list[dict[str, Any]]:
    """Hints searched from ``pos`` on, with line numbers counted from the top of ``text``."""
    offset = line_at(text, pos) - 1
    hints = closest(text[pos:], marker)
    for hint in hints:
        hint["start_line"] += offset
        hint["end_line"] += offset
    return hints


def replace_span(
    text: str,
    start_marker: str,
    end_marker: str,
    new: str,
    *,
    search_after: str | None = None,
    keep_markers: bool | None = None,
    start_is_regex: bool = False,
) -> Result:
    """Replace the span from ``start_marker`` to ``end_marker`` (rules in the module docstring).

    ``Edited.notes`` says ``{"start_marker": "kept"|"replaced", "end_marker": ...,
    "start_line": n}`` so callers can tell the model what happened.
    """
    if not start_marker or not end_marker:
        return EditFailure("empty_old", {"marker": "start" if not start_marker else "end"})
    pos = 0
    if search_after:
        i = text.find(search_after)
        if i < 0:
            return _not_found(text, "search_after", search_after, 0)
        pos = i + len(search_after)
    if start_is_regex:
        try:
            rx = regexes.compile(start_marker, regexes.MULTILINE)
            m = regexes.search(rx, text, pos)
        except (regexes.error, regexes.RegexTimeout) as e:
            return EditFailure("invalid_regex", {"pattern": start_marker, "error": str(e)})
        if m is None:
            return _not_found(text, "start", start_marker, pos)
        s0, s1 = m.span()
        start_text = m.group(0)
    else:
        s0 = text.find(start_marker, pos)
        if s0 < 0:
            return _not_found(text, "start", start_marker, pos)
        s1 = s0 + len(start_marker)
        start_text = start_marker
    e0 = text.find(end_marker, s1)
    if e0 < 0:
        return _not_found(text, "end", end_marker, s1)
    e1 = e0 + len(end_marker)

    if keep_markers is None:
        rep_start = bool(start_text) and _resupplies_start(new, start_text)
        rep_end = _resupplies_end(new, end_marker)
    else:
        rep_start = rep_end = not keep_markers

    a = s0 if rep_start else s1
    if not rep_start and text[a : a + 1] == "\n" and not new.startswith("\n"):
        a += 1
    if rep_end:
        b = e1
    elif new == "":
        b = e0
        line_start = text.rfind("\n", 0, e0) + 1
        if line_start >= a and not text[line_start:e0].strip():
            b = line_start
    elif new.endswith("\n"):
        b = e0
    else:
        b = e0
        while b > a and text[b - 1] in " \t\n":
            b -= 1
        if "\n" not in text[b:e0]:
            b = e0
    after = text[:a] + new + text[b:]
    notes = {
        "start_marker": "replaced" if rep_start else "kept",
        "end_marker": "replaced" if rep_end else "kept",
        "start_line": line_at(text, s0),
        "end_line": line_at(text, max(s0, e1 - 1)),
    }
    return edited(text, after, 1, "span", steps=("span",), notes=notes)
