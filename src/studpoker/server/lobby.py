"""The room: the store, one actor per table, the connected clients and the message dispatch.

Incoming client messages are dispatched through :data:`HANDLERS` (message class -> handler);
a table message becomes a command in that table's actor queue. The room is also the one place
that talks to the store on the actors' behalf, turning store errors into protocol errors.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import time
from collections.abc import Awaitable, Callable, Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

from studpoker.cards import Card
from studpoker.history.phh import dump_hand
from studpoker.history.text import text_history
from studpoker.store import Store
from studpoker.store.errors import InsufficientFundsError, InvalidInputError, NotFoundError, StoreError
from studpoker.store.models import DealSeeds, TableConfig, TableRecord

from . import actor as actors
from .actor import TableActor, TableError
from .caps import SlidingWindow
from .connections import Connection
from .deals import DealInPlay
from .protocol import (
    AckMsg,
    ActionMsg,
    AddChipsMsg,
    AuthMsg,
    ClientSeedMsg,
    ErrorCode,
    ErrorMsg,
    JoinTableMsg,
    LeaveTableMsg,
    LobbyMsg,
    LobbyUpdateMsg,
    PingMsg,
    PongMsg,
    ProtocolError,
    ResyncMsg,
    SitInMsg,
    SitMsg,
    SitOutMsg,
    StandUpMsg,
    SubscribeLobbyMsg,
    UnsubscribeLobbyMsg,
    _Msg,
    parse_client_message,
)
from .sessions import AdmissionError, Handshake, SocketRegistry
from .settings import Settings
from .writer import GroupCommitter

log = logging.getLogger(__name__)

# The default tables: every game at four stakes (small bet / big bet in cents).
DEFAULT_STAKES: tuple[tuple[int, int], ...] = ((50, 100), (100, 200), (300, 600), (500, 1000))
DEFAULT_GAMES: tuple[str, ...] = ("7S", "7S8", "RZ", "O8")
GAME_NAMES = {"7S": "Stud", "7S8": "Stud Hi/Lo", "RZ": "Razz", "O8": "Omaha Hi/Lo"}


def _money(units: int) -> str:
    whole, cents = divmod(units, 100)
    return f"{whole}" if cents == 0 else f"{whole}.{cents:02d}"


def default_table_configs(settings: Settings) -> list[TableConfig]:
    configs = []
    for game in DEFAULT_GAMES:
        for small, big in DEFAULT_STAKES:
            configs.append(
                TableConfig.derive(
                    f"{GAME_NAMES[game]} {_money(small)}/{_money(big)}",
                    game,
                    small,
                    big,
                    think_seconds=10
                    if settings.think_seconds is None
                    else max(1, round(settings.think_seconds)),
                    countdown_seconds=(
                        20
                        if settings.countdown_seconds is None
                        else max(0, round(settings.countdown_seconds))
                    ),
                )
            )
    return configs


class Room:
    """Everything the server runs: tables, connections, bots."""

    def __init__(self, store: Store, settings: Settings) -> None:
        self.store = store
        self.settings = settings
        self.actors: dict[int, TableActor] = {}
        # The hands' start / finish / void writes of all tables, committed in groups.
        self.writer = GroupCommitter(store)
        self.connections: dict[int, dict[int, Connection]] = {}
        self.bots: list[Any] = []
        self._bots_task: asyncio.Task[None] | None = None
        self.started_at = time.time()
        # Guests: negative account ids, one per connection; counts per address for the caps.
        self._guest_ids = itertools.count(1)
        self.guests_by_address: dict[str, int] = {}
        # The lobby push: subscribed connections, tables changed since the last push.
        self.lobby_subscribers: dict[int, Connection] = {}
        self._lobby_dirty: set[int] = set()
        self._lobby_timer: asyncio.TimerHandle | None = None
        # The WebSockets by address and session token (the socket caps, logout, expiry), the
        # sweep of expired sessions, and the seat-state commands per (account, table).
        self.sockets = SocketRegistry(settings.max_sockets_per_account, settings.max_sockets_per_address)
        self._sweeper: asyncio.Task[None] | None = None
        self.seat_commands = SlidingWindow(
            settings.seat_commands_per_window, settings.seat_command_window_seconds
        )

    # -- lifecycle ----------------------------------------------------------------------------

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
        self._sweeper = asyncio.get_running_loop().create_task(self._sweep_sessions(), name="session-sweep")
        if self.settings.bots:
            # In the background: creating bot accounts hashes passwords, which takes a while.
            self._bots_task = asyncio.get_running_loop().create_task(self._start_bots(), name="bots")

    async def _start_bots(self) -> None:
        from .bots import start_bots

        table_ids = sorted(self.actors)
        if self.settings.bot_tables is not None:
            table_ids = table_ids[: self.settings.bot_tables]
        try:
            self.bots.extend(await start_bots(self, self.settings.bots, table_ids=table_ids))
            log.info("%s bots playing at %s tables", len(self.bots), len(table_ids))
        except Exception:
            log.exception("the bots could not start")

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

    def add_actor(self, record: TableRecord) -> TableActor:
        actor = TableActor(
            self,
            record,
            think_seconds=self.settings.think_seconds,
            countdown_seconds=self.settings.countdown_seconds,
            hand_pause_seconds=self.settings.hand_pause_seconds,
        )
        self.actors[record.id] = actor
        actor.start()
        return actor

    async def _clear_seats(self, record: TableRecord) -> None:
        """Seats left by a previous run are cashed out: every player starts from the lobby."""
        for seat in (await self.store.seats(record.id)).values():
            try:
                await self.store.cash_out(seat.account_id, record.id, seat.seat)
            except StoreError:
                log.exception("could not cash out seat %s of table %s", seat.seat, record.id)

    async def stop(self) -> None:
        if self._sweeper is not None:
            self._sweeper.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._sweeper
        if self._bots_task is not None:
            self._bots_task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._bots_task
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
        await self.writer.close()
        for actor in self.actors.values():
            for state in list(actor.seats.values()):
                try:
                    await self.store.cash_out(state.account_id, actor.table_id, state.seat)
                except StoreError:
                    log.exception("could not cash out seat %s of table %s", state.seat, actor.table_id)
            actor.seats.clear()
        if self._lobby_timer is not None:
            self._lobby_timer.cancel()
            self._lobby_timer = None
        self.lobby_subscribers.clear()
        for conns in list(self.connections.values()):
            for conn in list(conns.values()):
                conn.close(1001, "server shutting down")

    # -- connections --------------------------------------------------------------------------

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
                    self._release_guest(conn)
                raise
            self.sockets.add(conn)
        self.connections.setdefault(conn.account_id, {})[conn.id] = conn
        if rejoin and not conn.is_bot:
            for actor in self.actors.values():
                if not actor.stopped and actor.seat_of(conn.account_id) is not None:
                    actor.submit(actors.Watch(conn=conn))

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

    # -- guests ----------------------------------------------------------------------------------

    def admit_guest(self, address: str) -> tuple[int, str] | None:
        """A guest's (negative) account id and name, or None when over the caps."""
        total = sum(self.guests_by_address.values())
        here = self.guests_by_address.get(address, 0)
        if total >= self.settings.max_guests or here >= self.settings.max_guests_per_address:
            return None
        self.guests_by_address[address] = here + 1
        number = next(self._guest_ids)
        return -number, f"guest-{number}"

    def _release_guest(self, conn: Connection) -> None:
        left = self.guests_by_address.get(conn.address, 0) - 1
        if left > 0:
            self.guests_by_address[conn.address] = left
        else:
            self.guests_by_address.pop(conn.address, None)

    @property
    def guest_count(self) -> int:
        return sum(self.guests_by_address.values())

    # -- the lobby push ----------------------------------------------------------------------------

    def lobby_tables(self) -> list[dict[str, Any]]:
        return [a.summary() for _, a in sorted(self.actors.items()) if not a.stopped]

    def subscribe_lobby(self, conn: Connection) -> None:
        self.lobby_subscribers[conn.id] = conn
        conn.send(LobbyMsg(tables=self.lobby_tables(), server_time=time.time()))

    def unsubscribe_lobby(self, conn: Connection) -> None:
        self.lobby_subscribers.pop(conn.id, None)

    def lobby_changed(self, table_id: int) -> None:
        """A table's lobby line changed: pushed to the subscribers within ``lobby_push_seconds``
        (changes in between are coalesced: one message, each table once, as it is then)."""
        if not self.lobby_subscribers:
            return
        self._lobby_dirty.add(table_id)
        if self._lobby_timer is None:
            loop = asyncio.get_running_loop()
            self._lobby_timer = loop.call_later(self.settings.lobby_push_seconds, self._push_lobby)

    def _push_lobby(self) -> None:
        self._lobby_timer = None
        dirty, self._lobby_dirty = self._lobby_dirty, set()
        if not self.lobby_subscribers:
            return
        tables = []
        for table_id in sorted(dirty):
            actor = self.actors.get(table_id)
            if actor is not None and not actor.stopped:
                tables.append(actor.summary())
        if not tables:
            return
        message = LobbyUpdateMsg(tables=tables, server_time=time.time())
        for conn in list(self.lobby_subscribers.values()):
            if conn.closed:
                self.lobby_subscribers.pop(conn.id, None)
            else:
                conn.send(message)

    async def detach(self, conn: Connection) -> None:
        self.lobby_subscribers.pop(conn.id, None)
        if conn.is_guest:
            self._release_guest(conn)
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

    def close_session(self, token: str) -> int:
        """Close the sockets opened with a session token that was just revoked (call it once the
        revocation committed), and refuse those still between their token check and attach."""
        closed = 0
        for conn in self.sockets.revoke(token):
            conn.send(ErrorMsg(code=ErrorCode.UNAUTHORIZED, message="this session was logged out"))
            conn.close(4401, "logged out")
            closed += 1
        return closed

    def is_connected(self, account_id: int, table_id: int) -> bool:
        for conn in self.connections.get(account_id, {}).values():
            if conn.is_bot or table_id in conn.tables:
                return True
        return False

    async def handle_raw(self, conn: Connection, raw: str | bytes) -> None:
        """One frame from a client: rate limit, parse, dispatch; every failure answered."""
        if conn.closed:
            return  # logged out, expired or cut off: nothing it still sends is handled
        if self.session_expired(conn):
            self._end_expired(conn)
            return
        if not conn.bucket.take():
            conn.rejected += 1
            conn.send(ErrorMsg(code=ErrorCode.RATE_LIMITED, message="too many messages: slow down"))
            if conn.rejected > 200:
                conn.close(1008, "flood")
            return
        conn.rejected = 0
        try:
            message = parse_client_message(raw, max_bytes=self.settings.max_message_bytes)
        except ProtocolError as exc:
            conn.send(ErrorMsg(code=exc.code, message=exc.message, ref=exc.ref))
            return
        await self.dispatch(conn, message)

    async def dispatch(self, conn: Connection, message: _Msg) -> None:
        handler = HANDLERS[type(message)]
        if conn.is_guest and type(message) not in GUEST_MESSAGES:
            conn.send(
                ErrorMsg(
                    code=ErrorCode.LOGIN_REQUIRED,
                    message="guests may only watch: log in to sit and play",
                    ref=message.id,
                    table_id=getattr(message, "table_id", None),
                )
            )
            return
        if (
            isinstance(message, SEAT_COMMANDS)
            and not conn.is_bot
            and not self._seat_command_allowed(conn, message)
        ):
            return
        try:
            await handler(self, conn, message)
        except TableError as exc:
            conn.send(ErrorMsg(code=exc.code, message=exc.message, ref=message.id))
        except Exception:
            log.exception("%r: handling %r failed", conn, message)
            conn.send(
                ErrorMsg(code=ErrorCode.INTERNAL, message="the server could not handle that", ref=message.id)
            )

    def _seat_command_allowed(self, conn: Connection, message: SeatCommand) -> bool:
        """At most ``seat_commands_per_window`` seat-state commands per account per table in
        ``seat_command_window_seconds``: each one changes the seat list every watcher is sent."""
        table_id = message.table_id
        key = (conn.account_id, table_id)
        if self.seat_commands.allow(key):
            return True
        wait = int(self.seat_commands.retry_after(key)) + 1
        conn.send(
            ErrorMsg(
                code=ErrorCode.SEAT_RATE_LIMITED,
                message=f"too many seat changes at table {table_id}: try again in {wait} s",
                ref=message.id,
                table_id=table_id,
            )
        )
        return False

    def actor_for(self, table_id: int) -> TableActor:
        actor = self.actors.get(table_id)
        if actor is None or actor.stopped:
            raise TableError(ErrorCode.NOT_FOUND, f"no table {table_id}")
        return actor

    # -- the store on behalf of the actors ----------------------------------------------------

    async def store_buy_in(self, account_id: int, table_id: int, seat: int, amount: int) -> None:
        try:
            await self.store.buy_in(account_id, table_id, seat, amount)
        except InsufficientFundsError as exc:
            raise TableError(ErrorCode.INSUFFICIENT_FUNDS, str(exc)) from None
        except InvalidInputError as exc:
            raise TableError(ErrorCode.BAD_BUY_IN, str(exc)) from None
        except NotFoundError as exc:
            raise TableError(ErrorCode.NOT_FOUND, str(exc)) from None
        except StoreError as exc:
            raise TableError(ErrorCode.SEAT_TAKEN, str(exc)) from None

    async def store_add_chips(self, account_id: int, table_id: int, seat: int, amount: int) -> None:
        try:
            await self.store.add_chips(account_id, table_id, seat, amount)
        except InsufficientFundsError as exc:
            raise TableError(ErrorCode.INSUFFICIENT_FUNDS, str(exc)) from None
        except StoreError as exc:
            raise TableError(ErrorCode.BAD_BUY_IN, str(exc)) from None

    async def store_cash_out(self, state: actors.SeatState, table_id: int) -> None:
        await self.store.cash_out(state.account_id, table_id, state.seat)

    async def store_start_hand(
        self, hand_id: str, table_id: int, deal: DealInPlay, players: list[actors.SeatState]
    ) -> None:
        seeds = DealSeeds(server_seed=deal.server_seed, client_seeds=deal.client_seeds)
        starting = await self.writer.write(
            self.store.start_hand_op(
                hand_id, table_id, deal.root, {p.seat: p.account_id for p in players}, deal=seeds
            )
        )
        for p in players:
            if starting.get(p.seat) != p.stack:
                log.error(
                    "table %s seat %s: store stack %s, table stack %s",
                    table_id,
                    p.seat,
                    starting.get(p.seat),
                    p.stack,
                )

    def name_of(self, account_id: int) -> str:
        for conn in self.connections.get(account_id, {}).values():
            return conn.name
        for actor in self.actors.values():
            state = actor.seat_of(account_id)
            if state is not None:
                return state.name
        return f"#{account_id}"

    async def store_finish_hand(
        self,
        hand: Any,
        hand_id: str,
        contributions: dict[int, int],
        awards: dict[int, int],
        order: Sequence[Card],
        *,
        accounts: dict[int, int],
        table: str | None = None,
    ) -> None:
        names = {seat: self.name_of(account_id) for seat, account_id in accounts.items()}
        phh, text = _histories(hand, hand_id, names, table)
        await self.writer.write(
            self.store.finish_hand_op(
                hand_id,
                contributions=contributions,
                awards=awards,
                phh=phh,
                text=text,
                deck_order=" ".join(str(c) for c in order),
            )
        )

    async def store_void_hand(self, hand_id: str, reason: str) -> None:
        await self.writer.write(self.store.void_hand_op(hand_id, reason))

    async def store_hand_status(self, hand_id: str) -> tuple[str, str | None]:
        """The hand's status as the database has it (in_progress, finished or void) and the
        reason it was voided."""
        record = await self.store.hand(hand_id)
        return record.status, record.void_reason

    async def use_protected_all_in(self, account_id: int) -> bool:
        try:
            return bool(
                await self.store.use_protected_all_in(account_id, self.settings.protected_all_ins_per_day)
            )
        except StoreError:
            log.exception("protected all-in check failed for account %s", account_id)
            return False


