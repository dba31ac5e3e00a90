"""The table worker role: a process that owns table actors by lease (docs/cluster.md "Roles").

Every third of ``Settings.lease_seconds`` the worker renews the leases it holds and claims
unowned or expired tables up to its fair share (``store.leases``). For a table it takes it
voids the hand an earlier owner left in progress (``void_interrupted``, with refunds), rebuilds
the seats from the database (no cash-out) and starts a :class:`TableActor` whose store writes
all carry the lease's :class:`Fence`, whose viewers are :class:`RemoteViewer` s (their frames go
to their gateway) and whose lobby line goes to every gateway. A table it could not renew in
time it stops acting for at once (its watchers are forgotten, so it sends nothing more).

At start it beats its heartbeat and waits ``worker_settle_seconds`` before its first claim,
so that workers started together split the tables. It listens to the gateways' presence beats
(``room.presence``) and forgets the watchers of a gateway silent for ``gateway_timeout_seconds``
or started again (a new boot id), so a killed gateway's players stop counting as connected.

Its tournaments (cluster/tournaments.py) are held by leases of their own, renewed and claimed in
the same round: a tournament's director and all its tables run here.

The wait lists of its tables are its own (cluster/waiting.py): the actors' lobby port, so a
freed seat is offered at once; the requests come as table commands, the ``wait_list`` messages
go to ``account.<id>.out``. A gateway's chat-line question (a report) is answered from the
actor's chat.

Stopping (SIGTERM): no new hands, the hands in play get ``shutdown_grace_seconds`` to finish,
then the tables are released (``leave``) for the others to claim; nobody is cashed out.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import time
from dataclasses import dataclass, field

from studpoker.server.connections import Connection
from studpoker.server.protocol import EventMsg
from studpoker.server.settings import Settings
from studpoker.server.store_adapter import StoreTableAdapter
from studpoker.server.table import Act, SeatState, TableActor, TablePorts, Unwatch, Watch
from studpoker.server.table.adapters import LoopClock
from studpoker.server.writer import GroupCommitter
from studpoker.store import Store
from studpoker.store.errors import HandStateError, LeaseLost, StoreError
from studpoker.store.leases import Fence, Lease

from . import subjects
from .bus import Bus, BusError, Message, Subscription
from .courier import TakenCommands
from .remote import (
    Outbox,
    RemoteViewer,
    Sender,
    WireError,
    chat_line_query,
    decode_command,
    decode_presence,
    encode_chat_line,
    encode_lobby_line,
)
from .renewal import Renewals
from .tournaments import WorkerTournaments, is_tournament_table
from .waiting import MOVED, owner_takes, owner_wait_lists

log = logging.getLogger(__name__)

VOID_REASON = "the table's worker stopped"
# A table's version is epoch << EPOCH_SHIFT plus the owner's count: 2**32 versions per owner, and
# epochs up to 2**21 before the versions pass JavaScript's exact integers (2**53).
EPOCH_SHIFT = 32


@dataclass
class OwnedTable:
    """A table this worker acts for: its actor, its lease, its command subscription, and the
    hand the takeover voided (each seated player's next watch is told of it once)."""

    actor: TableActor
    fence: Fence
    renewed_at: float
    subscription: Subscription | None = None
    voided: str | None = None
    voided_until: float = 0.0
    told: set[tuple[str, int]] = field(default_factory=set)
    moving: bool = False  # draining to be released to a worker with less than its share
    taken: TakenCommands = field(default_factory=TakenCommands)  # the gateways' commands taken


class Worker:
    """The tables ``name`` owns, over ``store`` (PostgreSQL) and ``bus``."""

    def __init__(self, name: str, store: Store, bus: Bus, settings: Settings) -> None:
        self.name = name
        self.store = store
        self.bus = bus
        self.settings = settings
        self.lease_seconds = settings.lease_seconds
        self.outbox = Outbox(bus)
        self.writer = GroupCommitter(store)
        self.tables: dict[int, OwnedTable] = {}
        self.epochs: dict[int, int] = {}  # table id -> epoch, stamped on the frames
        self.viewers: dict[tuple[str, int], RemoteViewer] = {}
        self._viewer_ids = 0
        self._lobby_dirty: set[int] = set()
        self._lobby_timer: asyncio.TimerHandle | None = None
        self.stopping = asyncio.Event()
        # gateway name -> (its boot id, "" until its first beat; when it was last heard, monotonic)
        self.gateways: dict[str, tuple[str, float]] = {}
        self._presence: Subscription | None = None
        # The wait lists of the tables held, with the actors (cluster/waiting.py).
        self.wait_lists = owner_wait_lists(self.tables, self.outbox, self.epochs, self, settings)
        # The tournaments held, and their tables (commands and frames as a cash table's).
        self.tournament_tables: dict[int, OwnedTable] = {}
        self.tournaments = WorkerTournaments(self)
        self.renewals = Renewals(name, store.leases, self.lease_seconds, self.tables, self._drop)
        self._tasks: set[asyncio.Task[None]] = set()

    # -- the lease loop ---------------------------------------------------------------------------

    async def run(self) -> None:
        """Renew, and claim, every third of the lease until :meth:`request_stop`; then drain."""
        period = self.lease_seconds / 3
        self._presence = await self.bus.subscribe(subjects.broadcast("presence"), self._on_presence)
        await self._settle()
        self.tournaments.begin_waking()
        self.renewals.start()
        while not self.stopping.is_set():
            started = time.monotonic()
            try:
                await self.tick()
            except Exception:
                log.exception("worker %s: the lease round failed", self.name)
            self.tournaments.stop_expired()
            self._forget_silent_gateways()
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(self.stopping.wait(), max(0.05, period - (time.monotonic() - started)))
        await self.drain()

    def request_stop(self) -> None:
        self.stopping.set()

    async def _settle(self) -> None:
        """Count in the fair share before claiming: the heartbeat first, then a short wait for
        the workers started with this one to beat theirs (else the first takes every table and
        the others get theirs only by moves, a hand at a time)."""
        await self._beat_alone()
        if self.settings.worker_settle_seconds > 0:
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(self.stopping.wait(), self.settings.worker_settle_seconds)
        # Started with others by a launcher that knows how many (``cluster up``): wait for them
        # all, as a machine under load can start one several seconds after another.
        deadline = time.monotonic() + self.settings.worker_settle_max_seconds
        while not self.stopping.is_set() and time.monotonic() < deadline:
            try:
                if len(await self.store.leases.workers()) >= self.settings.expected_workers:
                    return
            except StoreError:
                log.exception("worker %s: could not count the live workers", self.name)
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(self.stopping.wait(), min(0.2, self.lease_seconds / 3))
            await self._beat_alone()

    async def _beat_alone(self) -> None:
        """The heartbeat with no table yet (an empty renewal)."""
        try:
            await self.store.leases.renew(self.name, [], lease_seconds=self.lease_seconds)
        except StoreError:
            log.exception("worker %s: could not register its heartbeat", self.name)

    async def tick(self) -> None:
        """One round: publish the lobby lines, move a surplus table between hands, claim up to
        the fair share, the tournaments' round (the renewals run on their own)."""
        for table_id in self.tables:
            self._publish_lobby(table_id)
        await self._move_surplus()
        if not self.stopping.is_set():
            claimed_at = time.monotonic()
            leases = await self.store.leases.claim(self.name, self.lease_seconds)
            self.renewals.claimed([lease.table_id for lease in leases], claimed_at)
            for lease in leases:
                try:
                    await self._take_over(lease)
                finally:
                    self.renewals.taken(lease.table_id)
        await self.tournaments.lease_round()

    async def _move_surplus(self) -> None:
        """Held more than the fair share (a worker joined): drain the surplus, and release each
        table once its hand is over, so the newcomer's claim takes it with no hand voided."""
        if self.stopping.is_set() or not self.tables:
            return
        surplus = len(self.tables) - await self.store.leases.fair_share()
        moving = [t for t, owned in self.tables.items() if owned.moving]
        for table_id in sorted(set(self.tables) - set(moving), reverse=True)[: max(0, surplus - len(moving))]:
            self.tables[table_id].moving = True
            self.tables[table_id].actor.draining = True
            moving.append(table_id)
        for table_id in moving:
            owned = self.tables.get(table_id)  # a lost lease drops it meanwhile
            if owned is not None and not owned.actor.busy:
                await self._release(table_id)

    async def _release(self, table_id: int) -> None:
        owned = self.tables.pop(table_id, None)
        if owned is None:
            return
        self.wait_lists.drop_table(table_id, MOVED)
        await self.unsubscribe(owned)
        await owned.actor.stop()
        try:
            await self.store.leases.release(self.name, table_id)
        except (LeaseLost, HandStateError):
            log.warning("worker %s: table %s could not be released", self.name, table_id, exc_info=True)

    # -- taking a table ---------------------------------------------------------------------------

    async def _take_over(self, lease: Lease) -> None:
        fence = lease.fence
        try:
            record = await self.store.table(lease.table_id)
            takeover = await self.store.void_interrupted(lease.table_id, fence)
        except (LeaseLost, StoreError):
            log.exception("worker %s: could not take table %s", self.name, lease.table_id)
            return
        if takeover.voided is not None:
            log.warning("worker %s: voided hand %s of table %s", self.name, takeover.voided, lease.table_id)
        self.epochs[lease.table_id] = lease.epoch
        store = StoreTableAdapter(
            self.store,
            self.writer,
            lease.table_id,
            name_of=lambda account_id: self._name_of(lease.table_id, account_id),
            protected_all_ins_per_day=self.settings.protected_all_ins_per_day,
            fence=fence,
        )
        actor = TableActor(
            record,
            TablePorts(store=store, lobby=self.wait_lists, presence=self, clock=LoopClock()),
            self.settings,
            think_seconds=self.settings.think_seconds,
            countdown_seconds=self.settings.countdown_seconds,
            hand_pause_seconds=self.settings.hand_pause_seconds,
        )
        actor.waiting = functools.partial(self.wait_lists.count, lease.table_id)
        for seat in takeover.seats.values():
            actor.seats[seat.seat] = SeatState(seat.seat, seat.account_id, seat.name, seat.stack)
        # The table's versions carry the epoch (its high bits): a new owner's versions are above
        # every one of the old owner's, so a client that met a late frame of the old owner
        # (the gateways drop those already) would take it for stale, never for the newest.
        actor.fanout.version = lease.epoch << EPOCH_SHIFT
        # Renewed while it was being taken (or not: then the next check drops it).
        renewed_at = self.renewals.taking.get(lease.table_id, time.monotonic())
        owned = OwnedTable(actor, fence, renewed_at=renewed_at, voided=takeover.voided)
        owned.voided_until = time.monotonic() + 2 * self.lease_seconds
        self.tables[lease.table_id] = owned
        actor.start()
        actor.dealer.schedule()
        owned.subscription = await self.bus.subscribe(
            subjects.table_commands(lease.table_id), functools.partial(self._on_command, lease.table_id)
        )
        self._publish_lobby(lease.table_id)  # the gateways see the new epoch and watch again

    def _drop(self, table_id: int) -> None:
        """Stop acting for a table whose lease is gone: nothing more is sent or written for it
        (its writes would be refused by the fence anyway). It is no longer held at once; its
        actor stops on a task of its own (stopping waits on the writer)."""
        owned = self.tables.pop(table_id, None)
        if owned is None:
            return
        self.wait_lists.drop_table(table_id, MOVED)
        owned.actor.watchers.clear()
        task = asyncio.get_running_loop().create_task(self._stop_dropped(owned), name=f"drop-{table_id}")
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _stop_dropped(self, owned: OwnedTable) -> None:
        await self.unsubscribe(owned)
        await owned.actor.stop()

    async def unsubscribe(self, owned: OwnedTable) -> None:
        if owned.subscription is not None:
            with contextlib.suppress(Exception):
                await owned.subscription.unsubscribe()
            owned.subscription = None

    # -- commands from the gateways ---------------------------------------------------------------

    def _owned(self, table_id: int) -> OwnedTable | None:
        """A cash table held, or a table of a tournament held."""
        return self.tables.get(table_id) or self.tournament_tables.get(table_id)

    def hold_tournament_table(self, actor: TableActor, fence: Fence) -> OwnedTable:
        """A held tournament's table, acted for here (``fence``: its tournament's epoch)."""
        owned = OwnedTable(actor, fence, renewed_at=time.monotonic())
        owned.voided_until = time.monotonic() + 2 * self.lease_seconds
        self.tournament_tables[actor.table_id] = owned
        return owned

    async def subscribe_table(self, table_id: int) -> None:
        """The commands of a held tournament's table (it may have closed meanwhile)."""
        subscription = await self.bus.subscribe(
            subjects.table_commands(table_id), functools.partial(self._on_command, table_id)
        )
        owned = self.tournament_tables.get(table_id)
        if owned is None:
            await subscription.unsubscribe()
        else:
            owned.subscription = subscription
            self._publish_lobby(table_id)

    async def _on_command(self, table_id: int, message: Message) -> None:
        owned = self._owned(table_id)
        if owned is None:
            return
        try:
            line_id = chat_line_query(message.payload)
            if line_id is not None:  # a gateway's chat report: the line this table keeps
                if message.reply is not None:
                    with contextlib.suppress(BusError):
                        await self.bus.respond(message, encode_chat_line(owned.actor.chat.find(line_id)))
                return
            wire = decode_command(message.payload)
        except WireError:
            log.warning("worker %s: dropped a bad command for table %s", self.name, table_id)
            return
        if owned.taken.first_time(wire.sender.gateway, wire.boot, wire.seq):
            viewer = self._viewer(wire.sender)
            command = wire.command
            command.conn = viewer
            if isinstance(command, Watch):
                self._tell_voided(owned, viewer)
                state = owned.actor.seat_of(viewer.account_id)
                if viewer.is_bot and state is not None:
                    state.is_bot = True  # the database's seats do not say; a takeover lost it
            if isinstance(command, Act) and command.hand_id == owned.voided:
                # An action for the hand the takeover voided, sent while the table had no owner
                # (the courier kept it): what the player needs is that hand's end, not no_hand.
                self._tell_voided(owned, viewer)
            elif is_tournament_table(table_id):
                owned.actor.submit(command)  # no wait list: the tournament seats its players
            elif not owner_takes(self.wait_lists, table_id, viewer, command):
                owned.actor.submit(command)
                if isinstance(command, Watch):
                    self.wait_lists.on_watch(viewer, table_id)  # its place, or the count
            if isinstance(command, Unwatch) and command.closed:
                self._forget_later(viewer)  # the socket closed
        if message.reply is not None:  # the gateway's courier waits for this to send the next
            with contextlib.suppress(BusError):
                await self.bus.respond(message, b"")

    def _tell_voided(self, owned: OwnedTable, viewer: RemoteViewer) -> None:
        """A watch soon after a takeover that voided a hand: that viewer is told of it first."""
        key = (viewer.sender.gateway, viewer.sender.conn_id)
        if owned.voided is None or time.monotonic() > owned.voided_until or key in owned.told:
            return
        owned.told.add(key)
        actor = owned.actor
        viewer.send(
            EventMsg.model_construct(
                type="event",
                table_id=actor.table_id,
                version=actor.version,
                hand_id=owned.voided,
                event={"kind": "hand_voided", "hand_id": owned.voided, "reason": VOID_REASON},
                clock=None,
            )
        )

    def _viewer(self, sender: Sender) -> RemoteViewer:
        key = (sender.gateway, sender.conn_id)
        viewer = self.viewers.get(key)
        if viewer is None:
            # A gateway not heard from yet gets its time-out from now (its beat is on its way).
            self.gateways.setdefault(sender.gateway, ("", time.monotonic()))
            self._viewer_ids += 1
            viewer = RemoteViewer(self._viewer_ids, sender, self.outbox, self.epochs)
            self.viewers[key] = viewer
        return viewer

    def _forget_later(self, viewer: RemoteViewer) -> None:
        def forget() -> None:
            if not viewer.tables:
                self.viewers.pop((viewer.sender.gateway, viewer.sender.conn_id), None)

        asyncio.get_running_loop().call_later(self.lease_seconds, forget)

    # -- the gateways' presence -------------------------------------------------------------------

    async def _on_presence(self, message: Message) -> None:
        try:
            gateway, boot = decode_presence(message.payload)
        except WireError:
            log.warning("worker %s: dropped a bad presence beat", self.name)
            return
        known = self.gateways.get(gateway)
        if known is not None and known[0] not in ("", boot):
            log.warning(
                "worker %s: gateway %s started again: forgetting its old watchers", self.name, gateway
            )
            self._forget_gateway(gateway)
        self.gateways[gateway] = (boot, time.monotonic())

    def _forget_silent_gateways(self) -> None:
        deadline = time.monotonic() - self.settings.gateway_timeout_seconds
        for gateway, (_, seen) in list(self.gateways.items()):
            if seen < deadline:
                log.warning("worker %s: no beat from gateway %s: forgetting its watchers", self.name, gateway)
                del self.gateways[gateway]
                self._forget_gateway(gateway)

    def _forget_gateway(self, gateway: str) -> None:
        """Every watcher of ``gateway`` leaves its tables as a closed socket does (the seats'
        disconnect rules then run; the players find their seats again from another gateway)."""
        for key, viewer in list(self.viewers.items()):
            if key[0] != gateway:
                continue
            del self.viewers[key]
            for table_id in list(viewer.tables):
                owned = self._owned(table_id)
                if owned is not None:
                    owned.actor.submit(Unwatch(conn=viewer, closed=True))

    # -- the actors' ports ------------------------------------------------------------------------

    def is_connected(self, account_id: int, table_id: int) -> bool:
        """Presence: a person is there while one of his connections watches the table."""
        owned = self._owned(table_id)
        if owned is None:
            return False
        return any(v.account_id == account_id for v in owned.actor.watchers.values())

    def lobby_changed(self, table_id: int) -> None:
        """The lobby port: the table's line goes to every gateway, coalesced as the room's push is."""
        self._lobby_dirty.add(table_id)
        if self._lobby_timer is None:
            self._lobby_timer = asyncio.get_running_loop().call_later(
                self.settings.lobby_push_seconds, self._flush_lobby
            )

    def _flush_lobby(self) -> None:
        self._lobby_timer = None
        dirty, self._lobby_dirty = self._lobby_dirty, set()
        for table_id in sorted(dirty):
            self._publish_lobby(table_id)

    def _publish_lobby(self, table_id: int) -> None:
        owned = self._owned(table_id)
        if owned is None or owned.actor.stopped:
            return
        line = encode_lobby_line(self.name, owned.fence.epoch, owned.actor.summary())
        self.outbox.put(subjects.lobby_summary(table_id), line)

    # A held tournament's room (host.py): the gateways watch a seated player's table, not this.

    @property
    def connections(self) -> dict[int, dict[int, Connection]]:
        return {}

    def rejoin(self, conn: Connection, actor: TableActor) -> None:
        return None

    def _name_of(self, table_id: int, account_id: int) -> str:
        owned = self._owned(table_id)
        state = None if owned is None else owned.actor.seat_of(account_id)
        return f"#{account_id}" if state is None else state.name

    # -- stopping ---------------------------------------------------------------------------------

    async def drain(self) -> None:
        """No new hands; the hands in play get ``shutdown_grace_seconds``; then every table is
        released (a hand still in play then is voided, with its refunds, under this lease)."""
        tournament_tables = self.tournaments.tables()
        for actor in [*(o.actor for o in self.tables.values()), *tournament_tables]:
            actor.draining = True
        deadline = time.monotonic() + self.settings.shutdown_grace_seconds
        while time.monotonic() < deadline and (
            any(o.actor.busy for o in self.tables.values()) or any(a.busy for a in tournament_tables)
        ):
            await asyncio.sleep(0.05)
        try:  # the tables are released below whatever their tournaments' stop does
            await asyncio.wait_for(self.tournaments.drain(), self.settings.shutdown_grace_seconds + 5)
        except Exception:
            log.exception("worker %s: its tournaments did not stop cleanly", self.name)
        # Renewed up to here (the grace can outlast the lease); from here the tables are let go.
        await self.renewals.stop()
        for table_id, owned in self.tables.items():
            self.wait_lists.drop_table(table_id, MOVED)
            await self.unsubscribe(owned)
        await asyncio.gather(*(o.actor.stop() for o in self.tables.values()), return_exceptions=True)
        self.tables.clear()
        await asyncio.gather(*self._tasks, return_exceptions=True)  # the dropped tables' stops
        await self.writer.close()
        if self._presence is not None:
            with contextlib.suppress(Exception):
                await self._presence.unsubscribe()
        with contextlib.suppress(StoreError):
            await self.store.leases.leave(self.name)
        await self.outbox.close()
