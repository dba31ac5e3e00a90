"""Several short all-ins in one round (docs/rules.md, R-SHORT-ALL-IN-ADD-UP).

Fixed limit: a player who already acted may raise again only when what he faces since his own
last action is at least half of the bet or raise due (the completion: half of what it adds to the
bring-in); short all-ins add up that way, measured from each player's own last action. The cap
counts the all-in that takes the bet half a bet or more over the last level, and the next raise is
a full one on top of it. The table: ante 1, bring-in 5, small bet 10, big bet 20 (Omaha: blinds
5 and 10).
"""

from __future__ import annotations

import pytest

from studpoker.engine import Hand
from studpoker.games import get_game
from tests.engine.helpers import OMAHA, options, play, stud, stud_deck

# Seat 2 brings in (7S, 7S8: the 2c is the lowest door card; RZ: the Kc the highest).
HIGH = ("Ah Kh 9c", "Ad Kd 2c", "As Ks 7c", "Qs Qh Jc", "Js Jd Tc")
LOW = ("Ah 2h 3c", "4d 5d Kc", "As 2s 4c", "3s 3h 5c", "2d 4s 6c")
STUD_GAMES = [("7S", HIGH), ("7S8", HIGH), ("RZ", LOW)]


def stud_five(code: str, cards: tuple[str, ...], stacks: dict[int, int]) -> Hand:
    hand = stud(code, stud_deck(*cards), stacks)
    assert hand.to_act == 2  # the bring-in
    return hand


def o8_five(stacks: dict[int, int]) -> Hand:
    """Five O8 players, the button on seat 5: seat 1 posts the small blind, seat 2 the big."""
    return Hand(get_game("O8"), OMAHA, sorted(stacks.items()), button=5)


@pytest.mark.parametrize(("code", "cards"), STUD_GAMES)
def test_the_completer_facing_six_more_may_raise(code: str, cards: tuple[str, ...]) -> None:
    # Completion to 10, all-in to 14 (short), a call of 14, all-in to 16: 6 over the completion.
    hand = stud_five(code, cards, {1: 17, 2: 500, 3: 500, 4: 15, 5: 500})
    play(hand, "2:bi 3:co 4:r=14")
    assert options(hand) == [("fold", 0), ("call", 14), ("raise", 20)]  # seat 5 has not acted
    play(hand, "5:c 1:r=16")
    assert options(hand) == [("fold", 5), ("call", 16), ("raise", 26)]  # the bring-in faces 11
    play(hand, "2:c")
    assert options(hand) == [("fold", 10), ("call", 16), ("raise", 26)]  # faces 6: half or more
    play(hand, "3:c")
    assert options(hand) == [("fold", 14), ("call", 16)]  # faces 2: call or fold
    play(hand, "5:c")
    assert hand.street == "fourth"


@pytest.mark.parametrize(("code", "cards"), STUD_GAMES)
def test_the_level_counts_toward_the_cap_and_sizes_the_next_raise(code: str, cards: tuple[str, ...]) -> None:
    # Completion (the bet), all-ins to 14 and 16 (together 6 over 10: one raise), then full
    # raises to 26 and 36: the cap (a bet and three raises) is reached at 36.
    hand = stud_five(code, cards, {1: 17, 2: 500, 3: 500, 4: 15, 5: 500})
    play(hand, "2:bi 3:co 4:r=14 5:c 1:r=16 2:r=26")
    assert options(hand) == [("fold", 10), ("call", 26), ("raise", 36)]
    play(hand, "3:r=36")
    assert options(hand) == [("fold", 14), ("call", 36)]  # capped


@pytest.mark.parametrize(("code", "cards"), STUD_GAMES)
def test_two_short_all_ins_together_under_half_a_bet_do_not_reopen(code: str, cards: tuple[str, ...]) -> None:
    # Completion to 10, all-ins to 12 and 14: the completer faces 4 more, less than half a bet.
    hand = stud_five(code, cards, {1: 500, 2: 500, 3: 500, 4: 13, 5: 15})
    play(hand, "2:bi 3:co 4:r=12 5:r=14")
    assert options(hand) == [("fold", 0), ("call", 14), ("raise", 20)]  # seat 1 has not acted
    play(hand, "1:c")
    assert options(hand) == [("fold", 5), ("call", 14), ("raise", 20)]  # the bring-in faces 9
    play(hand, "2:c")
    assert options(hand) == [("fold", 10), ("call", 14)]
    play(hand, "3:c")
    assert hand.street == "fourth"