def _histories(
    hand: Any, hand_id: str, players: dict[int, str] | None = None, table: str | None = None
) -> tuple[str, str]:
    """The PHH and the readable text of a finished hand (empty when its writer fails: a history
    that cannot be rendered is logged, and the hand is stored without it; the table goes on).

    Both are the operator's complete record (every card): a player reads them as his seat saw
    the hand (``server/hand_views.py``, docs/fairness.md).
    """
    phh = text = ""
    try:
        phh = dump_hand(hand, players=players, hand_id=hand_id, table=table)
    except Exception:
        log.exception("hand %s: the PHH writer failed; stored without its PHH", hand_id)
    try:
        text = text_history(hand, reveal=True, players=players, hand_id=hand_id, table=table)
    except Exception:
        log.exception("hand %s: the text writer failed; stored without its text", hand_id)
    return phh, text


# ----------------------------------------------------------------------------- message handlers

MessageHandler = Callable[[Room, Connection, Any], Awaitable[None]]


async def _on_auth(room: Room, conn: Connection, msg: AuthMsg) -> None:
    conn.send(ErrorMsg(code=ErrorCode.BAD_MESSAGE, message="already authenticated", ref=msg.id))


async def _on_join(room: Room, conn: Connection, msg: JoinTableMsg) -> None:
    room.actor_for(msg.table_id).submit(actors.Watch(conn=conn, ref=msg.id))


