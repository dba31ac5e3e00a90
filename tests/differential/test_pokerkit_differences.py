"""Where PokerKit 0.7.7 and the rule book disagree, each shown on a chosen hand.

Each test plays the same cards and actions on both sides and checks that the difference is
exactly the documented one (ours follows docs/rules.md). The random differential tests avoid or
classify these cases; the rule book's PokerKit section lists them.
"""

from __future__ import annotations

import warnings

import pytest
from pokerkit.games import FixedLimitOmahaHoldemHighLowSplitEightOrBetter, FixedLimitPokerMixin
from pokerkit.state import BettingStructure

from studpoker.cards import Deck
from studpoker.engine import Hand
from studpoker.games import Stakes
from tests.differential.peer import (
    AUTOMATIONS,
    BOTH,
    MERGED_POTS,
    SIDE_POT_LOW,
    DivergenceError,
    compat_house,
    play_both,
)

STUD = Stakes(bring_in=2, small_bet=10, big_bet=20)
# Door cards 2c (seat 1 brings in), 9h, Ts.
CARDS = "Ah Kd Qs Ad Kc Qd 2c 9h Ts"


def _divergence(**kwargs: object) -> DivergenceError:
    with pytest.raises(DivergenceError) as info:
        play_both(**kwargs)  # type: ignore[arg-type]
    assert info.value.kind == "options"
    return info.value


def test_pokerkit_fo8_is_pot_limit() -> None:
    """PokerKit's fixed-limit Omaha Hi/Lo class inherits the pot-limit mixin; ours is fixed-limit."""
    assert FixedLimitOmahaHoldemHighLowSplitEightOrBetter.betting_structure is BettingStructure.POT_LIMIT
    hand = Hand(
        "O8",
        Stakes(small_blind=5, big_blind=10, small_bet=10, big_bet=20),
        seats=[(1, 500), (2, 500)],
        button=2,
    )
    raises = [o.amount for o in hand.legal_actions() if o.kind.value == "raise"]
    assert raises == [20]


def test_pokerkit_fo8_preflop_allows_the_blind_and_four_raises() -> None:
    """PokerKit does not count the big blind as the bet: pre-flop it allows 5 bets in all;
    the rule book counts the big blind as the bet (blind + 3 raises)."""

    class FixedO8(FixedLimitPokerMixin, FixedLimitOmahaHoldemHighLowSplitEightOrBetter):
        pass

    state = FixedO8(AUTOMATIONS, True, 0, (5, 10), 10, 20)([500] * 4, 4)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for _ in range(16):
            state.deal_hole()
        for amount in (20, 30, 40):
            state.complete_bet_or_raise_to(amount)
        assert state.can_complete_bet_or_raise_to(50)  # a fifth bet
    hand = Hand(
        "O8",
        Stakes(small_blind=5, big_blind=10, small_bet=10, big_bet=20),
        seats=[(s, 500) for s in (1, 2, 3, 4)],
        button=4,
        house=compat_house("O8"),
    )
    for amount in (20, 30, 40):
        seat = hand.to_act
        assert seat is not None
        option = hand.legal_actions().find(
            next(o.kind for o in hand.legal_actions() if o.kind.value == "raise")
        )
        assert option is not None and option.amount == amount
        hand.apply(seat, option.action)
    assert [o.kind.value for o in hand.legal_actions()] == ["fold", "call"]


def test_short_all_in_raise_sizes_the_next_raise_from_the_full_bet() -> None:
    """§129: an all-in raise of less than half a bet (20 -> 21) does not count; the next raise
    goes to 30 (a full raise over the last full bet). PokerKit sizes it from the all-in: 31."""
    exc = _divergence(
        code="7S",
        seed=1,
        stakes=STUD,
        stacks=[21, 1000, 1000],
        cards=CARDS,
        script=["pb", "cbr 10", "cbr 20", "cbr 21"],
    )
    assert "ours [\"('cbr', 30)\"" in exc.detail and "PokerKit [\"('cbr', 31)\"" in exc.detail


def test_short_all_in_raise_does_not_count_toward_the_cap() -> None:
    """Completion, two raises, then an all-in for one chip more: we have 3 bets, a 4th is
    allowed; PokerKit counts the all-in and stops the raising."""
    exc = _divergence(
        code="7S",
        seed=1,
        stakes=STUD,
        stacks=[1000, 31, 1000],
        cards=CARDS,
        script=["pb", "cbr 10", "cbr 20", "cbr 30", "cbr 31"],
    )
    assert "('cbr', 40)" in exc.detail.split("PokerKit")[0]
    assert "cbr" not in exc.detail.split("PokerKit")[1]


def test_short_all_in_completion_is_completed_to_the_full_bet() -> None:
    """Bring-in 3, an all-in completion to 6 (less than half of the 7 the completion adds): the
    next player may complete to 10. PokerKit asks for a raise to 16."""
    exc = _divergence(
        code="7S",
        seed=1,
        stakes=Stakes(bring_in=3, small_bet=10, big_bet=20),
        stacks=[1000, 6, 1000],
        cards=CARDS,
        script=["pb", "cbr 6"],
    )
    assert "ours [\"('cbr', 10)\"" in exc.detail and "PokerKit [\"('cbr', 16)\"" in exc.detail


