"""Parameter models of the `memo` toolset (pydantic; imported only when needed)."""

from __future__ import annotations

from pydantic import Field

from filewright.tools.params import Params

_HASH = "可选：上次 memo_read 返回的 hash。若记忆在此之后被修改过，操作会被拒绝（乐观锁）。"


class ReadParams(Params):
    """memo_read takes no arguments."""


class LiteralParams(Params):
    old_text: str = Field(
        description="要替换的旧文本（必须与记忆内容精确匹配，且只出现一次）。"
        "为空字符串时把 new_text 追加到记忆末尾。"
    )
    new_text: str = Field(description="替换后的新文本（空字符串表示删除 old_text）")
    last_read_hash: str | None = Field(None, description=_HASH)


class SpanParams(Params):
    old_span_start: str | None = Field(
        None, description="区域起始标记（与 old_span_start_regex 二选一，必须提供其一）"
    )
    old_span_end: str = Field(description="区域结束标记（在起始标记之后查找）")
    new_text: str = Field(
        description="新内容。以起始标记开头（或首行与标记格式相同）时起始标记一并被替换，"
        "以结束标记结尾（或末行与标记格式相同）时结束标记一并被替换；否则标记保留。"
    )
    search_after: str | None = Field(
        None, description="可选：在此文本之后开始搜索 old_span_start，用于在多个同名区域中定位"
    )
    old_span_start_regex: str | None = Field(
        None,
        description="可选：用正则表达式（多行模式，^ 和 $ 匹配行首行尾）代替 old_span_start，"
        '例如 "^### 技术栈.*$"',
    )
    keep_markers: bool | None = Field(
        None,
        description="可选：true 保留两个标记、只替换其间内容；false 连同标记一起替换。"
        "省略时按 new_text 自动判断",
    )
    last_read_hash: str | None = Field(None, description=_HASH)
