"""Shared pieces of the adversarial suite: the arena, snapshots, the path-parameter map.

The arena is a temporary directory holding the workspace root `ws/` and, next to it, a
canary tree that no tool may create, read or change:

    base/
      ws/                  the workspace root (re-filled by `reset_root`)
      outside/             canary files, a directory and a symlink, each with SECRET inside
      ws-evil/             the prefix sibling of the root (`/…/ws` vs `/…/ws-evil`)
      ws.txt               a file whose name starts with the root's name

`outside_snapshot()` records every entry under `base` except the root (kind, mode, mtime,
bytes, link target), so a created, removed, touched or changed entry next to or outside
the root is a difference.
"""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from filewright import Workspace
from filewright.core.result import Result

SECRET = "CANARY-7f3a9c-outside-the-root"
ROOT_SECRET = "root-file-content"
OLD = 1_000_000_000  # the canary tree's mtime (2001), so that any touch shows

# path relative to the snapshot base -> (kind, mode, mtime_ns, bytes or link target)
Snapshot = dict[str, tuple[str, int, int, bytes | str]]

TOOLSETS = ("default", "claude", "text_editor", "gemini", "worker", "companion", "memo", "mcpfs")
TEXT_EDITOR_OPTIONS = {"version": "20250124"}  # the version with undo_edit


def take_snapshot(
    base: Path, *, skip: tuple[Path, ...] = (), skip_names: tuple[str, ...] = ()
) -> Snapshot:
    """Every entry under `base` (never following symlinks): kind, mode, mtime and content.
    A directory that cannot be listed is recorded but not entered (as `os.walk` does)."""
    out: Snapshot = {}
    skipped = {os.fspath(p) for p in skip}

    def visit(directory: str, prefix: str) -> None:
        try:
            with os.scandir(directory) as listing:
                entries = list(listing)
        except OSError:
            return
        for entry in entries:
            if entry.path in skipped or entry.name in skip_names:
                continue
            rel = prefix + entry.name
            if entry.is_symlink():  # (the listing's entry type: no lstat for a link)
                out[rel] = ("link", 0, 0, os.readlink(entry.path))
                continue
            st = entry.stat(follow_symlinks=False)
            if stat.S_ISLNK(st.st_mode):
                out[rel] = ("link", 0, 0, os.readlink(entry.path))
            elif stat.S_ISREG(st.st_mode):
                out[rel] = ("file", st.st_mode, st.st_mtime_ns, _read_all(entry.path, st.st_size))
            elif stat.S_ISDIR(st.st_mode):
                out[rel] = ("dir", st.st_mode, st.st_mtime_ns, "")
                visit(entry.path, rel + os.sep)
            else:
                out[rel] = ("other", st.st_mode, st.st_mtime_ns, "")

    visit(os.fspath(base), "")
    return out


def _read_all(path: str, size: int = -1) -> bytes:
    """Every byte of the file at `path` (os.read: half the cost of `open()`'s file object,
    for the thousands of small files the snapshots and resets read). `size`: the size an
    lstat just gave, if any: a read that returns less than it asked for has met the end
    of the file, so a file no larger than that takes one read, not two."""
    fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    try:
        chunks = []
        want = size + 1 if 0 <= size < 1 << 20 else 1 << 20
        while chunk := os.read(fd, want):
            chunks.append(chunk)
            if len(chunk) < want:
                break
            want = 1 << 20
        return b"".join(chunks)
    finally:
        os.close(fd)


def snapshot_diff(before: Snapshot, after: Snapshot) -> list[str]:
    """Human-readable differences between two snapshots (empty when equal)."""
    out = []
    for key in sorted(set(before) | set(after)):
        if key not in after:
            out.append(f"removed: {key}")
        elif key not in before:
            out.append(f"created: {key}")
        elif before[key] != after[key]:
            b, a = before[key], after[key]
            what = "content" if b[3] != a[3] else "mtime" if b[2] != a[2] else "mode/kind"
            out.append(f"changed ({what}): {key}")
    return out


