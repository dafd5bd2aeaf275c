"""The `gemini` toolset: every output text of the seed compared exactly, on a fixture tree."""

from __future__ import annotations

import base64
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from filewright import Workspace
from filewright.engine.workspace import ConfirmRequest
from filewright.tools.base import Toolset

NO_OCC = (
    "No edits made. The exact text in old_string was not found. Ensure you're not escaping "
    "content incorrectly and check whitespace, indentation, and context. Use read_file tool "
    "to verify."
)
PNG = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00"
PDF = b"%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n"


class Approver:
    """A confirm callback that records requests and answers `answer`."""

    def __init__(self, answer: bool = True) -> None:
        self.answer = answer
        self.requests: list[ConfirmRequest] = []

    def __call__(self, request: ConfirmRequest) -> bool:
        self.requests.append(request)
        return self.answer


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """A small project: sources, a gitignored build dir and log, nuisance directories."""
    root = tmp_path / "project"
    (root / "src" / "subdir").mkdir(parents=True)
    (root / "build").mkdir()
    (root / "node_modules" / "pkg").mkdir(parents=True)
    (root / "empty").mkdir()
    (root / ".gitignore").write_text("build/\n*.log\n")
    (root / "src" / "utils.ts").write_text(
        "// utils\n"
        + "\n" * 13
        + "export function myFunction() {\n"
        + "  return 1;\n}\n"
        + "\n" * 4
        + "  myFunction.call();\n"
    )
    (root / "src" / "index.ts").write_text(
        "const a = 1;\n\n\n\nimport { myFunction } from './utils';\n"
    )
    (root / "src" / "subdir" / "file2.ts").write_text("export const b = 2;\n")
    (root / "src" / "notes.md").write_text("myFunction is documented here\n")
    (root / "build" / "out.ts").write_text("myFunction()\n")
    (root / "debug.log").write_text("myFunction failed\n")
    (root / "node_modules" / "pkg" / "index.ts").write_text("myFunction\n")
    (root / "README.md").write_text("# project\n")
    mtimes = {"src/subdir/file2.ts": 3000, "src/utils.ts": 2000, "src/index.ts": 1000}
    for rel, t in mtimes.items():
        os.utime(root / rel, (t, t))
    return root


def gemini(
    root: Path, confirm: Any = True, options: dict[str, Any] | None = None, **kwargs: Any
) -> Toolset:
    return Workspace(root, confirm=confirm, **kwargs).toolset("gemini", **(options or {}))


# -- list_directory ---------------------------------------------------------------------


def test_list_directory_exact(tree: Path) -> None:
    t = gemini(tree)
    r = t.call("list_directory", {"path": str(tree)})
    assert r.ok
    assert r.text == (
        f"Directory listing for {tree}:\n[DIR] empty\n[DIR] node_modules\n[DIR] src\n"
        ".gitignore\nREADME.md"
    )  # the seed's listing has no "(N ignored)" line: the count is in data
    assert r.data["ignored_count"] == 2
    r = t.call("list_directory", {"path": "src"})
    assert (
        r.text
        == f"Directory listing for {tree / 'src'}:\n[DIR] subdir\nindex.ts\nnotes.md\nutils.ts"
    )


def test_list_directory_ignore_and_gitignore_switch(tree: Path) -> None:
    r = gemini(tree).call(
        "list_directory",
        {"path": ".", "ignore": ["*.md", ".git*", "node_*"], "respect_git_ignore": False},
    )
    assert (
        r.text == f"Directory listing for {tree}:\n[DIR] build\n[DIR] empty\n[DIR] src\ndebug.log"
    )


def test_list_directory_empty_missing_and_not_a_directory(tree: Path) -> None:
    t = gemini(tree)
    assert (
        t.call("list_directory", {"path": "empty"}).text == f"Directory {tree / 'empty'} is empty."
    )
    r = t.call("list_directory", {"path": "nope"})
    assert not r.ok and r.text == f"Error: Directory not found or inaccessible: {tree / 'nope'}"
    r = t.call("list_directory", {"path": "README.md"})
    assert not r.ok and r.text == f"Error: Path is not a directory: {tree / 'README.md'}"


