"""Policy verdicts at tree scale: rules compiled once into per-directory states.

A rule's pattern is a regex (pathspec's translation of a gitignore pattern) matched
against a whole path.  Most translations have one of a few shapes whose outcome depends
on the path's components one at a time: "some component is X" (`name`), "some directory
is X" (`name/`), "the path starts with X/Y" (`/x/y`), "anything" (`*`).  Those are
checked component by component; any other rule is matched as a regex against the whole
path, as before (its leading fixed directories, if any, still rule it out early).

Walking down a path, each rule is, for everything below a directory, decided (it
matches all of it, or none) or still open.  A directory's `DirState` keeps the highest
rule that matches all below it and the open rules above that one; when none is open,
every path below has the same verdict, known without looking at its name (the common
case: no rule mentions anything under `src/`).  States are interned, so a tree of a
million files has a handful of them.

Exact: for paths without a newline, a leading `/` or an empty component (those go to
the plain regex check), the answer is the regexes' own (tests/test_policy_fast.py
compares the two on random rules and paths).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from filewright.core.record import Frozen
from filewright.policy.names import TOKEN, clue_of

# Shapes of a compiled rule.
EVERYTHING = 0  # `.`: every non-empty path
COMPONENT = 1  # ^(?:.+/)?C(?:/|$): some component is C
DIR_COMPONENT = 2  # ^(?:.+/)?C/: some component followed by `/` is C
ANCHORED = 3  # ^C1/.../Ck(?:/|$): the first k components are C1..Ck
ANCHORED_DIR = 4  # ^C1/.../Ck/: the same, followed by `/`
GENERAL = 5  # anything else: the regex on the whole path

_ANY_PREFIX = "^(?:.+/)?"
_ENDS = (("(?:/|$)", False), ("/", True))


class Component(Frozen):
    """A predicate on one path component: a literal name, or a regex."""

    _fields = ("literal", "fullmatch")
    __slots__ = _fields
    literal: str | None
    fullmatch: Callable[..., Any]

    def __init__(self, literal: str | None, fullmatch: Callable[..., Any]) -> None:
        self._set(literal, fullmatch)

    def match(self, name: str) -> bool:
        if self.literal is not None:
            return name == self.literal
        return self.fullmatch(name) is not None


def _components(body: str, compile_: Callable[[str], Any]) -> tuple[list[Component], int]:
    """The leading `/`-separated components of a regex body that can only match within
    one component, and how many characters of `body` they (and their separators) took.

    A component counts only when a `/` follows it (or the body ends there)."""
    parts: list[Component] = []
    pos = 0
    start = 0
    source: list[str] = []
    literal: list[str] | None = []
    while True:
        m = TOKEN.match(body, pos)
        at_end = pos == len(body)
        if at_end or m is None or m.lastgroup == "sep":
            if not source:
                return parts, start
            comp = _component("".join(source), literal, compile_)
            if comp is None:
                return parts, start
            if not at_end and m is None:
                if body.startswith("(?:/.+)?/", pos):  # `a/**/b`: a separator follows
                    parts.append(comp)
                    return parts, pos
                return parts, start
            parts.append(comp)
            if at_end or m is None:
                return parts, len(body)
            pos = start = m.end()
            source, literal = [], []
            continue
        kind, text = m.lastgroup, m.group()
        if kind == "cls" and re.fullmatch(text, "/") is not None:
            return parts, start
        source.append(text)
        if literal is not None:
            if kind == "lit":
                literal.append(text)
            elif kind == "esc":
                literal.append(text[1])
            else:
                literal = None
        pos = m.end()


def _component(
    source: str, literal: list[str] | None, compile_: Callable[[str], Any]
) -> Component | None:
    if re.fullmatch(source, "") is not None:
        return None  # (an empty component is not a component)
    if literal is not None:
        return Component("".join(literal), str.__eq__)
    rx = compile_(source)
    return Component(None, rx.fullmatch)


class Shape(Frozen):
    """How a rule's regex depends on a path's components (see the module docstring)."""

    _fields = ("kind", "parts", "match", "literal", "source")
    __slots__ = _fields
    kind: int
    parts: tuple[Component, ...]
    """COMPONENT/DIR_COMPONENT: the one component; ANCHORED*: all k; GENERAL: the
    leading components any match must start with."""
    match: Callable[[str], bool] | None
    """GENERAL: the rule's own match on a whole path."""
    literal: str
    """GENERAL: text every path it matches holds, within one component ("": none known)."""
    source: str
    """COMPONENT/DIR_COMPONENT/ANCHORED*: the last component's regex source."""

    def __init__(
        self,
        kind: int,
        parts: tuple[Component, ...] = (),
        match: Callable[[str], bool] | None = None,
        literal: str = "",
        source: str = "",
    ) -> None:
        self._set(kind, parts, match, literal, source)


