"""A tournament table playing a rotation in the browser (R-TOURNAMENT-ROTATION, issue 16): a HORSE
sit-and-go's table says the game now and the hands left in it as a mixed cash table does
("HORSE: 2 hands left"), the count goes down hand by hand and the next game comes after
``--hands-per-game`` hands. Then the statistics page's Cash tables / Tournaments switch, drawn
as docs/screenshots/stats_kinds.png (through STUDPOKER_SCREENSHOT_DIR, see conftest)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import time
from typing import Any

import pytest

from tests.browser.conftest import SCREENSHOTS, Server
from tests.browser.test_play import DESKTOP, click_passive, register
from tests.browser.test_stats import api_stats

pytestmark = pytest.mark.browser

LEFT = re.compile(r"· HORSE: (\d+) hands? left$")


def create_horse_sng(server: Server, name: str, hands_per_game: int) -> int:
    database = server.log.parent / "room.sqlite3"
    out = subprocess.run(
        [sys.executable, "-m", "studpoker", "tournament", "create", "--name", name, "--game", "HORSE",
         "--buy-in", "500", "--fee", "50", "--seats", "2", "--hands-per-game", str(hands_per_game),
         "--json", "--database-url", f"sqlite+aiosqlite:///{database}"],
        check=True, capture_output=True, text=True,
    )  # fmt: skip
    made: dict[str, Any] = json.loads(out.stdout)
    return int(made["id"])


def drawn(page: Any) -> tuple[str, int, dict[str, Any]]:
    """The game name and the hands left the table's title draws, and the snapshot's rotation."""
    title: str = page.inner_text("#table-title")
    found = LEFT.search(title)
    assert found is not None, title
    game = title.split(" · ")[1]
    rotation: dict[str, Any] = page.evaluate("() => window.studpoker.state.table.rotation")
    return game, int(found.group(1)), rotation


def play_the_hand_out(pages: list[Any], hand: str) -> None:
    """Both players check, call or bring in until the table deals a hand other than ``hand``."""
    first = pages[0]
    deadline = time.monotonic() + 90
    while first.evaluate("() => window.studpoker.state.handId") in (hand, None):
        assert time.monotonic() < deadline, "the hand did not end"
        for page in pages:
            if page.locator("#actions button[data-kind]").count():
                click_passive(page)
        first.wait_for_timeout(200)


def test_a_horse_tournament_table_draws_the_game_now_and_the_hands_left(browser: Any, server: Server) -> None:
    suffix = str(int(time.time() * 1000) % 10**6)
    tournament_id = create_horse_sng(server, f"HORSE {suffix}", hands_per_game=2)
    contexts = [browser.new_context(viewport=DESKTOP) for _ in range(2)]
    pages = [c.new_page() for c in contexts]
    errors: list[str] = []
    try:
        row = f"tr[data-tournament='{tournament_id}']"
        for page, name in zip(pages, ("hz", "hy"), strict=True):
            page.on("pageerror", lambda exc: errors.append(str(exc)))
            register(page, server, f"{name}{suffix}")
            page.wait_for_selector(f"{row}[data-status='registering'] button[data-act='register']")
            page.click(f"{row} button[data-act='register']")
        for page in pages:  # full: both are taken to the table
            page.wait_for_selector("#tournament-bar:not([hidden])", timeout=15_000)
            page.wait_for_selector(".seat.hero .plate")
        first = pages[0]
        first.wait_for_function("() => window.studpoker.state?.handId")
        first.wait_for_function(
            "() => / hands? left$/.test(document.querySelector('#table-title').innerText)"
        )
        # The first hand of the table: the rotation's first game, both its hands to come.
        game, left, rotation = drawn(first)
        assert rotation["rotation"] == "HORSE" and rotation["hands_per_game"] == 2, rotation
        assert left == rotation["hands_left"] == 2
        assert rotation["game_now"] == rotation["games"][0]
        assert first.evaluate("() => window.studpoker.state.table.game") == rotation["game_now"]
        opening = game
        # One hand played: the same game, one hand left.
        play_the_hand_out(pages, first.evaluate("() => window.studpoker.state.handId"))
        first.wait_for_function(
            "() => / 1 hand left$/.test(document.querySelector('#table-title').innerText)"
        )
        game, left, rotation = drawn(first)
        assert (game, left, rotation["hands_left"]) == (opening, 1, 1)
        # Its second hand played: the next game of HORSE, with its two hands to come.
        play_the_hand_out(pages, first.evaluate("() => window.studpoker.state.handId"))
        first.wait_for_function(
            "g => document.querySelector('#table-title').innerText.split(' · ')[1] !== g", arg=opening
        )
        game, left, rotation = drawn(first)
        assert left == rotation["hands_left"] == 2
        assert rotation["game_now"] == rotation["games"][1] != rotation["games"][0]
        assert game != opening
        assert errors == [], errors

        # The statistics page's switch, on the tournament hands he has just played.
        deadline = time.monotonic() + 30  # a hand is stored a moment after it ends
        while api_stats(first, "/api/me/stats?kind=tournament")["hands"] < 2:
            assert time.monotonic() < deadline, "the tournament hands were not stored"
            first.wait_for_timeout(300)
        first.goto(f"{server.url}#/stats")
        first.wait_for_selector("#view-stats:not([hidden]) .stats-tile[data-stat='hands']")
        first.select_option(".stats-kind", "tournament")
        first.wait_for_selector(".stats-span[data-kind='tournament']")
        assert int(first.inner_text(".stats-tile[data-stat='hands'] b")) >= 2
        first.wait_for_timeout(300)  # the plot drawn before the picture
        first.screenshot(path=str(SCREENSHOTS / "stats_kinds.png"))
        assert errors == [], errors
    finally:
        for c in contexts:
            c.close()
