"""The database: its URL, the async engine and its connect hooks, the read and write
transactions, and the store's clock.

On SQLite the writes of one process are serialized by an ``asyncio.Lock`` and start with
``BEGIN IMMEDIATE`` (WAL journal); on PostgreSQL concurrent writers are kept apart with row locks
(``SELECT ... FOR UPDATE``) and conditional updates, so several processes may share one database.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager, nullcontext
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import event
from sqlalchemy.engine import make_url
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine, create_async_engine
from sqlalchemy.pool import StaticPool

DEFAULT_URL = "sqlite+aiosqlite:///studpoker.sqlite3"

_ASYNC_DRIVERS = {
    "sqlite": "sqlite+aiosqlite",
    "postgresql": "postgresql+asyncpg",
    "postgres": "postgresql+asyncpg",
    "postgresql+psycopg2": "postgresql+asyncpg",
    "postgresql+psycopg": "postgresql+asyncpg",
}


def database_url(url: str | None = None) -> str:
    """``url`` if given, else ``$STUDPOKER_DATABASE_URL``, else a SQLite file in the working directory.

    A URL naming no async driver gets one: ``sqlite:///x.db`` becomes ``sqlite+aiosqlite:///x.db``
    and ``postgresql://...`` becomes ``postgresql+asyncpg://...``.
    """
    chosen = url or os.environ.get("STUDPOKER_DATABASE_URL") or DEFAULT_URL
    scheme, sep, rest = chosen.partition("://")
    if sep and scheme.lower() in _ASYNC_DRIVERS:
        return f"{_ASYNC_DRIVERS[scheme.lower()]}://{rest}"
    return chosen


def make_engine(url: str, *, echo: bool = False) -> AsyncEngine:
    """An async engine; SQLite gets WAL, foreign keys, a busy timeout and explicit BEGINs."""
    parsed = make_url(url)
    if parsed.get_backend_name() != "sqlite":
        return create_async_engine(url, echo=echo, pool_size=10, max_overflow=10)
    memory = parsed.database in (None, "", ":memory:")
    kwargs: dict[str, Any] = {"poolclass": StaticPool} if memory else {}
    engine = create_async_engine(url, echo=echo, connect_args={"timeout": 30}, **kwargs)

    @event.listens_for(engine.sync_engine, "connect")
    def _on_connect(dbapi_connection: Any, _record: Any) -> None:
        dbapi_connection.isolation_level = None  # we emit BEGIN ourselves (below)
        cursor = dbapi_connection.cursor()
        if not memory:
            cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute("PRAGMA synchronous=NORMAL" if not memory else "PRAGMA synchronous=OFF")
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.execute("PRAGMA busy_timeout=30000")
        cursor.close()

    @event.listens_for(engine.sync_engine, "begin")
    def _on_begin(conn: Any) -> None:
        mode = conn.get_execution_options().get("sqlite_begin", "DEFERRED")
        conn.exec_driver_sql(f"BEGIN {mode}")

    return engine


def utcnow() -> datetime:
    return datetime.now(UTC)


def new_id(result: Any) -> int:
    """The primary key an ``INSERT`` just made."""
    key = result.inserted_primary_key
    assert key is not None
    return int(key[0])


class Database:
    """The engine with the store's two kinds of transaction and its clock. Every store module
    reaches the database through one of these."""

    def __init__(self, engine: AsyncEngine, clock: Callable[[], datetime] = utcnow) -> None:
        self.engine = engine
        self.clock = clock
        self.is_sqlite = engine.dialect.name == "sqlite"
        self._write_lock: asyncio.Lock | None = asyncio.Lock() if self.is_sqlite else None
        # An attribute, not a method: a test replaces it to make every write fail (a full disk).
        self.write: Callable[[], AbstractAsyncContextManager[AsyncConnection]] = self._write_transaction

    @asynccontextmanager
    async def _write_transaction(self) -> AsyncIterator[AsyncConnection]:
        """One write transaction (serialized per process on SQLite): :attr:`write`."""
        lock = self._write_lock if self._write_lock is not None else nullcontext()
        async with lock, self.engine.connect() as raw:
            conn = await raw.execution_options(sqlite_begin="IMMEDIATE")
            async with conn.begin():
                yield conn

    @asynccontextmanager
    async def read(self, *, snapshot: bool = False) -> AsyncIterator[AsyncConnection]:
        """One read transaction; ``snapshot`` gives one consistent view on PostgreSQL too."""
        async with self.engine.connect() as raw:
            conn = raw
            if snapshot and not self.is_sqlite:
                conn = await raw.execution_options(isolation_level="REPEATABLE READ")
            async with conn.begin():
                yield conn

    def now(self) -> datetime:
        """The clock's time, in UTC (a naive time is taken as UTC)."""
        now = self.clock()
        return now.replace(tzinfo=UTC) if now.tzinfo is None else now.astimezone(UTC)

    def today(self) -> str:
        """Today's UTC date, ``YYYY-MM-DD``: the day of the daily allowances."""
        return self.now().date().isoformat()

    async def dispose(self) -> None:
        await self.engine.dispose()
