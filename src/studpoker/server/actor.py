"""One asyncio task per table: the actor that owns the seating, the engine hand and the clock.

Everything that changes a table goes through :meth:`TableActor.submit` as a command; the actor
handles commands one at a time, in order, from its queue, dispatching on the command's class
through a table of handlers. Every message it publishes to the table's watchers carries the
table version (one more than the last), and every message to a seat is built from the engine's
per-seat view (``hand.view(seat)``, ``hand.events_for(seat, ...)``) only; spectators get the
view of seat ``None``.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import enum
import json
import logging
import time
from collections import deque
from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from sqlalchemy.exc import SQLAlchemyError

from studpoker.cards import Card, Deck

# The engine (and numpy under it) is imported with the server, not by the first hand: a lazy
# import there blocked the event loop, and every table with it, for about 1.8 s.
from studpoker.engine import Action, ActionKind, Hand, IllegalActionError
from studpoker.games import HouseRules, Stakes, get_game

from .clock import ActionClock
from .connections import Connection
from .deals import DealInPlay, PendingDeal
from .fanout import SeatChangeList, SeatChanges
from .protocol import (
    AckMsg,
    CardsOpenedMsg,
    ClientSeedInfo,
    ClockInfo,
    ErrorCode,
    ErrorMsg,
    EventMsg,
    HandFinishedMsg,
    HandStartedMsg,
    LegalOptionInfo,
    NextDealInfo,
    SeatInfo,
    TableStateMsg,
    YourTurnMsg,
    _Out,
    encode,
)

if TYPE_CHECKING:
    from studpoker.store.models import TableRecord

    from .lobby import Room

log = logging.getLogger(__name__)


# ----------------------------------------------------------------------------- JSON of engine values


def jsonable(value: Any) -> Any:
    """Engine values (dataclasses, enums, cards, tuples, mappings) as plain JSON data."""
    if value is None or isinstance(value, bool | str | float):
        return value
    if isinstance(value, Card):
        return str(value)
    if isinstance(value, enum.Enum):
        return jsonable(value.value)
    if isinstance(value, int):
        return int(value)
    to_dict = getattr(value, "to_dict", None)
    if callable(to_dict) and not isinstance(value, type):
        return jsonable(to_dict())
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        out: dict[str, Any] = {}
        for f in dataclasses.fields(value):
            if f.name.startswith("_"):
                continue
            out[f.name] = jsonable(getattr(value, f.name))
        return out
    if isinstance(value, Mapping):
        return {str(jsonable(k)): jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple | set | frozenset):
        return [jsonable(v) for v in value]
    return str(value)


def is_database_error(exc: BaseException) -> bool:
    """Whether ``exc`` is the store failing (disk full, database locked or gone)."""
    return isinstance(exc, SQLAlchemyError | OSError | ConnectionError)


def _dumps(data: Any) -> str:
    """Compact JSON text, as pydantic's ``model_dump_json`` writes it."""
    return json.dumps(data, separators=(",", ":"), ensure_ascii=False)


def _encoded_event(
    table_id: int, version: int, hand_id: str | None, data: dict[str, Any], clock: dict[str, Any] | None
) -> tuple[str, EventMsg]:
    """An ``event`` message as JSON text (for the sockets) and as a model (for in-process bots)."""
    envelope: dict[str, Any] = {
        "type": "event",
        "table_id": table_id,
        "version": version,
        "hand_id": hand_id,
        "event": data,
    }
    if clock is not None:
        envelope["clock"] = clock
    message = EventMsg.model_construct(
        type="event",
        table_id=table_id,
        version=version,
        hand_id=hand_id,
        event=data,
        clock=None if clock is None else ClockInfo(**clock),
    )
    return _dumps(envelope), message


def event_dict(event: Any) -> dict[str, Any]:
    data = jsonable(event)
    if not isinstance(data, dict):
        data = {"value": data}
    if "kind" not in data:
        data["kind"] = type(event).__name__
    return data


# ----------------------------------------------------------------------------- commands


@dataclass(kw_only=True)
class Command:
    """Something to do at the table; ``conn`` (if any) gets the ack or the error."""

    conn: Connection | None = None
    ref: str | None = None
    done: asyncio.Future[Any] | None = field(default=None, repr=False)


@dataclass(kw_only=True)
class Watch(Command):
    pass


@dataclass(kw_only=True)
class Unwatch(Command):
    """The connection leaves the table (or closed); the seat, if any, stays."""

    closed: bool = False


@dataclass(kw_only=True)
class Sit(Command):
    seat: int
    buy_in: int


@dataclass(kw_only=True)
class SitOut(Command):
    pass


@dataclass(kw_only=True)
class SitIn(Command):
    pass


@dataclass(kw_only=True)
class StandUp(Command):
    pass


@dataclass(kw_only=True)
class AddChips(Command):
    amount: int


@dataclass(kw_only=True)
class Act(Command):
    hand_id: str
    kind: str
    amount: int | None
    version: int | None


@dataclass(kw_only=True)
class Resync(Command):
    pass


@dataclass(kw_only=True)
class ClientSeed(Command):
    """A seated player's seed for the announced next hand (docs/fairness.md)."""

    hand_id: str
    seed: bytes


@dataclass(kw_only=True)
class ClockExpired(Command):
    serial: int


@dataclass(kw_only=True)
class StartHand(Command):
    pass


@dataclass(kw_only=True)
class RetrySettle(Command):
    """Try again to write the end (or the void) of a finished hand the store refused."""

    hand_id: str


@dataclass(kw_only=True)
class Stop(Command):
    """Shut the table down: void a hand in progress, stop the clock, end the task."""


# ----------------------------------------------------------------------------- seating


