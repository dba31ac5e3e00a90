"""The tournaments a table worker owns (docs/cluster.md "Tournaments").

A tournament is owned by one worker at a time, by a lease of its own (``tournament_leases``,
store/tournament_leases.py): the owner runs its director (the one-process room's
:class:`~studpoker.server.tournaments.TournamentRoom`: start when full or at its time, levels,
balancing, busts, payouts) and every one of its tables, so a move between tables never crosses
the bus. Each lease round (with the tables') the worker renews its tournaments' leases, drops
those it lost, and claims registering or running ones up to its fair share.

- Taking a running tournament (its owner died) is a restart of that tournament alone: the hands
  its tables were playing are void (each seated watcher is told ``hand_voided`` once), the stacks
  are the last finished hand's, the clock resumes where it was stored.
- Every tournament write of the owner carries its fence: a worker that lost the lease (stopped
  past it) writes nothing more.
- The tables are ordinary tables on the bus: their commands on ``table.<id>.cmd``, their frames
  to the gateways stamped with the tournament's epoch, their lobby lines on ``lobby.table.<id>``
  (the gateways route the players there; a closed table's line says ``closed``). The
  tournament's own line (level, tables, who sits where) goes to ``lobby.tournament.<id>``.
- The gateways' registrations come as requests on ``tournament.<id>.cmd``
  (:func:`decode_request`), answered with the record's id or the store's refusal.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
from typing import Any, Protocol

from studpoker.server.table import TableActor
from studpoker.server.tournaments import TournamentRoom
from studpoker.server.tournaments.host import Host
from studpoker.server.tournaments.links import TableLinks
from studpoker.server.tournaments.lobby import lobby_line, player_tables
from studpoker.server.tournaments.tables import TABLE_ID_BASE, TABLE_STRIDE, table_id_of
from studpoker.store.errors import LeaseLost, StoreError
from studpoker.store.leases import Fence
from studpoker.store.tournament_hand_reads import hands_in_progress
from studpoker.store.tournament_leases import TournamentFence, TournamentLease
from studpoker.store.tournaments import TournamentRecord, Tournaments

from . import subjects
from .bus import Bus, BusError, Message, Subscription
from .remote import Outbox, WireError, encode_lobby_line

log = logging.getLogger(__name__)

EPOCH_SHIFT = 32  # as the cash tables' versions (worker.py)


def tournament_of(table_id: int) -> int:
    """The tournament a tournament table's id belongs to (server/tournaments/tables.py)."""
    return (table_id - TABLE_ID_BASE) % TABLE_STRIDE


def is_tournament_table(table_id: int) -> bool:
    return table_id >= TABLE_ID_BASE


def encode_request(op: str, account_id: int) -> bytes:
    return json.dumps({"op": op, "account_id": account_id}, separators=(",", ":")).encode()


def decode_request(payload: bytes) -> tuple[str, int]:
    """A gateway's ``register`` or ``unregister`` of an account."""
    try:
        data = json.loads(payload)
        op, account_id = data["op"], data["account_id"]
        if op not in ("register", "unregister") or not isinstance(account_id, int) or account_id < 1:
            raise ValueError(f"{op!r} of {account_id!r}")
        return str(op), account_id
    except (ValueError, KeyError, TypeError) as exc:
        raise WireError(f"not a tournament request: {exc}") from None


def encode_answer(record: TournamentRecord | None, refusal: StoreError | None = None) -> bytes:
    if refusal is not None:
        error = {"code": refusal.code, "status": refusal.status, "message": str(refusal)}
        return json.dumps({"error": error}, separators=(",", ":")).encode()
    return json.dumps({"id": None if record is None else record.id}, separators=(",", ":")).encode()


class HeldTable(Protocol):
    """A table the worker acts for (worker.py's ``OwnedTable``), as its tournament sees it."""

    voided: str | None


class Worker(Host, Protocol):
    """The table worker (worker.py), as the tournaments it holds see it: their room, with its
    bus, epochs and the tables it acts for."""

    name: str
    lease_seconds: float
    stopping: asyncio.Event
    epochs: dict[int, int]
    outbox: Outbox

    @property
    def bus(self) -> Bus: ...
    @property
    def tournament_tables(self) -> dict[int, Any]: ...
    def lobby_changed(self, table_id: int) -> None: ...
    def hold_tournament_table(self, actor: TableActor, fence: Fence) -> HeldTable: ...
    async def subscribe_table(self, table_id: int) -> None: ...
    async def unsubscribe(self, owned: Any) -> None: ...


