"""The clock rule, per-seat views, redacted events and illegal actions."""

from __future__ import annotations

import json

import pytest

from studpoker.engine import Action, ActionKind, EventKind, Hand, IllegalActionError
from studpoker.games import get_game

from .helpers import OMAHA, STUD, check_down, kinds_of, options, play, stud, stud_deck

THREE = ("Ah Kh 9c 2d 3d 4d 5s", "Ad Kd 2c Kc 3c 4c 5c", "As Ks 7c 7d 3h 4h 5h")


def snapshot(hand: Hand) -> object:
    return (
        hand.version,
        hand.view(None).to_dict(),
        [hand.view(s).to_dict() for s in hand.seat_numbers],
        hand.legal_actions(),
        hand.deck.dealt,
    )


def test_timeout_check_protected_all_in_fold() -> None:
    # Check when checking is free.
    hand = stud("7S", stud_deck(*THREE), [500] * 3)
    play(hand, "2:bi 3:c 1:c")
    events = hand.timeout(3)
    assert [(e.kind, e.detail) for e in events[:1]] == [(EventKind.TIMEOUT, "check")]
    assert kinds_of(events, EventKind.ACTION)[0].action is ActionKind.CHECK

    # Facing a bet with chips in the pot (his ante): protected all-in.
    hand = stud("7S", stud_deck(*THREE), [500] * 3)
    play(hand, "2:bi 3:co")
    events = hand.timeout(1)
    assert [(e.kind, e.detail, e.amount) for e in events[:1]] == [(EventKind.TIMEOUT, "protected_all_in", 1)]
    assert hand.view(None).seat(1).protected
    play(hand, "2:c")
    check_down(hand)
    assert hand.result.pots[0].eligible == (1, 2, 3)
    assert hand.result.pots[0].amount == 3
    assert 1 not in hand.result.pots[1].eligible
    assert hand.result.final_stacks[1] >= 499  # keeps what he had not put in
    assert sum(hand.result.final_stacks.values()) == 1500

    # Protection not allowed (used up): fold.
    hand = stud("7S", stud_deck(*THREE), [500] * 3)
    play(hand, "2:bi 3:co")
    events = hand.timeout(1, protection_allowed=False)
    assert events[0].detail == "fold"
    assert kinds_of(events, EventKind.ACTION)[0].action is ActionKind.FOLD


def test_timeout_without_chips_in_the_pot_folds() -> None:
    hand = Hand(get_game("O8"), OMAHA, [(1, 100), (2, 100), (3, 100)], button=3)
    assert hand.to_act == 3
    events = hand.timeout(3)
    assert events[0].detail == "fold"


def test_timeout_on_the_bring_in_posts_it() -> None:
    hand = stud("7S", stud_deck(*THREE), [500] * 3)
    events = hand.timeout(2)
    assert events[0].detail == "bring_in"
    assert kinds_of(events, EventKind.ACTION)[0].action is ActionKind.BRING_IN


def test_timeout_for_the_wrong_seat_is_illegal() -> None:
    hand = stud("7S", stud_deck(*THREE), [500] * 3)
    with pytest.raises(IllegalActionError, match="seat 2's turn"):
        hand.timeout(1)


def test_protected_all_in_last_opponent_runs_out() -> None:
    hand = stud("7S", stud_deck(*THREE[:2]), [500] * 2)
    play(hand, "2:co")
    hand.timeout(1)
    assert hand.is_over
    assert hand.result.returned == {2: 10}
    assert sum(hand.result.final_stacks.values()) == 1000
    assert len(kinds_of(hand.events, EventKind.EXPOSE)) == 2


def test_view_shows_own_down_cards_only() -> None:
    hand = stud("7S", stud_deck(*THREE), [500] * 3)
    mine = hand.view(1)
    assert [str(c) for c in mine.seat(1).down] == ["Ah", "Kh"]
    assert mine.seat(2).down == (None, None)
    assert [str(c) for c in mine.seat(2).up] == ["2c"]
    assert mine.legal is None  # seat 2 acts
    assert hand.view(2).legal == hand.legal_actions()
    spectator = hand.view(None)
    assert all(c is None for s in spectator.seats for c in s.down)
    json.dumps(spectator.to_dict())
    with pytest.raises(ValueError, match="not in this hand"):
        hand.view(7)


