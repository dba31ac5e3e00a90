"""Balancing moves into a table in its hand (server/tournaments/tables.py ``make_move``), checked
for the seat of a player all-in there: a seat's stack is the hand's starting stack until the
hand ends (the table's seats take the hand's stacks only then), so the seating the tournament
balances on counts him and no move takes his seat. The only seat ``make_move`` takes over is a
busted one whose hand has ended, a moment before the table clears it. Table actors behind fake
ports (tests/server/table_fakes.py)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from studpoker.server.protocol import YourTurnMsg
from studpoker.server.table import Sit
from studpoker.server.tournaments.tables import make_move, seating_of
from studpoker.tournament.balancing import Move
from studpoker.tournament.seating import SeatingError
from tests.server.table_fakes import FakeViewer, Table, make_table
from tests.server.test_missed_blinds import next_hand


def _raise(turn: YourTurnMsg) -> str:
    kinds = [o.kind for o in turn.options]
    return next(k for k in ("raise", "bet", "complete", "call", "check", "bring_in") if k in kinds)


async def _sit(table: Table, account: int, seat: int, buy_in: int) -> None:
    viewer = FakeViewer(account, f"player{account}")
    table.room.viewers.append(viewer)
    table.players.append(viewer)
    await table.actor.call(Sit(conn=viewer, seat=seat, buy_in=buy_in))


async def test_a_move_never_takes_the_seat_of_a_player_all_in_in_a_hand() -> None:
    busy, other = make_table("7S"), make_table("7S")
    busy.actor.set_config(replace(busy.actor.config, min_buy_in=1))
    await _sit(busy, 1, 1, 4_000)
    await _sit(busy, 2, 2, 4_000)
    await _sit(busy, 3, 3, 150)  # all in on third street
    for account, seat in ((11, 1), (12, 2)):
        await _sit(other, account, seat, 4_000)
    hand = await next_hand(busy)
    for _ in range(20):
        if hand.stacks.get(3) == 0:
            break
        await busy.act(_raise)
    assert hand.stacks[3] == 0 and not hand.is_over  # seat 3 is all in, the hand goes on
    state = busy.actor.seats[3]
    assert state.stack == 150  # his seat holds the stack he started the hand with
    actors = {1: busy.actor, 2: other.actor}
    seating = seating_of(actors, 8, uses_button=False)
    assert seating.tables[0].seats == {1: 1, 2: 2, 3: 3}  # counted: no move is drawn to his seat
    with pytest.raises(SeatingError, match="taken"):
        make_move(actors, Move(11, 2, 1, 1, 3, "balance"))
    assert busy.actor.seats[3] is state and sorted(other.actor.seats) == [1, 2]  # nothing changed
