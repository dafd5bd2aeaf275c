"""Blank lines at the edges of ``old_string`` (issue 29).

``old_string`` that ends (or begins) with a blank line names that blank line: when the
ladder needed a recovery to find ``old`` (one doubled space, curly quotes, ASCII for
full-width punctuation, lost indentation), lines that ``new_string`` adds after that blank
line come after it, exactly as the same edit with the file's own text writes them, and no
blank line nobody wrote appears.  Checked on generated Go, Markdown and Chinese prose, with
``old`` and ``new`` perturbed independently, and through every toolset whose edit uses the
ladder.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_edit_carry import LADDER_TOOLSETS, _agent

from filewright import Workspace
from filewright.edit import edits

GO = 'func run() {\n\tconst name = "x"\n\tinfo := log(name)\n\n\tex := exec(info)\n}\n'
GO_OLD = '\tconst  name = "x"\n\tinfo := log(name)\n\n'
GO_NEW = '\tconst name = "y"\n\tinfo := log(name)\n\n\tadded()\n'
GO_WANT = (
    'func run() {\n\tconst name = "y"\n\tinfo := log(name)\n\n\tadded()\n\tex := exec(info)\n}\n'
)

MD = "# Title\n\nFirst  paragraph, “quoted”.\nSecond line.\n\n## Next\n"
MD_OLD = 'First paragraph, "quoted".\nSecond line.\n\n'
MD_NEW = 'First paragraph, "quoted".\nSecond line, changed.\n\nAn added paragraph.\n'
MD_WANT = "# Title\n\nFirst  paragraph, “quoted”.\nSecond line, changed.\n\nAn added paragraph.\n## Next\n"

ZH = "第一段：这是说明（见上）。\n第二句。\n\n第二段。\n"
ZH_OLD = "第一段:这是说明(见上)。\n第二句。\n\n"
ZH_NEW = "第一段:这是说明(见上)。\n第二句。\n\n插入的一段。\n"
ZH_WANT = "第一段：这是说明（见上）。\n第二句。\n\n插入的一段。\n第二段。\n"

CASES = {
    "go": ("a.go", GO, GO_OLD, GO_NEW, GO_WANT),
    "markdown": ("a.md", MD, MD_OLD, MD_NEW, MD_WANT),
    "chinese": ("a.txt", ZH, ZH_OLD, ZH_NEW, ZH_WANT),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_pure_edit_adds_no_blank_line(case: str) -> None:
    _name, text, old, new, want = CASES[case]
    result = edits.replace(text, old, new)
    assert isinstance(result, edits.Edited), result
    assert result.text == want


def test_a_leading_blank_line_the_file_has_is_named_too() -> None:
    text = "a = 1\n\ndef  f():\n    return 1\n"
    old = "\ndef f():\n    return 1\n"
    new = "\nimport os\n\ndef f():\n    return 2\n"
    result = edits.replace(text, old, new)
    assert isinstance(result, edits.Edited), result
    assert result.text == "a = 1\n\nimport os\n\ndef  f():\n    return 2\n"


def test_a_blank_line_the_file_lacks_stays_a_stray_one() -> None:
    text = "a  = 1\nb = 2\n"  # old says a blank line follows a = 1: the file has none
    result = edits.replace(text, "a = 1\n\n", "a = 3\n\n")
    assert isinstance(result, edits.Edited), result
    assert result.text == "a  = 3\nb = 2\n"


@pytest.mark.parametrize("toolset", [*LADDER_TOOLSETS, "mcpfs"])
@pytest.mark.parametrize("case", sorted(CASES))
def test_every_ladder_toolset_adds_no_blank_line(tmp_path: Path, toolset: str, case: str) -> None:
    name, text, old, new, want = CASES[case]
    (tmp_path / name).write_bytes(text.encode())
    if toolset == "mcpfs":
        r = (
            Workspace(str(tmp_path))
            .toolset("mcpfs")
            .call(
                "edit_file",
                {"path": str(tmp_path / name), "edits": [{"oldText": old, "newText": new}]},
            )
        )
    else:
        agent = _agent(toolset, tmp_path)
        assert agent.read(name).ok
        r = agent.edit(name, old, new)
    assert r.ok, r.text
    assert (tmp_path / name).read_bytes().decode() == want


# --------------------------------------------------------------------------- generated


def _go(i: int, k: int) -> str:
    return [f'\tname{i} := "v{i}"', f"\tx{i} := call{i}(a,  b)", f"\tif n{i} > 0 {{ run{i}() }}"][
        k % 3
    ]


def _md(i: int, k: int) -> str:
    return [f"## Section {i}", f"Some “text” {i}, with words.", f"- item {i}: one"][k % 3]


def _zh(i: int, k: int) -> str:
    return [f"第{i}段：说明（见上）。", f"这是第{i}句，很短。", f"「引用{i}」：完。"][k % 3]


KINDS = {"go": _go, "md": _md, "zh": _zh}


def _widen(s: str) -> str:
    return re.sub(r"(?<=\S) (?=\S)", "  ", s, count=1)


def _collapse(s: str) -> str:
    return re.sub(r"(?<=\S)[ \t]{2,}", " ", s)


def _ascii(s: str) -> str:
    s = s.translate(str.maketrans("：（），「」“”", ':(),""""'))
    return s


