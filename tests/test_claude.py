"""The `claude` toolset: Read / Write / Edit / MultiEdit as the claude seed describes them.

Real files in tmp_path, no mocks; messages are compared exactly.
"""

from __future__ import annotations

import json
import os
import re
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from samples import pdf, png

from filewright import Workspace
from filewright.tools.base import Toolset

BACKUP_NAME = re.compile(r"^(?P<name>.+)\.\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d-\d{3}Z\.backup$")


@pytest.fixture
def ws(tmp_path: Path) -> Workspace:
    return Workspace(tmp_path)


@pytest.fixture
def tools(ws: Workspace) -> Toolset:
    return ws.toolset("claude")


def put(path: Path, content: str | bytes) -> str:
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(content, str):
        path.write_text(content, encoding="utf-8", newline="")
    else:
        path.write_bytes(content)
    return str(path)


# -- Read ------------------------------------------------------------------------------------


def test_read_numbers_lines_like_cat_n_padded_to_the_widest(tools: Toolset, tmp_path: Path) -> None:
    path = put(tmp_path / "a.py", "".join(f"l{i}\n" for i in range(1, 13)))
    result = tools.call("Read", {"file_path": path})
    assert result.ok
    assert result.text == "\n".join(f"{i:>2}\tl{i}" for i in range(1, 13))
    data = result.data
    assert (data["totalLines"], data["readLines"], data["truncated"]) == (12, 12, False)
    assert (data["fileSize"], data["encoding"], data["mimeType"]) == (
        os.path.getsize(path),
        "utf-8",
        "text/x-python",
    )


def test_read_offset_and_limit_say_how_to_go_on(tools: Toolset, tmp_path: Path) -> None:
    path = put(tmp_path / "a.txt", "".join(f"{i}\n" for i in range(12)))
    result = tools.call("Read", {"file_path": path, "offset": 3, "limit": 2})
    # formatWithLineNumbers, then the seed's metadata (truncated) and how to read on
    assert result.text == (
        "3\t2\n4\t3\n\n"
        'metadata: {"totalLines": 5, "fileSize": 26, "encoding": "utf-8", "mimeType": '
        '"text/plain", "readLines": 2, "truncated": true}\n'
        "[Showing lines 3-4 of 12. Use offset=5 to read more.]"
    )
    plain = tools.workspace.toolset("claude", plain=True)
    plain_text = plain.call("Read", {"file_path": path, "offset": 3, "limit": 2}).text
    assert plain_text == "3\t2\n4\t3"  # the plain seed rendering: the content only
    assert result.data["notices"] == ["[Showing lines 3-4 of 12. Use offset=5 to read more.]"]
    # the seed's loop stops counting at the first line past the limit: totalLines 5
    assert (result.data["readLines"], result.data["totalLines"], result.data["truncated"]) == (
        2,
        5,
        True,
    )
    assert result.data["total_lines"] == 12


def test_read_defaults_to_2000_lines(tools: Toolset, tmp_path: Path) -> None:
    path = put(tmp_path / "big.log", "".join(f"line {i}\n" for i in range(1, 2501)))
    result = tools.call("Read", {"file_path": path})
    assert result.data["readLines"] == 2000
    assert result.data["totalLines"] == 2001
    assert result.data["total_lines"] == 2500
    assert result.data["truncated"] is True
    assert "2000\tline 2000\n\nmetadata: {" in result.text
    assert '"readLines": 2000, "truncated": true}' in result.text  # the seed's metadata
    assert result.text.endswith("[Showing lines 1-2000 of 2500. Use offset=2001 to read more.]")
    assert result.text.startswith("   1\tline 1\n")
    tail = tools.call("Read", {"file_path": path, "offset": 2001})
    assert tail.data["readLines"] == 500 and tail.data["truncated"] is False
    assert tail.text.endswith("2500\tline 2500")


def test_read_cuts_lines_longer_than_2000_characters(tools: Toolset, tmp_path: Path) -> None:
    path = put(tmp_path / "long.txt", "a" * 2500 + "\nb\n")
    result = tools.call("Read", {"file_path": path})
    first, second = result.text.split("\n")[:2]
    assert first == "1\t" + "a" * 2000 + " ... [truncated]"
    assert second == "2\tb"


def test_read_empty_file(tools: Toolset, tmp_path: Path) -> None:
    result = tools.call("Read", {"file_path": put(tmp_path / "empty.txt", "")})
    assert result.ok and result.text == "(empty file)"
    assert result.data["totalLines"] == 0


def test_read_offset_past_the_end_is_an_empty_read(tools: Toolset, tmp_path: Path) -> None:
    path = put(tmp_path / "a.txt", "x\ny\n")
    result = tools.call("Read", {"file_path": path, "offset": 5})
    assert result.ok and result.text == "(empty file)"
    assert (result.data["totalLines"], result.data["readLines"]) == (2, 0)