def shape_of(
    source: str, match: Callable[[str], bool], compile_: Callable[[str], Any], literal: str = ""
) -> Shape:
    """The shape of a rule whose regex source (pathspec's) is `source`; `literal`: text
    within one component that every path it matches holds."""
    if source == ".":
        return Shape(EVERYTHING)
    for end, is_dir in _ENDS:
        if not source.endswith(end):
            continue
        if source.startswith(_ANY_PREFIX):
            body = source[len(_ANY_PREFIX) : len(source) - len(end)]
            parts, used = _components(body, compile_)
            if len(parts) == 1 and used == len(body):
                kind = DIR_COMPONENT if is_dir else COMPONENT
                return Shape(kind, tuple(parts), source=body)
        elif source.startswith("^"):
            body = source[1 : len(source) - len(end)]
            parts, used = _components(body, compile_)
            if parts and used == len(body):
                kind = ANCHORED_DIR if is_dir else ANCHORED
                return Shape(kind, tuple(parts), source=_last_component(body))
    prefix: list[Component] = []
    if source.startswith("^") and not source.startswith(_ANY_PREFIX):
        body = source[1:]
        parts, used = _components(body, compile_)
        # Components count when a separator surely follows (`a/**/b`: `^a(?:/.+)?/b`).
        rest = body[used:]
        if (used and body[used - 1] == "/") or rest.startswith("(?:/.+)?/"):
            prefix = parts
    return Shape(GENERAL, tuple(prefix), match, literal)


def _last_component(body: str) -> str:
    """The regex source after the last separator token of a component-wise body."""
    pos = last = 0
    while pos < len(body):
        m = TOKEN.match(body, pos)
        assert m is not None
        pos = m.end()
        if m.lastgroup == "sep":
            last = pos
    return body[last:]


def name_clues(leaf: Leaf | None, folded_dir: str) -> frozenset[tuple[str, str]] | None:
    """What a file name in the directory must show for a rule of `leaf` to match it:
    `("exact", x)`, `("prefix", x)`, `("suffix", x)` or `("within", x)`, x lower-case
    ASCII (a name that is not ASCII must be checked in any case); None when any name
    could match. `folded_dir`: the directory's folded path."""
    if leaf is None:
        return frozenset()
    clues = leaf.clues
    if clues is None or not leaf.general:
        return clues
    extra = set()
    for literal in leaf.general:
        if literal in folded_dir:
            return None
        if literal.isascii():
            extra.add(("within", literal))
    return clues | extra


class Leaf:
    """What decides a name inside a directory: literal names (for any entry, and for
    directories only), then the other open rules, highest first; and what a file name
    must show for any of them to match it (`clues`, None: anything; `general`: the
    inner texts of regex rules, which may lie in the directory's path instead)."""

    __slots__ = ("best", "clues", "depth", "dir_names", "general", "names", "others")

    def __init__(
        self,
        best: int,
        names: dict[str, int],
        dir_names: dict[str, int],
        others: tuple[tuple[int, Shape], ...],
        depth: int,
    ) -> None:
        self.best, self.names, self.dir_names = best, names, dir_names
        self.others, self.depth = others, depth
        clues: set[tuple[str, str]] | None = {("exact", n) for n in names if n.isascii()}
        general: list[str] = []
        for _, shape in others:
            kind = shape.kind
            if kind in (DIR_COMPONENT, ANCHORED_DIR):
                continue  # (directories only)
            if kind == EVERYTHING or (kind == GENERAL and not shape.literal):
                clues = None
                break
            if kind == GENERAL:
                general.append(shape.literal)
                continue
            clue = clue_of(shape.source)
            if clue is None:
                clues = None
                break
            if clue[1].isascii() and clues is not None:
                clues.add(clue)
        self.clues = None if clues is None else frozenset(clues)
        self.general = tuple(general)


class DirState:
    """The rules of one list as seen from inside a directory: `best`, the highest rule
    matching every path below (-1: none); `open`, the undecided rules above it (highest
    first); `leaf`, what decides an entry's name (None when `best` decides them all).
    States are interned: compare them by identity."""

    __slots__ = (
        "best",
        "children",
        "depth",
        "kept",
        "leaf",
        "literals",
        "open",
        "plain",
        "tests",
    )

    def __init__(self, best: int, open_: tuple[int, ...], depth: int, leaf: Leaf | None) -> None:
        self.best, self.open, self.depth, self.leaf = best, open_, depth, leaf
        self.children: dict[str, DirState] = {}
        # A subdirectory whose name is none of `literals` and fails every one of `tests`
        # is `plain`: no open rule is decided or narrowed by its name.
        self.literals: frozenset[str] = frozenset()
        self.tests: tuple[Component, ...] | None = ()
        self.plain: DirState | None = None
        self.kept: tuple[int, ...] = ()


MAX_CHILDREN = 4096
"""Subdirectory names remembered per state (most trees reuse a few: `src`, `tests`)."""