@dataclass
class SeatState:
    seat: int
    account_id: int
    name: str
    stack: int
    is_bot: bool = False
    sitting_out: bool = False
    timed_out: bool = False
    leaving: bool = False

    def info(self, connected: bool) -> SeatInfo:
        return SeatInfo(
            seat=self.seat,
            account_id=self.account_id,
            name=self.name,
            stack=self.stack,
            sitting_out=self.sitting_out,
            connected=connected,
            is_bot=self.is_bot,
            bot=self.is_bot,
        )


class TableError(Exception):
    """A refused command: answered to the sender with an ``error`` message."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


Handler = Callable[["TableActor", Any], Awaitable[None]]
_HANDLERS: dict[type[Command], Handler] = {}


def handles(kind: type[Command]) -> Callable[[Handler], Handler]:
    def register(func: Handler) -> Handler:
        _HANDLERS[kind] = func
        return func

    return register


# ----------------------------------------------------------------------------- the actor


class TableActor:
    """The table: seating, the hand in progress, the clock, the watchers."""

    def __init__(
        self,
        room: Room,
        record: TableRecord,
        *,
        think_seconds: float | None = None,
        countdown_seconds: float | None = None,
        hand_pause_seconds: float = 3.0,
    ) -> None:
        self.room = room
        self.record = record
        self.table_id = record.id
        self.config = record.config
        self.seats: dict[int, SeatState] = {}
        self.watchers: dict[int, Connection] = {}
        self.version = 0
        self.hand: Any = None
        self.hand_id: str | None = None
        self.hand_accounts: dict[int, int] = {}
        self.hands_played = 0
        # (finished at, pot) of the recent hands, for the lobby's average pot and hands/hour;
        # seeded from the store at startup (Room.start), appended at every finished hand.
        self.recent_pots: deque[tuple[float, int]] = deque(maxlen=2000)
        self.stats_since = time.time()
        self._engine_seen = 0
        self._decision_version = 0
        self._start_stacks: dict[int, int] = {}
        # The next hand announced (its server seed committed to) and the deal being played.
        self._next_deal: PendingDeal | None = None
        self._deal: DealInPlay | None = None
        self._button: int | None = None
        self.hand_pause_seconds = hand_pause_seconds
        think = float(self.config.think_seconds if think_seconds is None else think_seconds)
        countdown = float(self.config.countdown_seconds if countdown_seconds is None else countdown_seconds)
        self.clock = ActionClock(think, countdown, self._on_clock_expired)
        self.queue: asyncio.Queue[Command] = asyncio.Queue()
        self._task: asyncio.Task[None] | None = None
        self._start_timer: asyncio.TimerHandle | None = None
        self.stopped = False
        # Shutting down: no new hand starts; the one being played may finish.
        self.draining = False
        # True while a hand's start is being written: the hand exists only once the store has it.
        self._starting = False
        # Set while the store refuses writes (a ``paused`` table event told the watchers).
        self.paused: str | None = None
        # A finished hand the store has not taken yet: retried with backoff (RetrySettle).
        self._settle_failures = 0
        self._settle_error: BaseException | None = None
        self._settle_timer: asyncio.TimerHandle | None = None
        # Seat changes are published coalesced: at most one seat list per seats_push_seconds.
        self.seat_changes = SeatChanges(room.settings.seats_push_seconds, self._send_seats)
        # Watchers beyond this are refused (a seated player may always watch his own table).
        self.max_watchers = room.settings.max_watchers_per_table

    # -- lifecycle ----------------------------------------------------------------------------

    def start(self) -> None:
        self._task = asyncio.get_running_loop().create_task(self._run(), name=f"table-{self.table_id}")

    async def stop(self) -> None:
        if self._task is None or self._task.done():
            return
        done: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self.queue.put_nowait(Stop(done=done))
        with contextlib.suppress(asyncio.TimeoutError, Exception):
            await asyncio.wait_for(asyncio.shield(done), 10)
        self._task.cancel()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await self._task

    def submit(self, command: Command) -> None:
        if self.stopped:
            if command.conn is not None:
                command.conn.send(self._error(ErrorCode.TABLE_CLOSED, "the table is closed", command.ref))
            if command.done is not None and not command.done.done():
                command.done.set_result(None)
            return
        self.queue.put_nowait(command)

    async def call(self, command: Command) -> Any:
        """Submit and wait until the command has been handled."""
        command.done = asyncio.get_running_loop().create_future()
        self.submit(command)
        return await command.done

    async def _run(self) -> None:
        while True:
            command = await self.queue.get()
            handler = _HANDLERS[type(command)]
            try:
                await handler(self, command)
            except TableError as exc:
                if command.conn is not None:
                    command.conn.send(self._error(exc.code, exc.message, command.ref))
            except Exception as exc:
                log.exception("table %s: command %r failed", self.table_id, command)
                if command.conn is not None:
                    if is_database_error(exc):
                        error = self._error(
                            ErrorCode.UNAVAILABLE, "the database is unavailable: try again later", command.ref
                        )
                    else:
                        error = self._error(
                            ErrorCode.INTERNAL, "the server could not handle that", command.ref
                        )
                    command.conn.send(error)
                await self._recover()
            finally:
                if command.done is not None and not command.done.done():
                    command.done.set_result(None)
            if isinstance(command, Stop):
                return

    # -- helpers ------------------------------------------------------------------------------

    def _error(self, code: str, message: str, ref: str | None) -> ErrorMsg:
        return ErrorMsg(code=code, message=message, ref=ref, table_id=self.table_id)

    def _ack(self, command: Command, request: str) -> None:
        if command.conn is not None:
            command.conn.send(AckMsg(ref=command.ref, request=request, table_id=self.table_id))

    def seat_of(self, account_id: int) -> SeatState | None:
        for state in self.seats.values():
            if state.account_id == account_id:
                return state
        return None

    def _require_seat(self, command: Command) -> SeatState:
        assert command.conn is not None
        state = self.seat_of(command.conn.account_id)
        if state is None:
            raise TableError(ErrorCode.NOT_SEATED, f"you have no seat at table {self.table_id}")
        return state

    def connected(self, account_id: int) -> bool:
        return self.room.is_connected(account_id, self.table_id)

    def in_hand(self, seat: int) -> bool:
        return self.hand is not None and seat in self.hand_accounts

    def table_info(self) -> dict[str, Any]:
        info: dict[str, Any] = {"id": self.table_id, **dataclasses.asdict(self.config)}
        info["think_seconds"] = self.clock.think_seconds
        info["countdown_seconds"] = self.clock.countdown_seconds
        return info

    def seat_infos(self) -> list[SeatInfo]:
        return [s.info(self.connected(s.account_id)) for _, s in sorted(self.seats.items())]

    def record_pot(self, pot: int, at: float | None = None) -> None:
        self.recent_pots.append((time.time() if at is None else at, int(pot)))

    def stats(self, now: float | None = None) -> tuple[int | None, int]:
        """The average pot and hands per hour (see :func:`table_stats`)."""
        return table_stats(
            self.recent_pots,
            watched_since=self.stats_since,
            now=time.time() if now is None else now,
            window=float(self.room.settings.stats_window_seconds),
        )

    def summary(self) -> dict[str, Any]:
        """For the lobby (REST and the lobby push): the table, its seats, whether a hand is
        running, and its average pot and hands per hour."""
        average_pot, hands_per_hour = self.stats()
        seats = [s.model_dump() for s in self.seat_infos()]
        return {
            "id": self.table_id,
            **dataclasses.asdict(self.config),
            "seated": len(self.seats),
            "bots": sum(1 for s in self.seats.values() if s.is_bot),
            "seats": seats,
            "hand_id": self.hand_id,
            "hands_played": self.hands_played,
            "average_pot": average_pot,
            "hands_per_hour": hands_per_hour,
            "think_seconds": self.clock.think_seconds,
            "countdown_seconds": self.clock.countdown_seconds,
        }

    def _lobby_changed(self) -> None:
        self.room.lobby_changed(self.table_id)

    def _clock_info(self) -> ClockInfo | None:
        d = self.clock.current
        if d is None:
            return None
        return ClockInfo(
            seat=d.seat, think_ends=d.think_ends, countdown_ends=d.countdown_ends, extended=d.extended
        )

    def _viewer_seat(self, conn: Connection) -> int | None:
        state = self.seat_of(conn.account_id)
        return None if state is None else state.seat

    def _engine_seat(self, seat: int | None) -> int | None:
        """The engine's viewer for a table seat: only a seat dealt into the hand sees its cards."""
        if seat is not None and seat in self.hand_accounts:
            return seat
        return None

    def snapshot(self, conn: Connection) -> TableStateMsg:
        seat = self._viewer_seat(conn)
        hand_view = None
        openings: list[dict[str, Any]] = []
        deal = self._deal if self.hand is not None else None
        if self.hand is not None:
            view = self.hand.view(self._engine_seat(seat))
            hand_view = event_dict(view)
            if deal is not None:
                openings = deal.openings(view)
        your_turn = self._your_turn_for(seat) if seat is not None else None
        pending = self._next_deal
        return TableStateMsg(
            table_id=self.table_id,
            version=self.version,
            table=self.table_info(),
            seats=self.seat_infos(),
            your_seat=seat,
            hand_id=self.hand_id,
            hand=hand_view,
            clock=self._clock_info(),
            your_turn=your_turn,
            commitment=None if deal is None else deal.root,
            deck_root=None if deal is None else deal.root,
            seed_commitment=None if deal is None else deal.seed_commitment,
            client_seeds=None if deal is None else [ClientSeedInfo(**c) for c in deal.client_seeds_json()],
            openings=openings,
            next_deal=None if pending is None else NextDealInfo(**pending.announcement()),
        )

    def _broadcast(self, build: Callable[[int | None, int], _Out | None]) -> None:
        """One versioned message to every watcher, built for the watcher's seat."""
        self.seat_changes.flush()
        self.version += 1
        for conn in list(self.watchers.values()):
            message = build(self._viewer_seat(conn), self.version)
            if message is not None:
                conn.send(message)

    def _broadcast_same(self, build: Callable[[int], _Out]) -> None:
        """One versioned message, the same for every watcher: built and encoded once (seat
        changes waiting to be published go first, so that messages keep their order)."""
        self.seat_changes.flush()
        self._send_same(build)

    def _send_same(self, build: Callable[[int], _Out]) -> None:
        self.version += 1
        message = build(self.version)
        text = encode(message)
        for conn in list(self.watchers.values()):
            conn.send_encoded(text, message)

    def _publish_table_event(
        self, event: dict[str, Any], *, send: Callable[[Callable[[int], _Out]], None] | None = None
    ) -> None:
        hand_id = self.hand_id
        (send or self._broadcast_same)(
            lambda version: EventMsg.model_construct(
                type="event",
                table_id=self.table_id,
                version=version,
                hand_id=hand_id,
                event=event,
                clock=None,
            )
        )

    def _publish_seats(self, reason: str, seat: int | None = None) -> None:
        """A seat changed: the seat list goes to the watchers, coalesced (see ``fanout``)."""
        self._lobby_changed()
        self.seat_changes.add(reason, seat)

    def _send_seats(self, changes: SeatChangeList) -> None:
        """One ``seats`` event with the seat list as it is now, for the changes since the last
        one (``reason`` and ``seat`` are the last change's, ``changes`` has each seat's last)."""
        last_seat, last_reason = changes[-1]
        self._publish_table_event(
            {
                "kind": "seats",
                "reason": last_reason,
                "seat": last_seat,
                "changes": [{"seat": seat, "reason": reason} for seat, reason in changes],
                "seats": [s.model_dump() for s in self.seat_infos()],
            },
            send=self._send_same,
        )

    def _publish_engine_events(self, clock: ClockInfo | None = None) -> None:
        """Send the engine events that watchers have not had, each seat its own redacted copy.

        Each event is turned into JSON once per viewer class: the public copy (spectators and
        every seat the event is not about) and, for an event only one seat may see in full (its
        down card), that seat's copy; watchers of one class get the same pre-encoded text.
        ``clock``, the decision that starts after these events, rides on the last one.
        """
        hand = self.hand
        if hand is None:
            return
        self.seat_changes.flush()
        after = self._engine_seen
        public = hand.events_for(None, after)
        if not public:
            if clock is not None:
                self._publish_table_event({"kind": "clock", **clock.model_dump()})
            return
        # Who watches from which dealt seat (everyone else sees the public copy).
        seat_of_account = {s.account_id: s.seat for s in self.seats.values()}
        dealt = self.hand_accounts
        groups: dict[int | None, list[Connection]] = {}
        for conn in list(self.watchers.values()):
            seat = seat_of_account.get(conn.account_id)
            viewer = seat if seat is not None and seat in dealt else None
            groups.setdefault(viewer, []).append(conn)
        # A dealt seat's list matches the public one event for event; where it differs, its
        # copy keeps ``visibility`` (the public copy has it cleared and the cards hidden).
        private: dict[int, tuple[Any, ...]] = {
            viewer: hand.events_for(viewer, after) for viewer in groups if viewer is not None
        }
        table_id = self.table_id
        hand_id = self.hand_id
        last = len(public) - 1
        clock_data = None if clock is None else clock.model_dump()
        for i, event in enumerate(public):
            self.version += 1
            version = self.version
            on_clock = clock_data if i == last else None
            public_copy = _encoded_event(table_id, version, hand_id, event.to_dict(), on_clock)
            for viewer, conns in groups.items():
                copy = public_copy
                if viewer is not None:
                    own = private[viewer][i]
                    if own.visibility is not None:
                        copy = _encoded_event(table_id, version, hand_id, own.to_dict(), on_clock)
                text, message = copy
                for conn in conns:
                    conn.send_encoded(text, message)
        self._engine_seen = max(after, *(int(e.version) for e in public))
        self._send_openings(groups)

    def _send_openings(self, groups: Mapping[int | None, list[Connection]]) -> None:
        """After a batch of events: each viewer class gets the openings of the cards that its
        view of the hand shows now and that it was not sent yet (one encoded frame per class)."""
        deal, hand, hand_id = self._deal, self.hand, self.hand_id
        if deal is None or hand is None or hand_id is None:
            return
        for viewer, conns in groups.items():
            openings = deal.newly_visible(viewer, hand.view(viewer))
            if not openings:
                continue
            message = CardsOpenedMsg(
                table_id=self.table_id, hand_id=hand_id, version=self.version, openings=openings
            )
            text = encode(message)
            for conn in conns:
                conn.send_encoded(text, message)

    # -- the decision and the clock -----------------------------------------------------------

    def _options(self) -> list[LegalOptionInfo]:
        legal = self.hand.legal_actions()
        if legal is None:
            return []
        options = []
        for option in legal.options:
            kind = option.kind
            kind_text = kind.value if isinstance(kind, enum.Enum) else str(kind)
            amount = getattr(option, "amount", None)
            options.append(
                LegalOptionInfo(
                    kind=kind_text,
                    amount=amount,
                    all_in=bool(getattr(option, "all_in", False)),
                )
            )
        return options

    def _your_turn_for(self, seat: int | None) -> YourTurnMsg | None:
        decision = self.clock.current
        if seat is None or decision is None or decision.seat != seat or self.hand_id is None:
            return None
        return YourTurnMsg(
            table_id=self.table_id,
            hand_id=self.hand_id,
            version=self._decision_version,
            seat=seat,
            options=self._options(),
            think_ends=decision.think_ends,
            countdown_ends=decision.countdown_ends,
            server_time=time.time(),
        )

    def _send_to_seat(self, seat: int, message: _Out) -> None:
        state = self.seats.get(seat)
        if state is None:
            return
        for conn in self.watchers.values():
            if conn.account_id == state.account_id:
                conn.send(message)

    def _on_clock_expired(self, serial: int) -> None:
        self.submit(ClockExpired(serial=serial))

    async def _after_change(self) -> None:
        """After the hand moved: publish its events, then finish it or start the next decision.

        The new decision's clock rides on the last event. A seat that is leaving has each of its
        decisions timed out at once: a loop, one turn per decision (no recursion).
        """
        while True:
            hand = self.hand
            if hand is None:
                return
            if hand.is_over:
                self._publish_engine_events()
                await self._finish_hand()
                return
            seat = hand.to_act
            assert self.hand_id is not None
            decision = self.clock.start(self.hand_id, seat)
            self._publish_engine_events(
                ClockInfo(
                    seat=seat,
                    think_ends=decision.think_ends,
                    countdown_ends=decision.countdown_ends,
                    extended=False,
                )
            )
            self._decision_version = self.version
            state = self.seats.get(seat)
            if state is not None and state.leaving:
                await self._time_out(seat, allow_protection=False)
                continue
            turn = self._your_turn_for(seat)
            if turn is not None:
                self._send_to_seat(seat, turn)
            return

    async def _apply_timeout(self, seat: int, *, allow_protection: bool) -> None:
        await self._time_out(seat, allow_protection=allow_protection)
        await self._after_change()

    async def _time_out(self, seat: int, *, allow_protection: bool) -> None:
        """Apply the clock rule to ``seat``'s decision (the caller publishes what follows)."""
        hand = self.hand
        state = self.seats.get(seat)
        protection = False
        if allow_protection and state is not None and self._needs_protection(seat):
            protection = await self.room.use_protected_all_in(state.account_id)
        self.clock.cancel()
        hand.timeout(seat, protection_allowed=protection)
        if state is not None and not state.leaving:
            state.timed_out = True
            state.sitting_out = True

    def _needs_protection(self, seat: int) -> bool:
        """Whether the clock rule would use the protected all-in (checking is not free and the
        player has chips in the pot); only then is one of the day's protections spent."""
        for option in self._options():
            if option.kind in ("check", "bring_in"):
                return False
        contributions = self.hand.contributions
        return bool(contributions.get(seat, 0))

    # -- hands --------------------------------------------------------------------------------

    def _eligible(self) -> list[SeatState]:
        return [
            s for _, s in sorted(self.seats.items()) if not s.sitting_out and not s.leaving and s.stack > 0
        ]

    @property
    def busy(self) -> bool:
        """A hand is being played, or its start is being written (shutdown waits for both)."""
        return self.hand is not None or self._starting

    def _maybe_schedule_hand(self, delay: float | None = None) -> None:
        if self.hand is not None or self._start_timer is not None or self.stopped or self.draining:
            return
        if len(self._eligible()) < 2:
            return
        loop = asyncio.get_running_loop()
        pause = self.hand_pause_seconds if delay is None else delay
        self._start_timer = loop.call_later(pause, self._start_due)
        if self._next_deal is None:
            # The next hand's server seed is committed to now, before any client seed for it
            # can arrive: the server cannot pick a deck after seeing the players' seeds.
            self._next_deal = PendingDeal.draw()
            self._publish_table_event({"kind": "deal_commitment", **self._next_deal.announcement()})

    def _start_due(self) -> None:
        self._start_timer = None
        self.submit(StartHand())

    async def _start_hand(self) -> None:
        players = self._eligible()
        if self.hand is not None or len(players) < 2:
            return
        cfg = self.config
        game = get_game(cfg.game)
        stakes = Stakes(
            ante=cfg.ante,
            bring_in=cfg.bring_in,
            small_bet=cfg.small_bet,
            big_bet=cfg.big_bet,
            small_blind=cfg.small_blind,
            big_blind=cfg.big_blind,
        )
        house = game.default_house
        if cfg.house.strip():
            house = house.with_overrides(cfg.house.split())
        assert isinstance(house, HouseRules)
        seats = [(s.seat, s.stack) for s in players]
        self._start_stacks = {s.seat: s.stack for s in players}
        # The announced deal is taken now: a client seed that arrives from here on is too late.
        pending = self._next_deal or PendingDeal.draw()
        self._next_deal = None
        accounts = {s.seat: s.account_id for s in players}
        deal = DealInPlay(pending, pending.seeds_for(accounts))
        deck = Deck(deal.order, salt="")
        kwargs: dict[str, Any] = {"deck": deck, "house": house}
        if game.kind == "omaha":
            kwargs["button"] = self._next_button([s.seat for s in players])
        hand = Hand(game, stakes, seats=seats, **kwargs)
        hand_id = deal.hand_id
        self._starting = True
        try:
            await self.room.store_start_hand(hand_id, self.table_id, deal, players)
        finally:
            self._starting = False
        self.hand = hand
        self.hand_id = hand_id
        self.hand_accounts = accounts
        self._engine_seen = 0
        self._deal = deal
        self._resume()
        seat_numbers = [s.seat for s in players]
        client_seeds = [ClientSeedInfo(**c) for c in deal.client_seeds_json()]
        self._broadcast_same(
            lambda version: HandStartedMsg(
                table_id=self.table_id,
                version=version,
                hand_id=hand_id,
                game=cfg.game,
                commitment=deal.root,
                seats=seat_numbers,
                deck_root=deal.root,
                seed_commitment=deal.seed_commitment,
                client_seeds=client_seeds,
            )
        )
        self._lobby_changed()
        await self._after_change()

    def _next_button(self, seats: list[int]) -> int:
        if self._button is None:
            self._button = seats[0]
        else:
            later = [s for s in seats if s > self._button]
            self._button = later[0] if later else seats[0]
        return self._button

    async def _finish_hand(self, *, recorded: bool = False) -> None:
        """Write the end of the hand (unless the database has it already: ``recorded``), then
        apply it to the seats and tell everyone."""
        hand = self.hand
        hand_id = self.hand_id
        assert hand_id is not None
        self.clock.cancel()
        result = hand.result
        contributed = {int(k): int(v) for k, v in dict(hand.contributions).items()}
        final_stacks = _final_stacks(result, hand)
        contributions: dict[int, int] = {}
        awards: dict[int, int] = {}
        for seat in self.hand_accounts:
            start = self._start_stack(seat)
            put = contributed.get(seat, 0)
            contributions[seat] = put
            awards[seat] = final_stacks.get(seat, start - put) - start + put
        deal = self._deal
        assert deal is not None
        try:
            if not recorded:
                await self.room.store_finish_hand(
                    hand,
                    hand_id,
                    contributions,
                    awards,
                    deal.order,
                    accounts=self.hand_accounts,
                    table=self.config.name,
                )
        except Exception as exc:
            # Nothing was written (one transaction): the finished hand stays pending, the table
            # waits, and the end is written again later (or the hand voided).
            log.exception("table %s: could not write the end of hand %s", self.table_id, hand_id)
            self._settle_later(exc)
            return
        self._settled()
        for seat, stack in final_stacks.items():
            state = self.seats.get(seat)
            if state is not None and state.account_id == self.hand_accounts.get(seat):
                state.stack = stack
        result_data = jsonable(result)
        if not isinstance(result_data, dict):
            result_data = {"value": result_data}
        result_data.setdefault("contributions", {str(k): v for k, v in contributions.items()})
        result_data.setdefault("awards", {str(k): v for k, v in awards.items()})
        # No deck order and no salt: the cards nobody was shown stay unknown (docs/fairness.md).
        self._broadcast_same(
            lambda version: HandFinishedMsg(
                table_id=self.table_id,
                version=version,
                hand_id=hand_id,
                result=result_data,
                commitment=deal.root,
            )
        )
        self.hand = None
        self.hand_id = None
        self.hand_accounts = {}
        self.hands_played += 1
        self.record_pot(sum(contributions.values()))
        self._lobby_changed()
        await self._after_hand()

    def _start_stack(self, seat: int) -> int:
        return int(self._start_stacks.get(seat, 0))

    async def _after_hand(self) -> None:
        """Cash out leavers and busted players, then schedule the next hand."""
        changed = False
        for seat, state in sorted(self.seats.items()):
            if state.leaving or state.stack <= 0:
                try:
                    await self.room.store_cash_out(state, self.table_id)
                except Exception:
                    log.exception("table %s: could not cash out seat %s", self.table_id, seat)
                    continue
                del self.seats[seat]
                changed = True
        if changed:
            self._publish_seats("stood_up")
        self._maybe_schedule_hand()

    def _pause(self, exc: BaseException) -> None:
        """Tell the watchers (once) that hands cannot go on while the store fails."""
        reason = "database unavailable" if is_database_error(exc) else "internal error"
        if self.paused is None:
            self.paused = reason
            self._publish_table_event({"kind": "paused", "reason": reason})

    def _resume(self) -> None:
        if self.paused is not None:
            self.paused = None
            self._publish_table_event({"kind": "resumed"})

    def _settle_later(self, exc: BaseException) -> None:
        """The store refused the end of the finished hand: retry with backoff."""
        self.clock.cancel()
        self._pause(exc)
        self._settle_failures += 1
        self._settle_error = exc
        if self._settle_timer is not None or self.stopped or self.hand_id is None:
            return
        delay = min(10.0, 0.25 * 2 ** min(self._settle_failures, 8))
        hand_id = self.hand_id
        self._settle_timer = asyncio.get_running_loop().call_later(delay, self._settle_due, hand_id)

    def _settle_due(self, hand_id: str) -> None:
        self._settle_timer = None
        self.submit(RetrySettle(hand_id=hand_id))

    def _settled(self) -> None:
        self._settle_failures = 0
        self._settle_error = None
        if self._settle_timer is not None:
            self._settle_timer.cancel()
            self._settle_timer = None
        self._resume()

    async def _void_hand(self, reason: str, *, recorded: bool = False) -> None:
        """Abandon the hand in progress: the store returns every contribution; stacks as before.
        ``recorded``: the database voided it already (only the table's side is left to do)."""
        hand_id = self.hand_id
        self.clock.cancel()
        if hand_id is None:
            return
        if not recorded:
            await self.room.store_void_hand(hand_id, reason)
        self._settled()
        for seat, stack in self._start_stacks.items():
            state = self.seats.get(seat)
            if state is not None and state.account_id == self.hand_accounts.get(seat):
                state.stack = stack
        self.hand = None
        self.hand_id = None
        self.hand_accounts = {}
        self._publish_table_event({"kind": "hand_voided", "hand_id": hand_id, "reason": reason})
        self._lobby_changed()

    async def _recover(self) -> None:
        """After an unexpected error: if the hand is broken, void it so the table goes on."""
        if self.hand is None:
            self._maybe_schedule_hand()
            return
        try:
            ok = not self.hand.is_over and self.hand.to_act is not None
        except Exception:
            ok = False
        if not ok:
            try:
                await self._void_hand("internal error")
            except Exception as exc:
                log.exception("table %s: could not void hand %s", self.table_id, self.hand_id)
                self._settle_later(exc)
                return
            await self._after_hand()


