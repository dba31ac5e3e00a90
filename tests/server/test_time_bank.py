"""The time bank (R-TIME-BANK, R-TIME-BANK-RECONNECT): a table behind fake ports and a manual
clock (10 s think, 20 s countdown), so that every second of a decision is the test's to move;
one run over a real server checks the bank in the protocol's JSON."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from studpoker.server.protocol import EventMsg, TableStateMsg
from studpoker.server.table import StandUp, Unwatch, Watch
from studpoker.server.table.time_bank import TimeBank, TimeBankPolicy
from tests.server.conftest import make_settings, running_server
from tests.server.table_fakes import FakeViewer, Table, make_table

BANK = {"time_bank_seconds": 30.0, "time_bank_max_seconds": 60.0}
CLOCK = 30.0  # think + countdown of the fake table


async def started(**settings: Any) -> Table:
    """Two players at a stud table with a bank, the first hand dealt."""
    table = make_table(hand_pause_seconds=0.0, **{**BANK, **settings})
    await table.seat(2)
    table.clock.advance(0.0)
    await table.flush()
    assert table.actor.hand is not None
    return table


def bank_of(table: Table, seat: int) -> float:
    return table.actor.seats[seat].bank.seconds


def seat_list_bank(viewer: FakeViewer, seat: int) -> float:
    """The seat's bank in the last seat list the viewer was sent."""
    seats = viewer.events("seats")[-1]["seats"]
    bank: float = next(s for s in seats if s["seat"] == seat)["time_bank"]
    return bank


def last_event(viewer: FakeViewer, kind: str) -> dict[str, Any]:
    return viewer.events(kind)[-1]


async def test_the_bank_runs_after_the_countdown_and_what_ran_is_spent() -> None:
    table = await started()
    found = table.turn()
    assert found is not None
    viewer, turn = found
    seat = turn.seat
    decision = table.actor.clock.current
    assert decision is not None
    # Every seat holds 30 s from the sit-down, and each client is told where the bank ends.
    assert [s.time_bank for s in table.actor.seat_infos()] == [30.0, 30.0]
    assert turn.bank_ends == decision.countdown_ends + 30.0
    clock = table.actor.snapshot(viewer).clock
    assert clock is not None and clock.bank_ends == turn.bank_ends
    # The countdown is over and 12 s of the bank ran: no timeout yet, then he acts.
    table.clock.advance(CLOCK + 12.0)
    await table.flush()
    assert table.actor.clock.current is decision
    assert not viewer.events("timeout")
    await table.act()
    acted = next(e for e in viewer.events("action") if e["seat"] == seat)
    assert acted["time_bank"] == 12.0
    assert bank_of(table, seat) == 18.0
    assert seat_list_bank(viewer, seat) == 18.0
    # An action inside the clock uses none of it, and its event says nothing of a bank.
    found = table.turn()
    assert found is not None
    await table.act()
    assert all("time_bank" not in e for e in found[0].events("action")[-1:])
    assert bank_of(table, found[1].seat) == 30.0
    await table.actor.stop()


async def test_the_clock_rule_applies_once_the_bank_is_empty_with_the_protected_all_in() -> None:
    table = await started()
    table.store.protected_left = 1
    await table.act()  # the bring-in
    found = table.turn()
    assert found is not None
    viewer, turn = found
    seat = turn.seat
    # He faces the bring-in with his ante in: the clock rule will protect him, but only after
    # his whole bank ran.
    table.clock.advance(CLOCK + 29.9)
    await table.flush()
    assert not viewer.events("timeout")
    table.clock.advance(0.1)
    await table.flush()
    timeout = last_event(viewer, "timeout")
    assert (timeout["seat"], timeout["detail"], timeout["time_bank"]) == (seat, "protected_all_in", 30.0)
    assert bank_of(table, seat) == 0.0
    assert seat_list_bank(viewer, seat) == 0.0
    await table.actor.stop()


async def test_an_empty_bank_times_out_when_the_countdown_ends() -> None:
    table = await started(time_bank_seconds=0.0)
    found = table.turn()
    assert found is not None
    viewer, turn = found
    assert turn.bank_ends == turn.countdown_ends
    table.clock.advance(CLOCK)
    await table.flush()
    timeout = last_event(viewer, "timeout")
    assert timeout["seat"] == turn.seat and "time_bank" not in timeout
    await table.actor.stop()


async def test_a_disconnected_players_bank_runs_and_back_during_it_he_gets_the_countdown_again() -> None:
    table = await started()
    found = table.turn()
    assert found is not None
    viewer, turn = found
    seat = turn.seat
    await table.actor.call(Unwatch(conn=viewer, closed=True))
    # Away: his countdown ends and his bank runs as it would if he were there.
    table.clock.advance(CLOCK + 10.0)
    await table.flush()
    assert not viewer.events("timeout")
    await table.actor.call(Watch(conn=viewer))
    # Back 10 s into his bank: 20 s of countdown from now, then the 20 s of bank left.
    now = table.clock.now()
    (extension,) = [e for e in viewer.events("clock") if e.get("extended")]
    assert extension["countdown_ends"] == now + 20.0
    assert extension["bank_ends"] == now + 40.0
    snapshot = viewer.of_type(TableStateMsg)[-1]
    assert snapshot.your_turn is not None and snapshot.your_turn.bank_ends == now + 40.0
    table.clock.advance(20.0 + 5.0)
    await table.flush()
    assert not viewer.events("timeout")
    await table.act()
    acted = next(e for e in viewer.events("action") if e["seat"] == seat)
    # The 10 s that ran before he came back are spent too.
    assert acted["time_bank"] == 15.0
    assert bank_of(table, seat) == 15.0
    await table.actor.stop()


