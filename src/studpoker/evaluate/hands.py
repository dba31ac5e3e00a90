"""The scalar evaluators' results: ``HighHand``, ``LowHand`` and the high-hand ``Category``.

A hand is known by its value; the five cards used and the name are worked out only when asked.
"""

from __future__ import annotations

import bisect
import enum
from collections.abc import Iterable
from typing import Any

from studpoker.cards import ALL_CARDS, RANK_NAMES, RANK_PLURALS, Card
from studpoker.evaluate._keys import fives_of_value
from studpoker.evaluate._tables import WORST_QUALIFIER

__all__ = ["HIGH_VALUES", "LOW_VALUES", "WHEEL_VALUE", "Category", "HighHand", "LowHand"]


class Category(enum.IntEnum):
    """High-hand categories, worst to best."""

    HIGH_CARD = 0
    PAIR = 1
    TWO_PAIR = 2
    THREE_OF_A_KIND = 3
    STRAIGHT = 4
    FLUSH = 5
    FULL_HOUSE = 6
    FOUR_OF_A_KIND = 7
    STRAIGHT_FLUSH = 8

    @property
    def display(self) -> str:
        """The category as players say it, e.g. ``Full House``."""
        return _CATEGORY_NAMES[self]


_CATEGORY_NAMES = (
    "High Card", "Pair", "Two Pair", "Three of a Kind", "Straight",
    "Flush", "Full House", "Four of a Kind", "Straight Flush",
)  # fmt: skip
_CATEGORIES = tuple(Category)  # by value: a look-up, cheaper than calling the enum
# The first value of each category (values run 1..7462 from 7-5-4-3-2 to a royal flush).
_CATEGORY_STARTS = (1, 1278, 4138, 4996, 5854, 5864, 7141, 7297, 7453)
HIGH_VALUES = 7462
LOW_VALUES = 6175
WHEEL_VALUE = 6175


def _low_rank(rank: int) -> int:
    return 1 if rank == 12 else rank + 2


def _low_order(cards: Iterable[int]) -> list[tuple[int, int]]:
    """Sort key of a low's choice of five: the least is the lowest cards, then by suit."""
    return sorted((_low_rank(c >> 2), c & 3) for c in cards)


_LOW_NAMES = ("", "Ace", *RANK_NAMES[:12])
_LOW_PLURALS = ("", "Aces", *RANK_PLURALS[:12])


def _sorted_desc(cards: Iterable[int]) -> tuple[int, ...]:
    return tuple(sorted((int(c) for c in cards), reverse=True))


class _RankedHand:
    """A hand known by its ``value``: hands of one kind order by it (greater is better).

    Only hands of the same class compare: a high hand and a low hand are different scales.
    ``cards`` and ``name`` are left to the subclass and computed when first asked for.
    """

    __slots__ = ("_cards", "_source", "_value")

    _value: int
    _source: tuple[Any, ...]
    _cards: tuple[Card, ...] | None

    def __init__(self, value: int, source: tuple[Any, ...]) -> None:
        self._value = value
        self._source = source
        self._cards = None

    @property
    def value(self) -> int:
        """The hand's strength as an int: greater is better, equal values tie."""
        return self._value

    def _other_value(self, other: object) -> int | None:
        if type(other) is type(self):
            return other._value
        return None

    def __lt__(self, other: object) -> bool:
        value = self._other_value(other)
        return NotImplemented if value is None else self._value < value

    def __le__(self, other: object) -> bool:
        value = self._other_value(other)
        return NotImplemented if value is None else self._value <= value

    def __gt__(self, other: object) -> bool:
        value = self._other_value(other)
        return NotImplemented if value is None else self._value > value

    def __ge__(self, other: object) -> bool:
        value = self._other_value(other)
        return NotImplemented if value is None else self._value >= value

    def __eq__(self, other: object) -> bool:
        value = self._other_value(other)
        return NotImplemented if value is None else self._value == value

    def __hash__(self) -> int:
        return hash((type(self).__name__, self._value))


class HighHand(_RankedHand):
    """The best 5-card high hand: compares by ``value`` (1 to 7,462; greater is better).

    ``cards`` and ``name`` are computed when first asked for.
    """

    __slots__ = ()

    @property
    def category(self) -> Category:
        return _CATEGORIES[bisect.bisect_right(_CATEGORY_STARTS, self.value) - 1]

    @property
    def cards(self) -> tuple[Card, ...]:
        """The five cards used, best first for display (e.g. trips before the pair).

        When several choices of five give the same value, the one with the highest cards
        by suit is used (compare the codes, highest first).
        """
        if self._cards is None:
            if len(self._source) == 5:
                best: tuple[int, ...] = _sorted_desc(self._source)
            else:
                fives = fives_of_value(self._source, self.value, low=False)
                best = max(_sorted_desc(combo) for combo in fives)
            self._cards = _display_high(best, self.category)
        return self._cards

    @property
    def name(self) -> str:
        """The hand as players say it, e.g. ``Full House, Kings full of Sevens``."""
        return _name_high(self.cards, self.category)

    def __repr__(self) -> str:
        return f"HighHand({self.name!r}, {' '.join(map(str, self.cards))}, value={self.value})"

    def __str__(self) -> str:
        return self.name


