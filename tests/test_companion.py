"""The `companion` toolset: the seed's tools, messages, permission table and memory switch."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
from forkserver import ForkServer, shared

from filewright import ConfirmRequest, Workspace
from filewright.tools.schemas import FORMATS
from filewright.toolsets.companion_home import default_workspace

SOUL_TEXT = "# 人格\n性格：温柔、耐心\n说话风格：简洁\n"
USER_TEXT = "# 用户\n姓名：小明\n城市：北京\n职业：学生\n"
MEMORY_TEXT = "# 记忆\n\n## 待办\n- [ ] 给妈妈打电话\n- [ ] 提醒小明交作业\n\n## 记忆条目\n- 2024-05-01 小明喜欢猫\n"


@pytest.fixture
def root(tmp_path: Path) -> Path:
    """A companion workspace two levels below tmp_path, with the three files."""
    ws = tmp_path / "app" / "workspace"
    ws.mkdir(parents=True)
    (ws / "SOUL.md").write_text(SOUL_TEXT, encoding="utf-8")
    (ws / "USER.md").write_text(USER_TEXT, encoding="utf-8")
    (ws / "MEMORY.md").write_text(MEMORY_TEXT, encoding="utf-8")
    return ws


def _tools(root: Path, *, memory: bool = True, confirm: object = None, **kw: object):  # type: ignore[no-untyped-def]
    return Workspace(root, memory=memory, confirm=confirm, **kw).toolset("companion")  # type: ignore[arg-type]


# -- definitions ------------------------------------------------------------------------


def test_definitions_use_the_seed_texts(root: Path) -> None:
    defs = {d["function"]["name"]: d["function"] for d in _tools(root).definitions("openai")}
    assert list(defs) == ["read", "write", "edit"]
    assert defs["read"]["description"] == "读取工作区中的文件内容"
    assert defs["write"]["description"] == "创建或覆盖文件。自动创建父目录。"
    assert defs["edit"]["description"] == "通过精确文本查找替换来编辑文件。oldText 必须精确匹配。"
    props = {name: d["parameters"]["properties"] for name, d in defs.items()}
    for name in defs:
        assert props[name]["path"]["description"] == "文件路径（相对于工作区根目录）"
    assert props["write"]["content"]["description"] == "要写入的完整内容"
    assert props["edit"]["oldText"]["description"] == "要查找并替换的精确文本（必须唯一匹配）"
    assert props["edit"]["newText"]["description"] == "替换后的新文本"
    assert defs["edit"]["parameters"]["required"] == ["path", "oldText", "newText"]
    assert defs["write"]["parameters"]["required"] == ["path", "content"]


def test_memory_on_definitions_name_the_memory_files_with_list_files(root: Path) -> None:
    tools = Workspace(root).toolset("companion", list_files=True)
    path_desc = tools.definitions("openai")[0]["function"]["parameters"]["properties"]
    text = path_desc["path"]["description"]
    assert "SOUL.md" in text and "USER.md" in text and "MEMORY.md" in text


@pytest.mark.parametrize("fmt", FORMATS)
def test_memory_off_definitions_never_mention_user_or_memory(root: Path, fmt: str) -> None:
    for tools in (
        _tools(root, memory=False),
        Workspace(root, memory=False).toolset("companion", list_files=True),
    ):
        dumped = json.dumps(tools.definitions(fmt), ensure_ascii=False).lower()
        assert "user" not in dumped
        assert "memory" not in dumped
        assert [t.name for t in tools.tools()] == ["read", "write", "edit"]
    assert "soul.md" in dumped  # with list_files, SOUL.md is named


def test_switch_flipped_on_a_live_workspace(root: Path) -> None:
    ws = Workspace(root, memory=True)
    tools = ws.toolset("companion")
    assert tools.call("read", {"path": "USER.md"}).ok
    ws.memory = False
    assert "USER" not in json.dumps(tools.definitions("anthropic"), ensure_ascii=False).upper()
    assert tools.call("read", {"path": "USER.md"}).text == "文件不存在: USER.md"
    ws.memory = True
    assert tools.call("read", {"path": "USER.md"}).text == USER_TEXT


# -- the seed's usage scenarios ---------------------------------------------------------


def test_update_a_user_field(root: Path) -> None:
    result = _tools(root).call(
        "edit", {"path": "USER.md", "oldText": "城市：北京", "newText": "城市：上海"}
    )
    assert result.ok
    assert result.text == "成功替换了 USER.md 中的文本"
    assert (root / "USER.md").read_text(encoding="utf-8") == USER_TEXT.replace("北京", "上海")
    assert "-城市：北京\n+城市：上海\n" in result.data["diff"]


def test_append_a_memory_entry_with_edit(root: Path) -> None:
    tools = _tools(root)
    last = "- 2024-05-01 小明喜欢猫"
    result = tools.call(
        "edit",
        {"path": "MEMORY.md", "oldText": last, "newText": last + "\n- 2024-05-02 小明考试得了满分"},
    )
    assert result.ok, result.text
    assert result.text == "成功替换了 MEMORY.md 中的文本"
    assert (
        (root / "MEMORY.md")
        .read_text(encoding="utf-8")
        .endswith("- 2024-05-01 小明喜欢猫\n- 2024-05-02 小明考试得了满分\n")
    )


def test_mark_a_memory_todo_done(root: Path) -> None:
    result = _tools(root).call(
        "edit",
        {"path": "MEMORY.md", "oldText": "- [ ] 给妈妈打电话", "newText": "- [x] 给妈妈打电话"},
    )
    assert result.text == "成功替换了 MEMORY.md 中的文本"
    content = (root / "MEMORY.md").read_text(encoding="utf-8")
    assert "- [x] 给妈妈打电话\n- [ ] 提醒小明交作业" in content


def test_change_a_soul_trait_after_approval(root: Path) -> None:
    seen: list[ConfirmRequest] = []

    def approve(request: ConfirmRequest) -> bool:
        seen.append(request)
        return True

    result = _tools(root, confirm=approve).call(
        "edit", {"path": "SOUL.md", "oldText": "性格：温柔、耐心", "newText": "性格：温柔、幽默"}
    )
    assert result.text == "成功替换了 SOUL.md 中的文本"
    assert (root / "SOUL.md").read_text(encoding="utf-8") == SOUL_TEXT.replace("耐心", "幽默")
    assert len(seen) == 1
    assert seen[0].toolset == "companion"
    assert seen[0].path.endswith("SOUL.md")
    assert "-性格：温柔、耐心\n+性格：温柔、幽默\n" in seen[0].diff


def test_change_a_soul_trait_rejected(root: Path) -> None:
    seen: list[ConfirmRequest] = []

    def reject(request: ConfirmRequest) -> bool:
        seen.append(request)
        return False

    tools = _tools(root, confirm=reject)
    result = tools.call("edit", {"path": "SOUL.md", "oldText": "简洁", "newText": "啰嗦"})
    assert not result.ok
    assert result.text == "用户拒绝了此次修改。"
    result = tools.call("write", {"path": "SOUL.md", "content": "全新的人格\n"})
    assert result.text == "用户拒绝了此次修改。"
    assert len(seen) == 2 and "+全新的人格\n" in seen[1].diff
    assert (root / "SOUL.md").read_text(encoding="utf-8") == SOUL_TEXT


def test_soul_change_refused_when_nobody_can_be_asked(root: Path) -> None:
    tools = _tools(root, confirm=None)
    result = tools.call("edit", {"path": "SOUL.md", "oldText": "简洁", "newText": "啰嗦"})
    assert not result.ok
    assert result.text == "修改 SOUL.md 需要用户确认，但当前无法询问用户，因此没有修改。"
    assert result.data["error"] == "no_confirmation"
    assert (root / "SOUL.md").read_text(encoding="utf-8") == SOUL_TEXT
    assert tools.call("read", {"path": "SOUL.md"}).text == SOUL_TEXT


def test_creating_soul_needs_confirmation_too(tmp_path: Path) -> None:
    assert not _tools(tmp_path).call("write", {"path": "SOUL.md", "content": "x"}).ok
    assert not (tmp_path / "SOUL.md").exists()
    result = _tools(tmp_path, confirm=True).call("write", {"path": "SOUL.md", "content": "温柔\n"})
    assert result.text == "成功写入 7 字节到 SOUL.md"


def test_user_and_memory_need_no_confirmation(root: Path) -> None:
    def never(_request: ConfirmRequest) -> bool:
        raise AssertionError("USER.md and MEMORY.md are written freely")

    tools = _tools(root, confirm=never)
    assert tools.call("write", {"path": "USER.md", "content": "新用户\n"}).ok
    assert tools.call("edit", {"path": "MEMORY.md", "oldText": "猫", "newText": "狗"}).ok


# -- read / write / edit behaviour ------------------------------------------------------


def test_read_returns_the_text(root: Path) -> None:
    result = _tools(root).call("read", {"path": "MEMORY.md"})
    assert result.ok and result.text == MEMORY_TEXT
    assert len(result.data["hash"]) == 64


def test_missing_file(root: Path) -> None:
    tools = _tools(root)
    assert tools.call("read", {"path": "notes.md"}).text == "文件不存在: notes.md"
    result = tools.call("edit", {"path": "memory/today.md", "oldText": "a", "newText": "b"})
    assert result.text == "文件不存在: memory/today.md"
    assert not (root / "memory").exists()


def test_write_counts_utf8_bytes_and_creates_parents(root: Path) -> None:
    content = "今天和小明聊了猫。\n"
    result = _tools(root).call("write", {"path": "memory/today.md", "content": content})
    n = len(content.encode("utf-8"))
    assert result.text == f"成功写入 {n} 字节到 memory/today.md"
    assert result.data["content_bytes"] == n
    assert (root / "memory" / "today.md").read_text(encoding="utf-8") == content


def test_write_overwrites(root: Path) -> None:
    result = _tools(root).call("write", {"path": "USER.md", "content": "# 用户\n"})
    assert result.text == "成功写入 9 字节到 USER.md"
    assert (root / "USER.md").read_text(encoding="utf-8") == "# 用户\n"


def test_edit_error_table(root: Path) -> None:
    tools = _tools(root)
    result = tools.call(
        "edit", {"path": "USER.md", "oldText": "城市：广州", "newText": "城市：上海"}
    )
    assert result.text == (  # the seed's message, then the closest real text, numbered
        "无法在 USER.md 中找到指定文本。请确保文本精确匹配。\n\n最接近的内容（第 3 行）：\n3: 城市：北京"
    )
    result = tools.call("edit", {"path": "MEMORY.md", "oldText": "- [ ] ", "newText": "- [x] "})
    assert result.text.startswith("找到 2 处匹配。请提供更多上下文使其唯一。\n\n匹配位置：\n- 第 ")
    plain = Workspace(root).toolset("companion", plain=True)
    result = plain.call("edit", {"path": "MEMORY.md", "oldText": "- [ ] ", "newText": "- [x] "})
    assert result.text == "找到 2 处匹配。请提供更多上下文使其唯一。"  # the seed's message alone
    result = tools.call(
        "edit", {"path": "USER.md", "oldText": "城市：北京", "newText": "城市：北京"}
    )
    assert result.text == "替换后内容没有变化。"
    assert (root / "USER.md").read_text(encoding="utf-8") == USER_TEXT
    assert (root / "MEMORY.md").read_text(encoding="utf-8") == MEMORY_TEXT


def test_edit_same_text_matched_loosely_is_still_a_no_op(root: Path) -> None:
    (root / "USER.md").write_text("姓名：小明  \n城市：北京\n", encoding="utf-8")
    result = _tools(root).call(
        "edit",
        {
            "path": "USER.md",
            "oldText": "姓名：小明\n城市：北京",
            "newText": "姓名：小明\n城市：北京",
        },
    )
    assert result.text == "替换后内容没有变化。"
    assert (root / "USER.md").read_text(encoding="utf-8") == "姓名：小明  \n城市：北京\n"


def test_edit_tolerates_whitespace_differences(root: Path) -> None:
    (root / "USER.md").write_text("# 用户\n  姓名：小明  \n  城市：北京\n", encoding="utf-8")
    result = _tools(root).call(
        "edit",
        {
            "path": "USER.md",
            "oldText": "姓名：小明\n城市：北京",
            "newText": "姓名：小明\n城市：深圳",
        },
    )
    assert result.text == "成功替换了 USER.md 中的文本"
    assert result.data["strategy"] != "exact"
    # the file keeps its indentation and the untouched line its trailing spaces
    assert (root / "USER.md").read_text(
        encoding="utf-8"
    ) == "# 用户\n  姓名：小明  \n  城市：深圳\n"


def test_edit_with_empty_old_text(root: Path) -> None:
    result = _tools(root).call("edit", {"path": "USER.md", "oldText": "", "newText": "x"})
    assert not result.ok and result.text.startswith("oldText 不能为空")


def test_messages_are_chinese_whatever_the_locale(root: Path) -> None:
    tools = _tools(root, locale="en")
    assert tools.call("read", {"path": "nope.md"}).text == "文件不存在: nope.md"
    assert tools.call("read", {"path": "/etc/hosts"}).text == "不允许访问工作区外的文件"


def test_dry_run_previews(root: Path) -> None:
    result = _tools(root, dry_run=True).call(
        "edit", {"path": "USER.md", "oldText": "北京", "newText": "上海"}
    )
    assert result.ok and result.text.startswith("[预览]") and "+城市：上海" in result.text
    assert (root / "USER.md").read_text(encoding="utf-8") == USER_TEXT


# -- path safety ------------------------------------------------------------------------


@pytest.mark.parametrize("path", ["../../../etc/passwd", "/etc/hosts", "../../secrets.txt"])
def test_paths_outside_the_workspace(root: Path, path: str) -> None:
    tools = _tools(root)
    outside = "不允许访问工作区外的文件"
    assert tools.call("read", {"path": path}).text == outside
    assert tools.call("write", {"path": path, "content": "x"}).text == outside
    assert tools.call("edit", {"path": path, "oldText": "a", "newText": "b"}).text == outside
    assert not (root.parent.parent / "secrets.txt").exists()


def test_symlink_leading_outside(root: Path, tmp_path: Path) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("secret\n")
    (root / "link.md").symlink_to(secret)
    tools = _tools(root)
    assert tools.call("read", {"path": "link.md"}).text == "不允许访问工作区外的文件"
    assert (
        tools.call("write", {"path": "link.md", "content": "x"}).text == "不允许访问工作区外的文件"
    )
    assert secret.read_text() == "secret\n"


def test_allowed_paths_from_the_seed(root: Path) -> None:
    tools = _tools(root, confirm=True)
    assert tools.call("read", {"path": "SOUL.md"}).ok
    assert tools.call("read", {"path": "USER.md"}).ok
    assert tools.call("write", {"path": "memory/today.md", "content": "x"}).ok


# -- memory off -------------------------------------------------------------------------


HIDDEN_NAMES = [
    "USER.md",
    "MEMORY.md",
    "user.md",
    "Memory.MD",
    "./USER.md",
    "sub/../MEMORY.md",
    "MEMORY.md.",
    "ＭＥＭＯＲＹ.md",
    "USER.md/notes.txt",
]


@pytest.mark.parametrize("path", HIDDEN_NAMES)
def test_memory_off_refuses_as_if_missing(root: Path, path: str) -> None:
    (root / "sub").mkdir()
    tools = _tools(root, memory=False, confirm=True)
    expected = f"文件不存在: {path}"
    for tool, args in [
        ("read", {"path": path}),
        ("write", {"path": path, "content": "x"}),
        ("edit", {"path": path, "oldText": "小明", "newText": "小红"}),
    ]:
        result = tools.call(tool, args)
        assert not result.ok
        assert result.text == expected
        assert result.data == {"error": "not_found"}
    assert (root / "USER.md").read_text(encoding="utf-8") == USER_TEXT
    assert (root / "MEMORY.md").read_text(encoding="utf-8") == MEMORY_TEXT


def test_memory_off_refuses_a_symlink_to_memory(root: Path) -> None:
    (root / "notes.md").symlink_to(root / "MEMORY.md")
    (root / "alias").symlink_to(root)
    tools = _tools(root, memory=False)
    assert tools.call("read", {"path": "notes.md"}).text == "文件不存在: notes.md"
    assert tools.call("read", {"path": "alias/USER.md"}).text == "文件不存在: alias/USER.md"
    assert tools.call("write", {"path": "notes.md", "content": "x"}).text == "文件不存在: notes.md"
    assert (root / "MEMORY.md").read_text(encoding="utf-8") == MEMORY_TEXT


def test_memory_off_cannot_create_memory_files(tmp_path: Path) -> None:
    tools = _tools(tmp_path, memory=False)
    assert (
        tools.call("write", {"path": "MEMORY.md", "content": "x"}).text == "文件不存在: MEMORY.md"
    )
    assert list(tmp_path.iterdir()) == []


def test_memory_off_soul_is_unaffected(root: Path) -> None:
    seen: list[ConfirmRequest] = []
    tools = _tools(root, memory=False, confirm=lambda r: seen.append(r) or True)
    assert tools.call("read", {"path": "SOUL.md"}).text == SOUL_TEXT
    result = tools.call("edit", {"path": "SOUL.md", "oldText": "简洁", "newText": "活泼"})
    assert result.text == "成功替换了 SOUL.md 中的文本"
    assert len(seen) == 1
    assert tools.call("write", {"path": "notes.md", "content": "x"}).ok


# -- command line and default workspace -------------------------------------------------


@pytest.fixture(scope="module")
def forks(request: pytest.FixtureRequest) -> ForkServer:
    return shared(request.session)


def _cli(
    forks: ForkServer, *args: str, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """The `filewright` command, forked from the warm interpreter (tests/forkserver.py),
    with an empty stdin."""
    return forks.run(["filewright", *args], env={**os.environ, **(env or {})}, timeout=60)


def test_cli_memory_off_hides_user(root: Path, forks: ForkServer) -> None:
    base = ["call", "--toolset", "companion", "--root", str(root)]
    done = _cli(forks, *base, "--memory", "off", "read", '{"path": "USER.md"}')
    assert done.returncode == 1, done.stderr
    assert json.loads(done.stdout)["text"] == "文件不存在: USER.md"
    done = _cli(forks, *base, "--memory", "on", "read", '{"path": "USER.md"}')
    assert done.returncode == 0
    assert json.loads(done.stdout)["text"] == USER_TEXT


def test_cli_soul_needs_yes(root: Path, forks: ForkServer) -> None:
    base = ["call", "--toolset", "companion", "--root", str(root), "--locale", "zh"]
    args = '{"path": "SOUL.md", "oldText": "简洁", "newText": "活泼"}'
    done = _cli(forks, *base, "edit", args)
    assert done.returncode == 1 and "需要用户确认" in json.loads(done.stdout)["text"]
    done = _cli(forks, *base, "--yes", "edit", args)
    assert done.returncode == 0
    assert json.loads(done.stdout)["text"] == "成功替换了 SOUL.md 中的文本"


def test_cli_tools_memory_off(forks: ForkServer, tmp_path: Path) -> None:
    env = {"FILEWRIGHT_COMPANION_DIR": str(tmp_path / "companion")}
    done = _cli(
        forks,
        "tools",
        "--toolset",
        "companion",
        "--memory",
        "off",
        "--format",
        "mcp",
        env=env,
    )
    assert done.returncode == 0, done.stderr
    assert [d["name"] for d in json.loads(done.stdout)] == ["read", "write", "edit"]
    assert "user" not in done.stdout.lower() and "memory" not in done.stdout.lower()


def test_default_workspace(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("FILEWRIGHT_COMPANION_DIR", raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    path = default_workspace()
    assert path == tmp_path / "data" / "filewright" / "companion"
    assert path.is_dir()
    monkeypatch.setenv("FILEWRIGHT_COMPANION_DIR", str(tmp_path / "mine"))
    assert default_workspace() == tmp_path / "mine" and (tmp_path / "mine").is_dir()
