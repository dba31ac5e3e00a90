"""Chips added at the table (issue 12, items 6 and 7): during a hand they wait and land when it
ends, never changing a stack in play (R-TABLE-STAKES, R-ADD-CHIPS-PENDING); a refusal says what
the stack may still take; the auto top-up tops the seat up to its chosen buy-in before each hand
(R-AUTO-TOP-UP). The table behind fake ports here; the ledger in test_add_chips_ledger.py."""

from __future__ import annotations

import random

import pytest

from studpoker import fairness
from studpoker.engine import Hand
from studpoker.server.protocol import AckMsg, ChipsMsg, ErrorCode, ErrorMsg, TableStateMsg, YourTurnMsg
from studpoker.server.table import AddChips, AutoTopUp, Sit, StandUp, Watch
from tests.server.table_fakes import FakeViewer, Table, make_table

# The fake table is 7S at 1/2 (cents 100/200): buy-ins from 20.00 to 100.00.
MIN_BUY_IN, MAX_BUY_IN = 2000, 10000


def deal_from(monkeypatch: pytest.MonkeyPatch, seed: int) -> None:
    """The server seeds drawn from ``seed`` (and no client seeds): the same cards every run."""
    rng = random.Random(seed)
    monkeypatch.setattr(fairness, "new_server_seed", lambda: rng.randbytes(fairness.SEED_BYTES))


async def sit(table: Table, *buy_ins: int) -> list[FakeViewer]:
    """Seats 1, 2, ... taken with these buy-ins."""
    for n, buy_in in enumerate(buy_ins, 1):
        viewer = FakeViewer(n, f"player{n}")
        table.room.viewers.append(viewer)
        table.players.append(viewer)
        await table.actor.call(Sit(conn=viewer, seat=n, buy_in=buy_in))
    return table.players


def raising(turn: YourTurnMsg) -> str:
    kinds = [o.kind for o in turn.options]
    return next((k for k in ("raise", "bet", "complete", "call", "check") if k in kinds), kinds[0])


async def play_out_raising(table: Table) -> Hand:
    """Everybody raises (or calls at the cap) until the hand is over: the short stacks all-in.
    The hand played (the table lets go of it once it is settled)."""
    hand = table.actor.hand
    assert hand is not None
    for _ in range(200):
        if hand.is_over:
            await table.flush()
            return hand
        await table.act(raising)
    raise AssertionError("the hand did not end")


async def start_hand(table: Table) -> None:
    table.clock.advance(table.actor.hand_pause_seconds)
    await table.flush()
    assert table.actor.hand is not None and not table.actor.hand.is_over


def chips(viewer: FakeViewer) -> list[ChipsMsg]:
    return viewer.of_type(ChipsMsg)


def answer(viewer: FakeViewer) -> AckMsg | ErrorMsg:
    last = [m for m in viewer.messages if isinstance(m, AckMsg | ErrorMsg)][-1]
    assert isinstance(last, AckMsg | ErrorMsg)
    return last


async def test_chips_added_during_a_hand_land_when_it_ends() -> None:
    table = make_table()
    alice, _ = await table.seat(2)
    await start_hand(table)
    hand = table.actor.hand
    assert hand is not None
    behind = dict(hand.stacks)
    await table.actor.call(AddChips(conn=alice, amount=1500))
    assert isinstance(answer(alice), AckMsg)
    # Nothing moved: not a chip from the bankroll, not a chip onto the stack in play.
    assert "add_chips" not in table.store.names()
    assert hand.stacks == behind and table.actor.seats[1].stack == 4000
    assert chips(alice)[-1].pending == 1500
    assert table.actor.seats[1].pending_chips == 1500
    await table.play_out()
    await table.flush()
    final = hand.result.final_stacks[1]
    assert ("add_chips", 1, 1, 1500) in table.store.calls
    # After the hand's end was written, before the next hand.
    names = table.store.names()
    assert names.index("add_chips") > names.index("finish_hand")
    assert table.actor.seats[1].stack == final + 1500
    landed = chips(alice)[-1]
    assert (landed.pending, landed.added) == (0, 1500)
    await table.actor.stop()


async def test_chips_asked_for_past_the_maximum_buy_in_are_refused_saying_why() -> None:
    table = make_table()
    alice, _ = await table.seat(2)
    # Between hands: the stack is 40.00; the room left is 60.00.
    await table.actor.call(AddChips(conn=alice, amount=MAX_BUY_IN))
    refused = answer(alice)
    assert isinstance(refused, ErrorMsg) and refused.code == ErrorCode.BAD_BUY_IN
    assert "you can add at most 60.00" in refused.message and "100.00" in refused.message
    assert "add_chips" not in table.store.names() and table.actor.seats[1].stack == 4000
    await start_hand(table)
    hand = table.actor.hand
    assert hand is not None
    behind = hand.stacks[1]
    # During a hand: counted on the stack behind now, with what is already on the way.
    await table.actor.call(AddChips(conn=alice, amount=MAX_BUY_IN - behind))
    assert isinstance(answer(alice), AckMsg)
    await table.actor.call(AddChips(conn=alice, amount=1))
    full = answer(alice)
    assert isinstance(full, ErrorMsg) and full.code == ErrorCode.BAD_BUY_IN
    assert full.message.startswith("you can add chips up to the table's maximum buy-in: you have 100.00")
    assert table.actor.seats[1].pending_chips == MAX_BUY_IN - behind
    await table.actor.stop()


