"""The engine's layers (docs/engine.md, "Modules"): ``Hand`` (engine/state.py) is on top, and the
parts it calls work on the hand's ``HandState``, below them, not on ``Hand``.

tests/test_structure.py finds import cycles; these check the layering a cycle would not show
(a part that imports ``Hand`` while ``Hand`` does not import it) and that no module reads
another object's private attributes (what the parts did with ``Hand``'s before).
"""

from __future__ import annotations

import ast

from tests.test_structure import PACKAGE, import_graph

ENGINE = PACKAGE / "engine"
# Named tuples' own API, underscored so as not to clash with their fields.
NAMED_TUPLE_API = {"_replace", "_make", "_asdict", "_fields"}


def test_only_the_package_imports_the_hand() -> None:
    graph = import_graph()
    importers = {name for name, imported in graph.items() if "studpoker.engine.state" in imported}
    inside = {name for name in importers if name.startswith("studpoker.engine")}
    assert inside == {"studpoker.engine"}, f"engine modules that import engine.state: {inside}"


def test_no_engine_module_reads_another_objects_private_attributes() -> None:
    """``x._name`` only on ``self`` (or ``cls``): an object's private state is its own class's."""
    found: list[str] = []
    for path in sorted(ENGINE.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
            if not isinstance(node, ast.Attribute):
                continue
            name = node.attr
            if not name.startswith("_") or name.startswith("__") or name in NAMED_TUPLE_API:
                continue
            owner = node.value
            if not (isinstance(owner, ast.Name) and owner.id in {"self", "cls"}):
                found.append(f"{path.name}:{node.lineno}: {ast.unparse(node)}")
    assert found == []
