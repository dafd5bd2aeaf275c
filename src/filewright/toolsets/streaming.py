"""The streamed forms of the toolsets' changes (`Change.streamed`), made as the in-memory
edit makes the change: what a large file gets instead of the edit functions.

Only the toolsets' changing code imports this module (the `default` toolset's from
`default_edits`, loaded by name), so a CLI read does not pay for the edit rules.
"""

from __future__ import annotations

from typing import Any

from filewright.edit import edits, matching
from filewright.edit.placeholders import omission_placeholders
from filewright.edit.replacement import keep_line_breaks
from filewright.edit.suggest import locations
from filewright.engine import streamops


def stream_write(content: str) -> streamops.StreamWrite | None:
    """The streamed form of a whole-file write; None when `content` holds omission
    placeholders (the in-memory write refuses it, with the file's text at hand)."""
    return None if omission_placeholders(content, "") else streamops.StreamWrite(content)


def stream_replace(old: str, new: str, **options: Any) -> streamops.StreamReplace:
    """The streamed form of a literal replacement as `edit.edits.replace` makes it in
    memory: a unique (or first-match) one adapted to the lines around its match, a
    replace-all to the line of each match
    (`replace_in_context`), any other with the line breaks at `old`'s ends kept
    (`keep_line_breaks`); the omission placeholders it would refuse carried along."""
    found = tuple(omission_placeholders(new, old))
    adapt = adapt_each = None
    if options.get("mode", "unique") in ("unique", "first"):

        def adapt(before: str | None, after: str | None) -> Any:
            return replace_in_context(old, new, before, after)

    else:

        def adapt_each(prefix: str, at_line_end: bool) -> Any:
            return replace_in_context(old, new, prefix, "\n" if at_line_end else "\x01\n")

    return streamops.StreamReplace(
        old,
        keep_line_breaks(old, new),
        placeholders=found,
        adapt=adapt,
        adapt_each=adapt_each,
        describe=describe,
        **options,
    )


def describe(text: str, spans: list[tuple[int, int, int]], first_line: int) -> Any:
    """The locations a streamed ambiguity lists, as the in-memory edit's refusal has them."""
    return locations(text, spans, first_line=first_line)


def replace_in_context(old: str, new: str, before: str | None, after: str | None) -> Any:
    """The text that replaces the one match of `old` between the lines `before` and
    `after` (None: not known), as `edit.edits.replace` writes it in memory; or its
    failure (an `EditFailure`)."""
    text = "" if before is None or after is None else before + old + after
    # (not known, or another place nearby, overlapping this one too: "first" mode)
    if len(matching.find(text, old, fuzzy=False).places) != 1:
        return keep_line_breaks(old, new)
    done = edits.replace(text, old, new, placeholders=False)
    if not isinstance(done, edits.Edited):
        return done
    assert before is not None and after is not None
    out = done.text
    if len(out) < len(before) + len(after) or not (out.startswith(before) and out.endswith(after)):
        return keep_line_breaks(old, new)  # (the lines around changed: not expected)
    return out[len(before) : len(out) - len(after)]
