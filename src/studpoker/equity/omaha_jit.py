"""O8 equity in one compiled loop per batch (numba): each deal is drawn from the unseen cards (or
taken from an enumeration), every player's hand scored by :mod:`studpoker.evaluate.omaha_kernel`
and the pot shares counted, with no Python and no allocation per deal.

Sampling is a partial Fisher-Yates shuffle of the unseen cards driven by xoshiro256**, seeded
from ``numpy.random.SeedSequence(seed)``, so a seed gives the same deals on every machine. The
deck is not restored between deals: a shuffle of any order of the cards is uniform.

The shares are counted in integers: in units of ``1 / (2 * lcm(1..players))`` of the pot every
half and quarter is whole, so an enumeration's sums are exact and do not depend on the batches.
This module imports numba, so :mod:`.omaha` imports it only for work big enough to pay for it.
"""

from __future__ import annotations

import math
from typing import Any

import numba
import numpy as np
import numpy.typing as npt

from studpoker.evaluate import omaha_kernel as ok

from .arrays import F64, I64

HOLE = 4  # Omaha hole cards
BOARD = 5  # the board at showdown
_GOLDEN = 0x9E3779B97F4A7C15


@numba.njit(cache=True, nogil=True, inline="always")
def _rotl(x: Any, k: int) -> Any:  # pragma: no cover - compiled
    return (x << np.uint64(k)) | (x >> np.uint64(64 - k))


@numba.njit(cache=True, nogil=True)
def _next(state: Any) -> Any:  # pragma: no cover - compiled
    """The next 64 random bits of xoshiro256** (``state``: four uint64, updated in place)."""
    result = _rotl(state[1] * np.uint64(5), 7) * np.uint64(9)
    t = state[1] << np.uint64(17)
    state[2] ^= state[0]
    state[3] ^= state[1]
    state[1] ^= state[2]
    state[0] ^= state[3]
    state[2] ^= t
    state[3] = _rotl(state[3], 45)
    return result


@numba.njit(cache=True, nogil=True)
def _below(state: Any, m: int) -> int:  # pragma: no cover - compiled
    """A uniform integer in ``range(m)`` (Lemire's multiply-shift on 32 bits, with rejection)."""
    bound = np.uint64(m)
    product = (_next(state) >> np.uint64(32)) * bound
    low = product & np.uint64(0xFFFFFFFF)
    if low < bound:
        threshold = (np.uint64(1 << 32) - bound) % bound
        while low < threshold:
            product = (_next(state) >> np.uint64(32)) * bound
            low = product & np.uint64(0xFFFFFFFF)
    return int(product >> np.uint64(32))


@numba.njit(cache=True, nogil=True)
def _count_deal(  # noqa: PLR0917
    cards: Any,
    players: int,
    unit: int,
    work: Any,
    tables: Any,
    sums: Any,
    squares: Any,
) -> None:  # pragma: no cover - compiled
    """Score the deal in ``cards`` (each player's four hole cards, then the board) and add each
    player's figures to ``sums`` / ``squares`` (rows: share, win, tie, scoop, high, low, in units)."""
    triple_rows, flush_triples, high, low = work
    board = cards[players * HOLE :]
    suit, flushes, board_low = ok.prepare_board(board, BOARD, tables, triple_rows, flush_triples)
    best_high = 0
    best_low = 0
    for p in range(players):
        h, lo = ok.hand_values(
            cards, p * HOLE, triple_rows, 10, suit, flush_triples, flushes, board_low, tables
        )
        high[p] = h
        low[p] = lo
        best_high = max(best_high, h)
        best_low = max(best_low, lo)
    n_high = 0
    n_low = 0
    for p in range(players):
        if high[p] == best_high:
            n_high += 1
        if best_low > 0 and low[p] == best_low:
            n_low += 1
    for p in range(players):
        high_share = unit // n_high if high[p] == best_high else 0
        low_share = unit // n_low if best_low > 0 and low[p] == best_low else 0
        share = (high_share + low_share) // 2 if best_low > 0 else high_share
        win = 1 if high_share > 0 and n_high == 1 else 0
        tie = 1 if high_share > 0 and n_high > 1 else 0
        scoop = 1 if share == unit else 0
        sums[0, p] += share
        squares[0, p] += share * share
        sums[1, p] += win
        squares[1, p] += win
        sums[2, p] += tie
        squares[2, p] += tie
        sums[3, p] += scoop
        squares[3, p] += scoop
        sums[4, p] += high_share
        squares[4, p] += high_share * high_share
        sums[5, p] += low_share
        squares[5, p] += low_share * low_share


