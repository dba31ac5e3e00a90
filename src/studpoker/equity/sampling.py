"""Monte Carlo: random deals in batches until every player's 95 % interval is narrow enough (or
the deal or time budget runs out), and the limits that decide between counting and sampling."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from .arrays import F64, I64
from .position import Position
from .result import Tally, deal_stats

EXACT_LIMIT = 3_000_000  # enumerate when there are at most this many runouts
BATCH = 200_000  # Monte Carlo deals per round (and runouts per enumeration chunk)
# O8 work (runouts or deals) from which the compiled kernels are used when numba is installed:
# loading numba and the cached kernels costs about 0.3 s, the numpy path's time for 250,000 deals.
KERNEL_MIN_DEALS = 50_000

Draw = Callable[[int], tuple[I64, I64]]  # n -> (main, low) values (P, n) of n random deals
DrawStats = Callable[[int], tuple[F64, F64]]  # n -> the figures' (sums, squares) of n random deals


@dataclass(frozen=True)
class Sampling:
    """When a Monte Carlo run stops: ``precision`` reached after ``min_deals``, ``max_deals``, or
    ``time_limit`` seconds after ``started`` (a ``time.perf_counter`` reading)."""

    seed: int | None
    precision: float
    max_deals: int
    min_deals: int
    time_limit: float | None
    started: float


def sample(pos: Position, draw: Draw, opts: Sampling) -> Tally:
    """Deal batches from ``draw`` until ``opts`` says stop."""
    split = pos.game_record.hi_lo
    return sample_stats(pos, lambda n: deal_stats(*draw(n), split), opts)


def sample_stats(pos: Position, draw: DrawStats, opts: Sampling) -> Tally:
    """The same with ``draw`` summing each batch's figures itself (a compiled kernel)."""
    tally = Tally(pos.players)
    while tally.n < opts.max_deals:
        n = min(BATCH, opts.max_deals - tally.n)
        s, q = draw(n)
        tally.add(s, q, n)
        if tally.n >= opts.min_deals and tally.margins()[0].max() <= opts.precision:
            break
        if opts.time_limit is not None and time.perf_counter() - opts.started > opts.time_limit:
            break
    return tally