def test_short_all_ins_adding_up_to_half_a_bet_reopen_for_the_bettor() -> None:
    """O8 flop: bet 10, all-ins to 14 and 16, a call: the bettor faces 6 since his bet, half a
    bet or more, and may raise to 26 here (§129, R-SHORT-ALL-IN-ADD-UP); PokerKit reopens the
    betting only for a player facing a full bet (10), so it offers him a call or a fold."""
    exc = _divergence(
        code="O8",
        seed=1,
        stakes=Stakes(small_blind=5, big_blind=10, small_bet=10, big_bet=20),
        stacks=[500, 24, 28, 26, 500],
        script=["cc"] * 5 + ["cbr 10", "cbr 14", "cc", "cbr 16", "cc"],
    )
    assert exc.detail.startswith("seat 1:")
    assert "ours [\"('cbr', 26)\", \"('cc', 16)\", 'f']" in exc.detail
    assert "PokerKit [\"('cc', 16)\", 'f']" in exc.detail


def test_short_big_blind_still_sets_the_full_bet() -> None:
    """A big blind all-in for 6 of 10: the others call 10 and raise to 20 here; PokerKit sizes
    both from the 6 posted (call 6, raise to 16)."""
    exc = _divergence(
        code="O8",
        seed=1,
        stakes=Stakes(small_blind=5, big_blind=10, small_bet=10, big_bet=20),
        stacks=[100, 6, 100, 100],
    )
    assert "ours [\"('cbr', 20)\", \"('cc', 10)\"" in exc.detail
    assert "PokerKit [\"('cbr', 16)\", \"('cc', 6)\"" in exc.detail


def test_short_bring_in_others_enter_for_the_full_bring_in() -> None:
    """§217: a bring-in all-in for 1 of 5 stands, but the others enter for the full 5; PokerKit
    lets them call 1."""
    exc = _divergence(
        code="7S",
        seed=1,
        stakes=Stakes(ante=1, bring_in=5, small_bet=10, big_bet=20),
        stacks=[2, 100, 100],
        cards=CARDS,
        script=["pb"],
    )
    assert "('cc', 5)" in exc.detail.split("PokerKit")[0]
    assert "('cc', 1)" in exc.detail.split("PokerKit")[1]


def test_bring_in_player_with_no_more_than_the_bring_in() -> None:
    """PokerKit offers such a player both the bring-in and an all-in "completion" for the same
    chips; we offer the all-in bring-in (and replay PokerKit's 'cbr' as that bring-in)."""
    hand = Hand(
        "7S",
        Stakes(ante=1, bring_in=5, small_bet=10, big_bet=20),
        seats=[(1, 4), (2, 100)],
        deck=Deck.stacked("Ah Kd Qs Ad 2c 9h"),
    )
    assert [(o.kind.value, o.amount, o.all_in) for o in hand.legal_actions()] == [("bring_in", 3, True)]


@pytest.mark.parametrize(("code", "seed"), [("7S8", 483), ("O8", 8)])
def test_side_pot_without_a_low(code: str, seed: int) -> None:
    """A side pot whose contenders have no qualifying low, while the main pot has a low:
    the rule book gives that side pot to its high hand; PokerKit decides the low half once for the
    whole hand and shares the side pot's low half among its contenders (none has a low, and
    PokerKit's ``None`` lows all tie). Pinned seeds of the random generator (re-find them with
    ``play_both`` if the generator changes)."""
    outcome = play_both(code, seed)
    assert outcome.known == SIDE_POT_LOW
    assert sum(outcome.ours) == sum(outcome.theirs)


@pytest.mark.parametrize(("code", "seed"), [("7S8", 666), ("O8", 1233)])
def test_odd_units(code: str, seed: int) -> None:
    """Odd units: PokerKit merges pots contested by the same hands before splitting (7S8 666:
    pots of 37 and 195 split 19/18 and 98/97 here, 148/148 merged) and gives a whole remainder
    to one player (O8 1233: a three-way tie of 245 gives 82/82/81 here, 83/81/81 there)."""
    outcome = play_both(code, seed)
    assert outcome.known == MERGED_POTS
    assert sum(outcome.ours) == sum(outcome.theirs)


def test_side_pot_without_a_low_and_odd_units_in_one_hand() -> None:
    """Both differences in one hand (7S8 1,019,180 of the slow run): the side pots that only
    seats 2, 3 and 7 contest hold no low, and the main pots split high and low between seat 7
    (trip threes) and seat 4 (8-6 low). The rule book splits each pot on its own (293 and 65:
    147/146 and 33/32) and gives the low-less side pots (76, 24) whole to seat 7's high hand;
    PokerKit merges the first two (358: 179/179) and shares the side pots' low halves."""
    outcome = play_both("7S8", 1_019_180)
    assert outcome.known == BOTH
    assert outcome.ours == [0, 480, 646, 178, 820, 923, 280]
    assert sum(outcome.ours) == sum(outcome.theirs)
