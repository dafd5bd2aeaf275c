"""Checklist: every behaviour `vecli-filesystem-tools.md` specifies, with its texts.

One test per tool section (1 list_directory ... 6 replace), walking the seed's
parameters, behaviour, output and failure conditions; what filewright adds is checked
to be in `data`, not in the text.
"""

from __future__ import annotations

import base64
import os
import time
from pathlib import Path

import pytest
from samples import pdf, png

from filewright import Workspace
from filewright.tools.base import Toolset


@pytest.fixture
def root(tmp_path: Path) -> Path:
    base = tmp_path / "project"
    (base / "src" / "sub").mkdir(parents=True)
    (base / "node_modules" / "m").mkdir(parents=True)
    (base / ".git").mkdir()
    (base / "build").mkdir()
    (base / ".gitignore").write_text("build/\n*.log\n")
    (base / "debug.log").write_text("log\n")
    (base / "build" / "out.ts").write_text("built\n")
    (base / "node_modules" / "m" / "index.ts").write_text("dep\n")
    for i, rel in enumerate(["src/a.ts", "src/sub/b.ts", "src/c.md"]):
        (base / rel).write_text(f"export function myFunction{i}() {{}}\n")
        os.utime(base / rel, (1_700_000_000 + i, 1_700_000_000 + i))
    return base


def tools(root: Path, **kwargs: object) -> Toolset:
    return Workspace(root, confirm=True, **kwargs).toolset("gemini")  # type: ignore[arg-type]


# -- 1. list_directory -------------------------------------------------------------------


def test_list_directory(root: Path) -> None:
    t = tools(root)
    r = t.call("list_directory", {"path": str(root)})
    assert r.text == (  # directories first, then alphabetically; gitignored left out
        f"Directory listing for {root}:\n[DIR] node_modules\n[DIR] src\n.gitignore"
    )
    assert r.data["ignored_count"] == 3  # .git, build/, debug.log: in data, not in the text
    r = t.call("list_directory", {"path": str(root), "ignore": ["*.md", ".git*", "node_*"]})
    assert r.text == f"Directory listing for {root}:\n[DIR] src"
    r = t.call("list_directory", {"path": str(root / "src"), "respect_git_ignore": False})
    assert r.text == f"Directory listing for {root / 'src'}:\n[DIR] sub\na.ts\nc.md"


# -- 2. read_file -----------------------------------------------------------------------------


def test_read_file_text_ranges_and_truncation(root: Path) -> None:
    (root / "long.txt").write_text("".join(f"line {i}\n" for i in range(1, 501)))
    t = tools(root)
    r = t.call("read_file", {"path": str(root / "long.txt"), "offset": 0, "limit": 100})
    assert r.text.startswith(
        "[File content truncated: showing lines 1-100 of 500 total lines. "
        "Use offset/limit parameters to view more.]\nline 1\n"
    )
    r = t.call("read_file", {"path": str(root / "long.txt"), "offset": 498, "limit": 5})
    assert r.text == "line 499\nline 500"
    whole = t.call("read_file", {"path": str(root / "src" / "a.ts")})
    assert whole.text == "export function myFunction0() {}"


def test_read_file_offset_requires_limit(root: Path) -> None:
    r = tools(root).call("read_file", {"path": str(root / "src" / "a.ts"), "offset": 1})
    assert (r.ok, r.text) == (
        False,
        "Error: Invalid parameters provided. Reason: offset requires limit to be set",
    )


@pytest.mark.parametrize(
    ("name", "mime"),
    [("a.png", "image/png"), ("a.pdf", "application/pdf")],
)
def test_read_file_images_and_pdfs_are_inline_data(root: Path, name: str, mime: str) -> None:
    raw = {
        "a.png": png(),
        "a.pdf": pdf(["Hello"]),
    }[name]
    (root / name).write_bytes(raw)
    r = tools(root).call("read_file", {"path": str(root / name)})
    assert r.ok and r.data["inlineData"]["mimeType"] == mime
    assert base64.b64decode(r.data["inlineData"]["data"]) == raw


def test_read_file_other_binaries_are_skipped(root: Path) -> None:
    (root / "data.bin").write_bytes(b"\x00\x01\x02binary")
    r = tools(root).call("read_file", {"path": str(root / "data.bin")})
    assert r.text == f"Cannot display content of binary file: {root / 'data.bin'}"


# -- 3. write_file ----------------------------------------------------------------------------


