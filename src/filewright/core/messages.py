"""Message texts for engine failures, in English and Chinese.

Toolsets override the codes their seed words differently; everything else falls back
to these. Placeholders: {path} and any key of the failure's detail.
"""

from __future__ import annotations

from typing import Any

from filewright.core.result import Failure

EN: dict[str, str] = {
    "invalid": "Invalid path: {message}",
    "outside": "Access denied: {path} is outside the workspace",
    "symlink_loop": "Invalid path: {path} contains a symlink loop",
    "changed": "Refused: {path} changed while in use (a symlink appeared); try again",
    "not_found": "File not found: {path}",
    "hidden": "File not found: {path}",
    "is_directory": "Path is a directory, not a file: {path}",
    "not_directory": "Not a directory: {path}",
    "not_regular": "Not a regular file: {path}",
    "denied": "Access denied by policy: {path}",
    "protected": "Cannot modify protected file: {path}",
    "permission": "Permission denied: {path}",
    "parent_missing": "Parent directory does not exist: {path}",
    "exists": "File already exists: {path}",
    "binary": "Cannot edit {path}: it is a binary file",
    "undecodable": "Cannot edit {path} without losing data: {message}",
    "unencodable": "Cannot write {path}: {message}",
    "too_large": "File is too large: {path} ({message})",
    "no_match": "The text to replace was not found in {path}",
    "ambiguous": "Found {count} matches in {path}; add surrounding context to make it unique, or replace all",
    "no_change": "No change: the new text is the same as the old text",
    "invalid_regex": "Invalid regex pattern: {error}",
    "marker_not_found": "Marker not found in {path}",
    "count_mismatch": "Expected {expected} occurrences but found {count} in {path}",
    "line_out_of_range": "Line {line} is out of range: {path} has {lines} lines",
    "empty_old": "The text to replace must not be empty",
    "placeholder": "Refused: the new text for {path} contains the omission placeholder '{placeholder}', which would replace real code with that line. Send the complete text instead: in an edit, only the lines that change and their full replacement; in a write, the whole file with nothing left out",
    "not_read": "You must read {path} before changing it; read it first",
    "stale": "{path} was modified since you last read it; read it again before changing it",
    "rejected": "The user rejected this change to {path}",
    "no_confirmation": "This change to {path} needs the user's confirmation, and nobody can be asked (run with confirmation enabled, or --yes)",
    "busy": "{path} is locked by another process; try again",
    "no_history": "No recorded change to undo for {path}",
    "io_error": "Cannot access {path}: {message}",
    "bad_arguments": "Invalid arguments: {message}",
    "encrypted": "Cannot read {path}: the PDF is encrypted",
    "corrupt": "Cannot read {path}: {message}",
    "invalid_notebook": "Cannot read {path}: not a valid Jupyter notebook ({message})",
    "page_out_of_range": "Cannot read {path}: {message}",
}

ZH: dict[str, str] = {
    "invalid": "路径无效: {message}",
    "outside": "不允许访问工作区外的文件: {path}",
    "symlink_loop": "路径无效: {path} 含有符号链接循环",
    "changed": "已拒绝: {path} 在使用过程中被替换（出现了符号链接），请重试",
    "not_found": "文件不存在: {path}",
    "hidden": "文件不存在: {path}",
    "is_directory": "路径是目录而不是文件: {path}",
    "not_directory": "不是目录: {path}",
    "not_regular": "不是普通文件: {path}",
    "denied": "策略禁止访问: {path}",
    "protected": "不能修改受保护的文件: {path}",
    "permission": "没有权限: {path}",
    "parent_missing": "父目录不存在: {path}",
    "exists": "文件已存在: {path}",
    "binary": "无法编辑 {path}: 这是二进制文件",
    "undecodable": "无法无损地编辑 {path}: {message}",
    "unencodable": "无法写入 {path}: {message}",
    "too_large": "文件过大: {path}（{message}）",
    "no_match": "无法在 {path} 中找到要替换的文本",
    "ambiguous": "在 {path} 中找到 {count} 处匹配。请提供更多上下文使其唯一，或替换全部。",
    "no_change": "替换后内容没有变化。",
    "invalid_regex": "正则表达式无效: {error}",
    "marker_not_found": "在 {path} 中找不到标记",
    "count_mismatch": "期望 {expected} 处匹配，实际在 {path} 中找到 {count} 处",
    "line_out_of_range": "行号 {line} 超出范围: {path} 共 {lines} 行",
    "empty_old": "要替换的文本不能为空",
    "placeholder": "已拒绝: {path} 的新内容含有省略占位符「{placeholder}」，会用这一行替换掉真实代码。请发送完整内容: 编辑时只包含要改的行及其完整的新内容；写入时提供不省略任何部分的完整文件。",
    "not_read": "修改 {path} 之前必须先读取它",
    "stale": "{path} 在你上次读取之后被修改过，请重新读取后再修改",
    "rejected": "用户拒绝了此次修改。",
    "no_confirmation": "修改 {path} 需要用户确认，但当前无法询问用户",
    "busy": "{path} 正被另一个进程锁定，请重试",
    "no_history": "{path} 没有可撤销的修改记录",
    "io_error": "无法访问 {path}: {message}",
    "bad_arguments": "参数无效: {message}",
    "encrypted": "无法读取 {path}: PDF 已加密",
    "corrupt": "无法读取 {path}: {message}",
    "invalid_notebook": "无法读取 {path}: 不是有效的 Jupyter 笔记本（{message}）",
    "page_out_of_range": "无法读取 {path}: {message}",
}

CATALOGUES = {"en": EN, "zh": ZH}


class _Defaults(dict[str, Any]):
    def __missing__(self, key: str) -> str:
        return "?"


def render(template: str, **params: Any) -> str:
    """Format `template`, leaving unknown placeholders as '?' instead of failing."""
    return template.format_map(_Defaults(params))


def failure_text(
    failure: Failure,
    locale: str = "en",
    overrides: dict[str, str] | None = None,
    path: str | None = None,
) -> str:
    """The message for a failure: toolset override, else the locale's catalogue."""
    catalogue = CATALOGUES.get(locale, EN)
    template = (overrides or {}).get(failure.code) or catalogue.get(failure.code)
    params = {k: v for k, v in failure.detail.items()}
    params["path"] = path if path is not None else failure.path
    if "lines" not in params and "line_count" in params:  # edits name the count line_count
        params["lines"] = params["line_count"]
    if template is None:
        return str(params.get("message") or f"{failure.code}: {params['path']}")
    return render(template, **params)
