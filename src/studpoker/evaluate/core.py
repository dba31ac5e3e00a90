"""Scalar evaluators: ``high``, ``low8``, ``razz``, ``omaha8`` and their bare values.

A hand's value is one dictionary lookup on the sum of its cards' keys (``_keys``); the result
types are in ``hands``. The 7-card case, the common one, sums the keys inline in each function:
a shared helper costs a call per hand (measured 2-6 % slower on Python 3.11).
"""

from __future__ import annotations

from collections.abc import Iterable
from itertools import combinations
from typing import Any

from studpoker.cards import CardError
from studpoker.evaluate._keys import (
    BIT,
    CARD_SHIFT,
    FLUSH_SUIT,
    KEY,
    LOOKUP_BITS,
    SUIT_SHIFT,
    as_tuple,
    bad_cards,
    flush_value,
    high_of_sum,
    key_sum,
)
from studpoker.evaluate._tables import HIGH_BY_SUM, RAZZ_BY_SUM, WORST_QUALIFIER
from studpoker.evaluate.hands import (
    Category,
    HighHand,
    LowHand,
    _low_order,
    _sorted_desc,
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


def high_value(cards: Iterable[int]) -> int:
    """The value of the best 5-card high hand (1 to 7,462; greater is better)."""
    if type(cards) is tuple and len(cards) == 7:  # the common case, inlined (see key_sum)
        t: tuple[Any, ...] = cards
        k = KEY
        a, b, c, d, e, f, g = t
        try:
            s: int = k[a] + k[b] + k[c] + k[d] + k[e] + k[f] + k[g]
        except (TypeError, IndexError):
            raise bad_cards(t, 5, 7, "high") from None
        if (s >> CARD_SHIFT).bit_count() != 7:
            raise bad_cards(t, 5, 7, "high")
    else:
        t = as_tuple(cards)
        s = key_sum(t, "high")
    if FLUSH_SUIT[(s >> SUIT_SHIFT) & 0xFFFF]:
        return flush_value(s, t)
    return HIGH_BY_SUM[s & LOOKUP_BITS]


def razz_value(cards: Iterable[int]) -> int:
    """The value of the best ace-to-five low (1 to 6,175; greater is better; 6,175 the wheel)."""
    if type(cards) is tuple and len(cards) == 7:  # the common case, inlined (see key_sum)
        t: tuple[Any, ...] = cards
        k = KEY
        a, b, c, d, e, f, g = t
        try:
            s: int = k[a] + k[b] + k[c] + k[d] + k[e] + k[f] + k[g]
        except (TypeError, IndexError):
            raise bad_cards(t, 5, 7, "razz") from None
        if (s >> CARD_SHIFT).bit_count() != 7:
            raise bad_cards(t, 5, 7, "razz")
    else:
        t = as_tuple(cards)
        s = key_sum(t, "razz")
    return RAZZ_BY_SUM[s & LOOKUP_BITS]


def low8_value(cards: Iterable[int]) -> int:
    """The razz value of the best eight-or-better low, or 0 when there is none."""
    if type(cards) is tuple and len(cards) == 7:  # the common case, inlined (see key_sum)
        t: tuple[Any, ...] = cards
        k = KEY
        a, b, c, d, e, f, g = t
        try:
            s: int = k[a] + k[b] + k[c] + k[d] + k[e] + k[f] + k[g]
        except (TypeError, IndexError):
            raise bad_cards(t, 5, 7, "low8") from None
        if (s >> CARD_SHIFT).bit_count() != 7:
            raise bad_cards(t, 5, 7, "low8")
    else:
        t = as_tuple(cards)
        s = key_sum(t, "low8")
    v = RAZZ_BY_SUM[s & LOOKUP_BITS]
    return v if v >= WORST_QUALIFIER else 0


def high(cards: Iterable[int]) -> HighHand:
    """The best 5-card high hand of 5 to 7 cards (``Card`` objects or codes).

    >>> from studpoker.cards import parse_cards
    >>> hand = high(parse_cards("Kh Kd 7s 7c Ks 2d 3h"))
    >>> hand.name, hand.category.display
    ('Full House, Kings full of Sevens', 'Full House')
    >>> hand > high(parse_cards("As Ks Qs Js 9d 8c"))
    True
    """
    if type(cards) is tuple and len(cards) == 7:  # the common case, inlined (see key_sum)
        t: tuple[Any, ...] = cards
        k = KEY
        a, b, c, d, e, f, g = t
        try:
            s: int = k[a] + k[b] + k[c] + k[d] + k[e] + k[f] + k[g]
        except (TypeError, IndexError):
            raise bad_cards(t, 5, 7, "high") from None
        if (s >> CARD_SHIFT).bit_count() != 7:
            raise bad_cards(t, 5, 7, "high")
    else:
        t = as_tuple(cards)
        s = key_sum(t, "high")
    if FLUSH_SUIT[(s >> SUIT_SHIFT) & 0xFFFF]:
        return HighHand(flush_value(s, t), t)
    return HighHand(HIGH_BY_SUM[s & LOOKUP_BITS], t)


def razz(cards: Iterable[int]) -> LowHand:
    """The best ace-to-five low of 5 to 7 cards, no qualifier (pairs count against)."""
    if type(cards) is tuple and len(cards) == 7:  # the common case, inlined (see key_sum)
        t: tuple[Any, ...] = cards
        k = KEY
        a, b, c, d, e, f, g = t
        try:
            s: int = k[a] + k[b] + k[c] + k[d] + k[e] + k[f] + k[g]
        except (TypeError, IndexError):
            raise bad_cards(t, 5, 7, "razz") from None
        if (s >> CARD_SHIFT).bit_count() != 7:
            raise bad_cards(t, 5, 7, "razz")
    else:
        t = as_tuple(cards)
        s = key_sum(t, "razz")
    return LowHand(RAZZ_BY_SUM[s & LOOKUP_BITS], t)


def low8(cards: Iterable[int]) -> LowHand | None:
    """The best eight-or-better ace-to-five low of 5 to 7 cards, or None.

    >>> from studpoker.cards import parse_cards
    >>> low8(parse_cards("7c 5d 4h 2s Ac Kd Kh")).name
    'Seven-Five low'
    >>> low8(parse_cards("9c 5d 4h 2s Ac Kd Kh")) is None
    True
    """
    if type(cards) is tuple and len(cards) == 7:  # the common case, inlined (see key_sum)
        t: tuple[Any, ...] = cards
        k = KEY
        a, b, c, d, e, f, g = t
        try:
            s: int = k[a] + k[b] + k[c] + k[d] + k[e] + k[f] + k[g]
        except (TypeError, IndexError):
            raise bad_cards(t, 5, 7, "low8") from None
        if (s >> CARD_SHIFT).bit_count() != 7:
            raise bad_cards(t, 5, 7, "low8")
    else:
        t = as_tuple(cards)
        s = key_sum(t, "low8")
    v = RAZZ_BY_SUM[s & LOOKUP_BITS]
    return LowHand(v, t) if v >= WORST_QUALIFIER else None


def omaha8(hole: Iterable[int], board: Iterable[int]) -> tuple[HighHand, LowHand | None]:
    """Omaha hi/lo: the best high and the best eight-or-better low (or None), each made of
    exactly two of the four hole cards and three of the board cards (3 to 5 of them).
    """
    h = as_tuple(hole)
    b = as_tuple(board)
    if len(h) != 4:
        raise CardError(f"Omaha takes exactly 4 hole cards, not {len(h)}")
    if not 3 <= len(b) <= 5:
        raise CardError(f"an Omaha board has 3 to 5 cards, not {len(b)}")
    all_cards = h + b
    try:
        keys = [KEY[c] for c in all_cards]
        bits = 0
        for c in all_cards:
            bits |= BIT[c]
    except (TypeError, IndexError):
        raise bad_cards(all_cards, 7, 9, "omaha8") from None
    if bits.bit_count() != len(all_cards):
        raise bad_cards(all_cards, 7, 9, "omaha8")
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
            v = high_of_sum(s5, combo)
            if v > best_high:
                best_high, high_combos = v, [combo]
            elif v == best_high:
                high_combos.append(combo)
            lv = RAZZ_BY_SUM[s5 & LOOKUP_BITS]
            if lv >= WORST_QUALIFIER:
                if lv > best_low:
                    best_low, low_combos = lv, [combo]
                elif lv == best_low:
                    low_combos.append(combo)
    hi_hand = HighHand(best_high, max(high_combos, key=_sorted_desc))
    if not best_low:
        return hi_hand, None
    return hi_hand, LowHand(best_low, min(low_combos, key=_low_order))
