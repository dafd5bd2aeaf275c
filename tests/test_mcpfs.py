"""The `mcpfs` toolset, and the MCP filesystem server's own published tests for path
validation and edits (src/filesystem/__tests__/path-validation.test.ts and the
applyFileEdits / moveFile / searchFilesWithValidation cases of lib.test.ts), translated:
each case there checks a path string or a mocked file system; here the same case runs on
a real tree through mcpfs's tools. Deliberate differences are marked DIFFERENT and listed
in docs/mcpfs.md.
"""

from __future__ import annotations

import os
import stat
import unicodedata
from pathlib import Path
from typing import Any

import pytest

from filewright import Workspace
from filewright.core.result import Result

OUTSIDE = "Access denied - path outside allowed directories"


def call(ws: Workspace, tool: str, args: dict[str, Any]) -> Result:
    return ws.toolset("mcpfs").call(tool, args)


def allowed(ws: Workspace, path: str) -> bool:
    """What isPathWithinAllowedDirectories decides, asked through get_file_info: refused
    as outside (False), or answered or reported missing (True)."""
    result = call(ws, "get_file_info", {"path": path})
    if result.ok or result.text.startswith("ENOENT"):
        return True
    assert result.data.get("error") in ("outside", "invalid", "symlink_loop"), result.text
    return False


@pytest.fixture
def home(tmp_path: Path) -> Path:
    """/home/user with project and its look-alike siblings."""
    user = tmp_path / "home" / "user"
    for name in ("project", "project2", "project_backup", "project-old", "projectile",
                 "project.bak", "other", "safe"):  # fmt: skip
        (user / name).mkdir(parents=True)
    (user / "project" / "src").mkdir()
    (user / "project" / "src" / "index.js").write_text("x\n")
    return user


@pytest.fixture
def ws(home: Path) -> Workspace:
    return Workspace(str(home / "project"))


# -- path-validation.test.ts ------------------------------------------------------------------


def test_allows_exact_directory_match_and_subdirectories(ws: Workspace, home: Path) -> None:
    p = home / "project"
    assert allowed(ws, str(p))
    assert allowed(ws, f"{p}/src")
    assert allowed(ws, f"{p}/src/index.js")
    assert allowed(ws, f"{p}/deeply/nested/file.txt")


@pytest.mark.parametrize(
    "sibling", ["project2", "project_backup", "project-old", "projectile", "project.bak"]
)
def test_blocks_similar_directory_names(ws: Workspace, home: Path, sibling: str) -> None:
    assert not allowed(ws, str(home / sibling))
    assert not allowed(ws, f"{home / sibling}/")


def test_blocks_paths_outside_parents_and_root(ws: Workspace, home: Path) -> None:
    for path in (home / "other", home, home.parent, Path("/"), Path("/etc/passwd")):
        assert not allowed(ws, str(path)), path


def test_handles_multiple_allowed_directories(tmp_path: Path) -> None:
    one, two = tmp_path / "project1", tmp_path / "project2"
    for d in (one, two, tmp_path / "project3", tmp_path / "project1_backup"):
        d.mkdir()
    ws = Workspace([str(one), str(two)])
    assert allowed(ws, f"{one}/src") and allowed(ws, f"{two}/src")
    assert not allowed(ws, str(tmp_path / "project3"))
    assert not allowed(ws, str(tmp_path / "project1_backup"))


@pytest.mark.parametrize("name", ["my-project (v2)", "my project", "café", "project%20files"])
def test_special_characters_spaces_unicode_and_percent(tmp_path: Path, name: str) -> None:
    root = tmp_path / name
    root.mkdir()
    (tmp_path / f"{name}_backup").mkdir()
    ws = Workspace(str(root))
    assert allowed(ws, str(root)) and allowed(ws, f"{root}/src")
    assert not allowed(ws, f"{root}_backup")


def test_a_decomposed_unicode_spelling_of_the_root_is_not_the_root(tmp_path: Path) -> None:
    root = tmp_path / "café"
    root.mkdir()
    ws = Workspace(str(root))
    decomposed = str(tmp_path / unicodedata.normalize("NFD", "café"))
    assert not allowed(ws, f"{decomposed}/file")


