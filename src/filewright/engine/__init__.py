"""The engine: `Workspace` and its per-toolset `Engine` (the only place that combines
sandbox, policy, state and files), the change pipeline every write goes through, the
file watcher, and the registry that finds toolsets by name.
"""
