"""A scheduled tournament in the browser (issue 16): the lobby shows its start time, the countdown,
the field, late registration and re-entries; a player registers and unregisters there, another
over REST; at its time it starts and the first is taken to his table; a third registers late
from the lobby while late registration is open and is taken to his seat at once."""

from __future__ import annotations

import contextlib
import json
import sqlite3
import subprocess
import sys
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.browser.conftest import SCREENSHOTS, Server
from tests.browser.test_play import DESKTOP, register

pytestmark = pytest.mark.browser

# The tournament is created to start in ten minutes; once the lobby has been looked at, the test
# brings its start time to now in the store (as if the minutes had passed): the room sees it at
# its next look (tournament_check_seconds, 5 s) and starts it.
START_WAIT = 45  # seconds for that, on a loaded machine


def database(server: Server) -> Path:
    return server.log.parent / "room.sqlite3"


def create_scheduled(server: Server, name: str) -> dict[str, Any]:
    start = (datetime.now(UTC) + timedelta(minutes=10)).isoformat()
    out = subprocess.run(
        [sys.executable, "-m", "studpoker", "tournament", "create", "--name", name, "--game", "7S",
         "--buy-in", "500", "--fee", "50", "--start", start, "--min-players", "2", "--max-players", "20",
         "--late-levels", "3", "--reentries", "1", "--json",
         "--database-url", f"sqlite+aiosqlite:///{database(server)}"],
        check=False, capture_output=True, text=True,
    )  # fmt: skip
    assert out.returncode == 0, out.stderr
    made: dict[str, Any] = json.loads(out.stdout)
    return made


def start_now(server: Server, tournament_id: int) -> None:
    """Its start time brought to now (the store keeps UTC without a zone on SQLite)."""
    now = datetime.now(UTC).replace(tzinfo=None).isoformat(sep=" ")
    with contextlib.closing(sqlite3.connect(database(server), timeout=30)) as conn, conn:
        conn.execute("UPDATE tournaments SET starts_at = ? WHERE id = ?", (now, tournament_id))


def line_of(server: Server, tournament_id: int) -> dict[str, Any]:
    answer = httpx.get(f"{server.url}api/tournaments/{tournament_id}", timeout=10)
    answer.raise_for_status()
    line: dict[str, Any] = answer.json()
    return line


def test_a_scheduled_tournament_counts_down_starts_and_takes_a_late_entry(
    browser: Any, server: Server
) -> None:
    suffix = str(int(time.time() * 1000) % 10**6)
    made = create_scheduled(server, f"Scheduled {suffix}")
    row = f"tr[data-tournament='{made['id']}']"
    first = browser.new_context(viewport=DESKTOP)
    late = browser.new_context(viewport=DESKTOP)
    try:
        page = first.new_page()
        register(page, server, f"sch{suffix}")
        page.wait_for_selector(f"{row}[data-status='registering'] button[data-act='register']")
        state = page.inner_text(f"{row} .state")
        assert "starts" in state and "2 to 20 players" in state, state
        assert "late registration to level 3" in state and "re-entries 1" in state, state
        countdown = page.inner_text(f"{row} .countdown")
        page.wait_for_function(
            "([sel, was]) => document.querySelector(sel).textContent !== was",
            arg=[f"{row} .countdown", countdown],
        )  # it ticks
        page.locator("#tournaments").screenshot(path=str(SCREENSHOTS / "tournament-scheduled.png"))
        page.click(f"{row} button[data-act='register']")
        page.wait_for_selector(f"{row} button[data-act='unregister']")
        assert page.inner_text(f"{row} .entrants") == "1/20"
        page.click(f"{row} button[data-act='unregister']")
        page.wait_for_selector(f"{row} button[data-act='register']")
        page.click(f"{row} button[data-act='register']")
        page.wait_for_selector(f"{row} button[data-act='unregister']")
        token = httpx.post(
            f"{server.url}api/register", json={"name": f"schb{suffix}", "password": "password123"}
        ).json()["token"]
        answer = httpx.post(
            f"{server.url}api/tournaments/{made['id']}/register", headers={"Authorization": f"Bearer {token}"}
        )
        assert answer.status_code == 200 and answer.json()["status"] == "registering", answer.text
        # At its time it starts (the room wakes for it): the first player is taken to his table.
        start_now(server, made["id"])
        page.wait_for_selector("#tournament-bar:not([hidden])", timeout=START_WAIT * 1000)
        page.wait_for_selector(".seat.hero .plate")
        assert line_of(server, made["id"])["status"] == "running"
        # A third player, in the lobby: late registration is open; he registers and is seated.
        other = late.new_page()
        register(other, server, f"schc{suffix}")
        other.wait_for_selector(f"{row}[data-status='running'] button[data-act='register']", timeout=15_000)
        assert "late registration open" in other.inner_text(f"{row} .state")
        other.click(f"{row} button[data-act='register']")
        other.wait_for_selector(".seat.hero .plate", timeout=15_000)
        line = line_of(server, made["id"])
        assert (line["entrants"], line["prize_pool"]) == (3, 1_500)
        assert line["player_entries"][f"schc{suffix}"] == {"entries": 1, "in_play": True, "reentries_left": 1}
    finally:
        first.close()
        late.close()
