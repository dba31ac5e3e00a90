"""Scalar evaluators: ``high``, ``low8``, ``razz``, ``omaha8`` and their result types.

A hand's value is one dictionary lookup. Each card has an integer key that packs four
fields into one Python int: the rank key (bits 0-22; the sum over the cards identifies the
rank multiset, see ``_build.rank_keys``), a 4-bit counter per suit at bit 24 + 4 * suit
(the sum tells whether five cards share a suit), a card counter at bit 40, and the card's
own bit at 43 + code (a repeated card makes a carry, so the sum has fewer bits set there).
The sum's rank and count fields index the value dictionary. The five cards used and the
name are worked out only when asked.
"""

from __future__ import annotations

import bisect
import enum
from collections.abc import Iterable
from itertools import combinations
from typing import Any

from studpoker.cards import RANK_NAMES, RANK_PLURALS, Card, CardError
from studpoker.evaluate._tables import (
    COUNT_SHIFT,
    FLUSH_LIST,
    FLUSH_SUIT_PLUS_ONE,
    HIGH_BY_SUM,
    RANK_KEYS,
    RAZZ_BY_SUM,
    WORST_QUALIFIER,
)

__all__ = [
    "Category",
    "HighHand",
    "LowHand",
    "high",
    "high_value",
    "low8",
    "low8_value",
    "omaha8",
    "razz",
    "razz_value",
]


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
# The first value of each category (values run 1..7462 from 7-5-4-3-2 to a royal flush).
_CATEGORY_STARTS = (1, 1278, 4138, 4996, 5854, 5864, 7141, 7297, 7453)
HIGH_VALUES = 7462
LOW_VALUES = 6175
WHEEL_VALUE = 6175

_SUIT_SHIFT = 24
_LOOKUP_BITS = ((1 << 23) - 1) | (7 << COUNT_SHIFT)  # rank-key sum and card count
# Keys for codes 0..51; indexes -52..-1 land on None so negative numbers fail like others.
_RANK_KEYS: list[int] = RANK_KEYS.tolist()
_CARD_SHIFT = 43
_KEY: list[Any] = [
    _RANK_KEYS[c >> 2] + (1 << (_SUIT_SHIFT + 4 * (c & 3))) + (1 << COUNT_SHIFT) + (1 << (_CARD_SHIFT + c))
    for c in range(52)
] + [None] * 52
_BIT: list[Any] = [1 << c for c in range(52)] + [None] * 52


def _low_rank(rank: int) -> int:
    return 1 if rank == 12 else rank + 2


_LOW_NAMES = ("", "Ace", *RANK_NAMES[:12])
_LOW_PLURALS = ("", "Aces", *RANK_PLURALS[:12])


def _bad_cards(cards: tuple[Any, ...], low: int, high: int, what: str) -> CardError:
    """The clear error for input that failed the fast checks."""
    for c in cards:
        if isinstance(c, bool) or not isinstance(c, int) or not 0 <= c < 52:
            return CardError(f"{c!r} is not a card (use a Card or a code from 0 to 51)")
    seen: set[int] = set()
    for c in cards:
        if int(c) in seen:
            return CardError(f"card {Card(int(c))} appears twice")
        seen.add(int(c))
    return CardError(f"{what} takes {low} to {high} cards, not {len(cards)}")


def _key_sum(cards: tuple[Any, ...], what: str) -> int:
    """The summed key of 5 to 7 distinct cards, or CardError."""
    k = _KEY
    n = len(cards)
    try:
        if n == 7:
            a, b, c, d, e, f, g = cards
            s: int = k[a] + k[b] + k[c] + k[d] + k[e] + k[f] + k[g]
        elif n == 6:
            a, b, c, d, e, f = cards
            s = k[a] + k[b] + k[c] + k[d] + k[e] + k[f]
        elif n == 5:
            a, b, c, d, e = cards
            s = k[a] + k[b] + k[c] + k[d] + k[e]
        else:
            raise _bad_cards(cards, 5, 7, what)
    except (TypeError, IndexError):
        raise _bad_cards(cards, 5, 7, what) from None
    if (s >> _CARD_SHIFT).bit_count() != n:
        raise _bad_cards(cards, 5, 7, what)
    return s


# For each 16-bit suit-counter field: 1 + the suit holding five or more cards, else 0.
_FLUSH_SUIT: list[int] = FLUSH_SUIT_PLUS_ONE.tolist()


def _flush_value(s: int, cards: Iterable[int]) -> int:
    """The best flush value of ``cards`` (key sum ``s``), five or more of which share a suit."""
    suit = _FLUSH_SUIT[(s >> _SUIT_SHIFT) & 0xFFFF] - 1
    mask = 0
    for c in cards:
        if c & 3 == suit:
            mask |= 1 << (c >> 2)
    return FLUSH_LIST[mask]


