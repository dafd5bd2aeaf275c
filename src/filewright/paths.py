"""The workspace sandbox: turn a path an agent sent into a location inside a root, or refuse.

A workspace has one or more root directories. Relative paths resolve against the first
root; absolute paths are accepted only when they lie inside a root. Containment is
decided on the real path (every symlink resolved) with a separator-aware comparison, so
`..` escapes, prefix siblings (`/ws-evil` next to `/ws`) and symlinks that lead outside
are all refused. Paths that do not exist yet are checked through what does exist.

Resolution is only the first line of defence: `fsio` opens every file by walking from the
root's directory descriptor with `O_NOFOLLOW`, so a symlink swapped in after this check
cannot redirect a read or a write.
"""

from __future__ import annotations

import errno
import os
import re
import unicodedata
from dataclasses import dataclass
from pathlib import Path, PurePosixPath


class PathRefused(Exception):
    """A path was refused. `code` is stable and machine-readable; `str()` is for people."""

    def __init__(self, code: str, path: str, detail: str = "") -> None:
        self.code = code
        self.path = path
        self.detail = detail
        super().__init__(detail or f"{code}: {path}")


@dataclass(frozen=True)
class Location:
    """Where a path leads inside the workspace.

    `path` is the absolute lexical path the agent named (what it should see in messages);
    `real` is its target with every symlink resolved (what is actually read or written);
    `rel` is `real` relative to its root, with `/` separators (`.` for the root itself);
    `lexical_rel` is `path` relative to the root it was named under.
    """

    given: str
    path: Path
    real: Path
    root: Path
    rel: str
    lexical_rel: str
    exists: bool
    is_dir: bool
    is_link: bool

    @property
    def name(self) -> str:
        return self.real.name


# Line and paragraph separators, and the bidirectional controls that make a name display
# differently from what it is ("invoice\u202etxt.exe" shows as "invoiceexe.txt").
_INVISIBLE_CONTROLS = frozenset(
    "\u2028\u2029\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
)


_SHOWN_AS_ESCAPES = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f" + "".join(sorted(_INVISIBLE_CONTROLS)) + "]"
)


def printable(text: str) -> str:
    """`text` for a person's terminal: control characters (ESC, CR, backspace …) and the
    bidirectional controls shown as escapes (`\\x1b`, `\\u202e`), newlines and tabs kept,
    so content under review (a diff awaiting approval) cannot redraw or reorder what the
    reviewer sees."""
    return _SHOWN_AS_ESCAPES.sub(lambda m: m.group().encode("unicode_escape").decode("ascii"), text)


def check_text(path: object) -> str:
    """Validate the raw path string: a non-empty str with no NUL or control characters."""
    if not isinstance(path, str):
        raise PathRefused("invalid", repr(path), "path must be a string")
    if not path.strip():
        raise PathRefused("invalid", path, "path is empty")
    for ch in path:
        if ch == "\x00":
            raise PathRefused("invalid", path.replace("\x00", "\\0"), "path contains a NUL byte")
        if unicodedata.category(ch) in ("Cc", "Cs") or ch in _INVISIBLE_CONTROLS:
            raise PathRefused(
                "invalid",
                path.encode("unicode_escape", "backslashreplace").decode("ascii"),
                f"path contains a control character (U+{ord(ch):04X})",
            )
    first = path.split("/", 1)[0]
    # "~" means a home directory to whoever wrote it, even where it would not expand here.
    if first == "~" or (first.startswith("~") and os.path.expanduser(first) != first):
        raise PathRefused(
            "invalid",
            path,
            "paths starting with '~' are not expanded; give a path inside the workspace",
        )
    return path


def _is_inside(child: Path, parent: Path) -> bool:
    if child == parent:
        return True
    base = str(parent)
    if not base.endswith(os.sep):
        base += os.sep
    return str(child).startswith(base)