def table_stats(
    recent: Iterable[tuple[float, int]], *, watched_since: float, now: float, window: float = 3600.0
) -> tuple[int | None, int]:
    """The average pot and hands per hour over the hands (``(finished at, pot)``, oldest first)
    finished in the last ``window`` seconds (an hour).

    While the table has been watched for less than the window (a fresh start with no earlier
    hands in the store), the rate is extrapolated from the time it has been watched, at least
    five minutes of it, so that the first hands do not promise thousands an hour.
    """
    window = max(60.0, window)
    start = now - window
    recent = list(recent)
    pots = [pot for at, pot in recent if at >= start]
    if not pots:
        return None, 0
    watched = now - max(start, min(watched_since, recent[0][0]))
    span = min(window, max(300.0, watched))
    return round(sum(pots) / len(pots)), round(len(pots) * 3600.0 / span)


def _final_stacks(result: Any, hand: Any) -> dict[int, int]:
    stacks = getattr(result, "final_stacks", None) or getattr(result, "stacks", None)
    if stacks is None:
        stacks = getattr(hand, "stacks", {})
    return {int(k): int(v) for k, v in dict(stacks).items()}


# ----------------------------------------------------------------------------- command handlers


@handles(Watch)
async def _watch(actor: TableActor, cmd: Watch) -> None:
    conn = cmd.conn
    assert conn is not None
    state = actor.seat_of(conn.account_id)
    # A seated player coming back (no other connection of his watching): the others see him
    # connected again, and if his clock is running he gets the countdown again (once per decision;
    # a second tab of a connected player gets nothing).
    back = state is not None and conn.id not in actor.watchers and not actor.connected(conn.account_id)
    spectator = state is None and not conn.is_bot and conn.id not in actor.watchers
    if spectator and len(actor.watchers) >= actor.max_watchers:
        raise TableError(
            ErrorCode.TOO_MANY_WATCHERS,
            f"table {actor.table_id} has {actor.max_watchers} watchers already: try again later",
        )
    actor.watchers[conn.id] = conn
    conn.tables.add(actor.table_id)
    extended = False
    if back and state is not None:
        decision = actor.clock.current
        if decision is not None and decision.seat == state.seat and actor.clock.extend():
            extended = True
    actor._ack(cmd, "join_table")
    if back and state is not None:
        actor._publish_seats("connected", state.seat)
    if extended:
        d = actor.clock.current
        assert d is not None
        actor._publish_table_event(
            {
                "kind": "clock",
                "seat": d.seat,
                "think_ends": d.think_ends,
                "countdown_ends": d.countdown_ends,
                "extended": True,
            }
        )
    conn.send(actor.snapshot(conn))


