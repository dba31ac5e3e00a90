"""One asyncio task per table: the actor that owns the seating, the watchers and the hands.

Everything that changes a table goes through :meth:`TableActor.submit` as a command; the actor
handles commands one at a time, in order, from its queue, dispatching on the command's class to
one of its ``_on_*`` methods. The state is split by what it is about: the seats (``seats.py``),
the watchers and the versioned messages (``fanout.py``), the hands and the table's phase
(``dealer.py``, ``phase.py``), the lobby statistics (``stats.py``). The actor reaches the world
only through its ports (``ports.py``): the store of its table, the lobby, who is connected, a
clock; the viewers it sends to come in with the commands.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, ClassVar

from studpoker.engine import Hand
from studpoker.games import get_game

from ..chat import TableChat, hand_events
from ..protocol import AckMsg, ClientSeedInfo, ErrorCode, ErrorMsg, NextDealInfo, SeatInfo, TableStateMsg
from .commands import (
    Act,
    AddChips,
    AutoTopUp,
    Chat,
    ClientSeed,
    ClockExpired,
    Command,
    FreeIdleSeat,
    LeaveAfterHand,
    PostBlind,
    Resync,
    RetrySettle,
    Sit,
    SitIn,
    SitOut,
    StandUp,
    StartHand,
    Stop,
    TableError,
    Unwatch,
    Watch,
)
from .dealer import Dealer
from .encoding import event_dict, middle_pots
from .fanout import Fanout, SeatChanges
from .hand import stakes_of
from .idle_seats import IdleSeats
from .phase import TablePhase
from .ports import TablePorts, Viewer
from .seating import Seating
from .seats import Seats, SeatState
from .settlement import is_database_error
from .stats import RecentPots
from .time_bank import TimeBankPolicy
from .top_up import ChipDesk

if TYPE_CHECKING:
    from studpoker.store.models import TableConfig, TableRecord

    from ..clock import ActionClock
    from ..deals import PendingDeal
    from ..settings import Settings
    from .hand import HandInPlay

log = logging.getLogger(__name__)

Handler = Callable[["TableActor", Any], Awaitable[None]]


class TableActor:
    """The table: seating, the watchers, the hands (its :class:`Dealer`), the command queue."""

    def __init__(
        self,
        record: TableRecord,
        ports: TablePorts,
        settings: Settings,
        *,
        think_seconds: float | None = None,
        countdown_seconds: float | None = None,
        hand_pause_seconds: float = 3.0,
        seats: Seats | None = None,
    ) -> None:
        self.table_id = record.id
        self.config = record.config
        self.store = ports.store
        self.lobby = ports.lobby
        self.presence = ports.presence
        self.time = ports.clock
        # A tournament table brings its own Seats (who is dealt in: every seat with chips).
        self.seats = seats if seats is not None else Seats(TimeBankPolicy.of(settings, now=ports.clock.now))
        self.pots = RecentPots(since=self.time.now(), window=float(settings.stats_window_seconds))
        self.fanout = Fanout(
            self.table_id,
            self.time,
            seats_push_seconds=settings.seats_push_seconds,
            seat_list=lambda: [s.model_dump() for s in self.seat_infos()],
            hand_id=lambda: self.dealer.hand_id,
        )
        cfg = self.config
        self.dealer = Dealer(
            self.table_id,
            cfg,
            seats=self.seats,
            fanout=self.fanout,
            store=self.store,
            lobby=self.lobby,
            clock=self.time,
            pots=self.pots,
            submit=self.submit,
            seats_changed=self._seat_changed,
            hand_over=self._hand_over,
            think_seconds=float(cfg.think_seconds if think_seconds is None else think_seconds),
            countdown_seconds=float(
                cfg.countdown_seconds if countdown_seconds is None else countdown_seconds
            ),
            hand_pause_seconds=hand_pause_seconds,
        )
        self.seating = Seating(
            self.table_id,
            cfg,
            seats=self.seats,
            store=self.store,
            lobby=self.lobby,
            fanout=self.fanout,
            dealer=self.dealer,
            idle=IdleSeats(settings.idle_seat_seconds, self.time, self.submit),
            connected=self.connected,
        )
        # Chips added and auto top-ups (top_up.py), landed at each hand's end; the wait-list count
        # for the lobby line (the room's server/wait_list.py sets it).
        self.chips = ChipDesk(
            self.table_id, cfg, seats=self.seats, store=self.store, fanout=self.fanout,
            hands=self.dealer, changed=self._seat_changed,
        )  # fmt: skip
        self.waiting: Callable[[], int] = lambda: 0
        # A mixed-game table's hooks (mixed_seats.py): each hand counted as it ends (finished or
        # voided), and the rotation's fields of the lobby line and the snapshot (None: one game).
        self.hand_ended: Callable[[], None] = lambda: None
        self.rotation_info: Callable[[], dict[str, Any] | None] = lambda: None
        # Watchers beyond this are refused (a seated player may always watch his own table).
        self.max_watchers = settings.max_watchers_per_table
        self.chat = TableChat(self.table_id, settings, watchers=self.fanout.watchers, now=self.time.now)
        self.queue: asyncio.Queue[Command] = asyncio.Queue()
        self._task: asyncio.Task[None] | None = None

    # -- what the room and the tests read (the hands' state is the dealer's) --------------------------

    @property
    def phase(self) -> TablePhase:
        return self.dealer.phase

    @property
    def stopped(self) -> bool:
        return self.dealer.phase is TablePhase.STOPPED

    @property
    def busy(self) -> bool:
        """A hand is being played, or its start or end is being written (shutdown waits)."""
        return self.dealer.busy

    @property
    def alive(self) -> bool:
        """The actor's task runs (it was started and has not ended)."""
        return self._task is not None and not self._task.done()

    @property
    def draining(self) -> bool:
        """Shutting down: no new hand starts; the one being played may finish."""
        return self.dealer.draining

    @draining.setter
    def draining(self, value: bool) -> None:
        self.dealer.draining = value

    @property
    def hand_pause_seconds(self) -> float:
        return self.dealer.hand_pause_seconds

    @hand_pause_seconds.setter
    def hand_pause_seconds(self, value: float) -> None:
        self.dealer.hand_pause_seconds = value

    @property
    def playing(self) -> HandInPlay | None:
        return self.dealer.playing

    @property
    def hand(self) -> Hand | None:
        return self.dealer.hand

    @property
    def hand_id(self) -> str | None:
        return self.dealer.hand_id

    @property
    def next_deal(self) -> PendingDeal | None:
        """The next hand, announced (its seed commitment sent); None once it is dealt."""
        return self.dealer.next_deal

    @property
    def paused(self) -> str | None:
        """Why hands cannot go on (the store refuses writes), as the watchers were told."""
        return self.dealer.paused

    @property
    def hands_played(self) -> int:
        return self.dealer.hands_played

    @property
    def clock(self) -> ActionClock:
        return self.dealer.clock

    @property
    def version(self) -> int:
        return self.fanout.version

    @property
    def watchers(self) -> dict[int, Viewer]:
        return self.fanout.watchers

    @property
    def seat_changes(self) -> SeatChanges:
        return self.fanout.seat_changes

    def seat_of(self, account_id: int) -> SeatState | None:
        return self.seats.of_account(account_id)

    def connected(self, account_id: int) -> bool:
        return self.presence.is_connected(account_id, self.table_id)

    def seat_infos(self) -> list[SeatInfo]:
        return self.seats.infos(self.connected)

    def set_config(self, config: TableConfig) -> None:
        """New stakes for the hands to come (a tournament's next level): every part that reads
        the table's config takes this one; a hand in play keeps the stakes it was dealt with."""
        self.config = self.dealer.config = self.seating.config = self.chips.config = config
        # The blinds owed follow the game: a mixed table's board games have a button, stud none.
        self.dealer.blinds.stakes = stakes_of(config)
        self.dealer.blinds.has_button = get_game(config.game).has_button

    def table_info(self) -> dict[str, Any]:
        info: dict[str, Any] = {"id": self.table_id, **dataclasses.asdict(self.config)}
        info["think_seconds"] = self.clock.think_seconds
        info["countdown_seconds"] = self.clock.countdown_seconds
        info["rotation"] = self.rotation_info()
        return info

    def record_pot(self, pot: int, at: float | None = None) -> None:
        self.pots.record(pot, self.time.now() if at is None else at)

    def stats(self, now: float | None = None) -> tuple[int | None, int]:
        """The average pot and hands per hour (see ``stats.table_stats``)."""
        return self.pots.stats(self.time.now() if now is None else now)

    def summary(self) -> dict[str, Any]:
        """For the lobby (REST and the lobby push): the table, its seats, whether a hand is
        running, and its average pot and hands per hour."""
        average_pot, hands_per_hour = self.stats()
        return {
            "id": self.table_id,
            **dataclasses.asdict(self.config),
            "seated": len(self.seats),
            "bots": sum(1 for s in self.seats.values() if s.is_bot),
            "seats": [s.model_dump() for s in self.seat_infos()],
            "hand_id": self.hand_id,
            "hands_played": self.hands_played,
            "average_pot": average_pot,
            "hands_per_hour": hands_per_hour,
            "think_seconds": self.clock.think_seconds,
            "countdown_seconds": self.clock.countdown_seconds,
            "waiting": self.waiting(),
            "rotation": self.rotation_info(),
        }

    def snapshot(self, conn: Viewer) -> TableStateMsg:
        """The whole table as ``conn`` may see it (a join or a resync)."""
        state = self.seats.of_account(conn.account_id)
        seat = None if state is None else state.seat
        playing = self.dealer.playing
        hand_view = None
        openings: list[dict[str, Any]] = []
        deal = None
        if playing is not None:
            deal = playing.deal
            view = playing.hand.view(playing.viewer(seat))
            hand_view = event_dict(view)
            # The pots the table draws, as the events' changes carry them (protocol 1.5).
            hand_view["pots"] = middle_pots(view)
            openings = deal.openings(view)
        pending = self.dealer.next_deal
        return TableStateMsg(
            table_id=self.table_id,
            version=self.version,
            table=self.table_info(),
            seats=self.seat_infos(),
            your_seat=seat,
            hand_id=self.hand_id,
            hand=hand_view,
            clock=self.dealer.clock_info(),
            your_turn=self.dealer.your_turn_for(seat) if seat is not None else None,
            commitment=None if deal is None else deal.root,
            deck_root=None if deal is None else deal.root,
            seed_commitment=None if deal is None else deal.seed_commitment,
            client_seeds=None if deal is None else [ClientSeedInfo(**c) for c in deal.client_seeds_json()],
            openings=openings,
            next_deal=None if pending is None else NextDealInfo(**pending.announcement()),
            your_chips=self.chips.info(state),
            chat=self.chat.snapshot(),
            hand_events=hand_events(playing, seat),
            timeout_notes=[] if playing is None else list(playing.timeout_notes),
        )

    # -- lifecycle ----------------------------------------------------------------------------------

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
        handlers = self._HANDLERS
        while True:
            command = await self.queue.get()
            try:
                await handlers[type(command)](self, command)
            except TableError as exc:
                if command.conn is not None:
                    command.conn.send(self._error(exc.code, exc.message, command.ref))
            except Exception as exc:
                log.exception("table %s: command %r failed", self.table_id, command)
                if command.conn is not None:
                    if is_database_error(exc):
                        code, text = ErrorCode.UNAVAILABLE, "the database is unavailable: try again later"
                    else:
                        code, text = ErrorCode.INTERNAL, "the server could not handle that"
                    command.conn.send(self._error(code, text, command.ref))
                await self.dealer.recover()
            finally:
                if command.done is not None and not command.done.done():
                    command.done.set_result(None)
            if isinstance(command, Stop):
                return

    # -- answers ----------------------------------------------------------------------------------

    # The dealer's way to the seating, which is made after it (it needs the dealer).
    def _seat_changed(self, reason: str, seat: int | None) -> None:
        self.seating.changed(reason, seat)

    async def _hand_over(self) -> None:
        self.hand_ended()
        await self.chips.land()  # before the busted are cashed out: a rebuy keeps the seat
        await self.seating.after_hand()

    def _error(self, code: str, message: str, ref: str | None) -> ErrorMsg:
        return ErrorMsg(code=code, message=message, ref=ref, table_id=self.table_id)

    def _ack(self, command: Command, request: str) -> None:
        if command.conn is not None:
            command.conn.send(AckMsg(ref=command.ref, request=request, table_id=self.table_id))

    # -- commands: watching -------------------------------------------------------------------------

    async def _on_watch(self, cmd: Watch) -> None:
        conn = cmd.conn
        assert conn is not None
        state = self.seats.of_account(conn.account_id)
        # A seated player coming back (no other connection of his watching): the others see him
        # connected again, and if his clock is running he gets the countdown again (once per
        # decision; a second tab of a connected player gets nothing).
        watching = conn.id in self.watchers
        back = state is not None and not watching and not self.connected(conn.account_id)
        spectator = state is None and not conn.is_bot and not watching
        if spectator and len(self.watchers) >= self.max_watchers:
            raise TableError(
                ErrorCode.TOO_MANY_WATCHERS,
                f"table {self.table_id} has {self.max_watchers} watchers already: try again later",
            )
        self.fanout.add(conn)
        clock = self.clock
        extended = False
        if back and state is not None:
            decision = clock.current
            extended = decision is not None and decision.seat == state.seat and clock.extend()
        self._ack(cmd, "join_table")
        if back and state is not None:
            self.seating.changed("connected", state.seat)
        info = self.dealer.clock_info()
        if extended and info is not None:
            self.fanout.table_event({"kind": "clock", **info.model_dump()})
        conn.send(self.snapshot(conn))

    async def _on_unwatch(self, cmd: Unwatch) -> None:
        conn = cmd.conn
        assert conn is not None
        removed = self.fanout.remove(conn)
        if not cmd.closed:
            self._ack(cmd, "leave_table")
        state = self.seats.of_account(conn.account_id)
        if removed is not None and state is not None and not self.connected(conn.account_id):
            self.seating.changed("disconnected", state.seat)

    async def _on_resync(self, cmd: Resync) -> None:
        conn = cmd.conn
        assert conn is not None
        if conn.id not in self.watchers:
            raise TableError(ErrorCode.NOT_JOINED, f"join table {self.table_id} first")
        self._ack(cmd, "resync")
        conn.send(self.snapshot(conn))

    async def _on_client_seed(self, cmd: ClientSeed) -> None:
        self.dealer.take_seed(self.seating.require(cmd), cmd.hand_id, cmd.seed)
        self._ack(cmd, "client_seed")

    # -- commands: seating (the seat commands are ``seating.py``'s: see _HANDLERS) ----------------------

    async def _on_add_chips(self, cmd: AddChips) -> None:
        await self.chips.add(cmd, self.seating.require(cmd))

    async def _on_auto_top_up(self, cmd: AutoTopUp) -> None:
        await self.chips.set_auto_top_up(cmd, self.seating.require(cmd))

    # -- commands: the hand -------------------------------------------------------------------------

    async def _on_act(self, cmd: Act) -> None:
        self.dealer.apply(self.seating.require(cmd), cmd)
        if cmd.ref is not None:
            # Only a tagged action gets an ack: the action event that follows answers it anyway.
            self._ack(cmd, "action")
        await self.dealer.after_change()

    async def _on_clock_expired(self, cmd: ClockExpired) -> None:
        await self.dealer.clock_expired(cmd.serial)

    async def _on_start(self, cmd: StartHand) -> None:
        await self.dealer.start()

    async def _on_retry_settle(self, cmd: RetrySettle) -> None:
        await self.dealer.retry_settle(cmd.hand_id)

    async def _on_stop(self, cmd: Stop) -> None:
        self.fanout.seat_changes.cancel()
        self.seating.idle.cancel()
        await self.dealer.stop()

    _HANDLERS: ClassVar[dict[type[Command], Handler]] = {
        Watch: _on_watch,
        Unwatch: _on_unwatch,
        Resync: _on_resync,
        ClientSeed: _on_client_seed,
        Sit: lambda actor, cmd: actor.seating.sit(cmd),
        SitOut: lambda actor, cmd: actor.seating.sit_out(cmd),
        SitIn: lambda actor, cmd: actor.seating.sit_in(cmd),
        PostBlind: lambda actor, cmd: actor.seating.post_blind(cmd),
        StandUp: lambda actor, cmd: actor.seating.stand_up(cmd),
        LeaveAfterHand: lambda actor, cmd: actor.seating.leave_after_hand(cmd),
        AddChips: _on_add_chips,
        AutoTopUp: _on_auto_top_up,
        FreeIdleSeat: lambda actor, cmd: actor.seating.free_idle_seat(cmd),
        Act: _on_act,
        ClockExpired: _on_clock_expired,
        StartHand: _on_start,
        RetrySettle: _on_retry_settle,
        Stop: _on_stop,
        Chat: lambda actor, cmd: actor.chat.on_chat(cmd, actor.seats),  # server/chat/lines.py
    }
