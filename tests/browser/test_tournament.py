"""A sit-and-go in the browser (issue 16): the tournament lobby lists it, a player registers
there (another over REST), it starts when full, the player is taken to its table, which shows
the level, the next level, the average stack and his rank; Unregister before the start gives the
buy-in back."""

from __future__ import annotations

import subprocess
import sys
import time
from typing import Any

import httpx
import pytest

from tests.browser.conftest import Server
from tests.browser.test_play import DESKTOP, register

pytestmark = pytest.mark.browser


def create_sng(server: Server, name: str, seats: int = 2) -> int:
    database = server.log.parent / "room.sqlite3"
    out = subprocess.run(
        [sys.executable, "-m", "studpoker", "tournament", "create", "--name", name, "--game", "7S",
         "--buy-in", "500", "--fee", "50", "--seats", str(seats), "--json",
         "--database-url", f"sqlite+aiosqlite:///{database}"],
        check=True, capture_output=True, text=True,
    )  # fmt: skip
    made: dict[str, Any] = __import__("json").loads(out.stdout)
    return int(made["id"])


def test_players_register_and_the_table_shows_the_level(browser: Any, server: Server) -> None:
    suffix = str(int(time.time() * 1000) % 10**6)
    tournament_id = create_sng(server, f"SNG {suffix}")
    context = browser.new_context(viewport=DESKTOP)
    page = context.new_page()
    try:
        register(page, server, f"sng{suffix}")
        row = f"tr[data-tournament='{tournament_id}']"
        page.wait_for_selector(f"{row}[data-status='registering'] button[data-act='register']")
        page.click(f"{row} button[data-act='register']")
        page.wait_for_selector(f"{row} button[data-act='unregister']")
        assert page.inner_text(f"{row} .entrants") == "1/2"
        bankroll = page.inner_text("#me-bankroll")
        # Unregister and register again: the bankroll comes back, then goes again.
        page.click(f"{row} button[data-act='unregister']")
        page.wait_for_selector(f"{row} button[data-act='register']")
        page.wait_for_function("b => document.querySelector('#me-bankroll').textContent !== b", arg=bankroll)
        page.click(f"{row} button[data-act='register']")
        page.wait_for_selector(f"{row} button[data-act='unregister']")
        assert page.inner_text("#me-bankroll") == bankroll
        # The second entrant, over REST, fills it: the player is taken to its table.
        token = httpx.post(
            f"{server.url}api/register", json={"name": f"sngb{suffix}", "password": "password123"}
        ).json()["token"]
        answer = httpx.post(
            f"{server.url}api/tournaments/{tournament_id}/register",
            headers={"Authorization": f"Bearer {token}"},
        )
        assert answer.status_code == 200 and answer.json()["status"] == "running", answer.text
        page.wait_for_selector("#tournament-bar:not([hidden])", timeout=15_000)
        page.wait_for_selector(".seat.hero .plate")
        bar = page.inner_text("#tournament-bar")
        assert "Level 1" in bar and "20/40" in bar and "next level in" in bar, bar
        assert "average stack 1,500" in bar or "average stack 1500" in bar, bar
        assert "your rank" in bar, bar
    finally:
        context.close()
