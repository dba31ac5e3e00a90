"""The group commit writer: concurrent hand writes of many tables share one transaction."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from studpoker.cards import Deck
from studpoker.server.writer import GroupCommitter
from studpoker.store import NotFoundError, TableConfig
from tests.server.conftest import fast_store, make_settings


async def test_concurrent_writes_are_committed_together(tmp_path: Path) -> None:
    store = await fast_store(make_settings(tmp_path))
    try:
        writer = GroupCommitter(store, linger=0.005)
        tables = [await store.create_table(TableConfig.derive(f"T{i}", "7S", 100, 200)) for i in range(6)]
        decks = [Deck() for _ in tables]
        seats = []
        for i, table in enumerate(tables):
            a, b = (
                await store.register(f"ann{i}", "password123"),
                await store.register(f"bob{i}", "password123"),
            )
            await store.buy_in(a.id, table.id, 1, 4000)
            await store.buy_in(b.id, table.id, 2, 4000)
            seats.append({1: a.id, 2: b.id})
        started = await asyncio.gather(
            *(
                writer.write(store.start_hand_op(f"h{i}", t.id, d.commitment, s))
                for i, (t, d, s) in enumerate(zip(tables, decks, seats, strict=True))
            )
        )
        assert started == [{1: 4000, 2: 4000}] * 6
        assert writer.batches == 1 and writer.writes == 6
        # A refused write raises for its own caller only; the others in its batch commit.
        results = await asyncio.gather(
            writer.write(store.void_hand_op("nope", "test")),
            *(writer.write(store.void_hand_op(f"h{i}", "test")) for i in range(6)),
            return_exceptions=True,
        )
        assert isinstance(results[0], NotFoundError)
        assert results[1:] == [{}] * 6
        assert writer.batches == 2
        assert [(await store.hand(f"h{i}")).status for i in range(6)] == ["void"] * 6
        await writer.close()
        report = await store.audit()
        assert report.balanced, report.render()
    finally:
        await store.close()


async def test_a_failing_database_fails_each_write(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from tests.faults.test_database_errors import MESSAGES, failing_writes

    store = await fast_store(make_settings(tmp_path))
    try:
        writer = GroupCommitter(store)
        with failing_writes(store, MESSAGES[0]):
            results = await asyncio.gather(
                *(writer.write(store.void_hand_op(f"x{i}", "test")) for i in range(3)), return_exceptions=True
            )
        assert all("disk is full" in str(r) for r in results)
        await writer.close()
    finally:
        await store.close()
