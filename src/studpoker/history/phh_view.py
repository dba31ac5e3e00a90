"""A hand's PHH record as one seat saw it: the cards he never saw become ``??``.

A seat sees his own cards, every up card and board card, and the cards turned up for an
all-in run-out or shown at the showdown; the down cards of a player who folded or mucked are
never revealed to him (docs/rules.md, the room), so his copy of the hand writes them ``??``. A card
shown at the showdown stays in the deal where it was dealt, as a history read after the hand
gives it.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

from studpoker.cards import Card
from studpoker.engine.events import EventKind
from studpoker.history.phh import PhhHand, parse_action

if TYPE_CHECKING:
    from studpoker.engine import Hand


def cards_seen(hand: Hand, viewer: int) -> set[Card]:
    """Every card of the finished ``hand`` that seat ``viewer`` saw."""
    seen: set[Card] = set()
    for event in hand.events:
        kind = event.kind
        public = kind in (EventKind.DEAL_BOARD, EventKind.EXPOSE, EventKind.SHOW)
        if public or (kind is EventKind.DEAL and event.visibility in (None, viewer)):
            seen.update(c for c in event.cards or () if c is not None)
    return seen


def seen_by(phh: PhhHand, hand: Hand, viewer: int) -> PhhHand:
    """``phh`` (the record of ``hand``) with the cards ``viewer`` never saw written ``??``."""
    if viewer not in hand.seat_numbers:
        raise ValueError(f"seat {viewer} is not in this hand; seats: {list(hand.seat_numbers)}")
    seen = cards_seen(hand, viewer)
    actions = []
    for number, text in enumerate(phh.actions, 1):
        act = parse_action(text, number, file=phh.source)
        if act.verb == "dh" and any(c is not None and c not in seen for c in act.cards):
            cards = "".join("??" if c is None or c not in seen else str(c) for c in act.cards)
            actions.append(f"d dh p{(act.player or 0) + 1} {cards}")
        else:
            actions.append(text)
    return dataclasses.replace(phh, actions=actions, extra=dict(phh.extra))
