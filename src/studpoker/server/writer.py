"""Group commit of the hands' store writes.

Every table writes the start of each hand and its end (or its void). One writer task takes these
writes from all tables and commits whatever has queued up, together, in one transaction
(:meth:`Store.write_batch`, one savepoint per write): under load, N per-hand transactions (and
on SQLite N passes through the process-wide write lock) become one. Each table awaits its own
write's result, so a hand is only dealt, or its end announced, once it is committed.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import Any

from studpoker.store import Store
from studpoker.store.core import WriteOp

log = logging.getLogger(__name__)


class GroupCommitter:
    """Batches :class:`WriteOp` writes from many tables into one transaction each round.

    ``linger`` is how long the writer waits after the first write of a round for others to
    join it (a few milliseconds); ``max_batch`` bounds one transaction.
    """

    def __init__(self, store: Store, *, linger: float = 0.002, max_batch: int = 64) -> None:
        self.store = store
        self.linger = linger
        self.max_batch = max_batch
        self._pending: list[tuple[WriteOp[Any], asyncio.Future[Any]]] = []
        self._wake: asyncio.Event | None = None
        self._task: asyncio.Task[None] | None = None
        self.batches = 0
        self.writes = 0

    async def write(self, op: WriteOp[Any]) -> Any:
        """Commit ``op`` (with whatever else is queued); its result, or its exception raised."""
        loop = asyncio.get_running_loop()
        if self._wake is None:
            self._wake = asyncio.Event()
        if self._task is None or self._task.done():
            self._task = loop.create_task(self._run(), name="store-group-commit")
        future: asyncio.Future[Any] = loop.create_future()
        self._pending.append((op, future))
        self._wake.set()
        result = await future
        if isinstance(result, BaseException):
            raise result
        return result

    async def _run(self) -> None:
        assert self._wake is not None
        while True:
            await self._wake.wait()
            self._wake.clear()
            if self.linger > 0:
                await asyncio.sleep(self.linger)
            while self._pending:
                batch = self._pending[: self.max_batch]
                del self._pending[: self.max_batch]
                try:
                    results = await self.store.write_batch([op for op, _ in batch])
                except Exception as exc:  # pragma: no cover - write_batch returns its failures
                    results = [exc] * len(batch)
                self.batches += 1
                self.writes += len(batch)
                for (_, future), result in zip(batch, results, strict=True):
                    if not future.done():
                        future.set_result(result)

    async def close(self) -> None:
        """Stop the writer (after the tables stopped: nothing is waiting any more)."""
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._task
            self._task = None
        for _, future in self._pending:
            if not future.done():
                future.set_result(RuntimeError("the store writer stopped"))
        self._pending.clear()
