"""Property tests over random games, stacks and actions (hypothesis)."""

from __future__ import annotations

import copy
import gc
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from studpoker.cards import Deck
from studpoker.cli.simulate import play_random
from studpoker.engine import Action, ActionKind, EventKind, ForcedBets, Hand, IllegalActionError
from studpoker.games import GAMES, HouseRules, Stakes


@st.composite
def hands(draw: st.DrawFn) -> tuple[Hand, random.Random]:
    code = draw(st.sampled_from(sorted(GAMES)))
    game = GAMES[code]
    n = draw(st.integers(min_value=2, max_value=game.max_players))
    seats = sorted(draw(st.lists(st.integers(1, 10), min_size=n, max_size=n, unique=True)))
    stacks = draw(
        st.lists(
            st.one_of(st.integers(1, 30), st.integers(30, 400), st.just(10_000)),
            min_size=n,
            max_size=n,
        )
    )
    small = draw(st.sampled_from([2, 4, 10, 20]))
    stakes = Stakes.from_bets(
        small, 2 * small, game, **({"ante": draw(st.integers(0, 3))} if game.kind == "stud" else {})
    )
    house = game.default_house
    if draw(st.booleans()):
        house = HouseRules(
            fourth_street_double_bet=draw(st.booleans()),
            heads_up_uncapped=draw(st.booleans()),
            max_raises=draw(st.integers(0, 5)),
            bring_in_tie=draw(st.sampled_from(["suit", "position"])),
            burn_cards=draw(st.booleans()),
            showdown_first=draw(st.sampled_from(["seat", "board"])),
            odd_chip=draw(st.sampled_from(["high_card_by_suit", "seat_order"])),
        )
    forced = None
    if draw(st.integers(0, 3)) == 0:  # irregular forced bets: per-seat antes, Omaha blinds
        antes = {s: draw(st.integers(0, 3)) for s in seats} if draw(st.booleans()) else None
        blinds = None
        if game.has_button and draw(st.booleans()):
            blinds = {s: draw(st.integers(0, stakes.small_bet)) for s in seats}
        forced = ForcedBets(antes=antes, blinds=blinds)
    rng = random.Random(draw(st.integers(0, 2**32)))
    button = draw(st.sampled_from(seats)) if game.has_button else None
    hand = Hand(
        game,
        stakes,
        list(zip(seats, stacks, strict=True)),
        deck=Deck.shuffled(rng),
        house=house,
        button=button,
        forced=forced,
    )
    return hand, rng


def snapshot(hand: Hand) -> object:
    return (
        hand.version,
        hand.view(None).to_dict(),
        hand.legal_actions(),
        hand.stacks,
        hand.contributions,
        hand.deck.dealt,
    )


def check_privacy(hand: Hand) -> None:
    exposed = any(e.kind == EventKind.EXPOSE for e in hand.events)
    for viewer in (None, *hand.seat_numbers):
        view = hand.view(viewer)
        if not hand.is_over and not exposed:
            for seat in view.seats:
                if seat.seat != viewer:
                    assert all(c is None for c in seat.down), (viewer, seat)
        for event in hand.events_for(viewer):
            if (
                event.kind == EventKind.DEAL
                and event.detail == "down"
                and event.seat != viewer
                and not exposed
            ):
                assert event.cards == (None,)
            if event.kind == EventKind.BURN:
                assert event.cards == (None,)


def random_illegal(hand: Hand, rng: random.Random) -> tuple[int, Action]:
    legal = hand.legal_actions()
    seat = legal.seat or 0
    while True:
        kind = rng.choice(list(ActionKind))
        amount = rng.choice(
            [None, 0, 1, rng.randint(0, 500), *(o.amount + rng.choice([-1, 1]) for o in legal)]
        )
        action = Action(kind=kind, amount=amount)
        if action not in legal:
            return seat, action


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(hands())
def test_random_hands_keep_every_invariant(case: tuple[Hand, random.Random]) -> None:
    hand, rng = case
    total = sum(hand.initial_stacks.values())
    steps = 0
    while not hand.is_over:
        steps += 1
        assert steps < 400
        assert sum(hand.stacks.values()) + sum(hand.contributions.values()) == total
        legal = hand.legal_actions()
        assert legal.seat == hand.to_act and legal.options
        if rng.random() < 0.3:
            seat, action = random_illegal(hand, rng)
            before = snapshot(hand)
            try:
                hand.apply(seat, action)
            except IllegalActionError:
                pass
            else:
                raise AssertionError(f"{action} for seat {seat} was accepted; legal: {legal}")
            assert snapshot(hand) == before
            other = next(s for s in hand.seat_numbers if s != legal.seat)
            try:
                hand.apply(other, legal.options[0].action)
            except IllegalActionError:
                pass
            else:
                raise AssertionError("an action out of turn was accepted")
            assert snapshot(hand) == before
        if rng.random() < 0.1:
            for option in legal.options:  # every listed option applies
                copy.deepcopy(hand).apply(legal.seat or 0, option.action)
        if rng.random() < 0.2:
            check_privacy(hand)
        if rng.random() < 0.05:
            hand.timeout(legal.seat or 0, protection_allowed=rng.random() < 0.5)
        else:
            hand.apply(legal.seat or 0, rng.choice(legal.options).action)
    result = hand.result
    assert sum(result.final_stacks.values()) == total
    assert sum(result.net.values()) == 0
    assert all(v >= 0 for v in result.final_stacks.values())
    won = sum(p.amount for p in result.pots)
    assert won == sum(s.amount for p in result.pots for s in p.shares)
    dealt = [c for e in hand.events if e.cards for c in e.cards if e.kind in ("deal", "deal_board", "burn")]
    assert len(dealt) == len(set(dealt)) == hand.deck.dealt
    assert [e.version for e in hand.events] == list(range(1, hand.version + 1))
    check_privacy(hand)


def test_finished_hands_leave_no_reference_cycle() -> None:
    """A hand is freed by reference counting as soon as it is dropped (speed: no collector work)."""
    play_random("7S8", players=6, hands=5, rng=random.Random(3))  # warm the module caches
    gc.collect()
    enabled = gc.isenabled()
    gc.disable()
    try:
        finished: list[Hand] = []
        play_random("7S8", players=6, hands=50, rng=random.Random(4), on_hand=finished.append)
        assert all(hand.result.final_stacks for hand in finished)
        finished.clear()
        assert gc.collect() == 0
    finally:
        if enabled:
            gc.enable()


def test_events_are_immutable() -> None:
    hand = Hand("7S", Stakes(ante=1, bring_in=5, small_bet=10, big_bet=20), [(1, 100), (2, 100)])
    event = hand.events[0]
    with pytest.raises(AttributeError):
        event.kind = EventKind.HAND_END  # type: ignore[misc]
    assert hand.events[0] == event
