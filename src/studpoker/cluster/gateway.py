"""The gateway role: the room's sockets and REST, with the tables played elsewhere
(docs/cluster.md "Roles").

:class:`GatewayRoom` is the one-process :class:`~studpoker.server.room.Room` (sessions, socket
caps, guests, the dispatcher, the lobby push) with a :class:`RemoteTable` in place of each table
actor: a command the dispatcher submits goes to ``table.<id>.cmd`` for the table's owner, the
frames the owners send on ``gw.<self>.out`` are written to the right local socket, and each
table's lobby line comes from its owner's ``lobby.table.<id>``. Every frame and lobby line
carries the owner's epoch: those of an older epoch than one already seen (a worker that lost
its lease and does not know it yet) are dropped, and a lobby line of a newer epoch (the table
has a new owner) makes the gateway send that owner a watch for each local socket at the table.

Every ``presence_seconds`` the gateway beats on ``room.presence`` (its name and a boot id), so
the workers can forget the watchers of a gateway that died; a logout here is broadcast on
``room.logout`` (the token's digest) and closes that session's sockets on every gateway.

The wait lists and the chat lines are the tables' owners' (cluster/waiting.py): the gateway
forwards the requests and writes the owners' ``wait_list`` messages (``account.<id>.out``) to
the account's local sockets. When a table's owner changes, the accounts still on a list of the
old owner's (it died without telling) are told that their place was lost.

With ``Settings.bots`` (``gateway --bots N``; ``cluster up`` gives it to its first gateway only)
the gateway runs the one-process room's :class:`~studpoker.server.bots.BotKeeper`: its bots are
local connections, their commands go to the owners like a person's and their frames are decoded
back into the models a bot reads.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import itertools
import logging
import secrets
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, cast

from fastapi import FastAPI

from studpoker.server.app import create_app
from studpoker.server.connections import Connection
from studpoker.server.protocol import ErrorCode, ErrorMsg, ServerMsg, WaitListMsg, decode_server_message
from studpoker.server.room import Room
from studpoker.server.sessions import Handshake
from studpoker.server.settings import Settings
from studpoker.server.table import Command, TableActor, Unwatch, Watch
from studpoker.store import Store
from studpoker.store.models import TableConfig, TableRecord

from . import subjects
from .bus import Bus, Message, Subscription
from .courier import Courier
from .gateway_tournaments import GatewayTournaments
from .remote import (
    Outbox,
    WireError,
    decode_account_frame,
    decode_frame,
    decode_lobby_line,
    decode_logout,
    encode_command,
    encode_logout,
    encode_presence,
    token_digest,
)
from .tournaments import is_tournament_table
from .waiting import RemoteChatLines, RemoteWaitLists

log = logging.getLogger(__name__)

BusConnector = Callable[[], Awaitable[Bus]]


# Guest numbers per gateway run: block b gives b * GUEST_BLOCK + 1 onwards (ids -N, names guest-N).
GUEST_BLOCK = 1_000_000


@dataclass(frozen=True, slots=True)
class RemoteSeat:
    """A seat as the table's last lobby line showed it."""

    seat: int
    account_id: int
    name: str


def _empty_line(record: TableRecord) -> dict[str, Any]:
    """The lobby line of a table before its owner's first summary: a whole line (the REST
    answer's model needs every field), empty as the table is."""
    return {
        "id": record.id, **dataclasses.asdict(record.config), "seated": 0, "bots": 0, "seats": [],
        "hand_id": None, "hands_played": 0, "average_pot": None, "hands_per_hour": 0, "waiting": 0,
    }  # fmt: skip


class RemoteTable:
    """A table its owner (a worker) plays, as the gateway's room reads it: the lobby line and
    seats from the owner's last summary, commands forwarded on the bus."""

    def __init__(self, record: TableRecord, room: GatewayRoom) -> None:
        self.table_id = record.id
        self.chat = RemoteChatLines(record.id, room)  # the lines are the owner's: asked for
        self.config: TableConfig = record.config
        self.room = room
        self.epoch = 0  # the newest owner's epoch seen in a lobby line
        self.latest_epoch = 0  # the newest seen in a lobby line or a frame (older ones dropped)
        self.owner: str | None = None
        self.line: dict[str, Any] = _empty_line(record)
        self.tournament = False  # a tournament's table: not in the cash lobby

    @property
    def stopped(self) -> bool:
        return False

    def summary(self) -> dict[str, Any]:
        return self.line

    @property
    def seats(self) -> dict[int, RemoteSeat]:
        out = {}
        for info in self.line.get("seats", []):
            seat = RemoteSeat(int(info["seat"]), int(info["account_id"]), str(info["name"]))
            out[seat.seat] = seat
        return out

    def seat_of(self, account_id: int) -> RemoteSeat | None:
        for seat in self.seats.values():
            if seat.account_id == account_id:
                return seat
        return None

    def submit(self, command: Command) -> None:
        self.room.forward(self.table_id, command)