@dataclass
class Arena:
    base: Path
    root: Path = field(init=False)
    outside: Path = field(init=False)
    evil: Path = field(init=False)

    def __post_init__(self) -> None:
        self.root = self.base / "ws"
        self.outside = self.base / "outside"
        self.evil = self.base / "ws-evil"
        self.outside.mkdir(parents=True)
        (self.outside / "secret.txt").write_text(f"{SECRET}\n", encoding="utf-8")
        (self.outside / "dir").mkdir()
        (self.outside / "dir" / "inner.txt").write_text(f"{SECRET} inner\n", encoding="utf-8")
        (self.outside / "dir" / "hooks").mkdir()
        os.symlink("secret.txt", self.outside / "link-to-secret")
        self.evil.mkdir()
        (self.evil / "x.txt").write_text(f"{SECRET} evil\n", encoding="utf-8")
        (self.base / "ws.txt").write_text(f"{SECRET} sibling\n", encoding="utf-8")
        self.root.mkdir()
        self._fixture = self._fixture_tree()
        self._expected: dict[str, tuple[str, int, bytes | str]] | None = None
        self._children: tuple[object, dict[str, set[str]]] = (None, {})
        # Age the canary tree so that any touch shows as an mtime change.
        for dirpath, dirnames, filenames in os.walk(self.base):
            if Path(dirpath) == self.root:
                continue
            for name in [*dirnames, *filenames]:
                os.utime(os.path.join(dirpath, name), (OLD, OLD), follow_symlinks=False)
        os.utime(self.base, (OLD, OLD))
        self.reset_root()

    # -- the workspace ----------------------------------------------------------------------

    def reset_root(self) -> None:
        """Make the root hold exactly the standard fixture tree.

        Only what differs from the tree is undone: every entry under the root is compared
        with the tree (kind, mode, bytes of each file, target of each link); extra entries
        (filewright's state directory included) are removed and changed or missing ones
        are written anew. The result is the same tree a from-scratch rebuild gives (only
        the mtimes of untouched entries are older), at a fraction of the file-system
        writes: most fuzzed calls change nothing."""
        if self._expected is not None and self._restore_root(self._expected):
            return
        for entry in list(self.root.iterdir()):
            _remove(entry)
        for rel in self._fixture:
            self._create(rel)
        self._expected = _tree_state(self.root)

    def _fixture_tree(self) -> dict[str, tuple[str, bytes | str]]:
        """The standard fixture tree: relative path -> (kind, bytes or link target), each
        directory before what it holds."""
        return {
            "a.txt": ("file", f"alpha\nbeta\ngamma\n{ROOT_SECRET}\n".encode()),
            "crlf.txt": ("file", b"one\r\ntwo\r\nthree\r\n"),
            "sub": ("dir", ""),
            "sub/b.py": ("file", b"def f():\n    return 1\n"),
            "SOUL.md": ("file", b"# Soul\ncalm\n"),
            "USER.md": ("file", b"# User\nname: A\n"),
            "MEMORY.md": ("file", b"# Memory\n## one\nx\n## two\ny\n"),
            ".git": ("dir", ""),
            ".git/hooks": ("dir", ""),
            ".git/config": ("file", b"[core]\n\tbare = false\n"),
            ".env": ("file", b"TOKEN=root\n"),
            "uv.lock": ("file", b"version = 1\n"),
            # Links inside the root that lead outside it (existing, dangling, through /proc).
            "linkout": ("link", str(self.outside)),
            "secretlink": ("link", str(self.outside / "secret.txt")),
            "dangling": ("link", str(self.outside / "not-there.txt")),
            "dangling-dir": ("link", str(self.outside / "newdir" / "deeper")),
            "chain1": ("link", "chain2"),
            "chain2": ("link", "linkout/dir"),
            "loop-a": ("link", "loop-b"),
            "loop-b": ("link", "loop-a"),
            "procroot": ("link", "/proc/self/root"),
            "evil-link": ("link", str(self.evil)),
            # Links inside the root that lead to protected places.
            "innocent": ("link", ".git"),
            "vs": ("link", ".vscode"),
            "mcp-link": ("link", ".mcp.json"),
            "policy-link": ("link", ".filewright.toml"),
            "state-link": ("link", ".filewright"),
            # A link inside the root to a file inside it (followed: harmless).
            "a-link": ("link", "a.txt"),
        }

    def _create(self, rel: str) -> None:
        kind, payload = self._fixture[rel]
        path = os.path.join(self.root, rel)
        if kind == "dir":
            os.mkdir(path)
        elif kind == "link":
            assert isinstance(payload, str)
            os.symlink(payload, path)
        else:
            assert isinstance(payload, bytes)
            with open(path, "xb") as f:
                f.write(payload)

    def _restore_root(self, expected: dict[str, tuple[str, int, bytes | str]]) -> bool:
        """Undo every difference between the root and `expected` (the state a full reset
        left); False when the root itself was changed (then nothing was done)."""
        try:
            st = os.lstat(self.root)
        except OSError:
            return False
        if not stat.S_ISDIR(st.st_mode) or stat.S_IMODE(st.st_mode) != expected[""][1]:
            return False
        # The expected entries directly in each directory ("" the root, "sub/" ...),
        # worked out once per expected state.
        if self._children[0] is not expected:
            children: dict[str, set[str]] = {}
            for rel in expected:
                if rel:
                    parent = rel.rpartition("/")[0]
                    children.setdefault(parent + "/" if parent else "", set()).add(rel)
            self._children = (expected, children)
        children = self._children[1]
        missing: set[str] = set()

        def visit(directory: str, prefix: str) -> None:
            with os.scandir(directory) as entries:
                found = list(entries)
            present = set()
            for entry in found:
                rel = prefix + entry.name
                present.add(rel)
                want = expected.get(rel)
                if want is None:
                    _remove(Path(entry.path))
                    continue
                if entry.is_symlink():  # (the listing's entry type: no lstat for a link)
                    state: tuple[str, int, bytes | str] = ("link", 0, os.readlink(entry.path))
                else:
                    state = _entry_state(entry.path, os.lstat(entry.path))
                if state == want:
                    if want[0] == "dir":
                        visit(entry.path, rel + "/")
                    continue
                _remove(Path(entry.path))
                missing.add(rel)
            missing.update(children.get(prefix, set()) - present)

        visit(str(self.root), "")
        if missing:
            for rel in self._fixture:  # parents before children
                if rel in missing or any(rel.startswith(m + "/") for m in missing):
                    self._create(rel)
        return True

    def workspace(self, confirm: Any = True, **kwargs: Any) -> Workspace:
        return Workspace(str(self.root), confirm=confirm, **kwargs)

    # -- canary checks --------------------------------------------------------------------

    def outside_snapshot(self) -> Snapshot:
        return take_snapshot(self.base, skip=(self.root,))

    def root_snapshot(self) -> Snapshot:
        """The root without filewright's own state directory."""
        return take_snapshot(self.root, skip_names=(".filewright",))

    def assert_outside_unchanged(self, before: Snapshot, context: str = "") -> None:
        diff = snapshot_diff(before, self.outside_snapshot())
        assert not diff, (
            f"outside the root changed{(' after ' + context) if context else ''}: {diff}"
        )
        st = os.stat(self.base)
        assert st.st_mtime_ns == OLD * 10**9, "an entry was created or removed next to the root"


