"""The code stays easy to pick up (issue 14, point 9): no module under src/studpoker over about 500
lines, and no import cycle among its modules, counting imports made only for typing.

The exceptions below are listed with their size so that the lists can only shrink: a listed
module that grows, or one that is split, fails until its entry is updated or removed."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "src" / "studpoker"
MAX_LINES = 500

# Modules still over MAX_LINES, with the line count they may not exceed (split them, then remove).
LONG_MODULES: dict[str, int] = {}

# Import cycles still present, each as its sorted modules (break them, then remove).
KNOWN_CYCLES: set[tuple[str, ...]] = set()


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def modules() -> dict[str, Path]:
    return {module_name(path): path for path in sorted(PACKAGE.rglob("*.py"))}


def imported(name: str, path: Path, known: set[str]) -> set[str]:
    """The studpoker modules ``name`` imports anywhere in its file (typing-only and function-level
    imports count): ``from package import module`` names the module, else the package."""
    is_package = path.name == "__init__.py"
    base = name.split(".") if is_package else name.split(".")[:-1]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names if alias.name in known)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                parent = ".".join(base[: len(base) - node.level + 1])
                source = f"{parent}.{node.module}" if node.module else parent
            else:
                source = node.module or ""
            for alias in node.names:
                submodule = f"{source}.{alias.name}"
                if submodule in known:
                    found.add(submodule)
                elif source in known:
                    found.add(source)
    found.discard(name)
    return found


def import_graph() -> dict[str, set[str]]:
    found = modules()
    known = set(found)
    return {name: imported(name, path, known) for name, path in found.items()}


def cycles(graph: dict[str, set[str]]) -> set[tuple[str, ...]]:
    """The graph's strongly connected components of more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components: set[tuple[str, ...]] = set()

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(graph[node]):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component: list[str] = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                components.add(tuple(sorted(component)))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return components


def test_no_module_is_longer_than_the_limit() -> None:
    sizes = {name: len(path.read_text().splitlines()) for name, path in modules().items()}
    too_long = {name: size for name, size in sizes.items() if size > LONG_MODULES.get(name, MAX_LINES)}
    assert too_long == {}, f"modules over {MAX_LINES} lines (split them): {too_long}"
    stale = {name: limit for name, limit in LONG_MODULES.items() if sizes.get(name, 0) <= MAX_LINES}
    assert stale == {}, f"modules listed as too long that no longer are (remove them): {stale}"


def test_no_import_cycle() -> None:
    found = cycles(import_graph())
    assert found - KNOWN_CYCLES == set(), f"import cycles among studpoker modules: {found - KNOWN_CYCLES}"
    assert KNOWN_CYCLES - found == set(), f"cycles listed that are gone (remove them): {KNOWN_CYCLES - found}"


def test_the_walk_counts_typing_only_and_relative_imports(tmp_path: Path) -> None:
    """A cycle only for typing is one too: imports under ``if TYPE_CHECKING:`` count, as do
    relative ones and ``from package import module``."""
    (tmp_path / "a.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from studpoker.pkg.b import B\n"
    )
    (tmp_path / "b.py").write_text("from . import a\nfrom .c import C\n")
    known = {"studpoker.pkg", "studpoker.pkg.a", "studpoker.pkg.b", "studpoker.pkg.c"}
    graph = {
        "studpoker.pkg.a": imported("studpoker.pkg.a", tmp_path / "a.py", known),
        "studpoker.pkg.b": imported("studpoker.pkg.b", tmp_path / "b.py", known),
    }
    assert graph == {
        "studpoker.pkg.a": {"studpoker.pkg.b"},
        "studpoker.pkg.b": {"studpoker.pkg.a", "studpoker.pkg.c"},
    }
    assert cycles({**graph, "studpoker.pkg.c": set()}) == {("studpoker.pkg.a", "studpoker.pkg.b")}
