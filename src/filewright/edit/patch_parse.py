"""Parse V4A patches: the `*** Begin Patch` format OpenAI's models write for apply_patch.

The grammar, as Codex CLI's apply-patch tool and the Responses API's built-in tool use it::

    patch   := "*** Begin Patch" NL { file-op } "*** End Patch" [NL]
    file-op := "*** Add File:" path NL { "+" line NL }
             | "*** Delete File:" path NL
             | "*** Update File:" path NL [ "*** Move to:" path NL ] { hunk }
    hunk    := { "@@" [ " " scope ] NL } { (" " | "-" | "+") line NL } [ "*** End of File" NL ]

Consecutive ``@@`` lines name nested scopes (``@@ class A`` then ``@@ def f():``); the
first hunk of a file may start without one. What this parser accepts beyond the grammar,
because models write it and its meaning is not in doubt: CRLF line ends, whitespace
around the marker lines, a heredoc wrapper (``<<'EOF'`` ... ``EOF``), an empty line in a
hunk (an empty context line), blank lines after ``*** End of File`` (ignored), a
unified-diff ``@@ -1,3 +1,4 @@`` header (its range is ignored). Everything else is refused
with the patch line number and what was expected; so is a path with a backslash
(`path_problem`).

Also parsed here: the Responses API's ``update_file`` diff (hunks only) and
``create_file`` diff (``+`` lines). Pure: no I/O; failures are values (`PatchError`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

BEGIN = "*** Begin Patch"
END = "*** End Patch"
ADD = "*** Add File:"
DELETE = "*** Delete File:"
UPDATE = "*** Update File:"
MOVE = "*** Move to:"
END_OF_FILE = "*** End of File"
_FILE_MARKERS = (ADD, DELETE, UPDATE)
_HEREDOC = re.compile(r"^(?:apply_patch\s+)?<<-?\s*(['\"]?)([A-Za-z_]\w*)\1\s*$")
_UNIFIED_RANGE = re.compile(r"^-\d+(?:,\d+)?\s+\+\d+(?:,\d+)?\s*@@\s?")


@dataclass(frozen=True)
class Hunk:
    """One hunk: its ``@@`` scopes (outer first), its lines as (kind, text), kind one of
    ``" "`` (context), ``"-"`` (removed), ``"+"`` (added); ``end_of_file`` when marked."""

    scopes: tuple[str, ...]
    lines: tuple[tuple[str, str], ...]
    end_of_file: bool
    patch_line: int

    @property
    def old_lines(self) -> list[str]:
        """The lines the hunk expects in the file (context and removed), in order."""
        return [t for k, t in self.lines if k != "+"]

    @property
    def new_lines(self) -> list[str]:
        """The lines the file has after the hunk (context and added), in order."""
        return [t for k, t in self.lines if k != "-"]

    @property
    def changes(self) -> bool:
        return any(k != " " for k, _ in self.lines)


@dataclass(frozen=True)
class AddFile:
    """``*** Add File``: a new file with ``text`` (every line ends with a newline)."""

    path: str
    text: str
    patch_line: int


@dataclass(frozen=True)
class DeleteFile:
    """``*** Delete File``."""

    path: str
    patch_line: int


@dataclass(frozen=True)
class UpdateFile:
    """``*** Update File``: hunks applied to the file, then an optional move."""

    path: str
    hunks: tuple[Hunk, ...]
    move_to: str | None
    patch_line: int


Operation = AddFile | DeleteFile | UpdateFile


@dataclass(frozen=True)
class Patch:
    """A parsed patch: its file operations, in the order given."""

    operations: tuple[Operation, ...]


@dataclass(frozen=True)
class PatchError:
    """A patch that cannot be parsed: the 1-based patch line (0: the whole patch) and why."""

    line: int
    message: str

    @property
    def text(self) -> str:
        where = f"line {self.line} of the patch: " if self.line else ""
        return f"Invalid patch: {where}{self.message}"


class _Invalid(Exception):
    def __init__(self, line: int, message: str) -> None:
        self.line, self.message = line, message


def _lines(text: str) -> list[str]:
    lines = text.replace("\r\n", "\n").split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return lines


def _show(line: str) -> str:
    return repr(line if len(line) <= 80 else line[:80] + "…")


def _unwrap(lines: list[str]) -> tuple[list[str], int]:
    """Lines without a heredoc wrapper and surrounding blank lines; the offset removed."""
    start, end = 0, len(lines)
    while start < end and not lines[start].strip():
        start += 1
    while end > start and not lines[end - 1].strip():
        end -= 1
    if end - start >= 2:
        found = _HEREDOC.match(lines[start].strip())
        if found and lines[end - 1].strip() == found.group(2):
            start, end = start + 1, end - 1
    return lines[start:end], start


def _marker(line: str) -> str:
    """A marker line without surrounding whitespace (other lines unchanged)."""
    stripped = line.strip()
    return stripped if stripped.startswith("*** ") else line


def parse_patch(text: str) -> Patch | PatchError:
    """Parse a whole ``*** Begin Patch`` ... ``*** End Patch`` text."""
    if not isinstance(text, str) or not text.strip():
        return PatchError(0, f"the patch is empty; it must start with '{BEGIN}'")
    lines, offset = _unwrap(_lines(text))
    try:
        if _marker(lines[0]) != BEGIN:
            raise _Invalid(1, f"the first line must be '{BEGIN}', got {_show(lines[0])}")
        if len(lines) < 2 or _marker(lines[-1]) != END:
            raise _Invalid(
                0,
                f"the last line must be '{END}' (was the patch cut short?); got {_show(lines[-1])}",
            )
        ops = _parse_operations(lines[1:-1], 2)
    except _Invalid as exc:
        line = exc.line + offset if exc.line else 0
        return PatchError(line, exc.message)
    if not ops:
        return PatchError(0, "the patch has no file operations (Add, Delete or Update File)")
    return Patch(tuple(ops))


def path_problem(path: str) -> str | None:
    """Why a patch path is refused, or ``None``. A backslash: on this system it is a
    character of a name, not a separator, so ``nested\\new.txt`` would make a file of
    that name at the top; whoever wrote it meant a directory, so the message names the
    path with ``/``."""
    if "\\" in path:
        fixed = path.replace("\\", "/")
        return (
            f"the path {path!r} contains a backslash; paths use '/' between directories "
            f"(write {fixed!r})"
        )
    return None


def _path(line: str, prefix: str, n: int) -> str:
    path = line[len(prefix) :].strip()
    if not path:
        raise _Invalid(n, f"'{prefix}' needs a path")
    problem = path_problem(path)
    if problem:
        raise _Invalid(n, problem)
    return path


def _parse_operations(lines: list[str], first: int) -> list[Operation]:
    ops: list[Operation] = []
    i = 0
    while i < len(lines):
        n = first + i
        line = _marker(lines[i])
        if line.startswith(ADD):
            body, i = _take_body(lines, i + 1)
            ops.append(AddFile(_path(line, ADD, n), _added_text(body, first), n))
        elif line.startswith(DELETE):
            ops.append(DeleteFile(_path(line, DELETE, n), n))
            i += 1
        elif line.startswith(UPDATE):
            path = _path(line, UPDATE, n)
            i += 1
            move_to = None
            if i < len(lines) and _marker(lines[i]).startswith(MOVE):
                move_to = _path(_marker(lines[i]), MOVE, first + i)
                i += 1
            body, i = _take_body(lines, i)
            hunks = _parse_hunks(body, first)
            if not any(h.changes for h in hunks) and move_to is None:
                raise _Invalid(n, f"'{UPDATE} {path}' has no hunk that changes anything")
            ops.append(UpdateFile(path, tuple(hunks), move_to, n))
        elif not line.strip():
            i += 1
        else:
            raise _Invalid(
                n,
                f"expected '{ADD} path', '{DELETE} path', '{UPDATE} path' or '{END}', "
                f"got {_show(lines[i])}",
            )
    return ops


def _take_body(lines: list[str], i: int) -> tuple[list[tuple[int, str]], int]:
    """The lines up to the next file marker, with their index."""
    body: list[tuple[int, str]] = []
    while i < len(lines) and not _marker(lines[i]).startswith(_FILE_MARKERS):
        body.append((i, lines[i]))
        i += 1
    return body, i


def _added_text(body: list[tuple[int, str]], first: int) -> str:
    out: list[str] = []
    for k, (i, line) in enumerate(body):
        if line.startswith("+"):
            out.append(line[1:])
        elif not line.strip() and all(not x.strip() or x.startswith("+") for _, x in body[k:]):
            # an empty line between '+' lines is an empty line of the file; trailing ones
            # only separate this operation from the next
            if any(x.startswith("+") for _, x in body[k:]):
                out.append("")
        else:
            raise _Invalid(
                first + i,
                f"every line of an added file must start with '+', got {_show(line)}",
            )
    return "".join(x + "\n" for x in out)


def _scope(line: str) -> str:
    rest = line.strip()[2:].strip()
    found = _UNIFIED_RANGE.match(rest)
    return rest[found.end() :].strip() if found else rest


def _parse_hunks(body: list[tuple[int, str]], first: int) -> list[Hunk]:
    hunks: list[Hunk] = []
    scopes: list[str] = []
    lines: list[tuple[str, str]] = []
    start = first + body[0][0] if body else 0
    eof = False

    def close() -> None:
        nonlocal lines, scopes, eof
        if not eof:  # bare empty lines at a hunk's end separate it from what follows
            while lines and lines[-1][0] == "":
                lines.pop()
        if lines:
            kept = tuple((k or " ", t) for k, t in lines)
            hunks.append(Hunk(tuple(s for s in scopes if s), kept, eof, start))
        lines, scopes, eof = [], [], False

    for i, raw in body:
        n = first + i
        if eof and not raw.strip():
            continue  # blank lines after the marker name nothing: there is no line after it
        if eof and not raw.strip().startswith("@@"):
            raise _Invalid(n, f"'{END_OF_FILE}' must end its hunk; start a new hunk with '@@'")
        if raw.strip().startswith("@@"):
            if lines:
                close()
            if not scopes:
                start = n
            scopes.append(_scope(raw))
        elif _marker(raw) == END_OF_FILE:
            if not lines:
                raise _Invalid(n, f"'{END_OF_FILE}' follows no hunk line")
            eof = True
        elif raw[:1] in (" ", "-", "+"):
            if not lines and not scopes:
                start = n
            lines.append((raw[0], raw[1:]))
        elif raw == "":
            if not lines and not scopes:
                start = n
            lines.append(("", ""))  # an empty context line, unless it ends the hunk
        elif raw.startswith("*** "):
            raise _Invalid(n, f"unknown marker {_show(raw)}")
        else:
            raise _Invalid(
                n,
                "a hunk line must start with ' ' (context), '-' (remove) or '+' (add), "
                f"or be an '@@' line; got {_show(raw)}",
            )
    close()
    return hunks


def parse_update_diff(diff: str) -> tuple[Hunk, ...] | PatchError:
    """The hunks of a Responses ``update_file`` operation's diff (no file markers)."""
    if not isinstance(diff, str) or not diff.strip():
        return PatchError(0, "the diff is empty")
    lines = _lines(diff)
    try:
        for i, line in enumerate(lines):
            if _marker(line) in (BEGIN, END) or _marker(line).startswith(_FILE_MARKERS):
                raise _Invalid(i + 1, f"an update_file diff holds hunks only, got {_show(line)}")
        hunks = _parse_hunks(list(enumerate(lines)), 1)
    except _Invalid as exc:
        return PatchError(exc.line, exc.message)
    if not any(h.changes for h in hunks):
        return PatchError(0, "the diff has no hunk that changes anything")
    return tuple(hunks)


def parse_create_diff(diff: str) -> str | PatchError:
    """The content of a Responses ``create_file`` operation: its ``+`` lines, each ending
    with a newline. A last ``+`` line with nothing after it stands for the final newline
    (as the OpenAI Agents SDK reads it: ``+a`` ``+b`` ``+`` is ``a\nb\n``), not for an
    empty line more."""
    if not isinstance(diff, str):
        return PatchError(0, "the diff must be text")
    lines = _lines(diff)
    if len(lines) >= 2 and lines[-1] == "+":
        lines.pop()
    try:
        return _added_text(list(enumerate(lines)), 1)
    except _Invalid as exc:
        return PatchError(exc.line, exc.message)
