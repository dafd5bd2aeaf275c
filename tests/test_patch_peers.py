"""Peers' own apply_patch test cases, ported as facts (files before, patch, files after).

Sources (cases restated, no code copied):

- Codex CLI's apply-patch crate (openai/codex, codex-rs/apply-patch): the fixture
  scenarios ``tests/fixtures/scenarios/001``-``022``, the CLI tests of
  ``tests/suite/tool.rs``, ``tests/two_hunks.rs``, the unit tests of ``src/lib.rs`` and
  ``seek_sequence``'s tests (``src/seek_sequence.rs``), run here through the V4A
  function tool;
- the OpenAI Agents SDK (openai/openai-agents-python): ``tests/test_apply_diff.py`` and
  ``tests/sandbox/test_apply_patch.py``, run here as Responses API operations.

Where filewright deliberately behaves otherwise, the test asserts filewright's behaviour
and names the difference (``DIFFERS:``); docs/apply_patch.md lists each with its reason.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from filewright import Workspace

Files = dict[str, bytes]


def setup(root: Path, files: Files) -> Any:
    for name, data in files.items():
        p = root / name
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(data)
    return Workspace(str(root)).toolset("apply_patch")


def tree(root: Path) -> Files:
    return {
        str(p.relative_to(root)): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and ".filewright" not in p.parts
    }


def patch(*body: str) -> str:
    return "\n".join(["*** Begin Patch", *body, "*** End Patch"])


# --------------------------------------------------------------------------- Codex

# (name, files before, patch, files after; None: refused and nothing changed)
CODEX: list[tuple[str, Files, str, Files | None]] = [
    ("001_add_file", {}, patch("*** Add File: bar.md", "+This is a new file"),
     {"bar.md": b"This is a new file\n"}),
    ("002_multiple_operations", {"delete.txt": b"obsolete\n", "modify.txt": b"line1\nline2\n"},
     patch("*** Add File: nested/new.txt", "+created", "*** Delete File: delete.txt",
           "*** Update File: modify.txt", "@@", "-line2", "+changed"),
     {"modify.txt": b"line1\nchanged\n", "nested/new.txt": b"created\n"}),
    ("003_multiple_chunks", {"multi.txt": b"line1\nline2\nline3\nline4\n"},
     patch("*** Update File: multi.txt", "@@", "-line2", "+changed2", "@@", "-line4",
           "+changed4"),
     {"multi.txt": b"line1\nchanged2\nline3\nchanged4\n"}),
    ("004_move_to_new_directory",
     {"old/name.txt": b"old content\n", "old/other.txt": b"other\n"},
     patch("*** Update File: old/name.txt", "*** Move to: renamed/dir/name.txt", "@@",
           "-old content", "+new content"),
     {"old/other.txt": b"other\n", "renamed/dir/name.txt": b"new content\n"}),
    ("005_rejects_empty_patch", {"foo.txt": b"x\n"}, patch(), None),
    ("006_rejects_missing_context", {"modify.txt": b"line1\nline2\n"},
     patch("*** Update File: modify.txt", "@@", "-missing", "+changed"), None),
    ("007_rejects_missing_file_delete", {"foo.txt": b"x\n"},
     patch("*** Delete File: missing.txt"), None),
    ("008_rejects_empty_update_hunk", {"foo.txt": b"x\n"},
     patch("*** Update File: foo.txt"), None),
    ("009_requires_existing_file_for_update", {"foo.txt": b"x\n"},
     patch("*** Update File: missing.txt", "@@", "-old", "+new"), None),
    # DIFFERS: Codex replaces the destination; filewright refuses (the patch does not
    # delete it first), so no file is lost to a move
    ("010_move_onto_existing_destination",
     {"old/name.txt": b"from\n", "renamed/dir/name.txt": b"existing\n"},
     patch("*** Update File: old/name.txt", "*** Move to: renamed/dir/name.txt", "@@",
           "-from", "+new"), None),
    # DIFFERS: Codex overwrites; filewright refuses an Add File of an existing file
    ("011_add_of_existing_file", {"duplicate.txt": b"old content\n"},
     patch("*** Add File: duplicate.txt", "+new content"), None),
    ("012_delete_directory_fails", {"dir/foo.txt": b"x\n"}, patch("*** Delete File: dir"), None),
    ("013_rejects_invalid_hunk_header", {"foo.txt": b"x\n"},
     patch("*** Frobnicate File: foo"), None),
    # DIFFERS: Codex adds a final newline; filewright keeps the file's (none)
    ("014_update_keeps_no_final_newline", {"no_newline.txt": b"no newline at end"},
     patch("*** Update File: no_newline.txt", "@@", "-no newline at end", "+first line",
           "+second line"),
     {"no_newline.txt": b"first line\nsecond line"}),
    # DIFFERS: Codex leaves created.txt behind; filewright applies all or nothing
    ("015_failure_after_partial_success_changes_nothing", {},
     patch("*** Add File: created.txt", "+hello", "*** Update File: missing.txt", "@@",
           "-old", "+new"), None),
    ("016_pure_addition_update_chunk", {"input.txt": b"line1\nline2\n"},
     patch("*** Update File: input.txt", "@@", "+added line 1", "+added line 2"),
     {"input.txt": b"line1\nline2\nadded line 1\nadded line 2\n"}),
    ("017_whitespace_padded_hunk_header", {"foo.txt": b"old\n"},
     "*** Begin Patch\n  *** Update File: foo.txt\n@@\n-old\n+new\n*** End Patch",
     {"foo.txt": b"new\n"}),
    ("018_whitespace_padded_patch_markers", {"file.txt": b"one\n"},
     " *** Begin Patch\n*** Update File: file.txt\n@@\n-one\n+two\n*** End Patch ",
     {"file.txt": b"two\n"}),
    ("019_unicode_simple", {"foo.txt": "line1\nnaïve café\nline3\n".encode()},
     patch("*** Update File: foo.txt", "@@", " line1", "-naïve café", "+naïve café ✅"),
     {"foo.txt": "line1\nnaïve café ✅\nline3\n".encode()}),
    ("020_delete_file_success", {"keep.txt": b"keep\n", "obsolete.txt": b"x\n"},
     patch("*** Delete File: obsolete.txt"), {"keep.txt": b"keep\n"}),
    ("020_whitespace_padded_patch_marker_lines", {"file.txt": b"one\n"},
     "*** Begin Patch \n*** Update File: file.txt\n@@\n-one\n+two\n *** End Patch",
     {"file.txt": b"two\n"}),
    ("021_update_file_deletion_only", {"lines.txt": b"line1\nline2\nline3\n"},
     patch("*** Update File: lines.txt", "@@", " line1", "-line2", " line3"),
     {"lines.txt": b"line1\nline3\n"}),
    ("022_update_file_end_of_file_marker", {"tail.txt": b"first\nsecond\n"},
     patch("*** Update File: tail.txt", "@@", " first", "-second", "+second updated",
           "*** End of File"),
     {"tail.txt": b"first\nsecond updated\n"}),
    # tests/suite/tool.rs
    ("tool_preserves_crlf", {"crlf.txt": b"one\r\ntwo\r\nthree\r\n"},
     patch("*** Update File: crlf.txt", "@@", "-one", "+uno", "@@", " two", "+", "+between",
           " three"),
     {"crlf.txt": b"uno\r\ntwo\r\n\r\nbetween\r\nthree\r\n"}),
    ("tool_change_order_with_repeated_lines", {"repeated.txt": b"a\nb\n"},
     patch("*** Update File: repeated.txt", "@@", "-a", "-b", "+b", "+b", "+a"),
     {"repeated.txt": b"b\nb\na\n"}),
    ("tool_untouched_mixed_line_endings", {"mixed.txt": b"one\r\ntwo\nthree\r\nfour\n"},
     patch("*** Update File: mixed.txt", "@@", " one", " two", "-three", "+THREE", " four"),
     {"mixed.txt": b"one\r\ntwo\nTHREE\r\nfour\n"}),
    # DIFFERS: Codex adds a final CRLF; filewright keeps the file's missing final newline
    ("tool_crlf_without_final_newline", {"n.txt": b"one\r\ntwo"},
     patch("*** Update File: n.txt", "@@", "-one", "+ONE"), {"n.txt": b"ONE\r\ntwo"}),
    # DIFFERS: line endings are kept by line position, so the first line keeps its CRLF
    # (Codex keeps the context line's own LF)
    ("tool_repeated_context_line_ending", {"r.txt": b"same\r\nsame\n"},
     patch("*** Update File: r.txt", "@@", "-same", " same"), {"r.txt": b"same\r\n"}),
    # tests/two_hunks.rs: two sections for one file, the second sees the first's result
    ("two_hunks_non_overlapping", {"f.txt": b"line1\nline2\nline3\nline4\nline5\n"},
     patch("*** Update File: f.txt", "@@", "-line2", "+foo", "*** Update File: f.txt", "@@",
           "-line4", "+bar"),
     {"f.txt": b"line1\nfoo\nline3\nbar\nline5\n"}),
    ("two_hunks_overlapping_fail", {"f.txt": b"A\nB\nC\nD\n"},
     patch("*** Update File: f.txt", "@@", "-B", "+X", "*** Update File: f.txt", "@@", "-B",
           "+Y"), None),
    # src/lib.rs
    ("lib_interleaved_changes", {"i.txt": b"a\nb\nc\nd\ne\nf\n"},
     patch("*** Update File: i.txt", "@@", " a", "-b", "+B", "@@", " c", " d", "-e", "+E",
           "@@", " f", "+g", "*** End of File"),
     {"i.txt": b"a\nB\nc\nd\nE\nf\ng\n"}),
    ("lib_pure_addition_chunk_followed_by_removal", {"p.txt": b"line1\nline2\nline3\n"},
     patch("*** Update File: p.txt", "@@", "+after-context", "+second-line", "@@", " line1",
           "-line2", "-line3", "+line2-replacement"),
     {"p.txt": b"line1\nline2-replacement\nafter-context\nsecond-line\n"}),
    ("lib_update_line_with_unicode_dash",
     {"u.py": "import asyncio  # local import \u2013 avoids top\u2011level dep\n".encode()},
     patch("*** Update File: u.py", "@@",
           "-import asyncio  # local import - avoids top-level dep", "+import asyncio  # HELLO"),
     {"u.py": b"import asyncio  # HELLO\n"}),
    ("lib_first_line_replacement", {"first.txt": b"foo\nbar\nbaz\n"},
     patch("*** Update File: first.txt", "@@", "-foo", "+FOO", " bar"),
     {"first.txt": b"FOO\nbar\nbaz\n"}),
    # seek_sequence, through a one-hunk patch that replaces what it finds
    ("seek_exact", {"s.txt": b"foo\nbar\nbaz\n"},
     patch("*** Update File: s.txt", "@@", "-bar", "-baz", "+X"), {"s.txt": b"foo\nX\n"}),
    ("seek_rstrip", {"s.txt": b"foo   \nbar\t\t\n"},
     patch("*** Update File: s.txt", "@@", "-foo", "-bar", "+X"), {"s.txt": b"X\n"}),
    ("seek_trim_both_same_indent", {"s.txt": b"    foo   \n    bar\t\n"},
     patch("*** Update File: s.txt", "@@", "-foo", "-bar", "+X"), {"s.txt": b"    X\n"}),
    # DIFFERS: lines indented 4 and 3 in the file, 0 and 0 in the hunk: found by both
    # (the ladder's flattened level, issue 29); Codex writes X at column 0, filewright
    # gives the changed line the indentation of the file line it replaces
    ("seek_trim_both_other_relative_indent", {"s.txt": b"    foo   \n   bar\t\n"},
     patch("*** Update File: s.txt", "@@", "-foo", "-bar", "+X"), {"s.txt": b"    X\n"}),
    ("seek_unicode_dash", {"s.txt": "hello \u2013 world\n".encode()},
     patch("*** Update File: s.txt", "@@", "-hello - world", "+hi"), {"s.txt": b"hi\n"}),
    ("seek_pattern_longer_than_input", {"s.txt": b"just one line\n"},
     patch("*** Update File: s.txt", "@@", "-too", "-many", "-lines", "+X"), None),
    ("seek_end_of_file_prefers_the_end", {"s.txt": b"dup\nmiddle\ndup\n"},
     patch("*** Update File: s.txt", "@@", "-dup", "+DUP", "*** End of File"),
     {"s.txt": b"dup\nmiddle\nDUP\n"}),
]  # fmt: skip


@pytest.mark.parametrize(
    ("files", "text", "after"), [c[1:] for c in CODEX], ids=[c[0] for c in CODEX]
)
def test_codex_cases(tmp_path: Path, files: Files, text: str, after: Files | None) -> None:
    r = setup(tmp_path, files).call("apply_patch", {"input": text})
    if after is None:
        assert not r.ok, r.text
        assert "no file was changed" in r.text.lower()
        assert tree(tmp_path) == files
    else:
        assert r.ok, r.text
        assert tree(tmp_path) == after


# --------------------------------------------------------------------------- Agents SDK

STACKED = "class BaseClass\n    def search():\n        pass\n\nclass Subclass\n    def search():\n        pass\n"  # fmt: skip
TARGET = "class Target\n    def helper():\n        pass\n\n    def desired():\n        return 1\n"
TWO_TARGETS = (
    "class First\n    def target():\n        return 0\n\n"
    "class Second\n    def helper():\n        pass\n\n    def target():\n        pass\n"
)

# (name, file before, update_file diff, file after; None: refused, file unchanged)
SDK_DIFFS: list[tuple[str, str, str, str | None]] = [
    ("floating_hunk_adds_lines", "", "@@\n+hello\n+world", "hello\nworld\n"),
    ("contextual_replacement", "line1\nline2\nline3\n", "@@ line1\n-line2\n+updated\n line3",
     "line1\nupdated\nline3\n"),
    ("stacked_anchors_from_the_tool_description", STACKED,
     "@@ class BaseClass\n@@     def search():\n-        pass\n+        raise NotImplementedError()\n"
     "\n@@ class Subclass\n@@     def search():\n-        pass\n+        raise NotImplementedError()",
     STACKED.replace("pass", "raise NotImplementedError()")),
    ("reuses_a_prior_parent_anchor",
     "class Target\n    def first():\n        pass\n\n    def second():\n        pass\n",
     "@@ class Target\n@@     def first():\n-        pass\n+        return 1\n"
     "@@ class Target\n@@     def second():\n-        pass\n+        return 2",
     "class Target\n    def first():\n        return 1\n\n    def second():\n        return 2\n"),
    ("stacked_anchors_narrow_to_the_named_block", TWO_TARGETS,
     "@@ class Second\n@@     def target():\n-        pass\n+        return 1",
     TWO_TARGETS[: -len("pass\n")] + "return 1\n"),
    # DIFFERS: the SDK ignores a single anchor it cannot find; filewright refuses it
    ("single_unmatched_anchor_is_refused", "a\nb\n", "@@ nope\n-b\n+B", None),
    ("rejects_partially_matched_stacked_anchors", TARGET,
     "@@ class Target\n@@     def missing():\n-        pass\n+        return 99", None),
    ("rejects_stacked_anchors_when_the_first_is_missing",
     "class Wrong\n    def desired():\n        pass\n",
     "@@ class Target\n@@     def desired():\n-        pass\n+        return 99", None),
    ("rejects_a_missing_anchor_followed_by_a_bare_marker", "a\nb\n", "@@ missing\n@@\n-b\n+B",
     None),
    ("accepts_a_trailing_bare_anchor", "class Only\n    def run():\n        pass\n",
     "@@ class Only\n@@\n-        pass\n+        return 1",
     "class Only\n    def run():\n        return 1\n"),
    ("rejects_context_mismatch", "one\ntwo\n", "@@ -1,2 +1,2 @@\n x\n-two\n+2", None),
    ("crlf_input_lf_diff_keeps_crlf", "line1\r\nline2\r\nline3\r\n",
     "@@ line1\n-line2\n+updated\n line3", "line1\r\nupdated\r\nline3\r\n"),
    ("lf_input_crlf_diff_keeps_lf", "line1\nline2\nline3\n",
     "@@ line1\r\n-line2\r\n+updated\r\n line3", "line1\nupdated\nline3\n"),
    ("crlf_input_crlf_diff_keeps_crlf", "line1\r\nline2\r\nline3\r\n",
     "@@ line1\r\n-line2\r\n+updated\r\n line3", "line1\r\nupdated\r\nline3\r\n"),
    # DIFFERS: an empty file is written with "\n" (the SDK takes the diff's CRLF)
    ("empty_input_crlf_diff", "", "@@\r\n+hello\r\n+world", "hello\nworld\n"),
    # sandbox/test_apply_patch.py
    ("invalid_context_raises", "alpha\nbeta\n", "@@\n missing\n-beta\n+gamma\n", None),
    ("uses_anchor_jump", "a\nb\nmarker\nc\nd\n", "@@ marker\n c\n-d\n+e\n",
     "a\nb\nmarker\nc\ne\n"),
    ("uses_stacked_anchor_jump", TWO_TARGETS,
     "@@ class Second\n@@     def target():\n-        pass\n+        return 1\n",
     TWO_TARGETS[: -len("pass\n")] + "return 1\n"),
    ("matches_end_of_file_context", "one\ntwo\nthree\n",
     "@@\n two\n-three\n+four\n*** End of File\n", "one\ntwo\nfour\n"),
    ("rejects_invalid_diff_line_prefix", "alpha\nbeta\n", "oops", None),
]  # fmt: skip


@pytest.mark.parametrize(
    ("before", "diff", "after"), [c[1:] for c in SDK_DIFFS], ids=[c[0] for c in SDK_DIFFS]
)
def test_agents_sdk_update_diffs(tmp_path: Path, before: str, diff: str, after: str | None) -> None:
    t = setup(tmp_path, {"f.txt": before.encode()})
    r = t.apply_operation({"type": "update_file", "path": "f.txt", "diff": diff})
    if after is None:
        assert not r.ok, r.text
        assert (tmp_path / "f.txt").read_bytes() == before.encode()
    else:
        assert r.ok, r.text
        assert (tmp_path / "f.txt").read_bytes() == after.encode()


# (name, files before, operation, files after; None: refused and nothing changed)
SDK_OPERATIONS: list[tuple[str, Files, dict[str, Any], Files | None]] = [
    ("create_mode_requires_plus_prefix", {}, {"type": "create_file", "path": "n.txt",
     "diff": "plain line"}, None),
    ("create_mode_trailing_plus_is_the_final_newline", {},
     {"type": "create_file", "path": "n.txt", "diff": "+hello\n+world\n+"},
     {"n.txt": b"hello\nworld\n"}),
    # DIFFERS: "+hello" alone is "hello\n" here (the SDK writes no final newline)
    ("create_single_line", {}, {"type": "create_file", "path": "n.txt", "diff": "+hello"},
     {"n.txt": b"hello\n"}),
    # DIFFERS: a new file is written with "\n" (the SDK takes the diff's CRLF)
    ("create_mode_crlf_diff", {}, {"type": "create_file", "path": "n.txt",
     "diff": "+hello\r\n+world\r\n+"}, {"n.txt": b"hello\nworld\n"}),
    ("update_missing_diff_raises", {"file.txt": b"x\n"},
     {"type": "update_file", "path": "file.txt"}, None),
    ("update_missing_file_raises", {}, {"type": "update_file", "path": "missing.txt",
     "diff": "@@\n-old\n+new\n"}, None),
    ("delete_missing_file_raises", {}, {"type": "delete_file", "path": "nope.txt"}, None),
    ("rejects_escape_root_path", {}, {"type": "create_file", "path": "../escape.txt",
     "diff": "+nope"}, None),
    ("rejects_empty_path", {}, {"type": "create_file", "path": "", "diff": "+nope"}, None),
    # DIFFERS: the SDK reads "\\" as a separator; filewright refuses and names the path
    ("backslash_path_is_refused", {}, {"type": "create_file", "path": "nested\\new.txt",
     "diff": "+hello"}, None),
    ("backslash_move_to_is_refused", {"source.txt": b"alpha\n"},
     {"type": "update_file", "path": "source.txt", "diff": "@@\n-alpha\n+beta\n",
      "move_to": "nested\\moved.txt"}, None),
    ("rejects_absolute_path_outside_root", {}, {"type": "create_file",
     "path": "/tmp/filewright-peer-outside.txt", "diff": "+nope"}, None),
    ("create_requires_plus_lines", {}, {"type": "create_file", "path": "new.txt",
     "diff": "oops"}, None),
    ("mapping_operation_moves_file", {"old.txt": b"alpha\n"},
     {"type": "update_file", "path": "old.txt", "diff": "@@\n-alpha\n+beta\n",
      "move_to": "renamed/new.txt"}, {"renamed/new.txt": b"beta\n"}),
    ("mapping_operation_without_move_to_updates_in_place", {"keep.txt": b"alpha\n"},
     {"type": "update_file", "path": "keep.txt", "diff": "@@\n-alpha\n+beta\n"},
     {"keep.txt": b"beta\n"}),
    ("mapping_operation_rejects_non_string_move_to", {"old.txt": b"alpha\n"},
     {"type": "update_file", "path": "old.txt", "diff": "@@\n-alpha\n+beta\n", "move_to": 5},
     None),
]  # fmt: skip


@pytest.mark.parametrize(
    ("files", "op", "after"), [c[1:] for c in SDK_OPERATIONS], ids=[c[0] for c in SDK_OPERATIONS]
)
def test_agents_sdk_operations(
    tmp_path: Path, files: Files, op: dict[str, Any], after: Files | None
) -> None:
    r = setup(tmp_path, files).apply_operation(op)
    if after is None:
        assert not r.ok, r.text
        assert tree(tmp_path) == files
    else:
        assert r.ok, r.text
        assert tree(tmp_path) == after


def test_agents_sdk_absolute_path_within_root(tmp_path: Path) -> None:
    t = setup(tmp_path, {})
    r = t.apply_operation({"type": "create_file", "path": str(tmp_path / "abs-ok.txt"),
                           "diff": "+hello"})  # fmt: skip
    assert r.ok, r.text
    assert tree(tmp_path) == {"abs-ok.txt": b"hello\n"}


def test_agents_sdk_undecodable_file_is_refused(tmp_path: Path) -> None:
    t = setup(tmp_path, {"binary.txt": b"\xff\xfe\xfd"})
    r = t.apply_operation({"type": "update_file", "path": "binary.txt", "diff": "@@\n+\n"})
    assert not r.ok and "without losing data" in r.text
    assert tree(tmp_path) == {"binary.txt": b"\xff\xfe\xfd"}
