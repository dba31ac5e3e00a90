"""The store's tournaments: buy-in and fee through the ledger, refusals that change nothing, a
whole tournament paid out with the audit balanced (studpoker.store.tournaments)."""

from __future__ import annotations

import pytest
from sqlalchemy import update

from studpoker.server.tournaments import create_sit_and_go
from studpoker.store import InsufficientFundsError, InvalidInputError, NotFoundError, Store
from studpoker.store.schema import tournament_entries
from studpoker.store.tournaments import TournamentRecord, TournamentStateError


async def _sng(store: Store, seats: int = 3, buy_in: int = 1_000, fee: int = 100) -> TournamentRecord:
    return await create_sit_and_go(store, "SNG", "7S", "turbo", buy_in=buy_in, fee=fee, seats=seats)


async def _bankrolls(store: Store, *ids: int) -> list[int]:
    return [(await store.account(i)).bankroll for i in ids]


async def test_register_moves_buy_in_to_the_pool_and_fee_to_the_house(store: Store) -> None:
    alice = await store.register("alice", "password123")
    sng = await _sng(store)
    record = await store.tournaments.register(sng.id, alice.id)
    assert [e.account_id for e in record.entries] == [alice.id]
    assert record.prize_pool == 1_000
    assert await _bankrolls(store, alice.id) == [alice.bankroll - 1_100]
    report = await store.audit()
    assert report.balanced, report.render()
    record = await store.tournaments.unregister(sng.id, alice.id)
    assert record.entries == ()
    assert await _bankrolls(store, alice.id) == [alice.bankroll]


async def test_refusals_change_nothing(store: Store) -> None:
    alice = await store.register("alice", "password123")
    poor = await store.register("poor", "password123")
    other = await create_sit_and_go(store, "other", "7S", "turbo", buy_in=6_000, fee=0, seats=5)
    await store.tournaments.register(other.id, poor.id)  # 4,000 left
    sng = await _sng(store, seats=2, buy_in=5_000)
    await store.tournaments.register(sng.id, alice.id)
    before = await store.tournaments.get(sng.id)
    with pytest.raises(TournamentStateError):
        await store.tournaments.register(sng.id, alice.id)  # twice
    with pytest.raises(InsufficientFundsError):
        await store.tournaments.register(sng.id, poor.id)  # buy-in + fee > bankroll
    with pytest.raises(TournamentStateError):
        await store.tournaments.unregister(sng.id, poor.id)  # not registered
    with pytest.raises(NotFoundError):
        await store.tournaments.register(sng.id + 99, alice.id)
    assert await store.tournaments.get(sng.id) == before
    assert await _bankrolls(store, poor.id) == [poor.bankroll - 6_000]


async def test_no_unregistering_after_the_start(store: Store) -> None:
    alice = await store.register("alice", "password123")
    bob = await store.register("bob", "password123")
    sng = await _sng(store, seats=2)
    for who in (alice, bob):
        await store.tournaments.register(sng.id, who.id)
    await store.tournaments.start(sng.id, {alice.id: (1, 1), bob.id: (1, 2)}, {"played": 0.0, "since": 0.0})
    before = await _bankrolls(store, alice.id, bob.id)
    with pytest.raises(TournamentStateError):
        await store.tournaments.unregister(sng.id, alice.id)
    with pytest.raises(TournamentStateError):
        await store.tournaments.register(sng.id, alice.id)
    assert await _bankrolls(store, alice.id, bob.id) == before
    assert (await store.tournaments.get(sng.id)).status == "running"


async def test_create_refuses_bad_tournaments(store: Store) -> None:
    with pytest.raises(InvalidInputError):
        await create_sit_and_go(store, "x", "7S", "turbo", buy_in=100, fee=0, seats=1)
    with pytest.raises(InvalidInputError):
        await create_sit_and_go(store, "x", "7S", "turbo", buy_in=100, fee=0, seats=1_001)  # 1,000 at most
    with pytest.raises(InvalidInputError):
        await create_sit_and_go(store, "x", "NOPE", "turbo", buy_in=100, fee=0, seats=2)
    with pytest.raises(InvalidInputError):
        await create_sit_and_go(store, "x", "7S", "nope", buy_in=100, fee=0, seats=2)
    with pytest.raises(InvalidInputError):
        await create_sit_and_go(store, "x", "7S", "turbo", buy_in=0, fee=0, seats=2)
    assert await store.tournaments.list() == []
    # A field larger than a table (stud seats 8) plays at several tables.
    assert (await create_sit_and_go(store, "x", "7S", "turbo", buy_in=100, fee=0, seats=9)).seats == 9


async def test_a_whole_tournament_is_paid_from_the_pool(store: Store) -> None:
    players = [await store.register(name, "password123") for name in ("ann", "ben", "cyd")]
    ids = [p.id for p in players]
    sng = await _sng(store, seats=3)
    for i in ids:
        await store.tournaments.register(sng.id, i)
    clock = {"played": 0.0, "since": 0.0}
    await store.tournaments.start(sng.id, {i: (1, n + 1) for n, i in enumerate(ids)}, clock)
    await store.tournaments.start_hand(sng.id, "h1", 1, 1)
    with pytest.raises(InvalidInputError):  # chips created: refused
        await store.tournaments.finish_hand(sng.id, "h1", {ids[0]: 3_000, ids[1]: 1_500}, clock)
    await store.tournaments.finish_hand(sng.id, "h1", {ids[0]: 3_000, ids[1]: 0}, clock)
    await store.tournaments.place(sng.id, {ids[1]: (3, 1)})
    await store.tournaments.start_hand(sng.id, "h2", 1, 1)
    await store.tournaments.finish_hand(sng.id, "h2", {ids[0]: 4_500, ids[2]: 0}, clock)
    await store.tournaments.place(sng.id, {ids[2]: (2, 1), ids[0]: (1, 1)})
    report = await store.audit()
    assert report.balanced, report.render()
    with pytest.raises(InvalidInputError):  # more than the pool
        await store.tournaments.finish(sng.id, {ids[0]: 3_001})
    done = await store.tournaments.finish(sng.id, {ids[0]: 3_000})
    assert done.status == "finished"
    assert [e.prize for e in done.entries] == [3_000, 0, 0]
    assert await _bankrolls(store, *ids) == [
        p.bankroll - 1_100 + (3_000 if p is players[0] else 0) for p in players
    ]
    report = await store.audit()
    assert report.balanced, report.render()


async def test_the_audit_sees_tournament_chips_created(store: Store) -> None:
    players = [await store.register(name, "password123") for name in ("ann", "ben")]
    sng = await _sng(store, seats=2)
    for p in players:
        await store.tournaments.register(sng.id, p.id)
    await store.tournaments.start(
        sng.id, {players[0].id: (1, 1), players[1].id: (1, 2)}, {"played": 0.0, "since": 0.0}
    )
    async with store.database.write() as conn:
        await conn.execute(update(tournament_entries).values(stack=tournament_entries.c.stack + 1))
    report = await store.audit()
    assert not report.balanced
    assert any("chips in play" in line for line in report.details)
    async with store.database.write() as conn:
        await conn.execute(update(tournament_entries).values(stack=tournament_entries.c.stack - 1))
