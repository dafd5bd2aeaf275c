"""The toolsets: each maps one seed document (or the best-of-all `default`) onto the engine.

A toolset names its tools, declares their parameters, maps arguments onto engine
operations and words the results as its document does. No matching, path, I/O or policy
logic lives here. Toolsets are found by name through `filewright.engine.registry`.
"""

from filewright.engine.registry import NAMES, REGISTRY, toolset_class

__all__ = ["NAMES", "REGISTRY", "toolset_class"]