async def _on_leave(room: Room, conn: Connection, msg: LeaveTableMsg) -> None:
    room.actor_for(msg.table_id).submit(actors.Unwatch(conn=conn, ref=msg.id))


async def _on_sit(room: Room, conn: Connection, msg: SitMsg) -> None:
    room.actor_for(msg.table_id).submit(actors.Sit(conn=conn, ref=msg.id, seat=msg.seat, buy_in=msg.buy_in))


async def _on_sit_out(room: Room, conn: Connection, msg: SitOutMsg) -> None:
    room.actor_for(msg.table_id).submit(actors.SitOut(conn=conn, ref=msg.id))


async def _on_sit_in(room: Room, conn: Connection, msg: SitInMsg) -> None:
    room.actor_for(msg.table_id).submit(actors.SitIn(conn=conn, ref=msg.id))


async def _on_stand_up(room: Room, conn: Connection, msg: StandUpMsg) -> None:
    room.actor_for(msg.table_id).submit(actors.StandUp(conn=conn, ref=msg.id))


async def _on_add_chips(room: Room, conn: Connection, msg: AddChipsMsg) -> None:
    room.actor_for(msg.table_id).submit(actors.AddChips(conn=conn, ref=msg.id, amount=msg.amount))


async def _on_action(room: Room, conn: Connection, msg: ActionMsg) -> None:
    room.actor_for(msg.table_id).submit(
        actors.Act(
            conn=conn, ref=msg.id, hand_id=msg.hand_id, kind=msg.kind, amount=msg.amount, version=msg.version
        )
    )


