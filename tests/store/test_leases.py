"""Table ownership by lease, with fencing (issue 15; docs/cluster.md "Ownership"), on SQLite and on
PostgreSQL: fair shares, concurrent claims, expiry by the database's clock, refused writes of an
old owner, and the one void of an interrupted hand."""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import delete, func, select, text, update

from studpoker.cards import Deck
from studpoker.store import (
    Account,
    Fence,
    HandStateError,
    InvalidInputError,
    LeaseLost,
    Store,
    StoreError,
    TableConfig,
    TableRecord,
)
from studpoker.store.schema import (
    accounts,
    hands,
    ledger_entries,
    ledger_transactions,
    metadata,
    seats,
    table_leases,
)

from .conftest import FakeClock, deck_reveal, open_store, put_in_pot, run_in_thread, write_one

LONG = 600.0  # a lease that cannot run out during a test: expiry is forced with expire()


async def expire(store: Store, *table_ids: int) -> None:
    """Make the leases run out now (as a worker that stopped renewing them would see them)."""
    async with store.database.write() as conn:
        await conn.execute(
            update(table_leases)
            .where(table_leases.c.table_id.in_(table_ids))
            .values(expires_at=datetime(2000, 1, 1, tzinfo=UTC))
        )


async def make_tables(store: Store, count: int, prefix: str = "T") -> list[TableRecord]:
    return [
        await store.create_table(TableConfig.derive(f"{prefix}{i}", "7S", 100, 200)) for i in range(count)
    ]


async def seat_players(
    store: Store, table: TableRecord, players: list[Account], fence: Fence | None = None, stack: int = 5_000
) -> dict[int, int]:
    """Seat the players in seats 1, 2... with ``stack`` each; returns seat -> account id."""
    seated = {}
    for number, player in enumerate(players, start=1):
        await store.buy_in(player.id, table.id, number, stack, fence=fence)
        seated[number] = player.id
    return seated


async def books(store: Store) -> tuple[Any, ...]:
    """Everything a refused write must leave alone: the audit's figures, the ledger, the cached
    balances, the seats, the hands and their states."""
    report = await store.audit()
    queries = [
        select(ledger_transactions).order_by(ledger_transactions.c.id),
        select(ledger_entries).order_by(ledger_entries.c.id),
        select(accounts.c.id, accounts.c.bankroll).order_by(accounts.c.id),
        select(seats).order_by(seats.c.table_id, seats.c.seat),
        select(hands.c.id, hands.c.status, hands.c.epoch, hands.c.finished_at).order_by(hands.c.id),
    ]
    async with store.engine.connect() as conn:
        rows = [tuple((await conn.execute(query)).all()) for query in queries]
    figures = (
        report.balanced,
        report.grants,
        report.bankrolls,
        report.seats,
        report.in_hands,
        report.transactions,
        report.entries,
    )
    return (figures, *rows)


async def void_count(store: Store, hand_id: str) -> int:
    async with store.engine.connect() as conn:
        found = await conn.scalar(
            select(func.count())
            .select_from(ledger_transactions)
            .where(ledger_transactions.c.kind == "void", ledger_transactions.c.hand_id == hand_id)
        )
    return int(found or 0)


# ---------------------------------------------------------------------------------------- claims


async def test_claims_respect_the_fair_share(store: Store) -> None:
    await make_tables(store, 5)
    await store.leases.renew("w2", [], lease_seconds=LONG)  # w2 beats first: two live workers
    first = await store.leases.claim("w1", LONG)
    assert [(lease.table_id, lease.owner, lease.epoch) for lease in first] == [
        (1, "w1", 1),
        (2, "w1", 1),
        (3, "w1", 1),
    ]
    assert all(lease.live and lease.expires_at is not None for lease in first)
    assert [lease.table_id for lease in await store.leases.claim("w2", LONG)] == [4, 5]
    assert await store.leases.claim("w1", LONG) == []  # at its share already
    await store.leases.renew("w3", [], lease_seconds=LONG)
    assert await store.leases.workers() == ["w1", "w2", "w3"]
    assert await store.leases.fair_share() == 2  # ceil(5 / 3)
    assert await store.leases.claim("w3", LONG) == []  # nothing free: the others release to it
    await store.leases.release("w1", 1)
    [moved] = await store.leases.claim("w3", LONG)
    assert (moved.table_id, moved.owner, moved.epoch) == (1, "w3", 2)
    owners = await store.leases.owners()
    assert [(lease.table_id, lease.owner, lease.epoch, lease.live) for lease in owners] == [
        (1, "w3", 2, True), (2, "w1", 1, True), (3, "w1", 1, True), (4, "w2", 1, True), (5, "w2", 1, True),
    ]  # fmt: skip


