"""What a tool is: `Tool` and the `Toolset` base class, the parameter models, the JSON
schemas in every provider format, and the light argument check. Toolsets are built from
these.
"""
