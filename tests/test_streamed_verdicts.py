"""A streamed edit (a file above the streaming threshold) gives the verdict the same edit
gives in memory, with what the refusal shows (issue 29).

Above the threshold an `old` found more than once is refused, never the first match
replaced: through every toolset whose unique edit streams (default edit and multi_edit,
claude Edit and MultiEdit, gemini replace, text_editor str_replace, companion edit). The
refusal carries the same count and locations; claude's carries the seed's suggestions and
details (`countOccurrences` → `handleMultipleMatches`, `generateSuggestions`), computed on
the file read lazily instead of on an empty text.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from test_stream_parity import both_ways

from filewright.engine import streamrules

TEXT = "".join(f"line {i}: value = {i}\n" for i in range(40))
TWICE = TEXT.replace("line 7: value = 7", "dup = 1").replace("line 31: value = 31", "dup = 1")


def _call(toolset: str, root: Path, old: str, new: str) -> tuple[str, dict[str, Any]]:
    path = str(root / "f.txt")
    return {
        "default": ("edit", {"path": "f.txt", "old_string": old, "new_string": new}),
        "default-multi": (
            "multi_edit",
            {"path": "f.txt", "edits": [{"old_string": old, "new_string": new}]},
        ),
        "companion": ("edit", {"path": "f.txt", "oldText": old, "newText": new}),
        "text_editor": (
            "str_replace_based_edit_tool",
            {"command": "str_replace", "path": path, "old_str": old, "new_str": new},
        ),
        "gemini": ("replace", {"file_path": path, "old_string": old, "new_string": new}),
        "claude": ("Edit", {"file_path": path, "old_string": old, "new_string": new}),
        "claude-multi": (
            "MultiEdit",
            {"file_path": path, "edits": [{"old_string": old, "new_string": new}]},
        ),
    }[toolset]


STREAMING = [
    "default",
    "default-multi",
    "companion",
    "text_editor",
    "gemini",
    "claude",
    "claude-multi",
]


def _both(tmp_path: Path, toolset: str, text: str, old: str, new: str) -> list[Any]:
    tool, args = _call(toolset, tmp_path, old, new)
    name = toolset.removesuffix("-multi")
    return both_ways(tmp_path, tmp_path / "f.txt", text, name, tool, args, confirm=True)


@pytest.mark.parametrize("toolset", STREAMING)
def test_two_matches_are_refused_streamed_as_in_memory(tmp_path: Path, toolset: str) -> None:
    (mem, mem_text), (big, big_text) = _both(tmp_path, toolset, TWICE, "dup = 1", "dup = 2")
    assert not mem.ok and not big.ok, big.text
    assert mem_text == big_text == TWICE  # nothing written
    assert mem.data.get("error") == big.data.get("error")
    assert mem.data.get("code") == big.data.get("code")
    for key in ("count", "occurrences", "locations", "matches", "details", "suggestions"):
        assert mem.data.get(key) == big.data.get(key), key


@pytest.mark.parametrize("toolset", STREAMING)
def test_one_match_is_replaced_streamed_as_in_memory(tmp_path: Path, toolset: str) -> None:
    (mem, mem_text), (big, big_text) = _both(tmp_path, toolset, TWICE, "line 9: value", "L9")
    assert mem.ok and big.ok, big.text
    assert mem_text == big_text == TWICE.replace("line 9: value", "L9")


def test_claude_above_its_edit_limit_refuses_multiple_matches_with_the_seeds_details(
    tmp_path: Path,
) -> None:
    (mem, _), (big, _) = _both(tmp_path, "claude", TWICE, "dup = 1", "dup = 2")
    assert big.data["code"] == "MULTIPLE_MATCHES"
    assert big.data["details"]["occurrences"] == 2
    assert [x["line"] for x in big.data["details"]["locations"]] == [8, 32]
    assert big.data["details"]["locations"][0]["context"] == "".join(
        TWICE.splitlines(keepends=True)[5:10]
    ).rstrip("\n")
    assert big.text.startswith(mem.text.split("\n")[0])


def test_claude_streamed_not_found_has_the_seeds_suggestions(tmp_path: Path) -> None:
    old = "LINE 12: value = 12"  # the case differs
    (mem, _), (big, _) = _both(tmp_path, "claude", TEXT, old, "x")
    assert big.data["code"] == "STRING_NOT_FOUND"
    assert big.data["suggestions"] == mem.data["suggestions"] != []
    assert big.data["details"] == mem.data["details"]


def test_streamed_locations_list_at_most_the_shown_number_with_the_whole_count(
    tmp_path: Path,
) -> None:
    text = "".join("x = 1\n" if i % 3 == 0 else f"y{i}\n" for i in range(3 * 30))
    (mem, _), (big, _) = _both(tmp_path, "default", text, "x = 1", "x = 2")
    assert big.data["count"] == mem.data["count"] == 30
    assert big.data["locations"] == mem.data["locations"][: streamrules.LOCATIONS_SHOWN]


def test_two_matches_on_one_line_have_their_columns(tmp_path: Path) -> None:
    text = "a = f(dup) + g(dup)\n" + "".join(f"line {i}\n" for i in range(20))
    (mem, _), (big, _) = _both(tmp_path, "default", text, "dup", "one")
    assert big.data["locations"] == mem.data["locations"]


@pytest.mark.parametrize("count", [None, 1, 2])
def test_worker_replace_in_file_streamed_as_in_memory(tmp_path: Path, count: int | None) -> None:
    # the worker's seed replaces every match (or the first `count`): no uniqueness to keep,
    # the same matches replaced both ways
    text = TWICE + "dup = 1\n"
    args: dict[str, Any] = {"path": "f.txt", "old": "dup = 1", "new": "dup = 2"}
    if count:
        args["count"] = count
    answers = [
        (r.ok, after)
        for r, after in both_ways(
            tmp_path, tmp_path / "f.txt", text, "worker", "replace_in_file", args, confirm=True
        )
    ]
    assert answers[0] == answers[1]
    assert answers[0][1].count("dup = 2") == (count or 3)
