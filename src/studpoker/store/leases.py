"""Table ownership by lease, with fencing (issue 15, docs/cluster.md "Ownership").

In the cluster each table is acted for by one worker at a time: the owner of its row in
``table_leases`` (owner, epoch, expires_at). A worker :meth:`Leases.claim` s unowned or expired
tables up to its fair share, which raises each one's epoch; it :meth:`Leases.renew` s them well
before they expire and :meth:`Leases.release` s one between hands to move it. Every time is the
database's clock (``clock_timestamp()`` on PostgreSQL, ``'now'`` on SQLite), never a worker's:
two machines whose clocks disagree still agree on who owns a table.

Every chip-moving write accepts a :class:`Fence` (the owner and epoch it acts under) and calls
:func:`check_fence` first in its transaction: a write by a worker that lost the lease (another
took the table, or it expired) raises :class:`LeaseLost` and writes nothing. Without a fence (the
one-process room) nothing is checked.

Live workers are rows of ``workers``, a heartbeat each claim and renewal extends by the lease
time; the fair share is ceil(tables / live workers).
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import (
    Column,
    ColumnElement,
    DateTime,
    Interval,
    Row,
    delete,
    exists,
    func,
    literal,
    or_,
    select,
    type_coerce,
    update,
)
from sqlalchemy.dialects.postgresql import insert as postgresql_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.ext.asyncio import AsyncConnection

from .database import Database
from .errors import HandStateError, InvalidInputError, LeaseLost
from .models import SeatRecord
from .schema import hands, table_leases, tables, workers

_WORKER_RE = re.compile(r"^[A-Za-z0-9_.:@-]{1,64}$")
MAX_LEASE_SECONDS = 3600.0


@dataclass(frozen=True, slots=True)
class Fence:
    """The lease a write is made under: ``owner`` holds ``table_id`` at ``epoch``. A fenced
    write is refused (:class:`LeaseLost`) unless, in its own transaction, the table's lease still
    has this owner and epoch and has not expired."""

    table_id: int
    owner: str
    epoch: int

    def __post_init__(self) -> None:
        check_fence_fields(self.table_id, "table", self.owner, self.epoch)


def check_fence_fields(key: object, what: str, owner: object, epoch: object) -> None:
    """A fence's id, owner and epoch, else :class:`InvalidInputError` (a table's, a tournament's)."""
    if not isinstance(key, int) or isinstance(key, bool):
        raise InvalidInputError(f"a fence needs a {what} id, not {key!r}")
    check_worker(owner)
    if not isinstance(epoch, int) or isinstance(epoch, bool) or epoch < 1:
        raise InvalidInputError(f"a fence's epoch is a whole number >= 1, not {epoch!r}")


@dataclass(frozen=True, slots=True)
class Lease:
    """A table's lease as read: ``owner`` None when nobody ever held it or it was released;
    ``live`` when it is owned and had not expired by the database's clock when read."""

    table_id: int
    owner: str | None
    epoch: int
    expires_at: datetime | None
    live: bool

    @property
    def fence(self) -> Fence:
        """The fence of the owner's writes; :class:`LeaseLost` for a lease nobody holds."""
        if self.owner is None or not self.live:
            raise LeaseLost(f"nobody holds table {self.table_id}")
        return Fence(self.table_id, self.owner, self.epoch)


@dataclass(frozen=True, slots=True)
class Takeover:
    """What :meth:`~studpoker.store.hands.Hands.void_interrupted` did for a new owner: the hand
    it voided (None: no hand of an earlier lease was in progress) with its refunds, seat ->
    chips, and the seats as they stand after it (the new owner's table is rebuilt from them)."""

    table_id: int
    voided: str | None
    refunds: dict[int, int] = field(default_factory=dict)
    seats: dict[int, SeatRecord] = field(default_factory=dict)


def check_worker(worker: object) -> str:
    """A worker id: 1 to 64 of ``[A-Za-z0-9_.:@-]``, else :class:`InvalidInputError`."""
    if not isinstance(worker, str) or not _WORKER_RE.match(worker):
        raise InvalidInputError(f"a worker id is 1 to 64 of [A-Za-z0-9_.:@-], not {worker!r}")
    return worker