async def test_a_lone_worker_takes_every_table_and_an_explicit_share_caps_it(store: Store) -> None:
    await make_tables(store, 3)
    assert await store.leases.fair_share() == 0  # no live worker
    assert [lease.table_id for lease in await store.leases.claim("solo", LONG, fair_share=1)] == [1]
    assert [lease.table_id for lease in await store.leases.claim("solo", LONG)] == [2, 3]
    later = await store.create_table(TableConfig.derive("late", "7S", 100, 200))
    assert [lease.table_id for lease in await store.leases.claim("solo", LONG)] == [later.id]
    assert [lease.owner for lease in await store.leases.owners()] == ["solo"] * 4


async def test_a_table_never_claimed_is_listed_unowned(store: Store) -> None:
    await make_tables(store, 1)
    [lease] = await store.leases.owners()
    assert (lease.owner, lease.epoch, lease.live, lease.expires_at) == (None, 0, False, None)
    with pytest.raises(LeaseLost):
        lease.fence  # noqa: B018 - the property raises


async def test_two_workers_claiming_at_once_never_both_own_a_table(db_url: str) -> None:
    """Eight workers over two connection pools (as two processes) claim every table at once; then
    every lease runs out and they race again, three times: each time each table is taken once,
    by one worker, its epoch raised once."""
    stores = [await open_store(db_url) for _ in range(2)]
    try:
        tables = [table.id for table in await make_tables(stores[0], 12)]
        await stores[0].leases.claim("w0", LONG, fair_share=0)  # the lease rows exist: a real race
        names = [f"w{i}" for i in range(8)]
        for epoch in (1, 2, 3):
            rounds = await asyncio.gather(
                *(stores[i % 2].leases.claim(name, LONG, fair_share=12) for i, name in enumerate(names))
            )
            taken = {(lease.table_id, lease.owner, lease.epoch) for leases in rounds for lease in leases}
            assert sorted(table for table, _, _ in taken) == tables
            assert {lease_epoch for _, _, lease_epoch in taken} == {epoch}
            owners = await stores[0].leases.owners()
            assert {(lease.table_id, lease.owner, lease.epoch) for lease in owners} == taken
            await expire(stores[0], *tables)
    finally:
        for opened in stores:
            await opened.close()


async def test_an_expired_lease_is_taken_and_its_epoch_raised(store: Store) -> None:
    await make_tables(store, 2)
    await store.leases.claim("w1", LONG)
    await expire(store, 2)
    [taken] = await store.leases.claim("w2", LONG, fair_share=2)
    assert (taken.table_id, taken.owner, taken.epoch) == (2, "w2", 2)
    assert [lease.table_id for lease in await store.leases.renew("w1", [1, 2], lease_seconds=LONG)] == [1]
    await expire(store, 2)
    [again] = await store.leases.claim("w1", LONG, fair_share=2)  # the old owner may take it back
    assert (again.table_id, again.owner, again.epoch) == (2, "w1", 3)


async def test_only_the_databases_clock_counts(store: Store, clock: FakeClock) -> None:
    """The store's clock (a worker's) running a month ahead expires nothing; the database's clock
    passing a short lease does."""
    await make_tables(store, 3)
    await store.leases.claim("w1", LONG, fair_share=1)
    clock.advance(days=30)
    short = await store.leases.claim("w2", 0.2, fair_share=3)
    assert [lease.table_id for lease in short] == [2, 3]  # not 1: its lease runs by the database
    await asyncio.sleep(0.5)
    taken = await store.leases.claim("w3", LONG, fair_share=3)
    assert [(lease.table_id, lease.epoch) for lease in taken] == [(2, 2), (3, 2)]
    assert [(lease.owner, lease.live) for lease in await store.leases.owners()] == [
        ("w1", True), ("w3", True), ("w3", True),
    ]  # fmt: skip


