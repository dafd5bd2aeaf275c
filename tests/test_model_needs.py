"""What a model needs to make its next call succeed reaches it: issue 33's rows.

Each test calls a toolset through the API and asserts on `Result.text` (what every surface
shows the model), never only on `data`.
"""

from __future__ import annotations

import base64
from pathlib import Path

from samples import pdf, png

from filewright import Workspace


def put(path: Path, text: str) -> str:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return str(path)


# -- claude ---------------------------------------------------------------------------------


def test_claude_edit_several_matches_shows_every_location(tmp_path: Path) -> None:
    tools = Workspace(tmp_path).toolset("claude")
    path = put(tmp_path / "a.py", "a = 1\nb = 2\na = 1\n")
    tools.call("Read", {"file_path": path})
    result = tools.call("Edit", {"file_path": path, "old_string": "a = 1", "new_string": "a = 3"})
    assert result.data["code"] == "MULTIPLE_MATCHES"
    assert "- line 1, column 1:" in result.text and "- line 3, column 1:" in result.text
    # a multi-line old string: the seed's per-line search finds nothing, the engine does
    path = put(tmp_path / "b.py", "x\ny\nz\nx\ny\n")
    tools.call("Read", {"file_path": path})
    multi = tools.call("Edit", {"file_path": path, "old_string": "x\ny", "new_string": "q"})
    assert multi.data["details"]["locations"] == []  # the seed's own field, as the seed has it
    assert "- line 1, column 1:" in multi.text and "- line 4, column 1:" in multi.text
    plain = Workspace(tmp_path).toolset("claude", plain=True)
    plain.call("Read", {"file_path": path})
    seed_only = plain.call("Edit", {"file_path": path, "old_string": "x\ny", "new_string": "q"})
    assert "Locations" not in seed_only.text


def test_claude_read_cut_at_2000_lines_says_so(tmp_path: Path) -> None:
    tools = Workspace(tmp_path).toolset("claude")
    path = put(tmp_path / "a.txt", "".join(f"{i}\n" for i in range(1, 2501)))
    result = tools.call("Read", {"file_path": path})
    assert '"truncated": true' in result.text
    assert "Showing lines 1-2000 of 2500. Use offset=2001 to read more." in result.text
    whole = tools.call("Read", {"file_path": path, "offset": 2001})
    assert "metadata" not in whole.text  # nothing cut: the content alone


def test_claude_edit_not_found_shows_the_closest_text_with_line_numbers(tmp_path: Path) -> None:
    tools = Workspace(tmp_path).toolset("claude", strict=True)
    path = put(tmp_path / "a.py", "def f():\n    return compute(a, b)\n")
    tools.call("Read", {"file_path": path})
    result = tools.call(
        "Edit", {"file_path": path, "old_string": "return compute(a, c)", "new_string": "x"}
    )
    assert result.data["code"] == "STRING_NOT_FOUND"
    assert "2\t    return compute(a, b)" in result.text


def test_claude_read_of_an_image_or_pdf_counts_as_a_read(tmp_path: Path) -> None:
    tools = Workspace(tmp_path).toolset("claude")
    image, document = tmp_path / "a.png", tmp_path / "d.pdf"
    image.write_bytes(png())
    document.write_bytes(pdf(["page one"]))
    for target in (image, document):
        assert tools.call("Read", {"file_path": str(target)}).ok
        new = b"replaced " + target.name.encode()
        result = tools.call(
            "Write",
            {
                "file_path": str(target),
                "content": base64.b64encode(new).decode(),
                "encoding": "base64",
            },
        )
        assert result.ok, result.text
        assert target.read_bytes() == new


# -- gemini ---------------------------------------------------------------------------------


def test_gemini_every_tool_resolves_a_relative_path_against_the_root(tmp_path: Path) -> None:
    from filewright import approve_all

    tools = Workspace(tmp_path, confirm=approve_all).toolset("gemini")
    assert tools.call("write_file", {"file_path": "sub/notes.txt", "content": "one\n"}).ok
    assert (tmp_path / "sub" / "notes.txt").read_text() == "one\n"
    edit = {"file_path": "sub/notes.txt", "old_string": "one", "new_string": "two"}
    assert tools.call("replace", edit).ok
    assert (tmp_path / "sub" / "notes.txt").read_text() == "two\n"
    made = {"file_path": "made.txt", "old_string": "", "new_string": "new\n"}
    assert tools.call("replace", made).ok and (tmp_path / "made.txt").read_text() == "new\n"
    assert tools.call("read_file", {"path": "sub/notes.txt"}).text == "two"
    assert "notes.txt" in tools.call("list_directory", {"path": "sub"}).text
    assert "notes.txt" in tools.call("glob", {"pattern": "*.txt", "path": "sub"}).text
    grep = tools.call("search_file_content", {"pattern": "two", "path": "sub"})
    assert "L1: two" in grep.text
    outside = tools.call("write_file", {"file_path": "../x.txt", "content": "x"})
    assert not outside.ok and "within one of the workspace directories" in outside.text


def test_gemini_replace_failures_show_where_the_text_is(tmp_path: Path) -> None:
    tools = Workspace(tmp_path).toolset("gemini")
    put(tmp_path / "a.py", "def total(items):\n    return sum(items)\n")
    result = tools.call(
        "replace", {"file_path": "a.py", "old_string": "return summ(items)", "new_string": "x"}
    )
    assert "L2:     return sum(items)" in result.text
    put(tmp_path / "b.py", "x = 1\ny = 2\nx = 1\n")
    several = tools.call("replace", {"file_path": "b.py", "old_string": "x = 1", "new_string": "z"})
    assert "- line 1:" in several.text and "- line 3:" in several.text


