"""Several short all-ins in one round, played in studpoker and in PokerKit 0.7.7 (R-SHORT-ALL-IN-ADD-UP).

PokerKit, too, adds short all-ins up from each player's own last action: the player who called
an earlier short all-in and faces less than half a bet more may only call or fold on both sides.
The stacks are chosen so that no decision before the end of the round meets a documented
difference (a raise sized from a short all-in, a half-bet reopening: see
test_pokerkit_differences.py): the two sides agree on every option of the hand and on its end.
"""

from __future__ import annotations

import pytest

from studpoker.games import Stakes
from tests.differential.peer import play_both

STUD = Stakes(ante=1, bring_in=5, small_bet=10, big_bet=20)
OMAHA = Stakes(small_blind=5, big_blind=10, small_bet=10, big_bet=20)
# Seat 2 brings in (7S, 7S8: the 2c is the lowest door card; RZ: the Kc the highest).
HIGH = ("Ah Kh 9c", "Ad Kd 2c", "As Ks 7c", "Qs Qh Jc", "Js Jd Tc")
LOW = ("Ah 2h 3c", "4d 5d Kc", "As 2s 4c", "3s 3h 5c", "2d 4s 6c")


def dealing_order(*hands: str) -> str:
    """The three third-street cards of each player, in the order they are dealt."""
    return " ".join(hand.split()[r] for r in range(3) for hand in hands)


@pytest.mark.parametrize(("code", "cards"), [("7S", HIGH), ("7S8", HIGH), ("RZ", LOW)])
@pytest.mark.parametrize("seed", [0, 1])
def test_stud_caller_of_a_short_all_in_is_not_reopened_on_either_side(
    code: str, cards: tuple[str, ...], seed: int
) -> None:
    # Completion to 10, seat 4 all-in 14, seat 5 calls (3 chips left), seat 1 all-in 16, the
    # bring-in calls all-in; the completer (facing 6) may raise to 26 on both sides, and seat 5
    # (facing 2) may not: fold or call 16.
    outcome = play_both(
        code,
        seed,
        stakes=STUD,
        stacks=[17, 17, 500, 15, 18],
        cards=dealing_order(*cards),
        script=["pb", "cbr 10", "cbr 14", "cc", "cbr 16", "cc", "cc", "cc"],
    )
    assert "seat 5 call 16" in outcome.log
    assert outcome.agree, outcome.log


@pytest.mark.parametrize("seed", [0, 1])
def test_o8_flop_caller_of_a_short_all_in_is_not_reopened_on_either_side(seed: int) -> None:
    # On the flop seat 1 bets 10, seat 2 all-in 14, seat 3 calls (4 chips left), seat 4 all-in
    # 16, seat 5 calls, seat 1 calls all-in; seat 3 (facing 2) may fold or call, on both sides.
    outcome = play_both(
        "O8",
        seed,
        stakes=OMAHA,
        stacks=[26, 24, 28, 26, 500],
        script=["cc"] * 5 + ["cbr 10", "cbr 14", "cc", "cbr 16", "cc", "cc", "cc"],
    )
    assert "seat 3 call 16" in outcome.log
    assert outcome.agree, outcome.log
