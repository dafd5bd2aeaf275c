"""Path attacks, through the sandbox and through the `default` toolset.

Every attack runs against a real tree in a temp dir: a workspace root `ws/` next to a
canary tree (`outside/`, `ws-evil/`, a file `x`) that nothing may read or write. After
each attack the canary tree (bytes, modes, mtimes, listings) and the workspace itself are
compared with a snapshot taken before it.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from filewright.core.result import Result
from filewright.engine.workspace import Workspace
from filewright.fs import fsio
from filewright.fs.paths import Location, PathRefused, Sandbox

# what the `snapshot` fixture (conftest.py) returns
Snapshot = dict[str, tuple[str, int, int, bytes | str]]
TakeSnapshot = Callable[..., Snapshot]

SECRET = b"TOP SECRET canary: must never be read or changed\n"
PAYLOAD = "PWNED by the test\n"


@dataclass
class Layout:
    base: Path
    root: Path
    outside: Path
    take: TakeSnapshot

    @property
    def secret(self) -> Path:
        return self.outside / "secret.txt"

    def canary(self) -> Snapshot:
        """Everything outside the workspace root."""
        return self.take(self.base, skip=(self.root,))

    def inside(self) -> Snapshot:
        """The workspace, without filewright's own state directory."""
        return self.take(self.root, skip=(self.root / ".filewright",))

    def call(self, tool: str, args: dict[str, object]) -> Result:
        return Workspace(self.root).toolset("default").call(tool, args)


@pytest.fixture
def layout(tmp_path: Path, snapshot: TakeSnapshot) -> Layout:
    base = tmp_path / "t"
    root = base / "ws"
    outside = base / "outside"
    (outside / "dir").mkdir(parents=True)
    root.mkdir()
    (outside / "secret.txt").write_bytes(SECRET)
    (outside / "dir" / "file.txt").write_bytes(SECRET)
    (base / "ws-evil").mkdir()
    (base / "ws-evil" / "x").write_bytes(SECRET)
    (base / "x").write_bytes(SECRET)
    (root / "file.txt").write_text("inside\n")
    (root / "adir").mkdir()
    (root / "adir" / "inner.txt").write_text("inner\n")
    os.chmod(outside / "secret.txt", 0o600)
    return Layout(base, root, outside, snapshot)


# -- the attack table ------------------------------------------------------------------

Setup = Callable[[Layout], None]


def _none(_: Layout) -> None:
    pass


def _link_out(lay: Layout) -> None:
    (lay.root / "link_out").symlink_to(lay.secret)


def _link_out_relative(lay: Layout) -> None:
    (lay.root / "rel_out").symlink_to("../outside/secret.txt")


def _dangling_out(lay: Layout) -> None:
    (lay.root / "dangling").symlink_to(lay.outside / "not-yet.txt")


def _chain(lay: Layout) -> None:
    (lay.root / "c2").symlink_to("../outside/secret.txt")
    (lay.root / "c1").symlink_to(lay.root / "c2")


def _dangling_chain(lay: Layout) -> None:
    (lay.root / "d2").symlink_to(lay.outside / "missing" / "new.txt")
    (lay.root / "d1").symlink_to("d2")


def _loop(lay: Layout) -> None:
    (lay.root / "la").symlink_to("lb")
    (lay.root / "lb").symlink_to("la")


def _self_loop(lay: Layout) -> None:
    (lay.root / "me").symlink_to("me")


def _sub_out(lay: Layout) -> None:
    (lay.root / "sub").symlink_to(lay.outside)


def _sub_dangling(lay: Layout) -> None:
    (lay.root / "dsub").symlink_to(lay.outside / "newdir")


def _up(lay: Layout) -> None:
    (lay.root / "up").symlink_to("..")


def _slash(lay: Layout) -> None:
    (lay.root / "slash").symlink_to("/")


def _nested_sub_out(lay: Layout) -> None:
    (lay.root / "adir" / "deep").symlink_to("../../outside/dir")


