"""The browser's check of card openings (web/js/fairness.js) agrees with studpoker.fairness:
every genuine opening passes, every tampered one fails."""

from __future__ import annotations

from typing import Any

import pytest

from studpoker.fairness import deck_from_seeds
from tests.browser.conftest import Server

pytestmark = pytest.mark.browser


@pytest.fixture
def page(browser: Any, server: Server) -> Any:
    context = browser.new_context()
    page = context.new_page()
    page.goto(server.url)
    yield page
    context.close()


def check(page: Any, root: str, openings: list[dict[str, Any]]) -> list[dict[str, Any]]:
    script = """async ([root, openings]) => {
        const m = await import('/js/fairness.js');
        const out = [];
        for (const o of openings) out.push(await m.verifyOpening(root, o));
        return out;
    }"""
    result: list[dict[str, Any]] = page.evaluate(script, [root, openings])
    return result


def test_the_browser_verifies_every_genuine_opening(page: Any) -> None:
    deal = deck_from_seeds(bytes(range(32)), [(1, b"alice"), (3, b"carol")])
    tree = deal.tree()
    openings = [deal.opening(i, tree).to_json() for i in range(52)]
    results = check(page, tree.root.hex(), openings)
    assert all(r["ok"] for r in results), [r for r in results if not r["ok"]][:3]


def test_the_browser_catches_a_tampered_opening_salt_or_root(page: Any) -> None:
    deal = deck_from_seeds(bytes(range(32)))
    tree = deal.tree()
    good: dict[str, Any] = deal.opening(7, tree).to_json()
    other_card = "2c" if good["card"] != "2c" else "3c"
    tampered = [
        {**good, "card": other_card},
        {**good, "position": 8},
        {**good, "salt": "00" * 16},
        {**good, "salt": "xyz"},
        {**good, "path": good["path"][:-1]},
        {**good, "path": ["00" * 32, *good["path"][1:]]},
    ]
    results = check(page, tree.root.hex(), tampered)
    assert not any(r["ok"] for r in results), results
    assert all(r["reason"] for r in results)
    (wrong_root,) = check(page, "00" * 32, [good])
    assert not wrong_root["ok"] and "does not match" in wrong_root["reason"]