# -- glob -------------------------------------------------------------------------------


def test_glob_newest_first_absolute_paths(tree: Path) -> None:
    r = gemini(tree).call("glob", {"pattern": "src/**/*.ts"})
    assert r.ok
    assert r.text == (
        f'Found 3 file(s) matching "src/**/*.ts" within {tree}, sorted by modification time '
        f"(newest first):\n{tree / 'src/subdir/file2.ts'}\n{tree / 'src/utils.ts'}\n{tree / 'src/index.ts'}"
    )
    assert r.data["files"][0] == str(tree / "src/subdir/file2.ts")


def test_glob_counts_gitignored_and_skips_node_modules(tree: Path) -> None:
    r = gemini(tree).call("glob", {"pattern": "**/*.ts", "path": str(tree)})
    assert r.text.startswith(  # the seed's header has no ignored count: it is in data
        f'Found 3 file(s) matching "**/*.ts" within {tree}, '
        "sorted by modification time (newest first):\n"
    )
    assert r.data["ignored_count"] == 1
    r = gemini(tree).call("glob", {"pattern": "**/*.ts", "respect_git_ignore": False})
    assert r.text.startswith(f'Found 4 file(s) matching "**/*.ts" within {tree}, sorted')
    assert str(tree / "build/out.ts") in r.text and "node_modules" not in r.text


def test_glob_case_sensitivity_and_no_match(tree: Path) -> None:
    t = gemini(tree)
    r = t.call("glob", {"pattern": "*.TS", "path": "src"})
    assert r.text == (
        f'Found 2 file(s) matching "*.TS" within {tree / "src"}, sorted by modification time '
        f"(newest first):\n{tree / 'src/utils.ts'}\n{tree / 'src/index.ts'}"
    )
    r = t.call("glob", {"pattern": "*.TS", "path": "src", "case_sensitive": True})
    assert r.ok and r.text == f'No files found matching pattern "*.TS" within {tree / "src"}'


# -- search_file_content ----------------------------------------------------------------


def test_search_file_content_seed_format(tree: Path) -> None:
    r = gemini(tree).call(
        "search_file_content", {"pattern": "myFunction", "path": ".", "include": "*.ts"}
    )
    assert r.ok
    assert r.text == (
        'Found 3 matches for pattern "myFunction" in path "." (filter: "*.ts"):\n'
        "---\n"
        "File: src/index.ts\n"
        "L5: import { myFunction } from './utils';\n"
        "---\n"
        "File: src/utils.ts\n"
        "L15: export function myFunction() {\n"
        "L22:   myFunction.call();\n"
        "---"
    )
    assert r.data["total_matches"] == 3


def test_search_file_content_is_case_insensitive_as_gemini_cli(tree: Path) -> None:
    # Gemini CLI's grep runs git grep --ignore-case / grep -i / a regex with "i"; the seed
    # gives this tool no case parameter
    r = gemini(tree).call(
        "search_file_content", {"pattern": "MYFUNCTION", "path": ".", "include": "*.ts"}
    )
    assert r.ok and r.text.startswith('Found 3 matches for pattern "MYFUNCTION"')
    assert "L15: export function myFunction() {" in r.text


def test_search_file_content_paths_relative_to_searched_dir(tree: Path) -> None:
    r = gemini(tree).call(
        "search_file_content", {"pattern": r"function\s+myFunction", "path": str(tree / "src")}
    )
    assert r.text == (
        f'Found 1 match for pattern "function\\s+myFunction" in path "{tree / "src"}":\n'
        "---\nFile: utils.ts\nL15: export function myFunction() {\n---"
    )


