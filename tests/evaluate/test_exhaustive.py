"""Exhaustive proofs: every 5-card and every 7-card hand, counted by category."""

from __future__ import annotations

import itertools
from math import comb

import numpy as np
import pytest

from studpoker.evaluate import Category, batch_high, batch_low8, batch_razz, high
from studpoker.evaluate._tables import TABLES

# The first value of each category, from the scalar API's own categories.
STARTS = np.array([1, 1278, 4138, 4996, 5854, 5864, 7141, 7297, 7453])

FIVE = {
    Category.STRAIGHT_FLUSH: 40,
    Category.FOUR_OF_A_KIND: 624,
    Category.FULL_HOUSE: 3744,
    Category.FLUSH: 5108,
    Category.STRAIGHT: 10200,
    Category.THREE_OF_A_KIND: 54912,
    Category.TWO_PAIR: 123552,
    Category.PAIR: 1098240,
    Category.HIGH_CARD: 1302540,
}
SEVEN = {
    Category.STRAIGHT_FLUSH: 41584,
    Category.FOUR_OF_A_KIND: 224848,
    Category.FULL_HOUSE: 3473184,
    Category.FLUSH: 4047644,
    Category.STRAIGHT: 6180020,
    Category.THREE_OF_A_KIND: 6461620,
    Category.TWO_PAIR: 31433400,
    Category.PAIR: 58627800,
    Category.HIGH_CARD: 23294460,
}


def all_combinations(n: int, k: int) -> np.ndarray:
    """All k-subsets of range(n) as rows, in lexicographic order (built column by column)."""
    rows = np.arange(n, dtype=np.uint8)[:, None]
    for _ in range(k - 1):
        last = rows[:, -1].astype(np.int64)
        extend = n - 1 - last  # how many larger cards each row can take next
        parent = np.repeat(np.arange(len(rows)), extend)
        offset = np.arange(len(parent)) - np.repeat(np.cumsum(extend) - extend, extend)
        rows = np.hstack([rows[parent], (last[parent] + 1 + offset).astype(np.uint8)[:, None]])
    return rows


def test_all_combinations_is_itertools() -> None:
    assert all_combinations(9, 4).tolist() == [list(c) for c in itertools.combinations(range(9), 4)]


@pytest.fixture(scope="module")
def five_cards() -> np.ndarray:
    return all_combinations(52, 5)


def by_category(values: np.ndarray) -> dict[Category, int]:
    counts = np.bincount(np.searchsorted(STARTS, values, side="right") - 1, minlength=9)
    return {Category(i): int(c) for i, c in enumerate(counts)}


def test_all_five_card_hands(five_cards: np.ndarray) -> None:
    values = batch_high(five_cards)
    assert len(values) == comb(52, 5) == 2_598_960
    assert by_category(values) == FIVE
    assert len(np.unique(values)) == 7462
    assert values.min() == 1 and values.max() == 7462
    # the scalar categories agree with the value ranges on a sample of every category
    for cat in Category:
        rows = np.flatnonzero((values >= STARTS[cat]) & (values < ([*STARTS[1:], 7463])[cat]))
        assert high(five_cards[rows[len(rows) // 2]].tolist()).category == cat


def test_all_five_card_lows(five_cards: np.ndarray) -> None:
    razz = batch_razz(five_cards)
    low8 = batch_low8(five_cards)
    assert len(np.unique(razz)) == 6175  # rank multisets of five (no five of a kind)
    assert len(np.unique(low8[low8 > 0])) == 56  # C(8, 5) eight-or-better lows
    assert int((low8 > 0).sum()) == comb(8, 5) * 4**5
    assert np.array_equal(low8 > 0, razz >= razz[low8 > 0].min())
    wheel = razz.max()
    assert int((razz == wheel).sum()) == 4**5


def expected_low8_sevens() -> int:
    """Seven-card hands holding five different ranks of eight or lower, counted over rank multisets."""
    counts = TABLES["counts7"].astype(np.int64)
    low_ranks = [12, 0, 1, 2, 3, 4, 5, 6]  # ace, deuce .. eight
    distinct_low = (counts[:, low_ranks] > 0).sum(axis=1)
    ways = np.prod(np.array([comb(4, c) for c in range(5)])[counts], axis=1)
    return int(ways[distinct_low >= 5].sum())


def seven_card_histograms(five_cards: np.ndarray) -> dict[str, np.ndarray]:
    """Evaluate all 133,784,560 seven-card hands: two leading cards, then five higher ones."""
    first = np.searchsorted(five_cards[:, 0], np.arange(53))  # rows starting at or above a card
    high_hist = np.zeros(7463, dtype=np.int64)
    low8_hist = np.zeros(6176, dtype=np.int64)
    total = 0
    for a in range(52):
        for b in range(a + 1, 52):
            rest = five_cards[first[b + 1] :]
            if not len(rest):
                continue
            hands = np.empty((len(rest), 7), dtype=np.uint8)
            hands[:, 0] = a
            hands[:, 1] = b
            hands[:, 2:] = rest
            high_hist += np.bincount(batch_high(hands, check=False), minlength=7463)
            low8_hist += np.bincount(batch_low8(hands, check=False), minlength=6176)
            total += len(hands)
    return {"high": high_hist, "low8": low8_hist, "total": np.array([total])}


def test_all_seven_card_hands(five_cards: np.ndarray) -> None:
    """One test (not two sharing a fixture) so that pytest-xdist never enumerates twice."""
    seven = seven_card_histograms(five_cards)
    assert int(seven["total"][0]) == comb(52, 7) == 133_784_560
    hist = seven["high"]
    assert hist[0] == 0
    counts = np.add.reduceat(hist[1:], STARTS - 1)
    assert {Category(i): int(c) for i, c in enumerate(counts)} == SEVEN
    assert int((hist > 0).sum()) == 4824  # distinct best-of-seven values (no 7-high hands)
    lows = seven["low8"]
    assert int(lows[1:].sum()) == expected_low8_sevens()
    assert int((lows[1:] > 0).sum()) == 56