class RuleList:
    """One ordered list of rules, compiled into shapes; the last matching rule wins."""

    def __init__(self, shapes: list[Shape]) -> None:
        self.shapes = shapes
        self._states: dict[tuple[int, tuple[int, ...], int], DirState] = {}
        self._anchored_depth = max(
            (len(s.parts) for s in shapes if s.kind in (ANCHORED, ANCHORED_DIR, GENERAL)),
            default=0,
        )
        self.root = self._state(-1, tuple(range(len(shapes) - 1, -1, -1)), 0)

    def _state(self, best: int, open_: tuple[int, ...], depth: int) -> DirState:
        # Beyond the deepest anchored part, depth changes nothing: states are shared.
        depth_key = depth if depth <= self._anchored_depth else -1
        key = (best, open_, depth_key)
        state = self._states.get(key)
        if state is None:
            state = self._states[key] = DirState(best, open_, depth, self._leaf(best, open_, depth))
            self._plain(state)
        return state

    def _plain(self, state: DirState) -> None:
        """Fill in what makes a subdirectory's name matter (see `DirState`)."""
        literals: set[str] = set()
        tests: list[Component] = []
        kept: list[int] = []
        for i in state.open:
            shape = self.shapes[i]
            kind = shape.kind
            if kind == EVERYTHING:
                state.tests = None  # (every name matters)
                return
            if kind in (COMPONENT, DIR_COMPONENT):
                comp = shape.parts[0]
                kept.append(i)
            elif kind in (ANCHORED, ANCHORED_DIR) or len(shape.parts) > state.depth:
                comp = shape.parts[state.depth]  # (a plain name drops the rule)
            else:
                kept.append(i)  # (a regex rule past its fixed directories)
                continue
            if comp.literal is not None:
                literals.add(comp.literal)
            else:
                tests.append(comp)
        state.literals = frozenset(literals)
        state.tests = tuple(tests)
        state.kept = tuple(kept)

    def _leaf(self, best: int, open_: tuple[int, ...], depth: int) -> Leaf | None:
        names: dict[str, int] = {}
        dir_names: dict[str, int] = {}
        others: list[tuple[int, Shape]] = []
        for i in open_:  # highest first
            shape = self.shapes[i]
            kind = shape.kind
            if kind in (ANCHORED, ANCHORED_DIR) and len(shape.parts) != depth + 1:
                continue  # an entry here is too shallow for it
            if kind in (COMPONENT, DIR_COMPONENT, ANCHORED, ANCHORED_DIR):
                comp = shape.parts[-1]
                if comp.literal is not None:
                    table = names if kind in (COMPONENT, ANCHORED) else dir_names
                    table.setdefault(comp.literal, i)
                    continue
            others.append((i, shape))
        if not names and not dir_names and not others:
            return None
        return Leaf(best, names, dir_names, tuple(others), depth)

    def child(self, state: DirState, name: str) -> DirState:
        """The state inside directory `name` of the directory in `state`."""
        found = state.children.get(name)
        if found is not None:
            return found
        tests = state.tests
        if (
            tests is not None
            and name not in state.literals
            and not any(t.fullmatch(name) is not None for t in tests)
        ):
            found = state.plain
            if found is None:  # (made on first use: no recursion down a deep rule)
                found = state.plain = self._state(state.best, state.kept, state.depth + 1)
        else:
            found = self._child(state, name)
        assert found is not None
        if len(state.children) < MAX_CHILDREN:
            state.children[name] = found
        return found

    def _child(self, state: DirState, name: str) -> DirState:
        depth = state.depth + 1
        best = state.best
        still: list[int] = []
        for i in state.open:
            shape = self.shapes[i]
            kind = shape.kind
            if kind == EVERYTHING:
                hit = True
            elif kind in (COMPONENT, DIR_COMPONENT):
                hit = shape.parts[0].match(name)
            elif kind in (ANCHORED, ANCHORED_DIR):
                if not shape.parts[depth - 1].match(name):
                    continue
                hit = depth == len(shape.parts)
            else:
                if depth <= len(shape.parts) and not shape.parts[depth - 1].match(name):
                    continue
                hit = False
            if hit:
                best = max(best, i)
            else:
                still.append(i)
        return self._state(best, tuple(i for i in still if i > best), depth)

    def leaf(self, state: DirState, name: str, is_dir: bool, key: Callable[[], str]) -> int:
        """The highest rule matching entry `name` (a directory if `is_dir`) of the
        directory in `state`; `key()` gives the entry's whole path for regex rules."""
        leaf = state.leaf
        if leaf is None:
            return state.best
        best = leaf.best
        hit = leaf.names.get(name, -1)
        if hit > best:
            best = hit
        if is_dir:
            hit = leaf.dir_names.get(name, -1)
            if hit > best:
                best = hit
        full: str | None = None
        for i, shape in leaf.others:
            if i <= best:
                break
            kind = shape.kind
            if kind == EVERYTHING:
                return i
            if kind == GENERAL:
                if full is None:
                    full = key()
                if shape.match(full):  # type: ignore[misc]
                    return i
            elif (is_dir or kind in (COMPONENT, ANCHORED)) and shape.parts[-1].match(name):
                return i
        return best