async def test_renew_answers_only_the_leases_still_held(store: Store) -> None:
    await make_tables(store, 3)
    held = await store.leases.claim("w1", 0.5 * LONG, fair_share=3)
    await expire(store, 2)
    await store.leases.claim("w2", LONG, fair_share=1)  # takes 2
    await expire(store, 3)  # nobody took 3, but its epoch is over
    renewed = await store.leases.renew("w1", [1, 2, 3, 99], lease_seconds=LONG)
    assert [(lease.table_id, lease.epoch) for lease in renewed] == [(1, 1)]
    assert renewed[0].expires_at is not None and held[0].expires_at is not None
    assert renewed[0].expires_at > held[0].expires_at
    [back] = await store.leases.claim("w1", LONG, fair_share=2)
    assert (back.table_id, back.epoch) == (3, 2)


async def test_release_between_hands_only(store: Store, players: list[Account]) -> None:
    [table] = await make_tables(store, 1)
    [lease] = await store.leases.claim("w1", LONG)
    seated = await seat_players(store, table, players[:2], lease.fence)
    with pytest.raises(LeaseLost, match="does not hold"):
        await store.leases.release("w2", table.id)
    deck = Deck()
    await write_one(
        store, store.start_hand_op("h1", table.id, deck.commitment, seats=seated, fence=lease.fence)
    )
    with pytest.raises(HandStateError, match="between hands"):
        await store.leases.release("w1", table.id)
    assert (await store.leases.owners())[0].owner == "w1"
    await write_one(
        store,
        store.finish_hand_op(
            "h1", contributions={}, awards={}, phh="", text="", fence=lease.fence, **deck_reveal(deck)
        ),
    )
    await store.leases.release("w1", table.id)
    [after] = await store.leases.owners()
    assert (after.owner, after.live, after.epoch) == (None, False, 1)
    with pytest.raises(LeaseLost):  # released: its fence is void
        await store.add_chips(players[0].id, table.id, 1, 100, fence=lease.fence)
    [moved] = await store.leases.claim("w2", LONG)
    assert moved.epoch == 2


async def test_leave_releases_what_it_can_and_ends_the_heartbeat(
    store: Store, players: list[Account]
) -> None:
    first, second = await make_tables(store, 2)
    [_, two] = await store.leases.claim("w1", LONG)
    seated = await seat_players(store, second, players[:2], two.fence)
    await write_one(
        store, store.start_hand_op("h1", second.id, Deck().commitment, seats=seated, fence=two.fence)
    )
    await store.leases.renew("w2", [], lease_seconds=LONG)
    assert await store.leases.leave("w1") == [first.id]
    assert await store.leases.workers() == ["w2"]
    assert [lease.owner for lease in await store.leases.owners()] == [None, "w1"]
    assert [lease.table_id for lease in await store.leases.claim("w2", LONG)] == [first.id]


@pytest.mark.parametrize(
    "call",
    [
        lambda s: s.leases.claim("", LONG),
        lambda s: s.leases.claim("w 1", LONG),
        lambda s: s.leases.claim("w" * 65, LONG),
        lambda s: s.leases.claim("w1", 0),
        lambda s: s.leases.claim("w1", -1),
        lambda s: s.leases.claim("w1", True),
        lambda s: s.leases.claim("w1", 3601),
        lambda s: s.leases.claim("w1", "5"),
        lambda s: s.leases.claim("w1", LONG, fair_share=-1),
        lambda s: s.leases.claim("w1", LONG, fair_share=1.5),
        lambda s: s.leases.renew("w1", ["1"], lease_seconds=LONG),
        lambda s: s.leases.renew(None, [1], lease_seconds=LONG),
        lambda s: s.leases.release("w1", "1"),
        lambda s: s.leases.leave(""),
    ],
)
async def test_bad_input_is_refused_and_changes_nothing(
    store: Store, call: Callable[[Store], Awaitable[object]]
) -> None:
    await make_tables(store, 2)
    await store.leases.claim("w0", LONG, fair_share=1)
    before = await store.leases.owners()
    with pytest.raises(InvalidInputError):
        await call(store)
    assert await store.leases.owners() == before
    assert await store.leases.workers() == ["w0"]


