"""The fan-out of one table: its watchers, the table version, and every message to them.

Every message published to the watchers carries the table version (one more than the last).
Messages to a seat are built from the engine's per-seat view only: each engine event is turned
into JSON once per viewer class (the public copy for spectators and every seat the event is not
about; a dealt seat's own copy of an event only it may see in full, its down card) and watchers
of one class get the same pre-encoded text; a message that is the same for everyone is encoded
once. After a batch of events each viewer class gets the openings of the cards its view shows
(docs/fairness.md).

The last event of each batch also carries ``changes``: what changed in the hand's public state
(pots, each seat's chips and flags, the seat to act) since the previous batch, read from one
spectator's view of the engine per batch (not one per viewer) and the same in every copy, so
that a browser draws what the engine says rather than working it out from the events.

Seat changes are coalesced (issue 10, point 2): the first change of a quiet table goes out at
once, changes within the next ``seats_push_seconds`` are gathered and go out in one ``seats``
event when it ends, or just before any other message of the table, so that messages keep
their order.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

from studpoker.engine import EventKind, HandView

from ..protocol import CardsOpenedMsg, ClockInfo, EventMsg, ServerMsg, encode
from .encoding import cards_opened_frame, encoded_event, public_fields, public_seat
from .hand import HandInPlay
from .ports import Clock, Timer, Viewer

# (seat, reason) of each seat that changed, in the order of their last change.
SeatChangeList = list[tuple[int | None, str]]

# The events that can turn a card up to a viewer (a down card to its seat, an up card, the
# board, an all-in exposure, a show); nothing else changes what a view shows.
_CARD_EVENTS = frozenset({EventKind.DEAL, EventKind.DEAL_BOARD, EventKind.EXPOSE, EventKind.SHOW})


class SeatChanges:
    """The seat changes of one table waiting to be published; ``publish`` sends one frame."""

    def __init__(self, interval: float, publish: Callable[[SeatChangeList], None], clock: Clock) -> None:
        self.interval = interval
        self._publish = publish
        self._clock = clock
        # The last reason per seat (``None``: several seats, e.g. busted players cashed out).
        self._pending: dict[int | None, str] = {}
        self._timer: Timer | None = None
        self.frames = 0

    @property
    def pending(self) -> bool:
        return bool(self._pending)

    def add(self, reason: str, seat: int | None) -> None:
        """A seat changed: publish now if no frame went out within ``interval``, else later."""
        self._pending.pop(seat, None)
        self._pending[seat] = reason
        if self._timer is None:
            self.flush()
            if self.interval > 0:
                self._timer = self._clock.call_later(self.interval, self._tick)

    def flush(self) -> None:
        """Publish the pending changes now (one frame), if any."""
        if not self._pending:
            return
        changes = list(self._pending.items())
        self._pending.clear()
        self.frames += 1
        self._publish(changes)

    def cancel(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        self._pending.clear()

    def _tick(self) -> None:
        self._timer = None
        if self._pending:
            # Changes came in during the interval: send them, and keep the pace for the next ones.
            self.flush()
            self._timer = self._clock.call_later(self.interval, self._tick)


class PublicHand:
    """The hand's public state as the watchers were last told it, and what changed since: the
    ``changes`` of the last event of each batch (the first batch of a hand tells all of it)."""

    _UNTOLD = object()

    def __init__(self) -> None:
        self.hand_id: str | None = None
        self._fields: dict[str, Any] = {}
        self._seats: dict[int, dict[str, Any]] = {}

    def changes(self, hand_id: str, view: HandView) -> dict[str, Any]:
        """What of ``view`` (the public one) differs from what was told, now told."""
        if hand_id != self.hand_id:
            self.hand_id, self._fields, self._seats = hand_id, {}, {}
        told, untold = self._fields, self._UNTOLD
        fields = public_fields(view).items()
        changes = {name: value for name, value in fields if told.get(name, untold) != value}
        told.update(changes)
        seats = []
        for seat_view in view.seats:
            # Each seat with only the fields that changed (a new street resets every bet: a few
            # bytes a seat, not the whole seat again). Most seats did not change: one compare.
            told_seat = self._seats.setdefault(seat_view.seat, {})
            now = public_seat(seat_view)
            if now == told_seat:
                continue
            changed = {name: value for name, value in now.items() if told_seat.get(name, untold) != value}
            if changed:
                told_seat.update(changed)
                seats.append({"seat": seat_view.seat, **changed})
        if seats:
            changes["seats"] = seats
        return changes


class SecretBatches:
    """Which dealt seats' viewer classes had every batch of the hand that held a secret (a
    down card): each such batch sends a class the openings of its own cards, so between them
    a class's view shows nothing the public view does not, bar cards it was sent already."""

    def __init__(self) -> None:
        self.hand_id: str | None = None
        self.batches = 0
        self._missed: set[int] = set()

    def seen(self, playing: HandInPlay, present: Iterable[int | None]) -> None:
        """A batch with a secret went to the classes ``present``."""
        if playing.hand_id != self.hand_id:
            self.hand_id, self.batches, self._missed = playing.hand_id, 0, set()
        self.batches += 1
        self._missed.update(set(playing.accounts) - set(present))

    def had_all(self, playing: HandInPlay, seat: int) -> bool:
        return playing.hand_id == self.hand_id and self.batches > 0 and seat not in self._missed


