"""The hand's event log: every deal, post, action, street, show, muck and award, versioned."""

from __future__ import annotations

from collections.abc import Callable
from enum import StrEnum
from typing import Any, NamedTuple, cast

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


# A round of cards dealt one to each of several players, logged as one record (a hand deals
# dozens of cards): (DEAL, private, the seats in deal order, street, their cards, None, None,
# False, None, "down" | "up"); ``private``: each card is seen by its owner only. It reads as
# one DEAL event per card.
DealRound = tuple[EventKind, bool, tuple[int, ...], str, tuple[Card | None, ...], None, None, bool, None, str]
RawRecord = RawEvent | DealRound

HAND_END_EVENT: RawEvent = (EventKind.HAND_END, None, None, None, None, None, None, False, None, None)
"""The last event of every hand: one shared record (raw events are immutable)."""

_DEAL = EventKind.DEAL


# (version,) for the versions so far: the head of each Event, made once (an Event is then a
# concatenation, the cheapest way to build one from its raw record).
_VERSIONS: list[tuple[int]] = [(v,) for v in range(512)]


def _versions(last: int) -> list[tuple[int]]:
    """:data:`_VERSIONS`, long enough for version ``last``."""
    if last >= len(_VERSIONS):
        _VERSIONS.extend((v,) for v in range(len(_VERSIONS), 2 * last))
    return _VERSIONS


def _dealt(record: DealRound, version: int) -> list[Event]:
    """The DEAL events of a round of cards, the first of them ``version``."""
    _, private, seats, street, cards, _, _, _, _, face = record
    new = tuple.__new__
    return [
        new(
            Event, (v, _DEAL, seat if private else None, seat, street, (card,), None, None, False, None, face)
        )
        for v, seat, card in zip(range(version, version + len(cards)), seats, cards, strict=True)
    ]


class EventLog:
    """The hand's log: raw tuples appended cheaply, :class:`Event` records built when read.

    ``raw`` holds one record per event except for a round of cards (:data:`DealRound`), one
    record for the round; ``extra`` counts the events those records hold beyond one each, so
    that the log has ``len(raw) + extra`` events.
    """

    __slots__ = ("_events", "_read", "extra", "raw")

    def __init__(self) -> None:
        self.raw: list[RawRecord] = []
        self.extra = 0
        self._events: list[Event] = []
        self._read = 0  # the raw records already in _events

    def __len__(self) -> int:
        return len(self.raw) + self.extra

    def add_deals(
        self, seats: tuple[int, ...], street: str, cards: tuple[Card, ...], face: str, private: bool
    ) -> None:
        """A round of ``cards``, one to each of ``seats`` in turn, face ``"down"`` or ``"up"``."""
        self.raw.append((_DEAL, private, seats, street, cards, None, None, False, None, face))
        self.extra += len(cards) - 1

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
        done = self._read
        if done < len(raw):
            self._read = len(raw)
            versions = _versions(len(raw) + self.extra)
            new = tuple.__new__  # Event._make without its length check: the raw records fit
            append = events.append
            for record in raw[done:]:
                if record[0] is _DEAL:  # a DealRound: an event per card
                    events += _dealt(cast(DealRound, record), len(events) + 1)
                    continue
                detail = record[9]
                if detail.__class__ is not str and detail is not None:  # worked out now (SHOW)
                    assert callable(detail)
                    append(new(Event, versions[len(events) + 1] + (*record[:9], detail())))
                else:
                    append(new(Event, versions[len(events) + 1] + record))
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
        self._read = 0

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