def test_search_file_content_default_path_no_match_and_bad_regex(tree: Path) -> None:
    t = gemini(tree)
    r = t.call("search_file_content", {"pattern": "myFunction"})
    assert r.ok and 'in path ".":' in r.text
    assert "File: src/notes.md" in r.text and "debug.log" not in r.text and "build/" not in r.text
    r = t.call("search_file_content", {"pattern": "nothing_here", "include": "*.md"})
    assert (
        r.ok
        and r.text == 'No matches found for pattern "nothing_here" in path "." (filter: "*.md").'
    )
    r = t.call("search_file_content", {"pattern": "(unclosed"})
    assert not r.ok and r.text.startswith("Error during grep search operation: ")


# -- read_file ----------------------------------------------------------------------------


def test_read_file_text_whole_and_range(tree: Path) -> None:
    t = gemini(tree)
    r = t.call("read_file", {"path": str(tree / "src/index.ts")})
    assert r.ok and r.text == "const a = 1;\n\n\n\nimport { myFunction } from './utils';"
    r = t.call("read_file", {"path": "src/index.ts", "offset": 0, "limit": 2})
    assert r.text == (
        "[File content truncated: showing lines 1-2 of 5 total lines. "
        "Use offset/limit parameters to view more.]\nconst a = 1;\n"
    )
    assert r.data["next_offset"] == 2
    r = t.call("read_file", {"path": "src/index.ts", "offset": 2, "limit": 2})
    assert r.text.startswith("[File content truncated: showing lines 3-4 of 5 total lines.")
    r = t.call("read_file", {"path": "src/index.ts", "offset": 4, "limit": 10})
    assert r.text == "import { myFunction } from './utils';"
    assert (
        r.data["start_line"] == 5 and r.data["total_lines"] == 5 and r.data["next_offset"] is None
    )


def test_read_file_default_limit_and_long_lines(tree: Path) -> None:
    (tree / "big.txt").write_text("".join(f"line {i}\n" for i in range(2500)))
    r = gemini(tree).call("read_file", {"path": "big.txt"})
    first, rest = r.text.split("\n", 1)
    assert first == (
        "[File content truncated: showing lines 1-2000 of 2500 total lines. "
        "Use offset/limit parameters to view more.]"
    )
    assert rest.splitlines()[-1] == "line 1999"
    assert r.data["next_offset"] == 2000
    (tree / "wide.txt").write_text("x" * 2500 + "\nshort\n")
    r = gemini(tree).call("read_file", {"path": "wide.txt"})
    assert r.text == (
        "[File content partially truncated: some lines exceeded maximum length of 2000 "
        "characters.]\n" + "x" * 2000 + " ... [truncated]\nshort"
    )


def test_read_file_images_and_pdf_as_inline_data(tree: Path) -> None:
    (tree / "pic.png").write_bytes(PNG)
    (tree / "doc.pdf").write_bytes(PDF)
    t = gemini(tree)
    r = t.call("read_file", {"path": "pic.png"})
    assert r.ok and r.data["inlineData"] == {
        "mimeType": "image/png",
        "data": base64.b64encode(PNG).decode(),
    }
    assert r.images == [
        {"mime_type": "image/png", "data": base64.b64encode(PNG).decode(), "width": 1, "height": 1}
    ]
    assert r.text == f"[Image file: pic.png (image/png, 1x1 pixels, {len(PNG)} B)]"
    r = t.call("read_file", {"path": "doc.pdf"})
    assert r.ok and r.data["inlineData"] == {
        "mimeType": "application/pdf",
        "data": base64.b64encode(PDF).decode(),
    }
    assert r.text == f"[PDF file: doc.pdf ({len(PDF)} B), sent as inline data]"


