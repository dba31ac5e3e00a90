"""The statistics page switches between cash and tournament hands (GET /api/me/stats?kind=):
a player who has played a sit-and-go hand and no cash hand sees none at cash tables and his
tournament hand under Tournaments, its amounts in whole chips, never money; another player's
public page switches too."""

from __future__ import annotations

import re
import time
from typing import Any

import httpx
import pytest

from tests.browser.conftest import Server
from tests.browser.test_play import DESKTOP, register
from tests.browser.test_stats import api_stats
from tests.browser.test_tournament import create_sng

pytestmark = pytest.mark.browser


def play_one_sng_hand(page: Any, server: Server, suffix: str) -> None:
    """The page's player and a second entrant (who never connects: the clock plays for him)
    start a two-seat sit-and-go; the hero folds at his turns until a hand has ended."""
    tournament_id = create_sng(server, f"SNG k{suffix}")
    row = f"tr[data-tournament='{tournament_id}']"
    page.wait_for_selector(f"{row}[data-status='registering'] button[data-act='register']")
    page.click(f"{row} button[data-act='register']")
    page.wait_for_selector(f"{row} button[data-act='unregister']")
    token = httpx.post(
        f"{server.url}api/register", json={"name": f"kind{suffix}", "password": "password123"}
    ).json()["token"]
    answer = httpx.post(
        f"{server.url}api/tournaments/{tournament_id}/register", headers={"Authorization": f"Bearer {token}"}
    )
    assert answer.status_code == 200 and answer.json()["status"] == "running", answer.text
    page.wait_for_selector(".seat.hero .plate", timeout=15_000)
    deadline = time.monotonic() + 90
    while not page.locator(".hand-entry").count():
        assert time.monotonic() < deadline, "no hand ended in time"
        fold = page.locator("#actions button[data-kind='fold']")
        if fold.count():
            fold.first.click()
        page.wait_for_timeout(300)


def test_the_statistics_switch_between_cash_and_tournament_hands(browser: Any, server: Server) -> None:
    suffix = str(int(time.time() * 1000) % 10**6)
    context = browser.new_context(viewport=DESKTOP)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    try:
        name = f"kinds{suffix}"
        register(page, server, name)
        play_one_sng_hand(page, server, suffix)
        deadline = time.monotonic() + 30  # the hand is stored a moment after it ends
        while not (played := api_stats(page, "/api/me/stats?kind=tournament"))["hands"]:
            assert time.monotonic() < deadline, "the tournament hand was not stored"
            page.wait_for_timeout(300)

        page.goto(f"{server.url}#/stats")
        page.wait_for_selector("#view-stats:not([hidden]) .stats-tile[data-stat='hands']")
        # Cash first: no cash hand.
        assert page.input_value(".stats-kind") == "cash"
        assert page.inner_text(".stats-tile[data-stat='hands'] b") == "0"
        assert "at cash tables" in page.inner_text("#stats")
        # Tournaments: his hand, the amounts in chips.
        page.select_option(".stats-kind", "tournament")
        page.wait_for_selector(".stats-span[data-kind='tournament']")
        assert page.input_value(".stats-kind") == "tournament"
        assert page.inner_text(".stats-tile[data-stat='hands'] b") == str(played["hands"])
        net = page.inner_text(".stats-tile[data-stat='net'] b")
        assert re.fullmatch(r"[+-]?\d+ chips", net), net
        assert int(net.split()[0]) == played["net"]
        assert page.locator("table.stats-games tr[data-game='7S']").count() == 1
        ticks = page.locator(".stats-plot svg text.tick").all_text_contents()
        assert ticks and not any(re.search(r"\d\.\d\d", t) for t in ticks), ticks
        # The game filter keeps the switch.
        page.select_option(".stats-game", "7S")
        page.wait_for_function("() => document.querySelector('.stats-game')?.value === '7S'")
        assert page.input_value(".stats-kind") == "tournament"
        assert page.inner_text(".stats-tile[data-stat='hands'] b") == str(played["hands"])
        # Back to cash.
        page.select_option(".stats-kind", "cash")
        page.wait_for_selector(".stats-span[data-kind='cash']")
        assert page.inner_text(".stats-tile[data-stat='hands'] b") == "0"
        # Another player's public page (here his own name): the switch there too.
        page.goto(f"{server.url}#/stats/{name}")
        page.wait_for_selector(f"#view-stats:not([hidden]) h2:has-text('Statistics of {name}')")
        page.select_option(".stats-kind", "tournament")
        page.wait_for_selector(".stats-span[data-kind='tournament']")
        assert page.inner_text(".stats-tile[data-stat='hands'] b") == str(played["hands"])
        assert errors == []
    finally:
        context.close()
