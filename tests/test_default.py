"""The `default` toolset's own tools: batch, span, insert, listing and searching, hints."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from filewright import Workspace
from filewright.tools.base import Toolset

SOURCE = "def compute(x):\n    total = x * 2\n    return total\n\n# BEGIN\nold body\n# END\n"


@pytest.fixture
def tools(tmp_path: Path) -> Toolset:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "calc.py").write_text(SOURCE)
    (tmp_path / ".gitignore").write_text("build/\n")
    (tmp_path / "build").mkdir()
    (tmp_path / "build" / "gen.py").write_text("def compute(): pass\n")
    (tmp_path / "notes.md").write_text("compute later\n")
    os.utime(tmp_path / "notes.md", (1_000_000_000, 1_000_000_000))
    return Workspace(tmp_path).toolset("default")


def test_multi_edit_applies_in_order(tools: Toolset, tmp_path: Path) -> None:
    result = tools.call(
        "multi_edit",
        {
            "path": "src/calc.py",
            "edits": [
                {"old_string": "x * 2", "new_string": "x * 3"},
                {"old_string": "x * 3", "new_string": "x * 4"},
                {"old_string": "def compute", "new_string": "def calc"},
            ],
        },
    )
    assert result.ok, result.text
    assert (tmp_path / "src" / "calc.py").read_text() == SOURCE.replace("x * 2", "x * 4").replace(
        "def compute", "def calc"
    )


def test_multi_edit_is_all_or_nothing(tools: Toolset, tmp_path: Path) -> None:
    before = (tmp_path / "src" / "calc.py").read_bytes()
    result = tools.call(
        "multi_edit",
        {
            "path": "src/calc.py",
            "edits": [
                {"old_string": "x * 2", "new_string": "x * 3"},
                {"old_string": "not in the file", "new_string": "y"},
            ],
        },
    )
    assert not result.ok
    assert result.text.startswith("Edit 2 of 2 failed; nothing was written.")
    assert (tmp_path / "src" / "calc.py").read_bytes() == before


def test_replace_span_keeps_markers(tools: Toolset, tmp_path: Path) -> None:
    result = tools.call(
        "replace_span",
        {"path": "src/calc.py", "start": "# BEGIN", "end": "# END", "new_text": "new body\n"},
    )
    assert result.ok, result.text
    assert (tmp_path / "src" / "calc.py").read_text() == SOURCE.replace("old body", "new body")


def test_replace_span_regex_start_and_missing_marker(tools: Toolset, tmp_path: Path) -> None:
    result = tools.call(
        "replace_span",
        {
            "path": "src/calc.py",
            "start": r"^# BEG\w+$",
            "end": "# END",
            "new_text": "x\n",
            "start_is_regex": True,
        },
    )
    assert result.ok, result.text
    missing = tools.call(
        "replace_span",
        {"path": "src/calc.py", "start": "# NOPE", "end": "# END", "new_text": "x\n"},
    )
    assert not missing.ok and missing.data["error"] == "marker_not_found"


def test_insert_after_line_and_at_top(tools: Toolset, tmp_path: Path) -> None:
    assert tools.call("insert", {"path": "src/calc.py", "line": 0, "text": "import math"}).ok
    assert tools.call("insert", {"path": "src/calc.py", "line": 8, "text": "# tail"}).ok
    lines = (tmp_path / "src" / "calc.py").read_text().splitlines()
    assert lines[0] == "import math" and lines[-1] == "# tail"
    out_of_range = tools.call("insert", {"path": "src/calc.py", "line": 99, "text": "x"})
    assert not out_of_range.ok and out_of_range.data["error"] == "line_out_of_range"


def test_list_glob_grep(tools: Toolset) -> None:
    listing = tools.call("list", {})
    assert listing.ok
    assert listing.text.splitlines()[:4] == [
        "Directory listing for .:",
        "[DIR] src",
        ".gitignore",
        "notes.md",
    ]
    found = tools.call("glob", {"pattern": "**/*.py"})
    assert found.ok and found.data["files"] == ["src/calc.py"]
    newest_first = tools.call("glob", {"pattern": "**/*"})
    assert newest_first.data["files"][-1] == "notes.md"
    hits = tools.call("grep", {"pattern": "compute", "include": "*.py"})
    assert hits.ok and [m["file"] for m in hits.data["matches"]] == ["src/calc.py"]
    literal = tools.call("grep", {"pattern": "x * 2", "fixed_strings": True})
    assert literal.data["matches"] == [
        {"file": "src/calc.py", "line": 2, "text": "    total = x * 2"}
    ]
    bad = tools.call("grep", {"pattern": "(unclosed"})
    assert not bad.ok and "unclosed" in bad.text


def test_failed_edit_teaches_where_the_real_text_is(tools: Toolset) -> None:
    result = tools.call(
        "edit",
        {
            "path": "src/calc.py",
            "old_string": "    total = x * 3\n    return total",
            "new_string": "y",
        },
    )
    assert not result.ok
    assert "Closest text, lines 2-3" in result.text
    assert "        total = x * 2" in result.text
    assert "token: '3' vs '2'" in result.text


def test_ambiguous_edit_lists_every_place(tmp_path: Path) -> None:
    (tmp_path / "d.txt").write_text("a = 1\nb = 2\na = 1\n")
    result = (
        Workspace(tmp_path)
        .toolset("default")
        .call("edit", {"path": "d.txt", "old_string": "a = 1", "new_string": "a = 3"})
    )
    assert not result.ok and result.data["error"] == "ambiguous"
    assert "Match at line 1:" in result.text and "Match at line 3:" in result.text


def test_recovered_edit_says_how(tools: Toolset, tmp_path: Path) -> None:
    result = tools.call(
        "edit",
        {
            "path": "src/calc.py",
            "old_string": "  total = x * 2\n  return total",
            "new_string": "  total = x * 5\n  return total",
        },
    )
    assert result.ok, result.text
    assert result.text.startswith(
        "Edited src/calc.py (1 replacement, matched after allowing for indentation)"
    )
    assert "    total = x * 5\n" in (tmp_path / "src" / "calc.py").read_text()
    assert result.data["strategy"] == "indentation"


def test_grep_reports_progress_to_a_listening_surface(tmp_path: Path) -> None:
    from filewright.surfaces.dispatch import progress_reporter

    for i in range(300):
        (tmp_path / f"f{i:03}.txt").write_text("needle\n" * 20)
    seen: list[float] = []
    with progress_reporter(lambda done, _total, _message: seen.append(done)):
        result = (
            Workspace(tmp_path)
            .toolset("default")
            .call("grep", {"pattern": "needle", "max_matches": 10000})
        )
    assert result.ok and result.data["total_matches"] == 6000
    assert seen and seen == sorted(seen)


def test_list_caps_a_huge_directory_with_a_notice(tmp_path: Path) -> None:
    big = tmp_path / "big"
    big.mkdir()
    for i in range(30):
        (big / f"f{i:02}.txt").write_text("x", encoding="utf-8")
    (big / "sub").mkdir()
    tools = Workspace(tmp_path).toolset("default")
    result = tools.call("list", {"path": "big", "max_entries": 10})
    assert result.ok
    lines = result.text.splitlines()
    assert lines[1] == "[DIR] sub" and lines[2] == "f00.txt" and lines[10] == "f08.txt"
    assert "[21 more entries not shown: 31 in all; raise max_entries" in result.text
    assert len(result.data["entries"]) == 10
    assert result.data["total"] == 31 and result.data["truncated"] is True
    whole = tools.call("list", {"path": "big"})
    assert len(whole.data["entries"]) == 31 and whole.data["truncated"] is False
    assert "not shown" not in whole.text
    assert not tools.call("list", {"path": "big", "max_entries": 0}).ok
