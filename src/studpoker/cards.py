"""Cards, the 52-card deck, the secure per-hand shuffle and the deck commitment.

A card is an ``int`` (its *code*) so that the evaluators and numpy batches can use it
directly: ``code = 4 * rank + suit`` with rank 0 (deuce) to 12 (ace) and suit 0 clubs,
1 diamonds, 2 hearts, 3 spades.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from collections.abc import Iterable, Sequence
from typing import Protocol

RANKS = "23456789TJQKA"
SUITS = "cdhs"
SUIT_SYMBOLS = "\u2663\u2666\u2665\u2660"
RANK_NAMES = (
    "Deuce", "Three", "Four", "Five", "Six", "Seven", "Eight",
    "Nine", "Ten", "Jack", "Queen", "King", "Ace",
)  # fmt: skip
RANK_PLURALS = (
    "Deuces", "Threes", "Fours", "Fives", "Sixes", "Sevens", "Eights",
    "Nines", "Tens", "Jacks", "Queens", "Kings", "Aces",
)  # fmt: skip


class CardError(ValueError):
    """Raised for text that is not a card, or a hand with a repeated card."""


class Card(int):
    """One playing card; an ``int`` whose value is its code ``4 * rank + suit``.

    >>> Card.parse("As"), int(Card.parse("As")), Card(0)
    (Card('As'), 51, Card('2c'))
    """

    __slots__ = ()

    def __new__(cls, code: int) -> Card:
        if isinstance(code, Card):
            return code
        if not isinstance(code, int) or isinstance(code, bool) or not 0 <= code < 52:
            raise CardError(f"card code must be an integer from 0 to 51, not {code!r}")
        return _CARDS[code]

    @classmethod
    def _make(cls, code: int) -> Card:
        return int.__new__(cls, code)

    @classmethod
    def parse(cls, text: str) -> Card:
        """Parse the two-character form: rank ``23456789TJQKA`` then suit ``cdhs``."""
        if not isinstance(text, str):
            raise CardError(f"a card is written as two characters like 'As', not {text!r}")
        stripped = text.strip()
        if len(stripped) != 2:
            raise CardError(f"{text!r} is not a card: write a rank and a suit, like 'As' or 'Td'")
        rank_char, suit_char = stripped[0].upper(), stripped[1].lower()
        rank = RANKS.find(rank_char)
        suit = SUITS.find(suit_char)
        if rank < 0:
            raise CardError(f"{text!r} is not a card: unknown rank {stripped[0]!r} (use 23456789TJQKA)")
        if suit < 0:
            raise CardError(f"{text!r} is not a card: unknown suit {stripped[1]!r} (use c, d, h, s)")
        return _CARDS[4 * rank + suit]

    @property
    def rank(self) -> int:
        """0 for a deuce up to 12 for an ace."""
        return int(self) >> 2

    @property
    def suit(self) -> int:
        """0 clubs, 1 diamonds, 2 hearts, 3 spades."""
        return int(self) & 3

    @property
    def rank_char(self) -> str:
        return RANKS[int(self) >> 2]

    @property
    def suit_char(self) -> str:
        return SUITS[int(self) & 3]

    @property
    def symbol(self) -> str:
        """The card with a suit symbol, e.g. ``A♠``."""
        return RANKS[int(self) >> 2] + SUIT_SYMBOLS[int(self) & 3]

    def __str__(self) -> str:
        return RANKS[int(self) >> 2] + SUITS[int(self) & 3]

    def __repr__(self) -> str:
        return f"Card({str(self)!r})"

    def __format__(self, spec: str) -> str:
        return format(str(self), spec)

    def __reduce__(self) -> tuple[type[Card], tuple[int]]:
        return (Card, (int(self),))


_CARDS: tuple[Card, ...] = tuple(Card._make(code) for code in range(52))
ALL_CARDS: tuple[Card, ...] = _CARDS


def parse_cards(text: str | Iterable[str | int], *, allow_empty: bool = False) -> tuple[Card, ...]:
    """Parse cards written together or apart (``"AsKd"``, ``"As Kd"``, ``["As", "Kd"]``).

    Raises :class:`CardError` for anything that is not a card, for a card given twice,
    and for empty input unless ``allow_empty``.

    >>> parse_cards("As Kd 2c")
    (Card('As'), Card('Kd'), Card('2c'))
    """
    items: list[Card]
    if isinstance(text, str):
        compact = "".join(text.replace(",", " ").split())
        if len(compact) % 2:
            raise CardError(f"{text!r} is not a list of cards: each card is two characters, like 'As'")
        items = [Card.parse(compact[i : i + 2]) for i in range(0, len(compact), 2)]
    else:
        items = [Card(x) if isinstance(x, int) else Card.parse(x) for x in text]
    if not items and not allow_empty:
        raise CardError("no cards given")
    check_distinct(items)
    return tuple(items)


def _card_of(code: int) -> Card:
    if type(code) is Card:
        return code
    return Card(int(code))


def check_distinct(cards: Sequence[int]) -> None:
    """Raise :class:`CardError` naming the first card that appears twice."""
    seen = 0
    for card in cards:
        bit = 1 << int(card)
        if seen & bit:
            raise CardError(f"card {Card(int(card))} appears twice")
        seen |= bit


def format_cards(cards: Iterable[int], sep: str = "") -> str:
    """Write cards in the two-character form, e.g. ``AsKd``."""
    return sep.join(str(Card(int(c))) for c in cards)


class RandomSource(Protocol):
    """What the shuffle needs from a generator: ``random.Random`` and ``secrets.SystemRandom`` fit."""

    def randrange(self, stop: int, /) -> int: ...


_WORD = 1 << 64


def _secure_indices() -> list[int]:
    """The 51 swap indices of a Fisher-Yates shuffle, exactly uniform, from the OS generator.

    One ``os.urandom`` read supplies 64-bit words; a word is used for ``randbelow(n)`` only
    below the largest multiple of ``n`` (rejection sampling), so no index is biased.
    """
    indices: list[int] = []
    words = memoryview(secrets.token_bytes(8 * 64)).cast("Q")
    position = 0
    for i in range(51, 0, -1):
        n = i + 1
        limit = _WORD - _WORD % n
        while True:
            if position == len(words):
                words = memoryview(secrets.token_bytes(8 * 64)).cast("Q")
                position = 0
            word = words[position]
            position += 1
            if word < limit:
                indices.append(word % n)
                break
    return indices


def shuffle_order(rng: RandomSource | None = None) -> tuple[Card, ...]:
    """A uniformly random order of the 52 cards by Fisher-Yates (Durstenfeld).

    Uses the operating system's secure generator unless ``rng`` is given (tests only).
    """
    order = list(_CARDS)
    if rng is None:
        for i, j in zip(range(51, 0, -1), _secure_indices(), strict=True):
            order[i], order[j] = order[j], order[i]
    else:
        randrange = rng.randrange
        for i in range(51, 0, -1):
            j = randrange(i + 1)
            order[i], order[j] = order[j], order[i]
    return tuple(order)


def commitment(order: Sequence[int], salt: str) -> str:
    """SHA-256 (hex) over the salt and the deck order; publish it before the deal."""
    message = f"studpoker-deck-v1:{salt}:{format_cards(order)}".encode()
    return hashlib.sha256(message).hexdigest()


def verify(commitment_hex: str, order: Sequence[int | str], salt: str) -> bool:
    """True when ``order`` (52 distinct cards) and ``salt`` match the published commitment."""
    try:
        cards = [Card(c) if isinstance(c, int) else Card.parse(c) for c in order]
        check_distinct(cards)
    except CardError:
        return False
    if len(cards) != 52:
        return False
    return hmac.compare_digest(commitment(cards, salt), commitment_hex.lower())


class DeckExhaustedError(RuntimeError):
    """Raised when a card is asked for after all 52 are dealt."""


class Deck:
    """One hand's deck: a fixed order, a salt and its commitment, dealt from the top.

    ``Deck()`` is a fresh secure shuffle; ``Deck.stacked("As Kd ...")`` puts the given
    cards on top (the rest follow in a secure shuffle unless ``rng`` is given).
    """

    __slots__ = ("_commitment", "_next", "_order", "salt")

    def __init__(self, order: Sequence[int] | None = None, *, salt: str | None = None) -> None:
        if order is None:
            cards = shuffle_order()
        else:
            if len(order) != 52:
                raise CardError(f"a deck has 52 cards, not {len(order)}")
            cards = tuple(_card_of(c) for c in order)
            if len(set(cards)) != 52:
                check_distinct(cards)
        self._order: tuple[Card, ...] = cards
        self._next = 0
        self.salt: str = secrets.token_hex(16) if salt is None else salt
        self._commitment: str | None = None

    @property
    def commitment(self) -> str:
        """SHA-256 of the order and salt (computed on first use: simulations never need it)."""
        if self._commitment is None:
            self._commitment = commitment(self._order, self.salt)
        return self._commitment

    @classmethod
    def shuffled(cls, rng: RandomSource | None = None, *, salt: str | None = None) -> Deck:
        return cls(shuffle_order(rng), salt=salt)

    @classmethod
    def stacked(
        cls, top: str | Iterable[str | int], rng: RandomSource | None = None, *, salt: str | None = None
    ) -> Deck:
        """A deck whose first cards are ``top`` in that order; the others follow shuffled."""
        first = parse_cards(top, allow_empty=True)
        used = {int(c) for c in first}
        rest = [c for c in shuffle_order(rng) if int(c) not in used]
        return cls((*first, *rest), salt=salt)

    @property
    def order(self) -> tuple[Card, ...]:
        """The whole order, top first (reveal it only after the hand)."""
        return self._order

    @property
    def dealt(self) -> int:
        return self._next

    @property
    def remaining(self) -> int:
        return 52 - self._next

    def deal(self) -> Card:
        if self._next >= 52:
            raise DeckExhaustedError("the deck has no cards left")
        card = self._order[self._next]
        self._next += 1
        return card

    def peek_remaining(self) -> tuple[Card, ...]:
        return self._order[self._next :]

    def __repr__(self) -> str:
        return f"Deck(dealt={self._next}, commitment={self.commitment[:12]}...)"
