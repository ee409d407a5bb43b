"""The package's layers, as docs/architecture.md draws them: each subpackage imports only from its own layer and
the layers below it, the runtime reads the compiler through rftc.trinity and rftc.plugins only, and no two modules
import each other at module level (a circle)."""

from __future__ import annotations

import ast
import functools
import pathlib

from support.paths import ROOT

# bottom to top; a subpackage may import any subpackage of its own layer or a lower one
LAYERS = [
    {"rftc", "rftc.diagnostics"},
    {"rftc.dotted", "rftc.sources", "rftc.plugins", "rftc.grammar"},
    {"rftc.shell"},
    {"rftc.verl"},
    {"rftc.trinity"},
    {"rftc.mapping"},
    {"rftc.semantics"},
    {"rftc.reverse"},
    {"rftc.emit"},
    {"rftc.api", "rftc.compare"},
    {"rftc.commands", "rftc.cli", "rftc.__main__"},
]
RUNTIME_READS = {"rftc", "rftc.trinity", "rftc.plugins", "rftc.diagnostics", "rftc.dotted"}


def _module(path: pathlib.Path, root: pathlib.Path) -> str:
    parts = path.relative_to(root).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(path: pathlib.Path, module: str, *, top_level_only: bool) -> set[str]:
    """The modules ``path`` imports (``from a import b`` counts as a.b where a.b is a module, else a)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    nodes = tree.body if top_level_only else ast.walk(tree)
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found = set()
    for node in nodes:
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(anchor + ([base] if base else []))
            found.add(base)
            found.update(f"{base}.{alias.name}" for alias in node.names)
    return found


@functools.cache
def _sources(folder: str) -> dict[str, pathlib.Path]:
    base = ROOT / folder
    root = base.parent
    return {_module(p, root): p for p in sorted(base.rglob("*.py"))}


def _subpackage(module: str) -> str:
    """The subpackage (or top-level module) of rftc that ``module`` names: rftc for a name rftc/__init__ defines."""
    parts = module.split(".")
    known = {m for m in _sources("rftc") if m.count(".") <= 1}
    return ".".join(parts[:2]) if ".".join(parts[:2]) in known else parts[0]


def _layer(subpackage: str) -> int:
    return next(i for i, layer in enumerate(LAYERS) if subpackage in layer)


def test_every_subpackage_has_a_layer():
    subpackages = {_subpackage(m) for m in _sources("rftc")}
    assert subpackages <= set().union(*LAYERS), subpackages - set().union(*LAYERS)


def test_no_import_reaches_a_higher_layer():
    upward = []
    for module, path in _sources("rftc").items():
        own = _layer(_subpackage(module))
        for imported in _imports(path, module, top_level_only=False):
            if imported.startswith("rftc.") or imported == "rftc":
                target = _subpackage(imported)
                if _layer(target) > own:
                    upward.append(f"{module} imports {imported}")
            elif imported.startswith("rftc_runtime") and _layer(_subpackage(module)) < _layer("rftc.commands"):
                upward.append(f"{module} imports {imported}")
    assert not upward, "\n".join(upward)


def test_the_runtime_reads_the_compiler_through_the_trinity_ir():
    reads = {_subpackage(i) for module, path in _sources("runtime/rftc_runtime").items()
             for i in _imports(path, module, top_level_only=False) if i == "rftc" or i.startswith("rftc.")}
    assert reads <= RUNTIME_READS, reads - RUNTIME_READS


def test_no_module_level_import_circle():
    modules = _sources("rftc")
    graph = {m: {i for i in _imports(p, m, top_level_only=True) if i in modules and i != m}
             for m, p in modules.items()}
    # a package's __init__ importing its own modules is how packages re-export; only circles between files count
    circles, state = [], {}

    def visit(node: str, stack: list[str]) -> None:
        state[node] = "open"
        for nxt in sorted(graph[node]):
            if state.get(nxt) == "open":
                circle = stack[stack.index(nxt):] + [nxt]
                if not any(m.startswith(n + ".") or n.startswith(m + ".") for m, n in zip(circle, circle[1:])):
                    circles.append(" -> ".join(circle))
            elif nxt not in state:
                visit(nxt, stack + [nxt])
        state[node] = "done"

    for module in modules:
        if module not in state:
            visit(module, [module])
    assert not circles, "\n".join(circles)