def test_view_after_showdown_shows_shown_hands_not_mucked() -> None:
    deck = stud_deck("Ah Ad 9c Ac 2d 5h 7s", "Kc Qd 3c 8h 4s Jh 6d", "Ts Th 4c 4h 6c 8d 3s")
    hand = stud("7S", deck, [500] * 3)
    check_down(hand)
    spectator = hand.view(None)
    assert spectator.is_over
    assert all(c is not None for c in spectator.seat(1).down)
    assert all(c is None for c in spectator.seat(2).down)  # mucked
    json.dumps(spectator.to_dict())


def test_events_for_redacts_other_down_cards() -> None:
    hand = stud("7S", stud_deck(*THREE), [500] * 3)
    check_down(hand)
    full = hand.events
    for seat in (None, 1, 2, 3):
        seen = hand.events_for(seat)
        assert [e.version for e in seen] == [e.version for e in full]
        for event, truth in zip(seen, full, strict=True):
            if truth.kind == EventKind.DEAL and truth.detail == "down" and truth.seat != seat:
                assert event.cards == (None,)
            elif truth.kind != EventKind.BURN:
                assert event == truth
    assert [e.version for e in hand.events_for(1, after_version=5)] == [e.version for e in full[5:]]
    json.dumps([e.to_dict() for e in hand.events_for(None)])


def test_event_versions_are_consecutive() -> None:
    hand = stud("7S", stud_deck(*THREE), [500] * 3)
    returned = hand.apply(2, Action(kind=ActionKind.BRING_IN))
    assert returned[0].kind == EventKind.ACTION
    check_down(hand)
    assert [e.version for e in hand.events] == list(range(1, hand.version + 1))


@pytest.mark.parametrize(
    ("seat", "action", "message"),
    [
        (1, Action(kind=ActionKind.CALL), "seat 1 cannot call: it is seat 2's turn"),
        (2, Action(kind=ActionKind.FOLD), "fold is not allowed now"),
        (2, Action(kind=ActionKind.COMPLETE, amount=12), "complete now goes to 10"),
        (2, Action(kind=ActionKind.RAISE, amount=10), "raise is not allowed now"),
        (2, Action(kind=ActionKind.BRING_IN, amount=5.0), "whole numbers"),  # type: ignore[arg-type]
        (2, Action(kind=ActionKind.BRING_IN, amount=True), "whole numbers"),
    ],
)
def test_illegal_action_raises_and_changes_nothing(seat: int, action: Action, message: str) -> None:
    hand = stud("7S", stud_deck(*THREE), [500] * 3)
    before = snapshot(hand)
    with pytest.raises(IllegalActionError, match=message) as info:
        hand.apply(seat, action)
    assert info.value.seat == seat
    assert snapshot(hand) == before


def test_fold_not_offered_when_checking_is_free_and_capped_raise_refused() -> None:
    hand = stud("7S", stud_deck(*THREE), [500] * 3)
    play(hand, "2:bi 3:c 1:c")
    assert ("fold", 0) not in options(hand)
    with pytest.raises(IllegalActionError):
        hand.apply(3, Action(kind=ActionKind.FOLD))
    hand = stud("7S", stud_deck(*THREE), [500] * 3)
    play(hand, "2:bi 3:co 1:r=20 2:r=30 3:r=40")
    with pytest.raises(IllegalActionError, match="raise is not allowed"):
        hand.apply(1, Action(kind=ActionKind.RAISE, amount=50))


def test_action_after_the_hand_is_over() -> None:
    hand = stud("7S", stud_deck(*THREE), [500] * 3)
    play(hand, "2:bi 3:f 1:f")
    with pytest.raises(IllegalActionError, match="the hand is over"):
        hand.apply(2, Action(kind=ActionKind.CHECK))
    assert hand.legal_actions().options == ()


@pytest.mark.parametrize(
    ("seats", "message"),
    [
        ([(1, 100)], "2 to 8 players"),
        ([(2, 100), (1, 100)], "clockwise"),
        ([(1, 100), (11, 100)], "1 to 10"),
        ([(1, 100), (2, 0)], "no chips"),
        ([(1, 100), (2, 10.5)], "integer"),
    ],
)
def test_bad_seats_are_refused(seats: list[tuple[int, int]], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        Hand(get_game("7S"), STUD, seats)


def test_omaha_needs_a_button() -> None:
    with pytest.raises(ValueError, match="button"):
        Hand(get_game("O8"), OMAHA, [(1, 100), (2, 100)])