def test_read_image_pdf_and_notebook(tools: Toolset, tmp_path: Path) -> None:
    image = tools.call("Read", {"file_path": put(tmp_path / "dot.png", png())})
    assert image.ok and image.text == "[Image file: dot.png]"
    assert image.images[0]["mime_type"] == "image/png"
    assert (image.data["mimeType"], image.data["encoding"], image.data["totalLines"]) == (
        "image/png",
        "binary",
        0,
    )

    doc = tools.call("Read", {"file_path": put(tmp_path / "doc.pdf", pdf(["Hello PDF"]))})
    assert doc.ok and "Hello PDF" in doc.text and doc.text.startswith("[PDF file: doc.pdf")
    assert doc.data["mimeType"] == "application/pdf"

    notebook = {
        "cells": [
            {"cell_type": "markdown", "source": ["# Title\n"], "metadata": {}},
            {
                "cell_type": "code",
                "source": "print(1)",
                "metadata": {},
                "execution_count": 1,
                "outputs": [{"output_type": "stream", "name": "stdout", "text": ["1\n"]}],
            },
        ],
        "metadata": {"kernelspec": {"display_name": "Python 3", "name": "python3"}},
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    nb = tools.call("Read", {"file_path": put(tmp_path / "n.ipynb", json.dumps(notebook))})
    assert nb.ok and nb.text.startswith("Jupyter Notebook (Python 3)")
    assert (
        "[Cell 1] Type: markdown" in nb.text and "print(1)" in nb.text and "Output:\n1" in nb.text
    )


def test_read_refuses_binary_files(tools: Toolset, tmp_path: Path) -> None:
    result = tools.call("Read", {"file_path": put(tmp_path / "blob.dat", b"\x00\x01\x02abc" * 20)})
    assert not result.ok
    assert (
        result.text
        == "File appears to be binary (application/octet-stream). Use appropriate tool for this file type."
    )
    assert result.data["code"] == "BINARY_FILE"
    archive = tools.call(
        "Read", {"file_path": put(tmp_path / "a.zip", b"PK\x03\x04" + b"\x00" * 40)}
    )
    assert (  # the seed's mimeType map: unknown extensions are application/octet-stream
        archive.text
        == "File appears to be binary (application/octet-stream). Use appropriate tool for this file type."
    )


def test_read_size_limit(ws: Workspace, tmp_path: Path) -> None:
    # Above the limit a text file is read in the requested range (the seed's
    # StreamReader); other kinds are refused with the seed's words.
    small = ws.toolset("claude", max_read_bytes=100)
    path = put(tmp_path / "big.txt", "".join(f"line {i}\n" for i in range(1, 60)))
    result = small.call("Read", {"file_path": path, "offset": 50, "limit": 2})
    assert result.ok, result.text
    assert result.text.startswith("50\tline 50\n51\tline 51")
    assert result.data["streamed"] is True
    image = put(tmp_path / "big.png", b"\x89PNG\r\n\x1a\n" + b"\x00" * 192)
    result = small.call("Read", {"file_path": image})
    assert not result.ok
    assert result.text == "File too large: 200 bytes (max: 100 bytes)"
    assert result.data["code"] == "UNKNOWN_ERROR"  # thrown by getFileInfo


def test_read_validation_messages(tools: Toolset, tmp_path: Path) -> None:
    path = put(tmp_path / "a.txt", "a\n")
    cases = [
        ({"file_path": "a.txt"}, "file_path must be an absolute path"),
        ({"file_path": path, "offset": 0}, "offset must be >= 1"),
        ({"file_path": path, "limit": 0}, "limit must be >= 1"),
        ({}, "file_path is required"),
        ({"file_path": ""}, "file_path is required"),
    ]
    for args, message in cases:
        result = tools.call("Read", args)
        assert (result.ok, result.text, result.data["code"]) == (False, message, "UNKNOWN_ERROR")


def test_read_errors(tools: Toolset, tmp_path: Path) -> None:
    missing = str(tmp_path / "nope.txt")
    result = tools.call("Read", {"file_path": missing})
    assert (result.text, result.data["code"]) == (f"File not found: {missing}", "UNKNOWN_ERROR")
    result = tools.call("Read", {"file_path": str(tmp_path)})
    assert (result.text, result.data["code"]) == ("Path is a directory, not a file", "IS_DIRECTORY")
    result = tools.call("Read", {"file_path": "/etc/passwd"})
    assert (result.text, result.data["code"]) == (
        "Access denied: file is outside allowed directories",
        "UNKNOWN_ERROR",
    )


def test_policy_denied_files_are_in_a_denied_directory(tmp_path: Path) -> None:
    (tmp_path / ".filewright.toml").write_text('[[rules]]\npattern = "private/"\naccess = "deny"\n')
    tools = Workspace(tmp_path).toolset("claude")
    path = put(tmp_path / "private" / "notes.txt", "n\n")
    result = tools.call("Read", {"file_path": path})
    assert (result.text, result.data["code"]) == ("Path is in a denied directory", "UNKNOWN_ERROR")


def test_dry_run_writes_nothing(tmp_path: Path) -> None:
    path = put(tmp_path / "a.txt", "old\n")
    live = Workspace(tmp_path).toolset("claude")
    assert live.call("Read", {"file_path": path}).ok
    tools = Workspace(tmp_path, dry_run=True).toolset("claude")
    tools.call("Read", {"file_path": path})
    edit = tools.call("Edit", {"file_path": path, "old_string": "old", "new_string": "new"})
    assert edit.ok and edit.data["dry_run"] is True
    assert edit.text.startswith(f"[dry run] Would replace 1 occurrence(s) in {path}\n--- a/a.txt\n")
    new = str(tmp_path / "b.txt")
    write = tools.call("Write", {"file_path": new, "content": "b\n"})
    assert write.ok and write.text.startswith(f"[dry run] File would be created: {new}\n")
    assert Path(path).read_text() == "old\n" and not Path(new).exists()
    assert not (tmp_path / ".claude-backups").exists()


@pytest.mark.skipif(hasattr(os, "geteuid") and os.geteuid() == 0, reason="root reads anything")
def test_read_permission_denied(tools: Toolset, tmp_path: Path) -> None:
    path = put(tmp_path / "secret.txt", "s\n")
    os.chmod(path, 0)
    try:
        result = tools.call("Read", {"file_path": path})
    finally:
        os.chmod(path, 0o644)
    assert (result.text, result.data["code"]) == (f"Permission denied: {path}", "UNKNOWN_ERROR")


def test_messages_are_english_in_any_locale(tmp_path: Path) -> None:
    tools = Workspace(tmp_path, locale="zh").toolset("claude")
    missing = str(tmp_path / "nope.txt")
    assert tools.call("Read", {"file_path": missing}).text == f"File not found: {missing}"


# -- Write -----------------------------------------------------------------------------------


def test_write_creates_a_file_and_its_parents(tools: Toolset, tmp_path: Path) -> None:
    path = str(tmp_path / "new" / "deep" / "f.txt")
    result = tools.call("Write", {"file_path": path, "content": "one\ntwo\n"})
    assert result.ok and result.text == f"File created: {path}"
    assert Path(path).read_text() == "one\ntwo\n"
    data = result.data
    assert (
        data["bytesWritten"],
        data["linesWritten"],
        data["wasCreated"],
        data["wasOverwritten"],
    ) == (8, 3, True, False)  # linesWritten = content.split('\n').length
    assert data["backupPath"] is None


def test_write_requires_a_read_of_an_existing_file(tools: Toolset, tmp_path: Path) -> None:
    path = put(tmp_path / "f.txt", "old\n")
    refused = tools.call("Write", {"file_path": path, "content": "new\n"})
    assert not refused.ok
    assert (
        refused.text
        == f"You must read the file before writing to it. Use the Read tool first: {path}"
    )
    assert refused.data["code"] == "UNKNOWN_ERROR"
    assert Path(path).read_text() == "old\n"
    assert tools.call("Read", {"file_path": path}).ok
    done = tools.call("Write", {"file_path": path, "content": "new\n"})
    assert done.ok and done.text == f"File overwritten: {path}"
    assert (done.data["wasCreated"], done.data["wasOverwritten"]) == (False, True)
    assert Path(path).read_text() == "new\n"
    backup = Path(done.data["backupPath"])
    assert backup.parent == tmp_path / ".claude-backups"
    assert BACKUP_NAME.match(backup.name) and BACKUP_NAME.match(backup.name)["name"] == "f.txt"
    assert backup.read_text() == "old\n"


def test_write_refuses_a_file_changed_since_it_was_read(tools: Toolset, tmp_path: Path) -> None:
    path = put(tmp_path / "f.txt", "v1\n")
    tools.call("Read", {"file_path": path})
    Path(path).write_text("v2 from someone else\n")
    refused = tools.call("Write", {"file_path": path, "content": "mine\n"})
    assert (  # enforceReadBeforeWrite compares the hash read with the file's
        refused.text
        == f"You must read the file before writing to it. Use the Read tool first: {path}"
    )
    assert refused.data["code"] == "UNKNOWN_ERROR"
    assert refused.data["conflict"]["message"] == f"File {path} was modified externally"
    assert Path(path).read_text() == "v2 from someone else\n"
    tools.call("Read", {"file_path": path})
    assert tools.call("Write", {"file_path": path, "content": "mine\n"}).ok


def test_write_keeps_the_last_10_backups(tools: Toolset, tmp_path: Path) -> None:
    path = put(tmp_path / "f.txt", "v0\n")
    tools.call("Read", {"file_path": path})
    for i in range(1, 13):
        time.sleep(0.002)  # backup names carry milliseconds
        assert tools.call("Write", {"file_path": path, "content": f"v{i}\n"}).ok
    backups = sorted(b for b in (tmp_path / ".claude-backups").iterdir() if b.name != ".gitignore")
    assert len(backups) == 10
    assert all(BACKUP_NAME.match(b.name) for b in backups)
    assert [b.read_text() for b in backups] == [f"v{i}\n" for i in range(2, 12)]


def test_write_without_backup(tools: Toolset, tmp_path: Path) -> None:
    path = put(tmp_path / "f.txt", "old\n")
    tools.call("Read", {"file_path": path})
    result = tools.call("Write", {"file_path": path, "content": "new\n", "create_backup": False})
    assert result.ok and result.data["backupPath"] is None
    assert not (tmp_path / ".claude-backups").exists()


@pytest.mark.parametrize(
    "rel",
    [
        ".env",
        ".env.local",
        ".ENV",
        "app/.env",
        "node_modules/pkg/index.js",
        ".git/config",
        "package-lock.json",
        "web/yarn.lock",
        "pnpm-lock.yaml",
    ],
)
def test_write_refuses_protected_files(tools: Toolset, tmp_path: Path, rel: str) -> None:
    path = str(tmp_path / rel)
    result = tools.call("Write", {"file_path": path, "content": "x"})
    assert (result.ok, result.text, result.data["code"]) == (
        False,
        f"Cannot modify protected file: {path}",
        "UNKNOWN_ERROR",
    )
    assert not Path(path).exists()


def test_backups_are_read_only_for_the_agent(tools: Toolset, tmp_path: Path) -> None:
    path = put(tmp_path / "f.txt", "old\n")
    tools.call("Read", {"file_path": path})
    backup = tools.call("Write", {"file_path": path, "content": "new\n"}).data["backupPath"]
    assert tools.call("Read", {"file_path": backup}).text == "1\told"
    tools.call("Read", {"file_path": backup})
    refused = tools.call("Write", {"file_path": backup, "content": "tampered"})
    assert refused.text == f"Cannot modify protected file: {backup}"


def test_write_content_limit_and_encoding(ws: Workspace, tools: Toolset, tmp_path: Path) -> None:
    path = str(tmp_path / "f.txt")
    too_big = "x" * (10 * 1024 * 1024 + 1)
    assert tools.call("Write", {"file_path": path, "content": too_big}).text == (
        "Content too large: 10485761 bytes (max: 10485760 bytes)"
    )
    small = ws.toolset("claude", max_content_bytes=10)
    result = small.call("Write", {"file_path": path, "content": "é" * 6})
    assert (result.text, result.data["code"]) == (
        "Content too large: 12 bytes (max: 10 bytes)",
        "UNKNOWN_ERROR",
    )
    for bad in ("klingon", "latin-1", "gbk", "utf\x00"):  # not Node Buffer encodings
        assert (
            tools.call("Write", {"file_path": path, "content": "x", "encoding": bad}).text
            == f"Invalid encoding: {bad}"
        )
    assert not Path(path).exists()
    latin = tools.call("Write", {"file_path": path, "content": "café\n", "encoding": "latin1"})
    assert latin.ok and Path(path).read_bytes() == "café\n".encode("latin-1")
    assert latin.data["bytesWritten"] == 5


def test_write_validation(tools: Toolset, tmp_path: Path) -> None:
    assert (
        tools.call("Write", {"file_path": "rel.txt", "content": "x"}).text
        == "file_path must be an absolute path"
    )
    assert tools.call("Write", {"file_path": str(tmp_path / "a")}).text == "content is required"
    outside = tools.call("Write", {"file_path": "/etc/filewright-test", "content": "x"})
    assert outside.text == "Access denied: file is outside allowed directories"
    dotdot = tools.call("Write", {"file_path": "/tmp/../etc/filewright-test", "content": "x"})
    assert dotdot.text == "Path traversal detected"  # the seed's PathValidator


# -- Edit ------------------------------------------------------------------------------------


def read_then(tools: Toolset, path: str) -> None:
    assert tools.call("Read", {"file_path": path}).ok


def test_edit_requires_a_read(tools: Toolset, tmp_path: Path) -> None:
    path = put(tmp_path / "a.py", "x = 1\n")
    args = {"file_path": path, "old_string": "x = 1", "new_string": "x = 2"}
    refused = tools.call("Edit", args)
    assert (
        refused.text
        == f"You must read the file before writing to it. Use the Read tool first: {path}"
    )
    assert Path(path).read_text() == "x = 1\n"
    read_then(tools, path)
    assert tools.call("Edit", args).ok
    assert Path(path).read_text() == "x = 2\n"


def test_edit_success_message_preview_and_backup(tools: Toolset, tmp_path: Path) -> None:
    path = put(tmp_path / "a.py", "a\nb\nc\nd\ne\nf\ng\n")
    read_then(tools, path)
    result = tools.call("Edit", {"file_path": path, "old_string": "d", "new_string": "D"})
    assert result.ok and result.text == f"Successfully replaced 1 occurrence(s) in {path}"
    assert result.data["replacements"] == 1 and result.data["strategy"] == "exact"
    assert result.data["preview"] == {
        "before": "  a\n  b\n  c\n- d\n  e\n  f\n  g",
        "after": "  a\n  b\n  c\n+ D\n  e\n  f\n  g",
    }
    assert "-d\n+D\n" in result.data["diff"]
    assert Path(result.data["backupPath"]).read_text() == "a\nb\nc\nd\ne\nf\ng\n"
    read_then(tools, path)
    last = tools.call("Edit", {"file_path": path, "old_string": "g", "new_string": "G"})
    assert last.data["preview"] == {"before": "  D\n  e\n  f\n- g", "after": "  D\n  e\n  f\n+ G"}


def test_edit_replace_all(tools: Toolset, tmp_path: Path) -> None:
    path = put(tmp_path / "a.js", "var a;\nvar b;\nvar c;\n")
    read_then(tools, path)
    result = tools.call(
        "Edit",
        {"file_path": path, "old_string": "var ", "new_string": "const ", "replace_all": True},
    )
    assert result.text == f"Successfully replaced 3 occurrence(s) in {path}"
    assert Path(path).read_text() == "const a;\nconst b;\nconst c;\n"


def test_edit_validation(tools: Toolset, tmp_path: Path) -> None:
    path = put(tmp_path / "a.txt", "a\n")
    read_then(tools, path)
    assert tools.call("Edit", {"file_path": path, "old_string": "a", "new_string": "a"}).text == (
        "old_string and new_string must be different"
    )
    assert (
        tools.call("Edit", {"file_path": path, "old_string": "", "new_string": "b"}).text
        == "old_string cannot be empty"
    )
    assert (
        tools.call("Edit", {"file_path": path, "new_string": "b"}).text == "old_string is required"
    )
    assert tools.call(
        "Edit", {"file_path": "a.txt", "old_string": "a", "new_string": "b"}
    ).text == ("file_path must be an absolute path")
    missing = str(tmp_path / "missing.txt")
    assert tools.call(
        "Edit", {"file_path": missing, "old_string": "a", "new_string": "b"}
    ).text == (f"File not found: {missing}")


def test_edit_multiple_matches(tools: Toolset, tmp_path: Path) -> None:
    path = put(tmp_path / "a.py", "def f():\n    return 1\n\ndef g():\n    return 1\n")
    read_then(tools, path)
    result = tools.call(
        "Edit", {"file_path": path, "old_string": "return 1", "new_string": "return 2"}
    )
    assert not result.ok
    assert result.text == (
        "Found 2 occurrences of the string. Either provide more context to make it unique, or use replace_all: true\n"
        "Locations:\n"  # the seed's details.locations, each context line with its number
        "- line 2, column 5:\n"
        "    1: def f():\n"
        "    2:     return 1\n"
        "    3: \n"
        "    4: def g():\n"
        "- line 5, column 5:\n"
        "    3: \n"
        "    4: def g():\n"
        "    5:     return 1\n"
        "    6: \n"
        "Suggestions:\n"
        "- Provide more surrounding context in old_string to make it unique\n"
        "- Use replace_all: true to replace all occurrences\n"
        "- Specify the exact line number range using Read tool with offset/limit"
    )
    assert result.data["code"] == "MULTIPLE_MATCHES"
    assert result.data["details"]["locations"] == [  # findAllLocations: no number prefixes
        {"line": 2, "column": 5, "context": "def f():\n    return 1\n\ndef g():"},
        {"line": 5, "column": 5, "context": "\ndef g():\n    return 1\n"},
    ]
    assert result.data["suggestions"][1] == "Use replace_all: true to replace all occurrences"


def test_edit_not_found_suggestions(tools: Toolset, tmp_path: Path) -> None:
    path = put(tmp_path / "a.py", "x = call(a,\n         b)\nprint('hello world')\n")
    read_then(tools, path)
    spaced = tools.call(
        "Edit", {"file_path": path, "old_string": "call(a, b)", "new_string": "call(b, a)"}
    )
    assert spaced.data["code"] == "STRING_NOT_FOUND"
    assert spaced.text.startswith(
        f"The string to replace was not found in {path}\nSuggestions:\n"
        "- The string exists but with different whitespace. Check spaces, tabs, and line endings."
    )
    case = tools.call(
        "Edit", {"file_path": path, "old_string": "print('HELLO world')", "new_string": "x"}
    )
    assert case.text == (
        f"The string to replace was not found in {path}\n"
        "Suggestions:\n"
        "- Some parts of the string exist in the file. Found: world')\n"
        "- The string exists but with different case. Check capitalization.\n"
        # after the seed's text: filewright's closest real text, with its line number
        "The most similar text in the file is at line 3 (differs: case):\n"
        "3\tprint('hello world')"
    )
    assert case.data["closest"][0]["start_line"] == 3
    partial = tools.call(
        "Edit", {"file_path": path, "old_string": "call zebra print", "new_string": "x"}
    )
    assert "- Some parts of the string exist in the file. Found: call, print" in partial.text.split(
        "\n"
    )


def test_edit_recovery_ladder_lands_misindented_old_string(tools: Toolset, tmp_path: Path) -> None:
    path = put(tmp_path / "a.py", "class A:\n    def f(self):\n        return 1\n")
    read_then(tools, path)
    result = tools.call(
        "Edit",
        {
            "file_path": path,
            "old_string": "def f(self):\n    return 1",
            "new_string": "def f(self):\n    return 2",
        },
    )
    assert result.ok
    assert result.data["strategy"] == "indentation"
    assert result.text == f"Successfully replaced 1 occurrence(s) in {path}"
    assert Path(path).read_text() == "class A:\n    def f(self):\n        return 2\n"


def test_edit_no_change(tools: Toolset, tmp_path: Path) -> None:
    path = put(tmp_path / "a.py", "x = 1\n")
    read_then(tools, path)
    result = tools.call("Edit", {"file_path": path, "old_string": "x = 1 ", "new_string": "x = 1"})
    assert (result.ok, result.text, result.data["code"]) == (
        False,
        "new_string must be different from old_string",
        "NO_CHANGE",
    )


@pytest.mark.parametrize("watch", [False, True])
def test_edit_of_an_externally_modified_file_is_refused(tmp_path: Path, watch: bool) -> None:
    with Workspace(tmp_path, watch=watch) as ws:
        tools = ws.toolset("claude")
        path = put(tmp_path / "a.py", "x = 1\ny = 2\n")
        read_then(tools, path)
        Path(path).write_text("x = 1\ny = 3\n")
        args = {"file_path": path, "old_string": "x = 1", "new_string": "x = 10"}
        refused = tools.call("Edit", args)
        assert (  # Edit passes on its Write's refusal: the hash read differs from the file's
            refused.text
            == f"You must read the file before writing to it. Use the Read tool first: {path}"
        )
        assert refused.data["code"] == "UNKNOWN_ERROR"
        assert refused.data["conflict"] == {
            "type": "external_modification",
            "message": f"File {path} was modified externally",
            "suggestion": "Re-read the file before making changes",
        }
        assert Path(path).read_text() == "x = 1\ny = 3\n"
        read_then(tools, path)
        assert tools.call("Edit", args).ok
        assert Path(path).read_text() == "x = 10\ny = 3\n"


def test_the_watcher_names_files_changed_since_they_were_read(tmp_path: Path) -> None:
    with Workspace(tmp_path, watch=True) as ws:
        tools = ws.toolset("claude")
        a = put(tmp_path / "a.py", "a = 1\n")
        b = put(tmp_path / "b.py", "b = 1\n")
        read_then(tools, a)
        read_then(tools, b)
        Path(b).write_text("b = 2\n")
        deadline = time.monotonic() + 10
        result = tools.call("Read", {"file_path": a})
        while "externallyModified" not in result.data and time.monotonic() < deadline:
            time.sleep(0.05)
            result = tools.call("Read", {"file_path": a})
        assert result.text == "1\ta = 1"  # the seed's text; the news is in data
        assert result.data["externallyModified"] == [os.path.realpath(b)]
        assert result.data["conflicts"][0]["message"] == (
            f"File {os.path.realpath(b)} was modified externally"
        )
        again = tools.call("Read", {"file_path": a})
        assert "externallyModified" not in again.data, "each change is named once"


def test_stale_wins_over_not_found(tools: Toolset, tmp_path: Path) -> None:
    path = put(tmp_path / "a.py", "x = 1\n")
    read_then(tools, path)
    Path(path).write_text("z = 1\n")
    refused = tools.call("Edit", {"file_path": path, "old_string": "x = 1", "new_string": "x = 2"})
    assert refused.data["error"] == "stale"


def test_edit_file_size_limit(tmp_path: Path) -> None:
    # Above the edit limit: streamed (replace_all replaces every match); above the
    # workspace's one change limit: refused in the seed's words, before and after a Read.
    ws = Workspace(tmp_path, max_change_bytes=150)
    tools = ws.toolset("claude", max_edit_bytes=50)
    path = put(tmp_path / "a.txt", "x" * 99 + "\n")
    read_then(tools, path)
    args = {"file_path": path, "old_string": "xx", "new_string": "y", "replace_all": True}
    assert tools.call("Edit", args).ok
    assert Path(path).read_text() == "y" * 49 + "x\n"
    big = put(tmp_path / "b.txt", "x" * 199 + "\n")
    args["file_path"] = big
    for _ in range(2):
        result = tools.call("Edit", args)
        assert (result.text, result.data["code"]) == (
            "File too large: 200 bytes (max: 150 bytes)",
            "EDIT_ERROR",
        )
        read_then(tools, big)
    assert Path(big).read_text() == "x" * 199 + "\n"


def test_a_file_above_the_edit_limit_is_edited_streamed_with_edits_verdicts(
    ws: Workspace, tmp_path: Path
) -> None:
    # Above the seed's 10 MB limit the edit streams (its ChunkedEditor), after a Read, with
    # Edit's own verdicts: countOccurrences > 1 is MULTIPLE_MATCHES (issue 29), as on a
    # small file; one match is replaced.
    tools = ws.toolset("claude", max_edit_bytes=50)
    path = put(tmp_path / "a.txt", "x" * 99 + "\n")
    args = {"file_path": path, "old_string": "x", "new_string": "y"}
    assert tools.call("Edit", args).data["error"] == "not_read"
    read_then(tools, path)
    result = tools.call("Edit", args)
    assert not result.ok and result.data["code"] == "MULTIPLE_MATCHES", result.text
    assert result.data["details"]["occurrences"] == 99
    assert Path(path).read_text() == "x" * 99 + "\n"
    args["old_string"] = "x\n"
    result = tools.call("Edit", {**args, "new_string": "y\n"})
    assert result.ok, result.text
    assert result.text == (
        f"Successfully replaced 1 occurrence(s) in {path}\n" + result.data["streamed_note"]
    )
    assert "edited in streaming mode" in result.data["streamed_note"]
    assert result.data["streamed"] is True
    assert Path(path).read_text() == "x" * 98 + "y\n"


def test_edit_protected_file(tools: Toolset, tmp_path: Path) -> None:
    path = put(tmp_path / "node_modules" / "m" / "index.js", "a\n")
    read_then(tools, path)
    result = tools.call("Edit", {"file_path": path, "old_string": "a", "new_string": "b"})
    assert result.text == f"Cannot modify protected file: {path}"


def _edit_concurrently(tools: Toolset, path: str) -> list[Any]:
    results = []

    def edit(i: int) -> None:
        results.append(
            tools.call(
                "Edit", {"file_path": path, "old_string": f"slot{i}\n", "new_string": f"done{i}\n"}
            )
        )

    threads = [threading.Thread(target=edit, args=(i,)) for i in range(16)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return results


def test_concurrent_edits_are_refused_at_once_with_the_seeds_words(
    tools: Toolset, tmp_path: Path
) -> None:
    """ConflictDetector: `Concurrent ${op} operation detected on ${path}`; nothing is lost."""
    path = put(tmp_path / "a.txt", "".join(f"slot{i}\n" for i in range(16)))
    read_then(tools, path)
    results = _edit_concurrently(tools, path)
    refused = [r for r in results if not r.ok]
    assert {r.text for r in refused} <= {f"Concurrent edit operation detected on {path}"}
    assert all(r.data["suggestion"] == "Wait for other operations to complete" for r in refused)
    done = {int(r.data["diff"].split("+done")[1].split("\n")[0]) for r in results if r.ok}
    text = Path(path).read_text()
    assert text == "".join(f"done{i}\n" if i in done else f"slot{i}\n" for i in range(16))


def test_concurrent_edits_wait_for_each_other_with_lock_wait(ws: Workspace, tmp_path: Path) -> None:
    tools = ws.toolset("claude", lock_wait=60)
    path = put(tmp_path / "a.txt", "".join(f"slot{i}\n" for i in range(16)))
    read_then(tools, path)
    results = _edit_concurrently(tools, path)
    assert all(r.ok for r in results), [r.text for r in results if not r.ok]
    assert Path(path).read_text() == "".join(f"done{i}\n" for i in range(16))


# -- MultiEdit -------------------------------------------------------------------------------


def test_multi_edit_applies_edits_in_order(tools: Toolset, tmp_path: Path) -> None:
    path = put(tmp_path / "a.py", "alpha = 1\nbeta = 2\n")
    read_then(tools, path)
    result = tools.call(
        "MultiEdit",
        {
            "file_path": path,
            "edits": [
                {"old_string": "alpha = 1", "new_string": "gamma = 1"},
                {"old_string": "gamma = 1\nbeta", "new_string": "gamma = 1\ndelta"},
                {"old_string": " = ", "new_string": ": int = ", "replace_all": True},
            ],
        },
    )
    assert result.ok
    assert result.text == f"Successfully applied 3 edit(s) to {path} (4 occurrence(s) replaced)"
    assert result.data["strategies"] == ["exact", "exact", "exact"]
    assert Path(path).read_text() == "gamma: int = 1\ndelta: int = 2\n"


def test_multi_edit_is_all_or_nothing(tools: Toolset, tmp_path: Path) -> None:
    original = "one\ntwo\nthree\n"
    path = put(tmp_path / "a.txt", original)
    read_then(tools, path)
    result = tools.call(
        "MultiEdit",
        {
            "file_path": path,
            "edits": [
                {"old_string": "one", "new_string": "1"},
                {"old_string": "zebra", "new_string": "2"},
                {"old_string": "three", "new_string": "3"},
            ],
        },
    )
    assert not result.ok
    assert result.text.startswith(
        f"Edit 2 of 3 failed; no changes were made to {path}.\nThe string to replace was not found in {path}"
    )
    assert result.data["edit_index"] == 1 and result.data["code"] == "STRING_NOT_FOUND"
    assert Path(path).read_text() == original
    assert not (tmp_path / ".claude-backups").exists()


def test_multi_edit_validation(tools: Toolset, tmp_path: Path) -> None:
    path = put(tmp_path / "a.txt", "a\n")
    read_then(tools, path)
    assert (
        tools.call("MultiEdit", {"file_path": path, "edits": []}).text
        == "edits must contain at least one edit"
    )
    same = tools.call(
        "MultiEdit",
        {
            "file_path": path,
            "edits": [
                {"old_string": "a", "new_string": "b"},
                {"old_string": "b", "new_string": "c"},
                {"old_string": "c", "new_string": "c"},
            ],
        },
    )
    assert same.text == "Edit 3 of 3: old_string and new_string must be different"
    ambiguous = tools.call(
        "MultiEdit",
        {
            "file_path": path,
            "edits": [
                {"old_string": "a", "new_string": "b b"},
                {"old_string": "b", "new_string": "c"},
            ],
        },
    )
    assert ambiguous.text.startswith(
        f"Edit 2 of 2 failed; no changes were made to {path}.\nFound 2 occurrences"
    )
    assert Path(path).read_text() == "a\n"


def test_multi_edit_requires_a_read(tools: Toolset, tmp_path: Path) -> None:
    path = put(tmp_path / "a.txt", "a\n")
    result = tools.call(
        "MultiEdit", {"file_path": path, "edits": [{"old_string": "a", "new_string": "b"}]}
    )
    assert result.data["code"] == "UNKNOWN_ERROR"  # Write's enforceReadBeforeWrite
    assert result.data["error"] == "not_read"


# -- flows and definitions -------------------------------------------------------------------


def test_a_written_file_can_be_edited_without_reading_it(tools: Toolset, tmp_path: Path) -> None:
    path = str(tmp_path / "new.py")
    assert tools.call("Write", {"file_path": path, "content": "x = 1\n"}).ok
    assert tools.call("Edit", {"file_path": path, "old_string": "x = 1", "new_string": "x = 2"}).ok


def test_definitions(tools: Toolset) -> None:
    defs = {d["name"]: d for d in tools.definitions("anthropic")}
    assert list(defs) == ["Read", "Write", "Edit", "MultiEdit"]
    read = defs["Read"]["input_schema"]
    assert read["required"] == ["file_path"]
    assert read["properties"]["offset"] == {
        **read["properties"]["offset"],
        "type": "integer",
        "minimum": 1,
    }
    multi = defs["MultiEdit"]["input_schema"]["properties"]["edits"]
    assert multi["type"] == "array"
    assert set(multi["items"]["properties"]) == {"old_string", "new_string", "replace_all"}


def test_backup_of_a_file_with_a_very_long_name(tmp_path: Path) -> None:
    """A backup name would pass the 255-byte limit: it is shortened, with a hash."""
    long_name = "é" * 110 + ".txt"  # 224 bytes
    target = tmp_path / long_name
    target.write_text("v0\n")
    tools = Workspace(tmp_path).toolset("claude")
    assert tools.call("Read", {"file_path": str(target)}).ok
    for i in range(12):
        assert tools.call("Write", {"file_path": str(target), "content": f"v{i + 1}\n"}).ok
    backups = sorted(b for b in (tmp_path / ".claude-backups").iterdir() if b.name != ".gitignore")
    assert len(backups) == 10
    assert all(len(p.name.encode()) <= 255 for p in backups)
    assert {p.read_text() for p in backups} == {f"v{i}\n" for i in range(2, 12)}


@pytest.mark.parametrize("planted", ["symlink", "file"])
def test_a_planted_backup_directory_is_named_in_the_refusal(
    tools: Toolset, tmp_path: Path, planted: str
) -> None:
    """A repository may ship `.claude-backups` as a link to somewhere else (or as a file):
    the change is refused with a message that says why, and nothing is written anywhere."""
    outside = tmp_path.parent / f"{tmp_path.name}-outside"
    outside.mkdir()
    target = put(tmp_path / "a.txt", "hello\n")
    if planted == "symlink":
        (tmp_path / ".claude-backups").symlink_to(outside)
    else:
        (tmp_path / ".claude-backups").write_text("not a directory\n", encoding="utf-8")
    assert tools.call("Read", {"file_path": target}).ok
    for tool, args in [
        ("Write", {"file_path": target, "content": "new\n"}),
        ("Edit", {"file_path": target, "old_string": "hello", "new_string": "bye"}),
    ]:
        result = tools.call(tool, args)
        assert not result.ok
        assert ".claude-backups next to the file is" in result.text, result.text
        assert "Concurrent" not in result.text
    assert (tmp_path / "a.txt").read_text(encoding="utf-8") == "hello\n"
    assert list(outside.iterdir()) == []
    no_backup = tools.call(
        "Write", {"file_path": target, "content": "new\n", "create_backup": False}
    )
    assert no_backup.ok, no_backup.text
