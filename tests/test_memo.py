"""The `memo` toolset: literal and span replace on one memory document, as the seed says."""

from __future__ import annotations

import json
from pathlib import Path

from filewright import Workspace
from filewright.tools.base import Toolset

MEMORY = (
    "# 项目记忆\n"
    "项目状态：进行中\n"
    "TODO: 补充技术栈说明\n"
    "\n"
    "## 2023年总结\n"
    "### 技术栈\n"
    "技术栈：主要使用 Python，部分 Go。\n"
    "\n"
    "### 团队协作\n"
    "每周例会。\n"
    "\n"
    "## 2024年总结\n"
    "### 技术栈\n"
    "技术栈：主要使用 Python，开始尝试 Rust。\n"
    "\n"
    "### 团队协作\n"
    "异步沟通为主。\n"
)


def _memo(root: Path, text: str | None = MEMORY, **options: str) -> Toolset:
    if text is not None:
        (root / options.get("document", "MEMORY.md")).write_bytes(text.encode("utf-8"))
    return Workspace(root).toolset("memo", **options)


def _doc(root: Path, name: str = "MEMORY.md") -> str:
    return (root / name).read_bytes().decode("utf-8")


# -- definitions ------------------------------------------------------------------------


def test_tools_have_no_path_parameter(tmp_path: Path) -> None:
    tools = _memo(tmp_path)
    defs = {d["name"]: d["input_schema"] for d in tools.definitions("anthropic")}
    assert list(defs) == ["memo_read", "memo_replace_literal", "memo_replace_span"]
    assert defs["memo_replace_literal"]["required"] == ["old_text", "new_text"]
    assert set(defs["memo_replace_span"]["properties"]) == {
        "old_span_start",
        "old_span_end",
        "new_text",
        "search_after",
        "old_span_start_regex",
        "keep_markers",
        "last_read_hash",
    }
    assert "path" not in json.dumps(defs)


def test_document_is_chosen_when_the_toolset_is_created(tmp_path: Path) -> None:
    (tmp_path / "notes").mkdir()
    tools = _memo(tmp_path, "a: 1\n", document="notes/mem.md")
    assert tools.call("memo_replace_literal", {"old_text": "a: 1", "new_text": "a: 2"}).ok
    assert _doc(tmp_path, "notes/mem.md") == "a: 2\n"
    assert not (tmp_path / "MEMORY.md").exists()


# -- memo_read ------------------------------------------------------------------------


def test_read_returns_content_and_hash(tmp_path: Path) -> None:
    result = _memo(tmp_path).call("memo_read", {})
    assert result.ok
    assert result.text.endswith(MEMORY)
    assert result.data["hash"] in result.text and len(result.data["hash"]) == 64


def test_read_of_a_missing_document_is_empty(tmp_path: Path) -> None:
    result = _memo(tmp_path, None).call("memo_read", {})
    assert result.ok and result.data["chars"] == 0 and result.data["exists"] is False


# -- memo_replace_literal ---------------------------------------------------------------


def test_literal_status_change(tmp_path: Path) -> None:
    result = _memo(tmp_path).call(
        "memo_replace_literal", {"old_text": "项目状态：进行中", "new_text": "项目状态：已完成"}
    )
    assert result.ok, result.text
    assert _doc(tmp_path) == MEMORY.replace("项目状态：进行中", "项目状态：已完成")
    assert result.data["position"] == MEMORY.index("项目状态：进行中")
    assert "-项目状态：进行中\n+项目状态：已完成\n" in result.data["diff"]
    assert result.text.endswith("当前记忆全文：\n" + _doc(tmp_path))  # the new content
    assert "新的 hash: " not in result.text and result.data["hash"]
    shown = _memo(tmp_path, None, show_diff="yes")  # the diff in the text: an option
    done = shown.call("memo_replace_literal", {"old_text": "已完成", "new_text": "进行中"})
    assert "-项目状态：已完成" in done.text and "新的 hash: " in done.text


