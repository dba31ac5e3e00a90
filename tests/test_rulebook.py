"""The rule book (docs/rules.md) names only tests that exist, and everything points to it.

Every rule of the book has an ID and at least one test named ``path::function``; the file must
exist and define that function (parametrised ids are not checked, the function name is), and a
rule's tests must not be expected failures. So the book cannot silently point to a test that was
renamed or removed. Rule IDs cited anywhere in the code or the docs must be in the book, and the
README and ``studpoker replay --help`` point to it, not to the old shared notes file.
"""

from __future__ import annotations

import argparse
import ast
import functools
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from studpoker.cli import replay

ROOT = Path(__file__).resolve().parents[1]
BOOK = ROOT / "docs" / "rules.md"
BOOK_PATH = "docs/rules.md"
OLD_BOOK = "RULES" + ".md"  # written in two parts so that this file does not name it

RULE_START = re.compile(r"^- \*\*`(?P<id>R-[A-Z0-9]+(?:-[A-Z0-9]+)*)`\*\*")
RULE_ID = re.compile(r"\bR-[A-Z][A-Z0-9]*(?:-[A-Z0-9]+)*\b")
TEST_REF = re.compile(r"\b(?P<path>tests/[\w/]+\.py)::(?P<name>\w+)")
LINK = re.compile(r"\[(?P<text>[^\]]+)\]\((?P<href>[^)\s#]*)(?:#[^)\s]*)?\)")
# Where rule IDs and the old file's name are looked for: the sources, the tests, the docs.
SCANNED = ("README.md", "Makefile", "pyproject.toml", "docs", "src/studpoker", "tests", "bench")
SUFFIXES = {".py", ".md", ".toml", ".js", ".html", ".css", ".ini", ".mako", ".txt", ""}


@dataclass(frozen=True)
class Rule:
    id: str
    line: int
    text: str

    @property
    def tests(self) -> list[tuple[str, str]]:
        return [(m["path"], m["name"]) for m in TEST_REF.finditer(self.text)]


def parse_rules(text: str) -> list[Rule]:
    """A rule is a list item opening with its bold ID; it runs over the indented lines below it
    (blank lines included, e.g. around a table) up to the next line that is not indented."""
    rules: list[Rule] = []
    current: tuple[str, int, list[str]] | None = None
    for number, line in enumerate(text.splitlines(), start=1):
        started = RULE_START.match(line)
        if started or (line.strip() and not line.startswith(" ")):
            if current is not None:
                rules.append(Rule(current[0], current[1], "\n".join(current[2])))
            current = (started["id"], number, [line]) if started else None
        elif current is not None:
            current[2].append(line)
    if current is not None:
        rules.append(Rule(current[0], current[1], "\n".join(current[2])))
    return rules


@functools.cache
def book() -> str:
    return BOOK.read_text(encoding="utf-8")


@functools.cache
def functions_in(path: str) -> dict[str, ast.FunctionDef | ast.AsyncFunctionDef]:
    """The functions pytest would collect from a test file: module level and in its classes."""
    tree = ast.parse((ROOT / path).read_text(encoding="utf-8"), filename=path)
    found: dict[str, ast.FunctionDef | ast.AsyncFunctionDef] = {}
    for node in tree.body:
        bodies = node.body if isinstance(node, ast.ClassDef) else [node]
        for item in bodies:
            if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef):
                found[item.name] = item
    return found