def test_read_file_binary_skipped_svg_as_text(tree: Path) -> None:
    (tree / "data.bin").write_bytes(b"\x00\x01\x02\x03binary")
    (tree / "icon.svg").write_text('<svg xmlns="http://www.w3.org/2000/svg"/>\n')
    t = gemini(tree)
    r = t.call("read_file", {"path": "data.bin"})
    assert r.ok and r.text == f"Cannot display content of binary file: {tree / 'data.bin'}"
    svg = t.call("read_file", {"path": "icon.svg"})  # SVG is text: no model API takes it
    assert (svg.ok, svg.text) == (True, '<svg xmlns="http://www.w3.org/2000/svg"/>')
    assert "inlineData" not in svg.data and svg.images == []


def test_read_file_failures(tree: Path, tmp_path: Path) -> None:
    t = gemini(tree)
    assert t.call("read_file", {"path": "nope.txt"}).text == f"File not found: {tree / 'nope.txt'}"
    assert (
        t.call("read_file", {"path": "src"}).text
        == f"Path is a directory, not a file: {tree / 'src'}"
    )
    r = t.call("read_file", {"path": "src/index.ts", "offset": 9, "limit": 1})
    assert (
        not r.ok and r.text == f"Line offset 9 is out of range: {tree / 'src/index.ts'} has 5 lines"
    )
    (tmp_path / "secret.txt").write_text("s")
    for outside in (str(tmp_path / "secret.txt"), "../secret.txt"):
        r = t.call("read_file", {"path": outside})
        assert (
            not r.ok
            and r.text == f"File path must be within one of the workspace directories: {tree}"
        )


# -- write_file ---------------------------------------------------------------------------


def test_write_file_creates_with_parents_then_overwrites(tree: Path) -> None:
    approve = Approver()
    t = gemini(tree, confirm=approve)
    target = tree / "new" / "deep" / "file.txt"
    r = t.call("write_file", {"file_path": str(target), "content": "one\n"})
    assert r.ok and r.text == f"Successfully created and wrote to new file: {target}"
    assert target.read_text() == "one\n"
    # a relative path resolves against the root (the seed's note under its title)
    r = t.call("write_file", {"file_path": "new/deep/file.txt", "content": "two\n"})
    assert r.ok and r.text == f"Successfully overwrote file: {target}"
    assert target.read_text() == "two\n"
    assert [q.created for q in approve.requests] == [True, False]
    assert "-one\n+two\n" in approve.requests[1].diff and approve.requests[1].path == str(target)


def test_write_file_rejected_and_nobody_to_ask(tree: Path, snapshot: Callable[..., Any]) -> None:
    before = snapshot(tree, skip=(tree / ".filewright",))
    reject = Approver(False)
    r = gemini(tree, confirm=reject).call(
        "write_file", {"file_path": str(tree / "README.md"), "content": "x"}
    )
    assert not r.ok and r.text == "[Operation Cancelled] Reason: User did not allow tool call"
    assert len(reject.requests) == 1 and "+x" in reject.requests[0].diff
    r = gemini(tree, confirm=None).call(
        "write_file", {"file_path": str(tree / "README.md"), "content": "x"}
    )
    assert not r.ok and r.text == (
        'Tool execution for "WriteFile" requires user confirmation, which is not supported '
        "in non-interactive mode."
    )
    assert snapshot(tree, skip=(tree / ".filewright",)) == before


def test_dry_run_writes_nothing(tree: Path, snapshot: Callable[..., Any]) -> None:
    before = snapshot(tree, skip=(tree / ".filewright",))
    t = gemini(tree, confirm=Approver(), dry_run=True)
    r = t.call("write_file", {"file_path": str(tree / "README.md"), "content": "new\n"})
    assert r.ok and r.text.startswith(
        f"[Dry run: nothing written] Would have overwrote file: {tree / 'README.md'}"
    )
    r = t.call(
        "replace",
        {"file_path": str(tree / "README.md"), "old_string": "# project", "new_string": "# p"},
    )
    assert r.ok and r.text.startswith(
        f"[Dry run: nothing written] Would modify file: {tree / 'README.md'} (1 replacements).\n"
    )
    assert r.text.endswith("-# project\n+# p")
    r = t.call(
        "replace", {"file_path": str(tree / "x/new.txt"), "old_string": "", "new_string": "n"}
    )
    assert r.ok and r.data["dry_run"] is True
    assert snapshot(tree, skip=(tree / ".filewright",)) == before


