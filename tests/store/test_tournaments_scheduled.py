"""The store's scheduled tournaments (studpoker.store.tournaments, tournament_money): creation and
its refusals, the cancellation that refunds every entry, late entries and re-entries through the
ledger with the places they move and their limits, the schedule's keys that create each
tournament once, and migration 0009 down and up again. Every test ends with the audit balanced
(the store fixture checks it)."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest

from studpoker.server.tournaments import create_tournament
from studpoker.server.tournaments.schedule import apply_schedule, plan_schedule
from studpoker.store import InsufficientFundsError, InvalidInputError, NameTakenError, Store
from studpoker.store.tournaments import TournamentRecord, TournamentStateError

from .conftest import FakeClock, open_store


async def _scheduled(store: Store, **kw: object) -> TournamentRecord:
    values: dict[str, object] = {
        "buy_in": 1_000, "fee": 100, "seats": 20, "starts_at": store.now() + timedelta(hours=1),
        "min_players": 2, "late_levels": 3, "reentries": 1,
    }  # fmt: skip
    values.update(kw)
    name = str(values.pop("name", "MTT"))
    return await create_tournament(store, name, "7S", "turbo", **values)  # type: ignore[arg-type]


async def _bankrolls(store: Store, *ids: int) -> list[int]:
    return [(await store.account(i)).bankroll for i in ids]


async def _started(store: Store, names: list[str], **kw: object) -> tuple[TournamentRecord, list[int]]:
    ids = [(await store.register(name, "password123")).id for name in names]
    record = await _scheduled(store, **kw)
    for i in ids:
        await store.tournaments.register(record.id, i)
    seating = {i: (1, n + 1) for n, i in enumerate(ids)}
    record = await store.tournaments.start(record.id, seating, {"played": 0.0, "since": 0.0})
    return record, ids


async def test_r_tournament_scheduled_create_checks_its_schedule(store: Store) -> None:
    record = await _scheduled(store, min_players=5, seats=40, late_levels=4, reentries=2)
    assert (record.scheduled, record.min_players, record.seats, record.late_levels, record.reentries) == (
        True, 5, 40, 4, 2,
    )  # fmt: skip
    assert record.starts_at == store.now() + timedelta(hours=1)
    refused: list[dict[str, Any]] = [
        {"starts_at": store.now() - timedelta(seconds=1)},  # passed
        {"min_players": 41, "seats": 40},  # the smallest field above the largest
        {"min_players": 1},
        {"reentries": 1, "late_levels": 0},  # re-entry is during late registration
        {"late_levels": 24},  # the turbo's last level never ends
        {"reentries": -1},
    ]
    for bad in refused:
        with pytest.raises(InvalidInputError):
            values = {
                "buy_in": 100,
                "fee": 0,
                "seats": 40,
                "starts_at": store.now() + timedelta(hours=1),
                **bad,
            }
            await create_tournament(store, "bad", "7S", "turbo", **values)
    with pytest.raises(InvalidInputError):  # a sit-and-go has no late registration
        await create_tournament(store, "sng", "7S", "turbo", buy_in=100, fee=0, seats=6, late_levels=2)
    assert [t.name for t in await store.tournaments.list()] == ["MTT"]


async def test_r_tournament_scheduled_cancel_refunds_every_entry(store: Store) -> None:
    ids = [(await store.register(name, "password123")).id for name in ("ann", "ben")]
    before = await _bankrolls(store, *ids)
    record = await _scheduled(store, min_players=3)
    for i in ids:
        await store.tournaments.register(record.id, i)
    assert await _bankrolls(store, *ids) == [b - 1_100 for b in before]
    cancelled = await store.tournaments.cancel(record.id)
    assert cancelled.status == "cancelled" and cancelled.finished_at is not None
    assert await _bankrolls(store, *ids) == before  # buy-in and fee back
    report = await store.audit()
    assert report.balanced, report.render()
    with pytest.raises(TournamentStateError):  # once only, and nothing more after it
        await store.tournaments.cancel(record.id)
    with pytest.raises(TournamentStateError):
        await store.tournaments.register(record.id, ids[0])
    assert await _bankrolls(store, *ids) == before
    assert [t.id for t in await store.tournaments.list("cancelled")] == [record.id]


async def test_r_tournament_late_registration_grows_the_pool_and_moves_the_places(store: Store) -> None:
    record, ids = await _started(store, ["ann", "ben", "cyd"])
    late = await store.register("dee", "password123")
    # ben busted in the first hand: third of three, for now.
    await store.tournaments.start_hand(record.id, "h1", 1, 1)
    await store.tournaments.finish_hand(
        record.id, "h1", {ids[0]: 3_000, ids[1]: 0}, {"played": 1.0, "since": 1.0}
    )
    ben = record.entry(ids[1])
    assert ben is not None
    await store.tournaments.place(record.id, {ben.entry_no: (3, 1)})
    entered = await store.tournaments.enter_late(record.id, late.id, 1, 4)
    assert len(entered.entries) == 4 and entered.prize_pool == 4_000
    mine = entered.entry(late.id)
    assert mine is not None and (mine.table_no, mine.seat, mine.stack, mine.place) == (1, 4, 1_500, None)
    assert entered.by_number(ben.entry_no).place == 4  # type: ignore[union-attr]  # outlasted by the late entry
    assert await _bankrolls(store, late.id) == [late.bankroll - 1_100]
    report = await store.audit()  # 4 entries' chips in play, 4 buy-ins in the pool
    assert report.balanced, report.render()
    with pytest.raises(TournamentStateError):  # twice: he is in already
        await store.tournaments.enter_late(record.id, late.id, 1, 5)
    poor = await store.register("poor", "password123")
    other = await _scheduled(store, name="other", seats=2, buy_in=9_900, fee=0)
    spent = await store.tournaments.register(other.id, poor.id)
    assert spent.entries
    with pytest.raises(InsufficientFundsError):
        await store.tournaments.enter_late(record.id, poor.id, 1, 5)
    assert (await store.tournaments.get(record.id)) == entered


async def test_r_tournament_reentry_limit_and_a_place_for_each_entry(store: Store) -> None:
    record, ids = await _started(store, ["ann", "ben"], reentries=1, seats=5)
    ann, ben = ids
    with pytest.raises(TournamentStateError):  # not out: no re-entry
        await store.tournaments.enter_late(record.id, ben, 1, 3)
    first = record.entry(ben)
    assert first is not None
    await store.tournaments.start_hand(record.id, "h1", 1, 1)
    await store.tournaments.finish_hand(record.id, "h1", {ann: 3_000, ben: 0}, {"played": 1.0, "since": 1.0})
    await store.tournaments.place(record.id, {first.entry_no: (2, 1)})
    again = await store.tournaments.enter_late(record.id, ben, 1, 3)
    second = again.entry(ben)
    assert second is not None and second.entry_no != first.entry_no and second.stack == 1_500
    assert [e.entry_no for e in again.entries_of(ben)] == [first.entry_no, second.entry_no]
    assert again.prize_pool == 3_000 and again.by_number(first.entry_no).place == 3  # type: ignore[union-attr]
    # His second entry's hand goes on his latest entry; out again, the one re-entry is spent.
    await store.tournaments.start_hand(record.id, "h2", 1, 1)
    await store.tournaments.finish_hand(record.id, "h2", {ann: 4_500, ben: 0}, {"played": 2.0, "since": 2.0})
    await store.tournaments.place(record.id, {second.entry_no: (2, 1)})
    before = await store.tournaments.get(record.id)
    with pytest.raises(TournamentStateError, match="1 re-entries at most"):
        await store.tournaments.enter_late(record.id, ben, 1, 3)
    assert await store.tournaments.get(record.id) == before
    winner = again.entry(ann)
    assert winner is not None
    await store.tournaments.place(record.id, {winner.entry_no: (1, 1)})
    done = await store.tournaments.finish(record.id, {winner.entry_no: 3_000})
    assert [(e.name, e.place, e.prize) for e in done.entries] == [
        ("ann", 1, 3_000),
        ("ben", 3, 0),
        ("ben", 2, 0),
    ]


async def test_a_full_tournament_takes_no_late_entry(store: Store) -> None:
    record, _ = await _started(store, ["ann", "ben"], seats=2)
    late = await store.register("dee", "password123")
    with pytest.raises(TournamentStateError, match="full"):
        await store.tournaments.enter_late(record.id, late.id, 1, 3)
    no_late, _ = await _started(store, ["cyd", "eve"], name="no late", late_levels=0, reentries=0)
    with pytest.raises(TournamentStateError, match="no late registration"):
        await store.tournaments.enter_late(no_late.id, late.id, 1, 3)


async def test_r_tournament_scheduled_file_creates_each_tournament_once(
    store: Store, clock: FakeClock
) -> None:
    data = {
        "days": 2,
        "tournament": [
            {"name": "Daily", "daily": "20:00", "buy_in": 100},
            {"name": "Once", "start": (clock.now + timedelta(days=3)).isoformat(), "buy_in": 100},
        ],
    }
    first = await apply_schedule(store, plan_schedule(data, store.now()))
    assert [line["status"] for line in first] == ["created", "created", "created"]
    again = await apply_schedule(store, plan_schedule(data, store.now()))
    assert [line["status"] for line in again] == ["exists", "exists", "exists"]
    assert [line["id"] for line in again] == [line["id"] for line in first]
    clock.advance(days=1)  # the next day's run: one more daily, none twice
    later = await apply_schedule(store, plan_schedule(data, store.now()))
    assert [line["status"] for line in later] == ["exists", "created", "exists"]
    names = [t.name for t in await store.tournaments.list()]
    assert len(names) == len(set(names)) == 4
    # The key itself is unique in the store, whatever the name.
    made = await store.tournaments.find_scheduled(plan_schedule(data, store.now())[-1].schedule_key)
    assert made is not None and made.id == first[-1]["id"]
    with pytest.raises(NameTakenError):
        await create_tournament(
            store, "Other name", "7S", "regular", buy_in=100, fee=0, seats=10,
            starts_at=clock.now + timedelta(days=5), schedule_key=made.schedule_key,
        )  # fmt: skip


async def test_migration_0009_downgrades_and_upgrades_again(fresh_db_url: str) -> None:
    from alembic import command
    from sqlalchemy import inspect

    from studpoker.store.migrate import alembic_config

    store = await open_store(fresh_db_url)
    try:
        record, ids = await _started(store, ["ann", "ben"])
        async with store.engine.begin() as conn:

            def to_0008(sync_conn: object) -> list[str]:
                config = alembic_config()
                config.attributes["connection"] = sync_conn
                command.downgrade(config, "0008")
                return [c["name"] for c in inspect(sync_conn).get_columns("tournament_entries")]

            columns = await conn.run_sync(to_0008)
        assert "entry_no" not in columns
    finally:
        await store.close()
    store = await open_store(fresh_db_url)  # to head again: the entries numbered in their order
    try:
        again = await store.tournaments.get(record.id)
        assert [(e.account_id, e.entry_no, e.stack) for e in again.entries] == [
            (ids[0], 1, 1_500),
            (ids[1], 2, 1_500),
        ]
        assert again.late_levels == 0 and again.starts_at is None  # the schedule columns were dropped
        report = await store.audit()
        assert report.balanced, report.render()
    finally:
        await store.close()