class WorkerTournaments(TournamentRoom):
    """The tournaments ``worker`` holds by lease (see the module docstring)."""

    def __init__(self, worker: Worker) -> None:
        super().__init__(worker)
        self.worker = worker
        self.fences: dict[int, TournamentFence] = {}
        self.renewed_at: dict[int, float] = {}
        self._writes: dict[int, Tournaments] = {}
        self._requests: dict[int, Subscription] = {}
        self._interrupted: dict[int, str] = {}  # table id -> the hand this takeover voids
        self._tasks: set[asyncio.Task[Any]] = set()

    # -- TournamentRoom's seams -------------------------------------------------------------------

    def mine(self, tournament_id: int) -> bool:
        return tournament_id in self.fences

    def writes(self, tournament_id: int) -> Tournaments:
        found = self._writes.get(tournament_id)
        if found is None:
            raise LeaseLost(f"{self.worker.name} does not hold tournament {tournament_id}")
        return found

    def links(self, record: TournamentRecord) -> TableLinks:
        return TableLinks(
            writes=self.writes(record.id), lobby=self.worker, opened=self._opened, closed=self._closed
        )

    def begin_waking(self) -> None:
        """The schedule's clock (scheduled starts, late registration's end) for the ones held."""
        self._waker = asyncio.get_running_loop().create_task(self._wake(), name="tournament-waker")

    # -- the lease round --------------------------------------------------------------------------

    async def lease_round(self) -> None:
        """Renew what is held (dropping what was lost), publish each one's line, claim up to the
        fair share."""
        worker, store = self.worker, self.worker.store
        if self.fences:
            asked = time.monotonic()
            renewed = await store.tournament_leases.renew(
                worker.name, list(self.fences), lease_seconds=worker.lease_seconds
            )
            kept = {lease.tournament_id for lease in renewed}
            for tournament_id in list(self.fences):
                if tournament_id in kept:
                    self.renewed_at[tournament_id] = asked
                else:
                    log.warning("worker %s: lost the lease of tournament %s", worker.name, tournament_id)
                    await self.drop(tournament_id)
        for tournament_id in list(self.fences):
            self.publish(tournament_id)
        if not worker.stopping.is_set():
            for lease in await store.tournament_leases.claim(worker.name, worker.lease_seconds):
                await self._adopt(lease)

    def stop_expired(self) -> None:
        """A tournament not renewed within the lease is another's to claim: stop acting now."""
        deadline = time.monotonic() - self.worker.lease_seconds
        for tournament_id, renewed in list(self.renewed_at.items()):
            if renewed < deadline:
                log.warning("worker %s: no renewal of tournament %s in time", self.worker.name, tournament_id)
                self._spawn(self.drop(tournament_id))

    async def _adopt(self, lease: TournamentLease) -> None:
        worker = self.worker
        fence = lease.fence
        self.fences[fence.tournament_id] = fence
        self.renewed_at[fence.tournament_id] = time.monotonic()
        self._writes[fence.tournament_id] = worker.store.tournaments.fenced(fence)
        try:
            record = await worker.store.tournaments.get(fence.tournament_id)
            self._requests[record.id] = await worker.bus.subscribe(
                subjects.tournament_commands(record.id), self._on_request
            )
            if record.status == "running":
                async with worker.store.database.read() as conn:
                    interrupted = await hands_in_progress(conn, record.id)
                self._interrupted.update({table_id_of(record.id, n): h for n, h in interrupted.items()})
                await self.resume(record)
                log.info("worker %s: took tournament %s at epoch %s", worker.name, record.id, fence.epoch)
            elif record.status == "registering":
                await self.begin_if_full(record)
            else:
                await self._let_go(record.id)
        except (StoreError, BusError):
            log.exception("worker %s: could not take tournament %s", worker.name, fence.tournament_id)
            await self.drop(fence.tournament_id)
        self.publish(fence.tournament_id)

    async def drop(self, tournament_id: int) -> None:
        """Stop acting for a tournament whose lease is gone (its tables send nothing more)."""
        self.fences.pop(tournament_id, None)
        self.renewed_at.pop(tournament_id, None)
        self._writes.pop(tournament_id, None)
        subscription = self._requests.pop(tournament_id, None)
        if subscription is not None:
            with contextlib.suppress(Exception):
                await subscription.unsubscribe()
        sng = self.running.pop(tournament_id, None)
        if sng is None:
            return
        for actor in list(sng.tables.values()):
            actor.watchers.clear()
            self.actors.pop(actor.table_id, None)
            self._closed(actor, publish=False)
        await sng.stop()

    async def _let_go(self, tournament_id: int) -> None:
        """A tournament over (finished or cancelled): its lease released, nothing more sent."""
        await self.drop(tournament_id)
        with contextlib.suppress(StoreError):
            await self.worker.store.tournament_leases.release(self.worker.name, tournament_id)

    def _finished(self, sng: Any) -> None:
        super()._finished(sng)
        self.publish(sng.record.id, sng.record)
        self._spawn(self._let_go(sng.record.id))

    async def tick(self) -> float | None:
        upcoming = await super().tick()
        # A scheduled one cancelled below its smallest field is over too.
        for tournament_id in [t for t in self.fences if t not in self.running]:
            with contextlib.suppress(StoreError):
                if (await self.store.tournaments.get(tournament_id)).status in ("finished", "cancelled"):
                    await self._let_go(tournament_id)
        return upcoming

    # -- its tables -------------------------------------------------------------------------------

    def _opened(self, actor: TableActor) -> None:
        """A table of a held tournament opens: stamped with the tournament's epoch, its commands
        subscribed to, the hand a takeover voids there told to its watchers."""
        worker = self.worker
        fence = self.fences.get(tournament_of(actor.table_id))
        if fence is None:  # pragma: no cover - a table opens only for a tournament held
            return
        worker.epochs[actor.table_id] = fence.epoch
        actor.fanout.version = fence.epoch << EPOCH_SHIFT
        owned = worker.hold_tournament_table(actor, Fence(actor.table_id, worker.name, fence.epoch))
        owned.voided = self._interrupted.pop(actor.table_id, None)
        self._spawn(worker.subscribe_table(actor.table_id))

    def _closed(self, actor: TableActor, *, publish: bool = True) -> None:
        """A table broken (or the tournament over): its subscription ends; the gateways are told
        it is closed (their sockets stop routing there)."""
        worker = self.worker
        owned = worker.tournament_tables.pop(actor.table_id, None)
        if owned is None:
            return
        if publish:
            closed = {"id": actor.table_id, "closed": True, "seats": []}
            epoch = worker.epochs.get(actor.table_id, 0)
            worker.outbox.put(
                subjects.lobby_summary(actor.table_id), encode_lobby_line(worker.name, epoch, closed)
            )
        self._spawn(worker.unsubscribe(owned))

    # -- the gateways -----------------------------------------------------------------------------

    def publish(self, tournament_id: int, record: TournamentRecord | None = None) -> None:
        """The tournament's line (``lobby.tournament.<id>``): its level, tables and who sits where."""
        fence = self.fences.get(tournament_id)
        sng = self.running.get(tournament_id)
        record = record or (None if sng is None else sng.record)
        if fence is None or record is None:
            return
        line = lobby_line(record, sng, self.now())
        line["player_tables"] = {} if sng is None else player_tables(sng)
        self.worker.outbox.put(
            subjects.tournament_summary(tournament_id), encode_lobby_line(self.worker.name, fence.epoch, line)
        )

    async def _on_request(self, message: Message) -> None:
        parsed = subjects.parse(message.subject)
        if not isinstance(parsed, subjects.TournamentCommand) or message.reply is None:
            return
        try:
            op, account_id = decode_request(message.payload)
        except WireError:
            log.warning("worker %s: dropped a bad tournament request", self.worker.name)
            return
        if not self.mine(parsed.tournament_id):
            return  # not ours (any more): the gateway asks again, and finds the new owner
        try:
            act = self.register if op == "register" else self.unregister
            answer = encode_answer(await act(parsed.tournament_id, account_id))
        except StoreError as refusal:
            answer = encode_answer(None, refusal)
        with contextlib.suppress(BusError):
            await self.worker.bus.respond(message, answer)
        self.publish(parsed.tournament_id)

    # -- stopping ---------------------------------------------------------------------------------

    def tables(self) -> list[TableActor]:
        return [actor for sng in self.running.values() for actor in sng.tables.values()]

    async def drain(self) -> None:
        """The worker stops (its tables' hands were given the grace): every tournament stopped,
        its lease left to expire where a hand is still in play (the next owner voids it)."""
        await self.stop()
        for tournament_id in list(self.fences):
            await self.drop(tournament_id)
        with contextlib.suppress(StoreError):
            await self.worker.store.tournament_leases.leave(self.worker.name)
        for task in list(self._tasks):
            task.cancel()

    def _spawn(self, work: Any) -> None:
        task = asyncio.get_running_loop().create_task(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)


__all__ = ["WorkerTournaments", "decode_request", "encode_answer", "encode_request", "is_tournament_table"]