@handles(Unwatch)
async def _unwatch(actor: TableActor, cmd: Unwatch) -> None:
    conn = cmd.conn
    assert conn is not None
    removed = actor.watchers.pop(conn.id, None)
    conn.tables.discard(actor.table_id)
    if not cmd.closed:
        actor._ack(cmd, "leave_table")
    state = actor.seat_of(conn.account_id)
    if removed is not None and state is not None and not actor.connected(conn.account_id):
        actor._publish_seats("disconnected", state.seat)


@handles(Resync)
async def _resync(actor: TableActor, cmd: Resync) -> None:
    conn = cmd.conn
    assert conn is not None
    if conn.id not in actor.watchers:
        raise TableError(ErrorCode.NOT_JOINED, f"join table {actor.table_id} first")
    actor._ack(cmd, "resync")
    conn.send(actor.snapshot(conn))


@handles(ClientSeed)
async def _client_seed(actor: TableActor, cmd: ClientSeed) -> None:
    """Take a seated player's seed for the announced next hand; refuse it, changing nothing,
    when it is late (the hand started, or another id) or a second one for that hand."""
    state = actor._require_seat(cmd)
    pending = actor._next_deal
    if pending is None or cmd.hand_id != pending.hand_id:
        announced = "no hand is announced" if pending is None else f"the next hand is {pending.hand_id}"
        raise TableError(ErrorCode.TOO_LATE, f"hand {cmd.hand_id} takes no more seeds ({announced})")
    sent = pending.seeds.get(state.seat)
    if sent is not None and sent[0] == state.account_id:
        raise TableError(ErrorCode.SEED_ALREADY_SENT, f"you sent your seed for hand {cmd.hand_id} already")
    pending.seeds[state.seat] = (state.account_id, cmd.seed)
    actor._ack(cmd, "client_seed")


