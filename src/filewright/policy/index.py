"""The index `Policy.access` answers from: rules compiled per directory, cached.

Directories are met by their path relative to the root; each gets, for the path's
case-folded and its Unicode-folded form (as `Policy.decide` checks both), the trusted
and untrusted rules' `DirState`. A directory whose states leave no rule open has one
verdict for every file in it (`Entry.const`); otherwise `file_verdicts` gives the
verdict of its files bar the names a rule may single out (`NameFilter`).
"""

from __future__ import annotations

import unicodedata
from collections.abc import Mapping
from typing import Generic, TypeVar

from filewright.core.record import Frozen
from filewright.policy.names import NameFilter
from filewright.policy.verdicts import DirState, RuleList, Shape, name_clues

V = TypeVar("V")


class Entry(Generic[V]):
    """One directory as the fast path sees it: per name variant (case-folded, and
    Unicode-folded), the folded directory path and the trusted and untrusted states;
    `const` when they decide every file in it alike."""

    __slots__ = ("const", "summary", "variants")

    def __init__(self, variants: tuple[tuple[str, DirState, DirState], ...]) -> None:
        self.variants = variants
        self.const: V | None = None
        self.summary: FileVerdicts[V] | bool | None = False  # (False: not computed yet)


class FileVerdicts(Generic[V], Frozen):
    """The verdict of the files directly in one directory: `access`, except for names
    that `maybe` lets pass (None: no name is singled out), which need
    the full check each."""

    _fields = ("access", "maybe")
    __slots__ = _fields
    access: V
    maybe: NameFilter | None

    def __init__(self, access: V, maybe: NameFilter | None) -> None:
        self._set(access, maybe)


