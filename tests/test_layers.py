"""The package's import graph: no cycles, and no import up a layer.

The graph is built from the source (every `import` and `from … import` statement,
at module level, inside functions and under `if TYPE_CHECKING:` alike), so a lazy or
type-only import counts like any other. docs/ARCHITECTURE.md describes the layers.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "src" / "filewright"

# Each layer and the layers it may import (besides itself). Imports go only down.
ALLOWED: dict[str, set[str]] = {
    "core": set(),
    "fs": {"core"},
    "policy": {"core"},
    "state": {"core", "fs"},
    "engine": {"core", "fs", "policy", "state"},
    "edit": {"core"},
    "read": {"core", "fs", "policy", "engine"},
    "search": {"core", "fs", "policy"},
    "tools": {"core", "fs", "policy", "state", "engine"},
    "toolsets": {"core", "fs", "policy", "state", "engine", "edit", "read", "search", "tools"},
    "surfaces": {
        "core",
        "fs",
        "policy",
        "state",
        "engine",
        "edit",
        "read",
        "search",
        "tools",
        "toolsets",
    },
}
# Modules directly in `filewright/` are the public face: they may import any layer.
TOP = "(top)"


def module_name(path: Path, package: Path) -> str:
    parts = list(path.relative_to(package.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imports_of(path: Path, name: str, modules: set[str]) -> set[str]:
    """The filewright modules `path` imports (a name imported from a package counts as
    its submodule when one exists by that name)."""
    is_package = path.name == "__init__.py"
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        targets: list[str] = []
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = name.split(".") if is_package else name.split(".")[:-1]
                base = base[: len(base) - node.level + 1]
                prefix = ".".join(base + ([node.module] if node.module else []))
            else:
                prefix = node.module or ""
            targets = [
                f"{prefix}.{a.name}" if f"{prefix}.{a.name}" in modules else prefix
                for a in node.names
            ]
        for target in targets:
            while target and target not in modules and "." in target:
                target = target.rsplit(".", 1)[0]
            if target in modules and target != name:
                found.add(target)
    return found


def build_graph(package: Path = PACKAGE) -> dict[str, set[str]]:
    files = {module_name(p, package): p for p in package.rglob("*.py")}
    modules = set(files)
    return {name: imports_of(path, name, modules) for name, path in files.items()}


def layer_of(module: str) -> str:
    parts = module.split(".")
    if len(parts) == 1 or (len(parts) == 2 and parts[1] not in ALLOWED):
        return TOP
    return parts[1]


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One import cycle as a list of modules (first == last), or None."""
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                return [*stack[stack.index(nxt) :], nxt]
            if nxt not in state and (cycle := visit(nxt)):
                return cycle
        stack.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state and (cycle := visit(node)):
            return cycle
    return None


def upward_imports(graph: dict[str, set[str]]) -> list[str]:
    bad = []
    for module, targets in sorted(graph.items()):
        src = layer_of(module)
        for target in sorted(targets):
            dst = layer_of(target)
            if src == TOP or dst == src:
                continue
            if dst == TOP and target == "filewright":
                bad.append(f"{module} -> {target} (the public package)")
            elif dst == TOP or dst not in ALLOWED[src]:
                bad.append(f"{module} -> {target} ({src} may not import {dst})")
    return bad


def test_every_package_is_a_known_layer() -> None:
    layers = {p.name for p in PACKAGE.iterdir() if (p / "__init__.py").exists()}
    assert layers == set(ALLOWED)


def test_no_import_cycles() -> None:
    assert find_cycle(build_graph()) is None


def test_no_import_goes_up_a_layer() -> None:
    assert upward_imports(build_graph()) == []


def test_every_package_says_what_it_owns() -> None:
    for init in PACKAGE.rglob("__init__.py"):
        doc = ast.get_docstring(ast.parse(init.read_text(encoding="utf-8")))
        assert doc and len(doc) > 40, f"{init.relative_to(PACKAGE)} needs a docstring"


@pytest.fixture
def planted(tmp_path: Path) -> Path:
    """A copy of the package's shape with one cycle and one upward import planted."""
    pkg = tmp_path / "filewright"
    for rel in ("core", "fs", "engine"):
        (pkg / rel).mkdir(parents=True)
        (pkg / rel / "__init__.py").write_text('"""x"""\n')
    (pkg / "__init__.py").write_text("")
    (pkg / "core" / "a.py").write_text("from filewright.core import b\n")
    (pkg / "core" / "b.py").write_text("def f():\n    from filewright.core.a import x\n")
    (pkg / "fs" / "c.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from filewright.engine import d\n"
    )
    (pkg / "engine" / "d.py").write_text("from filewright.fs import c\n")
    return pkg


def test_the_checks_fail_on_a_planted_cycle_and_upward_import(planted: Path) -> None:
    graph = build_graph(planted)
    cycle = find_cycle(graph)
    assert cycle is not None and cycle[0] == cycle[-1]
    assert {"filewright.core.a", "filewright.core.b"} <= set(cycle) or {
        "filewright.fs.c",
        "filewright.engine.d",
    } <= set(cycle)
    assert "filewright.fs.c -> filewright.engine.d (fs may not import engine)" in upward_imports(
        graph
    )


def test_the_documented_import_paths_still_work() -> None:
    import filewright
    import filewright.dispatch
    from filewright.surfaces import dispatch

    assert filewright.dispatch is dispatch
    assert {"Workspace", "Result", "Failure", "ConfirmRequest", "approve_all"} <= set(
        filewright.__all__
    )