@handles(Sit)
async def _sit(actor: TableActor, cmd: Sit) -> None:
    conn = cmd.conn
    assert conn is not None
    cfg = actor.config
    if not 1 <= cmd.seat <= cfg.max_seats:
        raise TableError(ErrorCode.BAD_MESSAGE, f"table {actor.table_id} has seats 1 to {cfg.max_seats}")
    if actor.seat_of(conn.account_id) is not None:
        raise TableError(ErrorCode.ALREADY_SEATED, f"you already have a seat at table {actor.table_id}")
    if cmd.seat in actor.seats:
        raise TableError(ErrorCode.SEAT_TAKEN, f"seat {cmd.seat} is taken")
    if not cfg.min_buy_in <= cmd.buy_in <= cfg.max_buy_in:
        raise TableError(
            ErrorCode.BAD_BUY_IN,
            f"the buy-in must be from {cfg.min_buy_in} to {cfg.max_buy_in}, not {cmd.buy_in}",
        )
    await actor.room.store_buy_in(conn.account_id, actor.table_id, cmd.seat, cmd.buy_in)
    actor.seats[cmd.seat] = SeatState(
        seat=cmd.seat, account_id=conn.account_id, name=conn.name, stack=cmd.buy_in, is_bot=conn.is_bot
    )
    if conn.id not in actor.watchers:
        actor.watchers[conn.id] = conn
        conn.tables.add(actor.table_id)
    actor._ack(cmd, "sit")
    actor._publish_seats("sat", cmd.seat)
    actor._maybe_schedule_hand()


