"""Differential tests: studpoker orders random hands exactly as PokerKit, treys and phevaluator do."""

from __future__ import annotations

import itertools
import random
from collections.abc import Sequence
from typing import Any

import eval7
import phevaluator
import pytest
import treys
from pokerkit import (
    EightOrBetterLowHand,
    OmahaEightOrBetterLowHand,
    OmahaHoldemHand,
    RegularLowHand,
    StandardHighHand,
)

from studpoker.cards import format_cards
from studpoker.evaluate import high_value, low8_value, omaha8, razz_value


def deal(rng: random.Random, n: int, size: int) -> list[list[int]]:
    return [rng.sample(range(52), size) for _ in range(n)]


def assert_same_order(ours: Sequence[int], theirs: Sequence[Any]) -> None:
    """Sorted by our values, neighbours must compare the same way under the peer's order.

    Both are total orders, so agreement on neighbours means agreement on every pair.
    """
    order = sorted(range(len(ours)), key=lambda i: ours[i])
    for a, b in itertools.pairwise(order):
        if ours[a] == ours[b]:
            assert theirs[a] == theirs[b], (a, b)
        else:
            assert theirs[a] < theirs[b], (a, b)


@pytest.mark.parametrize("size", [5, 6, 7])
def test_high_matches_pokerkit(size: int) -> None:
    hands = deal(random.Random(size), 1500, size)
    ours = [high_value(h) for h in hands]
    theirs = [StandardHighHand.from_game(format_cards(h)) for h in hands]
    assert_same_order(ours, theirs)


@pytest.mark.parametrize("size", [5, 6, 7])
def test_high_matches_treys_and_phevaluator_and_eval7(size: int) -> None:
    hands = deal(random.Random(100 + size), 4000, size)
    ours = [high_value(h) for h in hands]
    evaluator = treys.Evaluator()
    # treys and phevaluator: smaller is better
    t = [-evaluator.evaluate([], [treys.Card.new(s) for s in format_cards(h, " ").split()]) for h in hands]
    ph = [-phevaluator.evaluate_cards(*format_cards(h, " ").split()) for h in hands]
    e7 = [eval7.evaluate([eval7.Card(s) for s in format_cards(h, " ").split()]) for h in hands]
    assert_same_order(ours, t)
    assert_same_order(ours, ph)
    assert_same_order(ours, e7)


class _Low:
    """PokerKit low hand or None (no low), ordered with None lowest."""

    def __init__(self, hand: Any) -> None:
        self.hand = hand

    def __eq__(self, other: object) -> bool:
        assert isinstance(other, _Low)
        return bool(self.hand == other.hand)

    def __hash__(self) -> int:
        return hash(self.hand)

    def __lt__(self, other: _Low) -> bool:
        if self.hand is None:
            return other.hand is not None
        return other.hand is not None and bool(self.hand < other.hand)


@pytest.mark.parametrize("size", [5, 6, 7])
def test_low8_matches_pokerkit(size: int) -> None:
    rng = random.Random(200 + size)
    # bias towards low cards so that many hands qualify
    low_pool = [c for c in range(52) if c >> 2 <= 6 or c >> 2 == 12]
    hands = deal(rng, 1000, size) + [rng.sample(low_pool, size) for _ in range(1000)]
    ours = [low8_value(h) for h in hands]
    theirs = [_Low(EightOrBetterLowHand.from_game_or_none(format_cards(h))) for h in hands]
    assert all((o == 0) == (t.hand is None) for o, t in zip(ours, theirs, strict=True))
    assert_same_order(ours, theirs)


@pytest.mark.parametrize("size", [5, 6, 7])
def test_razz_matches_pokerkit(size: int) -> None:
    hands = deal(random.Random(300 + size), 2000, size)
    ours = [razz_value(h) for h in hands]
    theirs = [RegularLowHand.from_game(format_cards(h)) for h in hands]
    assert_same_order(ours, theirs)


@pytest.mark.parametrize("board_size", [3, 4, 5])
def test_omaha8_matches_pokerkit(board_size: int) -> None:
    rng = random.Random(400 + board_size)
    low_pool = [c for c in range(52) if c >> 2 <= 6 or c >> 2 == 12]
    deals = [rng.sample(range(52), 4 + board_size) for _ in range(400)]
    deals += [rng.sample(low_pool, 4 + board_size) for _ in range(400)]
    ours_high: list[int] = []
    ours_low: list[int] = []
    theirs_high: list[Any] = []
    theirs_low: list[_Low] = []
    for d in deals:
        hole, board = d[:4], d[4:]
        hi, lo = omaha8(hole, board)
        ours_high.append(hi.value)
        ours_low.append(0 if lo is None else lo.value)
        theirs_high.append(OmahaHoldemHand.from_game(format_cards(hole), format_cards(board)))
        theirs_low.append(
            _Low(OmahaEightOrBetterLowHand.from_game_or_none(format_cards(hole), format_cards(board)))
        )
        # the cards we name are a legal 2 + 3 choice with the value we claim
        assert len(set(hi.cards) & set(hole)) == 2 and len(set(hi.cards) & set(board)) == 3
        assert OmahaHoldemHand(format_cards(hi.cards)) == theirs_high[-1]
        if lo is not None:
            assert len(set(lo.cards) & set(hole)) == 2 and len(set(lo.cards) & set(board)) == 3
    assert sum(1 for v in ours_low if v) > 100
    assert_same_order(ours_high, theirs_high)
    assert_same_order(ours_low, theirs_low)
