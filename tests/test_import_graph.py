"""jitvision's modules import each other without cycles, apart from the edges ``ALLOWED`` names.

The graph is read from the source with ``ast`` (nothing is imported): one node per module of ``jitvision/**/*.py``
(a package is its ``__init__``), one edge per ``import jitvision...`` or ``from ... import`` that names a jitvision
module. ``from package import name`` is an edge to the submodule ``package.name`` when that file exists, else to
the package itself. Python also runs the ``__init__`` of every parent package of an imported module; those implicit
edges are left out, since every submodule would otherwise "import" its own package and every package be a cycle.

Imports inside functions count as much as module-level ones. A function-level import is the usual way to get
past the ``ImportError`` of a cycle at import time, but the two modules still need each other: neither can be
understood, tested or moved without the other, which is what this test is about. Imports under
``if TYPE_CHECKING:`` count too: a cycle that only type hints need is still a cycle to read.

``ALLOWED`` lists the edges that may close a cycle. The graph without them must be acyclic, and every allowed edge
must still close one (a fixed cycle leaves no stale entry behind).
"""

import ast
import pathlib
from typing import Dict, List, Optional, Set, Tuple

import jitvision

PACKAGE_DIR = pathlib.Path(jitvision.__file__).parent

Edge = Tuple[str, str]

ALLOWED: Dict[Edge, str] = {
    # tv_tensors <-> functional, as in torchvision: an Image built from a PIL image converts it with the functional
    # pil_to_tensor, and the functionals dispatch on the tv_tensor classes.
    ("jitvision.tv_tensors._image", "jitvision.transforms.functional._type_conversion"): "permanent",
}


def _modules() -> Dict[str, Tuple[pathlib.Path, bool]]:
    """Every module's dotted name -> (its file, whether it is a package's ``__init__``)."""
    found = {}
    for path in PACKAGE_DIR.rglob("*.py"):
        parts = list(path.relative_to(PACKAGE_DIR.parent).with_suffix("").parts)
        is_package = parts[-1] == "__init__"
        if is_package:
            parts = parts[:-1]
        found[".".join(parts)] = (path, is_package)
    return found


def _resolve(importer: str, is_package: bool, level: int, module: Optional[str]) -> str:
    """The absolute name a ``from`` import names: ``level`` dots relative to ``importer``'s package."""
    if level == 0:
        return module or ""
    base = importer.split(".") if is_package else importer.split(".")[:-1]
    base = base[: len(base) - (level - 1)]
    return ".".join(base + (module.split(".") if module else []))


def import_graph() -> Dict[str, Set[str]]:
    """Each jitvision module -> the jitvision modules it imports (anywhere in the file)."""
    modules = _modules()
    graph: Dict[str, Set[str]] = {}
    for name, (path, is_package) in modules.items():
        targets: Set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
            if isinstance(node, ast.Import):
                targets.update(alias.name for alias in node.names if alias.name in modules)
            elif isinstance(node, ast.ImportFrom):
                source = _resolve(name, is_package, node.level, node.module)
                for alias in node.names:
                    submodule = f"{source}.{alias.name}"
                    if submodule in modules:
                        targets.add(submodule)
                    elif source in modules:
                        targets.add(source)
        targets.discard(name)
        graph[name] = targets
    return graph


def cycles(graph: Dict[str, Set[str]]) -> List[List[str]]:
    """The strongly connected components of more than one module (each holds at least one cycle), with one
    shortest cycle through the component's first module spelled out."""
    index: Dict[str, int] = {}
    low: Dict[str, int] = {}
    stack: List[str] = []
    on_stack: Set[str] = set()
    components: List[List[str]] = []

    def visit(node: str) -> None:  # Tarjan's algorithm; the graph is ~130 nodes, recursion is fine
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
    return [_shortest_cycle(graph, component) for component in components]


def _shortest_cycle(graph: Dict[str, Set[str]], component: List[str]) -> List[str]:
    start, members = component[0], set(component)
    paths = {start: [start]}
    frontier = [start]
    while frontier:
        following = []
        for node in frontier:
            for target in sorted(graph[node] & members):
                if target == start:
                    return paths[node] + [start]
                if target not in paths:
                    paths[target] = paths[node] + [target]
                    following.append(target)
        frontier = following
    raise AssertionError(f"no cycle in the component {component}")


def test_graph_reads_the_package() -> None:
    # The walk sees real edges: a module-level import, a function-level one and a package import.
    graph = import_graph()
    assert "jitvision.transforms.functional._dispatch" in graph["jitvision.transforms.functional._geometry._flip"]
    assert "jitvision.transforms.functional._type_conversion" in graph["jitvision.tv_tensors._image"]
    assert "jitvision.transforms.functional" in graph["jitvision.transforms._geometry._resize"]


def test_cycle_finder_finds_a_cycle() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert cycles(graph) == [["a", "b", "c", "a"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_no_import_cycles() -> None:
    graph = import_graph()
    for importer, imported in ALLOWED:
        graph[importer].discard(imported)
    found = cycles(graph)
    assert not found, "import cycles (each a chain of 'imports'):\n" + "\n".join(" -> ".join(c) for c in found)


def _reaches(graph: Dict[str, Set[str]], source: str, target: str) -> bool:
    seen, stack = {source}, [source]
    while stack:
        node = stack.pop()
        if node == target:
            return True
        for following in graph.get(node, set()) - seen:
            seen.add(following)
            stack.append(following)
    return False


def test_allowed_edges_still_close_a_cycle() -> None:
    graph = import_graph()
    stale = [(a, b) for a, b in ALLOWED if b not in graph.get(a, set()) or not _reaches(graph, b, a)]
    assert not stale, f"these allowed edges no longer close a cycle, remove them from ALLOWED: {stale}"