def _entry_state(path: str, st: os.stat_result) -> tuple[str, int, bytes | str]:
    """(kind, permission bits, bytes of a file or target of a link) of one entry."""
    mode = stat.S_IMODE(st.st_mode)
    if stat.S_ISLNK(st.st_mode):
        return ("link", 0, os.readlink(path))
    if stat.S_ISREG(st.st_mode):
        try:
            return ("file", mode, _read_all(path, st.st_size))
        except OSError:
            return ("unreadable", mode, "")
    if stat.S_ISDIR(st.st_mode):
        return ("dir", mode, "")
    return ("other", mode, "")


def _tree_state(root: Path) -> dict[str, tuple[str, int, bytes | str]]:
    """Every entry under `root` (never following links) by relative path ("" is the root)."""
    out = {"": _entry_state(str(root), os.lstat(root))}
    for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
        for name in [*dirnames, *filenames]:
            full = os.path.join(dirpath, name)
            out[os.path.relpath(full, root)] = _entry_state(full, os.lstat(full))
    return out


def _remove(entry: Path) -> None:
    if entry.is_dir() and not entry.is_symlink():
        _rmtree(entry)
    else:
        entry.unlink()


def _rmtree(path: Path) -> None:
    def onerror(func: Any, p: str, _exc: Any) -> None:
        os.chmod(os.path.dirname(p), 0o755)
        func(p)

    shutil.rmtree(path, onerror=onerror)


# -- results --------------------------------------------------------------------------------


def assert_clean_result(result: Any, context: str = "") -> None:
    """A Result: ok is a bool, text non-empty without a traceback, data JSON-serialisable,
    and no internal error (an exception the toolset did not anticipate)."""
    where = f" [{context}]" if context else ""
    assert isinstance(result, Result), f"not a Result: {result!r}{where}"
    assert isinstance(result.ok, bool)
    assert isinstance(result.text, str) and result.text.strip(), f"empty text{where}"
    assert "Traceback" not in result.text, f"traceback in text{where}: {result.text[:500]}"
    assert isinstance(result.data, dict)
    json.dumps(result.data, ensure_ascii=False, default=str)
    # Serialisable the way the CLI prints it (strict JSON, no NaN, lone surrogates escaped).
    result.to_json()
    assert result.data.get("error") != "internal", (
        f"unexpected exception inside the tool{where}: {result.text[:300]}\n{result.data.get('trace', '')}"
    )