def _high_of_sum(s: int, cards: Iterable[int]) -> int:
    if _FLUSH_SUIT[(s >> _SUIT_SHIFT) & 0xFFFF]:
        return _flush_value(s, cards)
    return HIGH_BY_SUM[s & _LOOKUP_BITS]


def _as_tuple(cards: Iterable[Any]) -> tuple[Any, ...]:
    if type(cards) is tuple:
        return cards
    if isinstance(cards, str):
        raise CardError(f"give cards as Card objects or codes, not the text {cards!r} (see parse_cards)")
    return tuple(cards)


def high_value(cards: Iterable[int]) -> int:
    """The value of the best 5-card high hand (1 to 7,462; greater is better)."""
    if type(cards) is tuple and len(cards) == 7:  # the common case, inlined (see _key_sum)
        t: tuple[Any, ...] = cards
        k = _KEY
        a, b, c, d, e, f, g = t
        try:
            s: int = k[a] + k[b] + k[c] + k[d] + k[e] + k[f] + k[g]
        except (TypeError, IndexError):
            raise _bad_cards(t, 5, 7, "high") from None
        if (s >> _CARD_SHIFT).bit_count() != 7:
            raise _bad_cards(t, 5, 7, "high")
    else:
        t = _as_tuple(cards)
        s = _key_sum(t, "high")
    if _FLUSH_SUIT[(s >> _SUIT_SHIFT) & 0xFFFF]:
        return _flush_value(s, t)
    return HIGH_BY_SUM[s & _LOOKUP_BITS]


def razz_value(cards: Iterable[int]) -> int:
    """The value of the best ace-to-five low (1 to 6,175; greater is better; 6,175 the wheel)."""
    if type(cards) is tuple and len(cards) == 7:  # the common case, inlined (see _key_sum)
        t: tuple[Any, ...] = cards
        k = _KEY
        a, b, c, d, e, f, g = t
        try:
            s: int = k[a] + k[b] + k[c] + k[d] + k[e] + k[f] + k[g]
        except (TypeError, IndexError):
            raise _bad_cards(t, 5, 7, "razz") from None
        if (s >> _CARD_SHIFT).bit_count() != 7:
            raise _bad_cards(t, 5, 7, "razz")
    else:
        t = _as_tuple(cards)
        s = _key_sum(t, "razz")
    return RAZZ_BY_SUM[s & _LOOKUP_BITS]


def low8_value(cards: Iterable[int]) -> int:
    """The razz value of the best eight-or-better low, or 0 when there is none."""
    if type(cards) is tuple and len(cards) == 7:  # the common case, inlined (see _key_sum)
        t: tuple[Any, ...] = cards
        k = _KEY
        a, b, c, d, e, f, g = t
        try:
            s: int = k[a] + k[b] + k[c] + k[d] + k[e] + k[f] + k[g]
        except (TypeError, IndexError):
            raise _bad_cards(t, 5, 7, "low8") from None
        if (s >> _CARD_SHIFT).bit_count() != 7:
            raise _bad_cards(t, 5, 7, "low8")
    else:
        t = _as_tuple(cards)
        s = _key_sum(t, "low8")
    v = RAZZ_BY_SUM[s & _LOOKUP_BITS]
    return v if v >= WORST_QUALIFIER else 0


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
        return Category(bisect.bisect_right(_CATEGORY_STARTS, self.value) - 1)

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
                best = max(
                    _sorted_desc(combo)
                    for combo in combinations(self._source, 5)
                    if _high_of_sum(sum(_KEY[c] for c in combo), combo) == self.value
                )
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
    return tuple(Card(c) for c in ordered)


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
                chosen = min(
                    (
                        tuple(int(c) for c in combo)
                        for combo in combinations(self._source, 5)
                        if RAZZ_BY_SUM[sum(_KEY[c] for c in combo) & _LOOKUP_BITS] == self.value
                    ),
                    key=lambda combo: sorted((_low_rank(c >> 2), c & 3) for c in combo),
                )
            counts = [0] * 14
            for c in chosen:
                counts[_low_rank(c >> 2)] += 1
            ordered = sorted(chosen, key=lambda c: (-counts[_low_rank(c >> 2)], -_low_rank(c >> 2), c & 3))
            self._cards = tuple(Card(c) for c in ordered)
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


def high(cards: Iterable[int]) -> HighHand:
    """The best 5-card high hand of 5 to 7 cards (``Card`` objects or codes).

    >>> from studpoker.cards import parse_cards
    >>> hand = high(parse_cards("Kh Kd 7s 7c Ks 2d 3h"))
    >>> hand.name, hand.category.display
    ('Full House, Kings full of Sevens', 'Full House')
    >>> hand > high(parse_cards("As Ks Qs Js 9d 8c"))
    True
    """
    if type(cards) is tuple and len(cards) == 7:  # the common case, inlined (see _key_sum)
        t: tuple[Any, ...] = cards
        k = _KEY
        a, b, c, d, e, f, g = t
        try:
            s: int = k[a] + k[b] + k[c] + k[d] + k[e] + k[f] + k[g]
        except (TypeError, IndexError):
            raise _bad_cards(t, 5, 7, "high") from None
        if (s >> _CARD_SHIFT).bit_count() != 7:
            raise _bad_cards(t, 5, 7, "high")
    else:
        t = _as_tuple(cards)
        s = _key_sum(t, "high")
    if _FLUSH_SUIT[(s >> _SUIT_SHIFT) & 0xFFFF]:
        return HighHand(_flush_value(s, t), t)
    return HighHand(HIGH_BY_SUM[s & _LOOKUP_BITS], t)


