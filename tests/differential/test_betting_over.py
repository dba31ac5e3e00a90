"""No decision when betting is over, against PokerKit 0.7.7, both ways through PHH files.

For every game and street, a short stack calls all-in and from then on nobody acts: PokerKit
plays the same hand with the same decisions (``play_both`` compares who acts, the stacks and the
options at every step), the file PokerKit writes of it replays here to its finishing stacks, and
the file we write loads in PokerKit's ``HandHistory`` to the same stacks. Heads-up O8 pre-flop is
the middle-of-a-round case: the button calls all-in for the big blind, who is not asked to check.
"""

from __future__ import annotations

import random

import pytest

from studpoker.cards import Deck
from studpoker.engine import ActionKind, Hand, LegalOption
from studpoker.games import Stakes, get_game
from studpoker.history.phh import dump_hand, finishing_stacks, loads, replay
from tests.differential.peer import Outcome, compat_house, play_both, pokerkit_replays

STREETS = {code: [s.name for s in get_game(code).streets] for code in ("7S", "7S8", "RZ", "O8")}
CASES = [(code, k) for code, names in STREETS.items() for k in range(len(names))]
STUD = Stakes(ante=1, bring_in=2, small_bet=10, big_bet=20)
OMAHA = Stakes(small_blind=5, big_blind=10, small_bet=10, big_bet=20)
DEEP, SHORT = 1, 2
SEED = 5


def _stakes(code: str) -> Stakes:
    return STUD if get_game(code).is_stud else OMAHA


def _choose(hand: Hand) -> LegalOption:
    """The deep stack completes, bets or raises when he may; the short one brings in or calls."""
    legal = hand.legal_actions()
    kinds = [ActionKind.COMPLETE, ActionKind.BET, ActionKind.RAISE] if legal.seat == DEEP else []
    for kind in (*kinds, ActionKind.BRING_IN, ActionKind.CHECK, ActionKind.CALL):
        option = legal.find(kind)
        if option is not None:
            return option
    raise AssertionError(f"no option to choose from {legal.options}")


def _all_in_stack(code: str, street: int) -> int:
    """The short stack that calls all-in on ``street`` (at his first call there), found by
    playing the hand of play_both's deck for ``SEED`` with chips enough."""
    game = get_game(code)
    deck = Deck.shuffled(random.Random(SEED), salt="differential")
    hand = Hand(
        game,
        _stakes(code),
        [(DEEP, 10_000), (SHORT, 10_000)],
        deck=deck,
        house=compat_house(code),
        button=None if game.is_stud else SHORT,
    )
    paid: dict[str, int] = {}
    while not hand.is_over:
        name, seat = hand.street, hand.to_act
        option = _choose(hand)
        assert seat is not None
        hand.apply(seat, option.action)
        if seat == SHORT and option.kind is ActionKind.CALL:
            paid.setdefault(name, hand.contributions[SHORT])
    return paid[STREETS[code][street]]


def _both_ways(code: str, outcome: Outcome) -> None:
    """PokerKit's file of the hand replays here, ours loads there: the same finishing stacks."""
    assert outcome.agree, outcome.log
    seats = list(range(1, len(outcome.stacks) + 1))
    (theirs,) = loads(outcome.pokerkit_phh(), source="pokerkit.phh")
    assert finishing_stacks(replay(theirs, house=compat_house(code)), seats) == outcome.theirs
    assert outcome.hand is not None
    assert pokerkit_replays(dump_hand(outcome.hand)) == outcome.theirs


@pytest.mark.parametrize(("code", "street"), CASES, ids=[f"{c}-{STREETS[c][k]}" for c, k in CASES])
def test_no_decision_when_betting_is_over_matches_pokerkit(code: str, street: int) -> None:
    stack = _all_in_stack(code, street)
    outcome = play_both(code, SEED, stakes=_stakes(code), stacks=[10_000, stack], chooser=_choose)
    assert outcome.hand is not None and outcome.hand.result.showdown
    assert outcome.idle_checks == 0
    _both_ways(code, outcome)


def test_no_decision_when_betting_is_over_o8_preflop_after_all_in_calls_matches_pokerkit() -> None:
    """The button and the small blind call all-in for the big blind: no option for him here nor
    in PokerKit (which drops him when the round begins: nobody could bet against him)."""
    outcome = play_both("O8", SEED, stakes=OMAHA, stacks=[10, 100, 10], script=["cc", "cc"])
    assert outcome.idle_checks == 0
    _both_ways("O8", outcome)


def test_no_decision_when_betting_is_over_o8_preflop_after_a_fold_pokerkit_checks() -> None:
    """The button calls all-in for the big blind and the small blind folds: here the big blind
    has no decision; PokerKit asks him to check (difference 10 in docs/histories.md). Its file,
    with that check, replays here; ours, without it, loads in PokerKit (its reader checks for a
    player who may check when the file goes on without him)."""
    outcome = play_both("O8", SEED, stakes=OMAHA, stacks=[100, 100, 10], script=["cc", "f"])
    assert outcome.idle_checks == 1
    assert "'p2 cc'" in outcome.pokerkit_phh()
    _both_ways("O8", outcome)
