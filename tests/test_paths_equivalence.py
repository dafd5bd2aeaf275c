"""`Sandbox.resolve`, `Sandbox.root_of` and `check_text` against a frozen reference.

The reference below is a verbatim copy of the pathlib-based implementation that
`filewright.fs.paths` had before it was rewritten on plain strings for speed (commit
924c991). It is kept here, unchanged, so that every later change to the fast code is
checked against the same behaviour: for random path strings over a real tree (files,
directories, symlinks inside / outside / dangling / looping, a FIFO, a socket, a device,
several roots, roots named through symlinks), both must return an equal `Location` (with
fields of the same types) or raise `PathRefused` with the same code, path and detail.

Do not "fix" the reference: if behaviour is meant to change, change it in both places on
purpose and say so in the commit.
"""

from __future__ import annotations

import contextlib
import errno
import os
import socket
import stat
import unicodedata
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

import fsprobe
import pytest
from hypothesis import event, given, settings
from hypothesis import strategies as st

from filewright.fs import held, paths
from filewright.fs.paths import Location, PathRefused, Sandbox, check_text

# -- the reference: the old implementation, frozen -------------------------------------------

_INVISIBLE_CONTROLS = frozenset(
    "\u2028\u2029\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
)


def _ref_check_text(path: object) -> str:
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
    if first == "~" or (first.startswith("~") and os.path.expanduser(first) != first):
        raise PathRefused(
            "invalid",
            path,
            "paths starting with '~' are not expanded; give a path inside the workspace",
        )
    return path


def _ref_is_inside(child: Path, parent: Path) -> bool:
    if child == parent:
        return True
    base = str(parent)
    if not base.endswith(os.sep):
        base += os.sep
    return str(child).startswith(base)


def _ref_realpath(path: Path) -> tuple[Path, bool]:
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
        real = Path(os.path.realpath(path, strict=False))
    except OSError as exc:  # pragma: no cover - platform dependent
        raise PathRefused("invalid", str(path), f"cannot resolve path: {exc.strerror}") from None
    # A change from the copied code: a loop the strict resolution did not reach.
    probe = real
    while not os.path.lexists(probe) and probe != probe.parent:
        probe = probe.parent
    if probe.is_symlink():
        raise PathRefused("symlink_loop", str(path), "path contains a symlink loop")
    return real, False


# The tree does not change within the module: a candidate's real path (asked for each
# `expect` and each sandbox naming it) is worked out once. (Not part of the old code.)
_REALPATHS: dict[Path, tuple[Path, bool]] = {}


def _ref_realpath_once(path: Path) -> tuple[Path, bool]:
    if path not in _REALPATHS:
        _REALPATHS[path] = _ref_realpath(path)  # (a refusal is raised, not kept)
    return _REALPATHS[path]


class _ReferenceSandbox:
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

    def root_of(self, real: Path) -> Path | None:
        best: Path | None = None
        for root in self.roots:
            if _ref_is_inside(real, root) and (best is None or len(str(root)) > len(str(best))):
                best = root
        return best

    def resolve(self, path: str, *, expect: str = "any") -> Location:
        _ref_check_text(path)
        raw = Path(path)
        if raw.is_absolute():
            lexical = Path(os.path.normpath(raw))
            named_root = self._lexical_root(lexical)
        else:
            named_root = self._given_roots[0]
            lexical = Path(os.path.normpath(named_root / raw))
        candidate = raw if raw.is_absolute() else self._given_roots[0] / raw
        real, exists = _ref_realpath_once(candidate)
        root = self.root_of(real)
        if root is None:
            raise PathRefused("outside", path, f"path is outside the workspace: {path}")
        if named_root is None or not _ref_is_inside(lexical, named_root):
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
        names_dir = path.rsplit("/", 1)[-1] in ("", ".", "..")
        # The one change from the copied code: "a.txt/" names no file, as open() says.
        if names_dir and exists and not is_dir:
            raise PathRefused("not_directory", path, f"not a directory: {path}")
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
        for given_root in self._given_roots:  # (renamed from `given`: hypothesis's name)
            if _ref_is_inside(lexical, given_root) and (
                best is None or len(str(given_root)) > len(str(best))
            ):
                best = given_root
        for real in self.roots:
            if _ref_is_inside(lexical, real) and (best is None or len(str(real)) > len(str(best))):
                best = real
        return best