def assert_no_secret(result: Result, context: str = "") -> None:
    blob = result.text + json.dumps(result.data, ensure_ascii=False, default=str)
    assert SECRET not in blob, (
        f"content from outside the root leaked [{context}]: {result.text[:300]}"
    )


# -- how each toolset names a path -----------------------------------------------------------

# toolset -> tool -> the parameters that name a path (memo: none; its document is an option).
PATH_PARAMS: dict[str, dict[str, tuple[str, ...]]] = {
    "default": {
        "read": ("path",),
        "write": ("path",),
        "edit": ("path",),
        "append": ("path",),
        "undo": ("path",),
        "multi_edit": ("path",),
        "replace_span": ("path",),
        "insert": ("path",),
        "list": ("path",),
        "glob": ("path",),
        "grep": ("path",),
        "move": ("source", "destination"),
        "delete": ("path",),
        "mkdir": ("path",),
        "stat": ("path",),
        "tree": ("path",),
        "read_many": (),
        "roots": (),
    },
    "claude": {
        "Read": ("file_path",),
        "Write": ("file_path",),
        "Edit": ("file_path",),
        "MultiEdit": ("file_path",),
    },
    "text_editor": {"str_replace_editor": ("path",)},
    "gemini": {
        "list_directory": ("path",),
        "read_file": ("path",),
        "write_file": ("file_path",),
        "glob": ("path",),
        "search_file_content": ("path",),
        "replace": ("file_path",),
    },
    "worker": {"write_file": ("path",), "append_to_file": ("path",), "replace_in_file": ("path",)},
    "companion": {"read": ("path",), "write": ("path",), "edit": ("path",)},
    "memo": {"memo_read": (), "memo_replace_literal": (), "memo_replace_span": ()},
    "mcpfs": {
        "read_file": ("path",),
        "read_text_file": ("path",),
        "read_media_file": ("path",),
        "read_multiple_files": (),
        "write_file": ("path",),
        "edit_file": ("path",),
        "create_directory": ("path",),
        "list_directory": ("path",),
        "list_directory_with_sizes": ("path",),
        "directory_tree": ("path",),
        "move_file": ("source", "destination"),
        "search_files": ("path",),
        "get_file_info": ("path",),
        "list_allowed_directories": (),
    },
}
# Toolsets whose seed insists on absolute paths.
ABSOLUTE_ONLY = {"claude", "text_editor"}
# Parameters holding a regular expression (only when the tool is in regex mode) or a glob.
REGEX_PARAMS = {
    ("worker", "replace_in_file", "old"),
    ("memo", "memo_replace_span", "old_span_start_regex"),
    ("gemini", "search_file_content", "pattern"),
    ("default", "grep", "pattern"),
    ("default", "replace_span", "start"),
}
GLOB_PARAMS = {
    ("gemini", "glob", "pattern"),
    ("gemini", "search_file_content", "include"),
    ("gemini", "list_directory", "ignore"),
    ("default", "glob", "pattern"),
    ("default", "grep", "include"),
    ("default", "list", "ignore"),
    ("default", "tree", "exclude"),
    ("default", "read_many", "pattern"),
    ("mcpfs", "search_files", "pattern"),
    ("mcpfs", "search_files", "excludePatterns"),
    ("mcpfs", "directory_tree", "excludePatterns"),
}


def toolset(ws: Workspace, name: str, **options: Any) -> Any:
    if name == "text_editor":
        options = {**TEXT_EDITOR_OPTIONS, **options}
    return ws.toolset(name, **options)


def as_given(arena: Arena, toolset_name: str, path: str) -> str:
    """`path` as this toolset must receive it (absolute for claude / text_editor)."""
    if toolset_name in ABSOLUTE_ONLY and not os.path.isabs(path):
        return os.path.join(str(arena.root), path)
    return path


