"""Board-game equity (Omaha Hi/Lo, limit hold'em): board runouts (and unknown hole cards) are
enumerated when they are few, else sampled. Big O8 jobs run in the compiled kernels of
:mod:`.omaha_jit` when numba is installed (deal, score and count in one loop); otherwise, and for
small jobs, each batch of hands is scored by one ``batch_omaha8`` call (hold'em: ``batch_high``
on the seven cards)."""

from __future__ import annotations

import math
import time
from typing import TYPE_CHECKING

import numpy as np

from .arrays import I64
from .combinatorics import enumerate_disjoint, partial_shuffle
from .position import EquityError, Position
from .result import EquityResult, Tally, deal_stats, make_result
from .sampling import BATCH, EXACT_LIMIT, KERNEL_MIN_DEALS, Sampling, sample, sample_stats
from .scoring import score_holdem, score_omaha8

if TYPE_CHECKING:
    from .omaha_jit import OmahaDeals


def kernel_deals(unseen: I64, holes: I64, board: I64, seed: int | None, work: int) -> OmahaDeals | None:
    """The compiled kernels for a job of ``work`` runouts or deals, or None (no numba, or too
    little work to pay for loading it)."""
    from studpoker.evaluate import jit_available

    if work < KERNEL_MIN_DEALS or not jit_available():
        return None
    from .omaha_jit import OmahaDeals

    return OmahaDeals(unseen, holes, board, seed)


def solve_omaha(pos: Position, exact: bool | None, sampler: Sampling) -> EquityResult:
    """``exact`` True insists on counting, False forces sampling, None decides by the counts."""
    record = pos.game_record
    omaha = record.two_plus_three
    if record.hand_types != (("high", "low8") if omaha else ("high",)):
        raise EquityError(
            f"{record.code}: board-game equity scores Omaha high and eight-or-better hands, "
            "or best-five high hands (hold'em), only"
        )
    score = score_omaha8 if omaha else score_holdem
    started = sampler.started
    unseen = np.array(pos.unseen(), dtype=np.int64)
    r = len(unseen)
    holes = [[-1 if c is None else int(c) for c in h] for h in pos.hands]
    unknown = [[i for i, c in enumerate(h) if c < 0] for h in holes]
    board_size, board_missing = record.board_sizes[-1], pos.board_to_come()
    needs = [len(u) for u in unknown] + [board_missing]
    count, left = 1, r
    for k in needs:
        count *= math.comb(left, k)
        left -= k
    base_holes = np.array(holes, dtype=np.int64)  # (P, hole cards)
    base_board = np.array([*map(int, pos.board), *([-1] * board_missing)], dtype=np.int64)

    def values(idx: I64) -> tuple[I64, I64]:
        n = idx.shape[0]
        cards = unseen[idx]
        at = 0
        hole = np.broadcast_to(base_holes, (n, *base_holes.shape)).copy()
        for p, u in enumerate(unknown):
            for i in u:
                hole[:, p, i] = cards[:, at]
                at += 1
        board = np.broadcast_to(base_board, (n, board_size)).copy()
        board[:, len(pos.board) :] = cards[:, at : at + board_missing]
        players = pos.players
        flat_holes = hole.reshape(n * players, base_holes.shape[1])
        hi, lo = score(flat_holes, np.repeat(board, players, axis=0))
        return hi.reshape(n, players).T.copy(), lo.reshape(n, players).T.copy()

    if exact is True and count > EXACT_LIMIT * 10:
        raise EquityError(f"{count:,} runouts are too many to enumerate; leave out --exact")
    # a 95 % interval of +/-0.1 % takes about a million deals: enumerate up to that much work
    counting = exact is True or (exact is None and count <= EXACT_LIMIT // 2)
    # the compiled kernels deal and score Omaha only; hold'em's numpy path is fast enough
    kernel = (
        kernel_deals(unseen, base_holes, base_board, sampler.seed, count if counting else sampler.max_deals)
        if omaha
        else None
    )
    if counting:
        tally = Tally(pos.players)
        idx_all = enumerate_disjoint(r, needs)
        step = BATCH if kernel is not None else BATCH // 8
        for start in range(0, len(idx_all), step):
            chunk = idx_all[start : start + step]
            if kernel is not None:
                s, q = kernel.count(chunk)
            else:
                s, q = deal_stats(*values(chunk.astype(np.int64)), split=record.hi_lo)
            tally.add(s, q, len(chunk))
        return make_result(pos, tally, True, time.perf_counter() - started, "enumeration")
    if kernel is not None:
        tally = sample_stats(pos, kernel.sample, sampler)
    else:
        rng = np.random.default_rng(sampler.seed)
        total = sum(needs)
        tally = sample(pos, lambda n: values(partial_shuffle(rng, n, r, total)), sampler)
    return make_result(pos, tally, False, time.perf_counter() - started, "monte-carlo")
