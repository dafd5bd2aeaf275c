"""The `claude` toolset: Read / Write / Edit / MultiEdit as `claude-code-file-tools.md` describes."""

from filewright.toolsets.claude.toolset import ClaudeToolset

__all__ = ["ClaudeToolset"]