def write_calls(
    ts_name: str, path: str, content: str = "PWNED\n"
) -> list[tuple[str, dict[str, Any]]]:
    """Every (tool, args) of a toolset that would create or change the file at `path`."""
    if ts_name == "default":
        return [
            ("write", {"path": path, "content": content}),
            ("append", {"path": path, "content": content}),
            ("edit", {"path": path, "old_string": "\n", "new_string": content}),
            ("multi_edit", {"path": path, "edits": [{"old_string": "\n", "new_string": content}]}),
            ("insert", {"path": path, "line": 0, "text": content}),
            ("replace_span", {"path": path, "start": "a", "end": "\n", "new_text": content}),
        ]
    if ts_name == "claude":
        return [
            ("Write", {"file_path": path, "content": content}),
            (
                "Edit",
                {"file_path": path, "old_string": "\n", "new_string": content, "replace_all": True},
            ),
            (
                "MultiEdit",
                {
                    "file_path": path,
                    "edits": [{"old_string": "\n", "new_string": content, "replace_all": True}],
                },
            ),
        ]
    if ts_name == "text_editor":
        return [
            ("str_replace_editor", {"command": "create", "path": path, "file_text": content}),
            (
                "str_replace_editor",
                {"command": "insert", "path": path, "insert_line": 0, "new_str": content},
            ),
            (
                "str_replace_editor",
                {"command": "str_replace", "path": path, "old_str": "\n", "new_str": content},
            ),
        ]
    if ts_name == "gemini":
        return [
            ("write_file", {"file_path": path, "content": content}),
            ("replace", {"file_path": path, "old_string": "", "new_string": content}),
            ("replace", {"file_path": path, "old_string": "\n", "new_string": content}),
        ]
    if ts_name == "worker":
        return [
            ("write_file", {"path": path, "content": content}),
            ("append_to_file", {"path": path, "content": content}),
            ("replace_in_file", {"path": path, "old": "\n", "new": content}),
        ]
    if ts_name == "companion":
        return [
            ("write", {"path": path, "content": content}),
            ("edit", {"path": path, "oldText": "\n", "newText": content}),
        ]
    if ts_name == "memo":
        return [
            ("memo_replace_literal", {"old_text": "", "new_text": content}),
            (
                "memo_replace_span",
                {"old_span_start": "#", "old_span_end": "\n", "new_text": content},
            ),
        ]
    if ts_name == "mcpfs":
        return [
            ("write_file", {"path": path, "content": content}),
            ("edit_file", {"path": path, "edits": [{"oldText": "\n", "newText": content}]}),
        ]
    raise ValueError(ts_name)


def read_calls(ts_name: str, path: str) -> list[tuple[str, dict[str, Any]]]:
    """Every (tool, args) of a toolset that reads the file or lists the directory at `path`."""
    if ts_name == "default":
        return [
            ("read", {"path": path}),
            ("list", {"path": path}),
            ("glob", {"pattern": "**/*", "path": path}),
            ("grep", {"pattern": "CANARY|root-file", "path": path}),
        ]
    if ts_name == "claude":
        return [("Read", {"file_path": path})]
    if ts_name == "text_editor":
        return [("str_replace_editor", {"command": "view", "path": path})]
    if ts_name == "gemini":
        return [
            ("read_file", {"path": path}),
            ("list_directory", {"path": path}),
            ("glob", {"pattern": "**/*", "path": path}),
            ("search_file_content", {"pattern": "CANARY|root-file", "path": path}),
        ]
    if ts_name == "companion":
        return [("read", {"path": path})]
    if ts_name == "memo":
        return [("memo_read", {})]
    if ts_name == "mcpfs":
        return [
            ("read_text_file", {"path": path}),
            ("read_text_file", {"path": path, "tail": 2}),
            ("read_media_file", {"path": path}),
            ("get_file_info", {"path": path}),
            ("list_directory", {"path": path}),
            ("list_directory_with_sizes", {"path": path}),
            ("directory_tree", {"path": path}),
            ("search_files", {"path": path, "pattern": "**"}),
        ]
    return []


def read_first(ts: Any, ts_name: str, path: str) -> None:
    """Satisfy read-before-write (claude) or stale checks by reading `path` first."""
    for tool, args in read_calls(ts_name, path)[:1]:
        ts.call(tool, args)


# -- the real command line ------------------------------------------------------------------


def filewright_exe() -> str:
    exe = Path(sys.executable).parent / "filewright"
    return str(exe)


def cli(
    args: list[str], *, timeout: float = 60, stdin: str | None = None, cwd: str | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [filewright_exe(), *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        input=stdin,
        cwd=cwd,
    )


def stress() -> bool:
    """Long variants run with FILEWRIGHT_STRESS=1."""
    return os.environ.get("FILEWRIGHT_STRESS", "") not in ("", "0")
