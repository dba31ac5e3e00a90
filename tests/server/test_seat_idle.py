"""Seats nobody uses (issue 12): a player disconnected and sitting out gives up his seat after the
house's ``idle_seat_seconds``, cashed out by the stand-up's path to the cent; a reconnect (or
sit_in) before then keeps it."""

from __future__ import annotations

import asyncio
from pathlib import Path

from studpoker.server.table import SitIn, SitOut, Unwatch, Watch
from tests.server.conftest import autoplay, make_settings, running_server
from tests.server.table_fakes import FakeViewer, Table, make_table


async def away_and_sitting_out(table: Table, viewer: FakeViewer) -> None:
    await table.actor.call(SitOut(conn=viewer))
    await table.actor.call(Unwatch(conn=viewer, closed=True))
    assert not table.actor.connected(viewer.account_id)


def seat_reasons(viewer: FakeViewer) -> list[tuple[int | None, str]]:
    return [(e["seat"], e["reason"]) for e in viewer.events("seats")]


async def test_a_disconnected_player_sitting_out_is_cashed_out_after_the_house_time() -> None:
    table = make_table(idle_seat_seconds=600.0)
    first, second = await table.seat(2)
    await away_and_sitting_out(table, second)
    table.clock.advance(599.0)
    await table.flush()
    assert 2 in table.actor.seats and "cash_out" not in table.store.names()
    table.clock.advance(1.0)
    await table.flush()
    assert 2 not in table.actor.seats
    assert ("cash_out", second.account_id, 2, 4000) in table.store.calls
    assert seat_reasons(first)[-1] == (2, "freed")
    await table.actor.stop()


async def test_an_idle_seat_in_a_hand_leaves_as_a_stand_up_does_when_the_hand_ends() -> None:
    table = make_table(idle_seat_seconds=5.0)
    await table.seat(3)
    table.clock.advance(1.0)
    await table.flush()
    found = table.turn()
    assert found is not None
    away = found[0]
    await table.actor.call(Unwatch(conn=away, closed=True))
    table.clock.advance(30.0)  # his clock runs out: he sits out, and is away
    await table.flush()
    assert table.actor.seats[away.account_id].sitting_out
    table.clock.advance(5.0)
    await table.flush()
    assert table.actor.seats[away.account_id].leaving  # in the hand: cashed out at its end
    await table.play_out()
    await table.flush()
    (end,) = table.store.ends
    final = end.hand.result.final_stacks[away.account_id]
    assert ("cash_out", away.account_id, away.account_id, final) in table.store.calls
    assert away.account_id not in table.actor.seats
    await table.actor.stop()


async def test_a_reconnect_or_sit_in_before_the_time_keeps_the_seat() -> None:
    table = make_table(idle_seat_seconds=600.0)
    first, second = await table.seat(2)
    await table.actor.call(SitOut(conn=first))  # no hand: only the seats' timers run
    await away_and_sitting_out(table, second)
    table.clock.advance(500.0)
    await table.actor.call(Watch(conn=second))  # back: the seat stays
    table.clock.advance(200.0)
    await table.flush()
    assert 2 in table.actor.seats
    # Away again: the whole time runs again from now.
    await table.actor.call(Unwatch(conn=second, closed=True))
    table.clock.advance(599.0)
    await table.flush()
    assert 2 in table.actor.seats
    # Sitting in while away keeps it too (a client that plays without watching the table).
    await table.actor.call(SitIn(conn=second))
    table.clock.advance(10.0)
    await table.flush()
    assert 2 in table.actor.seats and "cash_out" not in table.store.names()
    # Sitting out again, still away: freed the whole time after that.
    await table.actor.call(SitOut(conn=second))
    table.clock.advance(599.0)
    await table.flush()
    assert 2 in table.actor.seats
    table.clock.advance(1.0)
    await table.flush()
    assert 2 not in table.actor.seats and table.store.names().count("cash_out") == 1
    await table.actor.stop()


async def test_only_a_disconnected_player_sitting_out_loses_his_seat_and_only_if_the_house_says() -> None:
    limited, never = make_table(idle_seat_seconds=600.0), make_table(idle_seat_seconds=None)
    for table in (limited, never):
        _, second = await table.seat(2)
        await table.actor.call(SitOut(conn=second))  # sitting out, but watching: he stays
        table.clock.advance(3600.0)
        await table.flush()
        assert 2 in table.actor.seats
        await table.actor.call(Unwatch(conn=second, closed=True))
        table.clock.advance(600.0)
        await table.flush()
    assert 2 not in limited.actor.seats
    assert 2 in never.actor.seats  # a house without the limit keeps every seat
    for table in (limited, never):
        await table.actor.stop()


async def test_an_idle_seat_is_cashed_out_to_the_cent_in_the_ledger(tmp_path: Path) -> None:
    settings = make_settings(tmp_path, idle_seat_seconds=0.5, hand_pause_seconds=0.2)
    async with running_server(settings) as harness:
        actor = await harness.add_table("7S", 100, 200)
        alice, bob = await harness.player("alice"), await harness.player("bob")
        await harness.seat(alice, actor.table_id, 1, 3000)
        await harness.seat(bob, actor.table_id, 2, 3000)
        # A hand played first, so that his stack is not what he bought in for.
        played = await asyncio.gather(autoplay(alice), autoplay(bob))
        hand_id = played[0][0]["hand_id"]
        assert (await bob.request(type="sit_out", table_id=actor.table_id))["type"] == "ack"
        # (a second hand may have been dealt before the sit_out: he plays it out, then sits out)
        for _ in range(400):
            if actor.hand is None and actor.seats[2].sitting_out:
                break
            await asyncio.sleep(0.025)
        await bob.close()
        for _ in range(400):
            if 2 not in actor.seats:
                break
            await asyncio.sleep(0.025)
        assert 2 not in actor.seats
        account = await harness.store.account_by_name("bob")
        assert not await harness.store.seats_of_account(account.id)
        # His bankroll is the grant plus what every hand he played gave him, to the cent.
        records = await harness.store.hands_for_account(account.id)
        assert hand_id in [r.id for r in records]
        net = sum(r.seats[2].award - r.seats[2].contribution for r in records if r.status == "finished")
        assert account.bankroll == harness.store.starting_grant + net
        await harness.audit()