def _realpath(path: Path) -> tuple[Path, bool]:
    """Resolve every symlink in `path`. Returns (real path, exists). Refuses loops."""
    try:
        return Path(os.path.realpath(path, strict=True)), True
    except FileNotFoundError:
        pass
    except NotADirectoryError:
        pass
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise PathRefused("symlink_loop", str(path), "path contains a symlink loop") from None
        if exc.errno == errno.ENAMETOOLONG:
            raise PathRefused("invalid", str(path), "path is too long") from None
        if exc.errno in (errno.EACCES, errno.EPERM):
            raise PathRefused("permission", str(path), f"permission denied: {path}") from None
        raise PathRefused(
            "invalid", str(path), f"cannot resolve path: {exc.strerror or exc}"
        ) from None
    try:
        # Non-strict resolution also follows dangling links, so a dangling link that
        # points outside is seen as outside.
        return Path(os.path.realpath(path, strict=False)), False
    except OSError as exc:  # pragma: no cover - platform dependent
        raise PathRefused("invalid", str(path), f"cannot resolve path: {exc.strerror}") from None


class Sandbox:
    """The roots of a workspace and the rules for naming paths inside them."""

    def __init__(self, roots: list[str | os.PathLike[str]]) -> None:
        if not roots:
            raise ValueError("a workspace needs at least one root directory")
        self.roots: list[Path] = []
        self._given_roots: list[Path] = []
        for root in roots:
            given = Path(os.path.abspath(os.fspath(root)))
            real = Path(os.path.realpath(given))
            if not real.is_dir():
                raise ValueError(f"workspace root is not a directory: {given}")
            self.roots.append(real)
            self._given_roots.append(given)

    @property
    def primary(self) -> Path:
        return self.roots[0]

    def root_of(self, real: Path) -> Path | None:
        """The (innermost) root containing `real`, or None."""
        best: Path | None = None
        for root in self.roots:
            if _is_inside(real, root) and (best is None or len(str(root)) > len(str(best))):
                best = root
        return best

    def resolve(self, path: str, *, expect: str = "any") -> Location:
        """Resolve `path` inside the workspace.

        `expect` is "file" (refuse directories), "dir" (must be an existing directory) or
        "any". A missing path is returned with `exists=False`; callers decide whether that
        is an error.
        """
        check_text(path)
        raw = Path(path)
        if raw.is_absolute():
            lexical = Path(os.path.normpath(raw))
            named_root = self._lexical_root(lexical)
        else:
            named_root = self._given_roots[0]
            lexical = Path(os.path.normpath(named_root / raw))
        candidate = raw if raw.is_absolute() else self._given_roots[0] / raw
        real, exists = _realpath(candidate)
        root = self.root_of(real)
        if root is None:
            raise PathRefused("outside", path, f"path is outside the workspace: {path}")
        if named_root is None or not _is_inside(lexical, named_root):
            # Named through something other than a root (e.g. /ws/a/../../ws/x): show the
            # real location so messages never echo a path outside the workspace.
            lexical = real
            named_root = root
        rel = PurePosixPath(*real.relative_to(root).parts).as_posix() if real != root else "."
        lexical_rel = (
            PurePosixPath(*lexical.relative_to(named_root).parts).as_posix()
            if lexical != named_root
            else "."
        )
        is_dir = exists and real.is_dir()
        is_link = os.path.islink(candidate)
        if exists and not is_dir and not real.is_file():
            raise PathRefused("not_regular", path, f"not a regular file: {path}")
        # "dir/", "dir/." and "dir/.." name directories even when nothing exists there yet:
        # never let them create (or stand for) a file called "dir".
        names_dir = path.rsplit("/", 1)[-1] in ("", ".", "..")
        if expect == "file" and (is_dir or names_dir):
            raise PathRefused("is_directory", path, f"path is a directory: {path}")
        if expect == "dir" and exists and not is_dir:
            raise PathRefused("not_directory", path, f"not a directory: {path}")
        return Location(
            given=path,
            path=lexical,
            real=real,
            root=root,
            rel=rel,
            lexical_rel=lexical_rel,
            exists=exists,
            is_dir=is_dir,
            is_link=is_link,
        )

    def _lexical_root(self, lexical: Path) -> Path | None:
        best: Path | None = None
        for given in self._given_roots:
            if _is_inside(lexical, given) and (best is None or len(str(given)) > len(str(best))):
                best = given
        for real in self.roots:
            if _is_inside(lexical, real) and (best is None or len(str(real)) > len(str(best))):
                best = real
        return best

    def display(self, loc: Location, style: str = "absolute") -> str:
        """A path for messages: "absolute" (the lexical path) or "relative" (to its root)."""
        if style == "relative":
            return loc.lexical_rel
        return str(loc.path)
