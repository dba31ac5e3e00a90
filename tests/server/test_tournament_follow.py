"""The tournament lobby line names each entrant's table (``player_tables``): a field at several
tables is sent to the table each player sits at, not the first, and after a move the line
follows him (issue 16)."""

from __future__ import annotations

from pathlib import Path

from studpoker.server.tournaments import create_sit_and_go, table_id_of

from .conftest import make_settings, running_server
from .test_tournament_room import auth


async def test_the_lobby_line_names_each_entrants_table_at_start_and_after_a_move(tmp_path: Path) -> None:
    async with running_server(make_settings(tmp_path)) as h:
        sng = await create_sit_and_go(h.store, "MTT 10", "7S", "turbo", buy_in=1_000, fee=100, seats=10)
        names = [f"f{i:02d}" for i in range(10)]
        tokens = [await h.register(name) for name in names]
        for token in tokens:
            answer = await h.http.post(f"/api/tournaments/{sng.id}/register", headers=auth(token))
            assert answer.status_code == 200, answer.text
        line = (await h.http.get(f"/api/tournaments/{sng.id}")).json()
        assert line["tables"] == [table_id_of(sng.id, 1), table_id_of(sng.id, 2)]
        record = await h.store.tournaments.get(sng.id)
        expected = {e.name: table_id_of(sng.id, e.table_no or 0) for e in record.entries}
        assert line["player_tables"] == expected
        assert set(expected.values()) == set(line["tables"])  # some players are not at tables[0]
        # A player moved to the other table (as balancing does, seat and stack with him): the
        # line says where he sits now, as the list of every tournament does.
        running = h.room.tournaments.running[sng.id]
        origin, target = running.tables[1], running.tables[2]
        seat, state = next(iter(origin.seats.items()))
        free = next(n for n in range(1, 9) if n not in target.seats)
        del origin.seats[seat]
        target.seats[free] = state
        line = (await h.http.get(f"/api/tournaments/{sng.id}")).json()
        assert line["player_tables"][state.name] == table_id_of(sng.id, 2)
        listed = (await h.http.get("/api/tournaments")).json()
        mine = next(t for t in listed if t["id"] == sng.id)
        assert mine["player_tables"][state.name] == table_id_of(sng.id, 2)
        # Back where he was, so that the tournament's chips stay where its store has them.
        del target.seats[free]
        origin.seats[seat] = state