# -- comparing outcomes ------------------------------------------------------------------------


def _outcome(call: Callable[..., object], *args: object, **kwargs: object) -> tuple[object, ...]:
    try:
        value = call(*args, **kwargs)
    except PathRefused as exc:
        return ("refused", exc.code, exc.path, exc.detail, str(exc))
    except Exception as exc:  # any other exception must match too
        return ("error", type(exc), str(exc))
    if isinstance(value, Location):
        types = tuple(type(getattr(value, name)) for name in value._fields)
        return ("ok", value, types)
    return ("ok", value, type(value))


# -- the tree ---------------------------------------------------------------------------------


@dataclass
class Tree:
    base: Path
    pairs: list[tuple[Sandbox, _ReferenceSandbox]]
    prefixes: list[str]
    names: list[str]


_PIECES = [
    "..", ".", "", "missing", "new.txt", "x", "ünï.txt", "é", " ", "a b", "~", "~root",
    "\x00", "a\x00b", "a\nb", "\x1b", "\x7f", "\x85", "\u202e", "\u2028", "\u200d", "\udcff",
    "\u00a0", "\U0001f600", "n" * 300,
]  # fmt: skip


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Tree]:
    base = tmp_path_factory.mktemp("equiv")
    ws, ws2, outside = base / "ws", base / "ws2", base / "outside"
    for d in (ws / "dir" / "sub", ws / "nested", ws2 / "sub", outside / "dir", base / "ws-evil"):
        d.mkdir(parents=True)
    for f in (
        ws / "a.txt",
        ws / "ünï.txt",
        ws / "dir" / "b.txt",
        ws / "dir" / "sub" / "c.txt",
        ws / "nested" / "n.txt",
        ws2 / "c.txt",
        outside / "secret.txt",
        base / "ws-evil" / "x",
        base / "x",
    ):
        f.write_text("x\n")
    links = {
        ws / "link_file": "a.txt",
        ws / "link_dir": "dir",
        ws / "link_abs": str(ws / "dir" / "b.txt"),
        ws / "link_out": "../outside/secret.txt",
        ws / "link_out_dir": str(outside),
        ws / "dangling_in": "missing.txt",
        ws / "dangling_in_dir": "newdir/new.txt",
        ws / "dangling_out": str(outside / "nope.txt"),
        ws / "loop1": "loop2",
        ws / "loop2": "loop1",
        ws / "self": "self",
        # a loop reached only after a missing component: strict resolution stops at
        # "missing", the non-strict one comes back to the link itself
        ws / "loopmiss": "missing/../loopmiss",
        ws / "devnull": "/dev/null",
        ws / "link_pipe": "pipe",
        ws / "to_ws2": "../ws2",
        ws / "to_slash": "/",
        ws / "up": "..",
        ws / "chain1": "chain2",
        ws / "chain2": "a.txt",
        ws / "link_nested": "nested",
        ws / "dir" / "up": "..",
        ws / "dir" / "out": "../../outside",
        ws2 / "back": "../ws/a.txt",
        base / "alias": "ws",
        base / "alias2": "alias",
    }
    for link, target in links.items():
        link.symlink_to(target)
    os.mkfifo(ws / "pipe")
    with socket.socket(socket.AF_UNIX) as sock:
        sock.bind(str(ws / "sock"))
    with contextlib.suppress(PermissionError):  # a device node needs root
        os.mknod(ws / "dev", stat.S_IFCHR | 0o600, os.makedev(1, 3))
    locked = ws / "locked"
    (locked / "inner").mkdir(parents=True)
    (locked / "inner" / "f.txt").write_text("x\n")
    locked.chmod(0)  # refused with "permission" unless the tests run as root

    sandboxes: list[list[str | os.PathLike[str]]] = [
        [ws],
        [ws, ws2, ws / "nested"],
        [base / "alias", ws2],
        [ws / "nested", ws],
        [base / "alias2" / "dir"],
        [ws, base / "alias"],
        [str(base / "alias") + "/"],
    ]
    pairs = [(Sandbox(roots), _ReferenceSandbox(roots)) for roots in sandboxes]
    prefixes = [
        "", "", "", "/", "./", "../", "//", "~/",
        str(ws), str(ws2), str(base), str(outside), str(base / "alias"),
        str(base / "alias2"), str(ws / "nested"), str(ws) + "-evil", "/" + str(ws),
        str(ws) + "/../ws", str(base / "alias") + "/../ws",
    ]  # fmt: skip
    names = sorted(
        {p.name for p in [*ws.rglob("*"), *ws2.rglob("*")] if "locked" not in p.parts}
        | {"locked", "inner", "f.txt", "ws", "ws2", "alias", "outside", "secret.txt"}
    )
    yield Tree(base, pairs, prefixes, names)
    locked.chmod(0o755)