def _display_high(codes: tuple[int, ...], category: Category) -> tuple[Card, ...]:
    counts = [0] * 13
    for c in codes:
        counts[c >> 2] += 1
    ordered = sorted(codes, key=lambda c: (counts[c >> 2], c), reverse=True)
    if category in (Category.STRAIGHT, Category.STRAIGHT_FLUSH) and ordered[1] >> 2 == 3:
        ordered = [*ordered[1:], ordered[0]]  # the wheel: 5-4-3-2-A
    return tuple([ALL_CARDS[c] for c in ordered])  # valid codes: the Card of each, unchecked


def _name_high(cards: tuple[Card, ...], category: Category) -> str:
    r = [c.rank for c in cards]
    if category == Category.STRAIGHT_FLUSH:
        return "Royal Flush" if r[0] == 12 else f"Straight Flush, {RANK_NAMES[r[0]]} high"
    if category == Category.FOUR_OF_A_KIND:
        return f"Four of a Kind, {RANK_PLURALS[r[0]]}"
    if category == Category.FULL_HOUSE:
        return f"Full House, {RANK_PLURALS[r[0]]} full of {RANK_PLURALS[r[3]]}"
    if category == Category.FLUSH:
        return f"Flush, {RANK_NAMES[r[0]]} high"
    if category == Category.STRAIGHT:
        return f"Straight, {RANK_NAMES[r[0]]} high"
    if category == Category.THREE_OF_A_KIND:
        return f"Three of a Kind, {RANK_PLURALS[r[0]]}"
    if category == Category.TWO_PAIR:
        return f"Two Pair, {RANK_PLURALS[r[0]]} and {RANK_PLURALS[r[2]]}"
    if category == Category.PAIR:
        return f"Pair of {RANK_PLURALS[r[0]]}"
    return f"High Card, {RANK_NAMES[r[0]]}"


class LowHand(_RankedHand):
    """An ace-to-five low: compares by ``value`` (1 to 6,175; greater is better).

    Razz and eight-or-better lows share this scale, so they compare with each other;
    the wheel (5-4-3-2-A) is 6,175.
    """

    __slots__ = ()

    @property
    def cards(self) -> tuple[Card, ...]:
        """The five cards used, highest first (pairs first, aces low).

        When several choices of five give the same value, the one with the lowest cards by
        suit is used.
        """
        if self._cards is None:
            if len(self._source) == 5:
                chosen: tuple[int, ...] = tuple(int(c) for c in self._source)
            else:
                fives = fives_of_value(self._source, self.value, low=True)
                chosen = min((tuple(int(c) for c in combo) for combo in fives), key=_low_order)
            counts = [0] * 14
            for c in chosen:
                counts[_low_rank(c >> 2)] += 1
            ordered = sorted(chosen, key=lambda c: (-counts[_low_rank(c >> 2)], -_low_rank(c >> 2), c & 3))
            self._cards = tuple([ALL_CARDS[c] for c in ordered])
        return self._cards

    @property
    def ranks(self) -> tuple[int, ...]:
        """The five ranks, high to low, ace as 1 (e.g. ``(7, 5, 4, 2, 1)``)."""
        return tuple(sorted((_low_rank(c.rank) for c in self.cards), reverse=True))

    @property
    def qualifies(self) -> bool:
        """True for an eight-or-better low (five different ranks, eight or lower)."""
        return self.value >= WORST_QUALIFIER

    @property
    def name(self) -> str:
        """``Wheel``, ``Seven-Five low``, ``Pair of Nines``, ``King-Queen low``..."""
        cards = self.cards
        lr = [_low_rank(c.rank) for c in cards]
        distinct = len(set(lr))
        if distinct == 5:
            if lr == [5, 4, 3, 2, 1]:
                return "Wheel"
            return f"{_LOW_NAMES[lr[0]]}-{_LOW_NAMES[lr[1]]} low"
        if distinct == 4:
            return f"Pair of {_LOW_PLURALS[lr[0]]}"
        if distinct == 3:
            if lr[0] == lr[2]:
                return f"Three of a Kind, {_LOW_PLURALS[lr[0]]}"
            return f"Two Pair, {_LOW_PLURALS[lr[0]]} and {_LOW_PLURALS[lr[2]]}"
        if lr[0] == lr[3]:
            return f"Four of a Kind, {_LOW_PLURALS[lr[0]]}"
        return f"Full House, {_LOW_PLURALS[lr[0]]} full of {_LOW_PLURALS[lr[3]]}"

    def __repr__(self) -> str:
        return f"LowHand({self.name!r}, {' '.join(map(str, self.cards))}, value={self.value})"

    def __str__(self) -> str:
        return self.name
