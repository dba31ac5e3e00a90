"""Tournament ownership by lease, with fencing (docs/cluster.md "Tournament ownership").

In the cluster a tournament (its director and all its tables) runs on one worker at a time: the
owner of its row in ``tournament_leases`` (owner, epoch, expires_at), as a cash table is the owner
of its ``table_leases`` row (:mod:`.leases`, whose clock, worker ids and lease times this module
shares). A worker :meth:`TournamentLeases.claim` s unowned or expired tournaments that are
registering or running, up to its fair share, which raises each one's epoch; it
:meth:`~TournamentLeases.renew` s them before they expire and :meth:`~TournamentLeases.release` s
a finished one, or one between hands to move it.

Every tournament write of an owner carries its :class:`TournamentFence` (``Tournaments.fenced``)
and calls :func:`check_tournament_fence` first in its transaction: a worker that lost the lease
gets :class:`LeaseLost` and writes nothing.

Live workers are the table leases' heartbeats (``workers``): this module reads them and never
beats, so a worker's heartbeat is kept by its table leases' claims and renewals.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import ColumnElement, Row, exists, func, literal, or_, select, update
from sqlalchemy.dialects.postgresql import insert as postgresql_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.ext.asyncio import AsyncConnection

from .database import Database
from .errors import InvalidInputError, LeaseLost
from .leases import check_fence_fields, check_held, check_seconds, check_worker, db_later, db_now
from .schema import tournament_hands, tournament_leases, tournaments, workers

# The tournaments a worker runs: those that end (finished, cancelled) are never claimed.
ACTIVE_STATUSES = ("registering", "running")


@dataclass(frozen=True, slots=True)
class TournamentFence:
    """The lease a tournament write is made under: ``owner`` holds ``tournament_id`` at
    ``epoch``. A fenced write is refused (:class:`LeaseLost`) unless, in its own transaction, the
    tournament's lease still has this owner and epoch and has not expired."""

    tournament_id: int
    owner: str
    epoch: int

    def __post_init__(self) -> None:
        check_fence_fields(self.tournament_id, "tournament", self.owner, self.epoch)


@dataclass(frozen=True, slots=True)
class TournamentLease:
    """A tournament's lease as read: ``owner`` None when it was released (or never held);
    ``live`` when it is owned and had not expired by the database's clock when read."""

    tournament_id: int
    owner: str | None
    epoch: int
    expires_at: datetime | None
    live: bool

    @property
    def fence(self) -> TournamentFence:
        """The fence of the owner's writes; :class:`LeaseLost` for a lease nobody holds."""
        if self.owner is None or not self.live:
            raise LeaseLost(f"nobody holds tournament {self.tournament_id}")
        return TournamentFence(self.tournament_id, self.owner, self.epoch)


def _check_ids(tournament_ids: Iterable[int]) -> list[int]:
    found = list(tournament_ids)
    for tournament_id in found:
        if not isinstance(tournament_id, int) or isinstance(tournament_id, bool):
            raise InvalidInputError(f"a tournament id is a whole number, not {tournament_id!r}")
    return sorted(set(found))


async def check_tournament_fence(conn: AsyncConnection, fence: TournamentFence, tournament_id: int) -> None:
    """Raise :class:`LeaseLost` unless ``fence`` is for ``tournament_id`` and the tournament's
    lease still has its owner and epoch and has not expired. The lease row is locked (``FOR KEY
    SHARE``) until the transaction ends: a claim skips it, so no other worker takes the tournament
    between this check and the write's commit, while renewals (which change no key) do not wait."""
    if not isinstance(fence, TournamentFence):
        raise InvalidInputError(f"a tournament fence is a TournamentFence, not {fence!r}")
    if fence.tournament_id != tournament_id:
        raise LeaseLost(
            f"the fence is for tournament {fence.tournament_id}, this write is for tournament {tournament_id}"
        )
    key = tournament_leases.c.tournament_id
    await check_held(conn, key, tournament_id, owner=fence.owner, epoch=fence.epoch, what="tournament")