def test_trailing_separators(ws: Workspace, home: Path) -> None:
    p = home / "project"
    assert allowed(ws, f"{p}/")
    assert Workspace(f"{p}/").roots == ws.roots
    assert not allowed(ws, f"{home}/project2/")


def test_relative_paths_resolve_inside_the_root(ws: Workspace) -> None:
    assert allowed(ws, "relative/path") and allowed(ws, "./file")
    assert not allowed(ws, "../parent")


@pytest.mark.parametrize(
    "tail",
    [
        "/../../../etc/passwd",
        "/../../other",
        "/../project2",
        "/src/../../project2",
        "/./../../other",
        "/../project/../../../etc",
        "/..",
    ],
)
def test_blocks_path_traversal(ws: Workspace, home: Path, tail: str) -> None:
    assert not allowed(ws, str(home / "project") + tail)


@pytest.mark.parametrize(
    "name", ["..test", "test..", "te..st", ".", "...", "....", "report_50%.pdf", "%2e%2e"]
)
def test_dots_and_percent_signs_in_names_are_names(ws: Workspace, home: Path, name: str) -> None:
    assert allowed(ws, f"{home / 'project'}/{name}")


@pytest.mark.parametrize("path", ["{p}\x00/etc/passwd", "{p}/test\x00.txt", "\x00{p}", "{p}/\x00"])
def test_rejects_paths_with_null_bytes(ws: Workspace, home: Path, path: str) -> None:
    assert not allowed(ws, path.format(p=home / "project"))


def test_normalises_before_comparing(ws: Workspace, home: Path) -> None:
    p = home / "project"
    for path in (f"{p}//", f"{p}///", f"{p}/./src", f"{home}/./project/src",
                 f"{p}//src//file", f"{home}//project//src"):  # fmt: skip
        assert allowed(ws, path), path
    assert not allowed(ws, f"{home}//project2")


def test_allowed_directory_given_with_traversal(home: Path) -> None:
    ws = Workspace(f"{home}/../user/project")
    assert allowed(ws, f"{home}/project/file")
    assert not allowed(ws, f"{home}/other")


def test_very_long_paths(ws: Workspace, home: Path) -> None:
    p = home / "project"
    assert allowed(ws, f"{p}/" + "a/" * 1000 + "file.txt")
    assert not allowed(ws, f"{p}/" + "a/" * 1000 + "../" * 1001 + "etc/passwd")


def test_nested_allowed_directories(home: Path) -> None:
    ws = Workspace([str(home.parent), str(home), str(home / "project")])
    for path in ("anything", "user/anything", "user/project/anything", "other/deep/path"):
        assert allowed(ws, f"{home.parent}/{path}")


def test_symlink_to_a_file_outside_is_refused(home: Path) -> None:
    (home / "other" / "target.txt").write_text("TARGET_CONTENT")
    link = home / "project" / "link-to-target.txt"
    link.symlink_to(home / "other" / "target.txt")
    ws = Workspace(str(home / "project"))
    for tool in ("read_text_file", "read_file", "get_file_info", "read_media_file"):
        result = call(ws, tool, {"path": str(link)})
        assert not result.ok and "TARGET_CONTENT" not in result.text, tool
    result = call(ws, "write_file", {"path": str(link), "content": "x"})
    assert not result.ok
    assert (home / "other" / "target.txt").read_text() == "TARGET_CONTENT"
    many = call(ws, "read_multiple_files", {"paths": [str(link)]})
    assert "TARGET_CONTENT" not in many.text


def test_symlink_chains_and_directory_links_out_are_refused(home: Path) -> None:
    (home / "other" / "secret.txt").write_text("SECRET")
    p = home / "project"
    (p / "hop2").symlink_to(home / "other")
    (p / "hop1").symlink_to(p / "hop2")
    ws = Workspace(str(p))
    assert not call(ws, "read_text_file", {"path": f"{p}/hop1/secret.txt"}).ok
    tree = call(ws, "directory_tree", {"path": str(p)})
    assert tree.ok and "secret" not in tree.text
    found = call(ws, "search_files", {"path": str(p), "pattern": "**/*secret*"})
    assert found.text == "No matches found"


