"""Stud value tables: a stud player's final hand depends only on his own cards, so every
possible completion of each player (``C(unseen, to_come)`` sets of unseen cards) is scored once,
in one batch call, into a table indexed by the completion's colex rank."""

from __future__ import annotations

import math

import numpy as np
import numpy.typing as npt

from .arrays import I64, IntArray
from .combinatorics import binom_table, colex_combos, colex_rank
from .position import Position
from .scoring import score_stud

TABLE_LIMIT = 2_000_000  # score every completion of a player when there are at most this many


class StudTables:
    """Per-player value tables over every completion (colex rank of the unseen-card indices)."""

    def __init__(self, pos: Position, table_limit: int = TABLE_LIMIT) -> None:
        self.pos = pos
        self.unseen = np.array(pos.unseen(), dtype=np.int64)
        self.r = len(self.unseen)
        self.need = [pos.to_come(p) for p in range(pos.players)]
        self.binom = binom_table(self.r, max(*self.need, 1))
        self.main: list[I64 | None] = []
        self.low: list[I64 | None] = []
        self.combos: list[npt.NDArray[np.int8] | None] = []
        self._masks: dict[int, npt.NDArray[np.uint64]] = {}
        blocks: list[npt.NDArray[np.int64]] = []
        owners: list[tuple[int, int]] = []
        for p in range(pos.players):
            k = self.need[p]
            if math.comb(self.r, k) <= table_limit:
                combos = colex_combos(self.r, k)
                hands = np.empty((len(combos), pos.final_size(p)), dtype=np.int64)
                known = pos.known(p)
                hands[:, : len(known)] = known
                hands[:, len(known) :] = self.unseen[combos]
                blocks.append(hands)
                owners.append((p, len(combos)))
                self.combos.append(combos)
            else:
                self.combos.append(None)
            self.main.append(None)
            self.low.append(None)
        for width in sorted({b.shape[1] for b in blocks}):  # one batch call (per hand size)
            same = [i for i, b in enumerate(blocks) if b.shape[1] == width]
            main, low = score_stud(pos.game, np.concatenate([blocks[i] for i in same]))
            at = 0
            for i in same:
                p, m = owners[i]
                self.main[p] = main[at : at + m]
                self.low[p] = low[at : at + m]
                at += m

    def masks(self, p: int) -> npt.NDArray[np.uint64]:
        """Bit masks (bit i: unseen card i) of player ``p``'s completions, by table row."""
        cached = self._masks.get(p)
        if cached is None:
            combos = self.combos[p]
            assert combos is not None
            cached = np.zeros(len(combos), dtype=np.uint64)
            for j in range(combos.shape[1]):
                cached |= np.left_shift(np.uint64(1), combos[:, j].astype(np.uint64))
            self._masks[p] = cached
        return cached

    def sample(self, rng: np.random.Generator, n: int) -> tuple[I64, I64]:
        """Values (P, n) of ``n`` random deals, every player tabled.

        Each player's completion is a uniform table row, redrawn where it meets the cards
        already given to the players before him. The number of completions disjoint from any
        given earlier cards depends only on how many they are, so this is uniform over deals.
        """
        players = len(self.need)
        main = np.empty((players, n), dtype=np.int64)
        low = np.empty_like(main)
        used = np.zeros(n, dtype=np.uint64)
        for p in sorted(range(players), key=lambda q: -self.need[q]):
            masks = self.masks(p)
            m = len(masks)
            idx = rng.integers(0, m, n)
            got = masks[idx]
            redo = np.flatnonzero(got & used)
            while len(redo):
                fresh = rng.integers(0, m, len(redo))
                idx[redo] = fresh
                got[redo] = masks[fresh]
                redo = redo[(masks[fresh] & used[redo]) != 0]
            used |= got
            table, lows = self.main[p], self.low[p]
            assert table is not None and lows is not None
            main[p] = table[idx]
            low[p] = lows[idx]
        return main, low

    def values(self, p: int, idx: IntArray) -> tuple[I64, I64]:
        """Values of player ``p`` given his new cards as unseen indices (N, k), any order."""
        table = self.main[p]
        if table is not None:
            k = idx.shape[1]
            s = np.sort(idx, axis=1) if k > 1 else idx
            rank = colex_rank(s, self.binom)
            low = self.low[p]
            assert low is not None
            return table[rank], low[rank]
        known = self.pos.known(p)
        hands = np.empty((idx.shape[0], self.pos.final_size(p)), dtype=np.int64)
        hands[:, : len(known)] = known
        hands[:, len(known) :] = self.unseen[idx]
        return score_stud(self.pos.game, hands)
