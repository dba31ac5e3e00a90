"""Omaha Hi/Lo: button, blinds, order of action, 2+3 hands, no-low boards (docs/rules.md, "Omaha")."""

from __future__ import annotations

from studpoker.engine import EventKind, Hand
from studpoker.games import HouseRules, get_game

from .helpers import OMAHA, check_down, kinds_of, omaha_deck, options, play


def omaha(seats: list[tuple[int, int]], button: int, **kw: object) -> Hand:
    return Hand(get_game("O8"), OMAHA, seats, button=button, **kw)  # type: ignore[arg-type]


def test_o8_button_blinds_and_first_to_act() -> None:
    hand = omaha([(2, 100), (4, 100), (6, 100), (8, 100)], button=8)
    blinds = kinds_of(hand.events, EventKind.POST_BLIND)
    assert [(e.seat, e.amount, e.detail) for e in blinds] == [(2, 5, "small"), (4, 10, "big")]
    deals = kinds_of(hand.events, EventKind.DEAL)
    assert [e.seat for e in deals[:4]] == [2, 4, 6, 8]  # dealt from the button's left
    assert len(deals) == 16
    assert hand.to_act == 6  # left of the big blind
    play(hand, "6:c 8:c 2:c")
    assert options(hand) == [("check", 10), ("raise", 20)]  # the big blind's option
    play(hand, "4:x")
    assert hand.street == "flop" and len(hand.board) == 3
    assert hand.to_act == 2  # first active left of the button
    play(hand, "2:x 4:b 6:f 8:c 2:c")
    assert hand.street == "turn"
    assert hand.to_act == 2
    assert options(hand) == [("check", 0), ("bet", 20)]  # big bets on the turn


def test_o8_heads_up_button_posts_small_blind_and_acts_first() -> None:
    hand = omaha([(3, 100), (7, 100)], button=7)
    blinds = kinds_of(hand.events, EventKind.POST_BLIND)
    assert [(e.seat, e.detail) for e in blinds] == [(7, "small"), (3, "big")]
    assert hand.to_act == 7
    play(hand, "7:c 3:x")
    assert hand.to_act == 3  # after the flop the big blind acts first


def test_o8_big_blind_is_the_bet_preflop() -> None:
    hand = omaha([(1, 500), (2, 500), (3, 500), (4, 500)], button=4)
    play(hand, "3:r=20 4:r=30 1:r=40")
    assert options(hand) == [("fold", 10), ("call", 40)]


def test_o8_short_blind_puts_player_all_in() -> None:
    hand = omaha([(1, 100), (2, 4), (3, 100)], button=3)
    blinds = kinds_of(hand.events, EventKind.POST_BLIND)
    assert [(e.seat, e.amount, e.all_in) for e in blinds] == [(1, 5, False), (2, 4, True)]
    assert options(hand) == [("fold", 0), ("call", 10), ("raise", 20)]  # enter for the full blind
    play(hand, "3:c 1:c")
    check_down(hand)
    assert sum(hand.result.final_stacks.values()) == 204
    assert hand.result.pots[0].amount == 12


def test_o8_no_possible_low() -> None:
    # Seat 2 (left of the button) is dealt first. Seat 1 holds one heart: no flush.
    deck = omaha_deck("3h 4h 8c 8d", "Ah Qs Qd 3c", board="2h 5h 9h Kh Jc")
    hand = omaha([(1, 100), (2, 100)], button=1, deck=deck)
    check_down(hand)
    (pot,) = hand.result.pots
    assert [(s.seat, s.amount, s.half) for s in pot.shares] == [(2, 20, "whole")]
    shown = {h.seat: h for h in hand.result.shown}
    assert shown[2].high is not None and shown[2].high.startswith("Flush")
    assert shown[2].low is None


def test_o8_split_and_odd_chip_left_of_button() -> None:
    deck = omaha_deck("Qh Jh Tc 9c", "Ah Ad 3c 4c", "Ac As 3d 4d", board="Ks Kd 7c 7d 2s")
    hand = omaha([(1, 100), (2, 100), (3, 100)], button=3, deck=deck)
    play(hand, "3:c 1:f 2:x")
    check_down(hand)
    (pot,) = hand.result.pots
    assert pot.amount == 25
    assert sorted((s.seat, s.amount) for s in pot.shares) == [(2, 13), (3, 12)]


def test_o8_odd_chip_high_card_by_suit_switch() -> None:
    deck = omaha_deck("Qh Jh Tc 9c", "Ah Ad 3c 4c", "Ac As 3d 4d", board="Ks Kd 7c 7d 2s")
    house = HouseRules(odd_chip="high_card_by_suit")
    hand = omaha([(1, 100), (2, 100), (3, 100)], button=3, deck=deck, house=house)
    play(hand, "3:c 1:f 2:x")
    check_down(hand)
    (pot,) = hand.result.pots
    assert sorted((s.seat, s.amount) for s in pot.shares) == [(2, 12), (3, 13)]  # the As


def test_o8_hi_lo_split() -> None:
    deck = omaha_deck("Kc Kh Qd Jd", "Ac 2c 9s 9h", board="3d 4s 8h Ks Kd")
    hand = omaha([(1, 100), (2, 100)], button=1, deck=deck)
    check_down(hand)
    (pot,) = hand.result.pots
    assert [(s.seat, s.amount, s.half) for s in pot.shares] == [(2, 10, "high"), (1, 10, "low")]
    lows = {h.seat: h.low for h in hand.result.shown}
    assert lows == {1: "Eight-Four low", 2: None}


def test_o8_ten_players() -> None:
    hand = omaha([(s, 200) for s in range(1, 11)], button=10)
    assert hand.to_act == 3
    check_down(hand)
    assert sum(hand.result.final_stacks.values()) == 2000
    assert hand.deck.dealt == 45


def test_o8_burn_cards_switch() -> None:
    house = get_game("O8").default_house.with_overrides(["burn_cards=on"])
    hand = omaha([(1, 100), (2, 100), (3, 100)], button=1, house=house)
    check_down(hand)
    burns = kinds_of(hand.events, EventKind.BURN)
    assert [e.street for e in burns] == ["flop", "turn", "river"]
    assert hand.deck.dealt == 12 + 3 + 5
    assert all(e.cards == (None,) for e in hand.events_for(2) if e.kind == EventKind.BURN)


def test_o8_heads_up_uncapped_when_a_blind_is_all_in() -> None:
    hand = omaha([(1, 500), (2, 500), (3, 8)], button=1)  # seat 3 is all-in from the big blind
    play(hand, "1:r=20 2:r=30 1:r=40 2:r=50")
    assert options(hand)[-1] == ("raise", 60)
