"""Cards, parsing errors, the deck, the secure shuffle and the commitment."""

from __future__ import annotations

import math
import random
import sys
from collections.abc import Callable

import numpy as np
import pytest

from studpoker.cards import (
    ALL_CARDS,
    Card,
    CardError,
    Deck,
    DeckExhaustedError,
    commitment,
    parse_cards,
    shuffle_order,
    verify,
)


def test_card_code_is_four_times_rank_plus_suit() -> None:
    assert int(Card.parse("2c")) == 0
    assert int(Card.parse("2d")) == 1
    assert int(Card.parse("2h")) == 2
    assert int(Card.parse("2s")) == 3
    assert int(Card.parse("As")) == 4 * 12 + 3
    assert int(Card.parse("Td")) == 4 * 8 + 1
    for code in range(52):
        card = Card(code)
        assert Card.parse(str(card)) is card
        assert card.rank == code // 4 and card.suit == code % 4


def test_card_prints_the_two_character_form() -> None:
    assert str(Card.parse("As")) == "As"
    assert str(Card.parse("td")) == "Td"
    assert repr(Card.parse("2c")) == "Card('2c')"
    assert Card.parse("Ah").symbol == "A\u2665"
    assert len({str(c) for c in ALL_CARDS}) == 52


@pytest.mark.parametrize("text", ["1x", "", "A", "Asd", "Xs", "Ax", "10s", "  "])
def test_card_rejects_text_that_is_not_a_card(text: str) -> None:
    with pytest.raises(CardError, match="not a card"):
        Card.parse(text)


@pytest.mark.parametrize("code", [-1, 52, 3.0, True])
def test_card_rejects_codes_out_of_range(code: object) -> None:
    with pytest.raises(CardError):
        Card(code)  # type: ignore[arg-type]


def test_parse_cards_accepts_joined_and_spaced_forms() -> None:
    expected = (Card.parse("As"), Card.parse("Kd"), Card.parse("2c"))
    assert parse_cards("AsKd2c") == expected
    assert parse_cards("As Kd, 2c") == expected
    assert parse_cards(["As", "Kd", 2]) == (expected[0], expected[1], Card(2))


def test_parse_cards_rejects_duplicates_and_empty_input() -> None:
    with pytest.raises(CardError, match="As appears twice"):
        parse_cards("AsAs")
    with pytest.raises(CardError, match="no cards"):
        parse_cards("")
    assert parse_cards("", allow_empty=True) == ()
    with pytest.raises(CardError, match="two characters"):
        parse_cards("AsK")


def test_shuffle_is_a_permutation_and_varies() -> None:
    orders = {shuffle_order() for _ in range(20)}
    assert len(orders) == 20
    for order in orders:
        assert sorted(order) == list(range(52))


def test_deck_deals_in_order_and_runs_out() -> None:
    deck = Deck.stacked("As Kd")
    assert deck.deal() == Card.parse("As")
    assert deck.deal() == Card.parse("Kd")
    assert deck.remaining == 50
    for _ in range(50):
        deck.deal()
    with pytest.raises(DeckExhaustedError):
        deck.deal()


def test_stacked_deck_rejects_a_repeated_card() -> None:
    with pytest.raises(CardError, match="appears twice"):
        Deck.stacked("As As")
    with pytest.raises(CardError, match="52 cards"):
        Deck(list(range(51)))


def test_injected_rng_makes_the_shuffle_reproducible() -> None:
    assert Deck.shuffled(random.Random(7)).order == Deck.shuffled(random.Random(7)).order


def test_commitment_verifies_the_revealed_order_and_salt() -> None:
    deck = Deck()
    assert verify(deck.commitment, deck.order, deck.salt)
    assert verify(deck.commitment, [str(c) for c in deck.order], deck.salt)
    swapped = list(deck.order)
    swapped[0], swapped[1] = swapped[1], swapped[0]
    assert not verify(deck.commitment, swapped, deck.salt)
    assert not verify(deck.commitment, deck.order, deck.salt + "0")
    assert not verify(deck.commitment, deck.order[:51], deck.salt)
    assert not verify(deck.commitment, ["Zz"] * 52, deck.salt)
    assert commitment(deck.order, deck.salt) == deck.commitment