def test_gemini_svg_is_read_as_text(tmp_path: Path) -> None:
    svg = '<svg xmlns="http://www.w3.org/2000/svg"><rect width="1"/></svg>\n'
    put(tmp_path / "icon.svg", svg)
    result = Workspace(tmp_path).toolset("gemini").call("read_file", {"path": "icon.svg"})
    assert result.text == svg.rstrip("\n") and result.images == []


# -- companion and memo ---------------------------------------------------------------------


def test_companion_edit_failures_show_where_the_text_is(tmp_path: Path) -> None:
    tools = Workspace(tmp_path).toolset("companion")
    put(tmp_path / "notes.md", "- 喜欢猫\n- 住在北京\n- 喜欢猫\n")
    several = tools.call("edit", {"path": "notes.md", "oldText": "喜欢猫", "newText": "x"})
    assert several.text.startswith("找到 2 处匹配。")
    assert "- 第 1 行：" in several.text and "- 第 3 行：" in several.text
    missing = tools.call("edit", {"path": "notes.md", "oldText": "- 住在上海", "newText": "x"})
    assert missing.text.startswith("无法在 notes.md 中找到指定文本。")
    assert "2: - 住在北京" in missing.text


def test_memo_literal_not_found_shows_the_closest_line(tmp_path: Path) -> None:
    (tmp_path / "MEMORY.md").write_text("# 记忆\n项目状态：进行中\n")
    tools = Workspace(tmp_path).toolset("memo")
    result = tools.call("memo_replace_literal", {"old_text": "项目状态：暂停", "new_text": "x"})
    assert "最接近的内容（第 2 行）：\n项目状态：进行中" in result.text


def test_text_editor_not_found_shows_the_closest_text(tmp_path: Path) -> None:
    path = put(tmp_path / "a.py", "a = 1\nb = 2\n")
    tools = Workspace(tmp_path).toolset("text_editor")
    result = tools.call(
        "str_replace_based_edit_tool",
        {"command": "str_replace", "path": path, "old_str": "b = 3", "new_str": "x"},
    )
    assert "     2\tb = 2" in result.text


def test_gemini_search_shows_a_match_past_column_500(tmp_path: Path) -> None:
    from filewright import search

    line = "var a=1;" * 200 + "function needle(){}" + "var b=2;" * 300
    put(tmp_path / "min.js", line + "\n")
    result = (
        Workspace(tmp_path).toolset("gemini").call("search_file_content", {"pattern": "needle"})
    )
    assert "function needle(){}" in result.text
    assert "L1: [1484 characters before] ..." in result.text
    # every engine, and a file large enough to be streamed line by line
    put(tmp_path / "big.js", "x" * (1 << 20) + "\n" + line + "\n")
    for engine in ("python", "rg"):
        found = search.grep(tmp_path, "needle", engine=engine)
        shown = [m.text for f in found.files for m in f.matches]
        assert len(shown) == 2 and all("function needle(){}" in text for text in shown), engine


def test_gemini_writes_into_a_gbk_file_never_dead_end(tmp_path: Path) -> None:
    from filewright import approve_all

    original = "价格：一百元\n这是中文文本，用来检测编码。\n"
    (tmp_path / "g.txt").write_bytes(original.encode("gbk"))
    tools = Workspace(tmp_path, confirm=approve_all).toolset("gemini")
    edit = {"file_path": "g.txt", "old_string": "一百元", "new_string": "€100"}
    refused = tools.call("replace", edit)
    assert not refused.ok and "write_file, which saves it as UTF-8" in refused.text
    assert (tmp_path / "g.txt").read_bytes() == original.encode("gbk")  # nothing written
    written = tools.call("write_file", {"file_path": "g.txt", "content": "价格：€100\n"})
    assert written.ok and "(saved as UTF-8:" in written.text
    assert (tmp_path / "g.txt").read_bytes() == "价格：€100\n".encode()
    assert tools.call("replace", edit | {"old_string": "€100", "new_string": "€200"}).ok


# -- differences declared, not fixed --------------------------------------------------------


def test_the_audits_undeclared_differences_are_declared() -> None:
    text = (Path(__file__).resolve().parents[1] / "docs" / "deviations.md").read_text()
    for declared in (
        "Images and PDFs are recognised by their content",  # claude: sniffing
        "compiled with `MULTILINE`",  # worker replace_in_file
        "A text file over it is read in the requested range by streaming",  # claude Read
        "Optional: exactly one of `old_span_start` and `old_span_start_regex`",  # memo
        "File extension .x is not in allowed list",  # claude's allow-list
        "`[PDF file: NAME, N page(s); showing pages A-B]`",  # the heading as it is
    ):
        assert declared in text, declared
    assert "under the seed's `[PDF file: NAME]` heading" not in text  # the old misquote


def test_worker_regex_is_multiline_as_declared(tmp_path: Path) -> None:
    from filewright import approve_all

    (tmp_path / "a.env").write_text("A=1\nA=2\n")
    tools = Workspace(tmp_path, confirm=approve_all).toolset("worker")
    args = {"path": str(tmp_path / "a.env"), "old": "^A=", "new": "B=", "regex": True}
    assert tools.call("replace_in_file", args).ok
    assert (tmp_path / "a.env").read_text() == "B=1\nB=2\n"
