"""No decision when betting is over (docs/rules.md, R-NO-DECISION-BETTING-OVER; docs/engine.md).

When at most one player who is not all-in is left and he owes nothing, nobody is asked to act,
at the start of a round and in its middle alike (heads-up O8: the button calls all-in for no
more than the big blind, and the big blind is not asked to check); the remaining cards are
dealt and the hand goes to the showdown. A player with chips who owes something still decides.
"""

from __future__ import annotations

import random

import pytest

from studpoker.cards import Deck
from studpoker.engine import ActionKind, Hand, LegalOption
from studpoker.games import get_game

from .helpers import OMAHA, STUD, options, play

STREETS = {code: [s.name for s in get_game(code).streets] for code in ("7S", "7S8", "RZ", "O8")}
CASES = [(code, k) for code, names in STREETS.items() for k in range(len(names))]
DEEP, SHORT = 1, 2  # seat numbers: heads-up, the deep stack bets, the short one calls


def _choose(hand: Hand) -> LegalOption:
    """The deep stack completes, bets or raises when he may (else checks or calls); the short
    stack brings in, checks or calls."""
    legal = hand.legal_actions()
    if legal.seat == DEEP:
        for kind in (ActionKind.COMPLETE, ActionKind.BET, ActionKind.RAISE):
            option = legal.find(kind)
            if option is not None:
                return option
    for kind in (ActionKind.BRING_IN, ActionKind.CHECK, ActionKind.CALL):
        option = legal.find(kind)
        if option is not None:
            return option
    raise AssertionError(f"no option to choose from {legal.options}")


def _new_hand(code: str, short_stack: int, seed: int) -> Hand:
    game = get_game(code)
    stakes = OMAHA if game.kind == "omaha" else STUD
    seats = [(DEEP, 10_000), (SHORT, short_stack)]
    deck = Deck.shuffled(random.Random(seed), salt="betting-over")
    return Hand(game, stakes, seats, deck=deck, button=None if game.is_stud else SHORT)


def _short_paid_by_street(code: str, seed: int) -> list[int]:
    """What the short stack has put in when he first calls on each street (he has chips
    enough): with that stack he calls all-in there (heads-up O8 pre-flop: for the big blind,
    before the big blind has acted)."""
    hand = _new_hand(code, 10_000, seed)
    paid: dict[str, int] = {}
    while not hand.is_over:
        street, seat = hand.street, hand.to_act
        option = _choose(hand)
        assert seat is not None
        hand.apply(seat, option.action)
        if seat == SHORT and option.kind is ActionKind.CALL:
            paid.setdefault(street, hand.contributions[SHORT])
    return [paid[name] for name in STREETS[code]]


@pytest.mark.parametrize(("code", "street"), CASES, ids=[f"{c}-{STREETS[c][k]}" for c, k in CASES])
def test_no_decision_when_betting_is_over(code: str, street: int) -> None:
    """The short stack calls all-in on ``street``: from then on nobody is asked to act, every
    card is dealt, and the hand ends (heads-up O8 pre-flop: the button calls all-in for the big
    blind, who is not asked to check)."""
    seed = 3
    stack = _short_paid_by_street(code, seed)[street]
    hand = _new_hand(code, stack, seed)
    decisions_after_all_in = 0
    while not hand.is_over:
        if hand.stacks[SHORT] == 0:
            decisions_after_all_in += 1
        option = _choose(hand)
        assert hand.to_act is not None
        hand.apply(hand.to_act, option.action)
    assert hand.stacks[SHORT] == 0 or hand.result.final_stacks[SHORT] > 0
    assert decisions_after_all_in == 0
    assert hand.street == STREETS[code][-1]  # dealt to the end
    if get_game(code).is_stud:
        assert all(sum(map(len, hand.cards_of(seat))) == 7 for seat in (DEEP, SHORT))
    else:
        assert len(hand.board) == 5
    assert hand.result.showdown
    assert sum(hand.result.final_stacks.values()) == 10_000 + stack