@handles(SitOut)
async def _sit_out(actor: TableActor, cmd: SitOut) -> None:
    state = actor._require_seat(cmd)
    state.sitting_out = True
    actor._ack(cmd, "sit_out")
    actor._publish_seats("sat_out", state.seat)


@handles(SitIn)
async def _sit_in(actor: TableActor, cmd: SitIn) -> None:
    state = actor._require_seat(cmd)
    state.sitting_out = False
    state.timed_out = False
    actor._ack(cmd, "sit_in")
    actor._publish_seats("sat_in", state.seat)
    actor._maybe_schedule_hand()


@handles(StandUp)
async def _stand_up(actor: TableActor, cmd: StandUp) -> None:
    state = actor._require_seat(cmd)
    if actor.in_hand(state.seat):
        # Cashed out after the hand (also one that is over but not yet written); his decisions
        # until then are folded / checked at once.
        actor._ack(cmd, "stand_up")
        state.leaving = True
        actor._publish_seats("leaving", state.seat)
        decision = actor.clock.current
        if not actor.hand.is_over and decision is not None and decision.seat == state.seat:
            await actor._apply_timeout(state.seat, allow_protection=False)
        return
    # Acknowledged once the cash-out is committed: a refused write answers an error only.
    await actor.room.store_cash_out(state, actor.table_id)
    del actor.seats[state.seat]
    actor._ack(cmd, "stand_up")
    actor._publish_seats("stood_up", state.seat)