def test_root_given_through_a_symlink_accepts_both_spellings(tmp_path: Path) -> None:
    actual = tmp_path / "actual-target"
    actual.mkdir()
    (actual / "file.txt").write_text("FILE_CONTENT")
    link = tmp_path / "symlink-dir"
    link.symlink_to(actual)
    ws = Workspace(str(link))
    for path in (link / "file.txt", actual / "file.txt"):
        assert call(ws, "read_text_file", {"path": str(path)}).text == "FILE_CONTENT"


def test_non_existent_paths_inside_are_allowed_once_the_parent_exists(
    ws: Workspace, home: Path
) -> None:
    new = home / "project" / "subdir" / "newfile.txt"
    assert not call(ws, "write_file", {"path": str(new), "content": "x"}).ok
    assert call(ws, "create_directory", {"path": str(new.parent)}).ok
    assert call(ws, "write_file", {"path": str(new), "content": "x"}).ok


# -- lib.test.ts: applyFileEdits ---------------------------------------------------------------


@pytest.fixture
def file(tmp_path: Path) -> Path:
    path = tmp_path / "file.txt"
    path.write_text("line1\nline2\nline3\n")
    return path


def edit(path: Path, edits: list[dict[str, str]], dry: bool = False) -> Result:
    ws = Workspace(str(path.parent))
    return call(ws, "edit_file", {"path": str(path), "edits": edits, "dryRun": dry})


def test_applies_simple_text_replacement(file: Path) -> None:
    result = edit(file, [{"oldText": "line2", "newText": "modified line2"}])
    assert result.ok and "modified line2" in result.text
    assert file.read_text() == "line1\nmodified line2\nline3\n"
    assert not [p for p in file.parent.iterdir() if p.name.endswith(".tmp")]


def test_treats_dollar_signs_in_replacement_text_literally(file: Path) -> None:
    new = "price=$$; match=$&; before=$`; after=$'"
    assert edit(file, [{"oldText": "line2", "newText": new}]).ok
    assert file.read_text() == f"line1\n{new}\nline3\n"


def test_handles_dry_run_mode(file: Path) -> None:
    before = file.stat().st_mtime_ns
    result = edit(file, [{"oldText": "line2", "newText": "modified line2"}], dry=True)
    assert result.ok and "modified line2" in result.text
    assert file.read_text() == "line1\nline2\nline3\n" and file.stat().st_mtime_ns == before


def test_applies_multiple_edits_sequentially(file: Path) -> None:
    edits = [
        {"oldText": "line1", "newText": "first line"},
        {"oldText": "line3", "newText": "third line"},
    ]
    assert edit(file, edits).ok
    assert file.read_text() == "first line\nline2\nthird line\n"


def test_handles_whitespace_flexible_matching(file: Path) -> None:
    file.write_text("  line1\n    line2\n  line3\n")
    assert edit(file, [{"oldText": "line2", "newText": "modified line2"}]).ok
    assert file.read_text() == "  line1\n    modified line2\n  line3\n"


def test_preserves_file_permissions_after_applying_edits(file: Path) -> None:
    file.chmod(0o755)
    assert edit(file, [{"oldText": "line2", "newText": "modified line2"}]).ok
    assert stat.S_IMODE(file.stat().st_mode) == 0o755


def test_throws_error_for_non_matching_edits(file: Path) -> None:
    result = edit(file, [{"oldText": "nonexistent line", "newText": "replacement"}])
    assert not result.ok and result.text.startswith("Could not find exact match for edit")
    assert file.read_text() == "line1\nline2\nline3\n"


def test_handles_complex_multi_line_edits_with_indentation(file: Path) -> None:
    file.write_text('function test() {\n  console.log("hello");\n  return true;\n}')
    old = '  console.log("hello");\n  return true;'
    new = '  console.log("world");\n  console.log("test");\n  return false;'
    assert edit(file, [{"oldText": old, "newText": new}]).ok
    assert file.read_text() == (
        'function test() {\n  console.log("world");\n  console.log("test");\n  return false;\n}'
    )


