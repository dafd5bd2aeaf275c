"""Gemini CLI's `calculateReplacement` cases (packages/core/src/tools/edit.test.ts),
ported as facts: the file, old_string, new_string and what Gemini CLI writes; filewright
writes the same, or a deliberate difference (docs/editing.md, "Differences from Gemini
CLI's calculateReplacement") that is asserted here with its reason.

Run through the pure edit (`edits.replace`) and, for the cases Gemini applies, through
the gemini toolset's `replace` on a real file.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from filewright import Workspace
from filewright.edit import edits

FUNC = "  function  myFunc( a, b ) {\n    return a + b;\n  }"
CONFIG = "const myConfig = {\n  enableFeature: true,\n  retries: 3\n};"
DOIT = '\nfunction doIt() {\n  console.log("hello");\n}\n\nfunction doIt() {\n  console.log("hello");\n}\n'

# name: (content, old, new, what Gemini CLI writes, what filewright writes; None: refused)
CASES: dict[str, tuple[str, str, str, str | None, str | None]] = {
    "exact": ("hello world", "world", "moon", "hello moon", "hello moon"),
    # DIFFERS: Gemini gives every line the first line's indentation; filewright gives a
    # changed line the indentation of the file line it replaces
    "flexible_whitespace_insensitive": (
        "  hello\n    world\n",
        "hello\nworld",
        "goodbye\nmoon",
        "  goodbye\n  moon\n",
        "  goodbye\n    moon\n",
    ),
    "no_match": ("hello world", "nomatch", "moon", None, None),
    "regex_intra_line_whitespace": (
        FUNC,
        "function myFunc(a, b) {",
        "const yourFunc = (a, b) => {",
        "  const yourFunc = (a, b) => {\n    return a + b;\n  }",
        "  const yourFunc = (a, b) => {\n    return a + b;\n  }",
    ),
    # DIFFERS: a near miss found by similarity (a missing comma) is refused with the real
    # text: similarity finds a likely place, it does not prove it is the one meant
    "fuzzy_missing_comma": (
        CONFIG,
        "const myConfig = {\n  enableFeature: true\n  retries: 3\n};",
        "const myConfig = {\n  enableFeature: false,\n  retries: 5\n};",
        "const myConfig = {\n  enableFeature: false,\n  retries: 5\n};",
        None,
    ),
    "fuzzy_below_threshold": (
        CONFIG,
        "function somethingElse() {\n  return false;\n}",
        "x",
        None,
        None,
    ),
    "fuzzy_too_complex": (
        "\n".join(["a" * 2000] * 200),
        "a" * 2000 + "c",
        "replacement",
        None,
        None,
    ),
    # DIFFERS: ' for " is no normalisation of filewright's (it changes a string's meaning in
    # many languages), and two places fitting a unique edit is an ambiguity, never both edited
    "fuzzy_two_matches": (
        DOIT,
        "function doIt() {\n  console.log('hello');\n}",
        'function doIt() {\n  console.log("bye");\n}',
        DOIT.replace("hello", "bye"),
        None,
    ),
    "flexible_keeps_trailing_newline": (
        "  line1\n  line2\n  line3\n",
        "line1\nline2",
        "line1-replaced\nline2-replaced",
        "  line1-replaced\n  line2-replaced\n  line3\n",
        "  line1-replaced\n  line2-replaced\n  line3\n",
    ),
    "flexible_rebases_without_double_indent": (
        "    if (a) {\n        foo();\n    }\n",
        "if (a) {\n    foo();\n}",
        "if (a) {\n    bar();\n}",
        "    if (a) {\n        bar();\n    }\n",
        "    if (a) {\n        bar();\n    }\n",
    ),
    # DIFFERS: as fuzzy_missing_comma
    "fuzzy_rebases_without_double_indent": (
        "    " + CONFIG.replace("\n", "\n    "),
        "const myConfig = {\n  enableFeature: true\n  retries: 3\n};",
        "const myConfig = {\n  enableFeature: false,\n  retries: 5\n};",
        "    const myConfig = {\n      enableFeature: false,\n      retries: 5\n    };",
        None,
    ),
    "regex_after_blank_line_adds_no_newline": (
        "\n  function oldFunc() {\n    // some code\n  }",
        "function  oldFunc() {\n    // some code\n  }",
        "function newFunc() {\n  // new code\n}",
        "\n  function newFunc() {\n    // new code\n  }",
        "\n  function newFunc() {\n    // new code\n  }",
    ),
    "flexible_old_starting_with_blank_line": (
        "  // some comment\n\n  function oldFunc() {}",
        "\nfunction oldFunc() {}",
        "\n  function newFunc() {}",
        "  // some comment\n\n  function newFunc() {}",
        "  // some comment\n\n  function newFunc() {}",
    ),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_calculate_replacement_case(case: str) -> None:
    content, old, new, _gemini, ours = CASES[case]
    result = edits.replace(content, old, new)
    if ours is None:
        assert isinstance(result, edits.EditFailure), result
    else:
        assert isinstance(result, edits.Edited), result
        assert result.text == ours


def test_allow_multiple_flexible_replaces_each() -> None:
    # Gemini's allow_multiple; filewright's replace_all (gemini: expected_replacements=2)
    content = "  match1\n  match2\n  match1\n  match2\n"
    result = edits.replace(content, "match1\nmatch2", "replaced1\nreplaced2\nreplaced3", expected=2)
    assert isinstance(result, edits.Edited), result
    assert result.text == "  replaced1\n  replaced2\n  replaced3\n" * 2


@pytest.mark.parametrize("case", sorted(k for k, v in CASES.items() if v[4] is not None))
def test_through_the_gemini_toolset(tmp_path: Path, case: str) -> None:
    content, old, new, _gemini, ours = CASES[case]
    path = tmp_path / "f.ts"
    path.write_text(content)
    tools = Workspace(tmp_path, confirm=True).toolset("gemini")
    result = tools.call("replace", {"file_path": str(path), "old_string": old, "new_string": new})
    assert result.ok, result.text
    assert path.read_text() == ours