def _paths(tree_names: list[str], prefixes: list[str]) -> st.SearchStrategy[str]:
    piece = st.sampled_from(tree_names) | st.sampled_from(_PIECES)
    built = st.builds(
        lambda prefix, parts, sep, suffix: prefix + ("/" if prefix else "") + sep.join(parts)
        + suffix,
        st.sampled_from(prefixes),
        st.lists(piece, max_size=6),
        st.sampled_from(["/", "/", "/", "//", "/./"]),
        st.sampled_from(["", "", "", "/", "/.", "/..", "//"]),
    )  # fmt: skip
    return built | st.text(max_size=12) | st.sampled_from(prefixes)


_STRATEGIES: dict[int, st.SearchStrategy[str]] = {}


def _paths_of(tree: Tree) -> st.SearchStrategy[str]:
    """`_paths` of the tree, built once (building a strategy costs more than a draw)."""
    if id(tree) not in _STRATEGIES:
        _STRATEGIES.clear()
        _STRATEGIES[id(tree)] = _paths(tree.names, tree.prefixes)
    return _STRATEGIES[id(tree)]


_EXPECTS = ("any", "file", "dir")


# The reference's answers, by sandbox, path and expectation: the tree does not change
# within the module, so the same question (asked by both forms of the every-name test)
# is answered once.
_REFERENCE: dict[tuple[int, type, object, str], object] = {}


def _check_all(tree: Tree, path: object) -> None:
    for i, (new, ref) in enumerate(tree.pairs):
        for expect in _EXPECTS:
            got = _outcome(new.resolve, path, expect=expect)
            key = (id(tree) * 100 + i, type(path), path, expect)
            if key not in _REFERENCE:
                _REFERENCE[key] = _outcome(ref.resolve, path, expect=expect)
            want = _REFERENCE[key]
            assert got == want, (path, expect, [str(r) for r in new.roots])
            if got[0] == "ok":
                real = got[1].real  # type: ignore[attr-defined]
                for probe in (real, real.parent, Path(str(real) + "-evil")):
                    key = (id(tree) * 100 + i, type(probe), probe, "root_of")
                    if key not in _REFERENCE:
                        _REFERENCE[key] = _outcome(ref.root_of, probe)
                    assert _outcome(new.root_of, probe) == _REFERENCE[key]


# -- the tests -------------------------------------------------------------------------------


@settings(max_examples=400, deadline=None)
@given(data=st.data())
def test_resolve_matches_reference(tree: Tree, data: st.DataObject) -> None:
    _hold_roots(tree)  # (kept between examples unless another test dropped them)
    path = data.draw(_paths_of(tree))
    first = _outcome(tree.pairs[1][0].resolve, path)
    event(f"{first[0]} {first[1] if first[0] == 'refused' else ''}")  # --hypothesis-show-statistics
    _check_all(tree, path)


