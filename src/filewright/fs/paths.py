"""The workspace sandbox: turn a path an agent sent into a location inside a root, or refuse.

A workspace has one or more root directories. Relative paths resolve against the first
root; absolute paths are accepted only when they lie inside a root. Containment is
decided on the real path (every symlink resolved) with a separator-aware comparison, so
`..` escapes, prefix siblings (`/ws-evil` next to `/ws`) and symlinks that lead outside
are all refused. Paths that do not exist yet are checked through what does exist.

Once a root's descriptor is held (`fs.held`: kept by the first open in that root, and
reused only while /proc shows its directory still at the root's path), a path is resolved
from it: each name below the root looked at without following it (`_walk_held`), one
fstatat per name instead of an lstat per component of the whole path from `/` and a stat.
A path with a `..` or one that meets a symlink goes through `os.path.realpath` as before
(the link's target decides where it leads); both give the same `Location`
(tests/test_paths_equivalence.py runs both against a frozen reference).

Resolution is only the first line of defence: `fsio` opens every file by walking from the
root's directory descriptor with `O_NOFOLLOW`, so a symlink swapped in after this check
cannot redirect a read or a write.
"""

from __future__ import annotations

import errno
import functools
import os
import re
import stat
import unicodedata
from pathlib import Path, PurePosixPath

from filewright.core.record import Frozen
from filewright.fs import held


class PathRefused(Exception):
    """A path was refused. `code` is stable and machine-readable; `str()` is for people."""

    def __init__(self, code: str, path: str, detail: str = "") -> None:
        self.code = code
        self.path = path
        self.detail = detail
        super().__init__(detail or f"{code}: {path}")


class PathTooLong(PathRefused):
    """A path longer than the system takes: refused by its text alone (code "invalid", the
    words ENAMETOOLONG gets), so nothing about the disk or the policy is told or looked at."""

    def __init__(self, path: str) -> None:
        super().__init__("invalid", path, "path is too long")


def _system_limit(name: str, default: int) -> int:
    try:
        return os.pathconf("/", name)
    except (OSError, ValueError, AttributeError):  # (unknown: the least of the systems)
        return default


PATH_MAX = _system_limit("PC_PATH_MAX", 1024)
"""Bytes of a path the system takes, its terminating NUL included."""


def _check_length(path: str) -> None:
    """Refuse `path` when the system would before looking at any of its names: it has
    PATH_MAX bytes or more (ENAMETOOLONG).  Asked of the text the agent sent (a megabyte
    of it is refused here, before any character or name of it is looked at or judged) and
    of the absolute path it stands for.  (A name over NAME_MAX is refused by the lookup,
    where the system meets it: after a file used as a directory it is "not a directory".)"""
    if len(path) >= PATH_MAX // 4 and len(path.encode("utf-8", "surrogatepass")) >= PATH_MAX:
        raise PathTooLong(path)  # (the path ENAMETOOLONG was raised for)


class Location(Frozen):
    """Where a path leads inside the workspace.

    `path` is the absolute lexical path the agent named (what it should see in messages);
    `real` is its target with every symlink resolved (what is actually read or written);
    `rel` is `real` relative to its root, with `/` separators (`.` for the root itself);
    `lexical_rel` is `path` relative to the root it was named under.
    """

    _fields = ("given", "path", "real", "root", "rel", "lexical_rel", "exists", "is_dir", "is_link")
    __slots__ = _fields
    given: str
    path: Path
    real: Path
    root: Path
    rel: str
    lexical_rel: str
    exists: bool
    is_dir: bool
    is_link: bool

    def __init__(
        self,
        given: str,
        path: Path,
        real: Path,
        root: Path,
        rel: str,
        lexical_rel: str,
        exists: bool,
        is_dir: bool,
        is_link: bool,
    ) -> None:
        # (written out: made for every path resolved, and `_set`'s loop costs twice this)
        _set = object.__setattr__
        _set(self, "given", given)
        _set(self, "path", path)
        _set(self, "real", real)
        _set(self, "root", root)
        _set(self, "rel", rel)
        _set(self, "lexical_rel", lexical_rel)
        _set(self, "exists", exists)
        _set(self, "is_dir", is_dir)
        _set(self, "is_link", is_link)

    @property
    def name(self) -> str:
        return self.real.name


# Line and paragraph separators, and the bidirectional controls that make a name display
# differently from what it is ("invoice\u202etxt.exe" shows as "invoiceexe.txt").
_INVISIBLE_CONTROLS = frozenset(
    "\u2028\u2029\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
)