async def test_back_during_the_bank_and_away_again_the_whole_bank_goes() -> None:
    table = await started()
    found = table.turn()
    assert found is not None
    viewer, turn = found
    await table.actor.call(Unwatch(conn=viewer, closed=True))
    table.clock.advance(CLOCK + 10.0)
    await table.flush()
    await table.actor.call(Watch(conn=viewer))
    table.clock.advance(40.0)
    await table.flush()
    timeout = last_event(viewer, "timeout")
    assert (timeout["seat"], timeout["time_bank"]) == (turn.seat, 30.0)
    assert bank_of(table, turn.seat) == 0.0
    await table.actor.stop()


async def test_a_seat_leaving_gets_no_bank_for_the_rest_of_the_hand() -> None:
    table = await started()
    found = table.turn()
    assert found is not None
    viewer, turn = found
    other = next(p for p in table.players if p is not viewer)
    table.clock.advance(CLOCK + 5.0)
    await table.flush()
    # He stands up 5 s into his bank: his decisions are timed out at once (what ran is gone).
    await table.actor.call(StandUp(conn=viewer))
    assert table.actor.seats[turn.seat].bank.seconds == 25.0
    after = len(other.messages)
    await table.play_out()
    await table.flush()
    assert turn.seat not in table.actor.seats
    # His decisions after it had no bank to wait for.
    clocks = [m.clock for m in other.of_type(EventMsg)[after:] if m.clock and m.clock.seat == turn.seat]
    assert all(c.bank_ends == c.countdown_ends for c in clocks), clocks
    # Sitting again gives back the bank he left (test_time_bank_kept.py, R-TIME-BANK-KEPT).
    await table.actor.stop()


async def test_the_bank_grows_every_ten_hands_played_up_to_the_cap() -> None:
    table = make_table(hand_pause_seconds=0.0, time_bank_seconds=52.0, time_bank_max_seconds=60.0)
    await table.seat(2)
    for hand in range(1, 21):
        table.clock.advance(0.0)
        await table.flush()
        await table.play_out()
        await table.flush()
        banks = [bank_of(table, seat) for seat in (1, 2)]
        # +5 s after the 10th hand, capped at 60 after the 20th.
        assert banks == [52.0 if hand < 10 else 57.0 if hand < 20 else 60.0] * 2, hand
    assert seat_list_bank(table.players[0], 1) == 60.0
    await table.actor.stop()


def test_a_bank_policy_fills_spends_and_caps() -> None:
    policy = TimeBankPolicy(start_seconds=30.0, add_seconds=5.0, every_hands=10, max_seconds=32.0)
    bank = policy.new_bank()
    assert bank == TimeBank(seconds=30.0)
    assert [policy.hand_played(bank) for _ in range(10)] == [False] * 9 + [True]
    assert bank.seconds == 32.0
    assert not any(policy.hand_played(bank) for _ in range(10))
    assert (bank.spend(40.0), bank.seconds) == (32.0, 0.0)
    assert bank.spend(-1.0) == 0.0
    # A cap of 0 is no bank at all.
    off = TimeBankPolicy(max_seconds=0.0)
    bank = off.new_bank()
    assert bank.seconds == 0.0 and not any(off.hand_played(bank) for _ in range(30))


def is_event(kind: str) -> Any:
    return lambda m: m["type"] == "event" and m["event"].get("kind") == kind


async def test_the_bank_over_a_real_server(tmp_path: Path) -> None:
    settings = make_settings(
        tmp_path, think_seconds=0.05, countdown_seconds=0.05, time_bank_seconds=0.3, time_bank_max_seconds=1.0
    )
    async with running_server(settings) as h:
        actor = await h.add_table("7S", 100, 200)
        alice, bob = await h.player("alice"), await h.player("bob")
        actor.hand_pause_seconds = 0.3
        await h.seat(alice, actor.table_id, 1, 4000)
        await h.seat(bob, actor.table_id, 2, 4000)
        # Nobody acts: the first decision's bank runs out, then the clock rule plays it.
        message = await alice.wait_for(is_event("timeout"))
        timeout = message["event"]
        seat = timeout["seat"]
        assert timeout["time_bank"] == 0.3
        before = alice.log[: next(i for i, m in enumerate(alice.log) if m is message)]
        decision = [m["clock"] for m in before if m["type"] == "event" and m.get("clock")][-1]
        assert decision["seat"] == seat
        assert round(decision["bank_ends"] - decision["countdown_ends"], 3) == 0.3
        # (the first decision of the hand: the first your_turn of that seat)
        turn = next(m for m in (alice.log + bob.log) if m["type"] == "your_turn" and m["seat"] == seat)
        assert turn["bank_ends"] == decision["bank_ends"]
        # The seat lists tell everyone his bank is spent (the first one goes out with the timeout).
        for _ in range(500):
            lists = [m["event"]["seats"] for m in alice.log if is_event("seats")(m)]
            banks = [s["time_bank"] for seats in lists for s in seats if s["seat"] == seat]
            if 0.0 in banks:
                break
            await asyncio.sleep(0.01)
        assert banks[0] == 0.3 and 0.0 in banks, banks