@pytest.mark.parametrize(
    "fields", [(1, "", 1), (1, "w1", 0), (1, "w1", -3), ("1", "w1", 1), (1, "w1", True), (True, "w1", 1)]
)
def test_a_fence_is_checked_when_made(fields: tuple[Any, Any, Any]) -> None:
    with pytest.raises(InvalidInputError):
        Fence(*fields)


# --------------------------------------------------------------------------------------- fencing


@dataclass
class Scene:
    """A table owned by w1 at epoch 1 (``old``: its fence) with alice and bob seated under it
    (carol stands), and with ``with_hand`` the hand h1 started under it from ``deck``."""

    store: Store
    table: TableRecord
    players: list[Account]
    old: Fence
    seated: dict[int, int]
    deck: Deck = field(default_factory=Deck)


async def scene(store: Store, players: list[Account], *, with_hand: bool) -> Scene:
    [table] = await make_tables(store, 1)
    [lease] = await store.leases.claim("w1", LONG)
    seated = await seat_players(store, table, players[:2], lease.fence)
    made = Scene(store, table, players, lease.fence, seated)
    if with_hand:
        await write_one(
            store, store.start_hand_op("h1", table.id, made.deck.commitment, seats=seated, fence=lease.fence)
        )
    return made


def chip_write(kind: str, s: Scene, fence: Fence) -> Callable[[], Awaitable[object]]:
    """One chip-moving write at the scene's table under ``fence``."""
    store, table, players = s.store, s.table, s.players
    ops = {
        "start": lambda: write_one(
            store, store.start_hand_op("h2", table.id, Deck().commitment, seats=s.seated, fence=fence)
        ),
        "finish": lambda: write_one(
            store,
            store.finish_hand_op(
                "h1",
                contributions={1: 300, 2: 300},
                awards={2: 600},
                phh="",
                text="",
                fence=fence,
                **deck_reveal(s.deck),
            ),
        ),
        "void": lambda: write_one(store, store.void_hand_op("h1", "test", fence=fence)),
        "buy_in": lambda: store.buy_in(players[2].id, table.id, 3, 4_000, fence=fence),
        "add_chips": lambda: store.add_chips(players[0].id, table.id, 1, 500, fence=fence),
        "cash_out": lambda: store.cash_out(players[0].id, table.id, 1, fence=fence),
        "takeover": lambda: store.void_interrupted(table.id, fence),
    }
    return ops[kind]


KINDS = ["start", "finish", "void", "buy_in", "add_chips", "cash_out", "takeover"]
NEEDS_HAND = {"finish", "void", "takeover"}


@pytest.mark.parametrize("lost", ["taken", "expired"])
@pytest.mark.parametrize("kind", KINDS)
async def test_every_fenced_write_of_the_old_owner_is_refused_and_changes_nothing(
    store: Store, players: list[Account], kind: str, lost: str
) -> None:
    s = await scene(store, players, with_hand=kind in NEEDS_HAND)
    await expire(store, s.table.id)
    if lost == "taken":
        [lease] = await store.leases.claim("w2", LONG)
        assert lease.epoch == 2
    before = await books(store)
    with pytest.raises(LeaseLost) as refused:
        await chip_write(kind, s, s.old)()
    assert refused.value.code == "lease_lost" and refused.value.status == 409
    assert await books(store) == before


@pytest.mark.parametrize("kind", KINDS)
async def test_the_owners_fenced_writes_go_through(store: Store, players: list[Account], kind: str) -> None:
    s = await scene(store, players, with_hand=kind in NEEDS_HAND)
    before = await books(store)
    done = await chip_write(kind, s, s.old)()
    if kind == "takeover":  # its own hand is not interrupted: nothing to void
        assert getattr(done, "voided", "?") is None and await books(store) == before
    else:
        assert await books(store) != before


@pytest.mark.parametrize("kind", ["start", "buy_in", "add_chips", "cash_out"])
async def test_a_fence_for_another_table_is_refused(store: Store, players: list[Account], kind: str) -> None:
    s = await scene(store, players, with_hand=False)
    other = await store.create_table(TableConfig.derive("other", "7S", 100, 200))
    [elsewhere] = await store.leases.claim("w1", LONG, fair_share=2)
    assert elsewhere.table_id == other.id
    before = await books(store)
    with pytest.raises(LeaseLost, match="is for table"):
        await chip_write(kind, s, elsewhere.fence)()
    assert await books(store) == before


