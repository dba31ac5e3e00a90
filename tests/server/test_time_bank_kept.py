"""Standing up does not refill the time bank (R-TIME-BANK-KEPT): a player who gives his seat up
and sits at that table again within ``time_bank_kept_seconds`` gets back the bank he left, its
seconds and its hands towards the next growth; later, another player, or another table, a full
one. The table runs behind fake ports and a manual clock (tests/server/table_fakes.py)."""

from __future__ import annotations

from typing import Any

from studpoker.server.table import Sit, StandUp
from studpoker.server.table.time_bank import TimeBank, TimeBankPolicy
from tests.server.table_fakes import FakeViewer, Table, make_table
from tests.server.test_time_bank import CLOCK, bank_of, seat_list_bank, started

DAY = 86_400.0


async def sit(table: Table, viewer: FakeViewer, seat: int) -> None:
    await table.actor.call(Sit(conn=viewer, seat=seat, buy_in=4000))


async def stand_up_after_five_seconds_of_bank(**settings: Any) -> tuple[Table, FakeViewer, int]:
    """Heads-up: the player to act lets 5 s of his bank run, stands up (his decisions are made at
    once) and the hand is played out; his seat is free."""
    table = await started(**settings)
    found = table.turn()
    assert found is not None
    viewer, turn = found
    table.clock.advance(CLOCK + 5.0)
    await table.flush()
    await table.actor.call(StandUp(conn=viewer))
    await table.play_out()
    await table.flush()
    assert turn.seat not in table.actor.seats
    return table, viewer, turn.seat


async def test_sitting_again_the_same_day_gives_back_the_bank_he_left() -> None:
    table, viewer, seat = await stand_up_after_five_seconds_of_bank()
    table.clock.advance(3600.0)
    # Back at the same table an hour later, at another seat: the 25 s he left, told to everyone.
    other_seat = 5 if seat != 5 else 6
    await sit(table, viewer, other_seat)
    assert bank_of(table, other_seat) == 25.0
    assert seat_list_bank(table.players[0], other_seat) == 25.0
    await table.actor.stop()


async def test_a_day_later_another_player_or_another_table_get_a_full_bank() -> None:
    table, viewer, seat = await stand_up_after_five_seconds_of_bank()
    # Someone else takes the seat: his own bank, a full one.
    stranger = FakeViewer(77, "sam")
    table.room.viewers.append(stranger)
    await sit(table, stranger, seat)
    assert bank_of(table, seat) == 30.0
    # Another table knows nothing of the bank he left here.
    elsewhere = make_table(hand_pause_seconds=0.0, time_bank_seconds=30.0, time_bank_max_seconds=60.0)
    await sit(elsewhere, viewer, 1)
    assert bank_of(elsewhere, 1) == 30.0
    await elsewhere.actor.stop()
    # A day after he left, this table fills his bank again.
    table.clock.advance(DAY)
    await sit(table, viewer, 6)
    assert bank_of(table, 6) == 30.0
    await table.actor.stop()


async def test_the_house_may_keep_no_bank() -> None:
    table, viewer, seat = await stand_up_after_five_seconds_of_bank(time_bank_kept_seconds=0.0)
    await sit(table, viewer, seat)
    assert bank_of(table, seat) == 30.0
    await table.actor.stop()


async def test_a_grown_bank_and_its_hands_are_kept_across_a_stand_up_between_hands() -> None:
    table = make_table(hand_pause_seconds=0.0, time_bank_seconds=52.0, time_bank_max_seconds=60.0)
    players = await table.seat(2)
    for _ in range(15):
        table.clock.advance(0.0)
        await table.flush()
        await table.play_out()
        await table.flush()
    assert bank_of(table, 1) == 57.0  # grown after the 10th hand; 5 hands towards the next
    # Between hands he stands up (cashed out at once) and sits down again.
    await table.actor.call(StandUp(conn=players[0]))
    assert 1 not in table.actor.seats
    await sit(table, players[0], 1)
    assert (bank_of(table, 1), table.actor.seats[1].bank.hands) == (57.0, 15)
    for _ in range(5):
        table.clock.advance(0.0)
        await table.flush()
        await table.play_out()
        await table.flush()
    assert bank_of(table, 1) == 60.0  # the 20th hand he played here: grown to the cap
    await table.actor.stop()


def test_the_policy_keeps_a_bank_given_up_for_its_player_until_it_is_too_old() -> None:
    now = [1000.0]
    policy = TimeBankPolicy(kept_seconds=600.0, now=lambda: now[0])
    left = TimeBank(seconds=4.5, hands=7)
    policy.give_up(42, left)
    assert policy.bank_for(43) == TimeBank(seconds=30.0)  # not his
    now[0] += 599.0
    assert policy.bank_for(42) is left
    # Taken back, it is his seat's again: a second sit-down (no stand-up between) is a full bank.
    assert policy.bank_for(42) == TimeBank(seconds=30.0)
    policy.give_up(42, left)
    now[0] += 600.0
    assert policy.bank_for(42) == TimeBank(seconds=30.0)
    assert policy.given_up == {}