def test_two_decks_never_share_a_salt() -> None:
    assert Deck().salt != Deck().salt


def test_secure_indices_reject_words_that_would_bias_the_draw(monkeypatch: pytest.MonkeyPatch) -> None:
    # The first word is at the very top of the 64-bit range, above every multiple of n: it must
    # be skipped, not reduced modulo n.
    words = [2**64 - 1, *range(1000)]
    served = iter(words)

    def fake_token_bytes(count: int) -> bytes:
        return b"".join(next(served).to_bytes(8, sys.byteorder) for _ in range(count // 8))

    monkeypatch.setattr("studpoker.cards.secrets.token_bytes", fake_token_bytes)
    from studpoker.cards import _secure_indices

    indices = _secure_indices()
    assert indices[0] == 0 % 52  # the word 0, not (2**64 - 1) % 52
    assert all(0 <= j <= i for i, j in zip(range(51, 0, -1), indices, strict=True))


# --- statistics of the shuffle -------------------------------------------------------------

Shuffle = Callable[[random.Random], list[int]]


def _naive_swap_with_any_position(rng: random.Random) -> list[int]:
    """The classic biased shuffle: swap every position with any position."""
    deck = list(range(52))
    for i in range(52):
        j = rng.randrange(52)
        deck[i], deck[j] = deck[j], deck[i]
    return deck


def _ours(rng: random.Random) -> list[int]:
    return [int(c) for c in shuffle_order(rng)]


def _ours_secure(_rng: random.Random) -> list[int]:
    """The production path: the OS generator, ignoring the test's generator."""
    return [int(c) for c in shuffle_order()]


def _critical(df: int, z: float = 3.7) -> float:
    """Upper chi-square quantile by the Wilson-Hilferty approximation (z=3.7: p about 1e-4)."""
    return df * (1 - 2 / (9 * df) + z * math.sqrt(2 / (9 * df))) ** 3


def _position_chi_square(shuffle: Shuffle, samples: int, rng: random.Random) -> tuple[float, float]:
    counts = np.zeros((52, 52))
    positions = np.arange(52)
    for _ in range(samples):
        counts[positions, shuffle(rng)] += 1
    expected = samples / 52
    return float(((counts - expected) ** 2 / expected).sum()), _critical(51 * 51)


def _first_pair_chi_square(shuffle: Shuffle, samples: int, rng: random.Random) -> tuple[float, float]:
    counts = np.zeros((52, 52))
    for _ in range(samples):
        order = shuffle(rng)
        counts[order[0], order[1]] += 1
    expected = samples / (52 * 51)
    off_diagonal = ~np.eye(52, dtype=bool)
    chi = float(((counts[off_diagonal] - expected) ** 2 / expected).sum())
    return chi, _critical(52 * 51 - 1)


@pytest.mark.parametrize("shuffle", [_ours, _ours_secure], ids=["seeded", "secure"])
def test_shuffle_card_by_position_counts_are_uniform(shuffle: Shuffle) -> None:
    chi, critical = _position_chi_square(shuffle, 20_000, random.Random(2026))
    assert chi < critical


@pytest.mark.parametrize("shuffle", [_ours, _ours_secure], ids=["seeded", "secure"])
def test_shuffle_first_card_pairs_are_uniform(shuffle: Shuffle) -> None:
    chi, critical = _first_pair_chi_square(shuffle, 60_000, random.Random(11))
    assert chi < critical


def test_biased_naive_shuffle_fails_the_position_test() -> None:
    chi, critical = _position_chi_square(_naive_swap_with_any_position, 20_000, random.Random(2026))
    assert chi > critical


def test_biased_naive_shuffle_fails_the_first_pair_test() -> None:
    chi, critical = _first_pair_chi_square(_naive_swap_with_any_position, 60_000, random.Random(11))
    assert chi > critical
