"""Posts to come in at a board game (docs/rules.md, R-O8-POST-TO-COME-IN, R-O8-MISSED-BLINDS):
a live big blind out of position and a small blind posted dead, in the events, the pots, the
order of action and the histories."""

from __future__ import annotations

from studpoker.engine import EventKind, ForcedBets, Hand
from studpoker.games import get_game
from studpoker.history.phh import dump_hand, loads, replay
from studpoker.history.text import text_history

from .helpers import OMAHA, kinds_of, play

SEATS = [(1, 100), (2, 100), (3, 100), (4, 100), (5, 100)]
# Button 1, blinds 2 and 3; seat 4 comes back posting the big blind live and the small dead.
COMING_BACK = ForcedBets(antes={4: 5}, blinds={2: 5, 3: 10, 4: 10}, big_blind=3, dead_blinds=frozenset({4}))


def hand_with_posts(forced: ForcedBets = COMING_BACK) -> Hand:
    return Hand(get_game("O8"), OMAHA, SEATS, button=1, forced=forced)


def test_the_action_starts_left_of_the_table_s_big_blind_not_of_the_poster() -> None:
    hand = hand_with_posts()
    assert hand.to_act == 4  # left of seat 3, the big blind; without big_blind it would be 5
    play(hand, "4:x 5:c 1:c 2:c")  # his blind is live: he checks, facing no more
    assert hand.to_act == 3  # the big blind's option
    play(hand, "3:x")
    assert hand.street == "flop"


def test_the_dead_small_blind_is_dead_money_in_the_pot() -> None:
    hand = hand_with_posts()
    dead = kinds_of(hand.events, EventKind.POST_ANTE)
    assert [(e.seat, e.amount, e.detail) for e in dead] == [(4, 5, "dead_blind")]
    play(hand, "4:x 5:c 1:c 2:c 3:x")
    # Five big blinds and the dead 5: the dead part is not his bet.
    assert sum(p.amount for p in hand.pots()) == 55
    assert hand.contributions[4] == 15


def test_histories_of_a_hand_with_a_dead_blind() -> None:
    hand = hand_with_posts()
    play(hand, "4:x 5:c 1:c 2:c 3:x")
    play(hand, "2:b 3:f 4:f 5:f 1:f")  # a bet on the flop that nobody calls
    text = dump_hand(hand)
    assert "_big_blind_seat = 3" in text
    replayed = replay(loads(text)[0], check_finishing_stacks=False)
    assert replayed.forced == COMING_BACK.__class__(antes={4: 5}, blinds={2: 5, 3: 10, 4: 10}, big_blind=3)
    assert replayed.events[-1] == hand.events[-1] and replayed.to_act == hand.to_act
    lines = text_history(hand).splitlines()
    assert any(line.endswith("posts a dead small blind 0.05") for line in lines), lines


def test_a_big_blind_seat_that_posts_nothing_is_refused() -> None:
    try:
        hand_with_posts(ForcedBets(blinds={2: 5, 3: 10}, big_blind=4))
    except ValueError as exc:
        assert "seat 4 posts no blind" in str(exc)
    else:
        raise AssertionError("accepted")