def check_seconds(seconds: object) -> float:
    """A lease time in seconds: more than 0 and at most an hour, else :class:`InvalidInputError`."""
    if (
        not isinstance(seconds, int | float)
        or isinstance(seconds, bool)
        or not 0 < seconds <= MAX_LEASE_SECONDS
    ):
        raise InvalidInputError(f"a lease lasts more than 0 and at most 3600 seconds, not {seconds!r}")
    return float(seconds)


def _check_tables(table_ids: Iterable[int]) -> list[int]:
    found = list(table_ids)
    for table_id in found:
        if not isinstance(table_id, int) or isinstance(table_id, bool):
            raise InvalidInputError(f"a table id is a whole number, not {table_id!r}")
    return sorted(set(found))


def db_now(conn: AsyncConnection) -> ColumnElement[datetime]:
    """The database's clock, as SQL. SQLite's text matches the stored ``UTCDateTime`` form
    (microseconds, six digits) so that times compare as strings."""
    if conn.dialect.name == "sqlite":
        return type_coerce(func.strftime("%Y-%m-%d %H:%M:%f", "now").concat("000"), DateTime())
    # clock_timestamp(), not now(): the moment of the check, not the transaction's start.
    return func.clock_timestamp(type_=DateTime(timezone=True))


def db_later(conn: AsyncConnection, seconds: float) -> ColumnElement[datetime]:
    """The database's clock ``seconds`` from now (negative: ago), as SQL."""
    if conn.dialect.name == "sqlite":
        later = func.strftime("%Y-%m-%d %H:%M:%f", "now", f"{seconds:+.3f} seconds").concat("000")
        return type_coerce(later, DateTime())
    return db_now(conn) + literal(timedelta(seconds=seconds), Interval())


async def check_fence(conn: AsyncConnection, fence: Fence, table_id: int) -> None:
    """Raise :class:`LeaseLost` unless ``fence`` is for ``table_id`` and the table's lease still
    has its owner and epoch and has not expired. The lease row is locked (``FOR KEY SHARE``)
    until the transaction ends: a claim skips it, so no other worker can take the table between
    this check and the write's commit, while renewals (which change no key) do not wait."""
    if not isinstance(fence, Fence):
        raise InvalidInputError(f"a fence is a Fence, not {fence!r}")
    if fence.table_id != table_id:
        raise LeaseLost(f"the fence is for table {fence.table_id}, this write is for table {table_id}")
    await check_held(
        conn, table_leases.c.table_id, table_id, owner=fence.owner, epoch=fence.epoch, what="table"
    )


async def check_held(
    conn: AsyncConnection, key: Column[int], value: int, *, owner: str, epoch: int, what: str
) -> None:
    """Raise :class:`LeaseLost` unless the lease row whose ``key`` column is ``value`` (a table's,
    a tournament's) still has ``owner`` and ``epoch`` and has not expired; the row stays locked
    ``FOR KEY SHARE`` until the transaction ends (see :func:`check_fence`)."""
    lease = key.table
    row = (
        await conn.execute(
            select(lease.c.owner, lease.c.epoch, (lease.c.expires_at > db_now(conn)).label("live"))
            .where(key == value)
            .with_for_update(read=True, key_share=True)
        )
    ).first()
    if row is None or row.owner != owner or int(row.epoch) != epoch:
        holder = "nobody" if row is None or row.owner is None else f"{row.owner} at epoch {row.epoch}"
        raise LeaseLost(f"{owner} no longer holds {what} {value} at epoch {epoch}: {holder} does")
    if not row.live:
        raise LeaseLost(f"the lease of {owner} on {what} {value} (epoch {epoch}) has expired")


def _lease(row: Row[Any], *, live: bool | None = None) -> Lease:
    mapping = row._mapping
    return Lease(
        table_id=int(mapping["table_id"]),
        owner=mapping["owner"],
        epoch=int(mapping["epoch"] or 0),
        expires_at=mapping["expires_at"],
        live=bool(mapping["live"]) if live is None else live,
    )


_RETURNED = (table_leases.c.table_id, table_leases.c.owner, table_leases.c.epoch, table_leases.c.expires_at)


