"""Showdown order, mucking, pots, hi/lo splits and odd units (docs/rules.md, "Showdown and pots")."""

from __future__ import annotations

from studpoker.engine import ActionKind, EventKind, Hand
from studpoker.games import HouseRules, Stakes

from .helpers import check_down, kinds_of, play, stud, stud_deck

ODD = Stakes(ante=1, bring_in=2, small_bet=4, big_bet=8)

TRIPS = "Ah Ad 9c Ac 2d 5h 7s"  # seat 1: trip aces, shows A-9-5-2
HIGH_CARD = "Kc Qd 3c 8h 4s Jh 6d"  # seat 2: king high (brings in with the 3c)
TWO_PAIR = "Ts Th 4c 4h 6c 8d 3s"  # seat 3: tens and fours, shows a pair of fours


def to_seventh(hand: Hand) -> None:
    while hand.street != "seventh":
        legal = hand.legal_actions()
        option = (
            legal.find(ActionKind.CHECK) or legal.find(ActionKind.CALL) or legal.find(ActionKind.BRING_IN)
        )
        assert option is not None
        hand.apply(legal.seat or 0, option.action)


def shows(hand: Hand) -> list[int | None]:
    return [e.seat for e in kinds_of(hand.events, EventKind.SHOW)]


def mucks(hand: Hand) -> list[int | None]:
    return [e.seat for e in kinds_of(hand.events, EventKind.MUCK)]


def test_showdown_order_last_aggressor_first() -> None:
    hand = stud("7S", stud_deck(TRIPS, HIGH_CARD, TWO_PAIR), [500] * 3)
    to_seventh(hand)
    while not hand.is_over:
        legal = hand.legal_actions()
        if legal.seat == 2 and legal.find(ActionKind.BET):
            play(hand, "2:b")
        else:
            option = legal.find(ActionKind.CALL) or legal.find(ActionKind.CHECK)
            assert option is not None
            hand.apply(legal.seat or 0, option.action)
    assert shows(hand) == [2, 3, 1]  # each later hand beats the ones shown: nobody mucks
    assert hand.result.pots[0].winners == (1,)


def test_showdown_order_no_bet_first_from_seat_one_and_muck_losers() -> None:
    hand = stud("7S", stud_deck(TRIPS, HIGH_CARD, TWO_PAIR), [500] * 3)
    check_down(hand)
    assert shows(hand) == [1]
    assert mucks(hand) == [2, 3]  # they cannot beat trip aces
    assert hand.result.mucked == (2, 3)
    assert [h.seat for h in hand.result.shown] == [1]
    assert hand.result.shown[0].high == "Three of a Kind, Aces"


def test_showdown_first_board() -> None:
    house = HouseRules(fourth_street_double_bet=True, showdown_first="board")
    hand = stud("7S", stud_deck(TRIPS, HIGH_CARD, TWO_PAIR), [500] * 3, house=house)
    check_down(hand)
    assert shows(hand) == [3, 1]  # seat 3's open fours act first; trip aces must show
    assert mucks(hand) == [2]


def test_side_pot_contestants_show_before_a_player_all_in_for_the_main_pot() -> None:
    hand = stud("7S", stud_deck(TRIPS, HIGH_CARD, TWO_PAIR), {1: 6, 2: 500, 3: 500})
    play(hand, "2:bi 3:c 1:c")  # seat 1 is all-in for the main pot only
    assert hand.to_act == 3
    play(hand, "3:b=10 2:c")
    check_down(hand)
    assert shows(hand) == [2, 3, 1]
    pots = hand.result.pots
    assert [(p.amount, p.eligible, p.winners) for p in pots] == [(18, (1, 2, 3), (1,)), (20, (2, 3), (3,))]
    assert hand.result.final_stacks == {1: 18, 2: 484, 3: 504}


def test_last_player_standing_wins_without_showdown() -> None:
    hand = stud("7S", stud_deck(TRIPS, HIGH_CARD, TWO_PAIR), [500] * 3)
    events = play(hand, "2:bi 3:f 1:f")
    assert hand.is_over and hand.to_act is None
    assert kinds_of(events, EventKind.SHOW) == []
    assert [(e.seat, e.amount) for e in kinds_of(events, EventKind.RETURN)] == [(2, 5)]
    assert [(e.seat, e.amount, e.detail) for e in kinds_of(events, EventKind.AWARD)] == [
        (2, 3, "uncontested")
    ]
    result = hand.result
    assert not result.showdown
    assert result.returned == {2: 5}
    assert result.net == {1: -1, 2: 2, 3: -1}


