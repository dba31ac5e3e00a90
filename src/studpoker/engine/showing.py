"""Who brings in and who acts first in stud: ranking the up cards ("showing hands").

Up to four up cards are ranked as a poker board: for high (7S, 7S8) quads > trips > two pair >
pair > high cards, then the ranks of the groups and the kickers; for razz the best low board,
ace low, pairs (and worse) count against. Suits never break these ties (the caller breaks
exact ties by seat).
"""

from __future__ import annotations

from collections.abc import Sequence

# Category by the sorted group sizes of up to four cards.
_HIGH_CATEGORY = {
    (): 0,
    (1,): 0,
    (1, 1): 0,
    (1, 1, 1): 0,
    (1, 1, 1, 1): 0,
    (2,): 1,
    (2, 1): 1,
    (2, 1, 1): 1,
    (2, 2): 2,
    (3,): 3,
    (3, 1): 3,
    (4,): 4,
}


def _groups(ranks: Sequence[int]) -> list[tuple[int, int]]:
    counts: dict[int, int] = {}
    for r in ranks:
        counts[r] = counts.get(r, 0) + 1
    return sorted(((n, r) for r, n in counts.items()), reverse=True)


_HIGH_KEYS: dict[tuple[int, ...], tuple[int, ...]] = {}
_LOW_KEYS: dict[tuple[int, ...], tuple[int, ...]] = {}


def high_showing_key(cards: Sequence[int]) -> tuple[int, ...]:
    """Greater is better: (category, group ranks by size then rank...). Ace is high (rank 12)."""
    ranks = tuple(sorted([c >> 2 for c in cards]))
    key = _HIGH_KEYS.get(ranks)
    if key is None:
        key = _HIGH_KEYS[ranks] = _high_key(ranks)
    return key


def _high_key(ranks: Sequence[int]) -> tuple[int, ...]:
    groups = _groups(ranks)
    shape = tuple(n for n, _ in groups)
    return (_HIGH_CATEGORY[shape], *(r for _, r in groups))


def low_showing_key(cards: Sequence[int]) -> tuple[int, ...]:
    """Greater is better for razz: fewer pairs first, then the lowest cards from the top down.

    Ranks are ace-low (ace 0, king 12). Unpaired boards beat paired ones; a pair beats two
    pair, which beats trips, which beats quads; within a shape, compare the groups (largest
    first) and then the kickers from the highest down, lower being better.
    """
    ranks = tuple(sorted([((c >> 2) + 1) % 13 for c in cards]))
    key = _LOW_KEYS.get(ranks)
    if key is None:
        key = _LOW_KEYS[ranks] = _low_key(ranks)
    return key


def _low_key(ranks: Sequence[int]) -> tuple[int, ...]:
    groups = _groups(ranks)
    shape = tuple(n for n, _ in groups)
    badness = _HIGH_CATEGORY[shape]
    # Within equal shape, order the groups by size then rank (high first) and negate: lower wins.
    return (-badness, *(-r for _, r in groups))


def bring_in_key(card: int, *, razz: bool, by_suit: bool) -> tuple[int, int]:
    """Smaller key brings in. 7S/7S8: lowest card (ace high), clubs lowest; razz: highest card
    (king high, ace low), spades highest. Without ``by_suit`` only the rank counts (ties go by
    position, decided by the caller)."""
    rank, suit = card >> 2, card & 3
    if razz:
        low_rank = (rank + 1) % 13
        return (-low_rank, -suit if by_suit else 0)
    return (rank, suit if by_suit else 0)


# The hand keeps each player's up cards also as a *signature*: the sum of 16**rank over his up
# cards (a count per rank, order-free). Ranking a board is then one cached look-up per player.
# The caches are public so that the hand can look a key up in place (no call when known).
RANK_UNIT: tuple[int, ...] = tuple(1 << 4 * (code >> 2) for code in range(52))
HIGH_BY_SIGNATURE: dict[int, tuple[int, ...]] = {}
LOW_BY_SIGNATURE: dict[int, tuple[int, ...]] = {}


def _cards_of_signature(signature: int) -> list[int]:
    """Cards of the ranks a signature counts (suits do not matter to the showing keys)."""
    return [4 * rank for rank in range(13) for _ in range((signature >> 4 * rank) & 15)]


def high_signature_key(signature: int) -> tuple[int, ...]:
    """:func:`high_showing_key` of the up cards with this signature."""
    key = HIGH_BY_SIGNATURE.get(signature)
    if key is None:
        key = HIGH_BY_SIGNATURE[signature] = high_showing_key(_cards_of_signature(signature))
    return key


def low_signature_key(signature: int) -> tuple[int, ...]:
    """:func:`low_showing_key` of the up cards with this signature."""
    key = LOW_BY_SIGNATURE.get(signature)
    if key is None:
        key = LOW_BY_SIGNATURE[signature] = low_showing_key(_cards_of_signature(signature))
    return key


# The hot path compares boards as ints: each key as a number whose order is the tuples' order
# (every element shifted into 1..27, five bits each, a missing element 0 so that a prefix
# comes first, as with tuples).
_RANK_DIGITS = 6  # a key has at most five elements; one more keeps the prefix rule
HIGH_RANK_BY_SIGNATURE: dict[int, int] = {}
LOW_RANK_BY_SIGNATURE: dict[int, int] = {}


def _key_rank(key: tuple[int, ...]) -> int:
    rank = 0
    for digit in range(_RANK_DIGITS):
        rank = rank << 5 | (key[digit] + 14 if digit < len(key) else 0)
    return rank


def high_signature_rank(signature: int) -> int:
    """:func:`high_signature_key` as an int of the same order (greater is better)."""
    rank = HIGH_RANK_BY_SIGNATURE.get(signature)
    if rank is None:
        rank = HIGH_RANK_BY_SIGNATURE[signature] = _key_rank(high_signature_key(signature))
    return rank


def low_signature_rank(signature: int) -> int:
    """:func:`low_signature_key` as an int of the same order (greater is better)."""
    rank = LOW_RANK_BY_SIGNATURE.get(signature)
    if rank is None:
        rank = LOW_RANK_BY_SIGNATURE[signature] = _key_rank(low_signature_key(signature))
    return rank


def bring_in_table(*, razz: bool, by_suit: bool) -> tuple[tuple[int, int], ...]:
    """:func:`bring_in_key` of every card code, for a look-up per door card."""
    return tuple(bring_in_key(code, razz=razz, by_suit=by_suit) for code in range(52))
