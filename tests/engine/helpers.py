"""Stacked decks and action scripts for the engine tests."""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence

from studpoker.cards import Deck, parse_cards
from studpoker.engine import Action, ActionKind, Event, Hand
from studpoker.games import Game, HouseRules, Stakes, get_game

STUD = Stakes(ante=1, bring_in=5, small_bet=10, big_bet=20)
OMAHA = Stakes(small_blind=5, big_blind=10, small_bet=10, big_bet=20)


def stud_deck(*players: str, folds: Mapping[int, int] | None = None, extra: str = "") -> Deck:
    """The deck for stud hands given each player's cards in deal order (down, down, door, 4th..7th).

    ``folds[i] = k``: player ``i`` (0-based) gets no cards after street ``k`` (0 = third street).
    ``extra`` follows (e.g. the community card). The rest of the deck is a fixed shuffle.
    """
    hands = [parse_cards(p) for p in players]
    folds = folds or {}
    order: list[int] = []
    for r in range(3):
        order += [h[r] for h in hands if len(h) > r]
    for street in range(1, 5):
        for i, h in enumerate(hands):
            if folds.get(i, 9) >= street and len(h) > 2 + street:
                order.append(h[2 + street])
    if extra:
        order += parse_cards(extra)
    return Deck.stacked(order, random.Random(7))


def omaha_deck(*holes: str, board: str = "") -> Deck:
    """Hole cards listed from the player left of the button (the first dealt), then the board."""
    hands = [parse_cards(h) for h in holes]
    order: list[int] = []
    for r in range(4):
        order += [h[r] for h in hands]
    if board:
        order += parse_cards(board)
    return Deck.stacked(order, random.Random(7))


def stud(
    code: str,
    deck: Deck,
    stacks: Sequence[int] | Mapping[int, int],
    stakes: Stakes = STUD,
    house: HouseRules | None = None,
) -> Hand:
    seats = (
        sorted(stacks.items()) if isinstance(stacks, Mapping) else [(i + 1, s) for i, s in enumerate(stacks)]
    )
    return Hand(get_game(code), stakes, seats, deck=deck, house=house)


_KINDS = {
    "f": ActionKind.FOLD,
    "x": ActionKind.CHECK,
    "c": ActionKind.CALL,
    "bi": ActionKind.BRING_IN,
    "co": ActionKind.COMPLETE,
    "b": ActionKind.BET,
    "r": ActionKind.RAISE,
}


def play(hand: Hand, script: str) -> list[Event]:
    """Apply actions written ``seat:kind[=amount]`` (kinds f x c bi co b r), space separated."""
    events: list[Event] = []
    for word in script.split():
        seat_text, _, rest = word.partition(":")
        kind_text, _, amount_text = rest.partition("=")
        action = Action(kind=_KINDS[kind_text], amount=int(amount_text) if amount_text else None)
        if action.amount is None and action.kind in (ActionKind.COMPLETE, ActionKind.BET, ActionKind.RAISE):
            option = hand.legal_actions().find(action.kind)
            assert option is not None, f"{word}: {hand.legal_actions()}"
            action = option.action
        events += hand.apply(int(seat_text), action)
    return events


def check_down(hand: Hand) -> None:
    """Everyone checks (or calls a forced level) until the hand ends."""
    while not hand.is_over:
        legal = hand.legal_actions()
        option = (
            legal.find(ActionKind.CHECK) or legal.find(ActionKind.CALL) or legal.find(ActionKind.BRING_IN)
        )
        assert option is not None
        hand.apply(legal.seat or 0, option.action)


def options(hand: Hand) -> list[tuple[str, int]]:
    return [(o.kind.value, o.amount) for o in hand.legal_actions().options]


def kinds_of(events: Sequence[Event], kind: str) -> list[Event]:
    return [e for e in events if e.kind == kind]


def game(code: str) -> Game:
    return get_game(code)
