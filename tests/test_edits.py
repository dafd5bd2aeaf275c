"""Tests for the pure edit operations (filewright.edit.edits, filewright.edit.spans)."""

from __future__ import annotations

import pytest

from filewright.edit.edits import (
    Append,
    Edited,
    EditFailure,
    InsertAtLine,
    RegexReplace,
    Replace,
    SpanReplace,
    append,
    apply_batch,
    changed_range,
    insert_at_line,
    replace,
    replace_first,
    replace_regex,
    replace_span,
    unified_diff,
)


def ok(res: Edited | EditFailure) -> Edited:
    assert isinstance(res, Edited), res
    return res


def fail(res: Edited | EditFailure, code: str) -> EditFailure:
    assert isinstance(res, EditFailure), res
    assert res.code == code, res
    return res


# --------------------------------------------------------------------------- replace


def test_replace_unique_reports_strategy_and_lines() -> None:
    res = ok(replace("a\nb\nc\n", "b", "B1\nB2"))
    assert res.text == "a\nB1\nB2\nc\n"
    assert (res.replacements, res.strategy, res.changed_lines) == (1, "exact", (2, 3))


@pytest.mark.parametrize("new", ["$1", "\\g<0>", "\\1\\n", "a\\\\b", "$&", "\\"])
def test_replacement_is_literal(new: str) -> None:
    assert ok(replace("x = OLD\n", "OLD", new)).text == f"x = {new}\n"
    assert ok(replace("x = OLD OLD\n", "OLD", new, replace_all=True)).text == f"x = {new} {new}\n"


def test_no_change_is_refused() -> None:
    fail(replace("abc", "b", "b"), "no_change")
    fail(replace("x  \ny\n", "x\ny", "x\ny"), "no_change")  # fuzzy level, same text


def test_empty_old() -> None:
    fail(replace("abc", "", "x"), "empty_old")


def test_ambiguous_lists_every_location() -> None:
    text = "a\nfoo()\nb\nc\nfoo()\nd\n"
    res = fail(replace(text, "foo()", "bar()"), "ambiguous")
    assert res.detail["count"] == 2 and res.detail["strategy"] == "exact"
    locs = res.detail["locations"]
    assert [(x["line"], x["column"]) for x in locs] == [(2, 1), (5, 1)]
    assert locs[0]["context"] == "1: a\n2: foo()\n3: b\n4: c"


def test_ambiguous_only_after_normalisation() -> None:
    text = "    x = 1\nmid\n\tx = 1\n"
    res = fail(replace(text, "x = 1  ", "x = 2"), "ambiguous")
    assert res.detail["strategy"] == "indentation"
    assert [x["line"] for x in res.detail["locations"]] == [1, 3]


def test_replace_all_and_expected() -> None:
    text = "k=1\nk=1\nk=1\n"
    assert ok(replace(text, "k=1", "k=2", replace_all=True)).text == "k=2\nk=2\nk=2\n"
    assert ok(replace(text, "k=1", "k=2", expected=3)).replacements == 3
    res = fail(replace(text, "k=1", "k=2", expected=2), "count_mismatch")
    assert res.detail["found"] == 3 and res.detail["expected"] == 2
    assert [x["line"] for x in res.detail["locations"]] == [1, 2, 3]


def test_replace_all_reindents_each_region() -> None:
    text = "  if a:\n    go()\nif a:\n  go()\n"
    old, new = "    if a:\n      go()", "    if a:\n      stop()"
    res = ok(replace(text, old, new, replace_all=True))
    assert res.strategy == "indentation"
    assert res.text == "  if a:\n    stop()\nif a:\n  stop()\n"


def test_no_match_names_the_real_line() -> None:
    text = "".join(f"line {i}\n" for i in range(50)) + "def total(items):\n    return sum(items)\n"
    res = fail(replace(text, "def total(elements):\n    return sum(items)", "x"), "no_match")
    best = res.detail["closest"][0]
    assert (best["start_line"], best["end_line"]) == (51, 52)
    assert best["text"] == "def total(items):\n    return sum(items)"
    assert "token: 'elements' vs 'items'" in best["differs"]
    assert 0 < best["similarity"] < 1


def test_no_match_case_hint() -> None:
    res = fail(replace("Hello World\n", "hello world", "x"), "no_match")
    assert res.detail["closest"][0]["differs"] == ["case"]


def test_fuzzy_false() -> None:
    fail(replace("a  \n", "a\n", "b\n", fuzzy=False), "no_match")
    assert ok(replace("a  \n", "a\n", "b\n")).text == "b  \n"


def test_crlf_origin_text_and_cr_in_args() -> None:
    text = "one\ntwo\nthree\n"  # engine gives LF for a CRLF file
    res = ok(replace(text, "one\r\ntwo\r\n", "uno\r\ndos\r\n"))
    assert res.text == "uno\ndos\nthree\n" and res.strategy == "line_endings"