def _deep_to_canary(lay: Layout) -> str:
    return "../" * 40 + str(lay.secret).lstrip("/")


ESCAPES: list[tuple[str, Setup, Callable[[Layout], str], set[str]]] = [
    ("dotdot", _none, lambda lay: "../x", {"outside"}),
    ("dotdot-after-dir", _none, lambda lay: "a/../../x", {"outside"}),
    ("dotdot-existing-dir", _none, lambda lay: "adir/../../outside/secret.txt", {"outside"}),
    ("dotdot-deep-to-canary", _none, _deep_to_canary, {"outside"}),
    ("absolute-outside", _none, lambda lay: str(lay.secret), {"outside"}),
    ("absolute-new-outside", _none, lambda lay: str(lay.outside / "new.txt"), {"outside"}),
    ("absolute-via-root", _none, lambda lay: f"{lay.root}/../outside/secret.txt", {"outside"}),
    ("prefix-sibling", _none, lambda lay: str(lay.base / "ws-evil" / "x"), {"outside"}),
    ("prefix-sibling-new", _none, lambda lay: str(lay.base / "ws-evil" / "y"), {"outside"}),
    ("prefix-sibling-rel", _none, lambda lay: "../ws-evil/x", {"outside"}),
    ("root-parent", _none, lambda lay: str(lay.base), {"outside"}),
    ("symlink-out", _link_out, lambda lay: "link_out", {"outside"}),
    ("symlink-out-relative", _link_out_relative, lambda lay: "rel_out", {"outside"}),
    ("symlink-dangling-out", _dangling_out, lambda lay: "dangling", {"outside"}),
    ("symlink-chain-out", _chain, lambda lay: "c1", {"outside"}),
    ("symlink-dangling-chain", _dangling_chain, lambda lay: "d1", {"outside"}),
    ("symlink-loop", _loop, lambda lay: "la", {"symlink_loop"}),
    ("symlink-loop-parent", _loop, lambda lay: "la/x.txt", {"symlink_loop"}),
    ("symlink-self-loop", _self_loop, lambda lay: "me", {"symlink_loop"}),
    ("symlinked-parent-new", _sub_out, lambda lay: "sub/new.txt", {"outside"}),
    ("symlinked-parent-existing", _sub_out, lambda lay: "sub/secret.txt", {"outside"}),
    ("symlinked-parent-deeper", _sub_out, lambda lay: "sub/dir/new.txt", {"outside"}),
    ("symlinked-parent-dangling", _sub_dangling, lambda lay: "dsub/new.txt", {"outside"}),
    ("symlinked-nested-parent", _nested_sub_out, lambda lay: "adir/deep/file.txt", {"outside"}),
    ("symlink-to-parent", _up, lambda lay: "up/outside/secret.txt", {"outside"}),
    ("symlink-to-slash", _slash, lambda lay: "slash" + str(lay.secret), {"outside"}),
    ("nul", _none, lambda lay: "file.txt\x00.png", {"invalid"}),
    ("nul-escape", _none, lambda lay: "..\x00/x", {"invalid"}),
    ("newline", _none, lambda lay: "a\nb.txt", {"invalid"}),
    ("carriage-return", _none, lambda lay: "a\rb.txt", {"invalid"}),
    ("escape", _none, lambda lay: "a\x1b[31mb.txt", {"invalid"}),
    ("delete", _none, lambda lay: "a\x7fb.txt", {"invalid"}),
    ("next-line", _none, lambda lay: "a\x85b.txt", {"invalid"}),
    ("line-separator", _none, lambda lay: "a\u2028b.txt", {"invalid"}),
    ("paragraph-separator", _none, lambda lay: "a\u2029b.txt", {"invalid"}),
    ("bidi-override", _none, lambda lay: "invoice\u202etxt.exe", {"invalid"}),
    ("lone-surrogate", _none, lambda lay: "a\udcffb.txt", {"invalid"}),
    ("tilde", _none, lambda lay: "~", {"invalid"}),
    ("tilde-slash", _none, lambda lay: "~/x.txt", {"invalid"}),
    ("tilde-user", _none, lambda lay: "~root/x.txt", {"invalid"}),
    ("empty", _none, lambda lay: "", {"invalid"}),
    ("blank", _none, lambda lay: "   ", {"invalid"}),
    ("name-too-long", _none, lambda lay: "n" * 300 + ".txt", {"invalid"}),
]

