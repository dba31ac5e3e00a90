"""Showdown and pots (docs/rules.md): what must be shown, several odd units of one split."""

from __future__ import annotations

from studpoker.cards import Deck
from studpoker.engine import EventKind, Hand
from studpoker.games import HouseRules, Stakes, get_game
from tests.engine.helpers import OMAHA, check_down, kinds_of, omaha_deck, play, stud, stud_deck

ODD = Stakes(ante=1, bring_in=2, small_bet=4, big_bet=8)


def shown_and_mucked(hand: Hand) -> tuple[list[int | None], list[int | None]]:
    events = hand.events
    return [e.seat for e in kinds_of(events, EventKind.SHOW)], [
        e.seat for e in kinds_of(events, EventKind.MUCK)
    ]


def test_a_hand_that_could_win_part_of_a_pot_is_shown_a_hand_that_cannot_is_mucked() -> None:
    deck = stud_deck(
        "Ah Ad 9c Ac Kd Qh Js",  # seat 1: trip aces, no low; shows first (no bet on 7th street)
        "2c 3d 7h 4s 5h Kc Kh",  # seat 2: a pair of kings loses the high, the seven low wins the low
        "Ts Th 9s 9h Jc Jd 8d",  # seat 3: two pair, no low: can win nothing
    )
    hand = stud("7S8", deck, [500] * 3)
    check_down(hand)
    assert shown_and_mucked(hand) == ([1, 2], [3])
    (pot,) = hand.result.pots
    assert [(s.seat, s.half) for s in pot.shares] == [(1, "high"), (2, "low")]


def _three_way_tie(house: HouseRules | None) -> Hand:
    # Three Ten-high straights; the tens are the diamond (seat 1), heart (2) and spade (3).
    # Seats 4 and 5 fold to the bring-in: the pot is 5 antes + 3 bring-ins = 11, three shares
    # of 3 and two odd units.
    deck = stud_deck(
        "Td 9c 8d 7h 6c 2d 3h",
        "Th 9d 8h 7c 6d 2h 3c",
        "Ts 9h 2c 7d 6h 8c 3d",  # brings in with the 2c
        "Qs Jc Kh",
        "As Jd Ah",
        folds={3: 0, 4: 0},
    )
    hand = stud("7S", deck, [100] * 5, stakes=ODD, house=house)
    play(hand, "3:bi 4:f 5:f 1:c 2:c")
    check_down(hand)
    return hand


def test_several_odd_units_of_one_split_go_one_each_in_odd_chip_order() -> None:
    (pot,) = _three_way_tie(None).result.pots
    assert pot.amount == 11
    # high_card_by_suit (the stud default): the Ts, then the Th, each get one odd unit.
    assert sorted((s.seat, s.amount) for s in pot.shares) == [(1, 3), (2, 4), (3, 4)]
    (pot,) = _three_way_tie(HouseRules(odd_chip="seat_order")).result.pots
    # seat_order: the winners nearest seat 1 (the dealer's left) get them.
    assert sorted((s.seat, s.amount) for s in pot.shares) == [(1, 4), (2, 4), (3, 3)]


def o8_deck() -> Deck:
    """Dealt from seat 2 (left of the button at seat 1): seats 2, 3, 1, then the board."""
    return omaha_deck("3c 4d 9h Ts", "Jc Jd 3s 4h", "Kh Kc 5d 6d", board="Kd Qs 7h 7c 2s")


def test_showdown_first_board_in_o8_starts_left_of_the_button() -> None:
    # No low is possible (the board has two low ranks). Seat 2 (left of the button) holds the
    # worst hand, seat 3 a better one, seat 1 the best: from seat 2, each must show in turn.
    seats = [(1, 100), (2, 100), (3, 100)]
    house = HouseRules(odd_chip="seat_order", showdown_first="board")
    hand = Hand(get_game("O8"), OMAHA, seats, button=1, deck=o8_deck(), house=house)
    check_down(hand)
    assert shown_and_mucked(hand) == ([2, 3, 1], [])
    # The default (seat): the first active player from seat 1 shows, and nobody can beat him.
    hand = Hand(get_game("O8"), OMAHA, seats, button=1, deck=o8_deck())
    check_down(hand)
    assert shown_and_mucked(hand) == ([1], [2, 3])