def test_tab_indented_file() -> None:
    text = "func main() {\n\tif ok {\n\t\trun()\n\t}\n}\n"
    res = ok(
        replace(
            text,
            "    if ok {\n        run()\n    }",
            "    if ok {\n        run(1)\n        log()\n    }",
        )
    )
    assert res.text == "func main() {\n\tif ok {\n\t\trun(1)\n\t\tlog()\n\t}\n}\n"


def test_replace_first() -> None:
    assert ok(replace_first("a a", "a", "$1")).text == "$1 a"
    fail(replace_first("abc", "z", "y"), "no_match")


# --------------------------------------------------------------------------- regex


def test_regex_count_and_groups() -> None:
    text = "v1 v2 v3\n"
    res = ok(replace_regex(text, r"v(\d)", r"w\1", count=2))
    assert res.text == "w1 w2 v3\n" and res.replacements == 2
    assert ok(replace_regex(text, r"v(\d)", r"<\g<1>>")).text == "<1> <2> <3>\n"


def test_regex_literal_replacement() -> None:
    assert ok(replace_regex("ab", "b", r"\1$0", literal_replacement=True)).text == "a\\1$0"


def test_regex_invalid_and_no_match() -> None:
    res = fail(replace_regex("abc", "a(", "x"), "invalid_regex")
    assert "missing )" in res.detail["error"]
    fail(replace_regex("abc", "a", r"\2"), "invalid_regex")
    fail(replace_regex("abc", "z+", "x"), "no_match")
    fail(replace_regex("abc", "b", "b"), "no_change")


def test_a_budgeted_regex_expands_a_template_once_per_distinct_groups() -> None:
    """Under an output budget the template is expanded per match, and an expansion made
    for the same groups is reused (50,000 equal matches of a template repeating its group
    20,000 times were built one by one up to the limit, ~3 s); the results are the
    template's, the refusal the same."""
    from filewright.core import budget, regexes
    from filewright.edit.edits import _budgeted

    rx = regexes.compile(r"(?P<w>[ab])(c?)", regexes.MULTILINE)
    expand = _budgeted(r"<\g<w>|\2|\g<0>>", 0, 10**9)
    matches = list(rx.finditer("ab ac bc ab"))
    got = [expand(m) for m in matches]
    assert got == [m.expand(r"<\g<w>|\2|\g<0>>") for m in matches]
    # a b ac bc a b: ("a", "a", "") and ("b", "b", "") come twice, each made once
    assert got[0] is got[4] and got[1] is got[5] and got[0] is not got[2]
    with budget.limit(1_000_000):
        refused = fail(replace_regex("a\n" * 50_000, "a+", r"\g<0>" * 20_000), "too_large")
    assert refused.detail["size"] > 1_000_000


def test_regex_multiline_default() -> None:
    assert ok(replace_regex("a\nb\n", "^b$", "c")).text == "a\nc\n"


# --------------------------------------------------------------------------- span (memo seed)

MEMO = (
    "# 记忆\n"
    "## 2023年总结\n"
    "### 技术栈\n"
    "主要使用 Python。\n"
    "\n"
    "### 团队协作\n"
    "三人小组。\n"
    "\n"
    "## 2024年总结\n"
    "### 技术栈\n"
    "主要使用 Python 和 Go，部分服务仍是同步架构。\n"
    "\n"
    "### 团队协作\n"
    "五人小组。\n"
)


def test_span_scenario_1_search_after() -> None:
    res = ok(
        replace_span(
            MEMO,
            "### 技术栈",
            "### 团队协作",
            "### 技术栈\n主要使用 Rust 和 TypeScript，全面迁移到异步架构。",
            search_after="## 2024年总结",
        )
    )
    assert res.text == MEMO.replace(
        "主要使用 Python 和 Go，部分服务仍是同步架构。",
        "主要使用 Rust 和 TypeScript，全面迁移到异步架构。",
    )
    assert res.notes["start_marker"] == "replaced" and res.notes["end_marker"] == "kept"
    assert res.changed_lines == (11, 11)


def test_span_scenario_2_paragraph() -> None:
    text = "背景。\n关于项目进度：" + "目前完成了需求分析，" * 50 + "预计完成时间：六月。\n"
    res = ok(
        replace_span(
            text, "关于项目进度：", "预计完成时间", "关于项目进度：已完成 80%，剩余核心功能开发中。"
        )
    )
    assert (
        res.text == "背景。\n关于项目进度：已完成 80%，剩余核心功能开发中。预计完成时间：六月。\n"
    )


def test_span_scenario_3_whole_block() -> None:
    text = "前言\n<!-- BEGIN DEPRECATED -->\n旧方案\n<!-- END DEPRECATED -->\n后记\n"
    res = ok(
        replace_span(
            text,
            "<!-- BEGIN DEPRECATED -->",
            "<!-- END DEPRECATED -->",
            "<!-- UPDATED SECTION -->\n新的实现方案\n<!-- END UPDATED -->",
        )
    )
    assert res.text == "前言\n<!-- UPDATED SECTION -->\n新的实现方案\n<!-- END UPDATED -->\n后记\n"
    assert res.notes == {
        "start_marker": "replaced",
        "end_marker": "replaced",
        "start_line": 2,
        "end_line": 4,
    }


