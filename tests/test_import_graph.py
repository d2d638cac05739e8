"""The import graph of the cudalint package has no cycle: every arrow points down.

The graph is read from the source (nothing is imported). An edge A -> B is any import of B in A's code,
at the top or inside a function: an import made lazily still runs, and lazy imports are how cycles hid.

What counts as an edge:
- `import a.b.c` and `from a.b.c import x`: an edge to `a.b.c` (a package means its `__init__.py`); with
  `from a.b import c` where `a.b.c` is a module, the edge goes to `a.b.c` only;
- imports under `if TYPE_CHECKING:` are left out: they never run (annotations only);
- importing `a.b.c` also runs the `__init__.py` of `a` and `a.b` first; those implicit edges are left out.
  Counted, every package whose `__init__` re-exports a submodule would make a cycle with that submodule,
  though Python orders it well: the package runs first and finishes its imports before anyone uses it.
  An explicit import of the package (`from cudalint.report import X` inside `cudalint/report/html.py`) is
  an edge to its `__init__` and is counted: the package that imports its submodule and the submodule that
  imports back from the package are a real cycle.
"""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "cudalint"


def _modules() -> dict[str, Path | None]:
    """Module name -> its file; None for a compiled extension (its C source lies in the package), which
    imports nothing of cudalint."""
    found: dict[str, Path | None] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        found[".".join(parts)] = path
    for path in sorted(PACKAGE.rglob("*.c")):
        found[".".join(path.relative_to(PACKAGE.parent).with_suffix("").parts)] = None
    return found


def _type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or \
        (isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _imports(tree: ast.AST):
    """The Import and ImportFrom nodes of `tree`, anywhere but under `if TYPE_CHECKING:`."""
    stack = [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, ast.If) and _type_checking(node.test):
            stack.extend(node.orelse)
            continue
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            yield node
        stack.extend(ast.iter_child_nodes(node))


def import_graph() -> dict[str, set[str]]:
    modules = _modules()
    graph: dict[str, set[str]] = {name: set() for name in modules}
    for name, path in modules.items():
        if path is None:
            continue
        is_package = path.name == "__init__.py"
        for node in _imports(ast.parse(path.read_text(), filename=str(path))):
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            else:
                if node.level:
                    base = name.split(".")[: len(name.split(".")) - node.level + (1 if is_package else 0)]
                    module = ".".join(base + ([node.module] if node.module else []))
                else:
                    module = node.module or ""
                targets = [f"{module}.{alias.name}" if f"{module}.{alias.name}" in modules else module
                           for alias in node.names]
            for target in targets:
                while target and target not in modules:  # `import a.b.c.attr` -> the module a.b.c
                    target = target.rpartition(".")[0]
                if target and target != name:
                    graph[name].add(target)
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan), each as one cycle through all
    of its modules' first member."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    components: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in sorted(graph[node]):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                components.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return [_one_cycle(graph, component) for component in sorted(components)]


def _one_cycle(graph: dict[str, set[str]], component: list[str]) -> list[str]:
    """A shortest cycle through the component's first module, inside the component (breadth first)."""
    members, start = set(component), component[0]
    parents: dict[str, str] = {}
    frontier = [start]
    while frontier:
        following = []
        for node in frontier:
            for target in sorted(graph[node] & members):
                if target == start:
                    path = [node]
                    while path[-1] != start:
                        path.append(parents[path[-1]])
                    return path[::-1] + [start]
                if target not in parents:
                    parents[target] = node
                    following.append(target)
        frontier = following
    return component


def test_graph_sees_lazy_and_package_imports():
    graph = import_graph()
    assert "cudalint.engine" in graph["cudalint"]  # the package's re-export
    assert "cudalint.sources" in graph["cudalint.engine"]


def test_no_import_cycle():
    found = cycles(import_graph())
    assert not found, "import cycles:\n" + "\n".join(" -> ".join(cycle) for cycle in found)