class Leases:
    """Who acts for each table in the cluster (``store.leases``)."""

    def __init__(self, db: Database) -> None:
        self.db = db

    async def claim(self, worker: str, lease_seconds: float, fair_share: int | None = None) -> list[Lease]:
        """Take unowned or expired tables, lowest ids first, until ``worker`` holds its fair share
        (``fair_share``, or ceil(tables / live workers) counting itself), in ONE ``UPDATE`` that
        raises each one's epoch and leases it for ``lease_seconds`` of the database's clock.
        Also beats the worker's heartbeat. Returns the leases taken (the worker's new fences);
        a worker at or above its share takes none."""
        worker = check_worker(worker)
        seconds = check_seconds(lease_seconds)
        if fair_share is not None and (
            not isinstance(fair_share, int) or isinstance(fair_share, bool) or fair_share < 0
        ):
            raise InvalidInputError(f"a fair share is a whole number >= 0, not {fair_share!r}")
        async with self.db.write() as conn:
            await self._beat(conn, worker, seconds)
            await self._add_missing_leases(conn)
            share = await _fair_share(conn) if fair_share is None else fair_share
            now = db_now(conn)
            held = await conn.scalar(
                select(func.count())
                .select_from(table_leases)
                .where(table_leases.c.owner == worker, table_leases.c.expires_at > now)
            )
            wanted = share - int(held or 0)
            if wanted <= 0:
                return []
            free = or_(
                table_leases.c.owner.is_(None),
                table_leases.c.expires_at.is_(None),
                table_leases.c.expires_at <= now,
            )
            # SKIP LOCKED: workers claiming at once take different tables, and a table whose
            # owner is writing under its fence (FOR KEY SHARE) is left alone until it commits.
            picked = (
                select(table_leases.c.table_id)
                .where(free)
                .order_by(table_leases.c.table_id)
                .limit(wanted)
                .with_for_update(skip_locked=True)
            )
            rows = (
                await conn.execute(
                    update(table_leases)
                    .where(table_leases.c.table_id.in_(picked), free)
                    .values(owner=worker, epoch=table_leases.c.epoch + 1, expires_at=db_later(conn, seconds))
                    .returning(*_RETURNED)
                )
            ).all()
        return sorted((_lease(row, live=True) for row in rows), key=lambda lease: lease.table_id)

    async def renew(self, worker: str, tables: Iterable[int], *, lease_seconds: float) -> list[Lease]:
        """Extend by ``lease_seconds`` the leases of ``tables`` that ``worker`` still holds, and
        its heartbeat. Returns those leases: a table another worker took, or whose lease expired
        (even if nobody took it yet: its epoch is over, claim it again), is not in the answer."""
        worker = check_worker(worker)
        seconds = check_seconds(lease_seconds)
        wanted = _check_tables(tables)
        async with self.db.write() as conn:
            await self._beat(conn, worker, seconds)
            if not wanted:
                return []
            rows = (
                await conn.execute(
                    update(table_leases)
                    .where(
                        table_leases.c.table_id.in_(wanted),
                        table_leases.c.owner == worker,
                        table_leases.c.expires_at > db_now(conn),
                    )
                    .values(expires_at=db_later(conn, seconds))
                    .returning(*_RETURNED)
                )
            ).all()
        return sorted((_lease(row, live=True) for row in rows), key=lambda lease: lease.table_id)

    async def release(self, worker: str, table_id: int) -> None:
        """Give up a table between hands (a move): it is unowned until claimed, and the next claim
        raises its epoch. :class:`LeaseLost` if ``worker`` does not hold it,
        :class:`HandStateError` while it has a hand in progress (the move would void it)."""
        worker = check_worker(worker)
        [table_id] = _check_tables([table_id])
        async with self.db.write() as conn:
            # FOR UPDATE waits for the owner's fenced writes in flight (they hold FOR KEY SHARE).
            row = (
                await conn.execute(
                    select(table_leases.c.owner, (table_leases.c.expires_at > db_now(conn)).label("live"))
                    .where(table_leases.c.table_id == table_id)
                    .with_for_update()
                )
            ).first()
            if row is None or row.owner != worker or not row.live:
                raise LeaseLost(f"{worker} does not hold table {table_id}")
            busy = await _hand_in_progress(conn, table_id)
            if busy is not None:
                raise HandStateError(
                    f"table {table_id} has hand {busy} in progress: release it between hands"
                )
            await conn.execute(
                update(table_leases)
                .where(table_leases.c.table_id == table_id)
                .values(owner=None, expires_at=None)
            )

    async def leave(self, worker: str) -> list[int]:
        """A worker stopping cleanly: release every table it holds that has no hand in progress
        (one with a hand keeps its lease until it expires, and the next owner voids the hand; so
        does one with a fenced write in flight, which is skipped rather than waited for) and end
        its heartbeat, so the others' fair shares grow at once. Returns the tables released."""
        worker = check_worker(worker)
        async with self.db.write() as conn:
            mine = (
                await conn.scalars(
                    select(table_leases.c.table_id)
                    .where(table_leases.c.owner == worker, table_leases.c.expires_at > db_now(conn))
                    .order_by(table_leases.c.table_id)
                    .with_for_update(skip_locked=True)
                )
            ).all()
            released = [int(t) for t in mine if await _hand_in_progress(conn, int(t)) is None]
            if released:
                await conn.execute(
                    update(table_leases)
                    .where(table_leases.c.table_id.in_(released))
                    .values(owner=None, expires_at=None)
                )
            await conn.execute(delete(workers).where(workers.c.id == worker))
        return released

    async def owners(self) -> list[Lease]:
        """Every table's lease, by table id (a table never claimed: no owner, epoch 0)."""
        async with self.db.read() as conn:
            rows = (
                await conn.execute(
                    select(
                        tables.c.id.label("table_id"),
                        table_leases.c.owner,
                        table_leases.c.epoch,
                        table_leases.c.expires_at,
                        (table_leases.c.expires_at > db_now(conn)).label("live"),
                    )
                    .select_from(tables.outerjoin(table_leases, table_leases.c.table_id == tables.c.id))
                    .order_by(tables.c.id)
                )
            ).all()
        return [_lease(row) for row in rows]

    async def workers(self) -> list[str]:
        """The live workers (their heartbeat not expired), by id."""
        async with self.db.read() as conn:
            found = await conn.scalars(
                select(workers.c.id).where(workers.c.expires_at > db_now(conn)).order_by(workers.c.id)
            )
            return [str(w) for w in found.all()]

    async def fair_share(self) -> int:
        """ceil(tables / live workers): what each live worker should hold (0 with no worker)."""
        async with self.db.read() as conn:
            return await _fair_share(conn)

    async def _beat(self, conn: AsyncConnection, worker: str, seconds: float) -> None:
        """The worker's heartbeat, ``seconds`` from now; the heartbeats that ran out are removed."""
        dialect_insert = sqlite_insert if conn.dialect.name == "sqlite" else postgresql_insert
        until = db_later(conn, seconds)
        await conn.execute(
            dialect_insert(workers)
            .values(id=worker, started_at=db_now(conn), expires_at=until)
            .on_conflict_do_update(index_elements=[workers.c.id], set_={"expires_at": until})
        )
        # SKIP LOCKED: two workers clearing at once, or one clearing a row its worker is beating
        # back to life, never wait for each other (which could deadlock).
        ended = (
            select(workers.c.id).where(workers.c.expires_at <= db_now(conn)).with_for_update(skip_locked=True)
        )
        await conn.execute(delete(workers).where(workers.c.id.in_(ended)))

    async def _add_missing_leases(self, conn: AsyncConnection) -> None:
        """A lease row (no owner, epoch 0) for every table that has none yet."""
        dialect_insert = sqlite_insert if conn.dialect.name == "sqlite" else postgresql_insert
        # In id order, so that two claimers adding the same rows wait for each other in one order.
        missing = (
            select(tables.c.id, literal(0))
            .where(~exists().where(table_leases.c.table_id == tables.c.id))
            .order_by(tables.c.id)
        )
        await conn.execute(
            dialect_insert(table_leases).from_select(["table_id", "epoch"], missing).on_conflict_do_nothing()
        )


async def _fair_share(conn: AsyncConnection) -> int:
    count = int(await conn.scalar(select(func.count()).select_from(tables)) or 0)
    live = int(
        await conn.scalar(
            select(func.count()).select_from(workers).where(workers.c.expires_at > db_now(conn))
        )
        or 0
    )
    return math.ceil(count / live) if live else 0


async def _hand_in_progress(conn: AsyncConnection, table_id: int) -> str | None:
    found = await conn.scalar(
        select(hands.c.id).where(hands.c.table_id == table_id, hands.c.status == "in_progress").limit(1)
    )
    return None if found is None else str(found)
