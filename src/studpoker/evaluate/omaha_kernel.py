"""Omaha hi/lo in compiled loops (numba) with tables small enough to stay in the CPU cache, for
code that deals and scores many hands in one kernel (the O8 equity kernels of
:mod:`studpoker.equity.omaha_jit`).

The values are those of :func:`studpoker.evaluate.omaha8` and ``batch_omaha8``, found with less
work per hand:

* **High**, non-flush: two hole ranks and three board ranks look up one table,
  ``HIGH_2_3[triple * PAIRS + pair]`` by the two rank multisets' indices (455 x 91 entries,
  83 KB, where the 5-to-7-card table of the batch evaluators has 6.5 million, 13 MB: random
  deals hit the cache). The board's ten triples are indexed once per board and shared by every
  player; a hand is six pair indices times ten look-ups.
* **High**, flush: only when the board holds three or more cards of one suit (at most one suit
  can), from the rank masks of that suit's board triples and the hand's pairs of that suit.
* **Low**: by rank mask (bit 0 the ace ... bit 7 the eight). A two-plus-three low is a pair of
  different low hole ranks and the three lowest board low ranks not among them; the ranks being
  distinct, the smaller mask is the better low (the highest card is compared first), and a
  256-entry table turns the best mask into the eight-or-better value.

This module imports numba, so it is imported only when asked for (``cache=True`` keeps the
compiled code on disk).
"""

from __future__ import annotations

from typing import Any

import numba
import numpy as np
import numpy.typing as npt

from studpoker.evaluate._tables import FLUSH, TABLES, WORST_QUALIFIER

__all__ = ["omaha8_values"]

I64 = npt.NDArray[np.int64]
U16 = npt.NDArray[np.uint16]

PAIRS = 91  # rank multisets of two cards: (a <= b) has index b * (b + 1) / 2 + a
TRIPLES = 455  # of three cards: (a <= b <= c) has index C(c + 2, 3) + C(b + 1, 2) + a
_RANKS = np.arange(52, dtype=np.int64) >> 2
RANK_BIT: I64 = (np.int64(1) << _RANKS).astype(np.int64)  # per card code, deuce bit 0
_LOW_RANKS = np.where(_RANKS == 12, 0, _RANKS + 1)  # ace 0, deuce 1 ... eight 7, nine and up 8+
LOW_BIT: I64 = np.where(_LOW_RANKS <= 7, np.int64(1) << _LOW_RANKS, 0).astype(np.int64)  # per card code


def _two_plus_three_high() -> U16:
    """``table[triple * PAIRS + pair]``: the non-flush high value of two hole ranks and three
    board ranks (0 for the impossible five of a kind)."""
    powers = 5 ** np.arange(13, dtype=np.int64)  # rank counts as base-5 digits
    codes = TABLES["counts5"].astype(np.int64) @ powers
    order = np.argsort(codes)
    known, values = codes[order], TABLES["high5"].astype(np.uint16)[order]
    pairs = np.array([(a, b) for b in range(13) for a in range(b + 1)], dtype=np.int64)
    triples = np.array(
        [(a, b, c) for c in range(13) for b in range(c + 1) for a in range(b + 1)], dtype=np.int64
    )
    hand = powers[triples].sum(axis=1)[:, None] + powers[pairs].sum(axis=1)[None, :]
    # five of a kind carries into the next digit and so matches no five-card multiset
    at = np.minimum(np.searchsorted(known, hand), len(known) - 1)
    return np.where(known[at] == hand, values[at], 0).astype(np.uint16).ravel()


def _low_by_mask() -> U16:
    """Low rank mask (five bits of ace..eight) to its eight-or-better value, 0 elsewhere."""
    razz = TABLES["razz5"].astype(np.int64)
    counts = TABLES["counts5"].astype(np.int64)
    by_counts = {tuple(row): int(v) for row, v in zip(counts.tolist(), razz.tolist(), strict=True)}
    out = np.zeros(256, dtype=np.uint16)
    for mask in range(256):
        if mask.bit_count() == 5:
            row = [0] * 13
            for bit in range(8):
                if mask >> bit & 1:
                    row[12 if bit == 0 else bit - 1] = 1
            value = by_counts[tuple(row)]
            assert value >= WORST_QUALIFIER  # every five distinct ranks up to the eight qualify
            out[mask] = value
    return out


HIGH_2_3: U16 = _two_plus_three_high()
LOW8_BY_MASK: U16 = _low_by_mask()
FLUSH_TABLE: U16 = FLUSH


@numba.njit(cache=True, nogil=True, inline="always")
def _pair_index(ca: Any, cb: Any) -> Any:  # pragma: no cover - compiled
    a = ca >> 2
    b = cb >> 2
    if a > b:
        a, b = b, a
    return b * (b + 1) // 2 + a


@numba.njit(cache=True, nogil=True, inline="always")
def _triple_index(cx: Any, cy: Any, cz: Any) -> Any:  # pragma: no cover - compiled
    a = cx >> 2
    b = cy >> 2
    c = cz >> 2
    if a > b:
        a, b = b, a
    if b > c:
        b, c = c, b
    if a > b:
        a, b = b, a
    return (c + 2) * (c + 1) * c // 6 + (b + 1) * b // 2 + a