# Characters that show as nothing (or as something else) in a person's view: every format
# character (Unicode category Cf: zero-width spaces and joiners, the soft hyphen, word
# joiners, the BOM, the tag characters U+E0000-E007F that carry hidden ASCII), the
# variation selectors, the combining grapheme joiner and the blank Hangul fillers.
_INVISIBLE_RANGES = (
    "\u00ad\u034f\u0600-\u0605\u061c\u06dd\u070f\u0890\u0891\u08e2\u115f\u1160"
    "\u17b4\u17b5\u180b-\u180f\u200b-\u200f\u202a-\u202e\u2060-\u206f\u2800\u3164"
    "\ufe00-\ufe0f\ufeff\uffa0\ufff0-\ufffb\U000110bd\U000110cd\U00013430-\U0001343f"
    "\U0001bca0-\U0001bca3\U0001d173-\U0001d17a\U000e0000-\U000e0fff"
)

_SHOWN_AS_ESCAPES = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f" + "".join(sorted(_INVISIBLE_CONTROLS)) + _INVISIBLE_RANGES + "]"
)


def printable(text: str) -> str:
    """`text` for a person's terminal: control characters (ESC, CR, backspace …), the
    bidirectional controls and every invisible character (zero-width, tags, variation
    selectors) shown as escapes (`\\x1b`, `\\u202e`, `\\U000e0041`), newlines and tabs kept,
    so content under review (a diff awaiting approval) cannot redraw or reorder what the
    reviewer sees."""
    return _SHOWN_AS_ESCAPES.sub(lambda m: m.group().encode("unicode_escape").decode("ascii"), text)


def check_text(path: object) -> str:
    """Validate the raw path string: a non-empty str under PATH_MAX bytes with no NUL or
    control characters."""
    if not isinstance(path, str):
        raise PathRefused("invalid", repr(path), "path must be a string")
    if not path.strip():
        raise PathRefused("invalid", path, "path is empty")
    _check_length(path)
    # `isprintable()` is False for every character refused below: NUL, the categories Cc
    # and Cs and the invisible controls (Zl, Zp, Cf) are all in the categories C* and Z*
    # it rejects. So a printable path needs no per-character look; for the others the loop
    # decides (some pass: a no-break space, a zero-width joiner) and names the offender.
    if not path.isprintable():
        for ch in path:
            if ch == "\x00":
                raise PathRefused(
                    "invalid", path.replace("\x00", "\\0"), "path contains a NUL byte"
                )
            if unicodedata.category(ch) in ("Cc", "Cs") or ch in _INVISIBLE_CONTROLS:
                raise PathRefused(
                    "invalid",
                    path.encode("unicode_escape", "backslashreplace").decode("ascii"),
                    f"path contains a control character (U+{ord(ch):04X})",
                )
    if path.startswith("~"):
        first = path.split("/", 1)[0]
        # "~" means a home directory to whoever wrote it, even where it would not expand here.
        if first == "~" or os.path.expanduser(first) != first:
            raise PathRefused(
                "invalid",
                path,
                "paths starting with '~' are not expanded; give a path inside the workspace",
            )
    return path


def _with_sep(path: str) -> str:
    """`path` as the prefix of every path inside it: `/ws` -> `/ws/`; `/` stays `/`."""
    return path if path.endswith(os.sep) else path + os.sep


def _innermost(roots: list[tuple[str, str]], path: str) -> int:
    """Index of the longest root (the first of equals) that is `path` or holds it; -1 if
    none does. `roots` holds (root, root + sep) pairs and `path` must be normalized: the
    comparison is on whole names, so `/ws-evil` is not inside `/ws`."""
    best, best_len = -1, -1
    for i, (root, prefix) in enumerate(roots):
        if len(root) > best_len and (path == root or path.startswith(prefix)):
            best, best_len = i, len(root)
    return best


def _path_str(path: str) -> str:
    """`str(Path(path))`: empty and `.` components and a trailing slash dropped, `..` kept
    (what realpath, islink and the messages were given when this went through pathlib).
    Builds a Path only when there is something to drop."""
    if "//" in path or "/./" in path or path.endswith(("/", "/.")) or path.startswith("./"):
        return str(PurePosixPath(path))
    return path


def _normal(path: str) -> str:
    """`os.path.normpath(path)` of a path `_path_str` gave (no empty or `.` names, no
    trailing slash): only a `..` name can change it, so the others are left as they are."""
    return os.path.normpath(path) if ".." in path else path


# What `Path.is_dir()` / `Path.is_file()` (3.11) answer False for instead of raising.
_NOT_THERE = frozenset((errno.ENOENT, errno.ENOTDIR, errno.EBADF, errno.ELOOP))


