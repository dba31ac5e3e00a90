"""Fixed-limit Texas hold'em (LHE): button, blinds, order of action, limits, best five of seven,
high only (docs/rules.md, "Limit hold'em")."""

from __future__ import annotations

import random

import pytest

from studpoker.cards import Deck, parse_cards
from studpoker.engine import EventKind, Hand
from studpoker.games import get_game

from .helpers import OMAHA, check_down, kinds_of, options, play


def holdem_deck(*holes: str, board: str = "") -> Deck:
    """Hole cards listed from the player left of the button (the first dealt), then the board."""
    hands = [parse_cards(h) for h in holes]
    order = [h[r] for r in range(2) for h in hands]
    return Deck.stacked([*order, *parse_cards(board, allow_empty=True)], random.Random(7))


def holdem(seats: list[tuple[int, int]], button: int | None, **kw: object) -> Hand:
    return Hand(get_game("LHE"), OMAHA, seats, button=button, **kw)  # type: ignore[arg-type]


def test_lhe_button_blinds_two_hole_cards_and_first_to_act() -> None:
    hand = holdem([(2, 100), (4, 100), (6, 100), (8, 100)], button=8)
    blinds = kinds_of(hand.events, EventKind.POST_BLIND)
    assert [(e.seat, e.amount, e.detail) for e in blinds] == [(2, 5, "small"), (4, 10, "big")]
    deals = kinds_of(hand.events, EventKind.DEAL)
    assert [e.seat for e in deals] == [2, 4, 6, 8, 2, 4, 6, 8]  # two each, from the button's left
    others = [e for e in hand.events_for(4) if e.kind == EventKind.DEAL and e.seat != 4]
    assert len(others) == 6 and all(e.cards == (None,) for e in others)  # face down
    assert hand.to_act == 6  # left of the big blind
    play(hand, "6:c 8:c 2:c")
    assert options(hand) == [("check", 10), ("raise", 20)]  # the big blind's option
    play(hand, "4:x")
    assert hand.street == "flop" and len(hand.board) == 3
    assert hand.to_act == 2  # first active left of the button
    play(hand, "2:x 4:b 6:f 8:c 2:c")
    assert hand.street == "turn" and len(hand.board) == 4
    assert hand.to_act == 2
    play(hand, "2:x 4:x 8:x")
    assert hand.street == "river" and len(hand.board) == 5


def test_lhe_small_bet_pre_flop_and_flop_big_bet_turn_and_river() -> None:
    hand = holdem([(1, 500), (2, 500), (3, 500)], button=3)
    assert options(hand) == [("fold", 0), ("call", 10), ("raise", 20)]
    play(hand, "3:c 1:c 2:x")
    assert options(hand) == [("check", 0), ("bet", 10)]  # the flop: small bets
    play(hand, "1:x 2:x 3:x")
    assert options(hand) == [("check", 0), ("bet", 20)]  # the turn: big bets
    play(hand, "1:b 2:r")
    assert options(hand) == [("fold", 0), ("call", 40), ("raise", 60)]
    play(hand, "3:f 1:c")
    assert hand.street == "river"
    assert options(hand) == [("check", 0), ("bet", 20)]


def test_lhe_a_bet_and_three_raises_the_big_blind_the_bet_pre_flop() -> None:
    hand = holdem([(1, 500), (2, 500), (3, 500), (4, 500)], button=4)
    play(hand, "3:r=20 4:r=30 1:r=40")  # the big blind and three raises: capped
    assert options(hand) == [("fold", 10), ("call", 40)]
    play(hand, "2:c 3:c 4:c")
    play(hand, "1:b 2:r 3:r 4:r")  # on the flop the bet and three raises
    assert options(hand) == [("fold", 10), ("call", 40)]


def test_lhe_heads_up_button_posts_small_blind_and_acts_first() -> None:
    hand = holdem([(3, 100), (7, 100)], button=7)
    blinds = kinds_of(hand.events, EventKind.POST_BLIND)
    assert [(e.seat, e.detail) for e in blinds] == [(7, "small"), (3, "big")]
    assert hand.to_act == 7
    play(hand, "7:c 3:x")
    assert hand.to_act == 3  # after the flop the big blind acts first


def test_lhe_best_five_of_seven_in_any_combination() -> None:
    # Seat 2 (left of the button) holds one heart with four on the board: a flush in hold'em
    # (no Omaha two-plus-three). Seat 1's pair of kings loses to it.
    deck = holdem_deck("3h 8c", "Kc Kd", board="2h 5h 9h Jh Ks")
    hand = holdem([(1, 100), (2, 100)], button=1, deck=deck)
    check_down(hand)
    (pot,) = hand.result.pots
    assert [(s.seat, s.amount, s.half) for s in pot.shares] == [(2, 20, "whole")]
    shown = {h.seat: h for h in hand.result.shown}
    assert shown[2].high is not None and shown[2].high.startswith("Flush")
    assert shown[2].cards == tuple(parse_cards("3h 8c"))  # the hole cards are shown
    assert shown[1].high is not None and shown[1].high.startswith("Three of a Kind")


def test_lhe_the_board_plays_and_no_hole_card_is_needed() -> None:
    # A royal flush on the board: both players play it and split the pot.
    deck = holdem_deck("2c 3d", "4c 5d", board="As Ks Qs Js Ts")
    hand = holdem([(1, 100), (2, 100)], button=1, deck=deck)
    check_down(hand)
    (pot,) = hand.result.pots
    assert sorted((s.seat, s.amount) for s in pot.shares) == [(1, 10), (2, 10)]


def test_lhe_high_only_no_low_half() -> None:
    # A board with three low cards and a low in seat 1's hand: still no low half in hold'em.
    deck = holdem_deck("Ac 2d", "Kc Kd", board="3s 4h 8d Kh Qs")
    hand = holdem([(1, 100), (2, 100)], button=1, deck=deck)
    check_down(hand)
    (pot,) = hand.result.pots
    assert [(s.seat, s.amount, s.half) for s in pot.shares] == [(1, 20, "whole")]
    assert all(h.low is None for h in hand.result.shown)


def test_lhe_odd_chip_left_of_the_button() -> None:
    deck = holdem_deck("Qh Jh", "Ac 3c", "Ah 3d", board="Ks Kd 7c 7d 2s")  # by suit it would go to seat 3
    hand = holdem([(1, 100), (2, 100), (3, 100)], button=3, deck=deck)
    play(hand, "3:c 1:f 2:x")
    check_down(hand)
    (pot,) = hand.result.pots
    assert pot.amount == 25
    assert sorted((s.seat, s.amount) for s in pot.shares) == [(2, 13), (3, 12)]


def test_lhe_two_to_ten_players() -> None:
    hand = holdem([(s, 200) for s in range(1, 11)], button=10)
    assert hand.to_act == 3
    check_down(hand)
    assert sum(hand.result.final_stacks.values()) == 2000
    assert hand.deck.dealt == 25
    with pytest.raises(ValueError, match="2 to 10 players"):
        holdem([(s, 200) for s in range(1, 12)], button=11)
    with pytest.raises(ValueError, match="needs button="):
        holdem([(1, 100), (2, 100)], button=None)