async def test_a_made_up_fence_is_refused(store: Store, players: list[Account]) -> None:
    s = await scene(store, players, with_hand=True)
    before = await books(store)
    for fence in (Fence(s.table.id, "w1", 2), Fence(s.table.id, "w9", 1)):
        for kind in KINDS:
            with pytest.raises(LeaseLost):
                await chip_write(kind, s, fence)()
    assert await books(store) == before


async def test_hands_record_their_epoch_and_unfenced_writes_are_as_before(
    store: Store, players: list[Account]
) -> None:
    s = await scene(store, players, with_hand=True)
    plain = await store.create_table(TableConfig.derive("plain", "7S", 100, 200))
    seated = await seat_players(store, plain, players[:2])
    await write_one(store, store.start_hand_op("plain", plain.id, Deck().commitment, seats=seated))
    async with store.engine.connect() as conn:
        epochs = dict((await conn.execute(select(hands.c.id, hands.c.epoch))).all())
    assert epochs == {"h1": 1, "plain": None}
    # Without a fence nothing is checked, even at a table whose lease another worker holds now.
    await expire(store, s.table.id)
    await store.leases.claim("w2", LONG, fair_share=2)
    stacks = await write_one(
        store,
        store.finish_hand_op(
            "h1", contributions={1: 300, 2: 300}, awards={1: 600}, phh="", text="", **deck_reveal(s.deck)
        ),
    )
    assert stacks == {1: 5_300, 2: 4_700}
    await store.cash_out(players[0].id, s.table.id, 1)


async def test_a_hand_of_epoch_n_is_not_finished_under_epoch_n_plus_1(
    store: Store, players: list[Account]
) -> None:
    """The owner's lease lapses mid-hand and it claims the table again (epoch 2): the hand it
    started under epoch 1 cannot be finished under either fence, only voided, once."""
    s = await scene(store, players, with_hand=True)
    await put_in_pot(store, "h1", {1: 200, 2: 200})
    await expire(store, s.table.id)
    [again] = await store.leases.claim("w1", LONG)
    assert (again.owner, again.epoch) == ("w1", 2)
    before = await books(store)
    for fence in (again.fence, s.old):
        with pytest.raises(LeaseLost):
            await chip_write("finish", s, fence)()
    assert await books(store) == before
    takeover = await store.void_interrupted(s.table.id, again.fence)
    assert (takeover.voided, takeover.refunds) == ("h1", {1: 200, 2: 200})
    assert {seat: (r.account_id, r.stack) for seat, r in takeover.seats.items()} == {
        1: (players[0].id, 5_000),
        2: (players[1].id, 5_000),
    }
    assert (await store.void_interrupted(s.table.id, again.fence)).voided is None  # idempotent
    with pytest.raises(HandStateError):
        await chip_write("finish", s, again.fence)()
    assert (await store.hand("h1")).status == "void" and await void_count(store, "h1") == 1


async def test_void_interrupted_leaves_the_owners_own_hand_alone(
    store: Store, players: list[Account]
) -> None:
    s = await scene(store, players, with_hand=True)
    takeover = await store.void_interrupted(s.table.id, s.old)
    assert (takeover.voided, takeover.refunds, sorted(takeover.seats)) == (None, {}, [1, 2])
    assert (await store.hand("h1")).status == "in_progress"
    # a hand of the one-process room (no epoch) is interrupted for any owner
    await write_one(store, store.void_hand_op("h1", "test", fence=s.old))
    await write_one(store, store.start_hand_op("h3", s.table.id, Deck().commitment, seats=s.seated))
    assert (await store.void_interrupted(s.table.id, s.old)).voided == "h3"


