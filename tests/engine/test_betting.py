"""Betting: cap, heads-up, short all-ins, the 4th street double bet, table stakes and side pots."""

from __future__ import annotations

from studpoker.engine import EventKind
from studpoker.games import HouseRules, Stakes

from .helpers import check_down, kinds_of, options, play, stud, stud_deck

THREE = ("Ah Kh 9c 2d 3d 4d 5s", "Ad Kd 2c Kc 3c 4c 5c", "As Ks 7c 7d 3h 4h 5h")
FOUR = (*THREE, "Qs Qh Jc Js 6c 6d 6h")


def test_cap_bet_and_three_raises() -> None:
    hand = stud("7S", stud_deck(*FOUR), [500] * 4)
    play(hand, "2:bi 3:co 4:r=20 1:r=30 2:r=40")
    assert options(hand) == [("fold", 10), ("call", 40)]  # completion + 3 raises: capped


def test_bring_in_player_completing_is_the_bet_for_the_cap() -> None:
    hand = stud("7S", stud_deck(*FOUR), [500] * 4)
    play(hand, "2:co=10 3:r=20 4:r=30 1:r=40")
    assert options(hand) == [("fold", 10), ("call", 40)]


def test_max_raises_switch() -> None:
    house = HouseRules(fourth_street_double_bet=True, max_raises=4)
    hand = stud("7S", stud_deck(*FOUR), [500] * 4, house=house)
    play(hand, "2:bi 3:co 4:r=20 1:r=30 2:r=40")
    assert options(hand) == [("fold", 10), ("call", 40), ("raise", 50)]
    play(hand, "3:r=50")
    assert options(hand) == [("fold", 20), ("call", 50)]


def test_heads_up_uncapped() -> None:
    hand = stud("7S", stud_deck(*THREE[:2]), [500] * 2)
    play(hand, "2:bi 1:co 2:r=20 1:r=30 2:r=40 1:r=50 2:r=60")
    assert options(hand) == [("fold", 50), ("call", 60), ("raise", 70)]


def test_heads_up_uncapped_off_caps() -> None:
    house = HouseRules(fourth_street_double_bet=True, heads_up_uncapped=False)
    hand = stud("7S", stud_deck(*THREE[:2]), [500] * 2, house=house)
    play(hand, "2:bi 1:co 2:r=20 1:r=30 2:r=40")
    assert options(hand) == [("fold", 30), ("call", 40)]


def test_heads_up_uncapped_only_when_the_round_begins_heads_up() -> None:
    hand = stud("7S", stud_deck(*THREE), [500] * 3)
    play(hand, "2:bi 3:f 1:co 2:r=20 1:r=30 2:r=40")
    assert options(hand) == [("fold", 30), ("call", 40)]  # began three-handed: capped
    play(hand, "1:c")
    assert hand.street == "fourth"
    play(hand, "2:b=10 1:r=20 2:r=30 1:r=40 2:r=50")  # began heads-up: uncapped
    assert options(hand)[-1] == ("raise", 60)


def test_heads_up_counts_players_not_all_in() -> None:
    hand = stud("7S", stud_deck(*THREE), [500, 500, 11])
    play(hand, "2:bi 3:co 1:c 2:c")  # seat 3 is all-in: two players with chips remain
    assert hand.street == "fourth"
    first = hand.to_act
    assert first is not None
    other = 1 if first == 2 else 2
    play(hand, f"{first}:b=10 {other}:r=20 {first}:r=30 {other}:r=40 {first}:r=50")
    assert ("raise", 60) in options(hand)  # (seat 3's open sevens allow big raises too)


def test_short_all_in_does_not_reopen() -> None:
    # Seat 3 raises all-in to 14 over a completion to 10: less than half a bet.
    hand = stud("7S", stud_deck(*FOUR), {1: 500, 2: 500, 3: 15, 4: 500})
    play(hand, "2:bi 3:c 4:c 1:co 2:c")
    assert hand.to_act == 3
    play(hand, "3:r=14")  # all-in: 4 more than 10, less than half of a 10 bet
    assert options(hand) == [("fold", 5), ("call", 14), ("raise", 20)]  # seat 4 has not acted
    play(hand, "4:c")
    assert options(hand) == [("fold", 10), ("call", 14)]  # seat 1 already acted: no reopening
    play(hand, "1:c 2:c")
    assert hand.street == "fourth"


