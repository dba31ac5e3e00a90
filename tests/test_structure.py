"""The code stays easy to pick up (issue 14, point 9): no module under src/studpoker over about 500
lines (the browser client's js modules too), and no import cycle among its modules, counting
imports made only for typing.

The exceptions below are listed with their size so that the lists can only shrink: a listed
module that grows, or one that is split, fails until its entry is updated or removed."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "src" / "studpoker"
WEB_JS = PACKAGE / "web" / "js"
MAX_LINES = 500

# Modules still over MAX_LINES, with the line count they may not exceed (split them, then remove).
LONG_MODULES: dict[str, int] = {}

# The browser's js modules still over MAX_LINES, by their path under src/studpoker (the same rule;
# web/js/replayer.js, 541 lines, was the last: it has been split).
LONG_JS_MODULES: dict[str, int] = {}

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


def js_sizes() -> dict[str, int]:
    return {
        path.relative_to(PACKAGE).as_posix(): len(path.read_text().splitlines())
        for path in sorted(WEB_JS.rglob("*.js"))
    }


def over_the_limit(
    sizes: dict[str, int], exceptions: dict[str, int]
) -> tuple[dict[str, int], dict[str, int]]:
    """The files longer than the limit (or than their listed size), and the listed ones that are
    no longer over it (their entries to remove)."""
    too_long = {name: size for name, size in sizes.items() if size > exceptions.get(name, MAX_LINES)}
    stale = {name: limit for name, limit in exceptions.items() if sizes.get(name, 0) <= MAX_LINES}
    return too_long, stale


def test_no_js_module_is_longer_than_the_limit() -> None:
    sizes = js_sizes()
    assert "web/js/app.js" in sizes, "the browser client's modules were not found"
    too_long, stale = over_the_limit(sizes, LONG_JS_MODULES)
    assert too_long == {}, f"js modules over {MAX_LINES} lines (split them): {too_long}"
    assert stale == {}, f"js modules listed as too long that no longer are (remove them): {stale}"


def test_the_limit_check_holds_a_listed_file_to_its_size() -> None:
    """A listed file may not grow past its entry, an unlisted one past the limit, and an entry
    whose file has been split must go."""
    exceptions = {"a.js": 541, "b.js": 600}
    sizes = {"a.js": 542, "b.js": 400, "c.js": 501, "d.js": 500}
    assert over_the_limit(sizes, exceptions) == ({"a.js": 542, "c.js": 501}, {"b.js": 600})


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
