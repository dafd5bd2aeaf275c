"""How agents and people reach the toolsets: provider message dispatch (`dispatch`), the
MCP server (`mcp`), the command line (`cli`). The top layer: nothing below imports it.
"""
