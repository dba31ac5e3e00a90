"""The card keys the scalar evaluators sum, the checks on their input and the flush look-up.

Each card has an integer key that packs four fields into one Python int: the rank key (bits
0-22; the sum over the cards identifies the rank multiset, see ``_build.rank_keys``), a 4-bit
counter per suit at bit 24 + 4 * suit (the sum tells whether five cards share a suit), a card
counter at bit 40, and the card's own bit at 43 + code (a repeated card makes a carry, so the
sum has fewer bits set there). The sum's rank and count fields index the value dictionaries.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from itertools import combinations
from operator import itemgetter
from typing import Any

from studpoker.cards import Card, CardError
from studpoker.evaluate._tables import (
    COUNT_SHIFT,
    FLUSH_LIST,
    FLUSH_SUIT_PLUS_ONE,
    HIGH_BY_SUM,
    RANK_KEYS,
    RAZZ_BY_SUM,
)

SUIT_SHIFT = 24
LOOKUP_BITS = ((1 << 23) - 1) | (7 << COUNT_SHIFT)  # rank-key sum and card count
CARD_SHIFT = 43
_RANK_KEYS: list[int] = RANK_KEYS.tolist()
# Keys for codes 0..51; indexes -52..-1 land on None so negative numbers fail like others.
KEY: list[Any] = [
    _RANK_KEYS[c >> 2] + (1 << (SUIT_SHIFT + 4 * (c & 3))) + (1 << COUNT_SHIFT) + (1 << (CARD_SHIFT + c))
    for c in range(52)
] + [None] * 52
BIT: list[Any] = [1 << c for c in range(52)] + [None] * 52
# For each 16-bit suit-counter field: 1 + the suit holding five or more cards, else 0.
FLUSH_SUIT: list[int] = FLUSH_SUIT_PLUS_ONE.tolist()


def bad_cards(cards: tuple[Any, ...], low: int, high: int, what: str) -> CardError:
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


def as_tuple(cards: Iterable[Any]) -> tuple[Any, ...]:
    if type(cards) is tuple:
        return cards
    if isinstance(cards, str):
        raise CardError(f"give cards as Card objects or codes, not the text {cards!r} (see parse_cards)")
    return tuple(cards)


def key_sum(cards: tuple[Any, ...], what: str) -> int:
    """The summed key of 5 to 7 distinct cards, or CardError."""
    k = KEY
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
            raise bad_cards(cards, 5, 7, what)
    except (TypeError, IndexError):
        raise bad_cards(cards, 5, 7, what) from None
    if (s >> CARD_SHIFT).bit_count() != n:
        raise bad_cards(cards, 5, 7, what)
    return s


def flush_value(s: int, cards: Iterable[int]) -> int:
    """The best flush value of ``cards`` (key sum ``s``), five or more of which share a suit."""
    suit = FLUSH_SUIT[(s >> SUIT_SHIFT) & 0xFFFF] - 1
    mask = 0
    for c in cards:
        if c & 3 == suit:
            mask |= 1 << (c >> 2)
    return FLUSH_LIST[mask]


def high_of_sum(s: int, cards: Iterable[int]) -> int:
    if FLUSH_SUIT[(s >> SUIT_SHIFT) & 0xFFFF]:
        return flush_value(s, cards)
    return HIGH_BY_SUM[s & LOOKUP_BITS]


# Each choice of five cards out of six or seven: a getter of the five kept and the two positions
# left out (a choice's key sum is the hand's less theirs; six cards get a seventh key of 0).
_Five = tuple[Callable[[tuple[Any, ...]], tuple[Any, ...]], int, int]


def _choices_of_five(n: int) -> tuple[_Five, ...]:
    choices: list[_Five] = []
    for kept in combinations(range(n), 5):
        a, b = [p for p in range(7) if p not in kept][:2]
        choices.append((itemgetter(*kept), a, b))
    return tuple(choices)


_FIVES: dict[int, tuple[_Five, ...]] = {n: _choices_of_five(n) for n in (6, 7)}


def fives_of_value(source: tuple[Any, ...], value: int, *, low: bool) -> list[tuple[Any, ...]]:
    """Every choice of five of ``source`` (six or seven distinct cards) worth ``value``: its
    razz value when ``low``, else its high value. For naming a hand (its five cards)."""
    keys = [KEY[c] for c in source]
    total = sum(keys)
    keys.append(0)  # position 6 of a six-card hand: left out of every choice
    flush_suit, high_by_sum, razz_by_sum = FLUSH_SUIT, HIGH_BY_SUM, RAZZ_BY_SUM
    found: list[tuple[Any, ...]] = []
    for take, a, b in _FIVES[len(source)]:
        s = total - keys[a] - keys[b]
        if low:
            v = razz_by_sum[s & LOOKUP_BITS]
        elif flush_suit[(s >> SUIT_SHIFT) & 0xFFFF]:
            v = flush_value(s, take(source))
        else:
            v = high_by_sum[s & LOOKUP_BITS]
        if v == value:
            found.append(take(source))
    return found