class Fanout:
    """The watchers of a table and its versioned messages to them.

    ``seat_list`` is the seat list as the watchers see it now, ``hand_id`` the hand being
    played (the ``hand_id`` of a table event).
    """

    def __init__(
        self,
        table_id: int,
        clock: Clock,
        *,
        seats_push_seconds: float,
        seat_list: Callable[[], list[dict[str, Any]]],
        hand_id: Callable[[], str | None],
    ) -> None:
        self.table_id = table_id
        self.watchers: dict[int, Viewer] = {}
        self.version = 0
        self._seat_list = seat_list
        self._hand_id = hand_id
        self.seat_changes = SeatChanges(seats_push_seconds, self._send_seats, clock)
        self.public_hand = PublicHand()
        self.secret_batches = SecretBatches()

    # -- watchers -------------------------------------------------------------------------------

    def add(self, conn: Viewer) -> None:
        self.watchers[conn.id] = conn
        conn.tables.add(self.table_id)

    def remove(self, conn: Viewer) -> Viewer | None:
        conn.tables.discard(self.table_id)
        return self.watchers.pop(conn.id, None)

    def to_account(self, account_id: int, message: ServerMsg) -> None:
        """To every watcher of one account (a player may watch from several tabs)."""
        for conn in self.watchers.values():
            if conn.account_id == account_id:
                conn.send(message)

    # -- the same message for everyone ------------------------------------------------------------

    def broadcast(self, build: Callable[[int], ServerMsg]) -> None:
        """One versioned message, the same for every watcher: built and encoded once (seat
        changes waiting to be published go first, so that messages keep their order)."""
        self.seat_changes.flush()
        self._send_same(build)

    def _send_same(self, build: Callable[[int], ServerMsg]) -> None:
        self.version += 1
        message = build(self.version)
        text = encode(message)
        for conn in list(self.watchers.values()):
            conn.send_encoded(text, message)

    def table_event(self, event: dict[str, Any]) -> None:
        """A table event (not the engine's): ``paused``, ``seats``, ``deal_commitment``, ..."""
        self._table_event(event, self.broadcast)

    def _table_event(self, event: dict[str, Any], send: Callable[[Callable[[int], ServerMsg]], None]) -> None:
        hand_id = self._hand_id()
        send(
            lambda version: EventMsg.model_construct(
                type="event",
                table_id=self.table_id,
                version=version,
                hand_id=hand_id,
                event=event,
                clock=None,
            )
        )

    def seat_changed(self, reason: str, seat: int | None = None) -> None:
        self.seat_changes.add(reason, seat)

    def _send_seats(self, changes: SeatChangeList) -> None:
        """One ``seats`` event with the seat list as it is now, for the changes since the last
        one (``reason`` and ``seat`` are the last change's, ``changes`` has each seat's last)."""
        last_seat, last_reason = changes[-1]
        self._table_event(
            {
                "kind": "seats",
                "reason": last_reason,
                "seat": last_seat,
                "changes": [{"seat": seat, "reason": reason} for seat, reason in changes],
                "seats": self._seat_list(),
            },
            self._send_same,
        )

    # -- the engine's events, per viewer class ------------------------------------------------------

    def engine_events(
        self, playing: HandInPlay, seat_of_account: Mapping[int, int], clock: ClockInfo | None = None
    ) -> None:
        """Send the engine events the watchers have not had, each viewer class its own copy;
        ``clock``, the decision that starts after these events, and the ``changes`` they made to
        the hand's public state ride on the last one."""
        hand = playing.hand
        self.seat_changes.flush()
        after = playing.engine_seen
        public = hand.events_for(None, after)
        if not public:
            if clock is not None:
                self.table_event({"kind": "clock", **clock.model_dump()})
            return
        # Who watches from which dealt seat (everyone else sees the public copy).
        dealt = playing.accounts
        groups: dict[int | None, list[Viewer]] = {}
        for conn in list(self.watchers.values()):
            seat = seat_of_account.get(conn.account_id)
            viewer = seat if seat is not None and seat in dealt else None
            groups.setdefault(viewer, []).append(conn)
        # A dealt seat's list matches the public one event for event; where it differs, its
        # copy keeps ``visibility`` (the public copy has it cleared and the cards hidden). Only
        # an event with a ``visibility`` (a down card, a burn) differs from seat to seat: a batch
        # of bets has one copy for all, and no seat's list is asked for.
        unredacted = hand.events[after:]
        secret = any(event.visibility is not None for event in unredacted)
        private = {
            viewer: hand.events_for(viewer, after) for viewer in groups if viewer is not None and secret
        }
        # One public view per batch: the engine's pots, stacks and flags (the same for everyone).
        public_view = hand.view(None)
        changes = self.public_hand.changes(playing.hand_id, public_view)
        table_id = self.table_id
        hand_id = playing.hand_id
        last = len(public) - 1
        clock_data = None if clock is None else clock.model_dump()
        for i, event in enumerate(public):
            self.version += 1
            version = self.version
            on_clock, on_changes = (clock_data, changes) if i == last else (None, None)
            public_copy = encoded_event(
                table_id,
                version,
                hand_id,
                playing.event_data(event),
                on_clock,
                changes=on_changes,
                clock_model=clock,
            )
            for viewer, conns in groups.items():
                copy = public_copy
                if viewer in private:
                    own = private[viewer][i]
                    if own.visibility is not None:
                        copy = encoded_event(
                            table_id,
                            version,
                            hand_id,
                            playing.event_data(own),
                            on_clock,
                            changes=on_changes,
                            clock_model=clock,
                        )
                text, message = copy
                for conn in conns:
                    conn.send_encoded(text, message)
        playing.engine_seen = max(after, *(int(e.version) for e in public))
        # Only a deal or a show turns a card up to someone: after a batch of bets and folds no
        # view has changed, so no view is built (a view per viewer class per action was the
        # server's largest cost under load).
        if secret:
            self.secret_batches.seen(playing, groups)
        if any(event.kind in _CARD_EVENTS for event in public):
            self._send_openings(playing, groups, public_view, secret=secret)

    def _send_openings(
        self,
        playing: HandInPlay,
        groups: Mapping[int | None, list[Viewer]],
        public_view: HandView,
        *,
        secret: bool,
    ) -> None:
        """Each viewer class gets the openings of the cards that its view of the hand shows now
        and that it was not sent yet (one encoded frame per class; the spectators' view is the
        batch's public one). After a batch without a secret (up cards, a show) a seat that had
        every secret batch is given the new cards from the public view: its own view would
        add only cards it was sent already (``SecretBatches``), and a view costs more than
        the rest of the openings."""
        deal, hand = playing.deal, playing.hand
        for viewer, conns in groups.items():
            shared = viewer is None or (not secret and self.secret_batches.had_all(playing, viewer))
            view = public_view if shared else hand.view(viewer)
            positions = deal.newly_visible(viewer, view)
            if not positions:
                continue
            # The frame from each card's text, made once a deal (a model is built for in-process
            # clients only, unvalidated: its openings are the deal's own).
            message = CardsOpenedMsg.model_construct(
                type="cards_opened",
                table_id=self.table_id,
                hand_id=playing.hand_id,
                version=self.version,
                openings=[deal.opening(p) for p in positions],
            )
            text = cards_opened_frame(
                self.table_id, playing.hand_id, self.version, [deal.opening_text(p) for p in positions]
            )
            for conn in conns:
                conn.send_encoded(text, message)
