"""The MCP server: tools, annotations, elicitation and transports (stdio, streamable HTTP)
over the official SDK.
"""
