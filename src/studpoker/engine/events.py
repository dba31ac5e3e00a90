"""The hand's event log: every deal, post, action, street, show, muck and award, versioned."""

from __future__ import annotations

from collections.abc import Callable
from enum import StrEnum
from typing import Any, NamedTuple

from studpoker.cards import Card
from studpoker.engine.actions import ActionKind


class EventKind(StrEnum):
    HAND_START = "hand_start"  # detail: game code; amount: none
    POST_ANTE = "post_ante"  # seat, amount, all_in
    POST_BLIND = "post_blind"  # seat, amount, detail "small" | "big", all_in
    DEAL = "deal"  # seat, cards (one card; None when redacted), detail "down" | "up"
    DEAL_BOARD = "deal_board"  # cards: community cards (Omaha board or the stud community card)
    BURN = "burn"  # cards: the burnt card (never shown to anyone by events_for)
    STREET = "street"  # street: the new street (its cards follow)
    BRING_IN_PLAYER = "bring_in_player"  # seat: who must bring in; detail: why
    ACTION = "action"  # seat, action, amount (round total), all_in
    TIMEOUT = "timeout"  # seat, detail "check" | "bring_in" | "protected_all_in" | "fold"
    EXPOSE = "expose"  # seat, cards: down cards turned face up for an all-in run-out
    SHOW = "show"  # seat, cards (all his cards), detail: hand name(s)
    MUCK = "muck"  # seat
    RETURN = "return"  # seat, amount: an uncalled part returned
    AWARD = "award"  # seat, amount, pot (index, 0 = main), detail "high" | "low" | "scoop" | "uncontested"
    HAND_END = "hand_end"


class Event(NamedTuple):
    """One thing that happened. ``visibility`` None means public, else the one seat that may see it.

    Immutable (a named tuple: a hand makes dozens of events, and a tuple is the cheapest frozen
    record to build). Build one with keywords: ``Event(version=1, kind=EventKind.HAND_END)``.
    """

    version: int
    kind: EventKind
    visibility: int | None = None
    seat: int | None = None
    street: str | None = None
    cards: tuple[Card | None, ...] | None = None
    amount: int | None = None
    action: ActionKind | None = None
    all_in: bool = False
    pot: int | None = None
    detail: str | None = None

    def to_dict(self) -> dict[str, object]:
        out: dict[str, object] = {"version": self.version, "kind": self.kind.value}
        if self.visibility is not None:
            out["visibility"] = self.visibility
        if self.seat is not None:
            out["seat"] = self.seat
        if self.street is not None:
            out["street"] = self.street
        if self.cards is not None:
            out["cards"] = [None if c is None else str(c) for c in self.cards]
        if self.amount is not None:
            out["amount"] = self.amount
        if self.action is not None:
            out["action"] = self.action.value
        if self.all_in:
            out["all_in"] = True
        if self.pot is not None:
            out["pot"] = self.pot
        if self.detail is not None:
            out["detail"] = self.detail
        return out


# A raw event, as the hand records it: (kind, visibility, seat, street, cards, amount, action,
# all_in, pot, detail). ``detail`` may be a callable worked out when the event is first read.
RawEvent = tuple[
    EventKind,
    int | None,
    int | None,
    str | None,
    Any,
    int | None,
    ActionKind | None,
    bool,
    int | None,
    str | Callable[[], str] | None,
]


class EventLog:
    """The hand's log: raw tuples appended cheaply, :class:`Event` records built when read."""

    __slots__ = ("_events", "raw")

    def __init__(self) -> None:
        self.raw: list[RawEvent] = []
        self._events: list[Event] = []

    def __len__(self) -> int:
        return len(self.raw)

    def add(
        self,
        kind: EventKind,
        *,
        visibility: int | None = None,
        seat: int | None = None,
        street: str | None = None,
        cards: Any = None,
        amount: int | None = None,
        action: ActionKind | None = None,
        all_in: bool = False,
        pot: int | None = None,
        detail: str | Callable[[], str] | None = None,
    ) -> None:
        self.raw.append((kind, visibility, seat, street, cards, amount, action, all_in, pot, detail))

    def since(self, start: int) -> tuple[Event, ...]:
        """The events after the first ``start`` (version ``start + 1`` on)."""
        events = self._events
        raw = self.raw
        new = tuple.__new__  # Event._make without its length check: the raw records fit
        for k in range(len(events), len(raw)):
            record = raw[k]
            detail = record[9]
            if detail is not None and detail.__class__ is not str:
                assert callable(detail)
                record = (*record[:9], detail())
            events.append(new(Event, (k + 1, *record)))
        return tuple(events[start:])

    def forget(self, cards: frozenset[Card]) -> None:
        """Write ``cards`` as unknown (None) in every event so far (a replayed history's
        stand-ins for its unknown cards); the records are rebuilt when next read."""
        raw = self.raw
        for k, record in enumerate(raw):
            held = record[4]
            if held and any(card in cards for card in held):
                hidden = tuple(None if card in cards else card for card in held)
                raw[k] = (*record[:4], hidden, *record[5:])
        self._events.clear()

    def visible_to(self, seat: int | None, after_version: int = 0) -> tuple[Event, ...]:
        """What ``seat`` (None: a spectator) may see: hidden cards become None."""
        out: list[Event] = []
        for event in self.since(after_version):
            vis = event.visibility
            if vis is None or vis == seat:
                out.append(event)
            else:
                hidden = None if event.cards is None else tuple(None for _ in event.cards)
                out.append(event._replace(visibility=None, cards=hidden))
        return tuple(out)
