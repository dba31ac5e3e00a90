"""The room: the tables it runs, its start and stop, and the connections (sockets and bots).

The room owns the table actors and wires their ports: the store through
:class:`~studpoker.server.store_adapter.StoreTableAdapter`, the lobby through
:class:`~studpoker.server.wait_list.WaitLists` (the full tables' wait lists, which pass every
change on to the :class:`~studpoker.server.lobby_push.LobbyPush`), the presence through
:meth:`Room.is_connected`.
A connection's frames go to :meth:`Room.handle_raw` (its session still valid), then to the
:class:`~studpoker.server.dispatch.Dispatcher`. Guests are counted by
:class:`~studpoker.server.guests.Guests`, sockets by :class:`~studpoker.server.sessions.SocketRegistry`.
The bots are clients like any other (``bots.py``): they only send frames.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections import ChainMap
from datetime import UTC, datetime, timedelta
from typing import Any

from studpoker.games import GAMES
from studpoker.store import Store
from studpoker.store.errors import SeatInHandError, StoreError
from studpoker.store.models import TableConfig, TableRecord
from studpoker.tournament.rotation import Rotation, find_rotation

from . import table as actors
from .bots import BotConnection, BotKeeper
from .connections import Connection
from .dispatch import Dispatcher
from .guests import Guests
from .lobby_push import LobbyPush
from .protocol import ErrorCode, ErrorMsg
from .sessions import AdmissionError, Handshake, SocketRegistry
from .settings import Settings
from .store_adapter import StoreBotAccounts, StoreTableAdapter
from .table import TableActor, TablePorts
from .table.adapters import LoopClock
from .table.mixed_seats import MixedSeats
from .table.rotation import MixedSchedule
from .table.time_bank import TimeBankPolicy
from .tournaments import TournamentRoom
from .wait_list import WaitLists
from .writer import GroupCommitter

log = logging.getLogger(__name__)

# The default tables: every game (studpoker.games) at four stakes (small bet / big bet in cents).
DEFAULT_STAKES: tuple[tuple[int, int], ...] = ((50, 100), (100, 200), (300, 600), (500, 1000))


# The mixed-game tables among the default ones, by name: (rotation, small bet, big bet). The
# store's TableConfig has no rotation, so a table is a mixed one by its name; its schedule lives in
# memory and starts over at the rotation's first game when the server restarts.
DEFAULT_MIXED_TABLES: dict[str, tuple[str, int, int]] = {"HORSE 0.50/1": ("HORSE", 50, 100)}


def _money(units: int) -> str:
    whole, cents = divmod(units, 100)
    return f"{whole}" if cents == 0 else f"{whole}.{cents:02d}"


def _copy_name(name: str, copy: int) -> str:
    return name + (f" #{copy}" if copy > 1 else "")


def mixed_rotation_of(name: str) -> Rotation | None:
    """The rotation of the default mixed table named ``name`` (any copy), None for another table."""
    base, _, copy = name.rpartition(" #")
    entry = DEFAULT_MIXED_TABLES.get(base if base and copy.isdigit() else name)
    return None if entry is None else find_rotation(entry[0])


def default_table_configs(settings: Settings) -> list[TableConfig]:
    think = 10 if settings.think_seconds is None else max(1, round(settings.think_seconds))
    countdown = 20 if settings.countdown_seconds is None else max(0, round(settings.countdown_seconds))
    copies = range(1, max(1, settings.default_table_copies) + 1)
    games = [
        TableConfig.derive(
            _copy_name(f"{game.short_name} {_money(small)}/{_money(big)}", copy),
            game.code,
            small,
            big,
            think_seconds=think,
            countdown_seconds=countdown,
        )
        for game in GAMES.values()
        for small, big in DEFAULT_STAKES
        for copy in copies
    ]
    # Each mixed table starts in its rotation's first game, seating the fewest any game seats.
    mixed = [
        TableConfig.derive(
            _copy_name(name, copy),
            (rotation := find_rotation(rotation_name)).games[0].code,
            small,
            big,
            max_seats=rotation.max_seats,
            think_seconds=think,
            countdown_seconds=countdown,
        )
        for name, (rotation_name, small, big) in DEFAULT_MIXED_TABLES.items()
        for copy in copies
    ]
    return games + mixed


class Room:
    """Everything the server runs: the tables, the connections, the bots."""

    def __init__(self, store: Store, settings: Settings) -> None:
        self.store = store
        self.settings = settings
        self.actors: dict[int, TableActor] = {}
        # The hands' start / finish / void writes of all tables, committed in groups.
        self.writer = GroupCommitter(store)
        self.connections: dict[int, dict[int, Connection]] = {}
        self.lobby = LobbyPush(self.actors, settings.lobby_push_seconds)
        # The tables' lobby port: it hears every seat change, for the full tables' wait lists.
        self.wait_lists = WaitLists(
            self.actors,
            self.connections,
            self.lobby,
            offer_seconds=settings.seat_offer_seconds,
            max_waiting=settings.wait_list_max,
        )
        # The sit-and-go tournaments (server/tournaments): their tables take frames as any table.
        self.tournaments = TournamentRoom(self)
        self.dispatcher = Dispatcher(
            settings,
            ChainMap(self.actors, self.tournaments.actors),
            self.lobby,
            moderation=store.moderation,
            wait_lists=self.wait_lists,
        )
        self.guests = Guests(settings.max_guests, settings.max_guests_per_address)
        # The WebSockets by address and session token (the socket caps, logout, expiry).
        self.sockets = SocketRegistry(settings.max_sockets_per_account, settings.max_sockets_per_address)
        self.bot_accounts = StoreBotAccounts(store)
        self.bots: list[BotConnection] = []
        self._bots_task: asyncio.Task[None] | None = None
        self._sweeper: asyncio.Task[None] | None = None

    # -- the tables ------------------------------------------------------------------------------

    async def start(self) -> None:
        voided = await self.store.void_unfinished_hands()
        if voided:
            log.warning("voided %s hand(s) left unfinished by the last run", voided)
        tables = await self.store.list_tables()
        if not tables and self.settings.default_tables:
            for config in default_table_configs(self.settings):
                await self.store.create_table(config)
            tables = await self.store.list_tables()
        for record in tables:
            await self._clear_seats(record)
            self.add_actor(record)
        await self._seed_stats()
        await self.tournaments.start()
        loop = asyncio.get_running_loop()
        self._sweeper = loop.create_task(self._sweep_sessions(), name="session-sweep")
        if self.settings.bots:
            # In the background: the bots' accounts are opened first, which takes a while.
            self._bots_task = loop.create_task(self._start_bots(), name="bots")

    def add_actor(self, record: TableRecord) -> TableActor:
        """Run table ``record``: its actor, behind this room's ports."""
        store = StoreTableAdapter(
            self.store,
            self.writer,
            record.id,
            name_of=self.name_of,
            protected_all_ins_per_day=self.settings.protected_all_ins_per_day,
        )
        rotation = mixed_rotation_of(record.config.name)
        seats = None
        if rotation is not None:
            seats = MixedSeats(TimeBankPolicy.of(self.settings), MixedSchedule(rotation, record.config))
        actor = TableActor(
            record,
            TablePorts(store=store, lobby=self.wait_lists, presence=self, clock=LoopClock()),
            self.settings,
            think_seconds=self.settings.think_seconds,
            countdown_seconds=self.settings.countdown_seconds,
            hand_pause_seconds=self.settings.hand_pause_seconds,
            seats=seats,
        )
        if seats is not None:
            seats.attach(actor)
        self.actors[record.id] = actor
        actor.waiting = lambda: self.wait_lists.count(record.id)
        actor.start()
        return actor

    def lobby_tables(self) -> list[dict[str, Any]]:
        """Every open table's lobby line (``GET /api/tables``, the lobby push)."""
        return self.lobby.lines()

    # The tables as readers outside the room see them (REST, health, logs, test harnesses).

    @property
    def table_count(self) -> int:
        """How many tables the room runs."""
        return len(self.actors)

    def table_ids(self) -> list[int]:
        """The ids of the tables the room runs, in order."""
        return sorted(self.actors)

    def tables(self) -> list[TableActor]:
        """The actors of the tables the room runs, in the order of their ids."""
        return [self.actors[table_id] for table_id in sorted(self.actors)]

    def table(self, table_id: int) -> TableActor | None:
        """The actor of table ``table_id``, or None when the room runs no such table."""
        return self.actors.get(table_id)

    def tables_alive(self) -> bool:
        """Every table's actor task still runs (none has crashed or ended)."""
        return all(actor.alive for actor in self.actors.values())

    async def _start_bots(self) -> None:
        table_ids = self.table_ids()
        if self.settings.bot_tables is not None:
            table_ids = table_ids[: self.settings.bot_tables]
        # For as long as the room runs: the bots that go broke are replaced (``serve --bots N``).
        await BotKeeper(self, self.settings.bots, table_ids=table_ids, bots=self.bots).run()

    async def _seed_stats(self) -> None:
        """The lobby's average pot and hands/hour start from the hands the store already has."""
        window = self.settings.stats_window_seconds
        try:
            recent = await self.store.recent_hand_pots(datetime.now(UTC) - timedelta(seconds=window))
        except Exception:
            log.exception("could not read the recent hands for the lobby statistics")
            return
        for table_id, pots in recent.items():
            actor = self.actors.get(table_id)
            if actor is None:
                continue
            for finished_at, pot in pots:
                actor.record_pot(pot, finished_at.timestamp())

    async def _clear_seats(self, record: TableRecord) -> None:
        """Seats left by a previous run are cashed out: every player starts from the lobby."""
        for seat in (await self.store.seats(record.id)).values():
            try:
                await self.store.cash_out(seat.account_id, record.id, seat.seat)
            except StoreError:
                log.exception("could not cash out seat %s of table %s", seat.seat, record.id)

    async def stop(self) -> None:
        for task in (self._sweeper, self._bots_task):
            if task is not None:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await task
        # No new hands; hands being played get ``shutdown_grace_seconds`` to finish (bots keep
        # playing them), then whatever is left is voided and refunded.
        for actor in self.actors.values():
            actor.draining = True
        deadline = time.monotonic() + self.settings.shutdown_grace_seconds
        while time.monotonic() < deadline and any(a.busy for a in self.actors.values()):
            await asyncio.sleep(0.05)
        for bot in self.bots:
            bot.stop()
        await asyncio.gather(*(a.stop() for a in self.actors.values()), return_exceptions=True)
        await self.tournaments.stop()
        await self.writer.close()
        for actor in self.actors.values():
            kept: list[int] = []
            for state in list(actor.seats.values()):
                try:
                    await self.store.cash_out(state.account_id, actor.table_id, state.seat)
                except SeatInHandError:
                    # Its hand outlived the grace and the actor's stop: the next start voids
                    # it and cashes these seats out (``start``). Said once per table.
                    kept.append(state.seat)
                except StoreError:
                    log.exception("could not cash out seat %s of table %s", state.seat, actor.table_id)
            if kept:
                log.warning(
                    "table %s: seats %s kept with their unfinished hand (voided, cashed out at next start)",
                    actor.table_id, kept,
                )  # fmt: skip
            actor.seats.clear()
        self.lobby.close()
        self.wait_lists.close()
        for conns in list(self.connections.values()):
            for conn in list(conns.values()):
                conn.close(1001, "server shutting down")

    # -- connections -----------------------------------------------------------------------------

    def attach(self, conn: Connection, *, rejoin: bool = True, handshake: Handshake | None = None) -> None:
        """Register a new connection; with ``rejoin`` it joins every table where its account is
        seated (a reconnection gets the full state of those tables, and his clock extension).

        A socket over a cap (``max_sockets_per_account``, ``max_sockets_per_address``), or whose
        session was logged out (``handshake`` revoked) or expired since its token was checked,
        is refused with :class:`AdmissionError`, and nothing of it is registered.
        """
        if handshake is not None:
            self.sockets.end_handshake(handshake)
        if not conn.is_bot:
            try:
                if self.session_expired(conn):
                    raise AdmissionError(
                        ErrorCode.UNAUTHORIZED, "this session has expired: log in again", 4401
                    )
                self.sockets.check(conn, len(self.connections.get(conn.account_id, {})), handshake)
            except AdmissionError:
                if conn.is_guest:
                    self.guests.release(conn.address)
                raise
            self.sockets.add(conn)
        self.connections.setdefault(conn.account_id, {})[conn.id] = conn
        if rejoin and not conn.is_bot:
            for actor in [*self.actors.values(), *self.tournaments.actors.values()]:
                self.rejoin(conn, actor)

    def rejoin(self, conn: Connection, actor: TableActor) -> None:
        """``conn`` watches ``actor``'s table if its account is seated there."""
        if not actor.stopped and actor.seat_of(conn.account_id) is not None:
            actor.submit(actors.Watch(conn=conn))

    async def detach(self, conn: Connection) -> None:
        self.lobby.unsubscribe(conn)
        if conn.is_guest:
            self.guests.release(conn.address)
        conns = self.connections.get(conn.account_id)
        if conns is not None:
            if conns.pop(conn.id, None) is not None and not conn.is_bot:
                self.sockets.remove(conn)
            if not conns:
                del self.connections[conn.account_id]
        for table_id in list(conn.tables):
            actor = self.actors.get(table_id)
            if actor is not None:
                actor.submit(actors.Unwatch(conn=conn, closed=True))
        conn.tables.clear()

    async def handle_raw(self, conn: Connection, raw: str | bytes) -> None:
        """One frame from a client (a socket or a bot): handled only while its session holds."""
        if conn.closed:
            return  # logged out, expired or cut off: nothing it still sends is handled
        if self.session_expired(conn):
            self._end_expired(conn)
            return
        await self.dispatcher.handle_frame(conn, raw)

    def is_connected(self, account_id: int, table_id: int) -> bool:
        """The presence port: a bot is always there, a person while a socket watches the table."""
        for conn in self.connections.get(account_id, {}).values():
            if conn.is_bot or table_id in conn.tables:
                return True
        return False

    def name_of(self, account_id: int) -> str:
        for conn in self.connections.get(account_id, {}).values():
            return conn.name
        for actor in self.actors.values():
            state = actor.seat_of(account_id)
            if state is not None:
                return state.name
        return f"#{account_id}"

    # -- guests ----------------------------------------------------------------------------------

    def admit_guest(self, address: str) -> tuple[int, str] | None:
        """A guest's (negative) account id and name, or None when over the caps."""
        return self.guests.admit(address)

    @property
    def guest_count(self) -> int:
        return self.guests.count

    # -- sessions --------------------------------------------------------------------------------

    def begin_handshake(self, token: str, address: str) -> Handshake:
        """A socket from ``address`` is about to check ``token``: call it before the store reads
        the session, and pass the handshake to :meth:`attach` (or :meth:`end_handshake`). A
        logout in between marks it; the socket caps are checked here already, so a burst is
        refused before the database (:class:`AdmissionError`)."""
        return self.sockets.begin_handshake(token, address)

    def end_handshake(self, handshake: Handshake) -> None:
        self.sockets.end_handshake(handshake)

    def store_time(self) -> float:
        """Now on the store's clock (Unix seconds), the clock session expiries are set by."""
        now = self.store.clock()
        return (now if now.tzinfo is not None else now.replace(tzinfo=UTC)).timestamp()

    def session_expired(self, conn: Connection) -> bool:
        expires = conn.session_expires_at
        return expires is not None and self.store_time() >= expires

    def close_expired_sessions(self) -> int:
        """Close every socket whose session has expired; returns how many."""
        now = self.store_time()
        closed = 0
        for conn in self.sockets.with_session():
            expires = conn.session_expires_at
            if not conn.closed and expires is not None and now >= expires:
                self._end_expired(conn)
                closed += 1
        return closed

    def close_session(self, token: str) -> int:
        """Close the sockets opened with a session token that was just revoked (call it once the
        revocation committed), and refuse those still between their token check and attach."""
        closed = 0
        for conn in self.sockets.revoke(token):
            self.wait_lists.leave_all(conn.account_id)  # R-WAIT-LIST-STAYS: a logout leaves them
            conn.send(ErrorMsg(code=ErrorCode.UNAUTHORIZED, message="this session was logged out"))
            conn.close(4401, "logged out")
            closed += 1
        return closed

    def _end_expired(self, conn: Connection) -> None:
        conn.send(ErrorMsg(code=ErrorCode.UNAUTHORIZED, message="this session has expired: log in again"))
        conn.close(4401, "session expired")

    async def _sweep_sessions(self) -> None:
        while True:
            await asyncio.sleep(self.settings.session_sweep_seconds)
            try:
                self.close_expired_sessions()
            except Exception:
                log.exception("the session sweep failed")