def test_short_all_in_of_half_a_bet_or_more_reopens_and_next_raise_is_full() -> None:
    hand = stud("7S", stud_deck(*FOUR), {1: 500, 2: 500, 3: 16, 4: 500})
    play(hand, "2:bi 3:c 4:c 1:co 2:c")
    play(hand, "3:r=15")  # all-in: 5 more than 10 is half a bet: a full raise
    assert options(hand) == [("fold", 5), ("call", 15), ("raise", 25)]
    play(hand, "4:c")
    assert options(hand) == [("fold", 10), ("call", 15), ("raise", 25)]  # reopened for seat 1


def test_short_all_in_counts_toward_the_cap_only_when_half_or_more() -> None:
    hand = stud("7S", stud_deck(*FOUR), {1: 500, 2: 500, 3: 26, 4: 500})
    play(hand, "2:bi 3:c 4:co 1:r=20")
    play(hand, "2:f 3:r=25")  # all-in 5 over 20: half a bet, counts as the second raise
    assert options(hand) == [("fold", 10), ("call", 25), ("raise", 35)]
    play(hand, "4:r=35")  # third raise: the cap
    assert options(hand) == [("fold", 20), ("call", 35)]


def test_short_all_in_bet_may_be_completed_by_a_player_who_has_not_acted() -> None:
    hand = stud("7S", stud_deck(*THREE), {1: 500, 2: 500, 3: 10})
    play(hand, "2:bi 3:c 1:c")
    assert hand.to_act == 3  # open sevens, 4 left
    play(hand, "3:b=4")  # all-in bet of less than half a bet
    assert options(hand) == [("fold", 0), ("call", 4), ("bet", 10), ("bet", 20)]  # open sevens
    play(hand, "1:b=10")  # completes it to the full bet: that is the bet
    assert options(hand) == [("fold", 0), ("call", 10), ("raise", 20), ("raise", 30)]


def test_short_all_in_completion() -> None:
    hand = stud("7S", stud_deck(*THREE), {1: 500, 2: 500, 3: 8})
    play(hand, "2:bi 3:co=7")  # all-in 2 over the bring-in 5: less than half way to 10
    assert options(hand) == [("fold", 0), ("call", 7), ("complete", 10)]
    play(hand, "1:c")
    assert options(hand) == [("fold", 5), ("call", 7)]  # the bring-in already acted
    hand = stud("7S", stud_deck(*THREE), {1: 500, 2: 500, 3: 9})
    play(hand, "2:bi 3:co=8")  # half way or more: counts as the completion
    assert options(hand) == [("fold", 0), ("call", 8), ("raise", 18)]


def test_no_bet_or_raise_when_nobody_can_call_more() -> None:
    hand = stud("7S", stud_deck(*THREE), {1: 500, 2: 500, 3: 11})
    play(hand, "2:bi 3:co 1:f")  # seat 3 completed all-in: seat 2 can only call or fold
    assert options(hand) == [("fold", 5), ("call", 10)]
    hand = stud("7S", stud_deck(*THREE), {1: 11, 2: 500, 3: 500})
    play(hand, "2:bi 3:c 1:co 2:f")  # seat 1 completed all-in
    assert options(hand) == [("fold", 5), ("call", 10)]  # seat 3 has chips but nobody to raise


def test_fourth_street_open_pair_double_bet_7s_only() -> None:
    hand = stud("7S", stud_deck(*THREE), [500] * 3)
    play(hand, "2:bi 3:c 1:c")
    assert options(hand) == [("check", 0), ("bet", 10), ("bet", 20)]
    hand = stud("7S8", stud_deck(*THREE), [500] * 3)
    play(hand, "2:bi 3:c 1:c")
    assert options(hand) == [("check", 0), ("bet", 10)]
    hand = stud("RZ", stud_deck("Ah Kh 9c 9d", "Ad Kd 2c 3c", "As Ks Qc 7d"), [500] * 3)
    play(hand, "3:bi 1:c 2:c")
    assert ("bet", 20) not in options(hand)


def test_fourth_street_double_bet_switch_in_hi_lo() -> None:
    house = HouseRules(fourth_street_double_bet=True)
    hand = stud("7S8", stud_deck(*THREE), [500] * 3, house=house)
    play(hand, "2:bi 3:c 1:c")
    assert options(hand) == [("check", 0), ("bet", 10), ("bet", 20)]


