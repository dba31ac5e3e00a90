"""The app's replayer: its limits, its slots off the event loop and its cache of stored replays."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TypeVar

from studpoker.server.settings import Settings
from studpoker.store.models import HandRecord, TableRecord

from .cache import Lru
from .equity import EquityBudget, EquityLimits, EquitySolver
from .files import replay_file
from .models import FileReplay, PublicHand, Replay, ReplayBusyError
from .stored import public_hand, stored_replay

T = TypeVar("T")


class ReplayService:
    """The app's replayer: its limits, the slots replays run in (off the event loop) and the
    replays of stored hands already built (a finished hand never changes)."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.solver = EquitySolver(EquityLimits.of(settings), settings.replay_cache_positions)
        self.slots = asyncio.Semaphore(max(1, settings.max_concurrent_replays))
        self._stored: Lru[tuple[str, int | None], Replay | PublicHand] = Lru(settings.replay_cache_hands)

    def budget(self) -> EquityBudget:
        return EquityBudget(self.settings.replay_equity_budget_seconds)

    async def run(self, work: Callable[[], T]) -> T:
        """``work`` in a worker thread, in one of the room's replay slots (503 when all are taken)."""
        if self.slots.locked():
            raise ReplayBusyError("every replay slot is taken: try again shortly")
        async with self.slots:
            return await asyncio.to_thread(work)

    async def stored(self, record: HandRecord, table: TableRecord, viewer: int) -> Replay | None:
        key = (record.id, viewer)
        cached = self._stored.get(key)
        if isinstance(cached, Replay):
            return cached
        built = await self.run(lambda: stored_replay(record, table, viewer, self.solver, self.budget()))
        if built is not None and built.equity_complete:
            self._stored.put(key, built)
        return built

    async def public(self, record: HandRecord, table: TableRecord) -> PublicHand | None:
        key = (record.id, None)
        cached = self._stored.get(key)
        if isinstance(cached, PublicHand):
            return cached
        built = await self.run(lambda: public_hand(record, table, self.solver, self.budget()))
        if built is not None and built.replay.equity_complete:
            self._stored.put(key, built)
        return built

    async def dropped(self, text: str, only: int | None) -> FileReplay:
        max_hands = self.settings.replay_max_hands
        return await self.run(
            lambda: replay_file(text, self.solver, self.budget(), max_hands=max_hands, only=only)
        )