def test_literal_delete_todo(tmp_path: Path) -> None:
    result = _memo(tmp_path).call(
        "memo_replace_literal", {"old_text": "TODO: 补充技术栈说明", "new_text": ""}
    )
    assert result.ok
    assert _doc(tmp_path) == MEMORY.replace("TODO: 补充技术栈说明", "")


def test_literal_empty_old_text_appends(tmp_path: Path) -> None:
    new = "\n## 新章节\n内容..."
    result = _memo(tmp_path).call("memo_replace_literal", {"old_text": "", "new_text": new})
    assert result.ok and "追加" in result.text
    assert _doc(tmp_path) == MEMORY + new


def test_literal_append_creates_the_document(tmp_path: Path) -> None:
    tools = _memo(tmp_path, None)
    assert tools.call("memo_replace_literal", {"old_text": "", "new_text": "# 记忆\n"}).ok
    assert _doc(tmp_path) == "# 记忆\n"


def test_literal_on_a_missing_document(tmp_path: Path) -> None:
    result = _memo(tmp_path, None).call("memo_replace_literal", {"old_text": "x", "new_text": "y"})
    assert not result.ok and result.text.startswith("Error: 记忆文档 MEMORY.md 还不存在")
    assert not (tmp_path / "MEMORY.md").exists()


def test_literal_multiple_matches_error(tmp_path: Path) -> None:
    result = _memo(tmp_path).call(
        "memo_replace_literal", {"old_text": "技术栈：主要使用 Python", "new_text": "x"}
    )
    assert not result.ok
    first = MEMORY.index("技术栈：主要使用 Python")
    second = MEMORY.index("技术栈：主要使用 Python", first + 1)
    assert result.data["positions"] == [first, second]
    assert result.text.startswith(f"Error: 找到多个匹配项（至少在位置 {first} 和 {second}）。\n\n")
    assert (
        "此工具仅支持唯一匹配。请改用 memo_replace_span 工具，"
        "并配合 `search_after` 参数或更精确的标记来定位。"
    ) in result.text
    assert result.text.endswith(  # the seed's example: the first match's context only
        "\n\n第一处匹配的上下文：\n...### 技术栈\n技术栈：主要使用 Python，部分 Go。\n..."
    )
    assert [(m["line"], m["label"]) for m in result.data["matches"]] == [
        (7, "第一处"),
        (14, "第二处"),
    ]
    assert result.data["matches"][1]["context"].startswith(
        "...### 技术栈\n技术栈：主要使用 Python，开始尝试 Rust。\n"
    )
    assert _doc(tmp_path) == MEMORY


def test_literal_three_matches_lists_every_position(tmp_path: Path) -> None:
    result = _memo(tmp_path, "甲\n甲\n甲\n").call(
        "memo_replace_literal", {"old_text": "甲", "new_text": "乙"}
    )
    assert result.text.startswith("Error: 找到多个匹配项（至少在位置 0 和 2）。")  # "at least"
    assert result.data["positions"] == [0, 2, 4]
    assert result.data["matches"][2]["line"] == 3


def test_literal_not_found_shows_the_whole_memory(tmp_path: Path) -> None:
    result = _memo(tmp_path).call(
        "memo_replace_literal", {"old_text": "项目状态：暂停", "new_text": "x"}
    )
    assert not result.ok and result.data["error"] == "no_match"
    assert result.text.startswith("Error: 在记忆中找不到 old_text")
    assert result.text.endswith(  # the whole memory, then the closest real text
        "当前记忆全文：\n" + MEMORY + "\n\n最接近的内容（第 2 行）：\n项目状态：进行中"
    )


def test_literal_is_exact_only(tmp_path: Path) -> None:
    result = _memo(tmp_path).call(
        "memo_replace_literal", {"old_text": "项目状态： 进行中", "new_text": "x"}
    )
    assert result.data["error"] == "no_match"


