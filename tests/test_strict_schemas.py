"""OpenAI strict mode: `definitions("openai"|"openai-responses", strict=True)` and
`filewright tools --strict`. Every object closed, every property required, the optional
ones nullable; validated with the openai SDK's own types and its strict-schema rules, and
a strict-mode call (nulls for what the model leaves out) does what the same call without
them does."""

from __future__ import annotations

import copy
import functools
import json
from pathlib import Path
from typing import Any

import pytest
from forkserver import ForkServer, shared
from pydantic import TypeAdapter
from test_schemas import TOOLSETS, check_typed_dict

from filewright import Workspace
from filewright.tools.schemas import parameters_schema

adapter = functools.cache(TypeAdapter)
"""A pydantic TypeAdapter per SDK type, built once per module (building one for a large
union such as ResponseInputParam costs ~0.1 s; the validation is the same)."""


@pytest.fixture(scope="module")
def forks(request: pytest.FixtureRequest) -> ForkServer:
    return shared(request.session)


def check_strict(node: Any, where: str = "") -> None:
    """OpenAI's strict-mode rules, recursively: objects closed and fully required; no
    `default` (strict mode rejects it)."""
    if isinstance(node, list):
        for i, v in enumerate(node):
            check_strict(v, f"{where}[{i}]")
        return
    if not isinstance(node, dict):
        return
    assert "default" not in node, where
    if node.get("type") == "object" or "properties" in node:
        assert node.get("additionalProperties") is False, where
        assert node.get("required") == list(node.get("properties", {})), where
    for key, value in node.items():
        check_strict(value, f"{where}.{key}")


def takes_null(node: dict[str, Any]) -> bool:
    kind = node.get("type")
    return (isinstance(kind, list) and "null" in kind) or any(
        s.get("type") == "null" for s in node.get("anyOf", ())
    )


@pytest.mark.parametrize("name", TOOLSETS)
def test_strict_definitions_follow_the_sdk(tmp_path: Path, name: str) -> None:
    from openai.lib._pydantic import _ensure_strict_json_schema
    from openai.types.chat import ChatCompletionFunctionToolParam, ChatCompletionToolParam
    from openai.types.responses import FunctionTool, FunctionToolParam, ToolParam

    ts = Workspace(tmp_path).toolset(name)
    chat = ts.definitions("openai", strict=True)
    responses = ts.definitions("openai-responses", strict=True)
    for tool, d in zip(ts.tools(), chat, strict=True):  # type: ignore[attr-defined]
        adapter(ChatCompletionToolParam).validate_python(d)
        check_typed_dict(d, ChatCompletionFunctionToolParam)
        assert d["function"]["strict"] is True
        schema = d["function"]["parameters"]
        check_strict(schema)
        # The SDK's own strictifier has nothing left to do.
        again = copy.deepcopy(schema)
        assert _ensure_strict_json_schema(again, path=(), root=again) == schema
        loose = parameters_schema(tool)
        for prop, sub in schema["properties"].items():
            optional = prop not in loose.get("required", [])
            assert takes_null(sub) == optional or takes_null(loose["properties"][prop]), prop
    for d in responses:
        adapter(ToolParam).validate_python(d)
        if d["type"] == "function":
            check_typed_dict(d, FunctionToolParam)
            FunctionTool.model_validate(d)
            assert d["strict"] is True
            check_strict(d["parameters"])


def test_strict_is_only_for_openai_formats(tmp_path: Path) -> None:
    ts = Workspace(tmp_path).toolset("default")
    with pytest.raises(ValueError, match="strict mode is OpenAI's"):
        ts.definitions("anthropic", strict=True)
    loose = ts.definitions("openai-responses")
    assert all(d["strict"] is False for d in loose)
    assert "strict" not in ts.definitions("openai")[0]["function"]


def test_nulls_for_left_out_parameters_mean_not_given(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("x = 1\ny = 2\nx = 1\n")
    ts = Workspace(tmp_path).toolset("default")
    plain = ts.call("read", {"path": "a.py"})
    nulls = ts.call("read", {"path": "a.py", "offset": None, "limit": None, "tail": None})
    assert nulls.ok and nulls.text == plain.text
    edited = ts.call("multi_edit", {"path": "a.py", "expected_hash": None, "edits": [
        {"old_string": "y = 2", "new_string": "y = 3", "replace_all": None},
    ]})  # fmt: skip
    assert edited.ok, edited.text
    assert (tmp_path / "a.py").read_text() == "x = 1\ny = 3\nx = 1\n"
    # A null where a value is required is still refused.
    refused = ts.call("read", {"path": None})
    assert not refused.ok and refused.data["error"] == "bad_arguments"


def test_tools_strict_on_the_command_line(tmp_path: Path, forks: ForkServer) -> None:
    """The command forked from the warm interpreter (tests/forkserver.py)."""
    cli = ["filewright", "tools", "--strict", "--format"]
    done = forks.run([*cli, "openai-responses"], cwd=tmp_path, timeout=60)
    assert done.returncode == 0, done.stderr
    defs = json.loads(done.stdout)
    assert defs and all(d["strict"] is True for d in defs)
    for d in defs:
        check_strict(d["parameters"])
    bad = forks.run([*cli, "gemini"], cwd=tmp_path, timeout=60)
    assert bad.returncode == 2 and "--strict is for" in bad.stderr
