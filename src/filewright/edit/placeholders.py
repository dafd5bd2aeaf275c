"""Omission placeholders: lines a model writes instead of code it did not want to retype.

A ``new_string`` or a whole-file ``content`` holding ``// rest of methods ...``,
``(rest of code ...)`` or ``# ... existing code ...`` would write that line literally and
delete the code it stands for.  :func:`omission_placeholders` finds such lines that the
text being replaced does not already have, so a toolset can refuse the change.

A placeholder is one whole line made of, in order: optional indentation, an optional
comment marker (``//``, ``#``, ``--``, ``;``, ``%``, ``/*``, ``<!--``, ``{/*``, ``*``), an
optional opening bracket, then a phrase from :data:`PHRASES` with an ellipsis (``...``,
``…`` or more dots) before or after it (or both), then the matching closers.  Examples::

    // rest of methods ...        (rest of code ...)        # ... existing code ...
    /* ... unchanged code ... */  <!-- ... rest of file --> // ... other methods ...

A bare ``...`` (Python's ``Ellipsis``, a TypeScript spread) and comments without an
ellipsis are never placeholders.  Pure functions.
"""

from __future__ import annotations

import functools
import re

#: The phrases (lower case, single-spaced), after Gemini CLI's omission detector and the
#: comments Aider's and OpenHands' prompts warn about.
PHRASES: tuple[str, ...] = (
    r"rest of(?: the)?(?: \w+){0,3}",
    r"(?:existing|unchanged|remaining|previous|original|other|same)(?: \w+){0,2} "
    r"(?:code|methods?|functions?|imports?|content|lines?|tests?|propert(?:y|ies)|fields?"
    r"|logic|implementation|body|file|class(?:es)?|cases?|routes?|handlers?|config\w*|props"
    r"|state|members?|exports?|styles?|rules?|entries|items?|sections?|text|html|markup"
    r"|components?|definitions?|declarations?|statements?|steps?|parts?|stuff)(?: \w+){0,2}",
    r"(?:code|methods?|functions?|implementation|content|file|body|class) "
    r"(?:unchanged|omitted|elided|remains? the same|as before|stays? the same)",
    r"same as before",
    r"keep (?:the )?(?:existing|rest)(?: \w+){0,3}",
)

_DOTS = r"(?:\.{3,}|\u2026+)"
_PHRASE = "(?:" + "|".join(PHRASES) + ")"
_LINE = (
    r"^\s*"
    r"(?://+|#+|--|;+|%+|/\*+|<!--|\{/\*|\*)?\s*"  # comment marker
    r"[(\[{<]?\s*"  # opening bracket
    rf"(?:{_DOTS}\s*{_PHRASE}\.?\s*{_DOTS}?|{_PHRASE}\s*{_DOTS})"  # the phrase and an ellipsis
    r"\s*[)\]}>]?\s*"  # closing bracket
    r"(?:\*+/|-->|\*/\})?\s*$"  # comment closer
)


@functools.cache
def _line() -> re.Pattern[str]:
    """`_LINE` compiled, on first use: importing this module (as every toolset does)
    compiles nothing, so a plain read does not pay for it."""
    return re.compile(_LINE, re.IGNORECASE)


def is_placeholder(line: str) -> bool:
    """Is ``line`` (one line, no newline) an omission placeholder?"""
    if "." not in line and "\u2026" not in line:
        return False
    return _line().match(" ".join(line.split())) is not None


def omission_placeholders(new: str, old: str = "") -> list[str]:
    """The placeholder lines of ``new`` (stripped, in order) that ``old`` does not contain.

    ``old`` is the text being replaced: the ``old_string`` of an edit, the current content
    of a file being overwritten (empty for a new file).  A placeholder line already in
    ``old`` (compared stripped) is the file's own comment, not an omission.
    """
    if "..." not in new and "\u2026" not in new:
        return []
    had = {x.strip() for x in old.splitlines() if x.strip()}
    found: list[str] = []
    for line in new.splitlines():
        s = line.strip()
        if s and s not in had and s not in found and is_placeholder(s):
            found.append(s)
    return found