WRITES = [
    ("write", {"content": PAYLOAD}),
    ("append", {"content": PAYLOAD}),
]


def _assert_untouched(lay: Layout, canary: Snapshot, inside: Snapshot) -> None:
    assert lay.canary() == canary, "something outside the workspace changed"
    assert lay.inside() == inside, "a refused call changed the workspace"
    assert lay.secret.read_bytes() == SECRET


@pytest.mark.parametrize(
    ("name", "setup", "make_path", "codes"), ESCAPES, ids=[e[0] for e in ESCAPES]
)
def test_sandbox_refuses(
    layout: Layout, name: str, setup: Setup, make_path: Callable[[Layout], str], codes: set[str]
) -> None:
    setup(layout)
    path = make_path(layout)
    canary, inside = layout.canary(), layout.inside()
    for expect in ("file", "any"):
        with pytest.raises(PathRefused) as info:
            Sandbox([layout.root]).resolve(path, expect=expect)
        assert info.value.code in codes, (name, info.value.code, str(info.value))
        assert str(info.value), "a refusal needs a message"
    _assert_untouched(layout, canary, inside)


@pytest.mark.parametrize(
    ("name", "setup", "make_path", "codes"), ESCAPES, ids=[e[0] for e in ESCAPES]
)
def test_toolset_refuses(
    layout: Layout, name: str, setup: Setup, make_path: Callable[[Layout], str], codes: set[str]
) -> None:
    setup(layout)
    path = make_path(layout)
    canary, inside = layout.canary(), layout.inside()
    for tool, extra in [("read", {}), *WRITES]:
        result = layout.call(tool, {"path": path, **extra})
        assert not result.ok, (name, tool, result.text)
        assert result.data.get("error") in codes, (name, tool, result.data, result.text)
        dumped = json.dumps(result.to_dict())
        assert "TOP SECRET" not in dumped, "canary content leaked into a result"
        assert "Traceback" not in result.text
        _assert_untouched(layout, canary, inside)


def test_deep_dotdot_to_system_file_is_refused(layout: Layout) -> None:
    path = "../" * 40 + "etc/passwd"
    for p in (path, "../../../../etc/passwd", "/etc/passwd"):
        with pytest.raises(PathRefused) as info:
            Sandbox([layout.root]).resolve(p)
        assert info.value.code == "outside"
        result = layout.call("read", {"path": p})
        assert not result.ok
        assert result.data["error"] == "outside"
        assert "root:" not in result.text