@handles(AddChips)
async def _add_chips(actor: TableActor, cmd: AddChips) -> None:
    state = actor._require_seat(cmd)
    if actor.in_hand(state.seat):
        raise TableError(ErrorCode.IN_HAND, "chips can be added between hands only")
    if state.leaving:
        raise TableError(ErrorCode.NOT_SEATED, "you are leaving this table")
    limit = actor.config.max_buy_in
    if state.stack + cmd.amount > limit:
        raise TableError(
            ErrorCode.BAD_BUY_IN,
            f"a stack may hold at most {limit}: you can add up to {max(0, limit - state.stack)}",
        )
    await actor.room.store_add_chips(state.account_id, actor.table_id, state.seat, cmd.amount)
    state.stack += cmd.amount
    actor._ack(cmd, "add_chips")
    actor._publish_seats("added_chips", state.seat)
    actor._maybe_schedule_hand()


@handles(Act)
async def _act(actor: TableActor, cmd: Act) -> None:
    state = actor._require_seat(cmd)
    hand = actor.hand
    if hand is None or actor.hand_id is None:
        raise TableError(ErrorCode.NO_HAND, "no hand is being played at this table")
    if cmd.hand_id != actor.hand_id:
        raise TableError(
            ErrorCode.STALE, f"hand {cmd.hand_id} is not the hand being played ({actor.hand_id})"
        )
    if state.seat not in actor.hand_accounts:
        raise TableError(ErrorCode.NOT_YOUR_TURN, "you are not dealt into this hand")
    decision = actor.clock.current
    if decision is None or decision.seat != state.seat or hand.to_act != state.seat:
        raise TableError(ErrorCode.NOT_YOUR_TURN, f"it is not your turn (seat {hand.to_act} to act)")
    if cmd.version is not None and cmd.version != actor._decision_version:
        raise TableError(
            ErrorCode.STALE,
            f"the table moved on: you acted on version {cmd.version},"
            f" the decision is at {actor._decision_version}",
        )
    try:
        kind = ActionKind(cmd.kind)
    except ValueError:
        known = ", ".join(o.kind for o in actor._options())
        raise TableError(
            ErrorCode.ILLEGAL_ACTION, f"{cmd.kind!r} is not an action here (legal: {known})"
        ) from None
    try:
        action = Action(kind=kind, amount=cmd.amount)
        hand.apply(state.seat, action)
    except (IllegalActionError, ValueError, TypeError) as exc:
        raise TableError(ErrorCode.ILLEGAL_ACTION, str(exc)) from None
    actor.clock.cancel()
    if state.timed_out:
        state.timed_out = False
        state.sitting_out = False
    if cmd.ref is not None:
        # Only a tagged action gets an ack: the action event that follows answers it anyway.
        actor._ack(cmd, "action")
    await actor._after_change()


