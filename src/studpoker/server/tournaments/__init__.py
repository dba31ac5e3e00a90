"""The room's tournaments (docs/tournaments.md, "In the room"): sit-and-go tournaments that
start when full and scheduled tournaments that start at their time, at one table or several,
their tables, clocks, balancing, late entries, busts and payouts.

- :class:`TournamentRoom` (here): registering and unregistering through the store, the start
  of a full sit-and-go, the start (or the cancellation) of a scheduled tournament at its time,
  late entries and re-entries, the running ones after a restart, what the lobby lists;
- :mod:`.creating`: new tournaments; :mod:`.lobby`: the lobby line;
- :mod:`.sit_and_go`: one running tournament and its tables; :mod:`.tables`: moves between
  them; :mod:`.late`: late registration and the seat of a late entry;
- :mod:`.ports`: the tournament table's store port (tournament chips, never the bankroll).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import time
from collections.abc import Callable
from typing import Any

from studpoker.store.errors import StoreError
from studpoker.store.tournaments import TournamentRecord, Tournaments
from studpoker.tournament.clock import ClockState
from studpoker.tournament.seating import draw_seats

from ..table import TableActor
from .creating import create_sit_and_go, create_tournament, rotation_of
from .host import Host
from .links import TableLinks
from .lobby import lobby_line, player_tables
from .sit_and_go import SitAndGo, table_id_of

__all__ = ["SitAndGo", "TournamentRoom", "create_sit_and_go", "create_tournament", "table_id_of"]

log = logging.getLogger(__name__)


class TournamentRoom:
    """The tournaments of a room: their tables live in ``actors`` (the dispatcher routes the
    players' frames there as to any table; the cash lobby does not list them). ``now`` is the
    wall time in seconds (tests give a fake one: the start times and the clocks follow it)."""

    def __init__(self, room: Host, *, now: Callable[[], float] = time.time) -> None:
        self.room = room
        self.store = room.store
        self.now = now
        self.running: dict[int, SitAndGo] = {}
        self.actors: dict[int, TableActor] = {}
        self._waker: asyncio.Task[None] | None = None
        self._tick_lock = asyncio.Lock()

    async def start(self) -> None:
        """The tournaments that were running when the room stopped go on (:meth:`resume`). A full
        sit-and-go starts; a scheduled tournament whose time has come starts (or is cancelled);
        then the room wakes for the next start time."""
        for record in await self.store.tournaments.list("running"):
            await self.resume(record)
        for record in await self.store.tournaments.list("registering"):
            await self.begin_if_full(record)
        await self.tick()
        self._waker = asyncio.get_running_loop().create_task(self._wake(), name="tournament-waker")

    async def resume(self, record: TournamentRecord) -> SitAndGo:
        """A running tournament taken up again (a restart, or in the cluster a new owner): the
        hands interrupted void, the stacks of the last finished hand, the clock from where it
        was stored, each table's rotation from the hands it played."""
        voided = await self.writes(record.id).void_interrupted(record.id)
        if voided:
            log.warning("tournament %s: voided %s interrupted hand(s)", record.id, voided)
        stored = ClockState.from_dict(record.clock) if record.clock else ClockState.started(self.now())
        # Each table's rotation resumes from the hands it played (the voided ones count).
        hands = await self.store.tournaments.hands_by_table(record.id)
        sng = self._run(record, stored.restored(self.now()), hands)
        await sng.place_unplaced()
        return sng

    async def begin_if_full(self, record: TournamentRecord) -> None:
        """A sit-and-go whose seats are all taken starts."""
        if not record.scheduled and len(record.entries) >= record.seats:
            await self._begin(record)

    # -- what a cluster's worker changes (cluster/tournaments.py) -----------------------------------

    def mine(self, tournament_id: int) -> bool:
        """This room runs tournament ``tournament_id`` (one process: every one)."""
        return True

    def writes(self, tournament_id: int) -> Tournaments:
        """The store a tournament's owner writes through (a worker's: fenced by its lease)."""
        return self.store.tournaments

    def links(self, record: TournamentRecord) -> TableLinks | None:
        """How the tournament's tables reach the room (None: one process's)."""
        return None

    async def stop(self) -> None:
        if self._waker is not None:
            self._waker.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._waker
        for sng in list(self.running.values()):
            for actor in sng.tables.values():
                actor.draining = True
            await sng.stop()
            for actor in sng.tables.values():
                actor.seats.clear()

    # -- the schedule ---------------------------------------------------------------------------------

    async def tick(self) -> float | None:
        """What the time brings: each scheduled tournament whose start time has come starts, or
        is cancelled below its smallest field (R-TOURNAMENT-SCHEDULED-START,
        R-TOURNAMENT-SCHEDULED-CANCEL); a running one whose late registration closed with one
        entry left is won. The next start time still to come (wall seconds), if any."""
        async with self._tick_lock:
            upcoming: list[float] = []
            for record in await self.store.tournaments.list("registering"):
                if record.starts_at is None or not self.mine(record.id):
                    continue
                starts = record.starts_at.timestamp()
                if starts > self.now():
                    upcoming.append(starts)
                    continue
                try:
                    await self._start_scheduled(record)
                except StoreError:
                    # A registration came between the read and the start: the next tick retries.
                    log.exception("tournament %s could not start; trying again", record.id)
                    upcoming.append(self.now() + 1.0)
            for sng in list(self.running.values()):
                await sng.late_registration_check()
            return min(upcoming, default=None)

    async def _start_scheduled(self, record: TournamentRecord) -> None:
        if len(record.entries) < record.min_players:
            await self.writes(record.id).cancel(record.id)
            log.info(
                "tournament %s cancelled: %s of %s entries",
                record.id,
                len(record.entries),
                record.min_players,
            )
        else:
            await self._begin(record)

    async def _wake(self) -> None:
        """At the next start time known, and every ``tournament_check_seconds`` (a tournament
        created by another process, the end of a late registration), :meth:`tick`."""
        check = max(0.05, self.room.settings.tournament_check_seconds)
        delay = 0.0
        while True:
            await asyncio.sleep(delay)
            try:
                upcoming = await self.tick()
            except Exception:
                log.exception("the tournament schedule could not be read")
                upcoming = None
            delay = check if upcoming is None else min(check, max(0.0, upcoming - self.now()))

    # -- running --------------------------------------------------------------------------------------

    def _time(self) -> float:
        # The tournaments read the room's ``now`` through this: a test that sets a fake one
        # moves their clocks too.
        return self.now()

    def _run(
        self, record: TournamentRecord, clock: ClockState, table_hands: dict[int, int] | None = None
    ) -> SitAndGo:
        sng = SitAndGo(
            self.room, record, clock, now=self._time, finished=self._finished, registry=self.actors,
            table_hands=table_hands, links=self.links(record),
        )  # fmt: skip
        self.running[record.id] = sng
        sng.start()
        # A player already connected joins his table at once (a later socket rejoins on attach).
        for entry in record.entries:
            for conn in self.room.connections.get(entry.account_id, {}).values():
                for actor in sng.tables.values():
                    self.room.rejoin(conn, actor)
        return sng

    def _finished(self, sng: SitAndGo) -> None:
        self.running.pop(sng.record.id, None)
        for actor in sng.tables.values():
            self.actors.pop(actor.table_id, None)
            sng.links.closed(actor)

    async def register(self, tournament_id: int, account_id: int) -> TournamentRecord:
        """An entry: before the start a registration (a full sit-and-go starts); while a
        tournament runs here, a late entry or, for a player whose entry is out, a re-entry."""
        sng = self.running.get(tournament_id)
        if sng is not None and not sng.done:
            return await sng.enter(account_id)
        record = await self.store.tournaments.register(tournament_id, account_id)
        if not record.scheduled and len(record.entries) >= record.seats:
            return await self._begin(record)
        return record

    async def unregister(self, tournament_id: int, account_id: int) -> TournamentRecord:
        result: TournamentRecord = await self.store.tournaments.unregister(tournament_id, account_id)
        return result

    async def _begin(self, record: TournamentRecord) -> TournamentRecord:
        """The field drawn at random at the fewest tables, the clock started, the tables dealt."""
        drawn = draw_seats(
            [e.account_id for e in record.entries], rotation_of(record).max_seats, seed=secrets.randbits(64)
        )
        seating = {player: drawn.where(player) for player in drawn.players}
        clock = ClockState.started(self.now())
        started = await self.writes(record.id).start(record.id, seating, clock.to_dict())
        self._run(started, clock)
        return started

    def lobby_line(self, record: TournamentRecord) -> dict[str, Any]:
        """A tournament as the lobby lists it (:mod:`.lobby`), with ``player_tables``: each
        seated entrant's table now (name to table id), read from the running tables, so that a
        player moved by balancing is sent to his table."""
        sng = self.running.get(record.id) if record.status == "running" else None
        line = lobby_line(record, sng, self.now())
        line["player_tables"] = {} if sng is None else player_tables(sng)
        return line
