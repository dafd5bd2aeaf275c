"""The `companion` toolset: `read` / `write` / `edit` on an AI companion's workspace.

Seed: `companion-workspace-tools.md`. The workspace holds the companion's SOUL.md
(personality), USER.md (what it knows about the user) and MEMORY.md (long-term memory),
plus any other files it creates (e.g. `memory/today.md`).

Tools (names, descriptions and parameter descriptions are the seed's, in Chinese):

- `read(path)`: the file's text (UTF-8 decoded; newlines as "\\n").
- `write(path, content)`: create or overwrite; parent directories are created.
  Success: `成功写入 N 字节到 path`, where N is the number of UTF-8 bytes of `content`
  (what the agent asked to write; an existing file keeps its own newline style and
  encoding on disk, so `data["bytes"]` reports the bytes actually written).
- `edit(path, oldText, newText)`: exact match first, then the engine's ladder of
  meaning-preserving normalisations (whitespace, indentation, line endings …); one match
  required; a replacement that changes nothing (including `oldText == newText`) is refused.
  Success: `成功替换了 path 中的文本`.

Files above the workspace's `stream_above_bytes` (10 MB) are written and edited by the
streamed engine (exact match only, memory bounded; see docs/large-files.md); `read`
returns the whole text and so stops at the in-memory limit.

`path` is shown in messages exactly as the agent gave it. Every message is the seed's
Chinese wording, whatever the workspace locale (the seed defines only Chinese); failures
outside the seed's error table get Chinese messages of the same style (`MESSAGES`).
A failed `edit` is followed, after the seed's message, by where the text is: every match
of an ambiguous `oldText` with its numbered context (`匹配位置：`), or the most similar real
text with its line numbers (`最接近的内容`); the option `plain=True` leaves the seed's
message alone. The diff and the rest are in `Result.data`.

Permissions (the toolset's policy profile, `profile_rules`):

| file      | memory on                  | memory off                 |
|-----------|----------------------------|----------------------------|
| SOUL.md   | read; write after confirm  | read; write after confirm  |
| USER.md   | read and write freely      | hidden                     |
| MEMORY.md | read and write freely      | hidden                     |

The rules name the files at the workspace root. The policy matches case-insensitively and
checks both the name the agent gave and its real target, so with memory off `user.md`,
`./USER.md`, `sub/../MEMORY.md` and a symlink to MEMORY.md are all refused with
`文件不存在: {path}`, exactly as for a file that does not exist (for `write` too: such a
file cannot be created either). Changing SOUL.md asks the workspace's `confirm` callback
with the diff; a refusal gives `用户拒绝了此次修改。`, and when nobody can be asked
(`confirm=None`) the change is refused with a message saying so.

How the function-calling definitions follow the memory switch: the three tools are always
registered (SOUL.md needs all of them), with the seed's descriptions, which name no file,
so with memory off no definition mentions USER.md or MEMORY.md. With the option
`list_files=True` the `path` parameter's description is followed by the list of workspace
files the model may use: SOUL.md, USER.md and MEMORY.md with memory on, only SOUL.md with
memory off. The switch is read from `workspace.memory` each time the tools are listed or
called, so flipping it on a live workspace takes effect at once.
"""

from __future__ import annotations

from typing import Any, ClassVar

from filewright.core.messages import failure_text
from filewright.core.result import Failure, OperationFailed, Result
from filewright.edit import edits
from filewright.engine.change import Change, Outcome
from filewright.policy.rules import Access, Rule
from filewright.read import readers
from filewright.tools.base import Tool, Toolset
from filewright.toolsets.common import locations_text
from filewright.toolsets.streaming import stream_replace, stream_write

SOUL, USER, MEMORY = "SOUL.md", "USER.md", "MEMORY.md"

PATH_DESCRIPTION = "文件路径（相对于工作区根目录）"
FILES_MEMORY_ON = (
    "。工作区文件：SOUL.md（人格设定，修改需用户确认）、USER.md（用户信息）、MEMORY.md（长期记忆）"
)
FILES_MEMORY_OFF = "。工作区文件：SOUL.md（人格设定，修改需用户确认）"

