"""Subsets of the unseen cards: binomial tables, colex order and ranks, disjoint assignments,
random partial shuffles. Cards are indices into a position's unseen cards."""

from __future__ import annotations

import math

import numpy as np
import numpy.typing as npt

from .arrays import I64, IntArray


def binom_table(n: int, k: int) -> I64:
    """``t[i, j] = C(i, j)`` for ``i <= n``, ``j <= k``."""
    t = np.zeros((n + 1, k + 1), dtype=np.int64)
    for i in range(n + 1):
        for j in range(min(i, k) + 1):
            t[i, j] = math.comb(i, j)
    return t


def colex_combos(n: int, k: int) -> npt.NDArray[np.int8]:
    """All ``k``-subsets of ``range(n)`` as sorted rows, in colex order (row = colex rank)."""
    if k == 0:
        return np.zeros((1, 0), dtype=np.int8)
    if k > n:
        return np.zeros((0, k), dtype=np.int8)
    prev = colex_combos(n, k - 1)
    parts = []
    for top in range(k - 1, n):
        m = math.comb(top, k - 1)
        block = np.empty((m, k), dtype=np.int8)
        block[:, : k - 1] = prev[:m]
        block[:, k - 1] = top
        parts.append(block)
    return np.concatenate(parts)


def colex_rank(sorted_idx: IntArray, binom: I64) -> I64:
    """Colex ranks of rows of sorted indices (N, k)."""
    k = sorted_idx.shape[1]
    rank = np.zeros(sorted_idx.shape[0], dtype=np.int64)
    for i in range(k):
        rank += binom[sorted_idx[:, i], i + 1]
    return rank


def enumerate_disjoint(r: int, needs: list[int]) -> npt.NDArray[np.int8]:
    """Every assignment of disjoint subsets of ``range(r)`` to the players: (D, sum(needs))."""
    masks = np.zeros(1, dtype=np.uint64)
    idx = np.zeros((1, 0), dtype=np.int8)
    for k in needs:
        combos = colex_combos(r, k)
        cm = np.zeros(len(combos), dtype=np.uint64)
        for j in range(k):
            cm |= np.uint64(1) << combos[:, j].astype(np.uint64)
        ok = (masks[:, None] & cm[None, :]) == 0
        di, ci = np.nonzero(ok)
        masks = masks[di] | cm[ci]
        idx = np.concatenate([idx[di], combos[ci]], axis=1)
    return idx


def partial_shuffle(rng: np.random.Generator, n: int, r: int, k: int) -> I64:
    """``n`` rows of ``k`` distinct indices from ``range(r)`` (uniform, ordered)."""
    deck = np.tile(np.arange(r, dtype=np.int8), (n, 1))
    rows = np.arange(n)
    for i in range(k):
        j = i + (rng.random(n) * (r - i)).astype(np.int64)
        picked = deck[rows, j]
        deck[rows, j] = deck[:, i]
        deck[:, i] = picked
    return deck[:, :k].astype(np.int64)