@handles(ClockExpired)
async def _clock_expired(actor: TableActor, cmd: ClockExpired) -> None:
    if not actor.clock.is_current(cmd.serial) or actor.hand is None:
        return
    decision = actor.clock.current
    assert decision is not None
    if actor.hand.to_act != decision.seat:
        return
    await actor._apply_timeout(decision.seat, allow_protection=True)


@handles(StartHand)
async def _start(actor: TableActor, cmd: StartHand) -> None:
    if actor.stopped or actor.draining:
        return
    try:
        await actor._start_hand()
    except Exception as exc:
        # Nothing was dealt (the hand is kept only once the store has it): try again later.
        log.exception("table %s: could not start a hand", actor.table_id)
        actor.hand = None
        actor.hand_id = None
        actor.hand_accounts = {}
        actor._pause(exc)
        actor._maybe_schedule_hand(max(2.0, actor.hand_pause_seconds))


@handles(RetrySettle)
async def _retry_settle(actor: TableActor, cmd: RetrySettle) -> None:
    """Write the end of a finished hand again. While the database is what fails, keep trying
    (its end is what the players saw); after four refusals of another kind, void it instead."""
    hand = actor.hand
    if hand is None or actor.hand_id != cmd.hand_id:
        return
    # A write can commit and still be reported as failed (the reply lost, a COMMIT that timed
    # out on the client side): ask the database first, or the retry is refused for ever.
    try:
        status, void_reason = await actor.room.store_hand_status(cmd.hand_id)
    except Exception:
        # Unreadable: the database is still what fails; the write below is tried again.
        status, void_reason = None, None
    if status == "finished":
        log.warning("table %s: hand %s was recorded already; settling it", actor.table_id, cmd.hand_id)
        await actor._finish_hand(recorded=True)
        return
    if status == "void":
        log.warning("table %s: hand %s was voided already; settling it", actor.table_id, cmd.hand_id)
        await actor._void_hand(void_reason or "could not be recorded", recorded=True)
        await actor._after_hand()
        return
    try:
        over = hand.is_over
    except Exception:
        over = False
    error = actor._settle_error
    if over and (actor._settle_failures < 4 or (error is not None and is_database_error(error))):
        await actor._finish_hand()
        return
    try:
        await actor._void_hand("could not be recorded")
    except Exception as exc:
        log.exception("table %s: could not void hand %s", actor.table_id, cmd.hand_id)
        actor._settle_later(exc)
        return
    await actor._after_hand()


@handles(Stop)
async def _stop(actor: TableActor, cmd: Stop) -> None:
    actor.stopped = True
    actor.seat_changes.cancel()
    if actor._settle_timer is not None:
        actor._settle_timer.cancel()
        actor._settle_timer = None
    if actor._start_timer is not None:
        actor._start_timer.cancel()
        actor._start_timer = None
    if actor.hand is not None:
        await actor._void_hand("server shutdown")
    actor.clock.cancel()