def test_literal_no_change(tmp_path: Path) -> None:
    tools = _memo(tmp_path)
    result = tools.call(
        "memo_replace_literal", {"old_text": "项目状态：进行中", "new_text": "项目状态：进行中"}
    )
    assert result.text == "Error: 替换后记忆内容没有变化。"
    result = tools.call("memo_replace_literal", {"old_text": "", "new_text": ""})
    assert not result.ok and result.data["error"] == "no_change"


def test_newlines_are_normalised(tmp_path: Path) -> None:
    tools = _memo(tmp_path, MEMORY.replace("\n", "\r\n"))
    result = tools.call(
        "memo_replace_literal",
        {
            "old_text": "项目状态：进行中\r\nTODO: 补充技术栈说明",
            "new_text": "项目状态：已完成\r\n",
        },
    )
    assert result.ok, result.text
    data = (tmp_path / "MEMORY.md").read_bytes()
    assert b"\r" not in data
    assert data.decode("utf-8") == MEMORY.replace(
        "项目状态：进行中\nTODO: 补充技术栈说明", "项目状态：已完成\n"
    )


# -- memo_replace_span: the seed's three scenarios --------------------------------------


def test_span_scenario_1_section_after_search_after(tmp_path: Path) -> None:
    result = _memo(tmp_path).call(
        "memo_replace_span",
        {
            "search_after": "## 2024年总结",
            "old_span_start": "### 技术栈",
            "old_span_end": "### 团队协作",
            "new_text": "### 技术栈\n主要使用 Rust 和 TypeScript，全面迁移到异步架构。",
        },
    )
    assert result.ok, result.text
    expected = MEMORY.replace(
        "### 技术栈\n技术栈：主要使用 Python，开始尝试 Rust。\n",
        "### 技术栈\n主要使用 Rust 和 TypeScript，全面迁移到异步架构。\n",
    )
    assert _doc(tmp_path) == expected
    assert "技术栈：主要使用 Python，部分 Go。" in _doc(tmp_path)  # the 2023 section is untouched
    assert result.data["markers"] == {"start_marker": "replaced", "end_marker": "kept"}
    assert "+主要使用 Rust 和 TypeScript，全面迁移到异步架构。" in result.data["diff"]
    assert result.text.endswith("当前记忆全文：\n" + expected)


def test_span_scenario_2_long_paragraph(tmp_path: Path) -> None:
    paragraph = (
        "关于项目进度：" + "目前团队正在推进各项工作，细节很多。" * 28 + "预计完成时间：六月。\n"
    )
    tools = _memo(tmp_path, "# 进度\n" + paragraph)
    result = tools.call(
        "memo_replace_span",
        {
            "old_span_start": "关于项目进度：",
            "old_span_end": "预计完成时间",
            "new_text": "关于项目进度：已完成 80%，剩余核心功能开发中。",
        },
    )
    assert result.ok, result.text
    assert (
        _doc(tmp_path)
        == "# 进度\n关于项目进度：已完成 80%，剩余核心功能开发中。预计完成时间：六月。\n"
    )


def test_span_scenario_3_markers_replaced(tmp_path: Path) -> None:
    tools = _memo(
        tmp_path, "前言\n<!-- BEGIN DEPRECATED -->\n旧方案\n<!-- END DEPRECATED -->\n后记\n"
    )
    result = tools.call(
        "memo_replace_span",
        {
            "old_span_start": "<!-- BEGIN DEPRECATED -->",
            "old_span_end": "<!-- END DEPRECATED -->",
            "new_text": "<!-- UPDATED SECTION -->\n新的实现方案\n<!-- END UPDATED -->",
        },
    )
    assert result.ok, result.text
    assert (
        _doc(tmp_path)
        == "前言\n<!-- UPDATED SECTION -->\n新的实现方案\n<!-- END UPDATED -->\n后记\n"
    )
    assert "起始标记：已替换，结束标记：已替换" in result.text