def test_write_file(root: Path) -> None:
    asked: list[object] = []
    t = Workspace(root, confirm=lambda req: asked.append(req) or True).toolset("gemini")
    new = root / "new" / "deep" / "file.txt"
    r = t.call("write_file", {"file_path": str(new), "content": "one\n"})
    assert r.text == f"Successfully created and wrote to new file: {new}"
    r = t.call("write_file", {"file_path": str(new), "content": "two\n"})
    assert r.text == f"Successfully overwrote file: {new}"
    assert len(asked) == 2  # confirmation: yes, with the diff
    r = t.call("write_file", {"file_path": "new/x.txt", "content": "x"})  # relative: the root
    assert (r.ok, r.text) == (
        True,
        f"Successfully created and wrote to new file: {root / 'new/x.txt'}",
    )
    assert (root / "new" / "x.txt").read_text() == "x"


# -- 4. glob -------------------------------------------------------------------------------------


def test_glob(root: Path) -> None:
    t = tools(root)
    r = t.call("glob", {"pattern": "**/*.TS", "path": str(root)})
    assert r.text == (  # newest first, absolute, case-insensitive; build/ and node_modules out
        f'Found 2 file(s) matching "**/*.TS" within {root}, sorted by modification time '
        f"(newest first):\n{root / 'src/sub/b.ts'}\n{root / 'src/a.ts'}"
    )
    assert r.data["ignored_count"] == 1
    assert t.call("glob", {"pattern": "**/*.TS", "case_sensitive": True}).text.startswith(
        'No files found matching pattern "**/*.TS"'
    )


# -- 5. search_file_content -------------------------------------------------------------------


def test_search_file_content(root: Path) -> None:
    (root / "src" / "utils.ts").write_text(
        "a\nexport function myFunction() {\n  myFunction.call();\n"
    )
    time.sleep(0)
    r = tools(root).call(
        "search_file_content", {"pattern": "myFunction\\(", "path": str(root / "src"), "include": "utils.ts"}
    )  # fmt: skip
    assert r.text == (
        f'Found 1 match for pattern "myFunction\\(" in path "{root / "src"}" (filter: "utils.ts"):\n'
        "---\nFile: utils.ts\nL2: export function myFunction() {\n---"
    )


# -- 6. replace ---------------------------------------------------------------------------------


def test_replace_success_and_creation(root: Path) -> None:
    t = tools(root)
    target = root / "src" / "a.ts"
    r = t.call(
        "replace", {"file_path": str(target), "old_string": "myFunction0", "new_string": "f"}
    )
    assert r.text == f"Successfully modified file: {target} (1 replacements)."
    new = root / "made.txt"
    r = t.call("replace", {"file_path": str(new), "old_string": "", "new_string": "hi\n"})
    assert r.text == f"Created new file: {new} with provided content."


def test_replace_failure_conditions(root: Path, tmp_path: Path) -> None:
    t = tools(root)
    target = root / "src" / "a.ts"
    cases = [
        ({"file_path": "src/a.ts", "old_string": "nowhere", "new_string": "y"}, f"Failed to edit, 0 occurrences found for old_string in {target}. "),
        ({"file_path": "../out.ts", "old_string": "x", "new_string": "y"}, f"File path must be within one of the workspace directories: {root}"),
        ({"file_path": str(tmp_path / "out.ts"), "old_string": "x", "new_string": "y"}, f"File path must be within one of the workspace directories: {root}"),
        ({"file_path": str(target), "old_string": "nowhere", "new_string": "y"}, f"Failed to edit, 0 occurrences found for old_string in {target}. "),
        ({"file_path": str(target), "old_string": "", "new_string": "y"}, f"File already exists, cannot create: {target}"),
        ({"file_path": str(root / "missing.ts"), "old_string": "a", "new_string": "b"}, f"File not found: {root / 'missing.ts'}"),
    ]  # fmt: skip
    for args, start in cases:
        r = t.call("replace", args)
        assert not r.ok and r.text.startswith(start), (args, r.text)
    (root / "two.txt").write_text("x\nx\n")
    r = t.call(
        "replace", {"file_path": str(root / "two.txt"), "old_string": "x", "new_string": "y"}
    )
    assert r.text == (  # the seed's text, then where the occurrences are
        f"Failed to edit, expected 1 occurrences but found 2 for old_string in file: {root / 'two.txt'}"
        "\n\nThe occurrences are at:\n- line 1:\n    1: x\n    2: x\n    3: \n"
        "- line 2:\n    1: x\n    2: x\n    3: "
    )
    assert "The most similar text in the file is at line 1" in t.call(
        "replace", {"file_path": str(target), "old_string": "export function myFunctionX() {}", "new_string": "y"}
    ).text  # fmt: skip
    plain = Workspace(root).toolset("gemini", plain=True)  # the seed's text alone
    r = plain.call(
        "replace", {"file_path": str(root / "two.txt"), "old_string": "x", "new_string": "y"}
    )
    assert r.text.endswith(f"in file: {root / 'two.txt'}")  # fmt: skip