# -- replace ------------------------------------------------------------------------------


def test_replace_success_and_counts(tree: Path) -> None:
    (tree / "a.txt").write_text("x = 1\ny = 2\nx = 1\n")
    t = gemini(tree)
    r = t.call(
        "replace", {"file_path": str(tree / "a.txt"), "old_string": "x = 1", "new_string": "x = 3"}
    )
    assert not r.ok and r.text.startswith(
        f"Failed to edit, expected 1 occurrences but found 2 for old_string in file: {tree / 'a.txt'}"
        "\n\nThe occurrences are at:\n- line 1:\n"
    )
    assert "- line 3:\n    1: x = 1\n    2: y = 2\n    3: x = 1\n" in r.text
    r = t.call(
        "replace",
        {
            "file_path": str(tree / "a.txt"),
            "old_string": "x = 1",
            "new_string": "x = 3",
            "expected_replacements": 3,
        },
    )
    assert r.text.startswith(
        f"Failed to edit, expected 3 occurrences but found 2 for old_string in file: {tree / 'a.txt'}"
        "\n\nThe occurrences are at:"
    )
    r = t.call(
        "replace",
        {
            "file_path": str(tree / "a.txt"),
            "old_string": "x = 1",
            "new_string": "x = 3",
            "expected_replacements": 2,
        },
    )
    assert r.ok and r.text == f"Successfully modified file: {tree / 'a.txt'} (2 replacements)."
    r = t.call(
        "replace", {"file_path": str(tree / "a.txt"), "old_string": "y = 2", "new_string": "y = 4"}
    )
    assert r.ok and r.text == f"Successfully modified file: {tree / 'a.txt'} (1 replacements)."
    assert (tree / "a.txt").read_text() == "x = 3\ny = 4\nx = 3\n"


def test_replace_zero_occurrences(tree: Path) -> None:
    (tree / "a.txt").write_text("alpha\n")
    r = gemini(tree).call(
        "replace", {"file_path": str(tree / "a.txt"), "old_string": "zz 99 qq", "new_string": "b"}
    )
    assert not r.ok
    assert (
        r.text
        == f"Failed to edit, 0 occurrences found for old_string in {tree / 'a.txt'}. {NO_OCC}"
    )
    (tree / "b.txt").write_text("def total(items):\n    return sum(items)\n")
    r = gemini(tree).call(
        "replace",
        {"file_path": str(tree / "b.txt"), "old_string": "return summ(items)", "new_string": "x"},
    )
    assert r.text == (  # the seed's text, then where the most similar text is
        f"Failed to edit, 0 occurrences found for old_string in {tree / 'b.txt'}. {NO_OCC}\n\n"
        "The most similar text in the file is at line 2 (differs in: token: 'summ' vs 'sum'):\n"
        "L2:     return sum(items)"
    )
    assert r.text.endswith(r.data["closest_hint"])


def test_replace_create_and_its_failure_conditions(tree: Path, tmp_path: Path) -> None:
    t = gemini(tree)
    r = t.call(
        "replace",
        {"file_path": str(tree / "made/new.py"), "old_string": "", "new_string": "print(1)\n"},
    )
    assert r.ok and r.text == f"Created new file: {tree / 'made/new.py'} with provided content."
    assert (tree / "made/new.py").read_text() == "print(1)\n"
    r = t.call(
        "replace", {"file_path": str(tree / "made/new.py"), "old_string": "", "new_string": "y"}
    )
    assert not r.ok and r.text.startswith(
        f"File already exists, cannot create: {tree / 'made/new.py'}"
    )
    r = t.call(
        "replace", {"file_path": str(tree / "missing.py"), "old_string": "a", "new_string": "b"}
    )
    assert not r.ok and r.text == (
        f"File not found: {tree / 'missing.py'}. Cannot apply edit. "
        "Use an empty old_string to create a new file."
    )
    assert not (tree / "missing.py").exists()
    r = t.call(
        "replace", {"file_path": str(tmp_path / "escape.py"), "old_string": "", "new_string": "x"}
    )
    assert (
        not r.ok and r.text == f"File path must be within one of the workspace directories: {tree}"
    )
    assert not (tmp_path / "escape.py").exists()


