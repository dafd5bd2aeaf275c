"""docs/apply_patch.md: its Responses loop runs as written against the openai SDK's own
response objects, and its failure example is what the tool really answers."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from pydantic import TypeAdapter

from filewright import Workspace

DOC = Path(__file__).resolve().parents[1] / "docs" / "apply_patch.md"


def block(marker: str, lang: str = "python") -> str:
    text = DOC.read_text(encoding="utf-8")
    m = re.search(rf"<!-- {re.escape(marker)} -->\s*```{lang}\n(.*?)```", text, re.S)
    assert m, f"docs/apply_patch.md has no {lang} block after <!-- {marker} -->"
    return m.group(1)


def response(output: list[dict[str, Any]]) -> Any:
    from openai.types.responses import Response

    return Response.model_validate({
        "id": "r", "object": "response", "created_at": 0, "model": "gpt-5", "output": output,
        "parallel_tool_calls": True, "tool_choice": "auto", "tools": [{"type": "apply_patch"}],
        "status": "completed",
    })  # fmt: skip


def test_responses_loop_with_the_builtin_tool(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from openai.types.responses import ResponseInputParam, ToolParam

    (tmp_path / "README.md").write_text("A smal typo.\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    replies = [
        response([
            {"type": "apply_patch_call", "id": "apc_1", "call_id": "call_1", "status": "completed",
             "operation": {"type": "update_file", "path": "README.md",
                           "diff": "@@\n-A smal typo.\n+A small typo.\n"}},
        ]),
        response([
            {"type": "message", "id": "m", "role": "assistant", "status": "completed",
             "content": [{"type": "output_text", "text": "Fixed.", "annotations": []}]},
        ]),
    ]  # fmt: skip
    requests: list[dict[str, Any]] = []

    class Responses:
        def create(self, **kwargs: Any) -> Any:
            requests.append(json.loads(json.dumps(kwargs, default=str)))
            return replies.pop(0)

    class FakeOpenAI:
        def __init__(self, **_: Any) -> None:
            self.responses = Responses()

    monkeypatch.setattr("openai.OpenAI", FakeOpenAI)
    exec(compile(block("loop: openai-responses-apply-patch"), "docs", "exec"), {"__name__": "doc"})
    assert (tmp_path / "README.md").read_text() == "A small typo.\n"
    last = requests[-1]
    TypeAdapter(ResponseInputParam).validate_python(last["input"])
    TypeAdapter(list[ToolParam]).validate_python(last["tools"])
    assert last["tools"] == [{"type": "apply_patch"}]
    out = last["input"][-1]
    assert out["type"] == "apply_patch_call_output" and out["status"] == "completed"
    assert out["call_id"] == "call_1" and "M README.md" in out["output"]


SHOP = (
    "def total(items):\n    s = 0\n    for it in items:\n        s += it.price\n    return s\n"
    "\n\ndef count(items):\n    s = 0\n    for it in items:\n        s += 1\n    return s\n"
)
WRONG = """*** Begin Patch
*** Update File: shop.py
@@ def count(items):
     for it in items:
-        s += it.cost
+        s += it.price * it.qty
*** End Patch"""


def test_the_failure_example_is_real(tmp_path: Path) -> None:
    (tmp_path / "shop.py").write_text(SHOP)
    r = Workspace(str(tmp_path)).toolset("apply_patch").call("apply_patch", {"input": WRONG})
    assert not r.ok
    assert r.text + "\n" == block("example: not found", "")
    assert (tmp_path / "shop.py").read_text() == SHOP
