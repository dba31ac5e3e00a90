"""Login attempts counted in the database (``store.login_attempts``), so that every gateway of a
cluster shares one count: a brute force split over two gateways is limited as on one.

The counts are sliding windows, as the one-process room's ``LoginLimiter`` keeps in memory: one
row per attempt (a key and the database's time), counted while younger than the window. A key is
the SHA-256 of what it counts (a name and an address, or an address), so no name or address is
stored. ``begin`` checks and counts every key in one transaction; on PostgreSQL it first takes a
transaction advisory lock per key (in a fixed order), so two gateways counting the same key at
once do not both see room for one more; SQLite runs every write transaction alone.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

from sqlalchemy import delete, func, insert, select, text
from sqlalchemy.ext.asyncio import AsyncConnection

from .database import Database
from .errors import InvalidInputError
from .leases import db_later, db_now
from .schema import login_attempts


def attempt_key(value: str) -> str:
    """The stored form of a counted key (hex SHA-256: no name or address in the table)."""
    return hashlib.sha256(value.encode()).hexdigest()


@dataclass(frozen=True, slots=True)
class Window:
    """At most ``limit`` attempts for ``key`` within ``seconds``."""

    key: str
    limit: int
    seconds: float

    def __post_init__(self) -> None:
        if not isinstance(self.key, str) or not self.key:
            raise InvalidInputError("a login window needs a key")
        if not isinstance(self.limit, int) or isinstance(self.limit, bool) or self.limit < 0:
            raise InvalidInputError(f"a login window's limit is a whole number >= 0, not {self.limit!r}")
        if not 0 < self.seconds <= 86400:
            raise InvalidInputError(
                f"a login window lasts more than 0 and at most 86400 s, not {self.seconds!r}"
            )


@dataclass(frozen=True, slots=True)
class Counted:
    """What :meth:`LoginAttempts.begin` answered: ``allowed`` and the rows it counted (to give
    back), or refused for ``retry_after`` seconds."""

    allowed: bool
    retry_after: float = 0.0
    rows: tuple[int, ...] = ()


class LoginAttempts:
    """Shared sliding windows of login attempts (``store.login_attempts``)."""

    def __init__(self, db: Database) -> None:
        self.db = db

    async def begin(self, windows: Sequence[Window]) -> Counted:
        """Check every window and, if each has room, count one attempt in each: one transaction."""
        checked = sorted(windows, key=lambda w: w.key)
        if not checked:
            raise InvalidInputError("begin needs at least one window")
        async with self.db.write() as conn:
            if conn.dialect.name == "postgresql":
                for window in checked:
                    await conn.execute(
                        text("SELECT pg_advisory_xact_lock(hashtextextended(:key, 15))"), {"key": window.key}
                    )
            wait = 0.0
            for window in checked:
                wait = max(wait, await _retry_after(conn, window))
            if wait > 0:
                return Counted(False, wait)
            rows = []
            for window in checked:
                row = await conn.scalar(
                    insert(login_attempts)
                    .values(key=window.key, at=db_now(conn))
                    .returning(login_attempts.c.id)
                )
                rows.append(int(row or 0))
        return Counted(True, rows=tuple(rows))

    async def give_back(self, counted: Counted) -> None:
        """Take back the attempts ``begin`` counted (a success, or a password never checked)."""
        if counted.rows:
            async with self.db.write() as conn:
                await conn.execute(delete(login_attempts).where(login_attempts.c.id.in_(counted.rows)))

    async def reserve_guest_block(self) -> int:
        """A number no other caller ever gets (PostgreSQL's ``guest_blocks`` sequence): a
        cluster's gateway numbers its guests within it, so guest ids are unique across gateways.
        The cluster runs on PostgreSQL only; on SQLite (one process) this raises."""
        if self.db.is_sqlite:
            raise InvalidInputError("guest blocks are for a cluster, on PostgreSQL")
        async with self.db.write() as conn:
            return int(await conn.scalar(text("SELECT nextval('guest_blocks')")) or 0)

    async def clear(self, key: str) -> None:
        """Forget every attempt of ``key`` (a name's count after a success)."""
        async with self.db.write() as conn:
            await conn.execute(delete(login_attempts).where(login_attempts.c.key == key))


async def _retry_after(conn: AsyncConnection, window: Window) -> float:
    """Seconds until one more attempt fits in ``window`` (0: now); drops its expired rows."""
    since = db_later(conn, -window.seconds)
    await conn.execute(
        delete(login_attempts).where(login_attempts.c.key == window.key, login_attempts.c.at <= since)
    )
    if window.limit <= 0:
        return window.seconds
    recent = (
        select(login_attempts.c.at)
        .where(login_attempts.c.key == window.key)
        .order_by(login_attempts.c.at.desc(), login_attempts.c.id.desc())
        .limit(window.limit)
        .subquery()
    )
    count, oldest = (await conn.execute(select(func.count(), func.min(recent.c.at)))).one()
    if int(count) < window.limit or oldest is None:
        return 0.0
    now = await conn.scalar(select(db_now(conn)))
    return max(0.001, window.seconds - _seconds_between(oldest, now))


def _seconds_between(earlier: datetime | str, later: datetime | str | None) -> float:
    start, end = _as_time(earlier), _as_time(later)
    if start is None or end is None:
        return 0.0
    return (end - start).total_seconds()


def _as_time(value: datetime | str | None) -> datetime | None:
    if value is None:
        return None
    if isinstance(value, datetime):
        return value.astimezone(UTC).replace(tzinfo=None) if value.tzinfo is not None else value
    return datetime.fromisoformat(value[:26])
