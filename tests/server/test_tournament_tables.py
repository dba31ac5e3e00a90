"""The room's tournament tables (server/tournaments/tables.py): table ids, and which planned
moves are made now (R-TOURNAMENT-ROOM-TABLES)."""

from __future__ import annotations

from studpoker.server.tournaments.tables import MAX_TABLES, TABLE_ID_BASE, free_prefix, table_id_of
from studpoker.tournament.balancing import Move


def test_r_tournament_room_tables_moves_wait_for_a_table_in_its_hand() -> None:
    moves = [
        Move(1, 3, 2, 1, 5, "break"),
        Move(2, 2, 4, 1, 6, "balance"),  # table 2 is in a hand: this and the later ones wait
        Move(3, 3, 7, 2, 1, "break"),
    ]
    assert free_prefix(moves, busy={2}) == moves[:1]
    assert free_prefix(moves, busy={3}) == []
    assert free_prefix(moves, busy=set()) == moves


def test_tournament_table_ids_are_distinct_and_within_the_protocol() -> None:
    ids = {table_id_of(t, n) for t in (1, 2, 999_999) for n in range(1, MAX_TABLES + 1)}
    assert len(ids) == 3 * MAX_TABLES
    assert min(ids) == TABLE_ID_BASE + 1 == table_id_of(1)
    assert max(ids) <= 2**31 - 1