async def interrupted_hand(first: Store, hand_id: str) -> tuple[TableRecord, Fence]:
    """A table whose owner w1 died in the middle of ``hand_id`` (chips in its pot): its lease ran out."""
    alice = await first.register("alice", "alice-password")
    bob = await first.register("bob", "bob-password")
    [table] = await make_tables(first, 1)
    [lease] = await first.leases.claim("w1", LONG)
    seated = await seat_players(first, table, [alice, bob], lease.fence)
    await write_one(
        first, first.start_hand_op(hand_id, table.id, Deck().commitment, seats=seated, fence=lease.fence)
    )
    await put_in_pot(first, hand_id, {1: 100, 2: 100})
    await expire(first, table.id)
    return table, lease.fence


@pytest.mark.parametrize("who", ["two owners", "one owner twice"])
async def test_exactly_one_void_when_two_survivors_race(db_url: str, who: str) -> None:
    """w1 dies mid-hand. Either w2 claims the table and stalls past its lease and w3 claims it,
    or w2 alone holds it; then two voids of the interrupted hand run at once, each from its own
    process (connection pool): the hand is voided once, and a stale owner is refused."""
    stores = [await open_store(db_url) for _ in range(3)]
    try:
        first = stores[0]
        table, _ = await interrupted_hand(first, "h1")
        [second] = await stores[1].leases.claim("w2", LONG)
        fences = [second.fence, second.fence]
        if who == "two owners":
            await expire(first, table.id)
            [third] = await stores[2].leases.claim("w3", LONG)
            fences = [second.fence, third.fence]
        results = await asyncio.gather(
            *(stores[1 + i].void_interrupted(table.id, fence) for i, fence in enumerate(fences)),
            return_exceptions=True,
        )
        voided = [r.voided for r in results if not isinstance(r, BaseException)]
        assert voided.count("h1") == 1, results
        if who == "two owners":
            assert isinstance(results[0], LeaseLost) and voided == ["h1"], results
        else:
            assert sorted(voided, key=str) == [None, "h1"], results
        refunds = [r.refunds for r in results if not isinstance(r, BaseException) and r.voided]
        assert refunds == [{1: 100, 2: 100}]
        assert await void_count(first, "h1") == 1 and (await first.hand("h1")).status == "void"
        report = await first.audit()
        assert report.balanced and report.in_hands == 0, report.render()
    finally:
        for opened in stores:
            await opened.close()


# ------------------------------------------------------------------------- PostgreSQL: in flight


async def test_a_write_in_flight_keeps_its_table_from_a_claim(
    db_url: str, store: Store, players: list[Account]
) -> None:
    """PostgreSQL: while the owner's fenced write is open (its lease row held FOR KEY SHARE) and
    the lease runs out, a claim passes the table by instead of waiting or taking it, and the
    owner's renewals do not wait for it; once the write commits the claim takes it."""
    if store.is_sqlite:
        pytest.skip("SQLite runs one write transaction at a time: none is ever in flight beside another")
    from studpoker.store.leases import check_fence

    s = await scene(store, players, with_hand=False)
    other = await open_store(db_url)  # another worker's process
    try:
        async with store.database.write() as conn:
            await check_fence(conn, s.old, s.table.id)
            await asyncio.wait_for(other.leases.renew("w1", [s.table.id], lease_seconds=LONG), 30)
            await expire(other, s.table.id)
            assert await asyncio.wait_for(other.leases.claim("w2", LONG), 30) == []
        [taken] = await other.leases.claim("w2", LONG)
        assert (taken.table_id, taken.epoch) == (s.table.id, 2)
    finally:
        await other.close()


async def wait_until_blocked(store: Store, count: int) -> None:
    """Until ``count`` sessions of the database wait for a lock (each poll its own transaction:
    PostgreSQL keeps one snapshot of pg_stat_activity per transaction)."""
    query = text(
        "SELECT count(*) FROM pg_stat_activity"
        " WHERE wait_event_type = 'Lock' AND datname = current_database()"
    )
    for _ in range(1_200):
        async with store.engine.connect() as conn:
            if int(await conn.scalar(query) or 0) >= count:
                return
        await asyncio.sleep(0.025)
    raise AssertionError(f"{count} sessions never waited for a lock")


