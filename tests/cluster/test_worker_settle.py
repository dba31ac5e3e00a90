"""A worker's first claim (cluster/worker.py, docs/cluster.md "Roles"): started by a launcher
that says how many workers it started (``expected_workers``), it claims nothing until that many
beat, so that a worker whose start the machine delayed still gets its half at the first claims."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
from pathlib import Path

from studpoker.cluster.bus import InProcessBus
from studpoker.cluster.worker import Worker
from studpoker.server.settings import Settings
from studpoker.store import Store
from studpoker.store.models import TableConfig
from tests.cluster.conftest import until


async def _owned_by(store: Store, worker: str) -> int:
    return sum(1 for lease in await store.leases.owners() if lease.owner == worker)


async def test_a_worker_waits_for_the_workers_it_was_started_with(tmp_path: Path) -> None:
    store = await Store.open(f"sqlite+aiosqlite:///{tmp_path / 'room.db'}")
    bus = InProcessBus()
    settings = dataclasses.replace(
        Settings(), lease_seconds=3.0, worker_settle_seconds=0.1, expected_workers=2,
        worker_settle_max_seconds=60.0,
    )  # fmt: skip
    for i in range(6):
        await store.create_table(TableConfig.derive(f"T{i}", "7S", 100, 200))
    first = Worker("worker-1", store, bus, settings)
    running = asyncio.get_running_loop().create_task(first.run())
    try:
        await asyncio.sleep(1.5)  # many settle periods: alone, it has claimed nothing
        assert await _owned_by(store, "worker-1") == 0
        # The second worker's heartbeat (its start delayed): the first now claims its half only.
        await store.leases.renew("worker-2", [], lease_seconds=60.0)
        await until(lambda: len(first.tables) == 3, "the first claims")
        await asyncio.sleep(0.5)  # another claim round: still its half, not more
        assert len(first.tables) == 3 and await _owned_by(store, "worker-1") == 3
    finally:
        first.request_stop()
        with contextlib.suppress(asyncio.TimeoutError):
            await asyncio.wait_for(running, 10)
        await bus.close()
        await store.close()


async def test_a_worker_started_alone_claims_after_the_settle(tmp_path: Path) -> None:
    store = await Store.open(f"sqlite+aiosqlite:///{tmp_path / 'room.db'}")
    bus = InProcessBus()
    settings = dataclasses.replace(Settings(), lease_seconds=3.0, worker_settle_seconds=0.1)
    for i in range(4):
        await store.create_table(TableConfig.derive(f"T{i}", "7S", 100, 200))
    worker = Worker("worker-1", store, bus, settings)
    running = asyncio.get_running_loop().create_task(worker.run())
    try:
        await until(lambda: len(worker.tables) == 4, "every table claimed", timeout=10)
    finally:
        worker.request_stop()
        with contextlib.suppress(asyncio.TimeoutError):
            await asyncio.wait_for(running, 10)
        await bus.close()
        await store.close()