def test_span_keeps_markers_by_default(tmp_path: Path) -> None:
    tools = _memo(tmp_path, "<!-- a -->\n旧\n<!-- b -->\n")
    assert tools.call(
        "memo_replace_span",
        {"old_span_start": "<!-- a -->", "old_span_end": "<!-- b -->", "new_text": "新"},
    ).ok
    assert _doc(tmp_path) == "<!-- a -->\n新\n<!-- b -->\n"


def test_span_keep_markers_false_replaces_them(tmp_path: Path) -> None:
    tools = _memo(tmp_path, "前\n[开始]旧[结束]\n后\n")
    args = {
        "old_span_start": "[开始]",
        "old_span_end": "[结束]",
        "new_text": "新",
        "keep_markers": False,
    }
    assert tools.call("memo_replace_span", args).ok
    assert _doc(tmp_path) == "前\n新\n后\n"


def test_span_needs_no_uniqueness(tmp_path: Path) -> None:
    text = "## A\n- x: 1\n- end\n## B\n- x: 1\n- end\n"
    tools = _memo(tmp_path, text)
    args = {
        "search_after": "## B",
        "old_span_start": "- x:",
        "old_span_end": "- end",
        "new_text": "- x: 2\n",
    }
    assert tools.call("memo_replace_span", args).ok
    assert _doc(tmp_path) == "## A\n- x: 1\n- end\n## B\n- x: 2\n- end\n"


def test_span_regex_start(tmp_path: Path) -> None:
    tools = _memo(tmp_path)
    result = tools.call(
        "memo_replace_span",
        {
            "search_after": "## 2024年总结",
            "old_span_start_regex": "^### 技术栈.*$",
            "old_span_end": "### 团队",
            "new_text": "全面迁移到 Rust。",
        },
    )
    assert result.ok, result.text
    assert _doc(tmp_path) == MEMORY.replace(
        "技术栈：主要使用 Python，开始尝试 Rust。", "全面迁移到 Rust。"
    )


def test_span_invalid_regex_and_start_arguments(tmp_path: Path) -> None:
    tools = _memo(tmp_path)
    result = tools.call(
        "memo_replace_span", {"old_span_start_regex": "(", "old_span_end": "x", "new_text": ""}
    )
    assert result.text.startswith("Error: old_span_start_regex 不是有效的正则表达式")
    result = tools.call("memo_replace_span", {"old_span_end": "x", "new_text": ""})
    assert result.text.startswith("Error: 请提供 old_span_start 或 old_span_start_regex 之一")
    result = tools.call(
        "memo_replace_span",
        {"old_span_start": "a", "old_span_start_regex": "a", "old_span_end": "x", "new_text": ""},
    )
    assert result.data["error"] == "bad_arguments"
    assert _doc(tmp_path) == MEMORY


def test_span_missing_end_marker_shows_context(tmp_path: Path) -> None:
    result = _memo(tmp_path).call(
        "memo_replace_span",
        {
            "search_after": "## 2024年总结",
            "old_span_start": "### 技术栈",
            "old_span_end": "### 团队合作",
            "new_text": "x",
        },
    )
    assert not result.ok and result.data["error"] == "marker_not_found"
    assert result.data["marker"] == "end"
    assert (
        "找到了起始标记（第 13 行），但在它之后找不到结束标记 old_span_end：`### 团队合作`"
        in result.text
    )
    assert "13: ### 技术栈\n14: 技术栈：主要使用 Python，开始尝试 Rust。" in result.text
    assert "最接近的内容（第 16 行）：\n### 团队协作" in result.text
    assert _doc(tmp_path) == MEMORY


