"""Stud equity: exact when the position allows (heads-up by inclusion-exclusion, multi-way by
enumerating the runouts when they are at most ``EXACT_LIMIT``), else Monte Carlo: random partial
shuffles give each player's new cards, looked up in the value tables (or scored directly when a
table would be too big)."""

from __future__ import annotations

import math
import time

import numpy as np

from . import heads_up
from .arrays import I64
from .combinatorics import enumerate_disjoint, partial_shuffle
from .position import EquityError, Position
from .result import EquityResult, Tally, deal_stats, make_result
from .sampling import BATCH, EXACT_LIMIT, Sampling, sample
from .tables import StudTables


def solve_stud(pos: Position, sampler: Sampling, *, exact: bool | None, table_limit: int) -> EquityResult:
    """``exact`` True insists on counting, False forces sampling, None decides by the counts."""
    started = sampler.started
    tables = StudTables(pos, table_limit)
    runouts = stud_runouts(tables, EXACT_LIMIT)
    have_tables = all(t is not None for t in tables.main)
    if exact is not False and pos.players == 2 and have_tables and heads_up.fits(tables):
        tally = heads_up.heads_up_exact(pos, tables)
        return make_result(pos, tally, True, time.perf_counter() - started, "inclusion-exclusion")
    if exact is not False and (runouts <= EXACT_LIMIT or exact is True):
        if runouts > EXACT_LIMIT * 10:
            raise EquityError(f"{runouts:,} runouts are too many to enumerate; leave out --exact")
        tally = enumerate_stud(pos, tables)
        return make_result(pos, tally, True, time.perf_counter() - started, "enumeration")
    rng = np.random.default_rng(sampler.seed)
    total = sum(tables.need)
    if have_tables:
        tally = sample(pos, lambda n: tables.sample(rng, n), sampler)
    else:
        tally = sample(pos, lambda n: stud_values(tables, partial_shuffle(rng, n, tables.r, total)), sampler)
    return make_result(pos, tally, False, time.perf_counter() - started, "monte-carlo")


def stud_runouts(tables: StudTables, limit: int) -> int:
    """Number of stud runouts (each player's new cards, in player order); past ``limit`` it
    stops counting and returns the first count above it."""
    left, count = tables.r, 1
    for k in tables.need:
        count *= math.comb(left, k)
        left -= k
        if count > limit:
            return count
    return count


def enumerate_stud(pos: Position, tables: StudTables) -> Tally:
    """Every runout counted once."""
    tally = Tally(pos.players)
    all_idx = enumerate_disjoint(tables.r, tables.need)
    split = pos.game_record.hi_lo
    for start in range(0, len(all_idx), BATCH):
        chunk = all_idx[start : start + BATCH].astype(np.int64)
        main, low = stud_values(tables, chunk)
        s, q = deal_stats(main, low, split)
        tally.add(s, q, len(chunk))
    return tally


def stud_values(tables: StudTables, idx: I64) -> tuple[I64, I64]:
    """Values (P, N) of the runouts ``idx``: each player's new cards side by side, as unseen indices."""
    n = idx.shape[0]
    main = np.empty((len(tables.need), n), dtype=np.int64)
    low = np.empty_like(main)
    at = 0
    for p, k in enumerate(tables.need):
        main[p], low[p] = tables.values(p, idx[:, at : at + k])
        at += k
    return main, low
