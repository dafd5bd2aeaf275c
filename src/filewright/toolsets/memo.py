"""The `memo` toolset: literal and span replace on ONE memory document.

Seed: `memo-editing-tools.md`. The tools have no path parameter: the document is chosen
when the toolset is created, `ws.toolset("memo", document="notes/memory.md")`; the
default is `MEMORY.md`, resolved like any path (relative to the workspace's first root).
It goes through the engine like every file (sandbox, policy, locking, history).

Tools:

- `memo_read()`: the whole document and its hash (the `last_read_hash` for the edits).
  A document that does not exist yet reads as empty.
- `memo_replace_literal(old_text, new_text, last_read_hash?)`: exact match only (no
  whitespace tolerance: the seed sends formatting doubts to the span tool); `old_text` must
  occur exactly once and its (first and only) occurrence is replaced. An empty `old_text`
  appends `new_text` to the end, creating the document if needed. Not found: the error shows
  the whole current memory. Several matches: the error gives their character offsets (0-based,
  in the "\\n"-normalised memory, as in the seed's `至少在位置 42 和 156`) and the context
  of each, and tells the model to switch to `memo_replace_span`, in the seed's example format.
- `memo_replace_span(old_span_start | old_span_start_regex, old_span_end, new_text,
  search_after?, keep_markers?, last_read_hash?)`: `filewright.edit.spans.replace_span`: the first
  `search_after`, then the first start marker after it, then the first end marker after
  that; markers need not be unique. Markers are kept unless `new_text` re-supplies them
  (the rule documented in `filewright.edit.spans`, which gives the seed's three scenarios their
  documented results); `keep_markers` forces either way. A missing marker is reported with
  the numbered lines around where the search stopped, and the closest real text.

A successful change returns the new memory text, as the seed's tools do; the new hash
and a unified diff are in `data` (the seed's "future" list: diff in results, optimistic
locking with `last_read_hash`, a regex start marker); the option `show_diff=True` shows
the hash and diff in the text instead.

Newlines: the seed normalises all inputs and the memory to "\\n". Inputs (`old_text`,
`new_text`, markers, `search_after`) have "\\r\\n" and "\\r" turned into "\\n", matching works
on the "\\n" text, and unlike the engine's default (keep a file's newline style) this
toolset writes the document back with "\\n" line endings, so a CRLF document becomes LF on
its first change. The diff shows text changes only.

Every message is in the seed's language (Chinese), whatever the workspace locale; failures
start with `Error: ` as in the seed's example.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

from filewright.core.messages import failure_text
from filewright.core.result import Failure, OperationFailed, Result
from filewright.edit import edits
from filewright.edit.matching import find
from filewright.edit.placeholders import omission_placeholders
from filewright.edit.suggest import closest, line_at
from filewright.engine.change import Change, Outcome, clip_diff
from filewright.fs.textfile import content_hash, normalise_newlines
from filewright.read import readers
from filewright.tools.base import Tool, Toolset

if TYPE_CHECKING:
    from filewright.engine.workspace import Workspace
    from filewright.toolsets.memo_params import LiteralParams, ReadParams, SpanParams

DEFAULT_DOCUMENT = "MEMORY.md"
CONTEXT_CHARS = 30  # characters shown either side of a match in the multi-match error
MAX_LISTED = 10  # matches listed with position and context


READ_DESCRIPTION = (
    "读取记忆文档的全文，并返回它的 hash（可作为 last_read_hash 传给编辑工具，"
    "防止覆盖在此之后发生的修改）。"
)
LITERAL_DESCRIPTION = (
    "简单直接的文本替换：把记忆中唯一出现的 old_text 替换为 new_text（只替换首次出现的位置）。"
    "old_text 必须精确匹配且只出现一次；出现多次时操作失败，请改用 memo_replace_span。"
    "old_text 为空时把 new_text 追加到记忆末尾。换行符统一为 \\n。"
)
SPAN_DESCRIPTION = (
    "精确定位的区域替换：先找到 search_after（可选），在其后查找起始标记 old_span_start"
    "（或正则 old_span_start_regex），再查找其后的结束标记 old_span_end，用 new_text 替换这段区域。"
    "默认保留标记、只替换两个标记之间的内容；new_text 自带标记时标记一并被替换。"
    "不要求标记唯一，适合内容出现多次、或只想修改长段落中一小部分（只需复述首尾标记）的场景。"
)

# Engine failures about the document itself (path, policy, file), in Chinese.
MESSAGES: dict[str, str] = {
    "not_found": "记忆文档 {path} 还不存在。要创建它，请调用 memo_replace_literal，"
    "old_text 为空字符串，new_text 为要写入的内容。",
    "hidden": "记忆文档 {path} 不存在。",
    "outside": "不允许访问工作区外的文件: {path}",
    "empty_old": "old_span_start 和 old_span_end 不能为空。",
    "invalid_regex": "old_span_start_regex 不是有效的正则表达式: {error}",
    "no_change": "替换后记忆内容没有变化。",
    "placeholder": "new_text 含有省略占位符「{placeholder}」，会用这一行替换掉记忆中的真实内容。"
    "请提供完整的新文本，不要用占位符代替没有改动的部分。",
    "rejected": "用户拒绝了此次修改。",
    "no_confirmation": "修改记忆文档 {path} 需要用户确认，但当前无法询问用户，因此没有修改。",
}

_ORDINALS = "一二三四五六七八九十"


def _ordinal(n: int) -> str:
    """第一处, 第二处 … (1-based)."""
    return f"第{_ORDINALS[n - 1]}处" if 1 <= n <= len(_ORDINALS) else f"第 {n} 处"


def _join_positions(positions: list[int]) -> str:
    """`42 和 156`, `42、156 和 300`."""
    words = [str(p) for p in positions]
    return words[0] if len(words) == 1 else "、".join(words[:-1]) + " 和 " + words[-1]


def _snippet(text: str, start: int, end: int) -> str:
    """The match with up to CONTEXT_CHARS characters and one line either side, `...` where cut."""
    lo = max(0, start - CONTEXT_CHARS)
    before = text.rfind("\n", lo, start)
    if before >= 0 and (earlier := text.rfind("\n", lo, before)) >= 0:
        lo = earlier + 1
    hi = min(len(text), end + CONTEXT_CHARS)
    after = text.find("\n", end, hi)
    if after >= 0 and (later := text.find("\n", after + 1, hi)) >= 0:
        hi = later
    return ("..." if lo > 0 else "") + text[lo:hi] + ("..." if hi < len(text) else "")


def _memory_block(text: str) -> str:
    return text if text else "（记忆为空）"


def _closest_hint(candidates: list[dict[str, Any]], from_line: int = 1) -> str:
    """The most similar real text at or after `from_line` (from `suggest.closest`), if any."""
    found = [
        c for c in candidates if c.get("similarity", 0) >= 0.5 and c["start_line"] >= from_line
    ]
    if not found:
        return ""
    best = found[0]
    first, last = best["start_line"], best["end_line"]
    lines = f"第 {first} 行" if first == last else f"第 {first}-{last} 行"
    return f"\n\n最接近的内容（{lines}）：\n{best['text']}"


class MemoToolset(Toolset):
    """memo_read / memo_replace_literal / memo_replace_span on the document `document`."""

    name = "memo"
    messages: ClassVar[dict[str, dict[str, str]]] = {"*": MESSAGES}

    def __init__(
        self, workspace: Workspace, document: str = DEFAULT_DOCUMENT, **options: Any
    ) -> None:
        super().__init__(workspace, document=document, **options)
        self.document = document

    def tools(self) -> list[Tool]:
        return [
            Tool(
                "memo_read",
                READ_DESCRIPTION,
                "filewright.toolsets.memo_params:ReadParams",
                self.read,
                read_only=True,
                title="读取记忆",
            ),
            Tool(
                "memo_replace_literal",
                LITERAL_DESCRIPTION,
                "filewright.toolsets.memo_params:LiteralParams",
                self.replace_literal,
                destructive=True,
                title="替换记忆中的唯一文本",
            ),
            Tool(
                "memo_replace_span",
                SPAN_DESCRIPTION,
                "filewright.toolsets.memo_params:SpanParams",
                self.replace_span,
                destructive=True,
                title="替换记忆中的区域",
            ),
        ]

    def text_for(self, failure: Failure, path: str | None = None) -> str:
        """`Error: ` and the message, always in the seed's language (Chinese)."""
        return "Error: " + failure_text(failure, "zh", MESSAGES, path)

    def _error(self, text: str, code: str, **data: Any) -> Result:
        return Result(False, "Error: " + text, {"error": code, **data})

    # -- memo_read ------------------------------------------------------------------------

    def read(self, _p: ReadParams) -> Result:
        """The document's text and hash (empty when it does not exist yet)."""
        try:
            loc, _ = self.engine.locate(self.document, purpose="read", expect="file")
            if loc.exists:
                tf = readers.whole_text(self.engine, loc)
                text, digest = tf.text, tf.hash
            else:
                text, digest = "", content_hash(b"")
        except OperationFailed as exc:
            return self.failed(exc.failure, self.document)
        head = f"记忆文档 {self.document}（hash: {digest}，共 {len(text)} 个字符）"
        shown = readers.take_output(text)[0]  # within the call's output budget
        body = (
            shown
            if text
            else "（记忆为空。用 memo_replace_literal 且 old_text 为空即可追加内容。）"
        )
        data = {"path": str(loc.path), "hash": digest, "chars": len(text), "exists": loc.exists}
        return Result(True, f"{head}：\n{body}", data)

    # -- memo_replace_literal -------------------------------------------------------------

    def replace_literal(self, p: LiteralParams) -> Result:
        """Unique exact replace; empty old_text appends."""
        if (stale := self._stale(p.last_read_hash)) is not None:
            return stale
        old, new = normalise_newlines(p.old_text), normalise_newlines(p.new_text)
        seen: dict[str, Any] = {}

        def compute(text: str | None) -> edits.Result:
            current = text or ""
            seen["text"] = current
            if placeholders := omission_placeholders(new, old or current):
                return edits.placeholder_failure(placeholders)
            if old == "":
                if new == "":
                    return edits.EditFailure("nothing_to_append", {})
                return edits.append(current, new)
            if text is None:
                return edits.EditFailure("not_found", {})
            out = find(current, old, max_matches=1, fuzzy=False)
            if out.ambiguous:  # (overlapping places count: old fits each of them)
                starts = [(r.start, r.end) for r in out.places]
                return edits.EditFailure("ambiguous", {"count": len(starts), "regions": starts})
            done = edits.replace_first(current, old, new)
            if isinstance(done, edits.Edited):
                seen["position"] = current.find(old)
            return done

        outcome = self._change("edit", compute, must_exist=False, expected=p.last_read_hash)
        if outcome.ok:
            if old == "":
                what = "成功把内容追加到记忆末尾。"
            else:
                pos = seen["position"]
                what = f"成功替换了记忆中的文本（位置 {pos}，第 {line_at(seen['text'], pos)} 行）。"
                outcome.extra["position"] = pos
            return self._success(outcome, what)
        assert outcome.failure is not None
        failure = outcome.failure
        text = seen.get("text", "")
        if failure.code == "no_match":
            hint = _closest_hint(failure.detail.get("closest") or [])
            shown = "" if self.options.get("plain") else hint
            return self._error(  # the seed: the whole current memory; then the closest text
                "在记忆中找不到 old_text（必须与记忆内容精确匹配，包括空格、标点和换行）。"
                f"\n\n当前记忆全文：\n{_memory_block(text)}{shown}",
                "no_match",
                **({"closest_hint": hint.strip()} if hint else {}),
            )
        if failure.code == "ambiguous":
            return self._ambiguous(text, failure.detail)
        if failure.code == "nothing_to_append":
            return self._error("old_text 和 new_text 都为空，没有要修改的内容。", "no_change")
        return self._failed(outcome, text)

    def _ambiguous(self, text: str, detail: dict[str, Any]) -> Result:
        """The seed's example, word for word: the first two positions ("at least"), the
        advice, the first match's context. Every match's position, line and context: data."""
        regions: list[tuple[int, int]] = [tuple(r) for r in detail["regions"]]  # type: ignore[misc]
        count = len(regions)
        first_start, first_end = regions[0]
        parts = [
            f"找到多个匹配项（至少在位置 {_join_positions([s for s, _ in regions[:2]])}）。",
            "此工具仅支持唯一匹配。请改用 memo_replace_span 工具，"
            "并配合 `search_after` 参数或更精确的标记来定位。",
            f"第一处匹配的上下文：\n{_snippet(text, first_start, first_end)}",
        ]
        matches = [
            {
                "position": start,
                "line": line_at(text, start),
                "context": _snippet(text, start, end),
                "label": _ordinal(i),
            }
            for i, (start, end) in enumerate(regions[:MAX_LISTED], 1)
        ]
        positions = [s for s, _ in regions]
        return self._error(
            "\n\n".join(parts), "ambiguous", count=count, positions=positions, matches=matches
        )

    # -- memo_replace_span ----------------------------------------------------------------

    def replace_span(self, p: SpanParams) -> Result:
        """Replace from the start marker to the end marker, searching after search_after."""
        if (p.old_span_start is None) == (p.old_span_start_regex is None):
            return self._error(
                "请提供 old_span_start 或 old_span_start_regex 之一（二者不能同时提供）。",
                "bad_arguments",
            )
        if (stale := self._stale(p.last_read_hash)) is not None:
            return stale
        regex = p.old_span_start_regex is not None
        start = p.old_span_start_regex if regex else normalise_newlines(p.old_span_start or "")
        assert start is not None
        end = normalise_newlines(p.old_span_end)
        new = normalise_newlines(p.new_text)
        after = normalise_newlines(p.search_after) if p.search_after else None
        seen: dict[str, Any] = {}

        def compute(text: str | None) -> edits.Result:
            seen["text"] = text or ""
            if placeholders := omission_placeholders(new, text or ""):
                return edits.placeholder_failure(placeholders)
            done = edits.replace_span(
                text or "",
                start,
                end,
                new,
                search_after=after,
                keep_markers=p.keep_markers,
                start_is_regex=regex,
            )
            if isinstance(done, edits.Edited):
                seen["notes"] = done.notes
            return done

        outcome = self._change("edit", compute, must_exist=True, expected=p.last_read_hash)
        if outcome.ok:
            notes = seen["notes"]
            lines = (
                f"第 {notes['start_line']} 行"
                if notes["start_line"] == notes["end_line"]
                else f"第 {notes['start_line']}-{notes['end_line']} 行"
            )
            kept = {"kept": "保留", "replaced": "已替换"}
            what = (
                f"成功替换了记忆中{lines}的区域（起始标记：{kept[notes['start_marker']]}，"
                f"结束标记：{kept[notes['end_marker']]}）。"
            )
            outcome.extra["markers"] = {k: notes[k] for k in ("start_marker", "end_marker")}
            return self._success(outcome, what)
        assert outcome.failure is not None
        if outcome.failure.code == "marker_not_found":
            return self._marker_missing(
                seen.get("text", ""), outcome.failure.detail, start, end, after, regex
            )
        return self._failed(outcome, seen.get("text", ""))

    def _marker_missing(
        self,
        memory: str,
        detail: dict[str, Any],
        start: str,
        end: str,
        after: str | None,
        regex: bool,
    ) -> Result:
        """Which marker is missing, the numbered lines where the search stopped, and the
        closest real text after that point."""
        which = detail.get("marker")
        line = detail.get("search_from_line", 1)
        if which == "search_after":
            head = f"找不到 search_after 文本：`{after}`。"
            where = "记忆开头的内容"
            advice = "请确认 search_after 与记忆内容完全一致（可先调用 memo_read 查看）。"
            hint = _closest_hint(closest(memory, after or ""))
        elif which == "start":
            name = "匹配 old_span_start_regex 的起始标记" if regex else "起始标记 old_span_start"
            origin = "（search_after 之后）" if after else ""
            head = f"从第 {line} 行{origin}开始，找不到{name}：`{start}`。"
            where = "搜索起点附近的内容"
            advice = "请确认标记与记忆内容完全一致，或调整 search_after。"
            hint = "" if regex else _closest_hint(closest(memory, start, limit=10), line)
        else:
            head = (
                f"找到了起始标记（第 {line} 行），但在它之后找不到结束标记 old_span_end：`{end}`。"
            )
            where = "起始标记附近的内容"
            advice = "结束标记必须出现在起始标记之后，请确认它与记忆内容完全一致。"
            hint = _closest_hint(closest(memory, end, limit=10), line)
        context = detail.get("context") or ""
        text = f"{head}\n\n{where}：\n{context}{hint}\n\n{advice}"
        return self._error(text, "marker_not_found", marker=which, search_from_line=line)

    # -- shared -------------------------------------------------------------------------

    def _change(
        self, operation: str, compute: Any, *, must_exist: bool, expected: str | None
    ) -> Outcome:
        return self.change(
            Change(
                self.document,
                operation,
                compute,
                must_exist=must_exist,
                create_parents=True,
                expected_hash=expected,
                check_stale=False,
                newline="\n",
            )
        )

    def _success(self, outcome: Outcome, what: str) -> Result:
        data = outcome.data()
        if outcome.dry_run:
            text = f"[预览，未写入] {what}\n\n变更（diff）：\n{clip_diff(outcome.diff).rstrip()}"
            return Result(True, text, data)
        data["hash"] = outcome.hash
        if not self.options.get("show_diff"):
            # The seed's tools return the new content ("not only the new content, also the
            # lines changed" is on its future list): hash and diff are in data.
            memory = _memory_block(outcome.new_text or "")
            return Result(True, f"{what}\n\n当前记忆全文：\n{memory}", data)
        text = f"{what}\n新的 hash: {outcome.hash}\n\n变更（diff）：\n{clip_diff(outcome.diff).rstrip()}"
        return Result(True, text, data)

    def _stale(self, expected: str | None) -> Result | None:
        """With `last_read_hash`, a changed document is reported before any other failure
        (the pipeline checks the hash again, under the file lock, before writing)."""
        if expected is None:
            return None
        try:
            loc, _ = self.engine.locate(self.document, purpose="read", expect="file")
            if not loc.exists:
                return None
            tf, _state = self.engine.load_text(loc)
        except OperationFailed:
            return None  # the change itself reports what is wrong with the document
        return None if tf.hash == expected else self._stale_error(tf.text, expected, tf.hash)

    def _stale_error(self, text: str, expected: str | None, actual: str) -> Result:
        return self._error(
            "记忆在你上次读取之后已被修改（last_read_hash 与当前 hash 不一致），"
            "为避免覆盖这些修改，本次操作没有执行。请基于下面的最新内容重新编辑。"
            f"\n\n当前 hash: {actual}\n当前记忆全文：\n{_memory_block(text)}",
            "stale",
            expected_hash=expected,
            actual_hash=actual,
        )

    def _failed(self, outcome: Outcome, text: str) -> Result:
        assert outcome.failure is not None
        failure = outcome.failure
        if failure.code == "stale":
            detail = failure.detail
            return self._stale_error(
                text, detail.get("expected_hash"), detail.get("actual_hash", "")
            )
        return self.failed(failure, self.document)
