"""File names a rule may single out: clues, and a filter that checks many names at once.

A rule whose last component is `*.pem` can only match a file whose name ends in `.pem`
(in some case, perhaps with trailing dots or spaces); `id_rsa*` one that starts with
`id_rsa`. A directory's open rules give such clues; a name that shows none of them gets
the directory's verdict without a check of its own.
"""

from __future__ import annotations

import re
from itertools import compress, repeat
from operator import contains

TOKEN = re.compile(
    r"(?P<star>\[\^/\][*+]?)"  # [^/]  [^/]*  [^/]+
    r"|(?P<esc>\\[^A-Za-z0-9])"  # an escaped punctuation character
    r"|(?P<cls>\[(?:\\.|[^\]\\])+\])"  # a character class (checked: never `/`)
    r"|(?P<sep>/)"
    r"|(?P<lit>[^.^$*+?{}\[\]\\|()/])"
)


def clue_of(source: str) -> tuple[str, str] | None:
    """The literal start, end, or middle that a component regex requires."""
    runs: list[list[str]] = [[]]
    for m in TOKEN.finditer(source):
        if m.lastgroup == "lit":
            runs[-1].append(m.group())
        elif m.lastgroup == "esc":
            runs[-1].append(m.group()[1])
        elif runs[-1]:
            runs.append([])
    texts = ["".join(run) for run in runs]
    if not any(texts):
        return None
    first = TOKEN.match(source)
    if first is not None and first.lastgroup in ("lit", "esc"):
        return "prefix", texts[0]
    if _ends_literal(source):
        return "suffix", texts[-1]
    return "within", max(texts, key=len)


def _ends_literal(source: str) -> bool:
    last = None
    for m in TOKEN.finditer(source):
        last = m
    return last is not None and last.lastgroup in ("lit", "esc")


class NameFilter:
    """Which file names may be singled out by the clues of `name_clues` (a superset:
    names it lets pass need the full check; names it stops do not)."""

    def __init__(self, clues: frozenset[tuple[str, str]]) -> None:
        def pick(kind: str) -> tuple[str, ...]:
            return tuple(sorted(text for k, text in clues if k == kind))

        self.exact = frozenset(pick("exact"))
        self.prefixes = pick("prefix")
        self.suffixes = pick("suffix")
        self.within = pick("within")
        self.exact_b = frozenset(x.encode() for x in self.exact)
        self.prefixes_b = tuple(x.encode() for x in self.prefixes)
        self.suffixes_b = tuple(x.encode() for x in self.suffixes)
        self.within_b = tuple(x.encode() for x in self.within)
        self.seen: dict[bytes, bool] = {}
        """`may_match`'s answers so far (names recur from directory to directory)."""

    def may_match_cached(self, name: bytes) -> bool:
        """`may_match`, remembered for the next directory with a file so named."""
        seen = self.seen
        found = seen.get(name)
        if found is None:
            if len(seen) > 100_000:
                seen.clear()
            found = seen[name] = self.may_match(name)
        return found

    def may_match(self, name: bytes) -> bool:
        """Whether a rule may single out the file named `name` (bytes)."""
        if not name.isascii() or b"\n" in name:
            return True
        low = name.lower()
        cut = low.rstrip(b". ")
        if low in self.exact_b or cut in self.exact_b:
            return True
        if self.prefixes_b and low.startswith(self.prefixes_b):
            return True
        if self.suffixes_b and (low.endswith(self.suffixes_b) or cut.endswith(self.suffixes_b)):
            return True
        return any(w in low for w in self.within_b)

    def candidates(self, names: list[str]) -> set[str]:
        """The names (of files in one directory) that `may_match_text`, found in bulk:
        clues absent from all the names together are not looked for name by name."""
        if not names:
            return set()
        joined = "\0".join(names)
        if not joined.isascii() or "\n" in joined:
            return {name for name in names if self.may_match_text(name)}
        low_joined = joined.lower()
        low = low_joined.split("\0")
        found: set[str] = set()
        # Each clue over all the names at once (C loops, no Python step per name).
        # (A name ending in a dot or space folds to a shorter one: checked in full.)
        suffixes = (*self.suffixes, " ", ".")
        found.update(compress(names, map(str.endswith, low, repeat(suffixes))))
        if self.prefixes:
            found.update(compress(names, map(str.startswith, low, repeat(self.prefixes))))
        for inner in self.within:
            if inner in low_joined:
                found.update(compress(names, map(contains, low, repeat(inner))))
        exact = self.exact.intersection(low)
        if exact:
            found.update(compress(names, map(exact.__contains__, low)))
        return found

    def may_match_text(self, name: str) -> bool:
        """`may_match` for a name as text."""
        if not name.isascii() or "\n" in name:
            return True
        low = name.lower()
        cut = low.rstrip(". ")
        if low in self.exact or cut in self.exact:
            return True
        if self.prefixes and low.startswith(self.prefixes):
            return True
        if self.suffixes and (low.endswith(self.suffixes) or cut.endswith(self.suffixes)):
            return True
        return any(w in low for w in self.within)