async def test_two_voids_held_at_the_same_point_void_once(db_url: str) -> None:
    """PostgreSQL: the new owner's two calls are made to meet, both waiting on the interrupted
    hand's row (held by a third session); when it is let go, one voids the hand and the other
    finds nothing left to do (no refusal, no second refund)."""
    stores = [await open_store(db_url) for _ in range(3)]
    try:
        first = stores[0]
        if first.is_sqlite:
            pytest.skip("SQLite runs one write transaction at a time: the calls cannot meet")
        table, _ = await interrupted_hand(first, "h1")
        [owner] = await stores[1].leases.claim("w2", LONG)
        async with first.engine.connect() as holder:
            async with holder.begin():
                await holder.execute(select(hands.c.id).where(hands.c.id == "h1").with_for_update())
                calls = [
                    asyncio.ensure_future(stores[1 + i].void_interrupted(table.id, owner.fence))
                    for i in range(2)
                ]
                await wait_until_blocked(first, 2)
            results = await asyncio.gather(*calls, return_exceptions=True)
        assert sorted((r.voided for r in results if not isinstance(r, BaseException)), key=str) == [
            None,
            "h1",
        ]
        assert await void_count(first, "h1") == 1
        report = await first.audit()
        assert report.balanced and report.in_hands == 0, report.render()
    finally:
        for opened in stores:
            await opened.close()


async def test_migration_0006_downgrades_and_upgrades_again(fresh_db_url: str) -> None:
    from alembic import command
    from sqlalchemy import inspect

    from studpoker.store.migrate import alembic_config

    store = await open_store(fresh_db_url)
    try:
        alice, bob = [await store.register(name, f"{name}-password") for name in ("alice", "bob")]
        [table] = await make_tables(store, 1)
        [lease] = await store.leases.claim("w1", LONG)
        seated = await seat_players(store, table, [alice, bob], lease.fence)
        await write_one(
            store, store.start_hand_op("h1", table.id, Deck().commitment, seats=seated, fence=lease.fence)
        )
        async with store.engine.begin() as conn:

            def to_0005(sync_conn: Any) -> tuple[list[str], list[str]]:
                config = alembic_config()
                config.attributes["connection"] = sync_conn
                command.downgrade(config, "0005")
                found = inspect(sync_conn)
                return found.get_table_names(), [c["name"] for c in found.get_columns("hands")]

            left, columns = await conn.run_sync(to_0005)
        assert not {"table_leases", "workers"} & set(left) and "chat_reports" in left
        assert "epoch" not in columns and "client_seeds" in columns
    finally:
        await store.close()
    store = await open_store(fresh_db_url)  # to head again: the hand stays, its epoch is gone
    try:
        [after] = await store.leases.owners()
        assert (after.owner, after.epoch) == (None, 0)
        assert (
            await store.void_interrupted(table.id, (await store.leases.claim("w2", LONG))[0].fence)
        ).voided == "h1"
    finally:
        await store.close()


# ---------------------------------------------------------------------------- a model of leases

_example = itertools.count()
TABLES = 3
WORKERS = ("a", "b", "c")
step = st.one_of(
    st.tuples(st.just("claim"), st.sampled_from(WORKERS), st.integers(0, TABLES)),
    st.tuples(st.just("expire"), st.integers(0, TABLES - 1)),
    st.tuples(st.just("renew"), st.sampled_from(WORKERS)),
    st.tuples(
        st.sampled_from(["release", "start", "finish", "takeover", "add"]),
        st.sampled_from(WORKERS),
        st.integers(0, TABLES - 1),
    ),
)


@dataclass
class LeaseModel:
    owner: list[str | None] = field(default_factory=lambda: [None] * TABLES)
    epoch: list[int] = field(default_factory=lambda: [0] * TABLES)
    live: list[bool] = field(default_factory=lambda: [False] * TABLES)
    hand: list[tuple[str, int, Deck] | None] = field(default_factory=lambda: [None] * TABLES)
    fences: dict[tuple[str, int], Fence] = field(default_factory=dict)  # (worker, table) -> its last