READ_DESCRIPTION = "读取工作区中的文件内容"
WRITE_DESCRIPTION = "创建或覆盖文件。自动创建父目录。"
EDIT_DESCRIPTION = "通过精确文本查找替换来编辑文件。oldText 必须精确匹配。"

# Every failure the engine can report, in the seed's words (its error table) or, for
# failures the seed does not list, in Chinese of the same style. {path}: as given.
MESSAGES: dict[str, str] = {
    # the seed's error table, word for word
    "not_found": "文件不存在: {path}",
    "hidden": "文件不存在: {path}",
    "outside": "不允许访问工作区外的文件",
    "no_match": "无法在 {path} 中找到指定文本。请确保文本精确匹配。",
    "ambiguous": "找到 {count} 处匹配。请提供更多上下文使其唯一。",
    "no_change": "替换后内容没有变化。",
    "rejected": "用户拒绝了此次修改。",
    # the rest
    "no_confirmation": "修改 {path} 需要用户确认，但当前无法询问用户，因此没有修改。",
    "empty_old": "oldText 不能为空。请提供文件中要替换的精确文本。",
    "invalid": "路径无效: {path}",
    "symlink_loop": "路径无效: {path} 含有符号链接循环",
    "changed": "不允许访问工作区外的文件",
    "is_directory": "{path} 是目录，不是文件",
    "not_directory": "路径无效: {path}",
    "not_regular": "{path} 不是普通文件",
    "denied": "不允许访问此文件: {path}",
    "protected": "不允许修改受保护的文件: {path}",
    "permission": "没有权限访问 {path}",
    "parent_missing": "父目录不存在: {path}",
    "binary": "{path} 是二进制文件，不能作为文本读取或编辑",
    "undecodable": "{path} 不是有效的文本文件（无法识别编码），不能读取或编辑",
    "unencodable": "无法写入 {path}: 内容中有文件编码无法表示的字符",
    "too_large": "文件过大: {path}",
    "stale": "{path} 已被其他程序修改，请重新读取后再修改",
    "busy": "{path} 正被另一个进程使用，请稍后重试",
    "io_error": "无法访问 {path}",
}


def where_hint(failure: Failure, limit: int = 10) -> str:
    """Where the text is, in the seed's Chinese: every match of an ambiguous `oldText`
    with its numbered context, or the most similar real text with its line numbers."""
    if failure.code == "ambiguous":
        return locations_text(
            list(failure.detail.get("locations") or []),
            "匹配位置：",
            lambda line: f"- 第 {line} 行：",
            lambda rest: f"（另有 {rest} 处未列出）",
            limit,
        )
    if failure.code == "no_match":
        close = [c for c in failure.detail.get("closest") or [] if c.get("similarity", 0) >= 0.5]
        if not close:
            return ""
        first, last = int(close[0]["start_line"]), int(close[0]["end_line"])
        span = f"第 {first} 行" if first == last else f"第 {first}-{last} 行"
        body = str(close[0].get("text", "")).split("\n")
        numbered = "\n".join(f"{first + i}: {line}" for i, line in enumerate(body))
        return f"\n\n最接近的内容（{span}）：\n{numbered}"
    return ""


