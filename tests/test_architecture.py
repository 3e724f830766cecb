"""The house rules, checked on the import graph of ``src/agentout``.

``LAYERS`` is the one place the layers are written, bottom first (design.md draws the
same). A module belongs to the layer of the longest name in ``LAYERS`` that it is or is
inside of; it may import from its own layer and the layers below, never above. Every
import counts, at the top of a module or deferred inside a function, so a deferred
import cannot hide a dependency that runs the wrong way; so does every cycle between two
modules (a package's ``__init__`` is a module like any other).
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src"

LAYERS: tuple[tuple[str, ...], ...] = (
    # leaves: no agentout import but among themselves
    (
        "agentout._lazy",
        "agentout._version",
        "agentout.errors",
        "agentout.frozen",
        "agentout.dirs",
        "agentout.process",
    ),
    # the shared model and counting
    ("agentout.records", "agentout.tokens"),
    # bytes to text, lines and records; the vocabulary of trouble
    ("agentout.read",),
    ("agentout.redact",),
    ("agentout.formats",),
    ("agentout.pack",),
    ("agentout.reducers",),
    ("agentout.store",),
    ("agentout.ledger",),
    ("agentout.deliver",),
    # the domains, and what checks the reducers on real output through delivery
    ("agentout.sources", "agentout.reducers.verify"),
    ("agentout.mcp",),
    ("agentout.agents",),
    ("agentout.cli",),
    # the package's face: the public names, ``python -m agentout``
    ("agentout",),
)
LOOSE_ALLOWED = {"__init__", "__main__", "_lazy", "_version", "errors", "frozen", "dirs", "process"}
MAX_LINES = 600


def _modules() -> dict[str, Path]:
    found = {}
    for path in (SRC / "agentout").rglob("*.py"):
        parts = list(path.relative_to(SRC).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


MODULES = _modules()


def _imports(name: str, path: Path) -> Iterator[tuple[str, int]]:
    """The agentout modules ``name`` imports, with the line of each import."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*parent, *([base] if base else [])])
            # "from a import b" imports the module a.b when there is one, else a's name b
            targets = [
                f"{base}.{alias.name}" if f"{base}.{alias.name}" in MODULES else base
                for alias in node.names
            ]
        else:
            continue
        for target in targets:
            if target.split(".")[0] == "agentout" and target != name:
                yield target, node.lineno


GRAPH = {name: sorted(set(_imports(name, path))) for name, path in MODULES.items()}


def layer_of(module: str) -> int:
    best, layer = "", -1
    for index, names in enumerate(LAYERS):
        for prefix in names:
            inside = module == prefix or module.startswith(prefix + ".")
            if inside and len(prefix) > len(best):
                best, layer = prefix, index
    assert layer >= 0, f"{module} is in no layer: add it to LAYERS"
    return layer


def test_every_module_has_a_layer() -> None:
    for name in MODULES:
        layer_of(name)


def test_no_import_runs_up_a_layer() -> None:
    upward = [
        f"{MODULES[name].relative_to(SRC)}:{line}: {name} (layer {layer_of(name)}) imports "
        f"{target} (layer {layer_of(target)})"
        for name, targets in GRAPH.items()
        for target, line in targets
        if layer_of(target) > layer_of(name)
    ]
    assert upward == []


def _cycles() -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan, iteratively)."""
    edges = {name: sorted({target for target, _ in targets}) for name, targets in GRAPH.items()}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root in sorted(edges):
        if root in index:
            continue
        work = [(root, iter(edges[root]))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in edges:
                    continue
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(edges[child])))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def test_no_two_modules_import_each_other() -> None:
    assert _cycles() == []


def test_the_cycle_check_finds_a_cycle(monkeypatch: pytest.MonkeyPatch) -> None:
    """The check above can fail: two modules made to import each other are found."""
    monkeypatch.setitem(GRAPH, "agentout.errors", [("agentout.frozen", 1)])
    monkeypatch.setitem(GRAPH, "agentout.frozen", [("agentout.errors", 1)])
    assert ["agentout.errors", "agentout.frozen"] in _cycles()


def test_only_the_face_and_a_few_leaves_lie_loose() -> None:
    loose = {path.stem for path in (SRC / "agentout").glob("*.py")}
    assert loose <= LOOSE_ALLOWED, sorted(loose - LOOSE_ALLOWED)


def test_leaves_import_only_leaves() -> None:
    for name in LAYERS[0]:
        assert all(layer_of(target) == 0 for target, _ in GRAPH[name]), name


def test_no_module_is_over_the_line_limit() -> None:
    long = {
        str(path.relative_to(SRC)): lines
        for path in MODULES.values()
        if (lines := len(path.read_text(encoding="utf-8").splitlines())) > MAX_LINES
    }
    assert long == {}
