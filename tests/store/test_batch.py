"""Group commit: several hand writes of several tables in one transaction (Store.write_batch)."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from typing import Any

import pytest

from studpoker.cards import Deck
from studpoker.store import Account, NotFoundError, Store, StoreError, TableConfig, TableRecord

from .conftest import deck_reveal, write_one
from .test_hands import ledger_counts, seated


async def test_a_batch_writes_each_op_and_isolates_a_refused_one(
    store: Store, table: TableRecord, players: list[Account]
) -> None:
    other = await store.create_table(TableConfig.derive("Stud 1/2 two", "7S", 100, 200))
    seats = await seated(store, table, players[:2])
    for i, player in enumerate(players[2:3], start=1):
        await store.buy_in(player.id, other.id, i, 5_000)
    await store.buy_in(players[0].id, other.id, 2, 5_000)
    first, second = Deck(), Deck()
    await write_one(store, store.start_hand_op("b1", table.id, first.commitment, seats=seats))
    results = await store.write_batch(
        [
            store.finish_hand_op(
                "b1", contributions={1: 300, 2: 300}, awards={1: 600}, phh="", text="", **deck_reveal(first)
            ),
            store.start_hand_op("b2", other.id, second.commitment, {1: players[2].id, 2: players[0].id}),
            # Refused (hand b1 exists; a seat not held): rolled back alone, the others stay.
            store.start_hand_op("b1", table.id, second.commitment, seats),
            store.start_hand_op("b3", table.id, second.commitment, {1: players[0].id, 3: players[1].id}),
            store.void_hand_op("no-such-hand", "test"),
        ]
    )
    assert results[0] == {1: 5_300, 2: 4_700}
    assert results[1] == {1: 5_000, 2: 5_000}
    assert all(isinstance(r, StoreError) for r in results[2:]), results
    assert (await store.hand("b1")).status == "finished"
    assert (await store.hand("b2")).status == "in_progress"
    with pytest.raises(NotFoundError):
        await store.hand("b3")
    results = await store.write_batch([store.void_hand_op("b2", "test")])
    assert results == [{}]
    assert (await store.hand("b2")).status == "void"
    report = await store.audit()
    assert report.balanced, report.render()


async def test_a_failing_transaction_fails_every_op(
    store: Store, table: TableRecord, players: list[Account], monkeypatch: pytest.MonkeyPatch
) -> None:
    seats = await seated(store, table, players[:2])
    deck = Deck()
    before = await ledger_counts(store)

    @contextlib.asynccontextmanager
    async def broken() -> AsyncIterator[Any]:
        raise OSError("database or disk is full")
        yield  # pragma: no cover

    ops = [store.start_hand_op("f1", table.id, deck.commitment, seats), store.void_hand_op("x", "y")]
    monkeypatch.setattr(store.database, "write", broken)
    results = await store.write_batch(ops)
    monkeypatch.undo()
    assert len(results) == 2 and all(isinstance(r, OSError) for r in results)
    assert await ledger_counts(store) == before
    with pytest.raises(NotFoundError):
        await store.hand("f1")
