"""The import cycles among jitvision's own modules: ``python tools/import_cycles.py [--package DIR] [--only PREFIX]``.

Reads every ``*.py`` under the package with ``ast`` (nothing is imported), collects each module's imports of other
jitvision modules, at the top of the file and inside functions alike (a function-level import still ties the two
modules together: neither can be understood, moved or tested alone), and prints the strongly connected components
of that graph that hold more than one module, each with one cycle through it. Exit status 1 when a cycle touches a
module named by ``--only`` (a prefix such as ``jitvision.bench``; repeatable), else 0.

``from . import x`` counts as an import of the submodule ``x`` when ``x`` is one, else of the package.
"""

import argparse
import ast
import os
import sys
from typing import Dict, List, Optional, Sequence, Set

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def module_files(package_dir: str) -> Dict[str, str]:
    """Module name -> file, for every ``.py`` file under ``package_dir`` (``__init__.py`` names the package)."""
    base = os.path.dirname(package_dir)
    out: Dict[str, str] = {}
    for folder, _, files in os.walk(package_dir):
        for name in files:
            if not name.endswith(".py"):
                continue
            path = os.path.join(folder, name)
            parts = os.path.relpath(path, base)[: -len(".py")].split(os.sep)
            if parts[-1] == "__init__":
                parts = parts[:-1]
            out[".".join(parts)] = path
    return out


def _resolve(module: str, is_package: bool, level: int, target: Optional[str]) -> str:
    """The absolute name of a relative import ``from <level dots><target> import ...`` inside ``module``."""
    parts = module.split(".") if is_package else module.split(".")[:-1]
    if level > 1:
        parts = parts[: len(parts) - (level - 1)]
    return ".".join(parts + ([target] if target else []))


def imports_of(module: str, path: str, modules: Set[str]) -> Set[str]:
    """The jitvision modules ``module`` imports, anywhere in its file."""
    with open(path, encoding="utf-8") as f:
        tree = ast.parse(f.read(), path)
    is_package = os.path.basename(path) == "__init__.py"
    found: Set[str] = set()

    def add(name: str) -> None:
        # ``import a.b.c`` names a.b.c; the closest enclosing module that exists is the edge's end.
        while name and name not in modules:
            name = name.rpartition(".")[0]
        if name and name != module:
            found.add(name)

    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                add(alias.name)
        elif isinstance(node, ast.ImportFrom):
            source = _resolve(module, is_package, node.level, node.module) if node.level else (node.module or "")
            for alias in node.names:
                submodule = f"{source}.{alias.name}"
                add(submodule if submodule in modules else source)
    return found


def graph(package_dir: str) -> Dict[str, Set[str]]:
    files = module_files(package_dir)
    names = set(files)
    return {name: imports_of(name, path, names) for name, path in sorted(files.items())}


def strongly_connected(edges: Dict[str, Set[str]]) -> List[List[str]]:
    """Tarjan's algorithm, iterative: the components with more than one module, each sorted."""
    index: Dict[str, int] = {}
    low: Dict[str, int] = {}
    stack: List[str] = []
    on_stack: Set[str] = set()
    out: List[List[str]] = []
    counter = 0
    for start in edges:
        if start in index:
            continue
        work = [(start, iter(sorted(edges[start])))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(edges.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    out.append(sorted(component))
    return sorted(out)


def one_cycle(edges: Dict[str, Set[str]], component: Sequence[str]) -> List[str]:
    """A shortest cycle through the component's first module, staying inside the component (breadth-first)."""
    members = set(component)
    start = component[0]
    previous: Dict[str, str] = {}
    frontier = [start]
    while frontier:
        following = []
        for node in frontier:
            for child in sorted(edges[node] & members):
                if child == start:
                    path = [node]
                    while path[-1] != start:
                        path.append(previous[path[-1]])
                    return list(reversed(path)) + [start]
                if child not in previous:
                    previous[child] = node
                    following.append(child)
        frontier = following
    return list(component)


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--package", default=os.path.join(ROOT, "jitvision"))
    parser.add_argument("--only", action="append", default=[], help="fail on cycles touching modules with this prefix")
    args = parser.parse_args(argv)
    edges = graph(os.path.abspath(args.package))
    components = strongly_connected(edges)
    print(f"{len(edges)} modules, {sum(len(e) for e in edges.values())} imports, {len(components)} import cycle(s)")
    failing = 0
    for component in components:
        cycle = one_cycle(edges, component)
        flagged = any(m.startswith(p) for m in component for p in args.only)
        failing += flagged
        print(f"- {len(component)} modules{' (flagged)' if flagged else ''}: {' -> '.join(cycle)}")
        if len(component) > len(cycle) - 1:
            print(f"  all: {', '.join(component)}")
    return 1 if failing else 0


if __name__ == "__main__":
    sys.exit(main())
