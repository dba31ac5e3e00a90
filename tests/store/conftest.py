"""Fixtures for the store tests: every test runs on SQLite and on a real PostgreSQL server."""

from __future__ import annotations

import asyncio
import shutil
from collections.abc import AsyncIterator, Callable, Coroutine, Mapping
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, TypedDict, TypeVar, cast

import pytest
from argon2 import PasswordHasher
from sqlalchemy import select

from studpoker.cards import Deck, format_cards
from studpoker.store import Account, Store, TableConfig, TableRecord, WriteOp, ledger
from studpoker.store.schema import hand_seats, hands, metadata
from tests.pg import PostgresServer, postgres_server  # noqa: F401  (a fixture)

T = TypeVar("T")

# Cheap hashing keeps the suite fast; production uses argon2-cffi's defaults.
FAST_HASHER = PasswordHasher(time_cost=1, memory_cost=1024, parallelism=1)


class FakeClock:
    """A settable clock: ``clock()`` gives the time, ``advance(...)`` moves it."""

    def __init__(self, start: datetime | None = None) -> None:
        self.now = start or datetime(2026, 3, 1, 12, 0, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.now

    def advance(self, **kwargs: float) -> None:
        self.now += timedelta(**kwargs)


def run_in_thread(make: Callable[[], Coroutine[Any, Any, T]]) -> T:
    """Run a coroutine to completion on its own loop, in a thread: session fixtures may be
    first asked for from inside a test's running event loop."""
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, make()).result()


@pytest.fixture(scope="session")
def sqlite_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A SQLite file migrated to head once; each test gets a copy (migrating costs ~0.1 s)."""
    path = tmp_path_factory.mktemp("store-template") / "template.sqlite3"

    async def make() -> None:
        store = await Store.open(f"sqlite+aiosqlite:///{path}")
        await store.close()

    run_in_thread(make)
    return path


@pytest.fixture(scope="session")
def postgres_database(postgres_server: PostgresServer) -> str:  # noqa: F811
    """One database per test session, migrated to head; tests empty it (CREATE DATABASE is slow)."""

    async def make() -> str:
        url = await postgres_server.new_database()
        store = await Store.open(url)
        await store.close()
        return url

    return run_in_thread(make)


async def empty_postgres(url: str) -> None:
    import asyncpg  # type: ignore[import-untyped]
    from sqlalchemy.engine import make_url

    parsed = make_url(url)
    conn = await asyncpg.connect(
        host=parsed.host,
        port=parsed.port,
        user=parsed.username,
        password=parsed.password,
        database=parsed.database,
    )
    try:
        # DELETE is much faster than TRUNCATE on tables this small; ids restart at 1.
        for table in reversed(metadata.sorted_tables):
            await conn.execute(f"DELETE FROM {table.name}")
        for sequence in await conn.fetch("SELECT sequencename FROM pg_sequences WHERE schemaname = 'public'"):
            await conn.execute(f"ALTER SEQUENCE {sequence['sequencename']} RESTART")
    finally:
        await conn.close()


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
async def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """The URL of an empty database at the newest schema, on each backend."""
    if request.param == "sqlite":
        path = tmp_path / "store.sqlite3"
        shutil.copyfile(request.getfixturevalue("sqlite_template"), path)
        return f"sqlite+aiosqlite:///{path}"
    url: str = request.getfixturevalue("postgres_database")
    await empty_postgres(url)
    return url


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
async def fresh_db_url(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[str]:
    """A brand-new database with no schema at all (for the migration tests)."""
    if request.param == "sqlite":
        yield f"sqlite+aiosqlite:///{tmp_path / 'fresh.sqlite3'}"
        return
    server: PostgresServer = request.getfixturevalue("postgres_server")
    url = await server.new_database()
    try:
        yield url
    finally:
        await server.drop_database(url)


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


async def open_store(url: str, clock: FakeClock | None = None, **kwargs: object) -> Store:
    return await Store.open(url, password_hasher=FAST_HASHER, clock=clock or FakeClock(), **kwargs)  # type: ignore[arg-type]


@pytest.fixture
async def store(db_url: str, clock: FakeClock) -> AsyncIterator[Store]:
    """An open store; after the test the audit must balance."""
    opened = await open_store(db_url, clock)
    try:
        yield opened
        report = await opened.audit()
        assert report.balanced, report.render()
    finally:
        await opened.close()


@pytest.fixture
async def table(store: Store) -> TableRecord:
    return await store.create_table(TableConfig.derive("Stud 1/2", "7S", 100, 200))


@pytest.fixture
async def players(store: Store) -> list[Account]:
    return [await store.register(name, f"{name}-password") for name in ("alice", "bob", "carol")]


class DeckReveal(TypedDict):
    """The deck a finished hand reveals, as ``finish_hand_op``'s keywords."""

    deck_order: str
    salt: str


def deck_reveal(deck: Deck) -> DeckReveal:
    return {"deck_order": format_cards(deck.order, " "), "salt": deck.salt}


async def write_one(store: Store, op: WriteOp[T]) -> T:
    """Run one hand write (a ``*_op``) through the group commit, as the server does; its refusal
    is raised."""
    [result] = await store.write_batch([op])
    if isinstance(result, BaseException):
        raise result
    return cast(T, result)


async def put_in_pot(store: Store, hand_id: str, chips: Mapping[int, int]) -> None:
    """Move chips from seats into the pot of a hand in progress, as a writer that settles street
    by street would leave them (the server settles a hand at once): finishing and voiding the hand
    must count them, and the audit must see them as chips in unfinished hands."""
    async with store.database.write() as conn:
        table_id = (await conn.execute(select(hands.c.table_id).where(hands.c.id == hand_id))).scalar_one()
        rows = await conn.execute(
            select(hand_seats.c.seat, hand_seats.c.account_id).where(hand_seats.c.hand_id == hand_id)
        )
        owner = {int(r.seat): int(r.account_id) for r in rows}
        entries: list[ledger.Entry] = []
        for seat, amount in chips.items():
            entries += [
                ledger.seat(table_id, seat, owner[seat], -amount),
                ledger.pot(hand_id, table_id, seat, owner[seat], amount),
            ]
        await ledger.post(conn, store.now(), "contribute", entries, table_id=table_id, hand_id=hand_id)
        await ledger.move_seats(conn, table_id, {seat: -amount for seat, amount in chips.items()})