def _realpath(path: str) -> tuple[str, bool]:
    """Resolve every symlink in `path`. Returns (real path, exists). Refuses loops."""
    try:
        return os.path.realpath(path, strict=True), True
    except FileNotFoundError:
        pass
    except NotADirectoryError:
        pass
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise PathRefused("symlink_loop", path, "path contains a symlink loop") from None
        if exc.errno == errno.ENAMETOOLONG:
            raise PathRefused("invalid", path, "path is too long") from None
        if exc.errno in (errno.EACCES, errno.EPERM):
            raise PathRefused("permission", path, f"permission denied: {path}") from None
        raise PathRefused("invalid", path, f"cannot resolve path: {exc.strerror or exc}") from None
    try:
        # Non-strict resolution also follows dangling links, so a dangling link that
        # points outside is seen as outside.
        real = os.path.realpath(path, strict=False)
    except OSError as exc:  # pragma: no cover - platform dependent
        raise PathRefused("invalid", path, f"cannot resolve path: {exc.strerror}") from None
    if _ends_on_a_link(real):
        # Non-strict resolution leaves a link unresolved only on a loop that a strict one
        # did not reach (`a -> missing/../a`).
        raise PathRefused("symlink_loop", path, "path contains a symlink loop")
    return real, False


def _walk_held(roots: list[tuple[str, str]], candidate: str) -> tuple[bool, int, int] | None:
    """`_realpath(candidate)` answered from a root's held descriptor, when that is sure to
    give the same answer: (exists, mode of what it names, index of the innermost root
    holding it in `roots`). None when it is not: the root's
    descriptor is not held (or its directory is no longer at its path, which `held.reuse`
    checks through /proc), `candidate` has a `..` or meets a symlink (whose target decides
    the real path), or the disk says anything but "there", "missing" or "not a directory".

    Each name below the root is looked at without following it, from the root's
    descriptor, one prefix after another: the same checks `os.path.realpath` makes with an
    lstat per component of the whole path, from `/` (whose root components the held
    descriptor stands for). A candidate that meets no link is its own real path."""
    index = _innermost(roots, candidate)
    if index < 0:
        return None
    root, prefix = roots[index]
    rest = candidate[len(prefix) :] if candidate != root else ""
    names = rest.split("/") if rest else []
    if ".." in names or "." in names or "" in names:
        return None
    fd = held.reuse(root)
    if fd is None:
        return None
    try:
        if not names:
            return True, os.fstat(fd).st_mode, index
        at = 0
        for name in names:
            at += len(name) + 1
            try:
                mode = os.stat(rest[: at - 1], dir_fd=fd, follow_symlinks=False).st_mode
            except (FileNotFoundError, NotADirectoryError):
                return False, 0, index
            if stat.S_ISLNK(mode):
                return None
        return True, mode, index
    except OSError:
        return None
    finally:
        os.close(fd)


def _ends_on_a_link(real: str) -> bool:
    """True when the longest existing prefix of `real` is a symlink."""
    while True:
        try:
            return stat.S_ISLNK(os.lstat(real).st_mode)
        except OSError:
            parent = os.path.dirname(real)
            if parent == real:
                return False
            real = parent


def _is_dir(path: str) -> bool:
    """`Path(path).is_dir()`: False where it answers False, other errors raised."""
    try:
        return stat.S_ISDIR(os.stat(path).st_mode)
    except OSError as exc:
        if exc.errno not in _NOT_THERE:
            raise
    except ValueError:
        pass
    return False


@functools.lru_cache(maxsize=1024)
def _as_path(path: str) -> Path:
    """`Path(path)`, made once per string while it is in use (a Path is immutable; making
    one parses the string again, ~2 µs, twice per resolved path)."""
    return Path(path)