def is_xfail(function: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    return any("xfail" in ast.unparse(decorator) for decorator in function.decorator_list)


def scanned_files() -> Iterator[Path]:
    """The text files under SCANNED, except this one (it holds example IDs and the old name)."""
    for name in SCANNED:
        path = ROOT / name
        candidates = [path] if path.is_file() else sorted(path.rglob("*"))
        for candidate in candidates:
            parts = set(candidate.relative_to(ROOT).parts)
            if (
                candidate.is_file()
                and candidate.suffix in SUFFIXES
                and "__pycache__" not in parts
                and not any(p.endswith(".egg-info") for p in parts)
                and candidate.resolve() != Path(__file__).resolve()
            ):
                yield candidate


def replay_help() -> str:
    subparsers = argparse.ArgumentParser(prog="studpoker").add_subparsers()
    replay.register(subparsers)
    return str(subparsers.choices["replay"].format_help())


def test_every_rule_has_a_unique_id_and_names_at_least_one_test() -> None:
    rules = parse_rules(book())
    assert len(rules) >= 50, "the rule book lost its rules (or their format)"
    ids = [rule.id for rule in rules]
    assert sorted({i for i in ids if ids.count(i) > 1}) == []
    untested = [f"{rule.id} (line {rule.line})" for rule in rules if not rule.tests]
    assert untested == []


def test_every_named_test_exists_and_is_linked_to_its_file() -> None:
    problems: list[str] = []
    refs = list(TEST_REF.finditer(book()))
    assert refs
    for ref in refs:
        path, name = ref["path"], ref["name"]
        if not (ROOT / path).is_file():
            problems.append(f"{path}::{name}: no such file")
        elif name not in functions_in(path):
            problems.append(f"{path}::{name}: no such test in the file")
    linked = 0
    for link in LINK.finditer(book()):
        href = link["href"]
        if not href or "://" in href:
            continue
        target = (BOOK.parent / href).resolve()
        if not target.exists():
            problems.append(f"link {link[0]}: {href} does not exist")
        for ref in TEST_REF.finditer(link["text"]):
            linked += 1
            if target != (ROOT / ref["path"]).resolve():
                problems.append(f"{ref[0]} is linked to {href}, not to its own file")
    assert problems == []
    assert linked == len(refs), "every test the book names is written as a link to its file"


def test_the_tests_of_a_rule_are_not_expected_failures() -> None:
    """A rule the code does not follow yet belongs in "Known gaps", without an ID."""
    failing = [
        f"{rule.id}: {path}::{name}"
        for rule in parse_rules(book())
        for path, name in rule.tests
        if (ROOT / path).is_file() and name in functions_in(path) and is_xfail(functions_in(path)[name])
    ]
    assert failing == []


def test_rule_ids_cited_in_code_and_docs_are_in_the_book() -> None:
    known = {rule.id for rule in parse_rules(book())}
    unknown = [
        f"{path.relative_to(ROOT)}:{number}: {found}"
        for path in scanned_files()
        for number, line in enumerate(path.read_text(encoding="utf-8", errors="replace").splitlines(), 1)
        for found in RULE_ID.findall(line)
        if found not in known
    ]
    assert unknown == []


def test_readme_and_replay_help_point_to_the_rule_book() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert f"]({BOOK_PATH})" in readme or f"]({BOOK_PATH}#" in readme
    help_text = " ".join(replay_help().split())  # argparse wraps long help lines
    assert BOOK_PATH in help_text
    assert OLD_BOOK not in help_text


def test_nothing_points_to_the_old_rules_file() -> None:
    mentions = [
        f"{path.relative_to(ROOT)}:{number}"
        for path in scanned_files()
        for number, line in enumerate(path.read_text(encoding="utf-8", errors="replace").splitlines(), 1)
        if OLD_BOOK in line
    ]
    assert mentions == []


def test_the_parser_reads_rules_and_their_tests() -> None:
    text = (
        "## Section\n\n"
        "- **`R-ONE`** First rule.\n"
        "  Tests: [`tests/a.py::test_a`](../tests/a.py)\n"
        "\n"
        "  | a | table |\n"
        "  Tests: [`tests/b.py::test_b`](../tests/b.py)\n"
        "- **`R-TWO`** Second rule, no test.\n"
        "- A pending item: `tests/c.py::test_c`.\n"
        "Paragraph `tests/d.py::test_d`.\n"
    )
    rules = parse_rules(text)
    assert [(r.id, r.line, r.tests) for r in rules] == [
        ("R-ONE", 3, [("tests/a.py", "test_a"), ("tests/b.py", "test_b")]),
        ("R-TWO", 8, []),
    ]
