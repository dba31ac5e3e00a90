"""The cash tables' lease renewals of a table worker (worker.py), on a task of their own.

A worker renews what it holds every third of the lease. The renewals used to wait on the rest
of the worker's round (claims, take-overs one after another, moves, the drops of tables lost):
at 100 tables x 8 on 2 shared cores one lost lease's drop delayed the next renewal past the
lease, which lost the next table, and so on for a minute. Here they run apart from that round,
and cover the tables claimed whose take-over is still under way.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable, Mapping
from typing import Protocol

from studpoker.store.leases import Leases

log = logging.getLogger(__name__)


class Renewed(Protocol):
    """A held table as its renewals see it: when its lease was last renewed (monotonic, from
    the asking)."""

    renewed_at: float


class Renewals:
    """Renew ``tables`` (and those being taken) for ``worker`` every third of the lease; a table
    whose renewal was refused goes to ``drop`` (which must stop holding it at once)."""

    def __init__(
        self,
        worker: str,
        leases: Leases,
        lease_seconds: float,
        tables: Mapping[int, Renewed],
        drop: Callable[[int], None],
    ) -> None:
        self.worker = worker
        self.leases = leases
        self.lease_seconds = lease_seconds
        self.tables = tables
        self.drop = drop
        self.taking: dict[int, float] = {}  # table id -> renewed at, until its take-over ends
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        self._task = asyncio.get_running_loop().create_task(self._every(), name=f"{self.worker}-renewals")

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None

    def claimed(self, table_ids: list[int], at: float) -> None:
        """Claimed at ``at`` and being taken over: renewed from now on."""
        self.taking.update((table_id, at) for table_id in table_ids)

    def taken(self, table_id: int) -> float:
        """Its take-over ended (held now, or given up): when its lease was last renewed."""
        return self.taking.pop(table_id, time.monotonic())

    def expired(self) -> list[int]:
        """The held tables not renewed within the lease: another's to claim now (checked after
        each renewal, so a worker whose renewals fail stops acting in time)."""
        deadline = time.monotonic() - self.lease_seconds
        return [table_id for table_id, owned in self.tables.items() if owned.renewed_at < deadline]

    async def _every(self) -> None:
        period = self.lease_seconds / 3
        while True:
            started = time.monotonic()
            try:
                await self.renew()
            except Exception:
                log.exception("worker %s: the renewal failed", self.worker)
            for table_id in self.expired():
                log.warning("worker %s: no renewal of table %s in time: stopping it", self.worker, table_id)
                self.drop(table_id)
            await asyncio.sleep(max(0.05, period - (time.monotonic() - started)))

    async def renew(self) -> None:
        """One renewal of what is held and what is being taken; what was lost is dropped."""
        held = [*self.tables, *self.taking]
        if not held:
            return
        # The lease runs from the database's clock when the UPDATE ran, somewhere between asking
        # and the answer: count it from the asking (a slow answer must not make the worker
        # think it holds a table longer than it does).
        asked = time.monotonic()
        renewed = await self.leases.renew(self.worker, held, lease_seconds=self.lease_seconds)
        kept = {lease.table_id for lease in renewed}
        for table_id in held:
            owned = self.tables.get(table_id)
            if table_id in kept:
                if owned is not None:
                    owned.renewed_at = asked
                elif table_id in self.taking:
                    self.taking[table_id] = asked
            elif owned is not None:
                log.warning("worker %s: lost the lease of table %s", self.worker, table_id)
                self.drop(table_id)
            elif table_id in self.taking:  # lost before its take-over ended: dropped once held
                self.taking[table_id] = float("-inf")
