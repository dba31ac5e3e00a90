"""Build the evaluator tables from first principles (run once; the result is package data).

Everything here is plain Python over *rank multisets*: a hand's ranks with their counts,
written as a 13-tuple of counts (deuce first). The tables are:

* the 7,462 five-card high classes, sorted worst to best (value 1 is 7-5-4-3-2 offsuit,
  value 7,462 a royal flush);
* the 6,175 five-card ace-to-five low classes (rank multisets without five of a kind),
  sorted worst to best (value 1 is four kings with a queen, 6,175 the wheel);
* for every rank multiset of 5, 6 and 7 cards: the best non-flush high value and the best
  ace-to-five low value over its 5-card sub-multisets (by dynamic programming on size);
* for every 13-bit rank mask with 5 to 7 ranks: the best flush or straight-flush value;
* ``rank_keys``: one integer per rank whose sums over the cards identify the rank multiset
  of any 5, 6 or 7 cards (see :func:`rank_keys`); the batch evaluators index by that sum.

``python -m studpoker.evaluate._build`` rewrites ``studpoker/data/evaluate.npz``; a test
rebuilds the tables and checks they equal the stored file.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

Counts = tuple[int, ...]

# High-hand categories, worst to best (the numbers of studpoker.evaluate.Category).
HIGH_CARD, PAIR, TWO_PAIR, TRIPS, STRAIGHT, FLUSH, FULL_HOUSE, QUADS, STRAIGHT_FLUSH = range(9)
DATA_FILE = Path(__file__).resolve().parent.parent / "data" / "evaluate.npz"  # as in _tables


def multisets(size: int) -> list[Counts]:
    """All rank multisets of ``size`` cards (each rank at most four times), in a fixed order."""
    out: list[Counts] = []

    def rec(rank: int, left: int, cur: list[int]) -> None:
        if rank == 13:
            if left == 0:
                out.append(tuple(cur))
            return
        for c in range(min(4, left) + 1):
            cur.append(c)
            rec(rank + 1, left - c, cur)
            cur.pop()

    rec(0, size, [])
    return out


def straight_top(ranks: set[int]) -> int:
    """The top rank of the straight formed by exactly these five ranks, or -1 (wheel tops at 3)."""
    if len(ranks) != 5:
        return -1
    if ranks == {12, 0, 1, 2, 3}:
        return 3
    top = max(ranks)
    return top if top - min(ranks) == 4 else -1


def high_class(counts: Counts, flush: bool) -> tuple[int, tuple[int, ...]]:
    """(category, tie-break ranks) of five cards with these rank counts."""
    groups = sorted(((c, r) for r, c in enumerate(counts) if c), reverse=True)
    pattern = tuple(c for c, _ in groups)
    order = tuple(r for _, r in groups)
    if pattern == (1, 1, 1, 1, 1):
        top = straight_top(set(order))
        if top >= 0:
            return (STRAIGHT_FLUSH if flush else STRAIGHT, (top,))
        return (FLUSH if flush else HIGH_CARD, order)
    category = {
        (4, 1): QUADS,
        (3, 2): FULL_HOUSE,
        (3, 1, 1): TRIPS,
        (2, 2, 1): TWO_PAIR,
        (2, 1, 1, 1): PAIR,
    }[pattern]
    return (category, order)


def low_rank(rank: int) -> int:
    """Ace-to-five rank: ace 1, deuce 2, ..., king 13."""
    return 1 if rank == 12 else rank + 2


def low_badness(counts: Counts) -> tuple[int, tuple[int, ...]]:
    """A key that grows as the ace-to-five low of five cards gets worse."""
    groups = sorted(((c, low_rank(r)) for r, c in enumerate(counts) if c), reverse=True)
    pattern = tuple(c for c, _ in groups)
    patterns = [(1, 1, 1, 1, 1), (2, 1, 1, 1), (2, 2, 1), (3, 1, 1), (3, 2), (4, 1)]
    return (patterns.index(pattern), tuple(r for _, r in groups))


def counts_of_mask(mask: int) -> Counts:
    return tuple((mask >> r) & 1 for r in range(13))


def rank_keys(max_size: int = 7) -> list[int]:
    """Greedy per-rank keys whose sums identify every rank multiset of each size up to ``max_size``.

    Rank r gets the smallest key above rank r-1's such that, for every size m, the sums
    over size-m multisets of ranks 0..r stay distinct. A new key k breaks that exactly when
    two smaller sums a (size s) and b (size s + d, d = 1..4) satisfy b - a = d * k, so each
    window of candidates is checked against those differences with sorted arrays.
    """
    sums = [np.array([0], dtype=np.int64)] + [np.array([], dtype=np.int64)] * max_size
    keys: list[int] = []
    for _ in range(13):
        lo = keys[-1] + 1 if keys else 0
        while True:
            width = max(256, lo // 4 + 1)
            forbidden = np.zeros(width, dtype=bool)
            for d in range(1, 5):
                for s1 in range(max_size - d + 1):
                    a, b = sums[s1], sums[s1 + d]
                    if not len(a) or not len(b):
                        continue
                    left = np.searchsorted(b, a + d * lo)
                    count = np.searchsorted(b, a + d * (lo + width)) - left
                    total = int(count.sum())
                    if not total:
                        continue
                    ai = np.repeat(np.arange(len(a)), count)
                    offset = np.arange(total) - np.repeat(np.cumsum(count) - count, count)
                    diff = b[left[ai] + offset] - a[ai]
                    forbidden[diff[diff % d == 0] // d - lo] = True
            free = np.flatnonzero(~forbidden)
            if len(free):
                key = lo + int(free[0])
                break
            lo += width
        keys.append(key)
        sums = [
            np.sort(np.concatenate([sums[m - c] + c * key for c in range(min(4, m) + 1)]))
            for m in range(max_size + 1)
        ]
    return keys


def build() -> dict[str, npt.NDArray[np.int64]]:
    """Compute every table; returns arrays ready for ``np.savez``."""
    return {**build_values(), "rank_keys": np.array(rank_keys(), dtype=np.int64)}


def build_values() -> dict[str, npt.NDArray[np.int64]]:
    """Every table but ``rank_keys`` (the quick part of :func:`build`)."""
    five = multisets(5)
    flush_masks = [m for m in range(1 << 13) if m.bit_count() == 5]
    classes: list[tuple[tuple[int, tuple[int, ...]], int, int]] = []
    for i, counts in enumerate(five):
        classes.append((high_class(counts, False), 0, i))
    for m in flush_masks:
        classes.append((high_class(counts_of_mask(m), True), 1, m))
    classes.sort()
    high5: dict[Counts, int] = {}
    flush = [0] * (1 << 13)
    for value, (_, is_flush, ident) in enumerate(classes, start=1):
        if is_flush:
            flush[ident] = value
        else:
            high5[five[ident]] = value
    for bits in (6, 7):  # best flush of 6 or 7 suited ranks: drop one rank at a time
        for m in range(1 << 13):
            if m.bit_count() == bits:
                flush[m] = max(flush[m & ~(1 << r)] for r in range(13) if m >> r & 1)

    lows = sorted(five, key=low_badness, reverse=True)
    low5 = {counts: value for value, counts in enumerate(lows, start=1)}
    worst_qualifier = low5[(0, 0, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0)]  # 8-7-6-5-4

    out: dict[str, npt.NDArray[np.int64]] = {
        "flush": np.array(flush, dtype=np.int64),
        "worst_qualifier": np.array([worst_qualifier], dtype=np.int64),
    }
    best_high: dict[Counts, int] = dict(high5)
    best_low: dict[Counts, int] = dict(low5)
    for size in (5, 6, 7):
        sets = multisets(size)
        if size > 5:
            for counts in sets:
                subs = [(*counts[:r], counts[r] - 1, *counts[r + 1 :]) for r in range(13) if counts[r]]
                best_high[counts] = max(best_high[s] for s in subs)
                best_low[counts] = max(best_low[s] for s in subs)
        out[f"counts{size}"] = np.array(sets, dtype=np.int64)
        out[f"high{size}"] = np.array([best_high[c] for c in sets], dtype=np.int64)
        out[f"razz{size}"] = np.array([best_low[c] for c in sets], dtype=np.int64)
    return out


_STORED_TYPES: dict[str, type[np.unsignedinteger[Any]]] = {"counts": np.uint8, "rank_k": np.uint32}


def save(path: Path = DATA_FILE) -> None:
    tables = build()
    compact = {k: v.astype(_STORED_TYPES.get(k[:6], np.uint16)) for k, v in tables.items()}
    np.savez(path, **compact)  # type: ignore[arg-type]


if __name__ == "__main__":
    save()
