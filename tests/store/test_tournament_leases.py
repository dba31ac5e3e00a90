"""Tournament ownership by lease, with fencing (docs/cluster.md "Tournament ownership"), on SQLite
and on PostgreSQL: fair shares, expiry by the database's clock, finished tournaments left alone,
refused writes of an old owner, and a voided hand never finished."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from sqlalchemy import select, update

from studpoker.server.tournaments import create_sit_and_go
from studpoker.server.tournaments.creating import create_tournament
from studpoker.store import HandStateError, InvalidInputError, LeaseLost, Store
from studpoker.store.schema import (
    ledger_entries,
    tournament_entries,
    tournament_hands,
    tournament_leases,
    tournaments,
)
from studpoker.store.tournament_leases import TournamentFence, TournamentLease
from studpoker.store.tournaments import TournamentRecord, Tournaments

from .conftest import open_store

LONG = 600.0  # a lease that cannot run out during a test: expiry is forced with expire()
CLOCK = {"played": 1.0, "since": 1.0}


async def expire(store: Store, *tournament_ids: int) -> None:
    """Make the leases run out now (as a worker that stopped renewing them would see them)."""
    async with store.database.write() as conn:
        await conn.execute(
            update(tournament_leases)
            .where(tournament_leases.c.tournament_id.in_(tournament_ids))
            .values(expires_at=datetime(2000, 1, 1, tzinfo=UTC))
        )


async def make_tournaments(store: Store, count: int) -> list[TournamentRecord]:
    return [
        await create_sit_and_go(store, f"SNG {i}", "7S", "turbo", buy_in=100, fee=0, seats=2)
        for i in range(count)
    ]


async def running(
    store: Store, name: str = "MTT", players: tuple[str, ...] = ("ann", "ben")
) -> TournamentRecord:
    """A scheduled tournament with late registration, started with ``players`` at table 1."""
    record = await create_tournament(
        store, name, "7S", "turbo", buy_in=1_000, fee=100, seats=20,
        starts_at=store.now() + timedelta(hours=1), min_players=2, late_levels=3, reentries=1,
    )  # fmt: skip
    ids = [(await store.register(f"{name}-{p}", "password123")).id for p in players]
    for account_id in ids:
        await store.tournaments.register(record.id, account_id)
    seating = {account_id: (1, n + 1) for n, account_id in enumerate(ids)}
    return await store.tournaments.start(record.id, seating, CLOCK)


async def registering(store: Store, name: str) -> tuple[TournamentRecord, dict[int, tuple[int, int]]]:
    """A sit-and-go with two entrants, not started: its seating for the start."""
    record = await create_sit_and_go(store, name, "7S", "turbo", buy_in=100, fee=0, seats=3)
    ids = [(await store.register(f"{name}-{p}", "password123")).id for p in ("x", "y")]
    for account_id in ids:
        await store.tournaments.register(record.id, account_id)
    return record, {account_id: (1, n + 1) for n, account_id in enumerate(ids)}


async def books(store: Store) -> tuple[Any, ...]:
    """Everything a refused tournament write must leave alone."""
    queries = [
        select(tournaments).order_by(tournaments.c.id),
        select(tournament_entries).order_by(
            tournament_entries.c.tournament_id, tournament_entries.c.entry_no
        ),
        select(tournament_hands).order_by(tournament_hands.c.id),
        select(ledger_entries).order_by(ledger_entries.c.id),
    ]
    async with store.engine.connect() as conn:
        return tuple([tuple((await conn.execute(query)).all()) for query in queries])


def held(leases: list[TournamentLease]) -> list[tuple[int, str | None, int]]:
    return [(lease.tournament_id, lease.owner, lease.epoch) for lease in leases]


# ---------------------------------------------------------------------------------------- claims


async def test_claims_take_the_fair_share_and_raise_the_epoch(store: Store) -> None:
    await make_tournaments(store, 5)
    await store.leases.renew("w2", [], lease_seconds=LONG)  # w2's heartbeat: two live workers
    first = await store.tournament_leases.claim("w1", LONG)  # w1 has no heartbeat: counted live
    assert held(first) == [(1, "w1", 1), (2, "w1", 1), (3, "w1", 1)]  # ceil(5 / 2)
    assert all(lease.live and lease.expires_at is not None for lease in first)
    assert held(await store.tournament_leases.claim("w2", LONG)) == [(4, "w2", 1), (5, "w2", 1)]
    assert await store.tournament_leases.claim("w1", LONG) == []  # at its share already
    await store.tournament_leases.release("w1", 1)
    assert held(await store.tournament_leases.claim("w2", LONG, fair_share=3)) == [(1, "w2", 2)]
    owners = await store.tournament_leases.owners()
    assert [(*row, lease.live) for row, lease in zip(held(owners), owners, strict=True)] == [
        (1, "w2", 2, True), (2, "w1", 1, True), (3, "w1", 1, True), (4, "w2", 1, True), (5, "w2", 1, True),
    ]  # fmt: skip


async def test_a_lone_worker_takes_every_tournament_and_new_ones_later(store: Store) -> None:
    await make_tournaments(store, 2)
    assert await store.tournament_leases.owners() == []  # no claim has seen them yet
    assert held(await store.tournament_leases.claim("solo", LONG, fair_share=1)) == [(1, "solo", 1)]
    assert held(await store.tournament_leases.claim("solo", LONG)) == [(2, "solo", 1)]
    later = await create_sit_and_go(store, "late", "7S", "turbo", buy_in=100, fee=0, seats=2)
    assert held(await store.tournament_leases.claim("solo", LONG)) == [(later.id, "solo", 1)]
    assert await store.leases.workers() == []  # tournament leases never beat


async def test_two_workers_claiming_at_once_split_the_tournaments(store: Store) -> None:
    await make_tournaments(store, 6)
    for worker in ("a", "b"):
        await store.leases.renew(worker, [], lease_seconds=LONG)
    got = await asyncio.gather(*(store.tournament_leases.claim(w, LONG) for w in ("a", "b")))
    ids = [[lease.tournament_id for lease in leases] for leases in got]
    assert [len(i) for i in ids] == [3, 3] and sorted(ids[0] + ids[1]) == [1, 2, 3, 4, 5, 6]


async def test_an_expired_lease_is_claimed_by_another_at_a_higher_epoch(store: Store) -> None:
    record = await running(store)
    [old] = await store.tournament_leases.claim("w1", LONG)
    await expire(store, record.id)
    with pytest.raises(LeaseLost):  # run out, though nobody took it yet
        await store.tournaments.fenced(old.fence).save_clock(record.id, CLOCK)
    assert await store.tournament_leases.renew("w1", [record.id], lease_seconds=LONG) == []
    [new] = await store.tournament_leases.claim("w2", LONG)
    assert (new.tournament_id, new.owner, new.epoch) == (record.id, "w2", old.epoch + 1)
    with pytest.raises(LeaseLost):
        await store.tournaments.fenced(old.fence).save_clock(record.id, CLOCK)
    await store.tournaments.fenced(new.fence).save_clock(record.id, {"played": 9.0, "since": 9.0})


async def test_finished_and_cancelled_tournaments_are_never_claimed(store: Store) -> None:
    done = await running(store, "Done")
    cancelled, _ = await registering(store, "Gone")
    await store.tournaments.cancel(cancelled.id)
    later = await running(store, "Later")
    [lease] = await store.tournament_leases.claim("w1", LONG, fair_share=1)
    assert lease.tournament_id == done.id
    await store.tournaments.finish(done.id, {1: 2_000})
    # The finished one no longer counts in w1's share: it takes the next, never the cancelled one.
    assert held(await store.tournament_leases.claim("w1", LONG, fair_share=1)) == [(later.id, "w1", 1)]
    await expire(store, done.id)
    assert await store.tournament_leases.claim("w2", LONG, fair_share=5) == []
    assert [lease.tournament_id for lease in await store.tournament_leases.owners()] == [
        done.id,
        later.id,
    ]


async def test_renew_keeps_only_what_is_still_held(store: Store) -> None:
    await make_tournaments(store, 3)
    mine = await store.tournament_leases.claim("w1", LONG, fair_share=2)
    await store.tournament_leases.claim("w2", LONG, fair_share=1)
    await expire(store, 2)
    renewed = await store.tournament_leases.renew("w1", [1, 2, 3], lease_seconds=LONG * 2)
    assert held(renewed) == [(1, "w1", 1)]
    assert renewed[0].expires_at is not None and mine[0].expires_at is not None
    assert renewed[0].expires_at > mine[0].expires_at
    assert await store.tournament_leases.renew("w1", [], lease_seconds=LONG) == []
    with pytest.raises(InvalidInputError):
        await store.tournament_leases.renew("w1", [1], lease_seconds=0)
    with pytest.raises(InvalidInputError):
        await store.tournament_leases.claim("bad worker!", LONG)


async def test_release_and_leave(store: Store) -> None:
    first, second, third = [await running(store, name) for name in ("One", "Two", "Three")]
    await store.tournament_leases.claim("w1", LONG, fair_share=2)
    await store.tournament_leases.claim("w2", LONG, fair_share=1)
    with pytest.raises(LeaseLost):
        await store.tournament_leases.release("w2", first.id)  # not w2's
    await store.tournament_leases.release("w2", third.id)
    with pytest.raises(LeaseLost):
        await store.tournament_leases.release("w2", third.id)  # not held any more
    await store.tournaments.start_hand(second.id, "h1", 1, 1)
    assert await store.tournament_leases.leave("w1") == [first.id]  # the hand keeps `second`
    leases = {lease.tournament_id: lease for lease in await store.tournament_leases.owners()}
    assert (leases[first.id].owner, leases[first.id].expires_at) == (None, None)
    assert (leases[second.id].owner, leases[second.id].live) == ("w1", True)
    assert leases[third.id].owner is None
    with pytest.raises(LeaseLost):
        _ = leases[first.id].fence


def test_a_fence_is_checked_when_made() -> None:
    with pytest.raises(InvalidInputError):
        TournamentFence(1, "w1", 0)
    with pytest.raises(InvalidInputError):
        TournamentFence(True, "w1", 1)
    with pytest.raises(InvalidInputError):
        TournamentFence(1, "", 1)


# --------------------------------------------------------------------------------------- fencing

OwnerWrite = Callable[[Tournaments], Awaitable[object]]


def owner_writes(t: int, r: int, seating: dict[int, tuple[int, int]], late: int) -> dict[str, OwnerWrite]:
    """Each owner write, for the running tournament ``t`` (hand h1 in progress) and the
    registering ``r`` (``seating`` its start's); ``late`` enters ``t`` late."""
    return {
        "start": lambda ts: ts.start(r, seating, CLOCK),
        "cancel": lambda ts: ts.cancel(r),
        "enter_late": lambda ts: ts.enter_late(t, late, 1, 3),
        "start_hand": lambda ts: ts.start_hand(t, "h2", 1, 1),
        "finish_hand": lambda ts: ts.finish_hand(t, "h1", {1: 3_000, 2: 0}, CLOCK),
        "void_hand": lambda ts: ts.void_hand("h1", "moved"),
        "void_interrupted": lambda ts: ts.void_interrupted(t),
        "place": lambda ts: ts.place(t, {2: (2, 1)}),
        "save_seats": lambda ts: ts.save_seats(t, {1: (1, 5)}),
        "save_clock": lambda ts: ts.save_clock(t, {"played": 5.0, "since": 5.0}),
        "finish": lambda ts: ts.finish(t, {1: 2_000}),
    }


async def fenced_setup(store: Store) -> tuple[int, int, dict[int, tuple[int, int]], int]:
    """Accounts 1 and 2 in the running tournament 1 (hand h1 in progress), 3 to enter late, the
    registering tournament 2 with accounts 4 and 5."""
    t = await running(store)
    late = (await store.register("late", "password123")).id
    r, seating = await registering(store, "Reg")
    await store.tournaments.start_hand(t.id, "h1", 1, 1)
    assert late == 3 and sorted(seating) == [4, 5]
    return t.id, r.id, seating, late


async def test_each_owner_write_under_a_stale_fence_is_refused_and_writes_nothing(store: Store) -> None:
    t, r, seating, late = await fenced_setup(store)
    stale = {lease.tournament_id: lease.fence for lease in await store.tournament_leases.claim("w1", LONG)}
    await expire(store, t, r)
    fresh = {lease.tournament_id: lease.fence for lease in await store.tournament_leases.claim("w2", LONG)}
    before = await books(store)
    for name, write in owner_writes(t, r, seating, late).items():
        tournament = r if name in ("start", "cancel") else t
        for fence in (stale[tournament], fresh[r if tournament == t else t]):  # old, or another's
            with pytest.raises(LeaseLost):
                await write(store.tournaments.fenced(fence))
            assert await books(store) == before, name


async def test_a_fenced_void_may_only_void_a_hand_of_its_tournament(store: Store) -> None:
    t, r, seating, _ = await fenced_setup(store)
    leases = {lease.tournament_id: lease.fence for lease in await store.tournament_leases.claim("w1", LONG)}
    await store.tournaments.start(r, seating, CLOCK)
    await store.tournaments.start_hand(r, "r1", 1, 1)
    with pytest.raises(LeaseLost):
        await store.tournaments.fenced(leases[t]).void_hand("r1", "not mine")
    assert await store.tournaments.hand_status("r1") == ("in_progress", None)
    await store.tournaments.fenced(leases[r]).void_hand("r1", "mine")
    await store.tournaments.fenced(leases[t]).void_hand("no-such-hand", "nothing to void")
    assert await store.tournaments.hand_status("r1") == ("void", "mine")


async def test_the_right_fence_writes(store: Store) -> None:
    t, r, seating, late = await fenced_setup(store)
    other, _ = await registering(store, "Other")
    fences = {lease.tournament_id: lease.fence for lease in await store.tournament_leases.claim("w1", LONG)}
    writes = owner_writes(t, r, seating, late)
    mine, theirs, gone = (store.tournaments.fenced(fences[i]) for i in (t, r, other.id))
    await writes["save_clock"](mine)
    await writes["save_seats"](mine)
    await writes["finish_hand"](mine)
    await writes["start_hand"](mine)
    await writes["void_hand"](mine)  # h1 is finished: voids nothing
    assert await store.tournaments.hand_status("h1") == ("finished", None)
    assert await writes["void_interrupted"](mine) == 1  # h2
    await writes["enter_late"](mine)
    await writes["place"](mine)
    await mine.place(t, {1: (1, 1), 2: (3, 1), 3: (2, 1)})
    record = await mine.finish(t, {1: 3_000})  # three buy-ins now
    assert isinstance(record, TournamentRecord) and record.status == "finished"
    assert (await store.tournaments.get(t)).clock is not None
    started = await writes["start"](theirs)
    assert isinstance(started, TournamentRecord) and started.status == "running"
    assert (await gone.cancel(other.id)).status == "cancelled"
    report = await store.audit()
    assert report.balanced, report.render()


async def test_finishing_a_voided_or_finished_hand_is_refused(store: Store) -> None:
    t, _, _, _ = await fenced_setup(store)
    await store.tournaments.void_hand("h1", "the table broke")
    before = await books(store)
    with pytest.raises(HandStateError):
        await store.tournaments.finish_hand(t, "h1", {1: 3_000, 2: 0}, CLOCK)
    with pytest.raises(HandStateError):
        await store.tournaments.finish_hand(t, "never-started", {1: 3_000, 2: 0}, CLOCK)
    assert await books(store) == before  # no stack, no hand count, no hand changed
    await store.tournaments.start_hand(t, "h2", 1, 1)
    await store.tournaments.finish_hand(t, "h2", {1: 2_000, 2: 1_000}, CLOCK)
    after = await books(store)
    with pytest.raises(HandStateError):
        await store.tournaments.finish_hand(t, "h2", {1: 3_000, 2: 0}, CLOCK)
    assert await books(store) == after
    assert [e.stack for e in (await store.tournaments.get(t)).entries] == [2_000, 1_000]


# -------------------------------------------------------------------------------------- migration


async def test_migration_0012_downgrades_and_upgrades_again(fresh_db_url: str) -> None:
    from alembic import command
    from sqlalchemy import inspect

    from studpoker.store.migrate import alembic_config

    store = await open_store(fresh_db_url)
    try:
        record = await running(store)
        await store.tournament_leases.claim("w1", LONG)
        async with store.engine.begin() as conn:

            def to_0011(sync_conn: Any) -> list[str]:
                config = alembic_config()
                config.attributes["connection"] = sync_conn
                command.downgrade(config, "0011")
                return [str(name) for name in inspect(sync_conn).get_table_names()]

            left = await conn.run_sync(to_0011)
        assert "tournament_leases" not in left and "table_leases" in left and "tournaments" in left
    finally:
        await store.close()
    store = await open_store(fresh_db_url)  # to head again: the lease is gone, claimed anew
    try:
        assert await store.tournament_leases.owners() == []
        [lease] = await store.tournament_leases.claim("w2", LONG)
        assert (lease.tournament_id, lease.owner, lease.epoch) == (record.id, "w2", 1)
        assert (await store.tournaments.get(record.id)).status == "running"
    finally:
        await store.close()