@pytest.mark.parametrize(("code", "cards"), STUD_GAMES)
def test_a_later_short_all_in_reopens_a_player_the_level_left_closed(
    code: str, cards: tuple[str, ...]
) -> None:
    # Completion to 10, all-in 14, a call of 14, all-in 16 (the new level: seat 5 faces only 2),
    # then the bring-in all-in to 19: 3 over the level, no raise for the cap, but seat 5 now
    # faces 5 since his call, half a bet: he may raise (to 26, a full raise over the level).
    hand = stud_five(code, cards, {1: 17, 2: 20, 3: 500, 4: 15, 5: 500})
    play(hand, "2:bi 3:co 4:r=14 5:c 1:r=16 2:r=19")
    assert options(hand) == [("fold", 10), ("call", 19), ("raise", 26)]  # faces 9
    play(hand, "3:c")
    assert options(hand) == [("fold", 14), ("call", 19), ("raise", 26)]  # faces 5


@pytest.mark.parametrize(("code", "cards"), STUD_GAMES)
def test_short_all_in_completions_add_up_from_the_bring_in(code: str, cards: tuple[str, ...]) -> None:
    # Bring-in 5; all-in completions to 7 (2 over it: less than half of the 5 a completion adds)
    # and 9 (4 over it: counts as the completion; the next raise goes to 19). The bring-in faces
    # 4 since he posted: he may raise; the caller of 7 faces 2: he may not.
    hand = stud_five(code, cards, {1: 500, 2: 500, 3: 8, 4: 500, 5: 10})
    play(hand, "2:bi 3:co=7")
    assert options(hand) == [("fold", 0), ("call", 7), ("complete", 10)]
    play(hand, "4:c 5:co=9")
    assert options(hand) == [("fold", 0), ("call", 9), ("raise", 19)]  # seat 1 has not acted
    play(hand, "1:c")
    assert options(hand) == [("fold", 5), ("call", 9), ("raise", 19)]
    play(hand, "2:c")
    assert options(hand) == [("fold", 7), ("call", 9)]
    play(hand, "4:c")
    assert hand.street == "fourth"


def test_o8_flop_the_bettor_facing_six_more_may_raise() -> None:
    # Everyone calls the big blind; on the flop seat 1 bets 10, seat 2 all-in 14, seat 3 calls
    # 14, seat 4 all-in 16, seat 5 calls: the bettor faces 6 (raise), the caller of 14 faces 2.
    hand = o8_five({1: 500, 2: 24, 3: 500, 4: 26, 5: 500})
    play(hand, "3:c 4:c 5:c 1:c 2:x")
    assert hand.street == "flop"
    play(hand, "1:b 2:r=14 3:c 4:r=16 5:c")
    assert options(hand) == [("fold", 10), ("call", 16), ("raise", 26)]
    play(hand, "1:c")
    assert options(hand) == [("fold", 14), ("call", 16)]
    play(hand, "3:c")
    assert hand.street == "turn"


def test_o8_pre_flop_with_the_blinds() -> None:
    # Seat 3 raises to 20 over the big blind, seat 4 all-in 24, seat 5 calls 24, the small blind
    # all-in 26: the big blind has not acted, the raiser faces 6 (raise), the caller of 24 faces 2.
    hand = o8_five({1: 26, 2: 500, 3: 500, 4: 24, 5: 500})
    play(hand, "3:r=20 4:r=24 5:c 1:r=26")
    assert options(hand) == [("fold", 10), ("call", 26), ("raise", 36)]
    play(hand, "2:c")
    assert options(hand) == [("fold", 20), ("call", 26), ("raise", 36)]
    play(hand, "3:c")
    assert options(hand) == [("fold", 24), ("call", 26)]
    play(hand, "5:c")
    assert hand.street == "flop"


def test_o8_pre_flop_two_short_all_ins_under_half_a_bet_leave_only_the_big_blind_a_raise() -> None:
    # Seats 3 and 4 call 10, the button all-in 12, the small blind all-in 14: the big blind has
    # not acted (he may raise); the callers of 10 face 4, less than half a bet: call or fold.
    hand = o8_five({1: 14, 2: 500, 3: 500, 4: 500, 5: 12})
    play(hand, "3:c 4:c 5:r=12 1:r=14")
    assert options(hand) == [("fold", 10), ("call", 14), ("raise", 20)]
    play(hand, "2:c")
    assert options(hand) == [("fold", 10), ("call", 14)]
    play(hand, "3:c")
    assert options(hand) == [("fold", 10), ("call", 14)]
    play(hand, "4:c")
    assert hand.street == "flop"
