"""A path longer than the system takes is refused by its text, before any policy work.

The tool-call fuzzer sends megabyte strings as paths: each was refused only after the
policy had judged every name of it (the hidden-name check of a path the disk refused),
about a second of CPU per fuzz test for `read_multiple_files`. The system refuses a path of
PATH_MAX bytes or more (ENAMETOOLONG) before it looks at any name; the sandbox now does
the same, with the words it gave ENAMETOOLONG before.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from fsprobe import python_calls

from filewright import Workspace
from filewright.fs.paths import PathRefused, Sandbox

MEGA = "x" * (3 << 20)
PATH_MAX = os.pathconf("/", "PC_PATH_MAX")


@pytest.fixture
def root(tmp_path: Path) -> Path:
    (tmp_path / "a.txt").write_text("hi\n", encoding="utf-8")
    (tmp_path / ".filewright.toml").write_text(
        '[[rules]]\npattern = "secrets/**"\naccess = "hidden"\n', encoding="utf-8"
    )
    return tmp_path


@pytest.mark.parametrize(
    "path",
    [
        MEGA,
        "/".join(["d"] * (3 << 19)),
        "secrets/" + MEGA,  # a hidden name: the refusal tells nothing the text does not
        "a/../" * 1000 + "a.txt",
        "line of text\n" * 120_000,  # control characters were looked for, then judged
    ],
)
def test_a_path_past_path_max_is_refused_before_the_policy(root: Path, path: str) -> None:
    tools = Workspace(str(root)).toolset("mcpfs")
    tools.call("read_text_file", {"path": "a.txt"})  # the policy loaded
    results: list[Any] = []
    work = python_calls(
        lambda: results.append(tools.call("read_multiple_files", {"paths": [path]})),
        under="/filewright/policy/",
    )
    assert work == 0
    assert results[0].text == f"{path}: Error - Invalid path: path is too long"


def test_the_refusal_is_the_one_enametoolong_had(root: Path) -> None:
    sandbox = Sandbox([root])
    for path in (MEGA, "d/" * (PATH_MAX // 2) + "x.txt", str(root) + "/" + "é" * PATH_MAX):
        with pytest.raises(PathRefused) as refused:
            sandbox.resolve(path)
        assert (refused.value.code, refused.value.detail) == ("invalid", "path is too long")
    under = "d/" * ((PATH_MAX - len(str(root)) - 16) // 2) + "x.txt"
    assert not sandbox.resolve(under).exists  # just under PATH_MAX: looked up as before


@pytest.mark.parametrize(
    ("toolset", "tool", "args", "text"),
    [
        ("default", "read", {"path": MEGA}, "Invalid path: path is too long"),
        ("companion", "read", {"path": MEGA}, "路径无效: "),
        ("gemini", "read_file", {"path": "/" + MEGA}, "Invalid path: path is too long"),
    ],
)
def test_every_toolset_keeps_its_too_long_text(
    root: Path, toolset: str, tool: str, args: dict[str, Any], text: str
) -> None:
    result = Workspace(str(root)).toolset(toolset).call(tool, args)
    assert not result.ok and result.text.startswith(text), result.text[:200]