def _dedent(s: str) -> str:
    return "\n".join(x.lstrip("\t") for x in s.split("\n"))


SLIPS = {"widen": _widen, "collapse": _collapse, "ascii": _ascii, "dedent": _dedent}


_SAMPLED: dict[tuple[object, ...], st.SearchStrategy[Any]] = {}


def _sampled(values: list[Any]) -> st.SearchStrategy[Any]:
    """`st.sampled_from(values)`, made once per list of values (building a strategy costs
    more than drawing from it; the draws are the same)."""
    key = tuple(values)
    if key not in _SAMPLED:
        _SAMPLED[key] = st.sampled_from(values)
    return _SAMPLED[key]


@st.composite
def cases(draw: st.DrawFn) -> tuple[str, str, str, str]:
    """(text, old, new, the text the clean edit writes): old names a block with the blank
    line after it (or before it); new changes a line and adds lines beyond that blank line."""
    kind = KINDS[draw(_sampled(sorted(KINDS)))]
    groups = []
    for g in range(draw(st.integers(3, 6))):
        size = draw(st.integers(1, 3))
        groups.append([kind(10 * g + j, draw(st.integers(0, 2))) for j in range(size)])
    lines: list[str] = []
    for g in groups:
        lines += [*g, ""]
    text = "\n".join(lines)  # ends with "\n" (the last group's blank line is the final one)
    k = draw(st.integers(0, len(groups) - 2))
    block = groups[k]
    lead = k > 0 and draw(st.booleans())
    s = ("\n" if lead else "") + "\n".join(block) + "\n\n"
    changed = list(block)
    c = draw(st.integers(0, len(block) - 1))
    changed[c] = re.sub(r"\d+", lambda m: m.group(0) + "9", changed[c], count=1)
    added = [kind(900 + j, j) for j in range(draw(st.integers(1, 2)))]
    where = draw(_sampled(["after", "before"] if lead else ["after"]))
    if where == "after":
        t = ("\n" if lead else "") + "\n".join(changed) + "\n\n" + "\n".join(added) + "\n"
    else:
        t = "\n" + "\n".join(added) + "\n\n" + "\n".join(changed) + "\n\n"
    assert text.count(s) == 1
    want = text.replace(s, t, 1)
    slips = [x for x in SLIPS if SLIPS[x](s) != s]
    # no slip fits: a blank line with a space is still a recovery
    s = SLIPS[draw(_sampled(slips))](s) if slips else s.replace("\n\n", "\n \n", 1)
    kept = set(block) & set(changed)
    slip = draw(_sampled([None, *SLIPS]))
    if slip == "dedent":  # new written from column 0 as a whole
        t = _dedent(t)
    elif slip is not None:  # new's own cosmetic slip, on the lines it keeps
        t = "\n".join(SLIPS[slip](x) if x in kept else x for x in t.split("\n"))
    return text, s, t, want


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cases())
def test_generated_edge_blank_lines_land_as_the_clean_edit_or_are_refused(case: Any) -> None:
    text, old, new, want = case
    result = edits.replace(text, old, new)
    if isinstance(result, edits.Edited):
        assert result.text == want, (old, new)
