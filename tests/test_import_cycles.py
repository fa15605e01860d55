"""The package has no import cycles (DESIGN.md "Layout": components -> registry; systems -> ecs and
components; ecs never imports a ruleset). Every import counts, also those inside functions: a cycle
hidden behind a lazy import is still two modules that cannot be understood apart."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("ecs", "systems", "components", "data")


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(["battlesim", *parts])


def _graph() -> dict[str, set[str]]:
    modules = {_module_name(p): p for pkg in PACKAGES for p in (ROOT / pkg).rglob("*.py")}
    graph: dict[str, set[str]] = {m: set() for m in modules}
    for mod, path in modules.items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names: list[str] = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                names = [node.module] + [f"{node.module}.{a.name}" for a in node.names]
            for n in names:
                if n in modules and n != mod and not mod.startswith(n + "."):
                    graph[mod].add(n)
    return graph


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def test_no_import_cycles() -> None:
    assert _cycles(_graph()) == []


def test_the_cycle_finder_finds_a_cycle() -> None:
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_ecs_never_imports_a_ruleset() -> None:
    graph = _graph()
    bad = {m: sorted(d for d in deps if d.startswith("battlesim.systems."))
           for m, deps in graph.items() if m.startswith("battlesim.ecs")}
    assert {m: d for m, d in bad.items() if d} == {}


def test_components_import_only_the_registry_side_of_ecs() -> None:
    graph = _graph()
    for m, deps in graph.items():
        if m.startswith("battlesim.components"):
            assert all(d.startswith(("battlesim.components", "battlesim.ecs.plugin", "battlesim.ecs.registry"))
                       for d in deps), (m, deps)
