"""Blinds at a board-game table (docs/rules.md, R-O8-NEW-PLAYER-WAITS, R-O8-POST-TO-COME-IN,
R-O8-MISSED-BLINDS, R-O8-SHORT-HANDED-NO-DEBT): a new player waits for the big blind or posts
it, a player the blinds passed while he sat out owes them. Fake ports (table_fakes.py)."""

from __future__ import annotations

from studpoker.engine import EventKind, Hand
from studpoker.server.protocol import AckMsg, ErrorMsg
from studpoker.server.table import PostBlind, Sit, SitIn, SitOut
from tests.server.table_fakes import FakeViewer, Table, make_table


async def next_hand(table: Table) -> Hand:
    """Play the hand out, then deal the next one; that hand."""
    if table.actor.hand is not None:
        await table.play_out()
    table.clock.advance(5.0)
    await table.flush()
    hand = table.actor.hand
    assert hand is not None and not hand.is_over
    return hand


async def newcomer(table: Table, seat: int) -> FakeViewer:
    viewer = FakeViewer(seat, f"player{seat}")
    table.room.viewers.append(viewer)
    table.players.append(viewer)
    await table.actor.call(Sit(conn=viewer, seat=seat, buy_in=4000))
    return viewer


def blinds(hand: Hand) -> dict[int, int]:
    return {e.seat: e.amount for e in hand.events if e.kind is EventKind.POST_BLIND}  # type: ignore[misc]


def dealt(hand: Hand) -> list[int]:
    return list(hand.seat_numbers)


def chips(table: Table, hand: Hand) -> int:
    """Every chip at the table: the stacks of those not in the hand and what the hand holds."""
    in_hand = set(dealt(hand))
    out = sum(s.stack for seat, s in table.actor.seats.items() if seat not in in_hand)
    return out + sum(hand.initial_stacks.values())


async def test_a_new_player_waits_until_the_big_blind_reaches_him() -> None:
    table = make_table("O8")
    await table.seat(4)
    first = await next_hand(table)  # every seat new: all dealt in (a game starting)
    assert dealt(first) == [1, 2, 3, 4] and first.button == 1
    await newcomer(table, 5)
    second = await next_hand(table)  # button 2, blinds 3 and 4: not his turn for the big blind
    assert dealt(second) == [1, 2, 3, 4]
    assert table.actor.seats[5].owes_big_blind
    third = await next_hand(table)  # button 3, small blind 4: the big blind is his
    assert dealt(third) == [1, 2, 3, 4, 5]
    assert blinds(third) == {4: 50, 5: 100}
    assert not table.actor.seats[5].owes_big_blind


async def test_a_new_player_may_post_the_big_blind_to_be_dealt_in_at_once() -> None:
    table = make_table("O8")
    await table.seat(4)
    await next_hand(table)
    late = await newcomer(table, 5)
    await table.actor.call(PostBlind(conn=late, now=True))
    assert late.of_type(AckMsg)[-1].request == "post_blind"
    hand = await next_hand(table)
    assert dealt(hand) == [1, 2, 3, 4, 5]
    assert blinds(hand) == {3: 50, 4: 100, 5: 100}
    # His big blind is live, but the action starts left of the table's big blind: with him.
    assert hand.to_act == 5
    assert not table.actor.seats[5].owes_big_blind


async def test_a_player_the_blinds_passed_owes_them_and_posts_the_small_blind_dead() -> None:
    table = make_table("O8")
    seated = await table.seat(5)
    await next_hand(table)  # button 1, blinds 2 and 3
    await table.actor.call(SitOut(conn=seated[3]))  # seat 4 sits out from the next hand
    await next_hand(table)  # button 2, blinds 3 and 5: the big blind passed seat 4
    assert table.actor.seats[4].owes_big_blind and not table.actor.seats[4].owes_small_blind
    await next_hand(table)  # button 3, blinds 5 and 1: the small blind passed him too
    assert table.actor.seats[4].owes_big_blind and table.actor.seats[4].owes_small_blind
    await table.actor.call(SitIn(conn=seated[3]))
    await table.actor.call(PostBlind(conn=seated[3], now=True))
    on_the_button = await next_hand(table)  # he would be the button: he waits one more hand
    assert dealt(on_the_button) == [1, 2, 3, 5] and on_the_button.button == 5
    hand = await next_hand(table)  # button 1, blinds 2 and 3; he posts 100 live and 50 dead
    assert dealt(hand) == [1, 2, 3, 4, 5]
    assert blinds(hand) == {2: 50, 3: 100, 4: 100}
    dead = [e for e in hand.events if e.kind is EventKind.POST_ANTE]
    assert [(e.seat, e.amount, e.detail) for e in dead] == [(4, 50, "dead_blind")]
    assert hand.to_act == 4
    before = chips(table, hand)
    await table.play_out()
    after = sum(s.stack for s in table.actor.seats.values())
    assert after == before  # no chip created or lost
    assert not table.actor.seats[4].owes_big_blind and not table.actor.seats[4].owes_small_blind


async def test_short_handed_nobody_waits_and_debts_are_dropped() -> None:
    table = make_table("O8")
    seated = await table.seat(3)
    await next_hand(table)
    await table.actor.call(SitOut(conn=seated[2]))
    for _ in range(3):  # heads-up until the big blind passes seat 3
        await next_hand(table)
        if table.actor.seats[3].owes_big_blind:
            break
    assert table.actor.seats[3].owes_big_blind
    await table.actor.call(SitIn(conn=seated[2]))
    hand = await next_hand(table)  # two regular players only: he is dealt in without posting
    assert dealt(hand) == [1, 2, 3]
    assert len(blinds(hand)) == 2
    assert not table.actor.seats[3].owes_big_blind


async def test_post_blind_without_a_debt_is_refused_and_changes_nothing() -> None:
    table = make_table("7S")
    seated = await table.seat(2)
    await table.actor.call(PostBlind(conn=seated[0], now=True))
    assert seated[0].of_type(ErrorMsg)[-1].code == "invalid"
    assert not table.actor.seats[1].post_blind_now


async def test_a_choice_to_post_is_dropped_when_he_sits_out_or_waits_again() -> None:
    table = make_table("O8")
    await table.seat(4)
    await next_hand(table)
    late = await newcomer(table, 5)
    seat = table.actor.seats[5]
    await table.actor.call(PostBlind(conn=late, now=True))
    await table.actor.call(PostBlind(conn=late, now=False))  # he waits for the big blind again
    assert seat.owes_big_blind and not seat.post_blind_now
    await table.actor.call(PostBlind(conn=late, now=True))
    await table.actor.call(SitOut(conn=late))
    assert seat.sitting_out and not seat.post_blind_now
    await table.actor.call(SitIn(conn=late))
    hand = await next_hand(table)  # back, he chose nothing: he waits, not posted for
    assert dealt(hand) == [1, 2, 3, 4]
    assert seat.owes_big_blind and not seat.post_blind_now