def test_fourth_street_no_double_bet_without_an_open_pair() -> None:
    hand = stud("7S", stud_deck("Ah Kh 9c 2d", "Ad Kd 2c Kc", "As Ks 7c 8d"), [500] * 3)
    play(hand, "2:bi 3:c 1:c")
    assert options(hand) == [("check", 0), ("bet", 10)]


def test_double_bet_after_a_big_bet_every_raise_is_big() -> None:
    hand = stud("7S", stud_deck(*THREE), [500] * 3)
    play(hand, "2:bi 3:c 1:c 3:b=20")
    assert options(hand) == [("fold", 0), ("call", 20), ("raise", 40)]


def test_double_bet_after_a_small_bet_raise_small_or_big() -> None:
    hand = stud("7S", stud_deck(*THREE), [500] * 3)
    play(hand, "2:bi 3:c 1:c 3:b=10")
    assert options(hand) == [("fold", 0), ("call", 10), ("raise", 20), ("raise", 30)]
    play(hand, "1:r=30")  # a raise by the big bet: all further raises are big
    assert options(hand) == [("fold", 0), ("call", 30), ("raise", 50)]
    hand = stud("7S", stud_deck(*THREE), [500] * 3)
    play(hand, "2:bi 3:c 1:c 3:b=10 1:r=20")
    assert options(hand) == [("fold", 0), ("call", 20), ("raise", 30), ("raise", 40)]


def test_table_stakes_all_in_call_for_less() -> None:
    hand = stud("7S", stud_deck(*THREE), {1: 500, 2: 500, 3: 8})
    play(hand, "2:bi 3:c 1:co 2:c")
    assert options(hand) == [("fold", 5), ("call", 7)]
    play(hand, "3:c")
    assert hand.stacks[3] == 0
    assert kinds_of(hand.events, EventKind.ACTION)[-1].all_in is True
    check_down(hand)
    assert sum(hand.result.final_stacks.values()) == 1008


def test_three_way_all_in_two_side_pots() -> None:
    deck = stud_deck(
        "As Ah 2c Ad Ac 3d 4d",  # quad aces (brings in with the 2c)
        "Ks Kh 9s Kd Kc 3h 4h",  # quad kings
        "Qs Qh Ts Qd Qc 3s 4s",  # quad queens
        "5c 7d 9h Jd 3c Td 2d",  # jack high
    )
    hand = stud("7S", deck, [11, 26, 41, 100])
    events = play(hand, "1:bi 2:co 3:r=20 4:r=30 1:c 2:c 3:r=40 4:c")
    assert hand.is_over
    assert [e.seat for e in kinds_of(events, EventKind.EXPOSE)] == [1, 2, 3, 4]
    result = hand.result
    assert [(p.amount, p.eligible) for p in result.pots] == [
        (44, (1, 2, 3, 4)),
        (45, (2, 3, 4)),
        (30, (3, 4)),
    ]
    assert [p.winners for p in result.pots] == [(1,), (2,), (3,)]
    assert result.final_stacks == {1: 44, 2: 45, 3: 30, 4: 59}
    assert result.returned == {}
    assert sum(result.final_stacks.values()) == 178


def test_any_number_of_side_pots() -> None:
    deck = stud_deck(
        "As Ah 2c Ad Ac 3d 4d",
        "Ks Kh 9s Kd Kc 3h 4h",
        "Qs Qh Ts Qd Qc 3s 4s",
        "Js Jh 8s Jd Jc 5s 6s",
        "5c 7d 9h 8d 3c Td 2d",
    )
    stakes = Stakes(ante=1, bring_in=5, small_bet=10, big_bet=20)
    hand = stud("7S", deck, [6, 11, 21, 31, 200], stakes=stakes)
    play(hand, "1:bi 2:co 3:r=20 4:r=30")
    assert options(hand) == [("fold", 0), ("call", 30)]  # nobody left who could call a raise
    play(hand, "5:c")
    assert hand.is_over
    pots = hand.result.pots
    assert [(p.amount, p.eligible) for p in pots] == [
        (30, (1, 2, 3, 4, 5)),
        (20, (2, 3, 4, 5)),
        (30, (3, 4, 5)),
        (20, (4, 5)),
    ]
    assert [p.winners for p in pots] == [(1,), (2,), (3,), (4,)]
    assert hand.result.returned == {}
    assert sum(hand.result.final_stacks.values()) == 269