def _lease(row: Row[Any], *, live: bool | None = None) -> TournamentLease:
    mapping = row._mapping
    return TournamentLease(
        tournament_id=int(mapping["tournament_id"]),
        owner=mapping["owner"],
        epoch=int(mapping["epoch"] or 0),
        expires_at=mapping["expires_at"],
        live=bool(mapping["live"]) if live is None else live,
    )


def _leases(rows: Iterable[Row[Any]]) -> list[TournamentLease]:
    """Leases just taken or extended (live), by tournament id."""
    return sorted((_lease(row, live=True) for row in rows), key=lambda lease: lease.tournament_id)


_RETURNED = (
    tournament_leases.c.tournament_id,
    tournament_leases.c.owner,
    tournament_leases.c.epoch,
    tournament_leases.c.expires_at,
)


def _active() -> ColumnElement[bool]:
    """The lease is of a tournament that is registering or running."""
    return tournament_leases.c.tournament_id.in_(
        select(tournaments.c.id).where(tournaments.c.status.in_(ACTIVE_STATUSES))
    )


def _held_by(conn: AsyncConnection, worker: str) -> ColumnElement[bool]:
    return (tournament_leases.c.owner == worker) & (tournament_leases.c.expires_at > db_now(conn))


class TournamentLeases:
    """Who runs each tournament in the cluster (``store.tournament_leases``)."""

    def __init__(self, db: Database) -> None:
        self.db = db

    async def claim(
        self, worker: str, lease_seconds: float, fair_share: int | None = None
    ) -> list[TournamentLease]:
        """Take unowned or expired tournaments that are registering or running, lowest ids first,
        until ``worker`` holds its fair share (``fair_share``, or ceil(those tournaments / live
        workers), the worker counted live), in ONE ``UPDATE`` that raises each one's epoch and
        leases it for ``lease_seconds`` of the database's clock. Returns the leases taken (the
        worker's new fences); a worker at or above its share takes none."""
        worker = check_worker(worker)
        seconds = check_seconds(lease_seconds)
        if fair_share is not None and (
            not isinstance(fair_share, int) or isinstance(fair_share, bool) or fair_share < 0
        ):
            raise InvalidInputError(f"a fair share is a whole number >= 0, not {fair_share!r}")
        async with self.db.write() as conn:
            await _add_missing_leases(conn)
            share = await _fair_share(conn, worker) if fair_share is None else fair_share
            held = await conn.scalar(
                select(func.count()).select_from(tournament_leases).where(_held_by(conn, worker), _active())
            )
            wanted = share - int(held or 0)
            if wanted <= 0:
                return []
            free = or_(
                tournament_leases.c.owner.is_(None),
                tournament_leases.c.expires_at.is_(None),
                tournament_leases.c.expires_at <= db_now(conn),
            )
            # SKIP LOCKED: workers claiming at once take different tournaments, and one whose
            # owner is writing under its fence (FOR KEY SHARE) is left alone until it commits.
            picked = (
                select(tournament_leases.c.tournament_id)
                .where(free, _active())
                .order_by(tournament_leases.c.tournament_id)
                .limit(wanted)
                .with_for_update(skip_locked=True)
            )
            rows = (
                await conn.execute(
                    update(tournament_leases)
                    .where(tournament_leases.c.tournament_id.in_(picked), free)
                    .values(
                        owner=worker, epoch=tournament_leases.c.epoch + 1, expires_at=db_later(conn, seconds)
                    )
                    .returning(*_RETURNED)
                )
            ).all()
        return _leases(rows)

    async def renew(
        self, worker: str, tournament_ids: Iterable[int], *, lease_seconds: float
    ) -> list[TournamentLease]:
        """Extend by ``lease_seconds`` the leases of ``tournament_ids`` that ``worker`` still
        holds (no heartbeat: the table leases beat it). One another worker took, or whose lease
        expired (its epoch is over: claim it again), is not in the answer."""
        worker = check_worker(worker)
        seconds = check_seconds(lease_seconds)
        wanted = _check_ids(tournament_ids)
        if not wanted:
            return []
        async with self.db.write() as conn:
            rows = (
                await conn.execute(
                    update(tournament_leases)
                    .where(tournament_leases.c.tournament_id.in_(wanted), _held_by(conn, worker))
                    .values(expires_at=db_later(conn, seconds))
                    .returning(*_RETURNED)
                )
            ).all()
        return _leases(rows)

    async def release(self, worker: str, tournament_id: int) -> None:
        """Give up a tournament (finished, or between hands to move it): unowned until claimed,
        and the next claim raises its epoch. :class:`LeaseLost` if ``worker`` does not hold it.
        Whether a hand is in progress is the caller's to know."""
        worker = check_worker(worker)
        [tournament_id] = _check_ids([tournament_id])
        async with self.db.write() as conn:
            # FOR UPDATE waits for the owner's fenced writes in flight (they hold FOR KEY SHARE).
            row = (
                await conn.execute(
                    select(
                        tournament_leases.c.owner,
                        (tournament_leases.c.expires_at > db_now(conn)).label("live"),
                    )
                    .where(tournament_leases.c.tournament_id == tournament_id)
                    .with_for_update()
                )
            ).first()
            if row is None or row.owner != worker or not row.live:
                raise LeaseLost(f"{worker} does not hold tournament {tournament_id}")
            await conn.execute(
                update(tournament_leases)
                .where(tournament_leases.c.tournament_id == tournament_id)
                .values(owner=None, expires_at=None)
            )

    async def leave(self, worker: str) -> list[int]:
        """A worker stopping cleanly: release every tournament it holds that has no hand in
        progress (one with a hand keeps its lease until it expires, and the next owner voids the
        hand; so does one with a fenced write in flight, skipped rather than waited for).
        Returns the tournaments released. The heartbeat is the table leases' to end."""
        worker = check_worker(worker)
        in_progress = exists().where(
            tournament_hands.c.tournament_id == tournament_leases.c.tournament_id,
            tournament_hands.c.status == "in_progress",
        )
        async with self.db.write() as conn:
            mine = (
                await conn.scalars(
                    select(tournament_leases.c.tournament_id)
                    .where(_held_by(conn, worker), ~in_progress)
                    .order_by(tournament_leases.c.tournament_id)
                    .with_for_update(skip_locked=True)
                )
            ).all()
            released = [int(t) for t in mine]
            if released:
                await conn.execute(
                    update(tournament_leases)
                    .where(tournament_leases.c.tournament_id.in_(released))
                    .values(owner=None, expires_at=None)
                )
        return released

    async def owners(self) -> list[TournamentLease]:
        """Every tournament lease row, by tournament id (a tournament no claim has seen yet has
        none)."""
        lease = tournament_leases
        async with self.db.read() as conn:
            rows = (
                await conn.execute(
                    select(*_RETURNED, (lease.c.expires_at > db_now(conn)).label("live")).order_by(
                        lease.c.tournament_id
                    )
                )
            ).all()
        return [_lease(row) for row in rows]


