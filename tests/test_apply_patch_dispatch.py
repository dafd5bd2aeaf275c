"""The Responses API's built-in apply_patch tool: every call shape the openai SDK's types
allow goes in, and what comes out is an input item the SDK accepts."""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

import pytest
from pydantic import TypeAdapter

from filewright import Workspace
from filewright.surfaces.dispatch import dispatch, dispatch_response, extract_calls

adapter = functools.cache(TypeAdapter)
"""A pydantic TypeAdapter per SDK type, built once per module (building one for a large
union such as ResponseInputParam costs ~0.1 s; the validation is the same)."""

CALLERS: list[dict[str, Any] | None] = [
    None,
    {"type": "direct"},
    {"type": "program", "caller_id": "prog_1"},
]


def response(output: list[dict[str, Any]]) -> Any:
    from openai.types.responses import Response

    return Response.model_validate({
        "id": "r", "object": "response", "created_at": 0, "model": "gpt-5", "output": output,
        "parallel_tool_calls": True, "tool_choice": "auto", "tools": [{"type": "apply_patch"}],
        "status": "completed",
    })  # fmt: skip


def check_output(item: dict[str, Any], call_id: str, status: str) -> None:
    from openai.types.responses import ResponseInputParam
    from openai.types.responses.response_input_item_param import ApplyPatchCallOutput

    adapter(ApplyPatchCallOutput).validate_python(item)
    adapter(ResponseInputParam).validate_python([item])
    assert set(item) <= set(ApplyPatchCallOutput.__required_keys__) | set(
        ApplyPatchCallOutput.__optional_keys__
    )
    assert item["type"] == "apply_patch_call_output"
    assert item["call_id"] == call_id and item["status"] == status, item


@pytest.fixture
def tools(tmp_path: Path) -> Any:
    (tmp_path / "a.py").write_text("def f():\n    return 1\n")
    (tmp_path / "gone.txt").write_text("bye\n")
    return Workspace(str(tmp_path)).toolset("apply_patch")


OPERATIONS = {
    "create_file": {"type": "create_file", "path": "new/n.py", "diff": "+x = 1\n+y = 2\n"},
    "update_file": {"type": "update_file", "path": "a.py", "diff": "@@ def f():\n-    return 1\n+    return 2\n"},
    "delete_file": {"type": "delete_file", "path": "gone.txt"},
}  # fmt: skip
RESULTS = {
    "create_file": ("new/n.py", "x = 1\ny = 2\n"),
    "update_file": ("a.py", "def f():\n    return 2\n"),
    "delete_file": ("gone.txt", None),
}


@pytest.mark.parametrize("caller", CALLERS)
@pytest.mark.parametrize("status", ["in_progress", "completed"])
@pytest.mark.parametrize("op", list(OPERATIONS))
@pytest.mark.parametrize("shape", ["sdk-object", "output-dict", "input-param"])
def test_every_call_shape(
    tools: Any, tmp_path: Path, op: str, status: str, caller: dict[str, Any] | None, shape: str
) -> None:
    from openai.types.responses import ResponseApplyPatchToolCall
    from openai.types.responses.response_input_item_param import ApplyPatchCall

    item: dict[str, Any] = {
        "type": "apply_patch_call", "id": "apc_1", "call_id": "call_1", "status": status,
        "operation": OPERATIONS[op],
    }  # fmt: skip
    if caller is not None:
        item["caller"] = caller
    if shape == "sdk-object":
        call: Any = ResponseApplyPatchToolCall.model_validate({**item, "created_by": "model"})
    elif shape == "output-dict":
        call = ResponseApplyPatchToolCall.model_validate(item).model_dump()
    else:
        call = adapter(ApplyPatchCall).validate_python({k: v for k, v in item.items() if k != "id"})
    (out,) = dispatch(tools, call)
    check_output(out, "call_1", "completed")
    path, content = RESULTS[op]
    if content is None:
        assert not (tmp_path / path).exists()
    else:
        assert (tmp_path / path).read_text() == content


def test_failures_are_failed_outputs_and_change_nothing(tools: Any, tmp_path: Path) -> None:
    bad = [
        {"type": "update_file", "path": "a.py", "diff": "@@\n-    return 9\n+    return 2\n"},
        {"type": "update_file", "path": "a.py", "diff": "no prefix\n"},
        {"type": "create_file", "path": "a.py", "diff": "+dup\n"},
        {"type": "create_file", "path": "x.py", "diff": "not a plus line\n"},
        {"type": "delete_file", "path": "missing.txt"},
        {"type": "update_file", "path": "../outside.py", "diff": "-a\n+b\n"},
    ]
    for k, op in enumerate(bad):
        (out,) = dispatch(
            tools,
            {
                "type": "apply_patch_call",
                "call_id": f"c{k}",
                "status": "completed",
                "operation": op,
            },
        )
        check_output(out, f"c{k}", "failed")
        assert "no file was changed" in out["output"], out
    assert (tmp_path / "a.py").read_text() == "def f():\n    return 1\n"
    assert not (tmp_path / "x.py").exists()
    miss = dispatch(tools, {"type": "apply_patch_call", "call_id": "c", "status": "completed",
                            "operation": OPERATIONS["update_file"] | {"diff": "@@\n-    return 9\n+    x\n"}})  # fmt: skip
    assert "Closest text in the file, line 2" in miss[0]["output"]


def test_a_whole_response_with_function_and_patch_calls(tools: Any, tmp_path: Path) -> None:
    resp = response([
        {"type": "reasoning", "id": "rs", "summary": []},
        {"type": "apply_patch_call", "id": "p1", "call_id": "c1", "status": "completed",
         "operation": OPERATIONS["update_file"]},
        {"type": "apply_patch_call", "id": "p2", "call_id": "c2", "status": "completed",
         "operation": OPERATIONS["delete_file"]},
    ])  # fmt: skip
    assert [c.kind for c in extract_calls(resp)] == ["apply_patch_call", "apply_patch_call"]
    items = dispatch_response(tools, resp)
    for item, cid in zip(items, ("c1", "c2"), strict=True):
        check_output(item, cid, "completed")
    assert not (tmp_path / "gone.txt").exists()


def test_a_toolset_without_patches_answers_failed(tmp_path: Path) -> None:
    ws = Workspace(str(tmp_path))
    (out,) = dispatch(
        ws.toolset("default"),
        {"type": "apply_patch_call", "call_id": "c", "status": "completed",
         "operation": OPERATIONS["create_file"]},
    )  # fmt: skip
    check_output(out, "c", "failed")
    assert not (tmp_path / "new").exists()


def test_function_tool_form_through_every_provider_format(tools: Any, tmp_path: Path) -> None:
    patch = "*** Begin Patch\n*** Update File: a.py\n-    return 1\n+    return 3\n*** End Patch"
    import json

    (out,) = dispatch(
        tools,
        {"id": "1", "type": "function", "function": {"name": "apply_patch",
                                                     "arguments": json.dumps({"input": patch})}},
    )  # fmt: skip
    assert out["role"] == "tool" and "M a.py" in out["content"]
    (block,) = dispatch(
        tools, {"type": "tool_use", "id": "t", "name": "apply_patch", "input": {"input": patch}}
    )
    assert block["is_error"] is True  # already applied: the context is gone
    assert "no file was changed" in block["content"][0]["text"]