async def test_pending_chips_land_only_up_to_the_maximum_buy_in(monkeypatch: pytest.MonkeyPatch) -> None:
    deal_from(monkeypatch, 0)  # a deal that alice wins
    table = make_table()
    alice, _ = await sit(table, 5000, 3000)
    state = table.actor.seats[1]
    await start_hand(table)
    # 50.00 asked for during the hand, room for them then; then she wins bob's 30.00: 80.00.
    await table.actor.call(AddChips(conn=alice, amount=5000))
    assert isinstance(answer(alice), AckMsg)
    hand = await play_out_raising(table)
    assert hand.result.final_stacks == {1: 8000, 2: 0}, "the deal changed: pick another seed"
    assert ("add_chips", 1, 1, 2000) in table.store.calls
    assert state.stack == MAX_BUY_IN and state.pending_chips == 0
    told = chips(alice)[-1]
    assert told.added == 2000 and told.note is not None
    assert told.note.startswith("30.00 of the 50.00 you asked for stay in your bankroll")
    await table.actor.stop()


async def test_a_broke_player_whose_chips_are_on_the_way_keeps_his_seat(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    deal_from(monkeypatch, 1)  # a deal that seat 3 wins from seats 1 and 2
    table = make_table()
    rebuys, _, _ = await sit(table, MIN_BUY_IN, MIN_BUY_IN, MAX_BUY_IN)
    await start_hand(table)
    await table.actor.call(AddChips(conn=rebuys, amount=2500))
    hand = await play_out_raising(table)
    assert hand.result.final_stacks == {1: 0, 2: 0, 3: 14000}, "the deal changed: pick another seed"
    # The end of the hand: the chips land before the busted are cashed out.
    assert table.actor.seats[1].stack == 2500
    assert 2 not in table.actor.seats
    assert [c for c in table.store.calls if c[0] == "cash_out"] == [("cash_out", 2, 2, 0)]
    await table.actor.stop()


async def test_a_leavers_chips_stay_in_the_bankroll() -> None:
    table = make_table()
    alice, _ = await table.seat(2)
    await start_hand(table)
    await table.actor.call(AddChips(conn=alice, amount=1000))
    await table.actor.call(StandUp(conn=alice))
    await table.actor.call(AddChips(conn=alice, amount=1000))
    refused = answer(alice)
    assert isinstance(refused, ErrorMsg) and refused.code == ErrorCode.NOT_SEATED
    await table.play_out()
    await table.flush()
    assert "add_chips" not in table.store.names()
    assert 1 not in table.actor.seats
    await table.actor.stop()


async def test_the_auto_top_up_tops_the_seat_up_before_each_hand() -> None:
    table = make_table()
    alice, bob = await table.seat(2, buy_in=3000)
    # Set between hands on a stack below it: topped up at once.
    await table.actor.call(AutoTopUp(conn=alice, amount=5000))
    assert isinstance(answer(alice), AckMsg)
    assert ("add_chips", 1, 1, 2000) in table.store.calls
    assert table.actor.seats[1].stack == 5000 and chips(alice)[-1].auto_top_up == 5000
    await start_hand(table)
    # Set during a hand: nothing moves until it ends.
    await table.actor.call(AutoTopUp(conn=bob, amount=MAX_BUY_IN))
    assert not [c for c in table.store.calls if c[0] == "add_chips" and c[1] == 2]
    hand = table.actor.hand
    assert hand is not None
    before = len(table.store.calls)
    await table.play_out()
    await table.flush()
    final = hand.result.final_stacks
    added = [c for c in table.store.calls[before:] if c[0] == "add_chips"]
    # Each is topped up to his own after the hand (unless he won past it).
    for seat, target in ((1, 5000), (2, MAX_BUY_IN)):
        assert table.actor.seats[seat].stack == max(final[seat], target)
        assert sum(c[3] for c in added if c[2] == seat) == max(0, target - final[seat])
    # Off: the next hand's end tops up nothing.
    await table.actor.call(AutoTopUp(conn=bob, amount=None))
    assert table.actor.seats[2].auto_top_up is None
    await table.actor.stop()


async def test_an_auto_top_up_outside_the_buy_in_range_is_refused_and_changes_nothing() -> None:
    table = make_table()
    alice, _ = await table.seat(2, buy_in=3000)
    for amount in (MIN_BUY_IN - 1, MAX_BUY_IN + 1):
        await table.actor.call(AutoTopUp(conn=alice, amount=amount))
        refused = answer(alice)
        assert isinstance(refused, ErrorMsg) and refused.code == ErrorCode.BAD_BUY_IN
        assert "from 20.00 to 100.00" in refused.message
    assert table.actor.seats[1].auto_top_up is None and "add_chips" not in table.store.names()
    await table.actor.stop()


async def test_only_the_seated_player_is_told_his_chips() -> None:
    table = make_table()
    alice, bob = await table.seat(2)
    await start_hand(table)
    await table.actor.call(AddChips(conn=alice, amount=700))
    assert chips(alice) and not chips(bob)
    watcher = FakeViewer(99, "walt")
    for viewer in (alice, watcher):
        await table.actor.call(Watch(conn=viewer))
    mine = alice.of_type(TableStateMsg)[-1].your_chips
    assert mine is not None and mine.pending == 700
    assert watcher.of_type(TableStateMsg)[-1].your_chips is None
    await table.actor.stop()