@pytest.mark.parametrize("short", [10, 8])
def test_no_decision_when_betting_is_over_o8_preflop_heads_up_button_calls_all_in(short: int) -> None:
    """Heads-up the button posts the small blind; he calls all-in for the big blind (or less):
    the big blind is not asked to check, the board is dealt."""
    hand = Hand("O8", OMAHA, [(1, 100), (2, short)], button=2)
    assert hand.to_act == 2
    play(hand, "2:c")
    assert hand.is_over
    assert len(hand.board) == 5
    assert sum(hand.result.final_stacks.values()) == 100 + short


def test_no_decision_when_betting_is_over_o8_preflop_after_all_in_calls() -> None:
    """Three-handed, the button and the small blind call all-in for the big blind: nobody else
    can bet, so the big blind has no option."""
    hand = Hand("O8", OMAHA, [(1, 10), (2, 100), (3, 10)], button=3)
    play(hand, "3:c 1:c")
    assert hand.is_over and len(hand.board) == 5


def test_no_decision_when_betting_is_over_o8_preflop_after_a_fold() -> None:
    """The button calls all-in for the big blind and the small blind folds: the big blind is the
    only player left with chips and owes nothing (PokerKit asks him to check: difference 10)."""
    hand = Hand("O8", OMAHA, [(1, 100), (2, 100), (3, 10)], button=3)
    play(hand, "3:c 1:f")
    assert hand.is_over and len(hand.board) == 5
    assert sum(hand.result.final_stacks.values()) == 210


def test_no_decision_when_betting_is_over_o8_preflop_after_a_protected_timeout() -> None:
    """Heads-up the button times out facing the big blind and is all-in under disconnect
    protection: the big blind is not asked to check."""
    hand = Hand("O8", OMAHA, [(1, 100), (2, 100)], button=2)
    hand.timeout(2)
    assert hand.is_over and len(hand.board) == 5


def test_no_decision_when_betting_is_over_stud_third_street_bring_in_all_in() -> None:
    """The bring-in player posts the bring-in all-in; the other player calls it: nothing is left
    to decide, the hand is dealt to 7th street."""
    # Seat 2's door (2c) brings in; he has the ante and the bring-in only.
    hand = Hand("7S", STUD, [(1, 100), (2, 6)], deck=Deck.stacked("As Kd Ah Kc 9h 2c"))
    assert hand.to_act == 2 and options(hand) == [("bring_in", 5)]
    play(hand, "2:bi")
    assert options(hand) == [("fold", 0), ("call", 5)]  # nobody could call more: no completion
    play(hand, "1:c")
    assert hand.is_over and all(sum(map(len, hand.cards_of(s))) == 7 for s in (1, 2))


def test_no_decision_when_betting_is_over_stud_third_street_all_in_from_the_ante() -> None:
    """Everyone else is all-in from the ante: no bring-in, no decision, the cards are dealt."""
    hand = Hand("RZ", STUD, [(1, 1), (2, 100), (3, 1)], deck=Deck.stacked("As Kd Ah Kc 9h 2c 3c 4c 5c"))
    assert hand.is_over and hand.to_act is None
    assert [e.kind.value for e in hand.events].count("action") == 0


def test_lone_player_with_chips_still_decides_when_he_owes() -> None:
    """Everyone else is all-in, but they bet more than him: he must call or fold."""
    hand = Hand("O8", OMAHA, [(1, 100), (2, 100), (3, 20)], button=3)
    play(hand, "3:r=20 1:f")  # the button raises all-in, the small blind folds
    assert hand.to_act == 2 and options(hand) == [("fold", 10), ("call", 20)]


def test_big_blind_keeps_his_option_while_another_player_may_bet() -> None:
    """The button calls all-in for the big blind, the small blind calls with chips behind: the
    big blind has his option (the small blind could still call a raise)."""
    hand = Hand("O8", OMAHA, [(1, 100), (2, 100), (3, 10)], button=3)
    play(hand, "3:c 1:c")
    assert hand.to_act == 2 and options(hand) == [("check", 10), ("raise", 20)]