def razz(cards: Iterable[int]) -> LowHand:
    """The best ace-to-five low of 5 to 7 cards, no qualifier (pairs count against)."""
    if type(cards) is tuple and len(cards) == 7:  # the common case, inlined (see _key_sum)
        t: tuple[Any, ...] = cards
        k = _KEY
        a, b, c, d, e, f, g = t
        try:
            s: int = k[a] + k[b] + k[c] + k[d] + k[e] + k[f] + k[g]
        except (TypeError, IndexError):
            raise _bad_cards(t, 5, 7, "razz") from None
        if (s >> _CARD_SHIFT).bit_count() != 7:
            raise _bad_cards(t, 5, 7, "razz")
    else:
        t = _as_tuple(cards)
        s = _key_sum(t, "razz")
    return LowHand(RAZZ_BY_SUM[s & _LOOKUP_BITS], t)


def low8(cards: Iterable[int]) -> LowHand | None:
    """The best eight-or-better ace-to-five low of 5 to 7 cards, or None.

    >>> from studpoker.cards import parse_cards
    >>> low8(parse_cards("7c 5d 4h 2s Ac Kd Kh")).name
    'Seven-Five low'
    >>> low8(parse_cards("9c 5d 4h 2s Ac Kd Kh")) is None
    True
    """
    if type(cards) is tuple and len(cards) == 7:  # the common case, inlined (see _key_sum)
        t: tuple[Any, ...] = cards
        k = _KEY
        a, b, c, d, e, f, g = t
        try:
            s: int = k[a] + k[b] + k[c] + k[d] + k[e] + k[f] + k[g]
        except (TypeError, IndexError):
            raise _bad_cards(t, 5, 7, "low8") from None
        if (s >> _CARD_SHIFT).bit_count() != 7:
            raise _bad_cards(t, 5, 7, "low8")
    else:
        t = _as_tuple(cards)
        s = _key_sum(t, "low8")
    v = RAZZ_BY_SUM[s & _LOOKUP_BITS]
    return LowHand(v, t) if v >= WORST_QUALIFIER else None


def omaha8(hole: Iterable[int], board: Iterable[int]) -> tuple[HighHand, LowHand | None]:
    """Omaha hi/lo: the best high and the best eight-or-better low (or None), each made of
    exactly two of the four hole cards and three of the board cards (3 to 5 of them).
    """
    h = _as_tuple(hole)
    b = _as_tuple(board)
    if len(h) != 4:
        raise CardError(f"Omaha takes exactly 4 hole cards, not {len(h)}")
    if not 3 <= len(b) <= 5:
        raise CardError(f"an Omaha board has 3 to 5 cards, not {len(b)}")
    all_cards = h + b
    try:
        keys = [_KEY[c] for c in all_cards]
        bits = 0
        for c in all_cards:
            bits |= _BIT[c]
    except (TypeError, IndexError):
        raise _bad_cards(all_cards, 7, 9, "omaha8") from None
    if bits.bit_count() != len(all_cards):
        raise _bad_cards(all_cards, 7, 9, "omaha8")
    hk = keys[:4]
    bk = keys[4:]
    best_high = 0
    best_low = 0
    high_combos: list[tuple[Any, ...]] = []
    low_combos: list[tuple[Any, ...]] = []
    for i, j in combinations(range(4), 2):
        hs = hk[i] + hk[j]
        for x, y, z in combinations(range(len(b)), 3):
            s5 = hs + bk[x] + bk[y] + bk[z]
            combo = (h[i], h[j], b[x], b[y], b[z])
            v = _high_of_sum(s5, combo)
            if v > best_high:
                best_high, high_combos = v, [combo]
            elif v == best_high:
                high_combos.append(combo)
            lv = RAZZ_BY_SUM[s5 & _LOOKUP_BITS]
            if lv >= WORST_QUALIFIER:
                if lv > best_low:
                    best_low, low_combos = lv, [combo]
                elif lv == best_low:
                    low_combos.append(combo)
    hi_hand = HighHand(best_high, max(high_combos, key=_sorted_desc))
    if not best_low:
        return hi_hand, None
    low_choice = min(low_combos, key=lambda combo: sorted((_low_rank(c >> 2), c & 3) for c in combo))
    return hi_hand, LowHand(best_low, low_choice)