def test_tilde_is_refused_even_where_it_would_not_expand(
    layout: Layout, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOME", "~")
    for path in ("~", "~/x.txt"):
        with pytest.raises(PathRefused) as info:
            Sandbox([layout.root]).resolve(path)
        assert info.value.code == "invalid"
    # a name that merely starts with "~" and names no user is an ordinary file name
    assert (
        Sandbox([layout.root]).resolve("~no-such-user-xyz.txt").real
        == layout.root / "~no-such-user-xyz.txt"
    )
    assert Sandbox([layout.root]).resolve("notes/~draft.txt").rel == "notes/~draft.txt"


def test_refusal_names_the_problem(layout: Layout) -> None:
    _link_out(layout)
    texts = {
        "outside": layout.call("read", {"path": "../x"}).text,
        "nul": layout.call("read", {"path": "a\x00b"}).text,
        "tilde": layout.call("write", {"path": "~/x", "content": "x"}).text,
    }
    assert "outside" in texts["outside"].lower()
    assert "nul" in texts["nul"].lower()
    assert "~" in texts["tilde"]
    for text in texts.values():
        assert "\x00" not in text
        assert "Traceback" not in text


# -- directories where a file is needed ----------------------------------------------------


@pytest.mark.parametrize(
    "path", ["adir", "adir/", "adir/.", ".", "./", "adir/..", "newdir/", "new/."]
)
def test_directory_where_a_file_is_needed(layout: Layout, path: str) -> None:
    canary, inside = layout.canary(), layout.inside()
    with pytest.raises(PathRefused) as info:
        Sandbox([layout.root]).resolve(path, expect="file")
    assert info.value.code == "is_directory"
    for tool, extra in [("read", {}), *WRITES]:
        result = layout.call(tool, {"path": path, **extra})
        assert not result.ok, (tool, path)
        assert result.data["error"] == "is_directory", result.data
        assert "directory" in result.text.lower()
    _assert_untouched(layout, canary, inside)
    assert not (layout.root / "newdir").exists()
    assert not (layout.root / "new").exists()


def test_file_used_as_a_directory(layout: Layout) -> None:
    canary, inside = layout.canary(), layout.inside()
    for tool, extra in [("read", {}), *WRITES]:
        result = layout.call(tool, {"path": "file.txt/child.txt", **extra})
        assert not result.ok
        assert "Traceback" not in result.text
    _assert_untouched(layout, canary, inside)


# -- FIFOs and other special files -----------------------------------------------------------


@pytest.mark.timeout(20)
def test_fifo_is_refused_without_hanging(layout: Layout) -> None:
    os.mkfifo(layout.root / "pipe")
    (layout.root / "pipe-link").symlink_to("pipe")
    canary, inside = layout.canary(), layout.inside()
    for path in ("pipe", "pipe-link"):
        with pytest.raises(PathRefused) as info:
            Sandbox([layout.root]).resolve(path, expect="file")
        assert info.value.code == "not_regular"
        for tool, extra in [("read", {}), *WRITES]:
            result = layout.call(tool, {"path": path, **extra})
            assert not result.ok
            assert result.data["error"] == "not_regular", result.data
    _assert_untouched(layout, canary, inside)


@pytest.mark.timeout(20)
def test_fifo_swapped_in_after_resolve_does_not_hang(layout: Layout) -> None:
    loc = Sandbox([layout.root]).resolve("file.txt", expect="file")
    (layout.root / "file.txt").unlink()
    os.mkfifo(layout.root / "file.txt")
    with pytest.raises(PathRefused) as info:
        fsio.read_bytes(loc)
    assert info.value.code == "not_regular"
    with pytest.raises(PathRefused) as info:
        fsio.open_for_reading(loc)
    assert info.value.code == "not_regular"
    with pytest.raises(PathRefused) as info:
        fsio.write_atomic(loc, b"x", mode=None)
    assert info.value.code == "not_regular"


# -- what is allowed -------------------------------------------------------------------------


def test_relative_and_absolute_inside_resolve(layout: Layout) -> None:
    sb = Sandbox([layout.root])
    rel = sb.resolve("adir/inner.txt")
    absolute = sb.resolve(str(layout.root / "adir" / "inner.txt"))
    assert rel.real == absolute.real == layout.root / "adir" / "inner.txt"
    assert rel.rel == "adir/inner.txt"
    assert rel.exists and not rel.is_dir
    new = sb.resolve("brand/new/file.txt")
    assert not new.exists
    assert new.real == layout.root / "brand" / "new" / "file.txt"
    back_in = sb.resolve("adir/../file.txt")
    assert back_in.real == layout.root / "file.txt"


def test_root_named_through_a_symlink(layout: Layout) -> None:
    alias = layout.base / "alias"
    alias.symlink_to(layout.root)
    sb = Sandbox([alias])
    assert sb.resolve(str(alias / "file.txt")).real == layout.root / "file.txt"
    assert sb.resolve("file.txt").path == alias / "file.txt"
    with pytest.raises(PathRefused):
        sb.resolve(str(alias / ".." / "outside" / "secret.txt"))
    with pytest.raises(PathRefused):
        sb.resolve(str(layout.base / "alias-evil" / "x"))


def test_multiple_roots(layout: Layout) -> None:
    second = layout.base / "second"
    second.mkdir()
    (second / "s.txt").write_text("second\n")
    sb = Sandbox([layout.root, second])
    assert sb.resolve("file.txt").real == layout.root / "file.txt"
    assert sb.resolve("s.txt").real == layout.root / "s.txt"  # relative: first root only
    loc = sb.resolve(str(second / "s.txt"))
    assert loc.root == second
    assert loc.rel == "s.txt"
    with pytest.raises(PathRefused) as info:
        sb.resolve(str(layout.secret))
    assert info.value.code == "outside"
    with pytest.raises(PathRefused):
        sb.resolve(str(layout.base / "second-evil" / "x"))

    tools = Workspace([layout.root, second]).toolset("default")
    canary = layout.take(layout.base, skip=(layout.root, second))
    assert tools.call("write", {"path": "rel.txt", "content": "first\n"}).ok
    assert (layout.root / "rel.txt").read_text() == "first\n"
    assert not (second / "rel.txt").exists()
    result = tools.call("append", {"path": str(second / "s.txt"), "content": "more\n"})
    assert result.ok, result.text
    assert (second / "s.txt").read_text() == "second\nmore\n"
    result = tools.call("read", {"path": str(second / "s.txt")})
    assert result.ok and "more" in result.text
    for tool, extra in [("read", {}), *WRITES]:
        result = tools.call(tool, {"path": str(layout.secret), **extra})
        assert not result.ok and result.data["error"] == "outside"
    assert layout.take(layout.base, skip=(layout.root, second)) == canary


def test_symlink_inside_to_file_inside_is_followed(layout: Layout) -> None:
    notes = layout.root / "notes"
    notes.mkdir()
    target = notes / "target.txt"
    target.write_text("one\n")
    link = layout.root / "link.txt"
    link.symlink_to("notes/target.txt")
    canary = layout.canary()
    tools = Workspace(layout.root).toolset("default")

    loc = Sandbox([layout.root]).resolve("link.txt")
    assert loc.is_link and loc.real == target and loc.rel == "notes/target.txt"

    result = tools.call("append", {"path": "link.txt", "content": "two\n"})
    assert result.ok, result.text
    assert target.read_text() == "one\ntwo\n"
    assert link.is_symlink() and os.readlink(link) == "notes/target.txt"

    result = tools.call("read", {"path": "link.txt"})
    assert result.ok and "two" in result.text
    result = tools.call("edit", {"path": "link.txt", "old_string": "two", "new_string": "2"})
    assert result.ok, result.text
    assert target.read_text() == "one\n2\n"
    assert link.is_symlink() and os.readlink(link) == "notes/target.txt"

    result = tools.call("write", {"path": "link.txt", "content": "three\n"})
    assert result.ok, result.text
    assert target.read_text() == "three\n"
    assert link.is_symlink() and os.readlink(link) == "notes/target.txt"
    assert layout.canary() == canary


def test_symlinked_directory_inside_is_followed(layout: Layout) -> None:
    (layout.root / "alias").symlink_to("adir")
    tools = Workspace(layout.root).toolset("default")
    result = tools.call("write", {"path": "alias/new.txt", "content": "new\n"})
    assert result.ok, result.text
    assert (layout.root / "adir" / "new.txt").read_text() == "new\n"
    assert (layout.root / "alias").is_symlink()


def test_dangling_symlink_inside_creates_its_target(layout: Layout) -> None:
    (layout.root / "later.txt").symlink_to("adir/later-target.txt")
    tools = Workspace(layout.root).toolset("default")
    result = tools.call("write", {"path": "later.txt", "content": "made\n"})
    assert result.ok, result.text
    assert (layout.root / "adir" / "later-target.txt").read_text() == "made\n"
    assert (layout.root / "later.txt").is_symlink()


def test_hardlink_to_outside_file_is_not_written_through(layout: Layout) -> None:
    """A hard link cannot be told from a file, but the atomic rename replaces the link
    inside the workspace and leaves the outside inode's bytes alone."""
    os.link(layout.secret, layout.root / "hard.txt")
    before = layout.secret.read_bytes(), layout.secret.stat().st_mtime_ns
    tools = Workspace(layout.root).toolset("default")
    assert tools.call("write", {"path": "hard.txt", "content": PAYLOAD}).ok
    assert (layout.root / "hard.txt").read_text() == PAYLOAD
    assert (layout.secret.read_bytes(), layout.secret.stat().st_mtime_ns) == before


# -- a symlink swapped in between check and use -------------------------------------------------


def _swap_dir_for_link(directory: Path, target: Path) -> None:
    shutil.rmtree(directory)
    directory.symlink_to(target)


def _stale_ops(loc: Location) -> list[tuple[str, Callable[[], object]]]:
    return [
        ("write_atomic", lambda: fsio.write_atomic(loc, PAYLOAD.encode(), mode=None)),
        (
            "write_atomic+parents",
            lambda: fsio.write_atomic(loc, b"x", mode=None, create_parents=True),
        ),
        ("read_bytes", lambda: fsio.read_bytes(loc)),
        ("open_for_reading", lambda: os.close(fsio.open_for_reading(loc))),
        ("remove_file", lambda: fsio.remove_file(loc)),
    ]


@pytest.mark.parametrize("depth", [1, 3])
def test_parent_swapped_for_symlink_after_resolve(layout: Layout, depth: int) -> None:
    dirs = ["a", "b", "c"][:depth]
    parent = layout.root.joinpath(*dirs)
    parent.mkdir(parents=True)
    (parent / "file.txt").write_text("inside\n")
    (layout.outside / "dir" / "file.txt").write_bytes(SECRET)
    loc = Sandbox([layout.root]).resolve("/".join([*dirs, "file.txt"]), expect="file")
    assert loc.exists
    swapped = layout.root.joinpath(*dirs[-1:]) if depth == 1 else layout.root / "a" / "b"
    _swap_dir_for_link(swapped, layout.outside / "dir")
    canary = layout.canary()
    for name, op in _stale_ops(loc):
        with pytest.raises(PathRefused) as info:
            op()
        assert info.value.code == "changed", name
        assert layout.canary() == canary, name
    assert (layout.outside / "dir" / "file.txt").read_bytes() == SECRET


def test_file_swapped_for_symlink_after_resolve(layout: Layout) -> None:
    loc = Sandbox([layout.root]).resolve("file.txt", expect="file")
    (layout.root / "file.txt").unlink()
    (layout.root / "file.txt").symlink_to(layout.secret)
    canary = layout.canary()
    for name, op in _stale_ops(loc):
        if name == "remove_file":
            continue  # removing the link itself would not touch the target
        with pytest.raises(PathRefused) as info:
            op()
        assert info.value.code == "changed", name
        assert layout.canary() == canary, name
    assert (layout.root / "file.txt").is_symlink()


def test_missing_parent_replaced_by_symlink_before_creation(layout: Layout) -> None:
    loc = Sandbox([layout.root]).resolve("n1/n2/new.txt", expect="file")
    assert not loc.exists
    (layout.root / "n1").symlink_to(layout.outside)
    canary = layout.canary()
    with pytest.raises(PathRefused) as info:
        fsio.write_atomic(loc, PAYLOAD.encode(), create_parents=True, mode=None)
    assert info.value.code == "changed"
    assert layout.canary() == canary
    assert not (layout.outside / "n2").exists()


def test_dangling_symlink_swapped_in_for_missing_parent(layout: Layout) -> None:
    loc = Sandbox([layout.root]).resolve("n1/new.txt", expect="file")
    (layout.root / "n1").symlink_to(layout.outside / "made-outside")
    canary = layout.canary()
    with pytest.raises(PathRefused) as info:
        fsio.write_atomic(loc, PAYLOAD.encode(), create_parents=True, mode=None)
    assert info.value.code == "changed"
    assert layout.canary() == canary
    assert not (layout.outside / "made-outside").exists()


def test_stale_location_without_a_swap_still_works(layout: Layout) -> None:
    loc = Sandbox([layout.root]).resolve("adir/inner.txt", expect="file")
    fsio.write_atomic(loc, b"rewritten\n", mode=None)
    assert fsio.read_bytes(loc).data == b"rewritten\n"
    assert not any(p.name.endswith(fsio.TEMP_SUFFIX) for p in (layout.root / "adir").iterdir())


# -- filewright's own state directory ----------------------------------------------------------


def test_state_dir_symlink_does_not_redirect_writes_outside(layout: Layout) -> None:
    (layout.root / ".filewright").symlink_to(layout.outside / "dir")
    canary = layout.canary()
    with pytest.raises(ValueError, match="symlink in filewright's state directory"):
        Workspace(layout.root).toolset("default").call(
            "write", {"path": "file.txt", "content": "changed\n"}
        )
    assert layout.canary() == canary


def test_a_file_named_with_a_trailing_slash_is_not_a_directory(tmp_path: Path) -> None:
    """`a.txt/` names nothing when a.txt is a file (open() says ENOTDIR): refused as such,
    never read or written as a.txt."""
    (tmp_path / "a.txt").write_text("x\n", encoding="utf-8")
    sandbox = Sandbox([tmp_path])
    for given in ("a.txt/", "a.txt/."):
        for expect in ("file", "dir", "any"):
            with pytest.raises(PathRefused) as caught:
                sandbox.resolve(given, expect=expect)
            assert caught.value.code == "not_directory"
            assert caught.value.detail == f"not a directory: {given}"
    result = Workspace(tmp_path).toolset("default").call("read", {"path": "a.txt/"})
    assert not result.ok and result.data["error"] == "not_directory"


def test_a_loop_behind_a_missing_directory_is_a_symlink_loop(tmp_path: Path) -> None:
    """`a -> missing/../a` loops only once `missing` is passed: refused as a loop (not as
    "changed while in use", which would invite retrying), also below it."""
    os.symlink("missing/../loopmiss", tmp_path / "loopmiss")
    sandbox = Sandbox([tmp_path])
    for given in ("loopmiss", "loopmiss/x.txt"):
        with pytest.raises(PathRefused) as caught:
            sandbox.resolve(given, expect="file")
        assert caught.value.code == "symlink_loop"
    assert sandbox.resolve("missing/new.txt", expect="file").exists is False


def test_names_under_roots_gives_each_name_once(tmp_path: Path) -> None:
    """A root given by its real path is both a given and a real root: a refused path's
    names (judged by the policy's hidden check) come once, not once per list; a root
    named through a link gives both names."""
    (tmp_path / "ws" / "sub").mkdir(parents=True)
    os.symlink("ws", tmp_path / "alias")
    ws, alias = str(tmp_path / "ws"), str(tmp_path / "alias")
    assert Sandbox([ws]).names_under_roots("a/b") == ["a/b"]
    assert Sandbox([ws]).names_under_roots(ws) == ["."]
    assert Sandbox([alias]).names_under_roots(alias + "/a") == ["a"]
    assert Sandbox([alias]).names_under_roots(ws + "/a") == ["a"]
    assert Sandbox([alias, ws + "/sub"]).names_under_roots(ws + "/sub/x") == ["x", "sub/x"]
