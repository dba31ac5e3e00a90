"""A mixed-game table in the browser (R-MIXED-ROTATION): the HORSE table says the game of the
moment and the hands left in it, and the count goes down as hands are played."""

from __future__ import annotations

import re
import time
from typing import Any

import pytest

from tests.browser.conftest import Server
from tests.browser.test_play import DESKTOP, click_passive, register, take_seat

pytestmark = pytest.mark.browser


def test_the_horse_table_says_its_game_and_the_hands_left(browser: Any, server: Server) -> None:
    table = next(t for t in server.mixed_tables() if t["rotation"]["rotation"] == "HORSE" and not t["seated"])
    assert table["rotation"]["game_now"] == table["game"]
    pages = []
    errors: list[str] = []
    for name in ("hana", "hugo"):
        page = browser.new_context(viewport=DESKTOP).new_page()
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        register(page, server, f"{name}{int(time.time() * 1000) % 10**7}")
        take_seat(page, table["id"])
        pages.append(page)
    first = pages[0]
    first.wait_for_function("() => window.studpoker.state?.handId")
    title = first.locator("#table-title")
    left = re.compile(r"HORSE: (\d+) hands? left")
    first.wait_for_function(
        "() => /HORSE: \\d+ hands? left/.test(document.querySelector('#table-title').innerText)"
    )
    before = int(left.search(title.inner_text()).group(1))  # type: ignore[union-attr]
    hand = first.evaluate("window.studpoker.state.handId")
    # play the hand out passively from both pages; the next hand has one hand fewer left
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline and first.evaluate("window.studpoker.state.handId") == hand:
        for page in pages:
            if page.locator("#actions button[data-kind]").count():
                click_passive(page)
        first.wait_for_timeout(200)
    first.wait_for_function(
        "n => { const m = /HORSE: (\\d+) hands? left/.exec(document.querySelector('#table-title').innerText);"
        " return m && Number(m[1]) !== n; }",
        arg=before,
        timeout=20000,
    )
    after = int(left.search(title.inner_text()).group(1))  # type: ignore[union-attr]
    assert after == before - 1 or (before == 1 and after == 8)
    assert not errors, errors
