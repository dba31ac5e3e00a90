"""The table actor behind fake ports: what it tells the store and the lobby, and how it plays
out a hand whose players all left."""

from __future__ import annotations

import traceback

from studpoker.server.table import StandUp, TablePhase
from studpoker.server.table.ports import HandEnd
from tests.server.table_fakes import Table, make_table


def record_depth(table: Table, depths: list[int]) -> None:
    """The Python stack's depth when the end of each hand reaches the store."""

    def at_finish(end: HandEnd) -> None:
        depths.append(len(traceback.extract_stack()))

    table.store.on_finish = at_finish


async def everyone_stands_up(players: int) -> tuple[int, int]:
    """A stud hand whose players all stand up (the one to act last): the stack's depth when its
    end reaches the store, and how many decisions were timed out."""
    table = make_table(hand_pause_seconds=0.0)
    depths: list[int] = []
    record_depth(table, depths)
    seated = await table.seat(players)
    table.clock.advance(0.0)
    await table.flush()
    found = table.turn()
    assert found is not None
    first = found[0]
    for viewer in [p for p in seated if p is not first] + [first]:
        await table.actor.call(StandUp(conn=viewer))
    (end,) = table.store.ends
    assert len(depths) == 1
    assert table.actor.seats == {} and table.actor.phase is TablePhase.IDLE
    assert table.store.names().count("cash_out") == players
    await table.actor.stop()
    return depths[0], sum(1 for e in end.hand.events if e.kind.value == "timeout")


async def test_everyone_leaving_mid_hand_is_played_out_in_a_loop_not_by_recursion() -> None:
    # Every decision is timed out at once: the bring-in, then each player facing it folds.
    two_depth, two_timeouts = await everyone_stands_up(2)
    eight_depth, eight_timeouts = await everyone_stands_up(8)
    assert (two_timeouts, eight_timeouts) == (2, 8)
    # One turn of a loop per decision: six more decisions, not one frame deeper.
    assert eight_depth == two_depth, (eight_depth, two_depth)


async def test_the_lobby_hears_of_seat_changes_and_hands() -> None:
    table = make_table(hand_pause_seconds=0.0)
    await table.seat(2)
    assert table.room.lobby_changes == [7, 7]  # each sit
    table.clock.advance(0.0)
    await table.flush()
    assert table.room.lobby_changes == [7, 7, 7]  # the hand started
    await table.play_out()
    await table.flush()
    assert table.room.lobby_changes == [7, 7, 7, 7]  # and ended
    assert table.actor.summary()["hands_played"] == 1
    await table.actor.stop()