def test_handles_edits_with_different_indentation_patterns(file: Path) -> None:
    file.write_text("    if (condition) {\n        doSomething();\n    }")
    new = "doSomethingElse();\n        doAnotherThing();"
    assert edit(file, [{"oldText": "doSomething();", "newText": new}]).ok
    assert file.read_text() == (
        "    if (condition) {\n        doSomethingElse();\n        doAnotherThing();\n    }"
    )


def test_crlf_files_keep_their_line_endings(file: Path) -> None:
    """DIFFERENT: the server writes the edited file back with LF line endings."""
    file.write_bytes(b"line1\r\nline2\r\nline3\r\n")
    assert edit(file, [{"oldText": "line2", "newText": "modified line2"}]).ok
    assert file.read_bytes() == b"line1\r\nmodified line2\r\nline3\r\n"


def test_an_old_text_found_twice_is_refused(file: Path) -> None:
    """DIFFERENT: the server changes the first of the two places."""
    file.write_text("x = 1\ny = 2\nx = 1\n")
    result = edit(file, [{"oldText": "x = 1", "newText": "x = 9"}])
    assert not result.ok and "Found 2 matches" in result.text
    assert file.read_text() == "x = 1\ny = 2\nx = 1\n"


def test_a_failing_edit_in_a_batch_writes_nothing(file: Path) -> None:
    edits = [{"oldText": "line1", "newText": "ONE"}, {"oldText": "nope", "newText": "x"}]
    assert not edit(file, edits).ok
    assert file.read_text() == "line1\nline2\nline3\n"


# -- lib.test.ts: moveFile, searchFilesWithValidation ------------------------------------------


def test_moves_the_file_when_the_destination_does_not_exist(tmp_path: Path) -> None:
    (tmp_path / "source.txt").write_text("s")
    ws = Workspace(str(tmp_path))
    result = call(
        ws, "move_file", {"source": f"{tmp_path}/source.txt", "destination": f"{tmp_path}/dest.txt"}
    )
    assert (
        result.ok
        and result.text == f"Successfully moved {tmp_path}/source.txt to {tmp_path}/dest.txt"
    )
    assert (tmp_path / "dest.txt").read_text() == "s" and not (tmp_path / "source.txt").exists()


@pytest.mark.parametrize("occupant", ["file", "dir", "link"])
def test_fails_without_overwriting_when_the_destination_exists(
    tmp_path: Path, occupant: str
) -> None:
    (tmp_path / "source.txt").write_text("s")
    dest = tmp_path / "dest.txt"
    if occupant == "file":
        dest.write_text("d")
    elif occupant == "dir":
        dest.mkdir()
    else:
        dest.symlink_to(tmp_path / "missing")
    ws = Workspace(str(tmp_path))
    result = call(
        ws, "move_file", {"source": str(tmp_path / "source.txt"), "destination": str(dest)}
    )
    assert not result.ok and result.text.startswith("Destination already exists")
    assert (tmp_path / "source.txt").read_text() == "s"


def test_search_excludes_files_matching_exclude_patterns(tmp_path: Path) -> None:
    d = tmp_path / "dir"
    (d / "node_modules").mkdir(parents=True)
    (d / "node_modules" / "test.js").write_text("")
    (d / "test.txt").write_text("")
    (d / "test.log").write_text("")
    ws = Workspace(str(tmp_path))
    args = {"path": str(d), "pattern": "*test*", "excludePatterns": ["*.log", "node_modules"]}
    assert call(ws, "search_files", args).text == str(d / "test.txt")


def test_search_handles_complex_exclude_patterns(tmp_path: Path) -> None:
    for name in ("test.txt", "test.backup", "important_test.js"):
        (tmp_path / name).write_text("")
    ws = Workspace(str(tmp_path))
    args = {"path": str(tmp_path), "pattern": "*test*", "excludePatterns": ["*.backup"]}
    found = call(ws, "search_files", args).text.split("\n")
    assert sorted(found) == sorted(
        [str(tmp_path / "test.txt"), str(tmp_path / "important_test.js")]
    )


