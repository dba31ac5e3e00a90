"""Settling a hand through a failing fake store (studpoker.server.table.settlement): the end of
a finished hand is written again with backoff while the store refuses it, voided after four
refusals that are not the database failing, and never written twice when a write committed but
was reported failed. Its money is the engine's result, and no chip is created or lost."""

from __future__ import annotations

import sqlite3

from sqlalchemy.exc import OperationalError

from studpoker.server.protocol import HandFinishedMsg
from studpoker.server.table import TablePhase
from studpoker.server.table.ports import HandStatus
from studpoker.server.table.settlement import RetryPolicy
from tests.server.table_fakes import Table, make_table

SETTLING, SCHEDULED, STOPPED = TablePhase.SETTLING, TablePhase.SCHEDULED, TablePhase.STOPPED


def locked() -> OperationalError:
    return OperationalError("COMMIT", {}, sqlite3.OperationalError("database is locked"))


async def finished_but_pending(table: Table) -> str:
    """Two players, one hand played to its end; returns its id."""
    await table.seat(2)
    table.clock.advance(table.actor.hand_pause_seconds)
    await table.flush()
    hand_id = table.actor.hand_id
    assert hand_id is not None
    await table.play_out()
    await table.flush()
    return hand_id


def test_the_backoff_doubles_from_half_a_second_up_to_ten() -> None:
    policy = RetryPolicy()
    assert [policy.delay(n) for n in range(1, 8)] == [0.5, 1.0, 2.0, 4.0, 8.0, 10.0, 10.0]


async def test_while_the_database_fails_the_end_is_retried_with_backoff_until_written() -> None:
    table = make_table(hand_pause_seconds=60.0)
    actor, store, clock = table.actor, table.store, table.clock
    store.refuse_finish.extend(locked() for _ in range(6))
    hand_id = await finished_but_pending(table)
    first = table.players[0]
    waits = []
    for _ in range(6):
        assert actor.phase is SETTLING and actor.hand_id == hand_id
        assert not first.of_type(HandFinishedMsg)
        wait = clock.pending()[0]
        waits.append(wait)
        clock.advance(wait - 0.01)
        await table.flush()
        assert store.names().count("finish_hand") == len(waits)  # not yet
        clock.advance(0.01)
        await table.flush()
    # More than four refusals: the database is what fails, so the end is kept, never voided.
    assert waits == [0.5, 1.0, 2.0, 4.0, 8.0, 10.0]
    assert "void_hand" not in store.names()
    assert actor.phase is SCHEDULED and actor.hand is None and actor.paused is None
    assert first.events("paused") == [{"kind": "paused", "reason": "database unavailable"}]
    assert first.events("resumed") == [{"kind": "resumed"}]
    (finished,) = first.of_type(HandFinishedMsg)
    (end,) = store.ends
    assert finished.hand_id == end.hand_id == hand_id
    # The money is the engine's: each seat's award what it won from the pots; chips conserved.
    result = end.hand.result
    assert end.awards == {seat: result.won(seat) for seat in end.accounts}
    assert end.contributions == end.hand.contributions
    assert sum(end.awards.values()) == sum(end.contributions.values()) > 0
    assert finished.result["awards"] == {str(k): v for k, v in end.awards.items()}
    after = {seat: s.stack for seat, s in actor.seats.items()}
    assert after == result.final_stacks
    assert sum(after.values()) == 8000
    assert {seat: after[seat] - end.hand.initial_stacks[seat] for seat in after} == result.net
    await actor.stop()


async def test_after_four_refusals_of_another_kind_the_hand_is_voided() -> None:
    table = make_table(hand_pause_seconds=60.0)
    actor, store, clock = table.actor, table.store, table.clock
    store.refuse_finish.extend(RuntimeError("the history writer broke") for _ in range(4))
    store.refuse_void.append(RuntimeError("and the void too"))
    hand_id = await finished_but_pending(table)
    first = table.players[0]
    assert actor.paused == "internal error"
    for _ in range(3):
        clock.advance(clock.pending()[0])
        await table.flush()
    assert store.names().count("finish_hand") == 4 and "void_hand" not in store.names()
    clock.advance(clock.pending()[0])
    await table.flush()
    # The fifth try is a void; the store refuses it too: still settling, retried again.
    assert store.names().count("finish_hand") == 4
    assert store.calls[-1] == ("void_hand", hand_id, "could not be recorded")
    assert actor.phase is SETTLING and actor.hand_id == hand_id
    clock.advance(clock.pending()[0])
    await table.flush()
    assert store.hands[hand_id] == HandStatus("void", "could not be recorded")
    assert actor.phase is SCHEDULED and actor.hand is None
    assert first.events("hand_voided")[-1]["reason"] == "could not be recorded"
    assert not first.of_type(HandFinishedMsg)
    # Voided: every contribution back, the stacks as they were dealt.
    assert [s.stack for s in actor.seats.values()] == [4000, 4000]
    await actor.stop()


async def test_an_end_that_committed_but_was_reported_failed_is_settled_once() -> None:
    table = make_table(hand_pause_seconds=60.0)
    actor, store, clock = table.actor, table.store, table.clock
    store.lose_reply = locked()
    hand_id = await finished_but_pending(table)
    assert actor.phase is SETTLING and store.hands[hand_id] == HandStatus("finished")
    clock.advance(clock.pending()[0])
    await table.flush()
    # The retry asked the store first: recorded already, so it was not written again.
    assert store.names().count("finish_hand") == 1 and ("hand_status", hand_id) in store.calls
    assert actor.phase is SCHEDULED and actor.hands_played == 1
    (finished,) = table.players[1].of_type(HandFinishedMsg)
    assert finished.hand_id == hand_id
    assert {seat: s.stack for seat, s in actor.seats.items()} == store.ends[0].hand.result.final_stacks
    await actor.stop()


async def test_a_hand_the_store_voided_meanwhile_is_voided_at_the_table() -> None:
    table = make_table(hand_pause_seconds=60.0)
    actor, store, clock = table.actor, table.store, table.clock
    store.refuse_finish.append(locked())
    hand_id = await finished_but_pending(table)
    store.hands[hand_id] = HandStatus("void", "voided by the operator")
    clock.advance(clock.pending()[0])
    await table.flush()
    assert "void_hand" not in store.names() and store.names().count("finish_hand") == 1
    assert table.players[0].events("hand_voided")[-1]["reason"] == "voided by the operator"
    assert actor.phase is SCHEDULED and [s.stack for s in actor.seats.values()] == [4000, 4000]
    await actor.stop()


async def test_stopping_while_settling_voids_and_leaves_no_retry() -> None:
    table = make_table(hand_pause_seconds=60.0)
    actor, store, clock = table.actor, table.store, table.clock
    store.refuse_finish.append(locked())
    hand_id = await finished_but_pending(table)
    assert clock.pending() == [0.5]
    await actor.stop()
    assert actor.phase is STOPPED
    assert store.calls[-1] == ("void_hand", hand_id, "server shutdown")
    assert clock.pending() == []
