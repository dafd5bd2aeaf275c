"""Omission placeholders (issue 25): the detector, and the toolsets without the ladder.

The ladder toolsets (default, gemini, claude, text_editor, companion) are covered in
tests/test_edit_carry.py; here the worker's literal replace and whole-file write, and the
memo's literal and span replaces.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from filewright import Workspace
from filewright.edit import edits
from filewright.edit.placeholders import is_placeholder, omission_placeholders

PLACEHOLDERS = [
    "// rest of methods ...",
    "(rest of methods ...)",
    "# ... existing code ...",
    "/* ... unchanged code ... */",
    "<!-- ... rest of file -->",
    "// ... other methods ...",
    "    // ...existing code...",
    "# rest of the file unchanged...",
    "// \u2026 rest of code",
    "{/* ... existing code ... */}",
    "-- ... rest of query ...",
    "// ... existing code here ...",
    "    # ... remaining tests ...",
]
NOT_PLACEHOLDERS = [
    "...",
    "    ...",
    "# ...",
    "x = ...",
    "// see the rest of the docs",
    'print("rest of ...")',
    "foo(...rest)",
    "return ...",
    "const {a, ...rest} = obj;",
    '"""..."""',
    "// TODO: rest of",
    "# Other options: a, b, c...",
    "# other options...",
    "def f(*args, **kwargs): ...",
]


@pytest.mark.parametrize("line", PLACEHOLDERS)
def test_placeholders_are_detected(line: str) -> None:
    assert is_placeholder(line)


@pytest.mark.parametrize("line", NOT_PLACEHOLDERS)
def test_code_with_ellipses_is_not_a_placeholder(line: str) -> None:
    assert not is_placeholder(line)


def test_a_placeholder_the_replaced_text_has_is_not_an_omission() -> None:
    new = "a()\n  // rest of methods ...\nb()"
    assert omission_placeholders(new, "x\n// rest of methods ...") == []
    assert omission_placeholders(new, "x") == ["// rest of methods ..."]


def test_replace_refuses_and_the_file_text_counts() -> None:
    text = "class A {\n  run() {}\n  stop() {}\n}\n"
    r = edits.replace(
        text, "  run() {}\n  stop() {}\n", "  run() { go() }\n  // rest of methods ...\n"
    )
    assert isinstance(r, edits.EditFailure) and r.code == "placeholder"
    assert r.detail["placeholder"] == "// rest of methods ..."
    had = "def f():\n    # ... existing code ...\n    return 1\n"
    r = edits.replace(had, "    return 1\n", "    # ... existing code ...\n    return 2\n")
    assert isinstance(r, edits.Edited)


SERVICE = "class S {\n  start() {\n    go();\n  }\n  stop() {\n    halt();\n  }\n}\n"
OLD = "  start() {\n    go();\n  }\n  stop() {\n    halt();\n  }\n"
NEW = "  start() {\n    go2();\n  }\n  // rest of methods ...\n"


def test_worker_replace_and_write_refuse_placeholders(tmp_path: Path) -> None:
    (tmp_path / "s.ts").write_text(SERVICE)
    t = Workspace(str(tmp_path)).toolset("worker")
    r = t.call("replace_in_file", {"path": "s.ts", "old": OLD, "new": NEW})
    assert not r.ok and "// rest of methods ..." in r.text and r.data["error"] == "placeholder"
    r = t.call(
        "write_file", {"path": "s.ts", "content": "class S {\n  // rest of methods ...\n}\n"}
    )
    assert not r.ok and "omission placeholder" in r.text
    assert (tmp_path / "s.ts").read_text() == SERVICE


def test_memo_replaces_refuse_placeholders(tmp_path: Path) -> None:
    memory = "# 记忆\n## 项目\n项目状态：进行中\n要点一。\n要点二。\n## 其他\n无。\n"
    (tmp_path / "MEMORY.md").write_text(memory)
    t = Workspace(str(tmp_path)).toolset("memo")
    r = t.call(
        "memo_replace_literal",
        {
            "old_text": "要点一。\n要点二。\n",
            "new_text": "要点一（已更新）。\n// rest of items ...\n",
        },
    )
    assert not r.ok and r.text.startswith("Error: new_text 含有省略占位符「// rest of items ...」")
    r = t.call(
        "memo_replace_span",
        {
            "old_span_start": "## 项目",
            "old_span_end": "## 其他",
            "new_text": "## 项目\n# ... existing content ...\n",
        },
    )
    assert not r.ok and "省略占位符" in r.text
    assert (tmp_path / "MEMORY.md").read_text() == memory
