"""An `old` that also fits overlapping its one non-overlapping occurrence is two places
(issue 29: refuse and show both, never pick one): ``"gamma = 1\\ngamma = 1\\n"`` in three
``gamma = 1`` lines fits at line 1 and at line 2. Found by
tests/test_edit_differential.py, where the in-memory edit, the streamed edit and claude's
Edit applied it at line 1 (they counted ``str.count``'s one occurrence) and apply_patch
refused it.

Every toolset's single edit refuses it with both places, in memory and streamed alike; a
counted edit (gemini's ``expected_replacements``) counts overlapping places and refuses
places that overlap; a replace-all replaces the leftmost non-overlapping ones, as
``str.replace`` (docs/editing.md, "Overlapping places").
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from test_stream_parity import both_ways
from test_streamed_verdicts import STREAMING, _call

from filewright import Workspace
from filewright.edit.edits import Edited, EditFailure, replace
from filewright.edit.matching import find
from filewright.fs.chunked import LiteralReplace, StreamError
from filewright.fs.chunklines import count_matches

TEXT = "gamma = 1\n" * 3 + "alpha\n" * 9
OLD = "gamma = 1\ngamma = 1\n"
NEW = "gAmma = 1\ngAmma = 1\n"


def test_find_reports_the_overlapping_place() -> None:
    out = find(TEXT, OLD)
    assert [r.start_line for r in out.regions] == [1]
    assert [r.start_line for r in out.overlapped] == [2]
    assert [r.start_line for r in out.places] == [1, 2]
    assert out.ambiguous and not out.ok
    every = find(TEXT, OLD, max_matches=None)  # a replace-all: leftmost non-overlapping
    assert every.ok and every.count == 1
    assert find(TEXT, OLD, fuzzy=False).ambiguous  # the exact-only search counts them too


def test_the_edit_is_refused_with_both_places() -> None:
    done = replace(TEXT, OLD, NEW)
    assert isinstance(done, EditFailure) and done.code == "ambiguous"
    assert done.detail["count"] == 2 and done.detail["overlapping"] is True
    assert [x["line"] for x in done.detail["locations"]] == [1, 2]


def test_overlap_at_a_whitespace_level_is_refused_too() -> None:
    text = "x = 1 \n" * 3 + "y\n"  # trailing spaces: the trailing_whitespace level matches
    done = replace(text, "x = 1\nx = 1\n", "x = 2\nx = 2\n")
    assert isinstance(done, EditFailure) and done.code == "ambiguous"
    assert [x["line"] for x in done.detail["locations"]] == [1, 2]


def test_single_line_overlap_inside_a_line() -> None:
    done = replace("say ab ab ab\n", "ab ab", "cd cd")
    assert isinstance(done, EditFailure) and done.code == "ambiguous"
    assert [x["column"] for x in done.detail["locations"]] == [5, 8]


def test_an_expected_count_counts_every_place() -> None:
    text = "x = 1\n" * 4 + "end\n"  # two lines of it fit at lines 1, 2 and 3
    old, new = "x = 1\nx = 1\n", "x = 2\nx = 2\n"
    two = replace(text, old, new, expected=2)  # str.count's 2 is not what the file holds
    assert isinstance(two, EditFailure) and two.code == "count_mismatch"
    assert two.detail["found"] == 3 and two.detail["overlapping"] is True
    three = replace(text, old, new, expected=3)  # right count, but they cannot all change
    assert isinstance(three, EditFailure) and three.code == "ambiguous"
    every = replace(text, old, new, replace_all=True)  # leftmost non-overlapping
    assert isinstance(every, Edited) and every.text == text.replace(old, new)
    apart = "x = 1\nx = 1\nend\nx = 1\nx = 1\n"  # two places that do not overlap
    done = replace(apart, old, new, expected=2)
    assert isinstance(done, Edited) and done.text == apart.replace(old, new)


def _every_toolset(root: Path) -> list[tuple[str, Any, str, dict[str, Any], Path]]:
    f = root / "f.txt"
    mem = root / "memories" / "f.md"
    path = str(f)
    return [
        ("default", None, "edit", {"path": "f.txt", "old_string": OLD, "new_string": NEW}, f),
        (
            "default",
            None,
            "multi_edit",
            {"path": "f.txt", "edits": [{"old_string": OLD, "new_string": NEW}]},
            f,
        ),
        ("claude", "Read", "Edit", {"file_path": path, "old_string": OLD, "new_string": NEW}, f),
        (
            "claude",
            "Read",
            "MultiEdit",
            {"file_path": path, "edits": [{"old_string": OLD, "new_string": NEW}]},
            f,
        ),
        ("gemini", None, "replace", {"file_path": path, "old_string": OLD, "new_string": NEW}, f),
        (
            "gemini",
            None,
            "replace",
            {"file_path": path, "old_string": OLD, "new_string": NEW, "expected_replacements": 1},
            f,
        ),
        ("companion", None, "edit", {"path": "f.txt", "oldText": OLD, "newText": NEW}, f),
        ("memo", None, "memo_replace_literal", {"old_text": OLD, "new_text": NEW}, f),
        (
            "text_editor",
            None,
            "str_replace_based_edit_tool",
            {"command": "str_replace", "path": path, "old_str": OLD, "new_str": NEW},
            f,
        ),
        (
            "mcpfs",
            None,
            "edit_file",
            {"path": path, "edits": [{"oldText": OLD, "newText": NEW}]},
            f,
        ),
        (
            "memory",
            None,
            "memory",
            {"command": "str_replace", "path": "/memories/f.md", "old_str": OLD, "new_str": NEW},
            mem,
        ),
    ]


@pytest.mark.parametrize("case", range(11))
def test_every_toolset_refuses_the_overlapping_edit(tmp_path: Path, case: int) -> None:
    name, first, tool, args, file = _every_toolset(tmp_path)[case]
    file.parent.mkdir(exist_ok=True)
    file.write_text(TEXT)
    options = {"document": "f.txt"} if name == "memo" else {}
    tools = Workspace(str(tmp_path)).toolset(name, **options)
    if first:
        assert tools.call(first, {"file_path": str(file)}).ok
    result = tools.call(tool, args)
    assert not result.ok, (name, tool, result.text)
    assert file.read_text() == TEXT  # nothing written
    shown = result.text + str(result.data)
    assert "2" in shown  # two places (each toolset says it in its seed's words)


@pytest.mark.parametrize("toolset", STREAMING)
def test_streamed_gives_the_in_memory_verdict(tmp_path: Path, toolset: str) -> None:
    tool, args = _call(toolset, tmp_path, OLD, NEW)
    name = toolset.removesuffix("-multi")
    (mem, mem_text), (big, big_text) = both_ways(
        tmp_path, tmp_path / "f.txt", TEXT, name, tool, args, confirm=True
    )
    assert not mem.ok and not big.ok, big.text
    assert mem_text == big_text == TEXT  # nothing written
    assert mem.data.get("error") == big.data.get("error")
    for key in ("count", "occurrences", "locations", "matches", "found", "overlapping"):
        assert mem.data.get(key) == big.data.get(key), key


@pytest.mark.parametrize("expected", [2, 3])
def test_streamed_expected_count_gives_the_in_memory_verdict(tmp_path: Path, expected: int) -> None:
    text = "x = 1\n" * 4 + "end\n" * 20
    old, new = "x = 1\nx = 1\n", "x = 2\nx = 2\n"
    args = {
        "file_path": str(tmp_path / "f.txt"),
        "old_string": old,
        "new_string": new,
        "expected_replacements": expected,
    }
    (mem, mem_text), (big, big_text) = both_ways(
        tmp_path, tmp_path / "f.txt", text, "gemini", "replace", args, confirm=True
    )
    assert not mem.ok and not big.ok, big.text
    assert mem_text == big_text == text
    assert mem.data.get("error") == big.data.get("error")
    assert mem.text == big.text  # the count and every place with its lines, as in memory


def test_streamed_replace_all_is_leftmost_non_overlapping(tmp_path: Path) -> None:
    text = "x = 1\n" * 5 + "end\n" * 20
    old, new = "x = 1\nx = 1\n", "x = 2\nx = 2\n"
    args = {"path": "f.txt", "old_string": old, "new_string": new, "replace_all": True}
    (mem, mem_text), (big, big_text) = both_ways(
        tmp_path, tmp_path / "f.txt", text, "default", "edit", args, confirm=True
    )
    assert mem.ok and big.ok, big.text
    assert mem_text == big_text == text.replace(old, new)


def test_stream_counting_sees_overlaps_across_chunks() -> None:
    data = TEXT.encode()
    old = OLD.encode()
    for cut in range(1, len(data)):
        chunks = [data[:cut], data[cut:]]
        assert count_matches(chunks, old, overlapping=True) == 2
        assert count_matches(chunks, old) == 1
        stage = LiteralReplace(old, NEW.encode(), unique=True)
        with pytest.raises(StreamError) as caught:
            for chunk in chunks:
                list(stage.feed(chunk))
            list(stage.finish())
        assert caught.value.code == "ambiguous", cut


@pytest.mark.parametrize("toolset", STREAMING)
def test_streamed_refusal_shows_nearby_places_with_their_lines(
    tmp_path: Path, toolset: str
) -> None:
    """Two places a line apart: the second one's context starts before the first one ends,
    and the streamed refusal shows the lines before it as the in-memory one does."""
    text = "top\ndup = 1\nmid\ndup = 1\n" + "".join(f"filler {i}\n" for i in range(30))
    tool, args = _call(toolset, tmp_path, "dup = 1\n", "dup = 2\n")
    name = toolset.removesuffix("-multi")
    (mem, _), (big, _) = both_ways(
        tmp_path, tmp_path / "f.txt", text, name, tool, args, confirm=True
    )
    assert not mem.ok and not big.ok
    for key in ("count", "occurrences", "locations", "matches"):
        assert mem.data.get(key) == big.data.get(key), key
    assert mem.text == big.text
