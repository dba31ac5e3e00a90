"""Each street's equity under the room's limits: per position, per request, each position solved once."""

from __future__ import annotations

import time
from dataclasses import dataclass

from studpoker.equity import TABLE_LIMIT, EquityError, equity, position
from studpoker.games import get_game
from studpoker.server.settings import Settings

from .cache import Lru


@dataclass(frozen=True, slots=True)
class EquityLimits:
    max_deals: int
    max_seconds: float
    precision: float
    budget_seconds: float

    @classmethod
    def of(cls, settings: Settings) -> EquityLimits:
        return cls(
            max_deals=settings.replay_equity_max_deals,
            max_seconds=settings.replay_equity_max_seconds,
            precision=settings.replay_equity_precision,
            budget_seconds=settings.replay_equity_budget_seconds,
        )


class EquityBudget:
    """One request's equity time: positions asked for after it is spent get no equity."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.deadline = time.perf_counter() + seconds
        self.skipped = 0

    def left(self) -> float:
        return self.deadline - time.perf_counter()


PositionKey = tuple[str, tuple[tuple[str, ...], ...], tuple[str, ...], tuple[str, ...]]
Solved = tuple[bool, str, int, tuple[tuple[float, float | None, float | None, float], ...]]


class EquitySolver:
    """Positions to equities under the limits, each position solved once (an LRU of them)."""

    def __init__(self, limits: EquityLimits, cache_size: int) -> None:
        self.limits = limits
        self._cache: Lru[PositionKey, Solved] = Lru(cache_size)

    def solve(self, key: PositionKey, budget: EquityBudget) -> Solved | str:
        """The position's equity, or the reason there is none."""
        cached = self._cache.get(key)
        if cached is not None:
            return cached
        left = budget.left()
        if left <= 0:
            budget.skipped += 1
            return f"not computed: this request's equity time ({budget.seconds:g} s) is spent"
        game, hands, dead, board = key
        limits = self.limits
        try:
            pos = position(game, [list(h) for h in hands], dead=list(dead), board=list(board))
            result = equity(
                pos,
                precision=limits.precision,
                max_deals=limits.max_deals,
                min_deals=min(10_000, limits.max_deals),
                time_limit=min(limits.max_seconds, left),
                seed=0,  # the same hand replays to the same figures
                # Multi-way stud is sampled or enumerated: scoring each deal's hands directly is
                # faster than tabling every completion first, which only heads-up's exact count needs.
                table_limit=TABLE_LIMIT if len(hands) == 2 else 0,
            )
        except EquityError as exc:
            if not get_game(game).board and len(hands) == 8:
                return (
                    "not computed: with eight players to 7th street the deck runs short and they "
                    "share a community card, which the equity calculator does not model"
                )
            return f"not computed: {exc}"
        solved: Solved = (
            result.exact,
            result.method,
            result.deals,
            tuple((p.equity, p.high, p.low, p.margin) for p in result.players),
        )
        self._cache.put(key, solved)
        return solved