class CompanionToolset(Toolset):
    """`read` / `write` / `edit` with the companion's permission table and memory switch."""

    name = "companion"
    profile: ClassVar[tuple[Rule, ...]] = (
        Rule(f"/{SOUL}", Access.CONFIRM, reason="companion personality: user confirms changes"),
        Rule(f"/{USER}", Access.WRITE, memory=True, reason="companion memory (on)"),
        Rule(f"/{MEMORY}", Access.WRITE, memory=True, reason="companion memory (on)"),
        Rule(f"/{USER}", Access.HIDDEN, memory=False, reason="companion memory (off)"),
        Rule(f"/{MEMORY}", Access.HIDDEN, memory=False, reason="companion memory (off)"),
    )
    messages: ClassVar[dict[str, dict[str, str]]] = {"*": MESSAGES}

    def memory_on(self) -> bool:
        """The memory switch, read live from the workspace and handed to the policy."""
        on = bool(self.workspace.memory)
        self.engine.policy.memory = on
        return on

    def tools(self) -> list[Tool]:
        on = self.memory_on()
        suffix = ("MemoryOn" if on else "MemoryOff") if self.options.get("list_files") else ""
        models = "filewright.toolsets.companion_params:"
        read_params, write_params, edit_params = (
            f"{models}{kind}Params{suffix}" for kind in ("Read", "Write", "Edit")
        )
        return [
            Tool(
                "read",
                READ_DESCRIPTION,
                read_params,
                self.read,
                read_only=True,
                title="读取文件",
                inline_ok=True,
            ),
            Tool(
                "write",
                WRITE_DESCRIPTION,
                write_params,
                self.write,
                destructive=True,
                title="写入文件",
            ),
            Tool(
                "edit", EDIT_DESCRIPTION, edit_params, self.edit, destructive=True, title="编辑文件"
            ),
        ]

    def text_for(self, failure: Failure, path: str | None = None) -> str:
        """Always the seed's language (Chinese), whatever the workspace locale."""
        return failure_text(failure, "zh", MESSAGES, path)

    def _refused(self, failure: Failure, given: str) -> Result:
        """A failure worded for the model; a hidden file is reported as a missing one."""
        if failure.code == "hidden":
            failure = Failure("not_found", failure.path, {})
        # An invalid path may hold control characters: show the engine's escaped form.
        shown = failure.path if failure.code == "invalid" and failure.path else given
        result = self.failed(failure, shown)
        hint = where_hint(failure)
        if hint and not self.options.get("plain"):  # after the seed's message
            result.text += hint
        return result

    # -- tools --------------------------------------------------------------------------

    def read(self, p: Any) -> Result:
        """The whole text of the file."""
        self.memory_on()
        try:
            loc, _ = self.engine.locate(p.path, purpose="read", expect="file")
            if not loc.exists:
                return self._refused(Failure("not_found", p.path, {}), p.path)
            tf = readers.whole_text(self.engine, loc)
        except OperationFailed as exc:
            return self._refused(exc.failure, p.path)
        text, cut = readers.take_output(tf.text)  # within the call's output budget
        data = {
            "path": str(loc.path),
            "hash": tf.hash,
            "encoding": tf.encoding_label,
            "chars": len(tf.text),
        }
        if cut:
            data["truncated"] = True
        return Result(True, text, data)

    def write(self, p: Any) -> Result:
        """Create or overwrite the file; parents are created."""
        content: str = p.content
        outcome = self.change(
            Change(
                p.path,
                "write",
                lambda old: edits.overwrite(old, content),
                create_parents=True,
                check_stale=False,
                streamed=stream_write(content),
            )
        )
        size = len(
            content.encode("utf-8", "surrogatepass")
        )  # a lone surrogate: refused, never raised
        if outcome.ok:
            outcome.extra["content_bytes"] = size
        return self._result(
            outcome,
            p.path,
            f"成功写入 {size} 字节到 {p.path}",
            f"[预览] 将写入 {size} 字节到 {p.path}（未实际写入）",
        )

    def edit(self, p: Any) -> Result:
        """Replace the one place `oldText` matches with `newText`."""
        old: str = p.oldText
        new: str = p.newText

        def compute(text: str | None) -> edits.Result:
            done = edits.replace(text or "", old, new)
            if isinstance(done, edits.Edited) and old == new:
                return edits.EditFailure("no_change", {"strategy": done.strategy})
            return done

        outcome = self.change(
            Change(
                p.path,
                "edit",
                compute,
                must_exist=True,
                check_stale=False,
                streamed=stream_replace(old, new, mode="unique"),
            )
        )
        return self._result(
            outcome,
            p.path,
            f"成功替换了 {p.path} 中的文本",
            f"[预览] 将替换 {p.path} 中的文本（未实际写入）",
        )

    def change(self, change: Change) -> Outcome:
        self.memory_on()
        return super().change(change)

    def _result(self, outcome: Outcome, given: str, done: str, preview: str) -> Result:
        if not outcome.ok:
            assert outcome.failure is not None
            return self._refused(outcome.failure, given)
        if outcome.dry_run:
            return Result(True, preview + "\n" + outcome.diff.rstrip("\n"), outcome.data())
        return Result(True, done, outcome.data())
