"""Globs with ripgrep's exact semantics (its ``globset`` crate), compiled to bytes regexes.

``*`` and ``?`` never match ``/``; ``**/``, ``/**`` and ``/**/`` match any number of
directories (``**`` elsewhere is two ``*``); ``[a-z]`` / ``[!a-z]`` classes; ``{a,b}``
alternatives (not nested); ``\\`` escapes.  Matching is on a path's bytes, so ``?`` is
one byte and case-insensitive matching folds ASCII letters only, as in ripgrep.
"""

from __future__ import annotations

import re

import regex


class GlobError(ValueError):
    """A glob that ripgrep would refuse; the message says why."""


def _lit(ch: str) -> str:
    return "".join(f"\\x{b:02x}" for b in ch.encode("utf-8", "surrogateescape"))


# Token kinds of a parsed glob (mirroring globset's tokens).
_SEP = "/"
_ANY = "[^/]"
_STAR = "[^/]*"
_RPREFIX = "(?:/?|.*/)"
_RSUFFIX = "/.*"
_RZERO = "(?:/|/.*/)"
_Token = str | list[list["_Token"]]  # a regex snippet, or alternatives


class _GlobParser:
    """A port of globset's glob parser, producing regex snippets."""

    def __init__(self, glob: str) -> None:
        self.glob = glob
        self.i = 0
        self.prev: str | None = None
        self.stack: list[list[_Token]] = [[]]

    def error(self, msg: str) -> GlobError:
        return GlobError(f"error parsing glob '{self.glob}': {msg}")

    def peek(self) -> str | None:
        return self.glob[self.i] if self.i < len(self.glob) else None

    def push(self, tok: _Token) -> None:
        self.stack[-1].append(tok)

    def parse(self) -> list[_Token]:
        while (c := self.peek()) is not None:
            self.prev = self.glob[self.i - 1] if self.i else None
            self.i += 1
            if c == "?":
                self.push(_ANY)
            elif c == "*":
                self.star()
            elif c == "[":
                self.push(self.klass())
            elif c == "{":
                if len(self.stack) > 1:
                    raise self.error("nested alternate groups are not allowed")
                self.stack.append([])
            elif c == "}":
                alts: list[list[_Token]] = []
                while len(self.stack) >= 2:
                    alts.append(self.stack.pop())
                self.push(alts[::-1])
            elif c == ",":
                if len(self.stack) <= 1:
                    self.push(_lit(","))
                else:
                    self.stack.append([])
            elif c == "\\":
                esc = self.peek()
                if esc is None:
                    raise self.error("dangling '\\'")
                self.i += 1
                self.push(_lit(esc))
            else:
                self.push(_SEP if c == "/" else _lit(c))
        if len(self.stack) > 1:
            raise self.error("unclosed alternate group; missing '}' (maybe escape '{' with '[{]'?)")
        return self.stack[0]

    def star(self) -> None:
        prev = self.prev
        if self.peek() != "*":
            self.push(_STAR)
            return
        self.i += 1
        nxt = self.peek()
        if not self.stack[-1]:
            if nxt is not None and nxt != "/":
                self.push(_STAR)
                self.push(_STAR)
            else:
                self.push(_RPREFIX)
                if nxt is not None:
                    self.i += 1
            return
        if prev != "/" and (len(self.stack) <= 1 or prev not in (",", "{")):
            self.push(_STAR)
            self.push(_STAR)
            return
        if nxt is None or (nxt in ",}" and len(self.stack) >= 2):
            is_suffix = True
        elif nxt == "/":
            self.i += 1
            is_suffix = False
        else:
            self.push(_STAR)
            self.push(_STAR)
            return
        last = self.stack[-1].pop()
        if last in (_RPREFIX, _RSUFFIX):
            self.push(last)
        else:
            self.push(_RSUFFIX if is_suffix else _RZERO)

    def klass(self) -> str:
        negated = self.peek() in ("!", "^")
        if negated:
            self.i += 1
        ranges: list[list[str]] = []
        first = True
        in_range = False
        while True:
            c = self.peek()
            if c is None:
                raise self.error("unclosed character class; missing ']'")
            self.i += 1
            if c == "]" and not first:
                break
            if c == "-" and not first:
                if in_range:
                    self.extend(ranges[-1], "-")
                    in_range = False
                else:
                    in_range = True
            elif in_range:
                self.extend(ranges[-1], c)
                in_range = False
            else:
                ranges.append([c, c])
            first = False
        if in_range:
            ranges.append(["-", "-"])
        body = "".join(_lit(a) if a == b else f"{_lit(a)}-{_lit(b)}" for a, b in ranges)
        return "[" + ("^" if negated else "") + body + "]"

    def extend(self, rng: list[str], c: str) -> None:
        if rng[0] > c:
            raise self.error(f"invalid range; '{rng[0]}' > '{c}'")
        rng[1] = c


def _tokens_regex(tokens: list[_Token]) -> str:
    out = []
    for tok in tokens:
        if isinstance(tok, str):
            out.append(tok)
        else:
            parts = [r for r in (_tokens_regex(alt) for alt in tok) if r]
            if parts:
                out.append("(?:" + "|".join(parts) + ")")
    return "".join(out)


def glob_to_regex(glob: str) -> str:
    """Translate one glob into the body of an anchored bytes regex (globset semantics).

    Raises :class:`GlobError` for the globs ripgrep rejects (unclosed class or
    alternation, nested alternation, invalid range, dangling escape).
    """
    tokens = _GlobParser(glob).parse()
    if tokens == [_RPREFIX]:
        return ".*"
    return _tokens_regex(tokens)


def compile_glob(glob: str, *, case_insensitive: bool = False) -> re.Pattern[bytes]:
    """Compile a glob into an anchored bytes regex matching whole relative paths."""
    flags = re.IGNORECASE if case_insensitive else 0
    # The `regex` engine: a glob like a*a*a*…b must not backtrack for minutes.
    return regex.compile(("^(?:" + glob_to_regex(glob) + r")\Z").encode("ascii"), flags)
