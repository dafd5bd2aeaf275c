"""The streamed forms of changes that toolsets attach to a `pipeline.Change`
(`streamed=`), and the short description of one that a large file gets instead of a diff.

See `engine.streamed` for how they are carried out.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

EXACT_ONLY_NOTE = (
    "the file is larger than {limit} bytes, so it is changed in streaming mode: "
    "only text that matches exactly is found (no tolerance for whitespace, indentation "
    "or quotes)"
)
TOO_LARGE_ADVICE = (
    "change it with a command-line tool (sed -i, perl -pi) or split it into smaller files"
)


@dataclass(frozen=True)
class StreamReplace:
    """Literal replace: `mode` "unique" (exactly one match), "first", "all", or "count"
    (the first `count`); `expected` (with "all"): exactly that many matches.

    `placeholders`: omission placeholders `new` holds and `old` does not (the toolset's
    `edit.placeholders` finds them): the change is refused with code "placeholder" unless
    the file already holds each of them (then they are the file's own text); with
    `refuse_placeholders_always`, whatever the file holds.

    `adapt(before, after)` ("unique" and "first"): the replacement for the (first) match given the whole
    lines around it (text, "\n" newlines; None for a side where the match's own line is
    too long to be given), as the in-memory edit would make it; or a failure value with
    `code` and `detail`. It costs a read of the file up to the match before the pass.

    `adapt_each(prefix, at_line_end)` ("all" and "count"): the replacement of one match
    given the text before it on its line and whether a line end follows, as the
    in-memory edit writes each match of a replace-all. When it gives the same text
    whatever the match's line looks like (the common case), the fast byte replace runs
    with that text; otherwise each match is replaced in a line-aware pass (slower).

    `describe(text, spans, first_line)`: the locations an ambiguity refusal lists, as the
    in-memory edit describes them (`edit.suggest.locations`), for one match in an excerpt
    of the file (`spans`: its offset, first and last line in `text`; `first_line`: the
    file's number of the excerpt's first line).

    `first_at`, `first_line` ("unique" and "first", set by `streamrules.adapted` from its
    read): the byte offset of the first match (no match starts before it) and its line;
    the pass then neither searches nor counts lines before it."""

    old: str
    new: str
    mode: str = "unique"
    count: int | None = None
    expected: int | None = None
    placeholders: tuple[str, ...] = ()
    refuse_placeholders_always: bool = False
    adapt: Any = None
    adapt_each: Any = None
    describe: Any = None
    first_at: int = 0
    first_line: int | None = None


@dataclass(frozen=True)
class StreamRegex:
    """Regex replace of the first `count` matches (None: all); `pattern` is compiled by
    `core.regexes.compile`; `literal`: `template` is inserted as is; `placeholders` as
    for `StreamReplace`."""

    pattern: Any
    template: str
    count: int | None = None
    literal: bool = False
    placeholders: tuple[str, ...] = ()
    refuse_placeholders_always: bool = False


@dataclass(frozen=True)
class StreamInsert:
    """Insert `text` as whole lines after line `line` (0: at the top)."""

    line: int
    text: str


@dataclass(frozen=True)
class StreamSpan:
    """Span replace between literal markers: `compute(span_text)` (the span decoded,
    markers included, "\\n" newlines) returns the new span text, or a failure value with
    `code` and `detail` (an `edit.outcome.EditFailure`)."""

    start: str
    end: str
    compute: Any
    search_after: str | None = None


@dataclass(frozen=True)
class StreamAppend:
    """Append `text` exactly as given."""

    text: str


@dataclass(frozen=True)
class StreamWrite:
    """Replace the whole content with `text` (in the file's encoding and newlines)."""

    text: str


@dataclass(frozen=True)
class StreamBatch:
    """Several operations in order, each on the result of the previous, in one pass."""

    ops: tuple[StreamReplace | StreamRegex | StreamInsert, ...]


StreamOp = (
    StreamReplace
    | StreamRegex
    | StreamInsert
    | StreamSpan
    | StreamAppend
    | StreamWrite
    | StreamBatch
)


def describe(op: Any, name: str) -> str:
    """A short description of a streamed change (a large file gets no full diff)."""
    head = f"--- a/{name}\n+++ b/{name}\n"
    if isinstance(op, StreamReplace):
        return (
            head
            + "".join(f"-{x}\n" for x in op.old.split("\n"))
            + "".join(f"+{x}\n" for x in op.new.split("\n"))
        )
    if isinstance(op, StreamRegex):
        return head + f"@@ regex {op.pattern.pattern!r} -> {op.template!r} @@\n"
    if isinstance(op, StreamInsert):
        return (
            head
            + f"@@ after line {op.line} @@\n"
            + "".join(f"+{x}\n" for x in op.text.rstrip("\n").split("\n"))
        )
    if isinstance(op, StreamAppend | StreamWrite):
        return head + "".join(f"+{x}\n" for x in op.text.rstrip("\n").split("\n"))
    if isinstance(op, StreamBatch):
        return head + "".join(describe(o, name)[len(head) :] for o in op.ops)
    return head
