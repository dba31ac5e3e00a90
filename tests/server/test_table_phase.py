"""The life of a table as one phase (studpoker.server.table.phase): each transition driven
through the actor's public commands and its ports, with a clock that moves only when told."""

from __future__ import annotations

import asyncio
import sqlite3

import pytest
from sqlalchemy.exc import OperationalError

from studpoker.server.protocol import ErrorMsg, HandFinishedMsg, HandStartedMsg
from studpoker.server.table import Sit, SitIn, SitOut, StandUp, TablePhase
from studpoker.server.table.phase import TRANSITIONS, PhaseError, next_phase
from tests.server.table_fakes import FakeViewer, make_table

IDLE, SCHEDULED, STARTING, PLAYING, SETTLING, STOPPED = (
    TablePhase.IDLE,
    TablePhase.SCHEDULED,
    TablePhase.STARTING,
    TablePhase.PLAYING,
    TablePhase.SETTLING,
    TablePhase.STOPPED,
)


def disk_full() -> OperationalError:
    return OperationalError("BEGIN IMMEDIATE", {}, sqlite3.OperationalError("database or disk is full"))


def test_transitions_allowed_refused_and_stopped_is_for_good() -> None:
    assert next_phase(IDLE, SCHEDULED) is SCHEDULED
    assert next_phase(PLAYING, SETTLING) is SETTLING
    assert next_phase(SETTLING, SETTLING) is SETTLING  # refused again: still settling
    with pytest.raises(PhaseError, match="from idle to playing"):
        next_phase(IDLE, PLAYING)
    with pytest.raises(PhaseError, match="from settling to playing"):
        next_phase(SETTLING, PLAYING)
    # A void during the shutdown ends the hand: the table stays stopped.
    assert all(next_phase(STOPPED, phase) is STOPPED for phase in TablePhase)
    assert all(STOPPED in TRANSITIONS[phase] for phase in TablePhase if phase is not STOPPED)


async def test_a_hand_goes_idle_scheduled_starting_playing_and_back() -> None:
    table = make_table(hand_pause_seconds=1.0)
    actor, store, clock = table.actor, table.store, table.clock
    assert actor.phase is IDLE and not actor.busy
    first, second = await table.seat(2)
    # Two can play: the next hand is announced (its seed committed) and its timer runs.
    assert actor.phase is SCHEDULED and clock.pending() == [1.0]
    announced = actor.next_deal
    assert announced is not None
    assert first.events("deal_commitment")[-1]["hand_id"] == announced.hand_id
    store.hold_start = asyncio.Event()
    clock.advance(0.99)
    await table.flush()
    assert actor.phase is SCHEDULED and "start_hand" not in store.names()
    clock.advance(0.01)
    await store.start_waiting.wait()
    # The start is being written: no hand yet, but the shutdown would wait for it.
    assert actor.phase is STARTING and actor.busy and actor.hand is None
    store.hold_start.set()
    await table.flush()
    assert actor.phase is PLAYING and actor.hand_id == announced.hand_id
    assert first.of_type(HandStartedMsg)[-1].hand_id == announced.hand_id
    await table.play_out()
    await table.flush()
    assert second.of_type(HandFinishedMsg)[-1].hand_id == announced.hand_id
    # Written: the table is free and the next hand is scheduled.
    assert actor.hand is None and actor.hands_played == 1
    assert actor.phase is SCHEDULED and clock.pending() == [1.0]
    await actor.stop()
    assert actor.phase is STOPPED and actor.stopped and not actor.alive
    assert clock.pending() == []  # the start timer went with it
    late = FakeViewer(99, "late")
    actor.submit(Sit(conn=late, seat=3, buy_in=4000))
    assert [e.code for e in late.errors()] == ["table_closed"]


async def test_a_refused_start_deals_nothing_and_is_tried_again() -> None:
    table = make_table(hand_pause_seconds=0.5)
    actor, store, clock = table.actor, table.store, table.clock
    first, _second = await table.seat(2)
    store.refuse_start.append(disk_full())
    clock.advance(0.5)
    await table.flush()
    # Not dealt; the watchers are told once; tried again in 2 s (at least).
    assert actor.hand is None and actor.phase is SCHEDULED and clock.pending() == [2.0]
    assert first.events("paused") == [{"kind": "paused", "reason": "database unavailable"}]
    assert not first.of_type(HandStartedMsg)
    clock.advance(2.0)
    await table.flush()
    assert actor.phase is PLAYING and first.events("resumed") == [{"kind": "resumed"}]
    assert store.names().count("start_hand") == 2


async def test_no_hand_starts_with_fewer_than_two_or_while_draining() -> None:
    table = make_table(hand_pause_seconds=1.0)
    actor, store, clock = table.actor, table.store, table.clock
    first, second = await table.seat(2)
    announced = actor.next_deal
    await actor.call(SitOut(conn=second))
    clock.advance(1.0)
    await table.flush()
    assert actor.phase is IDLE and "start_hand" not in store.names()
    await actor.call(SitIn(conn=second))
    # Scheduled again; the hand announced before is still the next one (its seeds still count).
    assert actor.phase is SCHEDULED and actor.next_deal is announced
    actor.draining = True
    clock.advance(1.0)
    await table.flush()
    assert actor.phase is IDLE and "start_hand" not in store.names()
    await actor.call(StandUp(conn=first))
    assert actor.phase is IDLE and clock.pending() == []
    await actor.stop()


async def test_stop_voids_the_hand_being_played_and_restores_the_stacks() -> None:
    table = make_table(hand_pause_seconds=0.0)
    actor, store, clock = table.actor, table.store, table.clock
    first, _second = await table.seat(2, buy_in=3000)
    clock.advance(0.0)
    await table.flush()
    await table.act()  # a bring-in or an ante went in: stacks moved
    hand_id = actor.hand_id
    assert actor.phase is PLAYING and hand_id is not None
    assert sorted(s.stack for s in actor.seats.values()) == [3000, 3000]  # (applied at the end)
    await actor.stop()
    assert actor.phase is STOPPED and actor.hand is None
    assert ("void_hand", hand_id, "server shutdown") in store.calls
    voided = {"kind": "hand_voided", "hand_id": hand_id, "reason": "server shutdown"}
    assert first.events("hand_voided")[-1] == voided
    assert [s.stack for s in actor.seats.values()] == [3000, 3000]
    assert not any(isinstance(m, ErrorMsg) for m in first.messages)
    assert clock.pending() == []  # no clock, no start timer, no retry left behind


async def test_a_hand_whose_end_is_refused_keeps_the_table_settling() -> None:
    table = make_table(hand_pause_seconds=0.0)
    actor, store, clock = table.actor, table.store, table.clock
    await table.seat(2)
    clock.advance(0.0)
    await table.flush()
    store.refuse_finish.append(disk_full())
    await table.play_out()
    await table.flush()
    assert actor.phase is SETTLING and actor.busy and actor.hand is not None and actor.hand.is_over
    assert actor.paused == "database unavailable"
    clock.advance(0.5)  # the first retry, which the store takes
    await table.flush()
    assert actor.hand is None and actor.hands_played == 1 and actor.paused is None
    assert actor.phase is SCHEDULED  # (settling -> idle -> scheduled: the two play on)
    await actor.stop()