def test_search_skips_what_the_policy_hides(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("")
    ws = Workspace(str(tmp_path))
    call(ws, "write_file", {"path": str(tmp_path / "b.txt"), "content": "x"})  # makes .filewright
    found = call(ws, "search_files", {"path": str(tmp_path), "pattern": "**"}).text
    assert ".filewright" not in found and "a.txt" in found


# -- filewright's guarantees under mcpfs ---------------------------------------------------------


def test_changes_are_undoable_through_the_engine(tmp_path: Path) -> None:
    from filewright.engine.undo import undo

    (tmp_path / "a.txt").write_text("one\n")
    ws = Workspace(str(tmp_path))
    assert call(ws, "write_file", {"path": str(tmp_path / "a.txt"), "content": "two\n"}).ok
    assert call(
        ws, "move_file", {"source": f"{tmp_path}/a.txt", "destination": f"{tmp_path}/b.txt"}
    ).ok
    engine = ws.toolset("mcpfs").engine
    assert undo(engine, "b.txt").ok and (tmp_path / "a.txt").read_text() == "two\n"
    assert undo(engine, "a.txt").ok and (tmp_path / "a.txt").read_text() == "one\n"


def test_protected_files_are_read_only(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    (tmp_path / ".git" / "config").write_text("[core]\n")
    ws = Workspace(str(tmp_path))
    assert call(ws, "read_text_file", {"path": f"{tmp_path}/.git/config"}).ok
    for tool, args in (
        ("write_file", {"path": f"{tmp_path}/.git/config", "content": "x"}),
        (
            "edit_file",
            {"path": f"{tmp_path}/.git/config", "edits": [{"oldText": "core", "newText": "x"}]},
        ),
        ("move_file", {"source": f"{tmp_path}/.git/config", "destination": f"{tmp_path}/c"}),
        ("create_directory", {"path": f"{tmp_path}/.git/hooks"}),
    ):
        assert not call(ws, tool, args).ok, tool
    assert (tmp_path / ".git" / "config").read_text() == "[core]\n"


def test_read_text_file_head_and_tail(tmp_path: Path) -> None:
    (tmp_path / "f.txt").write_text("".join(f"{i}\n" for i in range(1, 11)))
    ws = Workspace(str(tmp_path))
    assert call(ws, "read_text_file", {"path": "f.txt", "head": 2}).text == "1\n2"
    assert call(ws, "read_text_file", {"path": "f.txt", "tail": 2}).text == "9\n10"
    both = call(ws, "read_text_file", {"path": "f.txt", "head": 1, "tail": 1})
    assert not both.ok and "simultaneously" in both.text
    assert not call(ws, "read_text_file", {"path": "f.txt", "head": 1.5}).ok


def test_binary_files_are_not_returned_as_text(tmp_path: Path) -> None:
    (tmp_path / "x.bin").write_bytes(bytes(range(256)))
    ws = Workspace(str(tmp_path))
    assert not call(ws, "read_text_file", {"path": "x.bin"}).ok
    media = call(ws, "read_media_file", {"path": "x.bin"})
    assert media.ok and media.data["content"][0]["type"] == "resource"


def test_unknown_arguments_are_ignored_as_the_server_does(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("a\n")
    ws = Workspace(str(tmp_path))
    assert call(ws, "read_text_file", {"path": "a.txt", "bogus": 1}).text == "a\n"


def test_list_directory_with_sizes_format(tmp_path: Path) -> None:
    (tmp_path / "big.txt").write_bytes(b"x" * 2048)
    (tmp_path / "sub").mkdir()
    ws = Workspace(str(tmp_path))
    text = call(ws, "list_directory_with_sizes", {"path": str(tmp_path)}).text
    assert text.split("\n")[0] == f"[FILE] {'big.txt':<30} {'2.00 KB':>10}"
    assert text.endswith("Total: 1 files, 1 directories\nCombined size: 2.00 KB")
    assert os.path.isdir(tmp_path / "sub")