class PolicyIndex(Generic[V]):
    """`Policy.access` for one memory setting, with directory states cached (see
    `filewright.policy.verdicts`); `None` where only the regexes can tell (a path with a
    newline, a leading `/`, an empty component, or a name that folds to a `/`).

    `trusted` and `untrusted` are the rules in force, in order, as (access, shape); the
    last trusted match (else `default`) counts, unless the last untrusted match is
    stricter (by `strictness`)."""

    MAX_DIRS = 200_000

    def __init__(
        self,
        trusted: list[tuple[V, Shape]],
        untrusted: list[tuple[V, Shape]],
        default: V,
        strictness: Mapping[V, int],
    ) -> None:
        self.default = default
        self.strictness = strictness
        self.trusted = RuleList([shape for _, shape in trusted])
        self.untrusted = RuleList([shape for _, shape in untrusted])
        self.t_access = [access for access, _ in trusted]
        self.u_access = [access for access, _ in untrusted]
        self.dirs: dict[str, Entry | None] = {}
        self.name_filters: dict[frozenset[tuple[str, str]], NameFilter] = {}
        self.summaries: dict[tuple[object, ...], FileVerdicts[V] | None] = {}
        root: Entry[V] = Entry((("", self.trusted.root, self.untrusted.root),) * 2)
        root.const = self._const(root)
        self.dirs[""] = root

    def _combine(self, t: int, u: int) -> V:
        access = self.t_access[t] if t >= 0 else self.default
        if u >= 0:
            got = self.u_access[u]
            if self.strictness[got] > self.strictness[access]:
                return got
        return access

    def _const(self, entry: Entry) -> V | None:
        best: V | None = None
        for _, ts, us in entry.variants:
            if ts.leaf is not None or us.leaf is not None:
                return None
            got = self._combine(ts.best, us.best)
            if best is None or self.strictness[got] > self.strictness[best]:
                best = got
        return best

    def entry(self, rel_dir: str) -> Entry | None:
        """The entry of directory `rel_dir` (None: only the regexes can tell below it),
        made from its nearest known ancestor down (no recursion: paths can be deep)."""
        found = self.dirs.get(rel_dir, False)
        if found is not False:
            return found  # type: ignore[return-value]
        if len(self.dirs) > self.MAX_DIRS:
            root = self.dirs[""]
            self.dirs.clear()
            self.dirs[""] = root
        pending: list[tuple[str, str]] = []
        here = rel_dir
        while True:
            parent_rel, _, name = here.rpartition("/")
            pending.append((here, name))
            known = self.dirs.get(parent_rel, False)
            if known is not False:
                break
            here = parent_rel
        parent: Entry | None = known  # type: ignore[assignment]
        for here, name in reversed(pending):
            parent = self.dirs[here] = self._child(parent, name)
        return parent

    def _child(self, parent: Entry | None, name: str) -> Entry | None:
        if parent is None or not name:
            return None
        names = name_variants(name)
        if names is None:
            return None
        first, second = parent.variants
        folded = self._variant(first, names[0])
        entry: Entry[V]
        if names[1] == names[0] and second is first:
            entry = Entry((folded, folded))  # both folds agree: the common case
        else:
            entry = Entry((folded, self._variant(second, names[1])))
        entry.const = self._const(entry)
        return entry

    def _variant(
        self, parent: tuple[str, DirState, DirState], name: str
    ) -> tuple[str, DirState, DirState]:
        vdir, ts, us = parent
        return (
            f"{vdir}/{name}" if vdir else name,
            self.trusted.child(ts, name),
            self.untrusted.child(us, name),
        )

    def directory_verdict(self, rel_dir: str) -> V | None:
        if "\n" in rel_dir or "//" in rel_dir or rel_dir.startswith("/") or rel_dir.endswith("/"):
            return None
        entry = self.entry(rel_dir)
        return None if entry is None else entry.const

    def file_verdicts(self, rel_dir: str) -> FileVerdicts[V] | None:
        if "\n" in rel_dir or "//" in rel_dir or rel_dir.startswith("/") or rel_dir.endswith("/"):
            return None
        entry = self.entry(rel_dir)
        if entry is None:
            return None
        if entry.summary is False:
            entry.summary = self._file_verdicts(entry)
        return entry.summary  # type: ignore[return-value]

    def _file_verdicts(self, entry: Entry) -> FileVerdicts[V] | None:
        # Directories with the same states get the same verdicts, given whether a regex
        # rule's inner text lies in the directory's own path (`name_clues`).
        parts: list[object] = []
        for vdir, ts, us in entry.variants:
            for state in (ts, us):
                parts.append(state)
                leaf = state.leaf
                if leaf is not None and leaf.general:
                    parts.append(any(literal in vdir for literal in leaf.general))
        key = tuple(parts)
        found = self.summaries.get(key, False)
        if found is not False:
            return found  # type: ignore[return-value]
        if len(self.summaries) > self.MAX_DIRS:
            self.summaries.clear()
        summary = self.summaries[key] = self._summarise(entry)
        return summary

    def _summarise(self, entry: Entry) -> FileVerdicts[V] | None:
        best: V | None = None
        clues: set[tuple[str, str]] = set()
        for vdir, ts, us in entry.variants:
            got = self._combine(ts.best, us.best)
            if best is None or self.strictness[got] > self.strictness[best]:
                best = got
            for state in (ts, us):
                found = name_clues(state.leaf, vdir)
                if found is None:
                    return None
                clues.update(found)
        assert best is not None
        if not clues:
            return FileVerdicts(best, None)
        key = frozenset(clues)
        names = self.name_filters.get(key)
        if names is None:
            names = self.name_filters[key] = NameFilter(key)
        return FileVerdicts(best, names)

    def access(self, rel: str, is_dir: bool) -> V | None:
        if "\n" in rel or "//" in rel or rel.startswith("/"):
            return None
        if rel.endswith("/"):
            rel, is_dir = rel[:-1], True
        rel_dir, _, name = rel.rpartition("/")
        entry = self.dirs.get(rel_dir)
        if entry is None:
            entry = self.entry(rel_dir)
            if entry is None:
                return None
        if entry.const is not None:
            return entry.const
        names = name_variants(name)
        if names is None:
            return None
        best: V | None = None
        done: tuple[DirState, DirState, str, str] | None = None
        for (vdir, ts, us), vname in zip(entry.variants, names, strict=True):
            if (
                done is not None
                and done[0] is ts
                and done[1] is us
                and done[2] == vname
                and done[3] == vdir
            ):
                continue
            done = (ts, us, vname, vdir)

            def key(vdir: str = vdir, vname: str = vname) -> str:
                full = f"{vdir}/{vname}" if vdir else vname
                return full + "/" if is_dir else full

            got = self._combine(
                self.trusted.leaf(ts, vname, is_dir, key),
                self.untrusted.leaf(us, vname, is_dir, key),
            )
            if best is None or self.strictness[got] > self.strictness[best]:
                best = got
        return best


def name_variants(name: str) -> tuple[str, str] | None:
    """A component as `Policy.decide` folds it: case-folded, and NFKC-normalised with
    trailing dots and spaces stripped then case-folded (None: it folds to a `/`)."""
    if name.isascii():
        stripped = name.rstrip(" .")
        return name.lower(), (stripped or name).lower()
    normal = unicodedata.normalize("NFKC", name)
    if "/" in normal:
        return None
    return name.casefold(), (normal.rstrip(" .") or normal).casefold()