def _hold_roots(tree: Tree) -> None:
    """Hold every root's descriptor (`fs.held`), as the first file opened in a root does:
    from then on `Sandbox.resolve` walks from it (`paths._walk_held`) where it can."""
    for new, _ref in tree.pairs:
        for root in new.roots:
            fsprobe.hold(root)


@pytest.mark.parametrize("hold", [False, True], ids=["realpath", "held descriptors"])
def test_resolve_matches_reference_on_every_name(
    tree: Tree, hold: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every entry of the tree, relative and absolute, with and without the trailing forms;
    resolved by `os.path.realpath` (no root descriptor held) and from the roots' held
    descriptors."""
    held.forget_all()
    if hold:
        _hold_roots(tree)
    walked: list[object] = []
    walk = paths._walk_held

    def counted(roots: list[tuple[str, str]], candidate: str) -> object:
        found = walk(roots, candidate)
        if found is not None:
            walked.append(candidate)
        return found

    monkeypatch.setattr(paths, "_walk_held", counted)
    ws = tree.base / "ws"
    for name in [*tree.names, "dir/sub/c.txt", "dir/up/a.txt", "dir/out/secret.txt"]:
        for suffix in ("", "/", "/.", "/..", "/x"):
            for prefix in ("", f"{ws}/", f"{tree.base}/alias/"):
                _check_all(tree, prefix + name + suffix)
    for odd in (".", "..", "/", "//", "///", "./.", str(ws), f"{ws}/", f"{ws}//", None, 3, b"a"):
        _check_all(tree, odd)
    assert bool(walked) == hold  # the held descriptors were walked from, where they were held


def test_special_files_are_covered(tree: Tree) -> None:
    """The tree really holds what the equivalence tests claim to cover."""
    ws = tree.base / "ws"
    assert stat.S_ISFIFO(os.lstat(ws / "pipe").st_mode)
    assert stat.S_ISSOCK(os.lstat(ws / "sock").st_mode)
    assert stat.S_ISCHR(os.stat(ws / "devnull").st_mode)
    new = tree.pairs[0][0]
    specials = ["pipe", "sock", "link_pipe"] + (["dev"] if (ws / "dev").exists() else [])
    for name in specials:
        with pytest.raises(PathRefused) as info:
            new.resolve(name)
        assert info.value.code == "not_regular"
    with pytest.raises(PathRefused) as info:
        new.resolve("loop1")
    assert info.value.code == "symlink_loop"
    with pytest.raises(PathRefused) as info:
        new.resolve("loopmiss")  # a loop behind a missing directory
    assert info.value.code == "symlink_loop"


@settings(max_examples=500, deadline=None)
@given(path=st.text(max_size=20) | st.from_regex(r"\A[ -~]{0,12}\Z") | st.sampled_from(_PIECES))
def test_check_text_matches_reference(path: str) -> None:
    assert _outcome(check_text, path) == _outcome(_ref_check_text, path)


def test_check_text_matches_reference_for_every_ascii_character() -> None:
    for code in range(128):
        for path in (chr(code), f"a{chr(code)}b", f"dir/{chr(code)}", f"~{chr(code)}/x"):
            assert _outcome(check_text, path) == _outcome(_ref_check_text, path), path


def test_printable_characters_are_never_refused() -> None:
    """`str.isprintable()` is False for every character the reference refuses (NUL, the
    categories Cc and Cs, the invisible controls), over all of Unicode: so a printable
    path needs no per-character check."""
    for code in range(0x110000):
        ch = chr(code)
        if ch.isprintable():
            assert unicodedata.category(ch) not in ("Cc", "Cs"), hex(code)
            assert ch not in _INVISIBLE_CONTROLS, hex(code)
