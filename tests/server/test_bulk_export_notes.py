"""The bulk downloads keep the notes a hand's own history keeps (R-TIME-BANK, R-TIMEOUT-SAID): a
player's ``GET /api/me/hands`` and the operator's export write the time bank each decision used
and the timeouts, in PHH as the per-hand copy (``GET /api/hands/{id}``) writes them, and the
timeouts in the PokerStars text (which has no line for a time bank)."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path

from studpoker.store.exports import table_of, write_hand
from tests.server.conftest import Harness, make_settings, running_server

NOTE = re.compile(r"# [^\"]*")  # the commentaries of a PHH's actions


def notes(phh: str) -> list[str]:
    return NOTE.findall(phh)


async def a_hand_the_clock_played(h: Harness) -> tuple[dict[str, str], str]:
    """Heads-up stud where nobody acts: the clock brings in after the bank runs out, and the other
    player, his ante in, is protected all-in after his. The players' tokens and the hand."""
    actor = await h.add_table("7S", 100, 200)
    tokens = {name: await h.register(name) for name in ("alice", "bob")}
    alice, bob = await h.connect(tokens["alice"], "alice"), await h.connect(tokens["bob"], "bob")
    await h.seat(alice, actor.table_id, 1, 4000)
    await h.seat(bob, actor.table_id, 2, 4000)
    done = await alice.wait_for("hand_finished", 30)
    await asyncio.sleep(0.3)  # the hand is written a moment after it ends
    return tokens, str(done["hand_id"])


async def test_the_downloads_keep_the_time_bank_and_timeout_notes(tmp_path: Path) -> None:
    settings = make_settings(
        tmp_path, think_seconds=0.05, countdown_seconds=0.05, time_bank_seconds=0.3, time_bank_max_seconds=1.0
    )
    async with running_server(settings) as h:
        tokens, hand_id = await a_hand_the_clock_played(h)
        auth = {"Authorization": f"Bearer {tokens['alice']}"}
        copy = (await h.http.get(f"/api/hands/{hand_id}", headers=auth)).json()
        kept = notes(copy["phh"])
        assert sum("time bank 0.3 s" in n for n in kept) == 2
        assert any("all-in under disconnect protection" in n for n in kept)
        # The player's download: the same notes as his copy of the hand.
        answer = await h.http.get("/api/me/hands", params={"format": "phh"}, headers=auth)
        assert answer.status_code == 200, answer.text
        assert notes(answer.text) == kept
        # PokerStars: the timeouts, as trackers skip them; no time bank line (the format has none).
        stars = await h.http.get("/api/me/hands", params={"format": "pokerstars"}, headers=auth)
        assert stars.status_code == 200, stars.text
        assert "has timed out: all-in under disconnect protection" in stars.text
        assert "time bank" not in stars.text
        # The operator's record (every card) keeps them too.
        record = await h.store.hand(hand_id)
        table = await table_of(h.store, record)
        assert notes(write_hand(record, table, "phh", None)) == notes(record.phh or "")
        assert sum("time bank 0.3 s" in n for n in notes(record.phh or "")) == 2
