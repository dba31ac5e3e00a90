"""A tournament hand in the History panel (R-TOURNAMENT-HAND-HISTORY): at a sit-and-go's table the
panel shows the hand's text in whole chips and checks the deal with the openings the table sent
(a tournament hand's record keeps no seeds, so the REST copy has none to check)."""

from __future__ import annotations

import re
import time
from typing import Any

import httpx
import pytest

from tests.browser.conftest import Server
from tests.browser.test_play import DESKTOP, register
from tests.browser.test_tournament import create_sng

pytestmark = pytest.mark.browser


def test_a_tournament_hand_is_in_the_history_panel_in_chips_with_its_deal_checked(
    browser: Any, server: Server
) -> None:
    suffix = str(int(time.time() * 1000) % 10**6)
    tournament_id = create_sng(server, f"SNG h{suffix}")
    context = browser.new_context(viewport=DESKTOP)
    page = context.new_page()
    try:
        register(page, server, f"sngh{suffix}")
        row = f"tr[data-tournament='{tournament_id}']"
        page.wait_for_selector(f"{row}[data-status='registering'] button[data-act='register']")
        page.click(f"{row} button[data-act='register']")
        page.wait_for_selector(f"{row} button[data-act='unregister']")
        token = httpx.post(
            f"{server.url}api/register", json={"name": f"sngk{suffix}", "password": "password123"}
        ).json()["token"]
        answer = httpx.post(
            f"{server.url}api/tournaments/{tournament_id}/register",
            headers={"Authorization": f"Bearer {token}"},
        )
        assert answer.status_code == 200 and answer.json()["status"] == "running", answer.text
        page.wait_for_selector(".seat.hero .plate", timeout=15_000)
        # The other entrant never connects: the clock plays for him; the hero folds at his turn.
        deadline = time.monotonic() + 90
        while not page.locator(".hand-entry").count():
            assert time.monotonic() < deadline, "no hand ended in time"
            fold = page.locator("#actions button[data-kind='fold']")
            if fold.count():
                fold.first.click()
            page.wait_for_timeout(300)
        # (the panel may be folded away: its entries are in the page all the same)
        page.wait_for_selector(".hand-entry pre", state="attached", timeout=20_000)
        text = page.text_content(".hand-entry pre") or ""
        assert "in chips)" in text and not re.search(r"\d\.\d\d", text), text
        page.wait_for_selector(".hand-entry .verify.ok", state="attached", timeout=20_000)
        assert "match the deck fixed before the deal" in (page.text_content(".hand-entry .verify") or "")
    finally:
        context.close()
