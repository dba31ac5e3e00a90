"""Re-entry and restarts in a scheduled tournament, over real WebSockets (server/tournaments):
a player out during late registration buys in again (a new entry, a place for each), the last
player left waits for an opponent while late registration is open, and a room restarted after
late entries and a re-entry resumes the tournament to its end with the audit balanced
(R-TOURNAMENT-REENTRY-PLACES, R-TOURNAMENT-LATE-REGISTRATION). The clock is moved by a fake ``now``
to the turbo's level 10 (big bet 800: stacks of 1,500 go in a few hands)."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

from studpoker.store.tournaments import TournamentRecord
from studpoker.tournament.payouts import prize_amounts

from .conftest import Client, Harness, make_settings, running_server
from .test_tournament_room import _entrants, auth, raise_on_turns
from .test_tournament_scheduled import bankroll, fake_now, scheduled

LEVEL_SECONDS = 5 * 60  # the turbo's


@contextlib.asynccontextmanager
async def playing(clients: list[Client]) -> AsyncIterator[None]:
    """The clients raise whenever they may, until the block ends."""
    stop = asyncio.Event()
    tasks = [asyncio.create_task(raise_on_turns(c, stop)) for c in clients]
    try:
        yield
    finally:
        stop.set()
        for task in tasks:
            task.cancel()
        await asyncio.wait(tasks, timeout=5)


async def until(
    h: Harness, tournament_id: int, done: Callable[[TournamentRecord], bool], limit: float = 120
) -> TournamentRecord:
    deadline = time.monotonic() + limit
    while True:
        record = await h.store.tournaments.get(tournament_id)
        if done(record):
            return record
        assert time.monotonic() < deadline, f"not in time: {record}"
        await asyncio.sleep(0.1)


async def reenter(h: Harness, tournament_id: int, name: str, token: str) -> dict[str, Any]:
    """``name`` buys in again once his busted seat is cleared (a moment after his last hand)."""
    deadline = time.monotonic() + 30
    while True:
        line = (await h.http.get(f"/api/tournaments/{tournament_id}")).json()
        if name not in line["player_tables"]:
            break
        assert time.monotonic() < deadline, "his busted seat was not cleared"
        await asyncio.sleep(0.05)
    answer = await h.http.post(f"/api/tournaments/{tournament_id}/register", headers=auth(token))
    assert answer.status_code == 200, answer.text
    entered: dict[str, Any] = answer.json()
    return entered


def placed(record: TournamentRecord) -> list[str]:
    return [e.name for e in record.entries if e.place is not None]


async def test_r_tournament_reentry_places_each_entry_and_the_last_player_waits(tmp_path: Path) -> None:
    async with running_server(make_settings(tmp_path, think_seconds=2.0, countdown_seconds=2.0)) as h:
        now = fake_now(h)
        record = await scheduled(h, "Re-entry", late_levels=10, reentries=1, seats=10)
        names = ["ann", "ben"]
        tokens, clients = await _entrants(h, names)
        for token in tokens:
            assert (
                await h.http.post(f"/api/tournaments/{record.id}/register", headers=auth(token))
            ).status_code == 200
        now.advance(10 * 60 + 1)
        await h.room.tournaments.tick()
        now.advance(9 * LEVEL_SECONDS)  # level 10, late registration still open
        async with playing(clients):
            out = await until(h, record.id, lambda r: bool(placed(r)))
        # Heads-up, one is out: second of two for now, and the other has not won while late
        # registration is open (an opponent may come): he waits at his table.
        [busted] = [e for e in out.entries if e.place is not None]
        assert (busted.place, out.status) == (2, "running")
        await h.room.tournaments.tick()
        assert (await h.store.tournaments.get(record.id)).status == "running"
        token = tokens[names.index(busted.name)]
        line = await reenter(h, record.id, busted.name, token)
        assert (line["entrants"], line["prize_pool"]) == (3, 3_000)
        assert line["player_entries"][busted.name] == {"entries": 2, "in_play": True, "reentries_left": 0}
        # His first entry is outlasted by his second: third now.
        assert [(r["name"], r["place"]) for r in line["entry_results"]] == [(busted.name, 3)]
        again = await h.http.post(f"/api/tournaments/{record.id}/register", headers=auth(token))
        assert again.status_code == 409 and "still in" in again.json()["error"]["message"]
        assert await bankroll(h, token) == 10_000 - 2 * 1_100
        # Late registration ends with level 10; play to the end.
        now.advance(LEVEL_SECONDS)
        await h.room.tournaments.tick()
        async with playing(clients):
            done = await until(h, record.id, lambda r: r.status == "finished")
        result = (await h.http.get(f"/api/tournaments/{record.id}")).json()
        assert sorted(r["place"] for r in result["entry_results"]) in ([1, 2, 3], [1, 2, 2])
        assert sum(e.prize for e in done.entries) == done.prize_pool == 3_000 == sum(prize_amounts(3, 3_000))
        # The results: each player once, with his best place and all his prizes.
        assert [r["name"] for r in result["results"]].count(busted.name) == 1
        mine = next(r for r in result["results"] if r["name"] == busted.name)
        assert mine["entries"] == 2 and mine["place"] == min(
            e.place or 9 for e in done.entries_of(busted.account_id)
        )
        total = sum([await bankroll(h, t) for t in tokens])
        assert total == 2 * 10_000 - 3 * 1_100 + 3_000
        await h.audit()


async def test_a_restart_after_late_entries_and_a_reentry_resumes_with_the_audit_balanced(
    tmp_path: Path,
) -> None:
    settings = make_settings(tmp_path, think_seconds=2.0, countdown_seconds=2.0)
    names = ["ann", "ben", "cyd"]
    async with running_server(settings) as h:
        now = fake_now(h)
        record = await scheduled(h, "Restart", late_levels=10, reentries=1, seats=10)
        tokens, clients = await _entrants(h, names)
        for token in tokens[:2]:
            assert (
                await h.http.post(f"/api/tournaments/{record.id}/register", headers=auth(token))
            ).status_code == 200
        now.advance(10 * 60 + 1)
        await h.room.tournaments.tick()
        late = await h.http.post(f"/api/tournaments/{record.id}/register", headers=auth(tokens[2]))
        assert late.status_code == 200 and late.json()["entrants"] == 3
        now.advance(9 * LEVEL_SECONDS)
        async with playing(clients):
            out = await until(h, record.id, lambda r: bool(placed(r)))
        first_out = placed(out)[0]
        line = await reenter(h, record.id, first_out, tokens[names.index(first_out)])
        assert line["entrants"] == 4
        async with playing(clients):  # a little more play: the room stops in the middle of it
            await until(h, record.id, lambda r: r.hands_played >= out.hands_played + 1)
    # After the stop: four entries' chips (as of the last finished hand) and buy-ins.
    async with running_server(settings) as h:
        record = await h.store.tournaments.get(record.id)
        assert record.status == "running" and len(record.entries) == 4
        assert sum(e.stack for e in record.entries) == 4 * record.starting_stack
        in_play = {e.name for e in record.entries if e.stack > 0}
        line = (await h.http.get(f"/api/tournaments/{record.id}")).json()
        assert set(line["player_tables"]) == in_play
        clients = [await h.connect(token, name) for token, name in zip(tokens, names, strict=True)]
        now = fake_now(h)
        now.advance(2 * LEVEL_SECONDS)  # the stored clock resumed at level 10: past it, closed
        await h.room.tournaments.tick()
        assert not (await h.http.get(f"/api/tournaments/{record.id}")).json()["late_registration_open"]
        async with playing(clients):
            done = await until(h, record.id, lambda r: r.status == "finished")
        assert sum(e.prize for e in done.entries) == done.prize_pool == 4_000
        if all(e.tied == 1 for e in done.entries):  # (a tie on the bubble splits its places)
            assert sorted(e.prize for e in done.entries if e.prize) == sorted(prize_amounts(4, 4_000))
        total = sum([await bankroll(h, t) for t in tokens])
        assert total == 3 * 10_000 - 4 * 1_100 + 4_000
        await h.audit()
