"""Money and structure (docs/rules.md): the bet size of each street, short all-ins that add up."""

from __future__ import annotations

from studpoker.engine import Hand
from studpoker.games import get_game
from tests.engine.helpers import OMAHA, omaha_deck, options, play, stud, stud_deck

HEADS_UP = ("Ah Kh 9c 2d 3d 4d 5s", "Ad Kd 2c Kc 3c 4c 5c")  # seat 2 brings in with the 2c


def bets_offered(hand: Hand) -> list[tuple[str, int]]:
    return [(kind, amount) for kind, amount in options(hand) if kind in ("bet", "raise", "complete")]


def bet_and_raise_each_street(hand: Hand) -> dict[str, list[tuple[str, int]]]:
    """Bet and call on every street to the end: the bet offered, then the raise offered."""
    sizes: dict[str, list[tuple[str, int]]] = {}
    while not hand.is_over:
        street, seat = hand.street, hand.to_act
        sizes[street] = bets_offered(hand)
        play(hand, f"{seat}:b")
        sizes[f"{street} raise"] = bets_offered(hand)
        play(hand, f"{hand.to_act}:c")
    return sizes


def test_small_bet_on_third_and_fourth_street_big_bet_from_fifth_to_seventh() -> None:
    # 7S8 has no open-pair double bet, so every street offers exactly one size.
    hand = stud("7S8", stud_deck(*HEADS_UP), [500, 500])
    assert bets_offered(hand) == [("complete", 10)]  # third street: the small bet
    play(hand, "2:co")
    assert bets_offered(hand) == [("raise", 20)]  # raises by the small bet too
    play(hand, "1:c")
    sizes = {}
    sizes.update(bet_and_raise_each_street(hand))
    assert sizes == {
        "fourth": [("bet", 10)],
        "fourth raise": [("raise", 20)],
        "fifth": [("bet", 20)],
        "fifth raise": [("raise", 40)],
        "sixth": [("bet", 20)],
        "sixth raise": [("raise", 40)],
        "seventh": [("bet", 20)],
        "seventh raise": [("raise", 40)],
    }


def test_o8_small_bet_pre_flop_and_flop_big_bet_turn_and_river() -> None:
    deck = omaha_deck("Kc Kh Qd Jd", "Ac 2c 9s 9h", board="3d 4s 8h Ks Qc")
    hand = Hand(get_game("O8"), OMAHA, [(1, 500), (2, 500)], button=1, deck=deck)
    sizes = {"preflop": bets_offered(hand)}  # the button (small blind) acts first heads-up
    play(hand, "1:c 2:x")
    sizes.update(bet_and_raise_each_street(hand))
    assert sizes == {
        "preflop": [("raise", 20)],  # the big blind is the small bet; raises by the small bet
        "flop": [("bet", 10)],
        "flop raise": [("raise", 20)],
        "turn": [("bet", 20)],
        "turn raise": [("raise", 40)],
        "river": [("bet", 20)],
        "river raise": [("raise", 40)],
    }


def test_short_all_in_does_not_reopen_for_a_player_who_called_an_earlier_all_in() -> None:
    # Seat 3 completes to 10, seat 4 raises all-in to 14 (short), seat 5 calls 14, seat 1 raises
    # all-in to 16: 2 more than the 14 seat 5 called, less than half a bet. Seat 5 already acted
    # and faces less than half a bet more: he may call or fold, not raise (section 129; the other
    # cases of several short all-ins are in tests/engine/test_short_all_ins.py).
    five = ("Ah Kh 9c", "Ad Kd 2c", "As Ks 7c", "Qs Qh Jc", "Js Jd Tc")  # seat 2 brings in
    hand = stud("7S", stud_deck(*five), {1: 17, 2: 500, 3: 500, 4: 15, 5: 500})
    play(hand, "2:bi 3:co 4:r=14 5:c 1:r=16 2:c 3:c")
    assert hand.to_act == 5
    assert options(hand) == [("fold", 14), ("call", 16)]
