"""Balancing in the room by the tables' real buttons (R-TOURNAMENT-BALANCE-BUTTON): the seating
the tournament reads off its table actors (server/tournaments/tables.py) carries each dealer's
last button, so the player due the big blind moves, and posts the big blind at once where he
lands. Table actors behind fake ports (tests/server/table_fakes.py)."""

from __future__ import annotations

from studpoker.server.table import Sit
from studpoker.server.tournaments.tables import make_move, seating_of
from studpoker.tournament.balancing import Move, rebalance
from tests.server.table_fakes import FakeViewer, Table, make_table
from tests.server.test_missed_blinds import blinds, next_hand


async def _seat(table: Table, first_account: int, count: int) -> None:
    """Seats 1 to ``count``, accounts from ``first_account`` on (one field over two tables)."""
    for seat in range(1, count + 1):
        viewer = FakeViewer(first_account + seat - 1, f"player{first_account + seat - 1}")
        table.room.viewers.append(viewer)
        table.players.append(viewer)
        await table.actor.call(Sit(conn=viewer, seat=seat, buy_in=4000))


async def _hands(table: Table, count: int) -> list[int | None]:
    """Play ``count`` hands to their end; their buttons."""
    buttons = [(await next_hand(table)).button for _ in range(count)]
    await table.play_out()
    return buttons


async def test_r_tournament_balance_button_the_room_moves_the_next_big_blind_into_the_big_blind() -> None:
    long, short = make_table("O8"), make_table("O8")
    await _seat(long, 1, 6)
    await _seat(short, 11, 4)
    assert await _hands(long, 3) == [1, 2, 3]
    assert await _hands(short, 2) == [1, 2]
    actors = {1: long.actor, 2: short.actor}
    seating = seating_of(actors, 8, uses_button=True)  # 10 players: two tables
    assert [t.last_button for t in seating.tables] == [3, 2]
    _, moves = rebalance(seating, seed=1)
    # Long table: button 4, blinds 5 and 6 next: seat 6 moves. Short table: button 3, small
    # blind 4 next: any of seats 5 to 8 posts the next big blind; the first clockwise, 5.
    assert moves == (Move(6, 1, 6, 2, 5, "balance"),)
    make_move(actors, moves[0])
    assert sorted(long.actor.seats) == [1, 2, 3, 4, 5] and short.actor.seats[5].account_id == 6
    hand = await next_hand(short)
    assert hand.button == 3 and blinds(hand) == {4: 50, 5: 100}  # dealt in, in the big blind
