"""The worker's lease renewals (cluster/renewal.py): apart from the worker's round, covering the
tables being taken over, dropping what was refused or not renewed in time."""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass
from typing import Any, cast

from studpoker.cluster.renewal import Renewals
from studpoker.store.leases import Lease, Leases

LEASE = 0.3


@dataclass
class Held:
    renewed_at: float


class FakeLeases:
    """``renew`` keeps every table but ``refused``; ``fail`` makes it raise (the database gone)."""

    def __init__(self) -> None:
        self.refused: set[int] = set()
        self.fail = False
        self.asked: list[list[int]] = []

    async def renew(self, worker: str, tables: list[int], *, lease_seconds: float) -> list[Lease]:
        self.asked.append(sorted(tables))
        if self.fail:
            raise ConnectionError("no database")
        return [Lease(t, worker, 1, None, True) for t in tables if t not in self.refused]


def renewals(tables: dict[int, Held], dropped: list[int]) -> tuple[Renewals, FakeLeases]:
    fake = FakeLeases()

    def drop(table_id: int) -> None:
        dropped.append(table_id)
        tables.pop(table_id, None)

    return Renewals("w1", cast(Leases, fake), LEASE, cast(Any, tables), drop), fake


async def test_renewals_go_on_while_the_workers_round_is_stuck() -> None:
    tables = {1: Held(time.monotonic()), 2: Held(time.monotonic())}
    dropped: list[int] = []
    run, fake = renewals(tables, dropped)
    run.start()
    try:
        await asyncio.sleep(LEASE * 3)  # the round could be stuck meanwhile: nothing waits on it
    finally:
        await run.stop()
    assert len(fake.asked) >= 6 and all(asked == [1, 2] for asked in fake.asked), fake.asked
    assert dropped == [] and all(time.monotonic() - h.renewed_at < LEASE for h in tables.values())


async def test_a_refused_renewal_drops_that_table_only() -> None:
    tables = {1: Held(0.0), 2: Held(0.0)}
    dropped: list[int] = []
    run, fake = renewals(tables, dropped)
    fake.refused = {2}
    await run.renew()
    assert dropped == [2] and list(tables) == [1] and tables[1].renewed_at > 0


async def test_a_table_being_taken_over_is_renewed_and_one_lost_meanwhile_is_not_kept() -> None:
    tables: dict[int, Held] = {}
    dropped: list[int] = []
    run, fake = renewals(tables, dropped)
    run.claimed([5, 6], at=1.0)
    fake.refused = {6}
    await run.renew()
    assert fake.asked == [[5, 6]]
    assert run.taking[5] > 1.0  # renewed while taken over: the held table starts from then
    assert run.taking[6] == float("-inf")  # lost: once held, it is past its lease at once
    assert run.taken(5) > 1.0 and 5 not in run.taking


async def test_tables_not_renewed_in_time_are_dropped_when_the_database_fails() -> None:
    tables = {1: Held(time.monotonic())}
    dropped: list[int] = []
    run, fake = renewals(tables, dropped)
    fake.fail = True
    run.start()
    try:
        deadline = time.monotonic() + 5
        while not dropped and time.monotonic() < deadline:
            await asyncio.sleep(0.02)
    finally:
        await run.stop()
    assert dropped == [1] and tables == {}
