"""Checklist: `companion-workspace-tools.md`, its registration block and error table,
compared with the seed's exact texts."""

from __future__ import annotations

from pathlib import Path

import pytest

from filewright import Workspace
from filewright.tools.base import Toolset


@pytest.fixture
def tools(tmp_path: Path) -> Toolset:
    (tmp_path / "SOUL.md").write_text("我是一个温柔的伙伴。\n", encoding="utf-8")
    (tmp_path / "USER.md").write_text("名字：小明\n名字：小明\n", encoding="utf-8")
    return Workspace(tmp_path, confirm=lambda _request: False).toolset("companion")


def test_function_calling_registration_is_the_seeds(tools: Toolset) -> None:
    defs = {d["name"]: d for d in tools.definitions("anthropic")}
    assert {name: d["description"] for name, d in defs.items()} == {
        "read": "读取工作区中的文件内容",
        "write": "创建或覆盖文件。自动创建父目录。",
        "edit": "通过精确文本查找替换来编辑文件。oldText 必须精确匹配。",
    }
    props = {name: d["input_schema"]["properties"] for name, d in defs.items()}
    assert {name: {k: v["description"] for k, v in p.items()} for name, p in props.items()} == {
        "read": {"path": "文件路径（相对于工作区根目录）"},
        "write": {"path": "文件路径（相对于工作区根目录）", "content": "要写入的完整内容"},
        "edit": {
            "path": "文件路径（相对于工作区根目录）",
            "oldText": "要查找并替换的精确文本（必须唯一匹配）",
            "newText": "替换后的新文本",
        },
    }


def test_returns_and_error_table(tools: Toolset, tmp_path: Path) -> None:
    cases = [
        ("write", {"path": "memory/today.md", "content": "今天很好"}, True, "成功写入 12 字节到 memory/today.md"),
        ("edit", {"path": "memory/today.md", "oldText": "很好", "newText": "不错"}, True, "成功替换了 memory/today.md 中的文本"),
        ("read", {"path": "memory/today.md"}, True, "今天不错"),
        ("read", {"path": "nope.md"}, False, "文件不存在: nope.md"),
        ("edit", {"path": "nope.md", "oldText": "a", "newText": "b"}, False, "文件不存在: nope.md"),
        ("read", {"path": "../../../etc/passwd"}, False, "不允许访问工作区外的文件"),
        ("read", {"path": "/etc/hosts"}, False, "不允许访问工作区外的文件"),
        ("write", {"path": "../../secrets.txt", "content": "x"}, False, "不允许访问工作区外的文件"),
        ("edit", {"path": "USER.md", "oldText": "小红", "newText": "x"}, False, "无法在 USER.md 中找到指定文本。请确保文本精确匹配。"),
        ("edit", {"path": "USER.md", "oldText": "名字：小明", "newText": "x"}, False, "找到 2 处匹配。请提供更多上下文使其唯一。"),
        ("edit", {"path": "memory/today.md", "oldText": "不错", "newText": "不错"}, False, "替换后内容没有变化。"),
        ("edit", {"path": "SOUL.md", "oldText": "温柔", "newText": "活泼"}, False, "用户拒绝了此次修改。"),
    ]  # fmt: skip
    for tool, args, ok, text in cases:
        result = tools.call(tool, args)
        # the seed's message first; where the text is (a failed edit) follows it
        assert (result.ok, result.text.split("\n\n")[0]) == (ok, text), (tool, args)
    assert (tmp_path / "SOUL.md").read_text(encoding="utf-8") == "我是一个温柔的伙伴。\n"
