"""A plain in-memory V4A applier with the first-hit rule: the peer of filewright's.

It behaves as the reference appliers do: each hunk's expected lines are searched from
the end of the previous hunk, exactly, then with trailing whitespace ignored, then with
all surrounding whitespace ignored, and the FIRST place found is used; an ``@@`` line
moves the search to the first line equal to it (after stripping); ``*** End of File``
searches at the end first; a hunk without expected lines goes at the end of the file.
Written here from the grammar, for comparison only.
"""

from __future__ import annotations


class ReferenceError_(Exception):
    """The reference applier gave up (a hunk's lines were not found)."""


def _hunks(diff: str) -> list[tuple[str | None, list[tuple[str, str]], bool]]:
    hunks: list[tuple[str | None, list[tuple[str, str]], bool]] = []
    scope: str | None = None
    lines: list[tuple[str, str]] = []
    eof = False
    for raw in diff.split("\n"):
        if raw.startswith("@@"):
            if lines:
                hunks.append((scope, lines, eof))
                lines, eof = [], False
            scope = raw[2:].strip() or None
        elif raw == "*** End of File":
            eof = True
        elif raw[:1] in (" ", "-", "+"):
            lines.append((raw[0], raw[1:]))
        elif raw == "":
            lines.append(("", ""))  # an empty context line, unless it ends the hunk
    if lines:
        hunks.append((scope, lines, eof))
    for k, (s, ls, e) in enumerate(hunks):  # trailing bare empty lines are separators
        while ls and ls[-1] == ("", "") and not e:
            ls = ls[:-1]
        hunks[k] = (s, [(kind or " ", t) for kind, t in ls], e)
    return hunks


def _seek(lines: list[str], want: list[str], start: int, eof: bool) -> int:
    for norm in (lambda x: x, str.rstrip, str.strip):
        target = [norm(x) for x in want]
        order = range(start, len(lines) - len(want) + 1)
        if eof:
            order = [len(lines) - len(want), *order]
        for i in order:
            if i >= 0 and [norm(x) for x in lines[i : i + len(want)]] == target:
                return i
    return -1


def apply_reference(text: str, diff: str) -> str:
    """``text`` with the hunks of ``diff`` applied, first hit; raises ReferenceError_."""
    final_newline = text.endswith("\n")
    lines = text.split("\n")
    if final_newline:
        lines.pop()
    cursor = 0
    edits: list[tuple[int, int, list[str]]] = []
    for scope, hunk, eof in _hunks(diff):
        if scope:
            i = next((j for j in range(cursor, len(lines)) if lines[j].strip() == scope), -1)
            if i < 0:
                i = next(
                    (j for j in range(cursor, len(lines)) if lines[j].strip().startswith(scope)), -1
                )
            if i < 0:
                raise ReferenceError_(f"scope not found: {scope}")
            cursor = i + 1
        old = [t for k, t in hunk if k != "+"]
        new = [t for k, t in hunk if k != "-"]
        if not old:
            edits.append((len(lines), len(lines), new))
            continue
        i = _seek(lines, old, cursor, eof)
        if i < 0:
            raise ReferenceError_("hunk not found")
        edits.append((i, i + len(old), new))
        cursor = i + len(old)
    for a, b, new in sorted(edits, key=lambda e: e[0], reverse=True):
        lines[a:b] = new
    if not lines:
        return ""
    return "\n".join(lines) + ("\n" if final_newline or not text else "")
