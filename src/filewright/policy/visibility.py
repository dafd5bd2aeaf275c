"""Which paths under one directory may appear in listings and searches.

A `Visibility` is the `visible` callback the search functions get (a path relative to
the searched directory, posix, and whether that entry is a directory: a rule such as
`secrets/` hides only a directory; False: the path must not appear nor be read), plus bulk
forms that judge a whole directory once: `files` filters a batch of paths as ripgrep
prints them, `in_directory` gives the test for names in one directory. A path is
invisible when the policy hides it, when it lies in the state directory, or when one of
its components (below the searched directory) is in `skip_names`.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from filewright.policy.rules import Access, FileVerdicts, Policy

_MAX_DIRS = 100_000
_UNKNOWN = object()


def shown(access: Access) -> bool:
    """Whether a path with this access may appear in a listing or search result (its name,
    its lines, its counts): a `deny` or `hidden` path never does."""
    return access != Access.HIDDEN and access != Access.DENY


def _inside(child: Path, parent: Path) -> bool:
    return child == parent or str(child).startswith(str(parent).rstrip(os.sep) + os.sep)


def _plain(full: str) -> bool:
    """Whether `root / full` is `root` + "/" + `full` as text (no part pathlib drops)."""
    return not ("//" in full or full.endswith("/") or "/./" in f"/{full}/")


class Visibility:
    """The policy's `visible` filter for listings and searches under `directory` (a
    path relative to `root`, "." for the root itself)."""

    def __init__(
        self,
        policy: Policy,
        root: Path,
        directory: str,
        state_dir: Path,
        skip_names: Iterable[str] = (),
    ) -> None:
        self.policy = policy
        self.root = root
        self.state_dir = state_dir
        self.base = "" if directory == "." else directory + "/"
        self.skip = frozenset(skip_names)
        self.everything_hidden = _inside(root, state_dir)
        # Where the state directory is, as a path relative to the root (if inside it).
        prefix = str(root).rstrip(os.sep) + os.sep
        state = str(state_dir)
        self.state_rel = state[len(prefix) :] if state.startswith(prefix) else None
        self._dirs: dict[bytes, object] = {}
        self._by_name: dict[str, FileVerdicts[Access] | bool | None] = {}

    def _in_state(self, full: str) -> bool:
        if self.everything_hidden:
            return True
        if not _plain(full) or os.sep != "/":
            return _inside(self.root / full, self.state_dir)
        s = self.state_rel
        return s is not None and (full == s or full.startswith(s + "/"))

    def __call__(self, rel: str, is_dir: bool) -> bool:
        rel_dir, _, name = rel.rpartition("/")
        if not is_dir and name not in ("", ".", "..") and not rel.startswith("/"):
            # A file: its directory's verdict, unless a rule may single out its name.
            verdict = self._by_name.get(rel_dir, _UNKNOWN)
            if verdict is _UNKNOWN:
                if len(self._by_name) > _MAX_DIRS:
                    self._by_name.clear()
                verdict = self._by_name[rel_dir] = self._directory(rel_dir)
            if verdict is True:
                return not self.skip or name not in self.skip
            if verdict is False:
                return False
            if verdict is not None and not verdict.maybe.may_match_text(name):  # type: ignore[attr-defined]
                return shown(verdict.access) and (not self.skip or name not in self.skip)  # type: ignore[attr-defined]
        return self._check(rel, is_dir)

    def hidden_below(self, rel: bytes) -> bool:
        """Whether the directory `rel` (relative to the searched directory, as a walk
        meets it) and everything beneath it are kept out whatever the policy says: the
        state directory, or a name in `skip_names`. A walk need not enter it."""
        text = os.fsdecode(rel).strip("/")
        if self.skip and not self.skip.isdisjoint(text.split("/")):
            return True
        return self._in_state(self.base + text)

    def _check(self, rel: str, is_dir: bool) -> bool:
        """The path's own check (no directory verdict)."""
        if self.skip and not self.skip.isdisjoint(rel.split("/")):
            return False
        full = self.base + rel.strip("/")
        if self._in_state(full):
            return False
        return shown(self.policy.access(full, is_dir=is_dir))

    def _directory(self, rel_dir: str) -> FileVerdicts | bool | None:
        """What decides the files directly in `rel_dir`: True (all visible, bar
        `skip_names`), False (none), None (each path alone), or the policy's
        `FileVerdicts` (one verdict bar the names its regex singles out)."""
        if self.skip and not self.skip.isdisjoint(rel_dir.split("/")):
            return False
        full = (self.base + rel_dir) if rel_dir else self.base.rstrip("/")
        if self.everything_hidden:
            return False
        if not _plain(full) or os.sep != "/":
            return None
        s = self.state_rel
        if s is not None:
            if full == s or full.startswith(s + "/"):
                return False
            if s.rpartition("/")[0] == full:
                return None  # (a file there could be named like the state directory)
        found = self.policy.file_verdicts(full)
        if found is None:
            return None
        if not shown(found.access):
            return False if found.maybe is None else found
        return True if found.maybe is None else found

    def in_directory(self, rel_dir: str) -> Callable[[str], bool] | None:
        """The test for names of files directly in `rel_dir` ("" for the directory
        itself), None when every name passes; same answers as calling this object with
        each path."""
        verdict = self._directory(rel_dir)
        if verdict is False:
            return lambda _name: False
        prefix = rel_dir + "/" if rel_dir else ""
        if verdict is None:
            return lambda name: self._check(prefix + name, False)
        skip = self.skip
        if verdict is True:
            return (lambda name: name not in skip) if skip else None
        maybe = verdict.maybe
        assert maybe is not None
        usual = shown(verdict.access)

        def test(name: str) -> bool:
            if maybe.may_match_text(name):
                return self._check(prefix + name, False)
            return usual and name not in skip

        return test

    def hidden_names(self, rel_dir: str, names: list[str], dirs: Iterable[str]) -> set[str]:
        """Which entries directly in `rel_dir` ("" for the directory itself) may not
        appear: of `names` (files, judged as files) and of `dirs` (directories, judged as
        directories, so a directory-only rule hides them); a name in both (a link) is
        hidden when either says so. Same answers as calling this object with each."""
        prefix = rel_dir + "/" if rel_dir else ""
        hidden = {d for d in dirs if not self._check(prefix + d, True)}
        verdict = self._directory(rel_dir)
        if verdict is False:
            return hidden | set(names)
        if verdict is None:
            return hidden | {name for name in names if not self._check(prefix + name, False)}
        skipped: set[str] = set(self.skip.intersection(names)) if self.skip else set()
        if verdict is True:
            return hidden | skipped
        assert verdict.maybe is not None
        maybe = verdict.maybe.candidates(names)
        if shown(verdict.access):
            return hidden | skipped | {n for n in maybe if not self._check(prefix + n, False)}
        return hidden | (set(names) - {n for n in maybe if self._check(prefix + n, False)})

    def files(self, rels: list[bytes]) -> list[bytes]:
        """The visible ones of `rels` (files, as ripgrep prints them: relative bytes
        paths); each directory is judged once, names only where a rule may single
        them out."""
        out: list[bytes] = []
        append = out.append
        known = self._dirs
        skip = self.skip
        last: bytes | None = None
        verdict: object = False
        seen: dict[bytes, bool] = {}
        may_match: Any = None
        usual = False
        for rel in rels:
            cut = rel.rfind(b"/")
            d = rel[:cut] if cut >= 0 else b""
            if d != last:
                last = d
                verdict = known.get(d, _UNKNOWN)
                if verdict is _UNKNOWN:
                    if len(known) > _MAX_DIRS:
                        known.clear()
                    verdict = known[d] = self._directory(os.fsdecode(d))
                if isinstance(verdict, FileVerdicts):
                    assert verdict.maybe is not None
                    seen = verdict.maybe.seen
                    may_match = verdict.maybe.may_match_cached
                    usual = shown(verdict.access)
            if verdict is True:
                if not skip or os.fsdecode(rel[cut + 1 :]) not in skip:
                    append(rel)
            elif verdict is False:
                continue
            elif verdict is None:
                if self._check(os.fsdecode(rel), False):
                    append(rel)
            else:
                name = rel[cut + 1 :]
                singled = seen.get(name)
                if singled is None:
                    singled = may_match(name)
                if singled:
                    if self._check(os.fsdecode(rel), False):
                        append(rel)
                elif usual and (not skip or os.fsdecode(name) not in skip):
                    append(rel)
        return out


class CheckedVisibility(Visibility):
    """A `Visibility` that judges every path alone with `check(rel, is_dir)` (for nested
    roots, where a path is judged under every root that holds it, and for private
    directories other than the state directory); `skip_names` still apply."""

    def __init__(
        self,
        check: Callable[[str, bool], bool],
        policy: Policy,
        root: Path,
        directory: str,
        state_dir: Path,
        skip_names: Iterable[str] = (),
    ) -> None:
        super().__init__(policy, root, directory, state_dir, skip_names)
        self._path_check = check

    def _directory(self, rel_dir: str) -> FileVerdicts | bool | None:
        if self.skip and not self.skip.isdisjoint(rel_dir.split("/")):
            return False
        return None

    def _check(self, rel: str, is_dir: bool) -> bool:
        if self.skip and not self.skip.isdisjoint(rel.split("/")):
            return False
        return self._path_check(rel, is_dir)

    def __call__(self, rel: str, is_dir: bool) -> bool:
        return self._check(rel, is_dir)
