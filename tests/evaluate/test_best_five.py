"""The five cards a hand uses (``HighHand.cards``, ``LowHand.cards``) against a brute force.

The evaluator finds them by subtracting the two cards left out from the hand's key sum; the
brute force evaluates every choice of five on its own.
"""

from __future__ import annotations

import random
from itertools import combinations

from studpoker import evaluate
from studpoker.evaluate.hands import _display_high, _low_rank


def _brute_high(cards: tuple[int, ...]) -> tuple[int, ...]:
    value = evaluate.high_value(cards)
    best = max(
        tuple(sorted(combo, reverse=True))
        for combo in combinations(cards, 5)
        if evaluate.high_value(combo) == value
    )
    return tuple(int(c) for c in _display_high(best, evaluate.high(cards).category))


def _brute_low(cards: tuple[int, ...]) -> set[int]:
    value = evaluate.razz_value(cards)
    chosen = min(
        (combo for combo in combinations(cards, 5) if evaluate.razz_value(combo) == value),
        key=lambda combo: sorted((_low_rank(c >> 2), c & 3) for c in combo),
    )
    return set(chosen)


def _hands(rng: random.Random) -> list[tuple[int, ...]]:
    hands = [tuple(rng.sample(range(52), rng.choice([6, 7]))) for _ in range(3000)]
    # Flushes and straight flushes need a suit five times or more: deal from two suits.
    for _ in range(1000):
        suits = rng.sample(range(4), 2)
        pool = [4 * rank + suit for rank in range(13) for suit in suits]
        hands.append(tuple(rng.sample(pool, rng.choice([6, 7]))))
    return hands


def test_high_cards_match_brute_force() -> None:
    for cards in _hands(random.Random(4)):
        assert tuple(int(c) for c in evaluate.high(cards).cards) == _brute_high(cards), cards


def test_low_cards_match_brute_force() -> None:
    for cards in _hands(random.Random(5)):
        assert {int(c) for c in evaluate.razz(cards).cards} == _brute_low(cards), cards
        low = evaluate.low8(cards)
        if low is not None:
            assert {int(c) for c in low.cards} == _brute_low(cards), cards
