"""A file changed in streaming mode ends up exactly as the same edit makes it in memory.

Edits are made as models make them (exact `old`, since streaming matches exactly, and a
`new` with independent slips: a forgotten or an extra line break, changed indentation,
an added line, a mid-line piece, `old` sent without its indentation), on a file of code
lines, through every toolset whose edit streams; each is made once in memory and once
streamed (threshold 50 bytes), and the verdict, the file's bytes and the diff shown must
agree.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest

from filewright import Result, Workspace

IN_MEMORY, STREAMED = 1 << 30, 50  # stream_above_bytes: every test file is above 50 bytes


def both_ways(
    root: Path, path: Path, text: str, toolset: str, tool: str, args: dict[str, Any], **options: Any
) -> list[tuple[Result, str]]:
    """`tool` of `toolset` called on `path` holding `text`, once in memory and once
    streamed (claude: its own edit limit at the same threshold, after a Read): each
    call's result and the file's text after it. `options` go to the Workspace."""
    out = []
    for threshold in (IN_MEMORY, STREAMED):
        path.write_text(text)
        ws = Workspace(root, stream_above_bytes=threshold, **options)
        tools = ws.toolset(
            toolset, **({"max_edit_bytes": threshold} if toolset == "claude" else {})
        )
        if toolset == "claude":
            assert tools.call("Read", {"file_path": str(path)}).ok
        out.append((tools.call(tool, args), path.read_text()))
    return out


def _code_lines(rng: random.Random, count: int, shapes: Any) -> list[str]:
    """`count` lines, each at a random indentation, of a shape `shapes(indent, i)` offers."""
    lines = []
    for i in range(count):
        ind = "    " * rng.randrange(0, 3)
        lines.append(rng.choice(shapes(ind, i)))
    return lines


def _file(rng: random.Random) -> list[str]:
    return _code_lines(
        rng,
        120,
        lambda ind, i: [
            f'{ind}x_{i} = compute({i}, "v")',
            f"{ind}# note {i}",
            "",
            f"{ind}def f_{i}(a, b):",
            f"{ind}return a + {i}",
        ],
    )


def _edit(rng: random.Random, lines: list[str]) -> tuple[str, str]:
    unique = [i for i, line in enumerate(lines) if line.strip() and lines.count(line) == 1]
    i = rng.choice(unique)
    j = min(len(lines), i + rng.randrange(1, 4))
    old = "\n".join(lines[i:j])
    r = rng.random()
    if r < 0.5:
        old += "\n"
    elif r < 0.6 and i > 0:
        old = "\n" + old
    elif r < 0.7:
        old = old.lstrip()
    elif r < 0.8:
        a = rng.randrange(0, max(1, len(lines[i]) // 2))
        old = lines[i][a : a + rng.randrange(3, 12)]
    new = "\n".join(
        line.replace("compute", "calc") if rng.random() < 0.5 else line for line in old.split("\n")
    )
    r = rng.random()
    if r < 0.2:
        new = new.rstrip("\n")
    elif r < 0.3:
        new += "\n"
    elif r < 0.4:
        new = "\n".join("  " + x for x in new.split("\n"))
    elif r < 0.45:
        new = ""
    elif r < 0.5:
        new += "\nextra_line = 1"
    return old, new


def _call(toolset: str, root: Path, old: str, new: str) -> tuple[str, dict[str, Any]]:
    path = str(root / "f.py")
    return {
        "default": ("edit", {"path": "f.py", "old_string": old, "new_string": new}),
        "companion": ("edit", {"path": "f.py", "oldText": old, "newText": new}),
        "text_editor": (
            "str_replace_based_edit_tool",
            {"command": "str_replace", "path": path, "old_str": old, "new_str": new},
        ),
        "gemini": ("replace", {"file_path": path, "old_string": old, "new_string": new}),
        "claude": ("Edit", {"file_path": path, "old_string": old, "new_string": new}),
    }[toolset]


@pytest.mark.parametrize("toolset", ["default", "companion", "text_editor", "gemini", "claude"])
@pytest.mark.parametrize("seed", [1, 2])
def test_streamed_edits_write_what_in_memory_edits_write(
    tmp_path: Path, toolset: str, seed: int
) -> None:
    rng = random.Random(seed)
    lines = _file(rng)
    base = "\n".join(lines) + "\n"
    path = tmp_path / "f.py"
    compared = 0
    for _ in range(80):
        old, new = _edit(rng, lines)
        if base.count(old) != 1 or old == new:
            continue
        answers = [
            (result.ok, text, result.data.get("diff"))
            for result, text in both_ways(
                tmp_path, path, base, toolset, *_call(toolset, tmp_path, old, new)
            )
        ]
        assert answers[0] == answers[1], (old, new)
        compared += 1
    assert compared >= 20


# An edit the in-memory rules refuse as uncertain (new drops the blank line next to the line
# it inserts), and the block it applies to.
_BLOCK = ["def f():", "    a = 1", "", "    b = 2", "    return a + b"]
_UNCERTAIN = {
    "path": "f.py",
    "old_string": "    a = 1\n\n    b = 2\n",
    "new_string": "    a = 1\n    c = 3\n    b = 2\n",
}


def test_an_uncertain_streamed_edit_is_refused_with_the_files_line_numbers(
    tmp_path: Path,
) -> None:
    lines = [f"x_{i} = {i}" for i in range(2000)]  # (more than the 4 KB read around it)
    lines[1500:1500] = _BLOCK
    path = tmp_path / "f.py"
    answers = []
    for result, _ in both_ways(
        tmp_path, path, "\n".join(lines) + "\n", "default", "edit", _UNCERTAIN
    ):
        assert not result.ok
        answers.append(
            (result.text, result.data["uncertain"], result.data["closest"][0]["start_line"])
        )
    assert answers[0] == answers[1]
    assert answers[1][2] == 1502


@pytest.mark.parametrize("toolset", ["default", "claude"])
@pytest.mark.parametrize("seed", [3, 4, 10])
def test_streamed_batches_write_what_in_memory_batches_write(
    tmp_path: Path, toolset: str, seed: int
) -> None:
    """Several edits in one call: each is adapted to its lines as the earlier ones of the
    batch leave them, as in memory."""
    rng = random.Random(seed)
    lines = _file(rng)
    base = "\n".join(lines) + "\n"
    path = tmp_path / "f.py"
    compared = 0
    for _ in range(60):
        edits = [_edit(rng, lines) for _ in range(rng.randrange(2, 4))]
        if any(base.count(old) != 1 or old == new for old, new in edits):
            continue
        if any(a[0] in b[0] or b[0] in a[0] for a in edits for b in edits if a is not b):
            continue
        batch = [{"old_string": o, "new_string": n} for o, n in edits]
        if toolset == "claude":
            call = ("MultiEdit", {"file_path": str(path), "edits": batch})
        else:
            call = ("multi_edit", {"path": "f.py", "edits": batch})
        answers = [(r.ok, text) for r, text in both_ways(tmp_path, path, base, toolset, *call)]
        assert answers[0] == answers[1], edits
        compared += 1
    assert compared >= 5


def _repeated_file(rng: random.Random) -> list[str]:
    return _code_lines(
        rng,
        150,
        lambda ind, i: [
            f'{ind}x = compute(1, "v")',
            f"{ind}# note",
            "",
            f"{ind}def f(a, b):",
            f"{ind}return a + 1",
            f"{ind}y_{i} = {i}",
        ],
    )


@pytest.mark.parametrize("toolset", ["default", "gemini", "claude"])
@pytest.mark.parametrize("seed", [1, 2])
def test_streamed_replace_all_writes_what_in_memory_writes(
    tmp_path: Path, toolset: str, seed: int
) -> None:
    """A replace-all whose matches sit in lines of different indentation: each match is
    written as the in-memory edit writes it in its own line."""
    rng = random.Random(seed)
    path = tmp_path / "f.py"
    compared = 0
    for _ in range(40):
        lines = _repeated_file(rng)
        base = "\n".join(lines) + "\n"
        repeated = sorted({x for x in lines if x.strip() and base.count(x) > 1})
        if not repeated:
            continue
        line = rng.choice(repeated)
        old = line.strip() if rng.random() < 0.4 else line
        if rng.random() < 0.5:
            old += "\n"
        new = old.replace("compute", "calc").replace("note", "NOTE").replace("return", "yield")
        r = rng.random()
        if r < 0.25:
            new = new.rstrip("\n")
        elif r < 0.4:
            new += "\n"
        elif r < 0.55:
            new = "  " + new
        elif r < 0.6:
            new = "first = 1\n" + new
        if new == old:
            continue
        tool, args = _call(toolset, tmp_path, old, new)
        if toolset == "gemini":
            args["expected_replacements"] = base.count(old)
        else:
            args["replace_all"] = True
        answers = [(r.ok, text) for r, text in both_ways(tmp_path, path, base, toolset, tool, args)]
        assert answers[0] == answers[1], (old, new)
        compared += 1
    assert compared >= 20


def test_a_change_both_uncertain_and_ambiguous_is_reported_ambiguous_both_ways(
    tmp_path: Path,
) -> None:
    lines = [f"x_{i} = {i}" for i in range(2000)]
    lines[1500:1500] = _BLOCK
    lines[300:300] = _BLOCK
    path = tmp_path / "f.py"
    errors = []
    for result, _ in both_ways(
        tmp_path, path, "\n".join(lines) + "\n", "default", "edit", _UNCERTAIN
    ):
        assert not result.ok
        errors.append(result.data["error"])
    assert errors == ["ambiguous", "ambiguous"]