class Sandbox:
    """The roots of a workspace and the rules for naming paths inside them.

    `resolve` runs on every tool call, so it works on strings (`os.path`, separator-aware
    prefix tests against root strings computed here once) and builds Paths only for the
    `Location` it returns. `roots` is not to be changed after construction.
    """

    def __init__(self, roots: list[str | os.PathLike[str]]) -> None:
        if not roots:
            raise ValueError("a workspace needs at least one root directory")
        self.roots: list[Path] = []
        self._given_roots: list[Path] = []
        given_strs: list[str] = []
        real_strs: list[str] = []
        for root in roots:
            # (strings: a normalised absolute path and a real path read as their Paths do)
            given = os.path.abspath(os.fspath(root))
            real = os.path.realpath(given)
            if not _is_dir(real):
                raise ValueError(f"workspace root is not a directory: {given}")
            self.roots.append(Path(real))
            self._given_roots.append(Path(given))
            given_strs.append(given)
            real_strs.append(real)
        # (root, root + sep) for every real root, in order
        self._real: list[tuple[str, str]] = [(r, _with_sep(r)) for r in real_strs]
        # the roots an absolute path may be named under: the given ones, then the real ones
        self._lexical: list[tuple[str, str]] = [
            *((g, _with_sep(g)) for g in given_strs),
            *self._real,
        ]

    @property
    def primary(self) -> Path:
        return self.roots[0]

    def root_of(self, real: Path) -> Path | None:
        """The (innermost) root containing `real`, or None."""
        index = _innermost(self._real, str(real))
        return self.roots[index] if index >= 0 else None

    def resolve(self, path: str, *, expect: str = "any") -> Location:
        """Resolve `path` inside the workspace.

        `expect` is "file" (refuse directories), "dir" (must be an existing directory) or
        "any". A missing path is returned with `exists=False`; callers decide whether that
        is an error.
        """
        check_text(path)
        raw = _path_str(path)
        if raw.startswith("/"):
            candidate = raw
            lexical = _normal(raw)
            named_index = _innermost(self._lexical, lexical)
        else:
            named_index = 0  # the first given root
            first, first_prefix = self._lexical[0]
            candidate = first if raw == "." else first_prefix + raw
            lexical = _normal(candidate)
        _check_length(candidate)
        walked = _walk_held(self._real, candidate)
        if walked is None:
            real, exists = _realpath(candidate)
            index = _innermost(self._real, real)
        else:
            real, (exists, mode, index) = candidate, walked
        if index < 0:
            raise PathRefused("outside", path, f"path is outside the workspace: {path}")
        root, root_prefix = self._real[index]
        named, named_prefix = self._lexical[named_index] if named_index >= 0 else ("", "")
        if named_index < 0 or not (lexical == named or lexical.startswith(named_prefix)):
            # Named through something other than a root (e.g. /ws/a/../../ws/x): show the
            # real location so messages never echo a path outside the workspace.
            lexical, named, named_prefix = real, root, root_prefix
        rel = real[len(root_prefix) :] if real != root else "."
        lexical_rel = lexical[len(named_prefix) :] if lexical != named else "."
        is_dir = is_regular = False
        if exists and walked is None:
            try:
                mode = os.stat(real).st_mode
            except OSError as exc:
                if exc.errno not in _NOT_THERE:
                    raise
                exists = False  # gone since the realpath looked (another process moved it)
        if exists:
            is_dir = stat.S_ISDIR(mode)
            is_regular = stat.S_ISREG(mode)
        # Every name in a strict realpath's answer was looked at and is no symlink: when
        # the answer is the candidate itself, the candidate is no link (no lstat needed).
        is_link = False if exists and real == candidate else os.path.islink(candidate)
        if exists and not is_dir and not is_regular:
            raise PathRefused("not_regular", path, f"not a regular file: {path}")
        # "dir/", "dir/." and "dir/.." name directories even when nothing exists there yet:
        # never let them create (or stand for) a file called "dir".
        names_dir = path.rsplit("/", 1)[-1] in ("", ".", "..")
        if names_dir and exists and not is_dir:  # "a.txt/" names no file, as open() says
            raise PathRefused("not_directory", path, f"not a directory: {path}")
        if expect == "file" and (is_dir or names_dir):
            raise PathRefused("is_directory", path, f"path is a directory: {path}")
        if expect == "dir" and exists and not is_dir:
            raise PathRefused("not_directory", path, f"not a directory: {path}")
        real_path = _as_path(real)
        return Location(
            given=path,
            path=real_path if lexical == real else _as_path(lexical),
            real=real_path,
            root=self.roots[index],
            rel=rel,
            lexical_rel=lexical_rel,
            exists=exists,
            is_dir=is_dir,
            is_link=is_link,
        )

    def names_under_roots(self, path: str) -> list[str]:
        """`path` relative to every root whose name it starts with, by its text alone
        (no disk access), each name once: for judging a path the disk refused to resolve.
        (A root given by its real path is in the list twice, as given and as real; the
        policy judged each of its names twice, ~1 ms for a long one.)"""
        raw = os.path.normpath(path if path.startswith("/") else self._lexical[0][1] + path)
        rels: list[str] = []
        for base, base_prefix in self._lexical:
            if raw.startswith(base_prefix):
                rel = raw[len(base_prefix) :]
            elif raw == base:
                rel = "."
            else:
                continue
            if rel not in rels:
                rels.append(rel)
        return rels

    def display(self, loc: Location, style: str = "absolute") -> str:
        """A path for messages: "absolute" (the lexical path) or "relative" (to its root)."""
        if style == "relative":
            return loc.lexical_rel
        return str(loc.path)