def test_hi_lo_split_odd_unit_to_high() -> None:
    deck = stud_deck("Ks Qs 9s Js 2s Kd Kh", "Ac 2c 5d 3h 4d 9h Td", "7c 8c Qc", folds={2: 0})
    hand = stud("7S8", deck, [100] * 3, stakes=ODD)
    play(hand, "2:bi 3:f 1:c")
    check_down(hand)
    (pot,) = hand.result.pots
    assert pot.amount == 7
    assert [(s.seat, s.amount, s.half) for s in pot.shares] == [(1, 4, "high"), (2, 3, "low")]
    shown = {h.seat: h for h in hand.result.shown}
    assert shown[2].low == "Wheel"
    assert shown[1].low is None


def test_hi_lo_quartered_odd_units() -> None:
    stakes = Stakes(ante=3, bring_in=2, small_bet=4, big_bet=8)
    deck = stud_deck("Ks Qs 9s Js 2s Kd Kh", "Ac 3c 5d 4h 7d Kc Qd", "Ad 3d 5h 4c 7h Jc Jd")
    hand = stud("7S8", deck, [100] * 3, stakes=stakes)
    play(hand, "2:bi 3:c 1:c")
    check_down(hand)
    (pot,) = hand.result.pots
    assert pot.amount == 15
    # High half 8 (the odd unit goes high); low half 7 quartered: the Ac beats the Ad for the odd unit.
    assert [(s.seat, s.amount, s.half) for s in pot.shares] == [(1, 8, "high"), (2, 4, "low"), (3, 3, "low")]


def test_hi_lo_no_low_high_scoops() -> None:
    deck = stud_deck("Ks Qs 9s Js 2s Kd Kh", "Ac 9c Td Th Jd 9h Qd", "7c 8c Qc", folds={2: 0})
    hand = stud("7S8", deck, [100] * 3, stakes=ODD)
    play(hand, "1:bi 2:c 3:f")
    check_down(hand)
    (pot,) = hand.result.pots
    assert [(s.seat, s.amount, s.half) for s in pot.shares] == [(1, 7, "whole")]


def _straights(house: HouseRules | None) -> Hand:
    deck = stud_deck("6c 7d 8h 9c Th 2d 3h", "6d 7c 8s 9d Ts 2h 3c", "Kd Qd Jc", folds={2: 0})
    hand = stud("7S", deck, [100] * 3, stakes=ODD, house=house)
    play(hand, "1:bi 2:c 3:f")
    check_down(hand)
    return hand


def test_odd_chip_high_card_by_suit() -> None:
    hand = _straights(None)
    (pot,) = hand.result.pots
    assert pot.amount == 7
    assert sorted((s.seat, s.amount) for s in pot.shares) == [(1, 3), (2, 4)]  # Ts beats Th


def test_odd_chip_seat_order() -> None:
    hand = _straights(HouseRules(odd_chip="seat_order"))
    (pot,) = hand.result.pots
    assert sorted((s.seat, s.amount) for s in pot.shares) == [(1, 4), (2, 3)]  # nearest the dealer's left


def test_odd_chip_low_lowest_card_by_suit_razz() -> None:
    deck = stud_deck("Ah 2c 3d 4h 6s Kc Kd", "Ac 2d 3h 4s 6c Qh Qs", "Jd Tc 9c 8c 7c 5c Td")
    hand = stud("RZ", deck, [100] * 3, stakes=ODD)
    play(hand, "3:bi 1:c 2:c")
    check_down(hand)
    (pot,) = hand.result.pots
    assert pot.amount == 9
    assert sorted((s.seat, s.amount) for s in pot.shares) == [(1, 4), (2, 5)]  # the Ac is lowest
    assert mucks(hand) == [3]
    assert {h.seat: h.low for h in hand.result.shown} == {1: "Six-Four low", 2: "Six-Four low"}


def test_pots_awarded_independently_with_split_side_pot() -> None:
    # Seat 1 (all-in) wins the main pot; seats 2 and 3 tie the side pot.
    deck = stud_deck("Ah Ad 9c Ac 9h 5d 7s", "6c 7d 8h 9d Th 2h 3h", "6d 7c 8s 9s Ts 2c 3c")
    hand = stud("7S", deck, {1: 6, 2: 500, 3: 500})
    play(hand, "2:bi 3:co 1:c 2:c")
    check_down(hand)
    pots = hand.result.pots
    assert [(p.amount, p.winners) for p in pots] == [(18, (1,)), (10, (2, 3))]
    assert hand.result.final_stacks == {1: 18, 2: 494, 3: 494}
