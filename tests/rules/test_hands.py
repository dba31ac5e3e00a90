"""Hands (docs/rules.md): high hands, ace-to-five lows, eight or better, Omaha's two plus three."""

from __future__ import annotations

from studpoker.cards import Card, parse_cards
from studpoker.evaluate import high, low8, omaha8, razz


def p(text: str) -> tuple[Card, ...]:
    return parse_cards(text)


def test_ace_plays_high_or_low_in_straights_the_wheel_is_the_lowest_straight() -> None:
    wheel, six_high, broadway = (
        high(p("Ah 2d 3c 4s 5h")),
        high(p("2d 3c 4s 5h 6c")),
        high(p("Th Jd Qc Ks Ah")),
    )
    assert (wheel.name, broadway.name) == ("Straight, Five high", "Straight, Ace high")
    assert wheel < six_high < broadway
    assert high(p("Qh Kd Ac 2s 3h")).name == "High Card, Ace"  # no straight around the corner


def test_suits_never_break_ties_between_high_hands() -> None:
    assert high(p("As Kh Qd Jc 9s")) == high(p("Ac Kd Qh Js 9h"))
    assert high(p("2h 4h 6h 8h Th")) == high(p("2s 4s 6s 8s Ts"))  # a flush in spades is no better
    assert high(p("Kc Kd 7h 7s 2c")) == high(p("Kh Ks 7c 7d 2d"))


def test_ace_to_five_low_ace_is_low_straights_and_flushes_do_not_count_pairs_do() -> None:
    assert razz(p("5h 4h 3h 2h Ah")).name == "Wheel"  # a straight flush is the best low
    assert razz(p("5h 4h 3h 2h Ah")) > razz(p("6c 4d 3h 2s Ac"))
    assert razz(p("Kc Qd Jh Ts 8c")) > razz(p("Ac Ad 2h 3s 4c"))  # any five distinct beat a pair
    # Compared from the highest card down: 8-6-4-2-A beats 8-7-3-2-A.
    assert razz(p("8c 6d 4h 2s Ac")) > razz(p("8d 7h 3s 2c Ad"))


def test_eight_or_better_needs_five_distinct_ranks_of_eight_or_lower() -> None:
    low = low8(p("8c 7d 6h 5s 4c Kd Kh"))
    assert low is not None and low.name == "Eight-Seven low"
    assert low8(p("9c 5d 4h 2s Ac Kd Kh")) is None  # only four cards of eight or lower
    assert low8(p("Ac Ad 2h 3s 4c 9d Kh")) is None  # five low cards, but only four ranks
    paired = low8(p("Ac Ad 2h 3s 4c 8d Kh"))
    assert paired is not None and paired.name == "Eight-Four low"


def test_o8_hand_is_two_hole_and_three_board_cards_for_high_and_low_separately() -> None:
    # Four hearts on the board and one in the hole: no flush with exactly two hole cards.
    hi, lo = omaha8(p("Ah Kd Qc Jc"), p("2h 8h 9h Th 3s"))
    assert hi.name == "Straight, Queen high" and lo is None  # one low hole card: no low
    # The high uses the two kings, the low the ace and the deuce: chosen separately.
    hi, lo = omaha8(p("Ac 2d Kh Ks"), p("3c 4d 7h Kd Kc"))
    assert hi.name == "Four of a Kind, Kings"
    assert lo is not None and lo.name == "Seven-Four low"
    assert set(lo.cards) == set(p("Ac 2d 3c 4d 7h"))


def test_o8_no_low_with_fewer_than_three_distinct_low_board_cards() -> None:
    board = p("2c 2d 5h Kd Qc")  # two low ranks on the board
    for hole in ("Ah 3s 4c 6d", "As 3h 7c 8s", "Ad 4h 6s 7h"):
        _hi, lo = omaha8(p(hole), board)
        assert lo is None, hole