async def _add_missing_leases(conn: AsyncConnection) -> None:
    """A lease row (no owner, epoch 0) for every registering or running tournament without one."""
    dialect_insert = sqlite_insert if conn.dialect.name == "sqlite" else postgresql_insert
    # In id order, so that two claimers adding the same rows wait for each other in one order.
    missing = (
        select(tournaments.c.id, literal(0))
        .where(
            tournaments.c.status.in_(ACTIVE_STATUSES),
            ~exists().where(tournament_leases.c.tournament_id == tournaments.c.id),
        )
        .order_by(tournaments.c.id)
    )
    await conn.execute(
        dialect_insert(tournament_leases)
        .from_select(["tournament_id", "epoch"], missing)
        .on_conflict_do_nothing()
    )


async def _fair_share(conn: AsyncConnection, worker: str) -> int:
    """ceil(active tournaments / live workers), ``worker`` counted live even without a heartbeat
    (it is claiming), so that its share is never 0 while a tournament runs."""
    count = int(
        await conn.scalar(
            select(func.count()).select_from(tournaments).where(tournaments.c.status.in_(ACTIVE_STATUSES))
        )
        or 0
    )
    others = int(
        await conn.scalar(
            select(func.count())
            .select_from(workers)
            .where(workers.c.expires_at > db_now(conn), workers.c.id != worker)
        )
        or 0
    )
    return math.ceil(count / (others + 1))