def test_span_missing_start_marker_shows_context(tmp_path: Path) -> None:
    result = _memo(tmp_path).call(
        "memo_replace_span",
        {
            "search_after": "## 2024年总结",
            "old_span_start": "### 技术选型",
            "old_span_end": "###",
            "new_text": "x",
        },
    )
    assert result.data["marker"] == "start"
    assert (
        "从第 12 行（search_after 之后）开始，找不到起始标记 old_span_start：`### 技术选型`"
        in result.text
    )
    assert "12: ## 2024年总结" in result.text


def test_span_missing_search_after(tmp_path: Path) -> None:
    result = _memo(tmp_path).call(
        "memo_replace_span",
        {
            "search_after": "## 2025年总结",
            "old_span_start": "### 技术栈",
            "old_span_end": "###",
            "new_text": "x",
        },
    )
    assert result.data["marker"] == "search_after"
    assert "找不到 search_after 文本：`## 2025年总结`" in result.text


def test_span_on_a_missing_document(tmp_path: Path) -> None:
    result = _memo(tmp_path, None).call(
        "memo_replace_span", {"old_span_start": "a", "old_span_end": "b", "new_text": ""}
    )
    assert result.text.startswith("Error: 记忆文档 MEMORY.md 还不存在")


# -- optimistic locking -----------------------------------------------------------------


def test_last_read_hash(tmp_path: Path) -> None:
    tools = _memo(tmp_path)
    digest = tools.call("memo_read", {}).data["hash"]
    changed = MEMORY.replace("每周例会。", "每两周例会。")
    (tmp_path / "MEMORY.md").write_text(changed, encoding="utf-8")
    args = {
        "old_text": "项目状态：进行中",
        "new_text": "项目状态：已完成",
        "last_read_hash": digest,
    }
    result = tools.call("memo_replace_literal", args)
    assert not result.ok and result.data["error"] == "stale"
    assert result.text.startswith("Error: 记忆在你上次读取之后已被修改")
    assert result.text.endswith("当前记忆全文：\n" + changed)
    assert _doc(tmp_path) == changed
    fresh = result.data["actual_hash"]
    assert fresh == tools.call("memo_read", {}).data["hash"]
    result = tools.call("memo_replace_literal", {**args, "last_read_hash": fresh})
    assert result.ok, result.text
    # the new hash in the result chains into the next edit
    span = {
        "old_span_start": "### 团队协作",
        "old_span_end": "## 2024年总结",
        "new_text": "按需开会。\n",
        "last_read_hash": result.data["hash"],
    }
    assert tools.call("memo_replace_span", span).ok
    assert tools.call("memo_replace_span", span).data["error"] == "stale"


def test_stale_is_reported_before_other_failures(tmp_path: Path) -> None:
    tools = _memo(tmp_path)
    result = tools.call(
        "memo_replace_literal",
        {"old_text": "不存在的文本", "new_text": "x", "last_read_hash": "0" * 64},
    )
    assert result.data["error"] == "stale"


def test_every_success_has_a_diff(tmp_path: Path) -> None:
    tools = _memo(tmp_path)
    results = [
        tools.call("memo_replace_literal", {"old_text": "进行中", "new_text": "已完成"}),
        tools.call("memo_replace_literal", {"old_text": "", "new_text": "追加\n"}),
        tools.call(
            "memo_replace_span",
            {"old_span_start": "### 团队协作", "old_span_end": "##", "new_text": "x\n"},
        ),
    ]
    for result in results:
        assert result.ok, result.text
        assert result.data["diff"].startswith("--- a/MEMORY.md\n+++ b/MEMORY.md\n")
        assert "变更（diff）" not in result.text  # the diff is the seed's future: in data


def test_messages_are_chinese_whatever_the_locale(tmp_path: Path) -> None:
    (tmp_path / "MEMORY.md").write_text("a\n", encoding="utf-8")
    tools = Workspace(tmp_path, locale="en").toolset("memo")
    assert tools.call("memo_replace_literal", {"old_text": "b", "new_text": "c"}).text.startswith(
        "Error: 在记忆中找不到 old_text"
    )