def test_span_body_only_keeps_markers() -> None:
    text = "## A\nold body\n\n## B\n"
    assert ok(replace_span(text, "## A", "## B", "new body")).text == "## A\nnew body\n\n## B\n"
    assert ok(replace_span(text, "## A", "## B", "")).text == "## A\n## B\n"


def test_span_explicit_keep_markers() -> None:
    text = "<a>\nx\n</a>\n"
    assert (
        ok(replace_span(text, "<a>", "</a>", "<a>y", keep_markers=True)).text == "<a>\n<a>y\n</a>\n"
    )
    assert ok(replace_span(text, "<a>", "</a>", "z", keep_markers=False)).text == "z\n"


def test_span_markers_not_found() -> None:
    res = fail(
        replace_span(MEMO, "### 技术栈", "### 团队", "x", search_after="## 2025年总结"),
        "marker_not_found",
    )
    assert res.detail["marker"] == "search_after"
    res = fail(
        replace_span(MEMO, "### 架构", "### 团队协作", "x", search_after="## 2024年总结"),
        "marker_not_found",
    )
    assert res.detail["marker"] == "start" and res.detail["search_from_line"] == 9
    assert "9: ## 2024年总结" in res.detail["context"]
    res = fail(replace_span(MEMO, "### 技术栈", "### 结尾", "x"), "marker_not_found")
    assert res.detail["marker"] == "end" and res.detail["search_from_line"] == 3


def test_span_start_regex() -> None:
    res = ok(
        replace_span(
            MEMO, r"^### 技术栈.*$", "### 团队", "新内容", search_after="2024", start_is_regex=True
        )
    )
    assert "### 技术栈\n新内容\n\n### 团队协作\n五人小组。" in res.text
    fail(replace_span(MEMO, "(", "x", "y", start_is_regex=True), "invalid_regex")


# --------------------------------------------------------------------------- insert / append


@pytest.mark.parametrize(
    ("text", "line", "new", "want"),
    [
        ("a\nb\n", 0, "x", "x\na\nb\n"),
        ("a\nb\n", 1, "x\n", "a\nx\nb\n"),
        ("a\nb\n", 2, "x", "a\nb\nx\n"),
        ("a\nb", 2, "x", "a\nb\nx"),
        ("a\nb", 2, "x\ny\n", "a\nb\nx\ny"),
        ("", 0, "x", "x\n"),
    ],
)
def test_insert_at_line(text: str, line: int, new: str, want: str) -> None:
    assert ok(insert_at_line(text, line, new)).text == want


def test_insert_out_of_range() -> None:
    res = fail(insert_at_line("a\nb", 3, "x"), "line_out_of_range")
    assert res.detail == {"line": 3, "line_count": 2}
    fail(insert_at_line("a\n", -1, "x"), "line_out_of_range")


def test_append_exact() -> None:
    res = append("a", "\n## 新章节\n内容...")
    assert res.text == "a\n## 新章节\n内容..." and res.changed_lines == (1, 3)


# --------------------------------------------------------------------------- batch


def test_batch_in_order() -> None:
    res = ok(
        apply_batch(
            "a\nb\n",
            [Replace("a", "A"), RegexReplace("^b$", "B"), InsertAtLine(0, "top"), Append("end\n")],
        )
    )
    assert res.text == "top\nA\nB\nend\n"
    assert res.notes["strategies"] == ["exact", "regex", "insert", "append"]


def test_batch_rollback_names_the_failing_edit() -> None:
    text = "a\nb\n"
    res = fail(apply_batch(text, [Replace("a", "A"), Replace("zzz", "y")]), "no_match")
    assert res.detail["edit_index"] == 1
    res = fail(
        apply_batch(text, [lambda t: replace(t, "b", "c"), SpanReplace("[", "]", "x")]),
        "marker_not_found",
    )
    assert res.detail["edit_index"] == 1


# --------------------------------------------------------------------------- diff / ranges


def test_unified_diff() -> None:
    assert unified_diff("a\nb\n", "a\nc\n", "f.txt") == (
        "--- a/f.txt\n+++ b/f.txt\n@@ -1,2 +1,2 @@\n a\n-b\n+c\n"
    )
    d = unified_diff("a", "b", "f")
    assert d.endswith("-a\n\\ No newline at end of file\n+b\n\\ No newline at end of file\n")
    assert unified_diff("x", "x", "f") == ""


def test_changed_range() -> None:
    assert changed_range("a\nb\nc\n", "a\nB\nc\n") == (2, 2)
    assert changed_range("a\nb\nc\n", "a\nc\n") == (2, 2)
    assert changed_range("a\nb\n", "a\n") is None
    assert changed_range("a\n", "a\n") is None