def test_replace_no_change(tree: Path) -> None:
    (tree / "a.txt").write_text("same\n")
    r = gemini(tree).call(
        "replace", {"file_path": str(tree / "a.txt"), "old_string": "same", "new_string": "same"}
    )
    assert not r.ok and r.text == (
        f"No changes to apply. The old_string and new_string are identical in file: {tree / 'a.txt'}"
    )


def test_replace_confirmation_approve_and_reject(tree: Path) -> None:
    (tree / "a.txt").write_text("one\ntwo\n")
    reject = Approver(False)
    r = gemini(tree, confirm=reject).call(
        "replace", {"file_path": str(tree / "a.txt"), "old_string": "two", "new_string": "2"}
    )
    assert not r.ok and r.text == "[Operation Cancelled] Reason: User did not allow tool call"
    assert (tree / "a.txt").read_text() == "one\ntwo\n"
    assert reject.requests[0].operation == "edit" and "-two\n+2\n" in reject.requests[0].diff
    approve = Approver(True)
    r = gemini(tree, confirm=approve).call(
        "replace", {"file_path": str(tree / "a.txt"), "old_string": "two", "new_string": "2"}
    )
    assert r.ok and (tree / "a.txt").read_text() == "one\n2\n"
    assert len(approve.requests) == 1 and "-two\n+2\n" in approve.requests[0].diff
    r = gemini(tree, confirm=None).call(
        "replace", {"file_path": str(tree / "a.txt"), "old_string": "2", "new_string": "3"}
    )
    assert not r.ok and r.text == (
        'Tool execution for "Edit" requires user confirmation, which is not supported in non-interactive mode.'
    )


def test_replace_uses_the_ladder(tree: Path) -> None:
    (tree / "a.py").write_text("def f():\n    if x:\n        return 1\n")
    r = gemini(tree).call(
        "replace",
        {
            "file_path": str(tree / "a.py"),
            "old_string": "if x:\n    return 1",
            "new_string": "if y:\n    return 2",
        },
    )
    assert r.ok and (tree / "a.py").read_text() == "def f():\n    if y:\n        return 2\n"
    assert r.data["strategy"] != "exact"


def test_corrector_is_called_only_after_the_ladder_fails(tree: Path) -> None:
    (tree / "a.py").write_text("value = compute(1)\nother = 2\n")
    calls: list[tuple[str, str, str, str]] = []

    def corrector(text: str, old: str, new: str, error: str) -> tuple[str, str] | None:
        calls.append((text, old, new, error))
        return ("value = compute(1)", "value = compute(2)")

    t = gemini(tree, options={"corrector": corrector})
    r = t.call(
        "replace",
        {"file_path": str(tree / "a.py"), "old_string": "other = 2", "new_string": "other = 3"},
    )
    assert r.ok and calls == []
    r = t.call(
        "replace",
        {
            "file_path": str(tree / "a.py"),
            "old_string": "valeu = compute(1)",
            "new_string": "value = compute(2)",
        },
    )
    assert r.ok and r.text == f"Successfully modified file: {tree / 'a.py'} (1 replacements)."
    assert (tree / "a.py").read_text() == "value = compute(2)\nother = 3\n"
    assert r.data["strategy"] == "corrector+exact"
    assert r.data["corrected"] == {
        "old_string": "value = compute(1)",
        "new_string": "value = compute(2)",
    }
    assert len(calls) == 1
    text, old, _new, error = calls[0]
    assert text == "value = compute(1)\nother = 3\n" and old == "valeu = compute(1)"
    assert error.startswith("Failed to edit, 0 occurrences found for old_string in ")