class GatewayRoom(Room):
    """The room of gateway ``name``: local sockets, remote tables (``connect`` opens the bus)."""

    def __init__(self, store: Store, settings: Settings, *, name: str, connect: BusConnector) -> None:
        super().__init__(store, settings)
        self.name = subjects.check_name(name)
        self._connect = connect
        self.bus: Bus | None = None
        self.outbox: Outbox | None = None
        self.courier: Courier | None = None
        self._seq = itertools.count(1)  # the commands' numbers in this run (with ``boot``)
        self.by_id: dict[int, Connection] = {}
        self.remote: dict[int, RemoteTable] = {}
        self._subscriptions: list[Subscription] = []
        self.dropped_frames = 0
        self.boot = secrets.token_hex(8)  # this run's id in the presence beats
        self._beater: asyncio.Task[None] | None = None
        # The wait lists are the owners': the dispatcher's requests go to them (cluster/waiting.py).
        self.remote_lists = RemoteWaitLists(self)
        self.wait_lists = self.dispatcher.wait_lists = self.remote_lists
        # The tournaments are their owners' too; their tables (remote) in the map the dispatcher
        # reads, out of the cash lobby (cluster/gateway_tournaments.py).
        self.remote_tournaments = GatewayTournaments(self)
        self.remote_tournaments.actors = self.tournaments.actors
        self.tournaments = self.remote_tournaments

    async def start(self) -> None:
        # Guests numbered within a block no other gateway (or earlier run) has: unique ids.
        block = await self.store.login_attempts.reserve_guest_block()
        self.guests.numbering(itertools.count(block * GUEST_BLOCK + 1))
        bus = self.bus = await self._connect()
        self.outbox = Outbox(bus)
        self.courier = Courier(
            bus,
            reply_timeout=self.settings.command_reply_timeout_seconds,
            retry_seconds=self.settings.command_retry_seconds,
            give_up_seconds=self.settings.command_give_up_seconds,
        )
        for record in await self.store.list_tables():
            remote = self.remote[record.id] = RemoteTable(record, self)
            # The dispatcher, lobby push and wait lists read tables through the few members a
            # RemoteTable has (submit, stopped, seat_of, summary, ...), not the actor's others.
            self.actors[record.id] = cast(TableActor, remote)
        self._subscriptions = [
            await bus.subscribe(subjects.gateway_out(self.name), self._on_frame),
            await bus.subscribe(subjects.LOBBY_SUMMARIES, self._on_lobby_line),
            await bus.subscribe(subjects.broadcast("logout"), self._on_logout),
            await bus.subscribe(subjects.ALL_ACCOUNTS_OUT, self._on_account_frame),
            await bus.subscribe(subjects.TOURNAMENT_SUMMARIES, self.remote_tournaments.heard),
        ]
        loop = asyncio.get_running_loop()
        self._beater = loop.create_task(self._beat(), name="gateway-presence")
        self._sweeper = loop.create_task(self._sweep_sessions(), name="session-sweep")
        if self.settings.bots:
            # The room's keeper, over the remote tables (their lobby lines), as in one process.
            self._bots_task = loop.create_task(self._start_bots(), name="bots")

    async def stop(self) -> None:
        if self._beater is not None:
            self._beater.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._beater
        for task in (self._sweeper, self._bots_task):
            if task is not None:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await task
        for bot in self.bots:
            bot.stop()  # their seats stay, as a person's do when his gateway stops
        self.lobby.close()
        self.wait_lists.close()
        for conn in list(self.by_id.values()):
            for table_id in list(conn.tables):
                self.forward(table_id, Unwatch(conn=conn, closed=True))
            conn.close(1001, "server shutting down")  # the client reconnects, to another gateway
        for sub in self._subscriptions:
            with contextlib.suppress(Exception):
                await sub.unsubscribe()
        if self.courier is not None:
            await self.courier.close()
        if self.outbox is not None:
            await self.outbox.close()
        if self.bus is not None:
            await self.bus.close()

    # -- connections ------------------------------------------------------------------------------

    def attach(self, conn: Connection, *, rejoin: bool = True, handshake: Handshake | None = None) -> None:
        self.by_id[conn.id] = conn
        try:
            super().attach(conn, rejoin=rejoin, handshake=handshake)
        except Exception:
            self.by_id.pop(conn.id, None)
            raise

    async def detach(self, conn: Connection) -> None:
        await super().detach(conn)
        self.by_id.pop(conn.id, None)

    def close_session(self, token: str) -> int:
        """A logout here: this gateway's sockets of the session close, and every other
        gateway is told to close its own (``room.logout``). The bus is at most once: a logout
        lost with the broker down leaves the others' sockets open until their session expires
        (a new socket with the token is refused by the database all the same)."""
        closed = super().close_session(token)
        if self.outbox is not None:
            self.outbox.put(subjects.broadcast("logout"), encode_logout(self.name, token))
        return closed

    async def _on_logout(self, message: Message) -> None:
        try:
            gateway, digest = decode_logout(message.payload)
        except WireError:
            log.warning("gateway %s: dropped a bad logout", self.name)
            return
        if gateway == self.name:
            return
        held = {*self.sockets.by_token, *self.sockets.handshakes}  # sockets, and those being checked
        for token in [t for t in held if token_digest(t) == digest]:
            super().close_session(token)

    async def _beat(self) -> None:
        while True:
            if self.outbox is not None:
                self.outbox.put(subjects.broadcast("presence"), encode_presence(self.name, self.boot))
            await asyncio.sleep(self.settings.presence_seconds)

    # -- the bus ----------------------------------------------------------------------------------

    def forward(self, table_id: int, command: Command, *, rewatch: bool = False) -> None:
        """A local connection's command to the table's owner, through the courier: sent again
        while no owner takes it (a takeover in progress); the client is told ``unavailable``
        when none does in ``command_give_up_seconds``."""
        conn = command.conn
        if conn is None or self.courier is None:
            return
        # The owner's actor marks the viewer it has; the gateway keeps its own socket's tables
        # (for a re-watch after a takeover, and the unwatches when the socket closes).
        if isinstance(command, Watch):
            conn.tables.add(table_id)
        elif isinstance(command, Unwatch):
            conn.tables.discard(table_id)
        try:
            payload = encode_command(self.name, command, rewatch=rewatch, boot=self.boot, seq=next(self._seq))
        except WireError:
            log.exception("gateway %s: could not send %r", self.name, command)
            return
        ref = command.ref

        def undelivered() -> None:
            local = self.by_id.get(conn.id)
            if ref is not None and local is not None and not local.closed:
                message = f"table {table_id} is not answering: try again"
                local.send(ErrorMsg(code=ErrorCode.UNAVAILABLE, message=message, ref=ref))

        self.courier.send(table_id, subjects.table_commands(table_id), payload, on_undelivered=undelivered)

    async def _on_frame(self, message: Message) -> None:
        try:
            conn_id, table_id, epoch, text = decode_frame(message.payload)
        except WireError:
            log.warning("gateway %s: dropped a bad frame", self.name)
            return
        remote = self.remote.get(table_id)
        if remote is not None:
            if epoch < remote.latest_epoch:
                self.dropped_frames += 1  # an old owner's late frame
                return
            remote.latest_epoch = epoch
        conn = self.by_id.get(conn_id)
        if conn is None or conn.closed:
            return
        if conn.is_bot:  # a bot reads models: the one thing rebuilt from the text
            try:
                model = decode_server_message(text)
            except ValueError:  # pydantic's ValidationError is a ValueError
                log.warning("gateway %s: dropped a frame %r could not read", self.name, conn)
                return
            conn.send(model)
        else:
            # A socket writes the text only: no model is rebuilt from it.
            conn.send_encoded(text, cast(ServerMsg, None))

    async def _on_account_frame(self, message: Message) -> None:
        """A table owner's ``wait_list`` for an account: to each of his sockets here."""
        try:
            account_id, table_id, epoch, text = decode_account_frame(message.payload)
            status = WaitListMsg.model_validate_json(text)
        except (WireError, ValueError):  # pydantic's ValidationError is a ValueError
            log.warning("gateway %s: dropped a bad wait-list message", self.name)
            return
        remote = self.remote.get(table_id)
        if remote is not None and epoch < remote.latest_epoch:
            self.dropped_frames += 1  # an old owner's late message
            return
        self.remote_lists.heard(account_id, status, epoch)
        for conn in list(self.connections.get(account_id, {}).values()):
            if not conn.closed:
                conn.send_encoded(text, status)

    async def _on_lobby_line(self, message: Message) -> None:
        parsed = subjects.parse(message.subject)
        if not isinstance(parsed, subjects.LobbySummary):
            return
        try:
            owner, epoch, line = decode_lobby_line(message.payload)
        except WireError:
            log.warning("gateway %s: dropped a bad lobby line", self.name)
            return
        remote = self.remote.get(parsed.table_id)
        if remote is None and is_tournament_table(parsed.table_id):
            remote = self._tournament_table(parsed.table_id, line, epoch)
        if remote is None or epoch < remote.latest_epoch:
            return
        remote.latest_epoch = epoch
        before = {seat.account_id for seat in remote.seats.values()}
        remote.line = line
        if epoch > remote.epoch:
            log.info("gateway %s: table %s owned by %s at epoch %s", self.name, remote.table_id, owner, epoch)
            changed = remote.epoch > 0  # not the first owner this gateway hears of
            remote.epoch, remote.owner = epoch, owner
            if not remote.tournament:
                self._lists_lost(remote, epoch, changed)
            for conn in list(self.by_id.values()):
                if remote.table_id in conn.tables and not conn.closed:
                    self.forward(remote.table_id, Watch(conn=conn), rewatch=True)
        if remote.tournament:
            self._follow_seats(remote, before)
        else:
            self.lobby.lobby_changed(remote.table_id)

    def _tournament_table(self, table_id: int, line: dict[str, Any], epoch: int) -> RemoteTable | None:
        """A tournament table first heard of: a remote table, in the tournaments' map only."""
        if line.get("closed"):
            return None
        try:
            config = TableConfig(**{f.name: line[f.name] for f in dataclasses.fields(TableConfig)})
        except (KeyError, TypeError):
            log.warning("gateway %s: dropped a bad line of tournament table %s", self.name, table_id)
            return None
        remote = self.remote[table_id] = RemoteTable(TableRecord(table_id, config), self)
        remote.tournament = True
        self.tournaments.actors[table_id] = cast(TableActor, remote)
        return remote

    def _follow_seats(self, remote: RemoteTable, before: set[int]) -> None:
        """A tournament table's new line: a player newly seated there (the start, a move, a late
        entry) has his sockets here watch it; a closed table is forgotten."""
        if remote.line.get("closed"):
            self.remote.pop(remote.table_id, None)
            self.tournaments.actors.pop(remote.table_id, None)
            return
        for seat in remote.seats.values():
            if seat.account_id in before:
                continue
            for conn in list(self.connections.get(seat.account_id, {}).values()):
                if not conn.closed and not conn.is_bot and remote.table_id not in conn.tables:
                    self.forward(remote.table_id, Watch(conn=conn))

    def _lists_lost(self, remote: RemoteTable, epoch: int, changed: bool) -> None:
        """A new owner: the local accounts still on the old owner's list lost their places (it
        died with them) and are told so; the table's other local watchers (bots among them,
        which count the people waiting) get the new owner's count."""
        table_id = remote.table_id
        waiting = int(remote.line.get("waiting", 0))
        told: set[int] = set()
        for account_id, status in self.remote_lists.owner_changed(table_id, epoch, waiting):
            told.add(account_id)
            log.info(
                "gateway %s: account %s lost its place on table %s's list", self.name, account_id, table_id
            )
            for conn in list(self.connections.get(account_id, {}).values()):
                if not conn.closed:
                    conn.send(status)
        if not (changed or told):
            return
        for conn in list(self.by_id.values()):
            if table_id in conn.tables and conn.account_id not in told and not conn.closed:
                conn.send(self.remote_lists.status(conn.account_id, table_id))


def create_gateway_app(settings: Settings, *, name: str, connect: BusConnector) -> FastAPI:
    """The room's app (REST, WebSockets, the browser client) with a :class:`GatewayRoom`."""

    def room(store: Store, room_settings: Settings) -> Room:
        return GatewayRoom(store, room_settings, name=name, connect=connect)

    # Logins counted in PostgreSQL: a brute force split over the gateways meets one budget.
    return create_app(dataclasses.replace(settings, shared_login_limits=True), room_factory=room)