@numba.njit(cache=True, nogil=True)
def _sample_kernel(  # noqa: PLR0917
    deck: Any,
    cards: Any,
    targets: Any,
    players: int,
    unit: int,
    n: int,
    state: Any,
    work: Any,
    tables: Any,
    sums: Any,
    squares: Any,
) -> None:  # pragma: no cover - compiled
    """``n`` random deals: the first ``len(targets)`` cards of a partial shuffle of ``deck`` go to
    the ``cards`` slots ``targets`` (unknown hole cards, then the board still to come)."""
    r = deck.shape[0]
    k = targets.shape[0]
    for _ in range(n):
        for i in range(k):
            j = i + _below(state, r - i)
            picked = deck[j]
            deck[j] = deck[i]
            deck[i] = picked
            cards[targets[i]] = picked
        _count_deal(cards, players, unit, work, tables, sums, squares)


@numba.njit(cache=True, nogil=True)
def _enumerate_kernel(  # noqa: PLR0917
    unseen: Any,
    cards: Any,
    targets: Any,
    players: int,
    unit: int,
    runouts: Any,
    work: Any,
    tables: Any,
    sums: Any,
    squares: Any,
) -> None:  # pragma: no cover - compiled
    """Every runout of ``runouts`` (rows of indices into ``unseen``, in ``targets`` order)."""
    for d in range(runouts.shape[0]):
        for i in range(targets.shape[0]):
            cards[targets[i]] = unseen[runouts[d, i]]
        _count_deal(cards, players, unit, work, tables, sums, squares)


class OmahaDeals:
    """One O8 position's deals, counted by the kernels: ``holes`` (players, 4) and ``board``
    (up to 5) card codes with -1 for the cards to come, ``unseen`` the cards they come from.

    The cards to come are dealt to the unknown hole cards, player by player, then to the board:
    the order of :func:`studpoker.equity.combinatorics.enumerate_disjoint`'s columns.
    """

    def __init__(self, unseen: I64, holes: I64, board: I64, seed: int | None) -> None:
        self.players = int(holes.shape[0])
        self.unseen = np.ascontiguousarray(unseen, dtype=np.int64)
        self.deck = self.unseen.copy()
        padded = np.full(BOARD, -1, dtype=np.int64)
        padded[: len(board)] = board
        self.cards = np.concatenate([np.asarray(holes, dtype=np.int64).ravel(), padded])
        self.targets = np.flatnonzero(self.cards < 0).astype(np.int64)
        self.unit = 2 * math.lcm(*range(1, self.players + 1))
        self.scale = np.array([self.unit, 1, 1, 1, self.unit, self.unit], dtype=np.float64)[:, None]
        state = np.random.SeedSequence(seed).generate_state(4, dtype=np.uint64)
        self.state = state if state.any() else np.array([_GOLDEN, 1, 2, 3], dtype=np.uint64)
        self.work = (
            np.empty(10, dtype=np.int64),
            np.empty(10, dtype=np.int64),
            np.empty(self.players, dtype=np.int64),
            np.empty(self.players, dtype=np.int64),
        )
        self.tables = ok.KERNEL_TABLES

    def _sums(self) -> tuple[I64, I64]:
        return np.zeros((6, self.players), dtype=np.int64), np.zeros((6, self.players), dtype=np.int64)

    def _as_stats(self, sums: I64, squares: I64) -> tuple[F64, F64]:
        """Integer unit sums to the fractions of :func:`studpoker.equity.result.deal_stats`."""
        return sums / self.scale, squares / (self.scale * self.scale)

    def sample(self, n: int) -> tuple[F64, F64]:
        """The figures' sums and sums of squares (6, players) over ``n`` random deals."""
        sums, squares = self._sums()
        _sample_kernel(
            self.deck, self.cards, self.targets, self.players, self.unit, n, self.state,
            self.work, self.tables, sums, squares,
        )  # fmt: skip
        return self._as_stats(sums, squares)

    def count(self, runouts: npt.NDArray[np.integer[Any]]) -> tuple[F64, F64]:
        """The same over the given runouts, rows of indices into ``unseen`` in ``targets`` order."""
        sums, squares = self._sums()
        rows = np.ascontiguousarray(runouts)
        _enumerate_kernel(
            self.unseen, self.cards, self.targets, self.players, self.unit, rows,
            self.work, self.tables, sums, squares,
        )  # fmt: skip
        return self._as_stats(sums, squares)
