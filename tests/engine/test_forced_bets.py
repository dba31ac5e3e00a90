"""Irregular forced bets (``Hand(..., forced=ForcedBets(...))``): per-seat antes, Omaha blinds
seat by seat (a single blind, a missing small blind, two big blinds, none)."""

from __future__ import annotations

import pytest

from studpoker.engine import EventKind, ForcedBets, ForcedBetsError, Hand

from .helpers import OMAHA, STUD, check_down, kinds_of, options, play


def _posts(hand: Hand, kind: EventKind) -> list[tuple[int | None, int | None, str | None]]:
    return [(e.seat, e.amount, e.detail) for e in kinds_of(hand.events, kind)]


def test_antes_seat_by_seat() -> None:
    """A button ante or a dead blind is one seat's ante: the others post none; a short one puts
    that player all-in."""
    hand = Hand("7S", STUD, [(1, 100), (2, 100), (3, 3)], forced=ForcedBets(antes={2: 10, 3: 5}))
    assert _posts(hand, EventKind.POST_ANTE) == [(2, 10, None), (3, 3, None)]
    assert hand.contributions == {1: 0, 2: 10, 3: 3}
    check_down(hand)
    assert sum(hand.result.final_stacks.values()) == 203


def test_antes_seat_by_seat_are_dead_money_in_the_main_pot() -> None:
    """The ante only seat 3 posts is not an uncalled bet: it stays in the main pot and goes to
    the winner, though seat 3 ends with the most chips in (his live bets match the others')."""
    hand = Hand("7S", STUD, [(1, 100), (2, 100), (3, 100)], forced=ForcedBets(antes={3: 5}))
    check_down(hand)
    assert hand.contributions[3] == hand.contributions[1] + 5
    assert not kinds_of(hand.events, EventKind.RETURN)
    (pot,) = hand.result.pots
    assert pot.amount == sum(hand.contributions.values()) and pot.eligible == (1, 2, 3)


def test_the_dead_money_goes_to_the_main_pot_a_short_all_in_contests() -> None:
    """Seat 2 is all-in from his ante: the dead antes are the main pot, which he contests; the
    bets after it make a side pot without him."""
    hand = Hand("7S", STUD, [(1, 100), (2, 1), (3, 100)], forced=ForcedBets(antes={2: 1, 3: 5}))
    assert [(p.amount, p.eligible) for p in hand.pots()] == [(6, (1, 2, 3))]
    play(hand, f"{hand.to_act}:bi")
    play(hand, f"{hand.to_act}:c")
    assert [(p.amount, p.eligible) for p in hand.pots()] == [(6, (1, 2, 3)), (10, (1, 3))]
    check_down(hand)
    assert sum(hand.result.final_stacks.values()) == 201
    assert hand.result.pots[0].amount == 6 and hand.result.pots[0].eligible == (1, 2, 3)


def test_a_single_blind_is_the_big_blind() -> None:
    """One blind of the small bet, posted left of the button (PHH ``[10, 0, 0, 0]``): the next
    player acts first, facing a call of 10 or a raise to 20."""
    hand = Hand("O8", OMAHA, [(s, 100) for s in (1, 2, 3, 4)], button=4, forced=ForcedBets(blinds={1: 10}))
    assert _posts(hand, EventKind.POST_BLIND) == [(1, 10, "big")]
    assert hand.to_act == 2 and options(hand) == [("fold", 0), ("call", 10), ("raise", 20)]
    play(hand, "2:c 3:f 4:f")
    assert options(hand) == [("check", 10), ("raise", 20)]  # the blind's option


def test_no_small_blind() -> None:
    """The small blind's seat was empty (PHH ``[0, 10, 0]``): only the big blind posts."""
    hand = Hand("O8", OMAHA, [(1, 100), (2, 100), (3, 100)], button=3, forced=ForcedBets(blinds={2: 10}))
    assert _posts(hand, EventKind.POST_BLIND) == [(2, 10, "big")]
    assert hand.to_act == 3
    play(hand, "3:c 1:c 2:x")
    assert hand.street == "flop" and hand.to_act == 1
    check_down(hand)
    assert sum(hand.result.final_stacks.values()) == 300


def test_two_big_blinds_the_first_player_follows_the_last() -> None:
    hand = Hand(
        "O8",
        OMAHA,
        [(s, 100) for s in (1, 2, 3, 4)],
        button=4,
        forced=ForcedBets(blinds={1: 5, 2: 10, 3: 10}),
    )
    assert _posts(hand, EventKind.POST_BLIND) == [(1, 5, "small"), (2, 10, "big"), (3, 10, "big")]
    assert hand.to_act == 4 and options(hand) == [("fold", 0), ("call", 10), ("raise", 20)]


def test_no_blinds_the_player_left_of_the_button_bets_first() -> None:
    hand = Hand("O8", OMAHA, [(1, 100), (2, 100), (3, 100)], button=3, forced=ForcedBets(blinds={}))
    assert _posts(hand, EventKind.POST_BLIND) == []
    assert hand.to_act == 1 and options(hand) == [("check", 0), ("bet", 10)]


def test_heads_up_blinds_seat_by_seat() -> None:
    """Heads-up too the blinds are whatever the seats post: the player after the big blind acts."""
    hand = Hand("O8", OMAHA, [(1, 100), (2, 100)], button=2, forced=ForcedBets(blinds={1: 10}))
    assert _posts(hand, EventKind.POST_BLIND) == [(1, 10, "big")]
    assert hand.to_act == 2


@pytest.mark.parametrize(
    ("code", "forced", "reason"),
    [
        ("7S", ForcedBets(antes={9: 1}), "antes: seat 9 is not dealt in"),
        ("7S", ForcedBets(antes={1: -1}), "antes: seat 1 must post a whole number of units 0 or more"),
        ("7S", ForcedBets(blinds={1: 5}), "7S has a bring-in, not blinds"),
        ("O8", ForcedBets(blinds={1: 5, 2: 20}), r"blinds \{2: 20\} are above the small bet 10: straddles"),
    ],
)
def test_forced_bets_that_cannot_be_posted(code: str, forced: ForcedBets, reason: str) -> None:
    stakes = STUD if code == "7S" else OMAHA
    with pytest.raises(ForcedBetsError, match=reason):
        Hand(code, stakes, [(1, 100), (2, 100)], button=None if code == "7S" else 2, forced=forced)
