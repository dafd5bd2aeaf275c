"""The V4A patch grammar: what parses, into what, and a clear message for what does not."""

from __future__ import annotations

import pytest

from filewright.edit.patch_parse import (
    AddFile,
    DeleteFile,
    PatchError,
    UpdateFile,
    parse_create_diff,
    parse_patch,
    parse_update_diff,
)


def patch(*body: str) -> str:
    return "\n".join(["*** Begin Patch", *body, "*** End Patch"]) + "\n"


def test_every_operation_kind() -> None:
    p = parse_patch(
        patch(
            "*** Add File: new.txt",
            "+one",
            "+",
            "+three",
            "*** Delete File: old.txt",
            "*** Update File: a.py",
            "*** Move to: b.py",
            "@@ class A",
            "@@     def f(self):",
            "         x = 1",
            "-        y = 2",
            "+        y = 3",
            "@@",
            " last",
            "+tail",
            "*** End of File",
        )
    )
    assert not isinstance(p, PatchError)
    add, delete, update = p.operations
    assert add == AddFile("new.txt", "one\n\nthree\n", 2)
    assert delete == DeleteFile("old.txt", 6)
    assert isinstance(update, UpdateFile) and update.move_to == "b.py"
    first, second = update.hunks
    assert first.scopes == ("class A", "def f(self):")
    assert first.old_lines == ["        x = 1", "        y = 2"]
    assert first.new_lines == ["        x = 1", "        y = 3"]
    assert first.patch_line == 9 and not first.end_of_file
    assert second.end_of_file and second.new_lines == ["last", "tail"]


def test_first_hunk_needs_no_header_and_empty_line_is_empty_context() -> None:
    p = parse_patch(patch("*** Update File: a", " a", "", "-b", "+c"))
    assert not isinstance(p, PatchError)
    (hunk,) = p.operations[0].hunks  # type: ignore[union-attr]
    assert hunk.lines == ((" ", "a"), (" ", ""), ("-", "b"), ("+", "c"))


def test_empty_hunks_and_trailing_blank_lines_are_dropped() -> None:
    p = parse_patch(patch("*** Update File: a", "@@", "@@", "-x", "+y", "", "", "@@"))
    assert not isinstance(p, PatchError)
    (hunk,) = p.operations[0].hunks  # type: ignore[union-attr]
    assert hunk.lines == (("-", "x"), ("+", "y"))


def test_context_less_addition_and_empty_added_file() -> None:
    p = parse_patch(patch("*** Update File: a", "@@", "+added", "*** Add File: empty.txt"))
    assert not isinstance(p, PatchError)
    update, add = p.operations
    assert update.hunks[0].old_lines == []  # type: ignore[union-attr]
    assert add == AddFile("empty.txt", "", 5)


def test_lenient_forms_models_write() -> None:
    crlf = patch("*** Update File: a", "-x", "+y").replace("\n", "\r\n")
    wrapped = "apply_patch <<'EOF'\n" + patch("  *** Update File: a  ", "-x", "+y") + "EOF\n"
    unified = patch("*** Update File: a", "@@ -1,2 +1,2 @@ def f():", "-x", "+y")
    for text in (crlf, wrapped, unified):
        p = parse_patch(text)
        assert not isinstance(p, PatchError), text
        assert p.operations[0].path == "a"
    assert parse_patch(unified).operations[0].hunks[0].scopes == ("def f():",)  # type: ignore[union-attr]


def test_pure_rename_is_an_update_without_hunks() -> None:
    p = parse_patch(patch("*** Update File: a", "*** Move to: b"))
    assert not isinstance(p, PatchError)
    assert p.operations[0] == UpdateFile("a", (), "b", 2)


@pytest.mark.parametrize(
    ("text", "line", "words"),
    [
        ("", 0, "empty"),
        ("*** Update File: a\n-x\n+y\n*** End Patch", 1, "Begin Patch"),
        ("*** Begin Patch\n*** Update File: a\n-x\n+y\n", 0, "cut short"),
        (patch(), 0, "no file operations"),
        (patch("*** Update File: a", "-x", "+y", "oops"), 5, "must start with ' '"),
        (patch("*** Update File: a", " x"), 2, "no hunk that changes"),
        (patch("*** Update File: a"), 2, "no hunk that changes"),
        (patch("*** Add File: n", "no plus"), 3, "must start with '+'"),
        (patch("*** Add File: "), 2, "needs a path"),
        (patch("*** Frobnicate File: a"), 2, "expected '*** Add File: path'"),
        (patch("*** Update File: a", "-x", "*** End of File", "+y"), 5, "must end its hunk"),
        (patch("*** Update File: a", "*** End of File"), 3, "follows no hunk line"),
        (patch("*** Update File: a", "-x", "*** Bogus"), 4, "unknown marker"),
        (patch("hello"), 2, "expected"),
    ],
)
def test_invalid_patches_say_where_and_why(text: str, line: int, words: str) -> None:
    err = parse_patch(text)
    assert isinstance(err, PatchError), text
    assert err.line == line, err
    assert words in err.message, err.message


def test_responses_diffs() -> None:
    hunks = parse_update_diff("@@ def f():\n x\n-y\n+z\n")
    assert not isinstance(hunks, PatchError)
    assert hunks[0].scopes == ("def f():",)
    assert parse_create_diff("+a\n+b\n") == "a\nb\n"
    assert parse_create_diff("") == ""
    bad = parse_create_diff("+a\nb\n")
    assert isinstance(bad, PatchError) and bad.line == 2
    nested = parse_update_diff("*** Begin Patch\n-x\n+y\n")
    assert isinstance(nested, PatchError) and "hunks only" in nested.message
    assert isinstance(parse_update_diff(" x\n"), PatchError)