async def run_model(url: str, steps: list[tuple[Any, ...]]) -> None:
    store = await open_store(url)
    try:
        async with store.database.write() as conn:  # each example starts from empty books
            for table in reversed(metadata.sorted_tables):
                await conn.execute(delete(table))
        people = [await store.register(name, f"{name}-password") for name in ("ann", "ben")]
        tables = await make_tables(store, TABLES, prefix=f"m{next(_example)}-")
        ids = [table.id for table in tables]
        for table in tables:
            await seat_players(store, table, people, stack=2_000)
        model = LeaseModel()
        for number, (kind, *args) in enumerate(steps):
            await model_step(store, model, ids, kind, args, hand_id=f"x{number}")
            got = await store.leases.owners()
            assert [lease.owner for lease in got] == model.owner, (kind, args)
            assert [lease.epoch for lease in got] == model.epoch and [
                lease.live for lease in got
            ] == model.live
            assert sum(1 for lease in got if lease.live) == sum(model.live)
        report = await store.audit()
        assert report.balanced, report.render()
    finally:
        await store.close()


def holds(model: LeaseModel, worker: str, t: int) -> bool:
    fence = model.fences.get((worker, t))
    return fence is not None and model.live[t] and model.owner[t] == worker and model.epoch[t] == fence.epoch


async def model_step(
    store: Store, model: LeaseModel, ids: list[int], kind: str, args: list[Any], *, hand_id: str
) -> None:
    if kind == "claim":
        worker, share = args
        held = sum(1 for t in range(TABLES) if model.live[t] and model.owner[t] == worker)
        free = [t for t in range(TABLES) if not model.live[t]][: max(0, share - held)]
        got = await store.leases.claim(worker, LONG, fair_share=share)
        assert [lease.table_id for lease in got] == [ids[t] for t in free]
        for t, lease in zip(free, got, strict=True):
            model.owner[t], model.epoch[t], model.live[t] = worker, model.epoch[t] + 1, True
            assert lease.epoch == model.epoch[t]
            model.fences[(worker, t)] = lease.fence
        return
    if kind == "expire":
        [t] = args
        await expire(store, ids[t])
        model.live[t] = False
        return
    if kind == "renew":
        [worker] = args
        got = await store.leases.renew(worker, ids, lease_seconds=LONG)
        assert [lease.table_id for lease in got] == [
            ids[t] for t in range(TABLES) if model.live[t] and model.owner[t] == worker
        ]
        return
    worker, t = args
    fence = model.fences.get((worker, t)) or Fence(ids[t], worker, 1)
    ok = holds(model, worker, t)
    hand = model.hand[t]
    try:
        if kind == "release":
            await store.leases.release(worker, ids[t])
            assert ok and hand is None
            model.owner[t], model.live[t] = None, False
        elif kind == "start":
            deck = Deck()
            seated = {seat: r.account_id for seat, r in (await store.seats(ids[t])).items()}
            await write_one(
                store, store.start_hand_op(hand_id, ids[t], deck.commitment, seats=seated, fence=fence)
            )
            assert ok and hand is None
            model.hand[t] = (hand_id, fence.epoch, deck)
        elif kind == "finish":
            if hand is None:
                return
            await write_one(
                store,
                store.finish_hand_op(
                    hand[0],
                    contributions={1: 100, 2: 100},
                    awards={1: 200},
                    phh="",
                    text="",
                    fence=fence,
                    **deck_reveal(hand[2]),
                ),
            )
            assert ok and hand[1] == fence.epoch
            model.hand[t] = None
        elif kind == "takeover":
            done = await store.void_interrupted(ids[t], fence)
            assert ok
            interrupted = hand is not None and hand[1] < fence.epoch
            assert done.voided == (hand[0] if hand is not None and interrupted else None)
            if interrupted:
                model.hand[t] = None
        else:
            await store.add_chips((await store.seats(ids[t]))[1].account_id, ids[t], 1, 1, fence=fence)
            assert ok and hand is None
    except LeaseLost:
        assert not ok or (kind == "finish" and hand is not None and hand[1] != fence.epoch), (kind, args)
    except HandStateError:  # a release or a start while a hand is in progress
        assert ok and hand is not None, (kind, args)
    except StoreError as exc:  # adding chips to a seat in a hand
        assert ok and kind == "add" and hand is not None, (kind, args, exc)


@settings(
    max_examples=12,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(steps=st.lists(step, min_size=1, max_size=25))
def test_random_claims_expiries_and_writes_follow_the_model(
    db_url: str, steps: list[tuple[Any, ...]]
) -> None:
    run_in_thread(lambda: run_model(db_url, steps))