@pytest.mark.parametrize(
    "proposal", [None, ("not in the file", "x"), ("", "x"), "garbage", RuntimeError]
)
def test_corrector_proposals_are_matched_strictly(tree: Path, proposal: Any) -> None:
    (tree / "a.py").write_text("keep = 1\n")

    def corrector(*_args: str) -> Any:
        if proposal is RuntimeError:
            raise RuntimeError("model unavailable")
        return proposal

    r = gemini(tree, options={"corrector": corrector}).call(
        "replace", {"file_path": str(tree / "a.py"), "old_string": "missing", "new_string": "x"}
    )
    assert not r.ok and r.text.startswith("Failed to edit, 0 occurrences found")
    assert (tree / "a.py").read_text() == "keep = 1\n"


# -- the toolset itself -------------------------------------------------------------------


def test_tool_names_titles_and_parameters(tree: Path) -> None:
    t = gemini(tree)
    assert {tool.name: tool.title for tool in t.tools()} == {
        "list_directory": "ReadFolder",
        "read_file": "ReadFile",
        "write_file": "WriteFile",
        "glob": "FindFiles",
        "search_file_content": "SearchText",
        "replace": "Edit",
    }
    params = {d["function"]["name"]: d["function"]["parameters"] for d in t.definitions("openai")}
    assert set(params["list_directory"]["properties"]) == {"path", "ignore", "respect_git_ignore"}
    assert set(params["read_file"]["properties"]) == {"path", "offset", "limit"}
    assert set(params["write_file"]["properties"]) == {"file_path", "content"}
    assert set(params["glob"]["properties"]) == {
        "pattern",
        "path",
        "case_sensitive",
        "respect_git_ignore",
    }
    assert set(params["search_file_content"]["properties"]) == {"pattern", "path", "include"}
    assert set(params["replace"]["properties"]) == {
        "file_path",
        "old_string",
        "new_string",
        "expected_replacements",
    }
    assert sorted(params["replace"]["required"]) == ["file_path", "new_string", "old_string"]


def test_read_file_notebook_is_read_as_its_json_text(tree: Path) -> None:
    raw = '{\n "cells": [],\n "nbformat": 4\n}\n'
    (tree / "nb.ipynb").write_text(raw)
    r = gemini(tree).call("read_file", {"path": "nb.ipynb"})
    assert r.ok and r.text == raw.rstrip("\n")


def test_directories_outside_the_workspace_are_refused(tree: Path, tmp_path: Path) -> None:
    t = gemini(tree)
    expected = f"Path must be within one of the workspace directories: {tree}"
    for tool, args in [
        ("list_directory", {"path": str(tmp_path)}),
        ("list_directory", {"path": ".."}),
        ("glob", {"pattern": "*", "path": str(tmp_path)}),
        ("search_file_content", {"pattern": "x", "path": "../"}),
    ]:
        r = t.call(tool, args)
        assert not r.ok and r.text == expected and r.data["error"] == "outside", (tool, args)


def test_write_after_an_external_change_to_a_read_file_is_refused(tree: Path) -> None:
    t = gemini(tree)
    assert t.call("read_file", {"path": "README.md"}).ok
    (tree / "README.md").write_text("# changed elsewhere\n")
    r = t.call("write_file", {"file_path": str(tree / "README.md"), "content": "mine\n"})
    assert not r.ok and r.data["error"] == "stale"
    assert (tree / "README.md").read_text() == "# changed elsewhere\n"
    # replace matches against the current text, so it is not affected
    r = t.call(
        "replace",
        {
            "file_path": str(tree / "README.md"),
            "old_string": "changed elsewhere",
            "new_string": "ok",
        },
    )
    assert r.ok and (tree / "README.md").read_text() == "# ok\n"
