"""Recoveries where exactly one place fits (issue 29): elision lines, flattened
indentation, spacing around punctuation, and the same characters in another spelling.

Each is checked as a pure edit and through every toolset whose edit uses the ladder
(default edit and multi_edit, gemini replace, claude Edit, text_editor str_replace,
companion edit, mcpfs edit_file). Lines the model did not change are written as the file
has them; where two places fit, the edit is refused, both are listed and nothing is
written.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from test_edit_carry import LADDER_TOOLSETS, _agent

from filewright import Workspace
from filewright.core.result import Result
from filewright.edit import edits

PY = (
    "class A:\n    def a(self):\n        return 1\n\n    def b(self):\n        return 2\n\n"
    "    def c(self):\n        return 3\n"
)
JS = "function  myFunc( a, b ) {\n  return a;\n}\n\nfunction other() {}\n"

# name: (file, text, old, new, the file after)
CASES: dict[str, tuple[str, str, str, str, str]] = {
    "elision_dots": (
        "m.py",
        PY,
        "    def a(self):\n        return 1\n    ...\n    def c(self):\n        return 3\n",
        "    def a(self):\n        return 10\n    ...\n    def c(self):\n        return 30\n",
        PY.replace("return 1", "return 10").replace("return 3", "return 30"),
    ),
    "elision_comment": (
        "m.js",
        "function f() {\n  const a = 1;\n  const b = 2;\n  const c = 3;\n  return a;\n}\n",
        "function f() {\n  // ... existing code ...\n  return a;\n}\n",
        "function f() {\n  // ... existing code ...\n  return a + b + c;\n}\n",
        "function f() {\n  const a = 1;\n  const b = 2;\n  const c = 3;\n  return a + b + c;\n}\n",
    ),
    "flattened": (
        "m.py",
        "def f():\n  hello\n    world\n  done\n",
        "hello\nworld\n",
        "hello\nworld2\n",
        "def f():\n  hello\n    world2\n  done\n",
    ),
    "flattened_insert": (
        "m.py",
        "def f():\n  hello\n    world\n  done\n",
        "hello\nworld\n",
        "hello\nworld\nagain\n",
        "def f():\n  hello\n    world\n    again\n  done\n",
    ),
    "spacing": (
        "m.js",
        JS,
        "function myFunc(a, b) {\n  return a;\n",
        "function myFunc(a, b) {\n  return a + b;\n",
        JS.replace("return a;", "return a + b;"),
    ),
    "normal_form": (
        "m.txt",
        "name = 'Jose\u0301'\nnext line\n",
        "name = 'Jos\u00e9'\nnext line\n",
        "name = 'Jos\u00e9'\nchanged line\n",
        "name = 'Jose\u0301'\nchanged line\n",
    ),
    "escape": (
        "m.py",
        "s = '\u2014 caf\u00e9'\nt = 1\n",
        "s = '\\u2014 caf\\u00e9'\nt = 1\n",
        "s = '\\u2014 caf\\u00e9'\nt = 2\n",
        "s = '\u2014 caf\u00e9'\nt = 2\n",
    ),
    "stand_in": (
        "m.md",
        "- a \u2192 b\n- c \u2264 d\n",
        "- a -> b\n- c <= d\n",
        "- a -> b\n- c <= e\n",
        "- a \u2192 b\n- c \u2264 e\n",
    ),
}

# name: (text, old, new): two places fit
AMBIGUOUS: dict[str, tuple[str, str, str]] = {
    "elision": (
        "def a():\n    x = 1\n    y = 2\n    return x\n\ndef b():\n    x = 1\n    return x\n",
        "    x = 1\n    ...\n    return x\n",
        "    x = 5\n    ...\n    return x\n",
    ),
    "flattened": (
        "  a\n    b\nx\n  a\n      b\n",
        "a\nb\n",
        "a\nc\n",
    ),
    "spacing": (
        "f( a )\ny\nf (a)\n",
        "f(a)\n",
        "g(a)\n",
    ),
    "spelling": (
        "v = 'Jose\u0301'\nw = 'Jos\\u00e9'\n",
        "= 'Jos\u00e9'",
        "= 'Joe'",
    ),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_pure_edit_recovers(case: str) -> None:
    _name, text, old, new, want = CASES[case]
    result = edits.replace(text, old, new)
    assert isinstance(result, edits.Edited), result
    assert result.text == want


@pytest.mark.parametrize("case", sorted(AMBIGUOUS))
def test_two_fitting_places_are_refused_and_both_listed(case: str) -> None:
    text, old, new = AMBIGUOUS[case]
    result = edits.replace(text, old, new)
    assert isinstance(result, edits.EditFailure), result
    assert result.code == "ambiguous", result
    assert result.detail["count"] == 2 and len(result.detail["locations"]) == 2


def _through(toolset: str, root: Path, name: str, text: str, old: str, new: str) -> Result:
    (root / name).write_bytes(text.encode())
    if toolset == "mcpfs":
        return (
            Workspace(str(root))
            .toolset("mcpfs")
            .call(
                "edit_file", {"path": str(root / name), "edits": [{"oldText": old, "newText": new}]}
            )
        )
    agent = _agent(toolset, root)
    assert agent.read(name).ok
    return agent.edit(name, old, new)


@pytest.mark.parametrize("toolset", [*LADDER_TOOLSETS, "mcpfs"])
@pytest.mark.parametrize("case", sorted(CASES))
def test_every_ladder_toolset_recovers(tmp_path: Path, toolset: str, case: str) -> None:
    name, text, old, new, want = CASES[case]
    result = _through(toolset, tmp_path, name, text, old, new)
    assert result.ok, result.text
    assert (tmp_path / name).read_bytes().decode() == want


@pytest.mark.parametrize("toolset", [*LADDER_TOOLSETS, "mcpfs"])
@pytest.mark.parametrize("case", sorted(AMBIGUOUS))
def test_every_ladder_toolset_refuses_two_fitting_places(
    tmp_path: Path, toolset: str, case: str
) -> None:
    text, old, new = AMBIGUOUS[case]
    result = _through(toolset, tmp_path, "m.txt", text, old, new)
    assert not result.ok, result.text
    assert (tmp_path / "m.txt").read_bytes().decode() == text


def test_escapes_of_ascii_characters_are_the_files_own_text() -> None:
    # an entity for a line break or a carriage return is no other spelling of a character
    # the line has (editbench found `&#xD;` matching `&#x0d;&#10;` across a line break)
    text = "<doc>\n   <text>First line&#x0d;&#10;Second line</text>\n</doc>\n"
    old = "   <text>First line&#xD;\nSecond line</text>\n"
    result = edits.replace(text, old, old.replace("Second", "2nd"))
    assert isinstance(result, edits.EditFailure) and result.code == "no_match", result


def test_new_reindenting_kept_lines_by_different_amounts_is_refused() -> None:
    # editbench new:reindent (botocore's _retry.json, tabs and spaces mixed): new dedented
    # every line by three characters, which is no one shift in columns; the kept lines
    # were written as sent (re-indented) -- now refused, the file untouched
    text = (
        '{\n  "a": {\n\t\t"x": 1\n\t      }\n\t    },\n          "crc": {\n            "b": 2\n}\n'
    )
    old = '\t      }\n\t    },\n          "crc": {\n            "b": 2'
    new = '    }\n  },\n       "crc": {\n         "b": 3'
    out = edits.replace(text, old, new)
    assert isinstance(out, edits.EditFailure), out