# What the kernels below take as ``tables``, in this order.
KERNEL_TABLES: tuple[I64 | U16, ...] = (RANK_BIT, LOW_BIT, HIGH_2_3, FLUSH_TABLE, LOW8_BY_MASK)


@numba.njit(cache=True, nogil=True, inline="always")
def _lowest_three(bits: Any) -> Any:  # pragma: no cover - compiled
    """The three lowest set bits of ``bits`` (which has at least three)."""
    a = bits & -bits
    bits ^= a
    b = bits & -bits
    bits ^= b
    return a | b | (bits & -bits)


@numba.njit(cache=True, nogil=True, inline="always")
def _three_or_more(bits: Any) -> bool:  # pragma: no cover - compiled
    """Whether ``bits`` has at least three bits set (clear the lowest two, see what is left)."""
    rest = bits & (bits - 1)
    return bool((rest & (rest - 1)) != 0)


@numba.njit(cache=True, nogil=True)
def prepare_board(
    board: Any, nb: int, tables: Any, triple_rows: Any, flush_triples: Any
) -> tuple[int, int, int]:  # pragma: no cover - compiled
    """Fill ``triple_rows`` with the row of ``HIGH_2_3`` of each of the board's C(nb, 3) triples
    and ``flush_triples`` with the rank masks of its flush-suit triples; return (the flush suit
    or -1, the number of flush triples, the board's low rank mask)."""
    rank_bit, low_bit = tables[0], tables[1]
    counts = 0  # a 4-bit counter per suit (no array: this runs once per deal)
    low = 0
    for x in range(nb):
        counts += 1 << (4 * (board[x] & 3))
        low |= low_bit[board[x]]
    suit = -1
    for s in range(4):
        if (counts >> (4 * s)) & 15 >= 3:
            suit = s
    t = 0
    f = 0
    for x in range(nb):
        cx = board[x]
        for y in range(x + 1, nb):
            cy = board[y]
            for z in range(y + 1, nb):
                cz = board[z]
                triple_rows[t] = _triple_index(cx, cy, cz) * PAIRS
                t += 1
                if suit >= 0 and cx & 3 == suit and cy & 3 == suit and cz & 3 == suit:
                    flush_triples[f] = rank_bit[cx] | rank_bit[cy] | rank_bit[cz]
                    f += 1
    return suit, f, low


@numba.njit(cache=True, nogil=True)
def hand_values(  # noqa: PLR0917
    hole: Any,
    at: int,
    triple_rows: Any,
    triples: int,
    suit: int,
    flush_triples: Any,
    flushes: int,
    board_low: int,
    tables: Any,
) -> tuple[int, int]:  # pragma: no cover - compiled
    """(high, low8) of the four hole cards ``hole[at:at + 4]`` on a board made ready by
    :func:`prepare_board`."""
    rank_bit, low_bit, high_2_3, flush, low_by_mask = tables
    best_high = 0
    best_low = 256  # masks are below 256: smaller is better
    can_low = _three_or_more(board_low)
    for a in range(4):
        ca = hole[at + a]
        for b in range(a + 1, 4):
            cb = hole[at + b]
            pair = _pair_index(ca, cb)
            for t in range(triples):
                best_high = max(best_high, high_2_3[triple_rows[t] + pair])
            if flushes and ca & 3 == suit and cb & 3 == suit:
                pair_bits = rank_bit[ca] | rank_bit[cb]
                for t in range(flushes):
                    best_high = max(best_high, flush[pair_bits | flush_triples[t]])
            if can_low:
                la = low_bit[ca]
                lb = low_bit[cb]
                if la and lb and la != lb:
                    rest = board_low & ~(la | lb)
                    if _three_or_more(rest):
                        best_low = min(best_low, la | lb | _lowest_three(rest))
    return best_high, (low_by_mask[best_low] if best_low < 256 else 0)


@numba.njit(cache=True, nogil=True)
def _score_rows(hole: Any, board: Any, tables: Any, out_high: Any, out_low: Any) -> None:  # pragma: no cover
    n, nb = board.shape
    triple_rows = np.empty(10, dtype=np.int64)
    flush_triples = np.empty(10, dtype=np.int64)
    cards = np.empty(4, dtype=np.int64)
    row = np.empty(5, dtype=np.int64)
    triples = nb * (nb - 1) * (nb - 2) // 6
    for i in range(n):
        for x in range(nb):
            row[x] = board[i, x]
        for a in range(4):
            cards[a] = hole[i, a]
        suit, flushes, low = prepare_board(row, nb, tables, triple_rows, flush_triples)
        hi, lo = hand_values(cards, 0, triple_rows, triples, suit, flush_triples, flushes, low, tables)
        out_high[i] = hi
        out_low[i] = lo


def omaha8_values(hole: npt.ArrayLike, board: npt.ArrayLike) -> tuple[U16, U16]:
    """(high, eight-or-better low) values of each row, as ``batch_omaha8(hole, board)`` gives:
    ``hole`` (N, 4), ``board`` (N, 3..5) card codes, assumed valid (no checks: the kernels score
    cards they dealt themselves)."""
    h = np.ascontiguousarray(hole, dtype=np.int64)
    b = np.ascontiguousarray(board, dtype=np.int64)
    out_high = np.empty(len(h), dtype=np.uint16)
    out_low = np.empty(len(h), dtype=np.uint16)
    _score_rows(h, b, KERNEL_TABLES, out_high, out_low)
    return out_high, out_low
