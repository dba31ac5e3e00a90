"""Multi-table sit-and-goes in the room over real WebSockets (server/tournaments: the field at
several tables, players moved between hands with their chips, tables broken, the final table):
R-TOURNAMENT-ROOM-TABLES in docs/rules.md."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

from studpoker.server.tournaments import create_sit_and_go, table_id_of

from .conftest import Harness, make_settings, running_server
from .test_tournament_room import _entrants, auth, play_until


async def _chips_in_play(h: Harness, tournament_id: int) -> int:
    record = await h.store.tournaments.get(tournament_id)
    return sum(e.stack for e in record.entries)


async def test_r_tournament_room_tables_an_18_player_sit_and_go_to_the_end(tmp_path: Path) -> None:
    """18 stud players: three tables of six, balanced and broken as they bust, a final table,
    the payouts equal to the pool and the audit balanced (the issue's test)."""
    async with running_server(make_settings(tmp_path, think_seconds=2.0, countdown_seconds=2.0)) as h:
        sng = await create_sit_and_go(h.store, "MTT 18", "7S", "turbo", buy_in=1_000, fee=100, seats=18)
        names = [f"p{i:02d}" for i in range(18)]
        tokens, clients = await _entrants(h, names)
        for token in tokens:
            answer = await h.http.post(f"/api/tournaments/{sng.id}/register", headers=auth(token))
            assert answer.status_code == 200, answer.text
        line = (await h.http.get(f"/api/tournaments/{sng.id}")).json()
        assert line["status"] == "running"
        assert line["tables"] == [table_id_of(sng.id, n) for n in (1, 2, 3)]
        record = await h.store.tournaments.get(sng.id)
        per_table = sorted(sum(1 for e in record.entries if e.table_no == n) for n in (1, 2, 3))
        assert per_table == [6, 6, 6]
        running = h.room.tournaments.running[sng.id]
        # The turbo's five-minute levels pass in ten seconds (the clock is the tournament's
        # ``now``): the blinds go up fast enough for the field to bust in a test's time.
        started = time.time()
        running.now = lambda: started + (time.time() - started) * 30
        seen_tables: set[int] = set()

        async def watch() -> None:
            while not running.done:
                seen_tables.add(len(running.tables))
                assert await _chips_in_play(h, sng.id) == 18 * record.starting_stack
                await asyncio.sleep(0.2)

        watcher = asyncio.create_task(watch())
        await play_until(h, clients, sng.id, "finished", 90)
        watcher.cancel()
        assert running.moves > 0  # players were moved (a table broken, or balanced)
        assert 1 in seen_tables and 3 in seen_tables  # three tables down to the final one
        result = (await h.http.get(f"/api/tournaments/{sng.id}")).json()
        places = sorted(r["place"] for r in result["results"])
        assert places[0] == 1 and len(places) == 18
        assert sum(r["prize"] for r in result["results"]) == result["prize_pool"] == 18_000
        total = 0
        for token in tokens:
            total += (await h.http.get("/api/me", headers=auth(token))).json()["bankroll"]
        assert total == 18 * (10_000 - 1_100) + 18_000
        await h.audit()