async def _on_client_seed(room: Room, conn: Connection, msg: ClientSeedMsg) -> None:
    room.actor_for(msg.table_id).submit(
        actors.ClientSeed(conn=conn, ref=msg.id, hand_id=msg.hand_id, seed=bytes.fromhex(msg.seed))
    )


async def _on_ping(room: Room, conn: Connection, msg: PingMsg) -> None:
    conn.send(PongMsg(ref=msg.id, server_time=time.time()))


async def _on_resync(room: Room, conn: Connection, msg: ResyncMsg) -> None:
    room.actor_for(msg.table_id).submit(actors.Resync(conn=conn, ref=msg.id))


async def _on_subscribe_lobby(room: Room, conn: Connection, msg: SubscribeLobbyMsg) -> None:
    conn.send(AckMsg(ref=msg.id, request="subscribe_lobby"))
    room.subscribe_lobby(conn)


async def _on_unsubscribe_lobby(room: Room, conn: Connection, msg: UnsubscribeLobbyMsg) -> None:
    room.unsubscribe_lobby(conn)
    conn.send(AckMsg(ref=msg.id, request="unsubscribe_lobby"))


HANDLERS: dict[type[_Msg], MessageHandler] = {
    AuthMsg: _on_auth,
    JoinTableMsg: _on_join,
    LeaveTableMsg: _on_leave,
    SitMsg: _on_sit,
    SitOutMsg: _on_sit_out,
    SitInMsg: _on_sit_in,
    StandUpMsg: _on_stand_up,
    AddChipsMsg: _on_add_chips,
    ActionMsg: _on_action,
    ClientSeedMsg: _on_client_seed,
    PingMsg: _on_ping,
    ResyncMsg: _on_resync,
    SubscribeLobbyMsg: _on_subscribe_lobby,
    UnsubscribeLobbyMsg: _on_unsubscribe_lobby,
}

# The seat-state commands, limited per account and table (``Room._seat_command_allowed``).
SeatCommand = SitMsg | SitOutMsg | SitInMsg | StandUpMsg | AddChipsMsg
SEAT_COMMANDS = (SitMsg, SitOutMsg, SitInMsg, StandUpMsg, AddChipsMsg)

# What a guest (no account) may send: watching only.
GUEST_MESSAGES: frozenset[type[_Msg]] = frozenset(
    {JoinTableMsg, LeaveTableMsg, ResyncMsg, PingMsg, SubscribeLobbyMsg, UnsubscribeLobbyMsg}
)
