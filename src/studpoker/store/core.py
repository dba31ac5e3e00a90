"""The store: accounts, sessions, bankrolls, tables, seats, hands and the double-entry ledger.

All methods are coroutines; each one is one database transaction. On SQLite the writes of one
process are serialized by an ``asyncio.Lock`` and start with ``BEGIN IMMEDIATE`` (WAL journal);
on PostgreSQL concurrent writers are kept apart with row locks (``SELECT ... FOR UPDATE``) and
conditional updates, so several processes may share one database.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
import re
import secrets
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Mapping, Sequence
from contextlib import asynccontextmanager, nullcontext
from datetime import UTC, datetime, timedelta
from typing import Any, TypeVar

from argon2 import PasswordHasher
from sqlalchemy import bindparam, event, func, insert, select, update
from sqlalchemy.engine import make_url
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine, create_async_engine
from sqlalchemy.pool import StaticPool

from studpoker import cards, fairness

from . import budgets, migrate, names, schema
from .budgets import AddressBudget
from .errors import (
    AuthError,
    InsufficientFundsError,
    InvalidInputError,
    NameTakenError,
    NotFoundError,
    StoreError,
)
from .hashing import PasswordHashing
from .models import (
    MAX_PASSWORD,
    MIN_PASSWORD,
    Account,
    AuditReport,
    DealSeeds,
    HandRecord,
    HandSeat,
    SeatRecord,
    Session,
    TableConfig,
    TableRecord,
)
from .schema import (
    accounts,
    hand_seats,
    hands,
    ledger_entries,
    ledger_transactions,
    seats,
    sessions,
    tables,
)

DEFAULT_URL = "sqlite+aiosqlite:///studpoker.sqlite3"
DEFAULT_GRANT = 10_000
AUTH_FAILED = "wrong name or password"
# A bot account's password hash: not an argon2 hash, so no password ever matches it.
BOT_PASSWORD_HASH = "!bot"
_T = TypeVar("_T")
# One write of a group commit (Store.write_batch): run on the batch's connection, in a savepoint.
WriteOp = Callable[[AsyncConnection], Awaitable[_T]]

_HAND_ID_RE = re.compile(r"^[A-Za-z0-9_.:-]{1,64}$")
_HEX64_RE = re.compile(r"^[0-9a-f]{64}$")
_TABLE_FIELDS = (
    "name", "game", "small_bet", "big_bet", "ante", "bring_in", "small_blind", "big_blind",
    "max_seats", "min_buy_in", "max_buy_in", "think_seconds", "countdown_seconds", "house",
)  # fmt: skip

Entry = dict[str, Any]


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


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def _utcnow() -> datetime:
    return datetime.now(UTC)


def _new_id(result: Any) -> int:
    key = result.inserted_primary_key
    assert key is not None
    return int(key[0])


def _check_amount(amount: object, what: str = "amount") -> int:
    if not isinstance(amount, int) or isinstance(amount, bool) or amount <= 0:
        raise InvalidInputError(f"{what} must be a whole number of units above 0, not {amount!r}")
    return amount


def _check_chips(mapping: Mapping[int, int], what: str) -> dict[int, int]:
    out: dict[int, int] = {}
    for seat, chips in mapping.items():
        if not isinstance(chips, int) or isinstance(chips, bool) or chips < 0:
            raise InvalidInputError(f"{what} for seat {seat} must be a whole number >= 0, not {chips!r}")
        out[int(seat)] = chips
    return out


def canonical_order(order: str | Sequence[int | str]) -> str:
    """The 52 cards as ``"As Kd ..."``; raises :class:`InvalidInputError` unless it is a full deck."""
    try:
        parsed = cards.parse_cards(order)
    except cards.CardError as exc:
        raise InvalidInputError(f"deck order is not a deck: {exc}") from None
    if len(parsed) != 52:
        raise InvalidInputError(f"deck order must list 52 cards, not {len(parsed)}")
    return cards.format_cards(parsed, " ")


# Ledger entries. Each posted transaction is a list of these summing to zero.
def _bank(amount: int) -> Entry:
    return {
        "book": "bank",
        "account_id": None,
        "table_id": None,
        "seat": None,
        "hand_id": None,
        "amount": amount,
    }


def _bankroll(account_id: int, amount: int) -> Entry:
    return {
        "book": "bankroll", "account_id": account_id, "table_id": None, "seat": None,
        "hand_id": None, "amount": amount,
    }  # fmt: skip


def _seat(table_id: int, seat: int, account_id: int, amount: int) -> Entry:
    return {
        "book": "seat", "account_id": account_id, "table_id": table_id, "seat": seat,
        "hand_id": None, "amount": amount,
    }  # fmt: skip


def _pot(hand_id: str, table_id: int, seat: int, account_id: int, amount: int) -> Entry:
    return {
        "book": "pot", "account_id": account_id, "table_id": table_id, "seat": seat,
        "hand_id": hand_id, "amount": amount,
    }  # fmt: skip


class Store:
    """The room's persistence. Open with :meth:`open`, close with :meth:`close`."""

    def __init__(
        self,
        engine: AsyncEngine,
        *,
        starting_grant: int = DEFAULT_GRANT,
        topup_threshold: int | None = None,
        session_ttl: timedelta = timedelta(days=1),
        clock: Callable[[], datetime] = _utcnow,
        password_hasher: PasswordHasher | None = None,
        hash_workers: int = 1,
        hash_max_waiting: int = 64,
    ) -> None:
        self.engine = engine
        self.starting_grant = _check_amount(starting_grant, "starting grant")
        self.topup_threshold = starting_grant // 10 if topup_threshold is None else topup_threshold
        self.session_ttl = session_ttl
        self.clock = clock
        # Every hash and check on a bounded pool of threads (studpoker.store.hashing).
        self.hashing = PasswordHashing(
            password_hasher or PasswordHasher(), workers=hash_workers, max_waiting=hash_max_waiting
        )
        self._dummy_hash: str | None = None
        self._dummy_lock = asyncio.Lock()
        self.is_sqlite = engine.dialect.name == "sqlite"
        self._write_lock: asyncio.Lock | None = asyncio.Lock() if self.is_sqlite else None

    @property
    def hasher(self) -> PasswordHasher:
        """The argon2 parameters (the hashing itself runs on :attr:`hashing`'s pool)."""
        return self.hashing.hasher

    @hasher.setter
    def hasher(self, hasher: PasswordHasher) -> None:
        self.hashing.hasher = hasher

    # ------------------------------------------------------------------ lifecycle
    @classmethod
    async def open(
        cls,
        url: str | None = None,
        *,
        migrate_schema: bool = True,
        starting_grant: int = DEFAULT_GRANT,
        topup_threshold: int | None = None,
        session_ttl: timedelta = timedelta(days=1),
        clock: Callable[[], datetime] = _utcnow,
        password_hasher: PasswordHasher | None = None,
        hash_workers: int = 1,
        hash_max_waiting: int = 64,
        echo: bool = False,
    ) -> Store:
        """Connect (``url`` defaults to :func:`database_url`) and migrate the schema to head."""
        engine = make_engine(database_url(url), echo=echo)
        try:
            if migrate_schema:
                await migrate.upgrade(engine)
        except BaseException:
            await engine.dispose()
            raise
        return cls(
            engine,
            starting_grant=starting_grant,
            topup_threshold=topup_threshold,
            session_ttl=session_ttl,
            clock=clock,
            password_hasher=password_hasher,
            hash_workers=hash_workers,
            hash_max_waiting=hash_max_waiting,
        )

    async def close(self) -> None:
        self.hashing.close()
        await self.engine.dispose()

    async def __aenter__(self) -> Store:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    @asynccontextmanager
    async def _write(self) -> AsyncIterator[AsyncConnection]:
        """One write transaction (serialized per process on SQLite)."""
        lock = self._write_lock if self._write_lock is not None else nullcontext()
        async with lock, self.engine.connect() as raw:
            conn = await raw.execution_options(sqlite_begin="IMMEDIATE")
            async with conn.begin():
                yield conn

    @asynccontextmanager
    async def _read(self, *, snapshot: bool = False) -> AsyncIterator[AsyncConnection]:
        """One read transaction; ``snapshot`` gives one consistent view on PostgreSQL too."""
        async with self.engine.connect() as raw:
            conn = raw
            if snapshot and not self.is_sqlite:
                conn = await raw.execution_options(isolation_level="REPEATABLE READ")
            async with conn.begin():
                yield conn

    def _now(self) -> datetime:
        now = self.clock()
        return now.replace(tzinfo=UTC) if now.tzinfo is None else now.astimezone(UTC)

    def _today(self) -> str:
        return self._now().date().isoformat()

    async def _post(
        self,
        conn: AsyncConnection,
        kind: str,
        entries: list[Entry],
        *,
        account_id: int | None = None,
        table_id: int | None = None,
        hand_id: str | None = None,
        memo: str | None = None,
    ) -> int:
        """Write one ledger transaction; its entries must sum to zero."""
        entries = [e for e in entries if e["amount"] != 0]
        if sum(e["amount"] for e in entries) != 0:  # pragma: no cover - a bug in this module
            raise StoreError(f"internal error: ledger transaction {kind} does not balance")
        result = await conn.execute(
            insert(ledger_transactions).values(
                kind=kind,
                created_at=self._now(),
                account_id=account_id,
                table_id=table_id,
                hand_id=hand_id,
                memo=memo,
            )
        )
        txn_id = _new_id(result)
        if entries:
            await conn.execute(insert(ledger_entries), [{**e, "txn_id": txn_id} for e in entries])
        return txn_id

    # ------------------------------------------------------------------ accounts
    @staticmethod
    def check_name(name: object) -> str:
        """The name as it will be stored (NFKC), or :class:`InvalidInputError` (see
        :mod:`studpoker.store.names`)."""
        return names.check_name(name).display

    @staticmethod
    def check_password(password: object) -> str:
        if not isinstance(password, str) or not MIN_PASSWORD <= len(password) <= MAX_PASSWORD:
            raise InvalidInputError(f"password must be {MIN_PASSWORD} to {MAX_PASSWORD} characters long")
        return password

    async def register(self, name: str, password: str, *, budget: AddressBudget | None = None) -> Account:
        """Open a person's account with the starting grant (a ``grant`` ledger transaction).

        ``budget``: the new accounts the client's address may still open today (the REST API
        always passes one); past it :class:`LimitError` and nothing is written. A name in the
        bots' namespace, or one that looks like a taken name, is refused."""
        checked = names.check_name(name)
        if checked.is_bot_name:
            raise InvalidInputError(
                f"name {name!r} is not allowed: names starting with 'bot_' or 'bot-' (or looking like"
                " it) are kept for the room's bots"
            )
        self.check_password(password)
        async with self._read() as conn:  # spare the hashing for a taken name or a spent budget
            await self._check_name_free(conn, checked)
            if budget is not None:
                await budgets.check_left(conn, budget, "accounts", self._now())
        password_hash = await self.hashing.hash(password)
        return await self._create_account(checked, password_hash, budget=budget)

    async def create_bot_account(self, name: str) -> Account:
        """The account of the server's bot ``name`` (in the bots' namespace, ``bot_...``), made
        with the starting grant if missing. It is marked a bot and has no password: it cannot
        log in. :class:`NameTakenError` if the name, or one like it, is a person's."""
        checked = names.check_name(name)
        if not checked.is_bot_name:
            raise InvalidInputError(f"a bot's name starts with 'bot_' or 'bot-', not {name!r}")
        async with self._read() as conn:
            row = (
                await conn.execute(
                    select(accounts.c.id, accounts.c.name, accounts.c.bankroll, accounts.c.is_bot).where(
                        accounts.c.name_key == checked.key
                    )
                )
            ).first()
        if row is not None:
            if not row.is_bot:
                raise NameTakenError(f"the name {row.name!r} belongs to a person, not to a bot")
            return Account(int(row.id), str(row.name), int(row.bankroll))
        return await self._create_account(checked, BOT_PASSWORD_HASH, is_bot=True)

    async def _check_name_free(self, conn: AsyncConnection, checked: names.AccountName) -> None:
        row = (
            await conn.execute(
                select(accounts.c.name, accounts.c.name_key)
                .where((accounts.c.name_key == checked.key) | (accounts.c.name_skeleton == checked.skeleton))
                .limit(1)
            )
        ).first()
        if row is None:
            return
        if row.name_key == checked.key:
            raise NameTakenError(f"the name {checked.display!r} is taken")
        raise NameTakenError(f"the name {checked.display!r} looks too much like {row.name!r}, which is taken")

    async def _create_account(
        self,
        checked: names.AccountName,
        password_hash: str,
        *,
        is_bot: bool = False,
        budget: AddressBudget | None = None,
    ) -> Account:
        grant = self.starting_grant
        try:
            async with self._write() as conn:
                await self._check_name_free(conn, checked)
                if budget is not None and not await budgets.claim(conn, budget, "accounts", self._today()):
                    raise budgets.spent_error(budget, "accounts", self._now())
                result = await conn.execute(
                    insert(accounts).values(
                        name=checked.display,
                        name_key=checked.key,
                        name_skeleton=checked.skeleton,
                        password_hash=password_hash,
                        bankroll=grant,
                        created_at=self._now(),
                        protected_count=0,
                        is_bot=is_bot,
                    )
                )
                account_id = _new_id(result)
                await self._post(
                    conn,
                    "grant",
                    [_bank(-grant), _bankroll(account_id, grant)],
                    account_id=account_id,
                    memo="starting grant",
                )
        except IntegrityError:  # the unique indexes: a name (or look-alike) taken in between
            raise NameTakenError(f"the name {checked.display!r} is taken") from None
        return Account(account_id, checked.display, grant)

    async def login(self, name: str, password: str) -> Session:
        """Check the password and open a session. Same :class:`AuthError` for a wrong name or
        password, and for a bot's account (bots never log in)."""
        if not isinstance(name, str) or not isinstance(password, str) or len(password) > MAX_PASSWORD:
            raise AuthError(AUTH_FAILED)
        async with self._read() as conn:
            row = (
                await conn.execute(
                    select(accounts.c.id, accounts.c.password_hash, accounts.c.is_bot).where(
                        accounts.c.name_key == names.lookup_key(name)
                    )
                )
            ).first()
        if row is None or row.is_bot:
            # Spend the same time as for a real account, so names cannot be probed.
            await self.hashing.verify(await self._dummy(), password)
            raise AuthError(AUTH_FAILED)
        account_id, stored = int(row.id), str(row.password_hash)
        if not await self.hashing.verify(stored, password):
            raise AuthError(AUTH_FAILED)
        new_hash = await self.hashing.hash(password) if self.hashing.needs_rehash(stored) else None
        return await self._open_session(account_id, new_hash=new_hash)

    async def _dummy(self) -> str:
        """A hash of a random password, made once (under a lock: many unknown names at once
        make one hash, not one each)."""
        async with self._dummy_lock:
            if self._dummy_hash is None:
                self._dummy_hash = await self.hashing.hash(secrets.token_hex(8))
            return self._dummy_hash

    async def open_session(self, account_id: int) -> Session:
        """A session for a person's account without a password check: for the account that was
        just registered with that password (which spares a second argon2 run). :class:`AuthError`
        for a bot's or an unknown account."""
        return await self._open_session(account_id)

    async def _open_session(self, account_id: int, *, new_hash: str | None = None) -> Session:
        token = secrets.token_urlsafe(32)
        now = self._now()
        expires = now + self.session_ttl
        async with self._write() as conn:
            is_bot = await conn.scalar(select(accounts.c.is_bot).where(accounts.c.id == account_id))
            if is_bot is None or is_bot:
                raise AuthError(AUTH_FAILED)
            await conn.execute(
                insert(sessions).values(
                    token_hash=hash_token(token),
                    account_id=account_id,
                    created_at=now,
                    expires_at=expires,
                    revoked=False,
                )
            )
            if new_hash is not None:
                await conn.execute(
                    update(accounts).where(accounts.c.id == account_id).values(password_hash=new_hash)
                )
        return Session(token, account_id, expires)

    async def authenticate(self, token: str) -> Account:
        """The account of a live session; :class:`AuthError` if unknown, expired or revoked."""
        if not isinstance(token, str) or not 0 < len(token) <= 200:
            raise AuthError("unknown session: log in again")
        async with self._read() as conn:
            row = (
                await conn.execute(
                    select(
                        sessions.c.expires_at,
                        sessions.c.revoked,
                        accounts.c.id,
                        accounts.c.name,
                        accounts.c.bankroll,
                        accounts.c.is_bot,
                    )
                    .join(accounts, accounts.c.id == sessions.c.account_id)
                    .where(sessions.c.token_hash == hash_token(token))
                )
            ).first()
        if row is None or row.is_bot:  # a bot never has a session: none is ever believed
            raise AuthError("unknown session: log in again")
        if row.revoked:
            raise AuthError("this session was logged out: log in again")
        if row.expires_at <= self._now():
            raise AuthError("this session has expired: log in again")
        return Account(int(row.id), str(row.name), int(row.bankroll))

    async def revoke(self, token: str) -> None:
        """Log a session out (no error if the token is unknown)."""
        async with self._write() as conn:
            await conn.execute(
                update(sessions).where(sessions.c.token_hash == hash_token(token)).values(revoked=True)
            )

    async def revoke_all(self, account_id: int) -> int:
        """Log out every session of an account; returns how many were live."""
        async with self._write() as conn:
            result = await conn.execute(
                update(sessions)
                .where(sessions.c.account_id == account_id, sessions.c.revoked.is_(False))
                .values(revoked=True)
            )
        return int(result.rowcount)

    async def session_expires_at(self, token: str) -> datetime | None:
        """When the session of ``token`` expires (None if there is no such session); the room
        closes a socket when its session expires."""
        async with self._read() as conn:
            expires = (
                await conn.execute(
                    select(sessions.c.expires_at).where(sessions.c.token_hash == hash_token(token))
                )
            ).scalar()
        return expires if isinstance(expires, datetime) else None

    async def account(self, account_id: int) -> Account:
        async with self._read() as conn:
            return await self._account(conn, account_id)

    async def account_by_name(self, name: str) -> Account:
        async with self._read() as conn:
            row = (
                await conn.execute(
                    select(accounts.c.id, accounts.c.name, accounts.c.bankroll).where(
                        accounts.c.name_key == names.lookup_key(str(name))
                    )
                )
            ).first()
        if row is None:
            raise NotFoundError(f"no account named {name!r}")
        return Account(int(row.id), str(row.name), int(row.bankroll))

    async def _account(self, conn: AsyncConnection, account_id: int, *, lock: bool = False) -> Account:
        query = select(accounts.c.id, accounts.c.name, accounts.c.bankroll).where(accounts.c.id == account_id)
        if lock:
            query = query.with_for_update()
        row = (await conn.execute(query)).first()
        if row is None:
            raise NotFoundError(f"no account with id {account_id!r}")
        return Account(int(row.id), str(row.name), int(row.bankroll))

    async def _debit_bankroll(self, conn: AsyncConnection, account_id: int, amount: int) -> None:
        result = await conn.execute(
            update(accounts)
            .where(accounts.c.id == account_id, accounts.c.bankroll >= amount)
            .values(bankroll=accounts.c.bankroll - amount)
        )
        if result.rowcount != 1:
            have = (await self._account(conn, account_id)).bankroll
            raise InsufficientFundsError(f"the bankroll holds {have} units, not the {amount} asked for")

    async def _credit_bankroll(self, conn: AsyncConnection, account_id: int, amount: int) -> None:
        await conn.execute(
            update(accounts).where(accounts.c.id == account_id).values(bankroll=accounts.c.bankroll + amount)
        )

    async def daily_topup(self, account_id: int, *, budget: AddressBudget | None = None) -> int:
        """Grant a broke player (bankroll + chips on tables below ``topup_threshold``) enough to get
        back to the starting grant, once per UTC day. Returns the amount, 0 if not eligible.

        ``budget``: the top-ups the client's address may still claim today (the REST API always
        passes one; the server's bots none): an eligible top-up past it is :class:`LimitError`
        and nothing is written."""
        today = self._today()
        async with self._write() as conn:
            query = (
                select(accounts.c.bankroll, accounts.c.last_topup_day)
                .where(accounts.c.id == account_id)
                .with_for_update()
            )
            row = (await conn.execute(query)).first()
            if row is None:
                raise NotFoundError(f"no account with id {account_id!r}")
            if row.last_topup_day == today:
                return 0
            on_tables = await conn.scalar(
                select(func.coalesce(func.sum(seats.c.stack), 0)).where(seats.c.account_id == account_id)
            )
            total = int(row.bankroll) + int(on_tables or 0)
            if total >= self.topup_threshold or total >= self.starting_grant:
                return 0
            if budget is not None and not await budgets.claim(conn, budget, "topups", today):
                raise budgets.spent_error(budget, "topups", self._now())
            amount = self.starting_grant - total
            await conn.execute(
                update(accounts)
                .where(accounts.c.id == account_id)
                .values(bankroll=accounts.c.bankroll + amount, last_topup_day=today)
            )
            await self._post(
                conn,
                "topup",
                [_bank(-amount), _bankroll(account_id, amount)],
                account_id=account_id,
                memo=f"daily top-up {today}",
            )
        return amount

    async def use_protected_all_in(self, account_id: int, limit_per_day: int = 2) -> bool:
        """Count one disconnect-protected all-in for today; False (nothing counted) past the limit."""
        if limit_per_day <= 0:
            return False
        today = self._today()
        async with self._write() as conn:
            first = await conn.execute(
                update(accounts)
                .where(
                    accounts.c.id == account_id,
                    (accounts.c.protected_day.is_(None)) | (accounts.c.protected_day != today),
                )
                .values(protected_day=today, protected_count=1)
            )
            if first.rowcount == 1:
                return True
            more = await conn.execute(
                update(accounts)
                .where(
                    accounts.c.id == account_id,
                    accounts.c.protected_day == today,
                    accounts.c.protected_count < limit_per_day,
                )
                .values(protected_count=accounts.c.protected_count + 1)
            )
            if more.rowcount == 1:
                return True
            await self._account(conn, account_id)  # NotFoundError for an unknown id
            return False

    async def protected_all_ins_left(self, account_id: int, limit_per_day: int = 2) -> int:
        async with self._read() as conn:
            row = (
                await conn.execute(
                    select(accounts.c.protected_day, accounts.c.protected_count).where(
                        accounts.c.id == account_id
                    )
                )
            ).first()
        if row is None:
            raise NotFoundError(f"no account with id {account_id!r}")
        used = int(row.protected_count) if row.protected_day == self._today() else 0
        return max(0, limit_per_day - used)

    # ------------------------------------------------------------------ tables and seats
    async def create_table(self, config: TableConfig) -> TableRecord:
        """Store a new table with ``max_seats`` empty seats (numbered from 1)."""
        config.validate()
        try:
            async with self._write() as conn:
                taken = await conn.scalar(select(tables.c.id).where(tables.c.name == config.name))
                if taken is not None:
                    raise NameTakenError(f"a table named {config.name!r} exists")
                values = {key: getattr(config, key) for key in _TABLE_FIELDS}
                result = await conn.execute(insert(tables).values(**values, created_at=self._now()))
                table_id = _new_id(result)
                await conn.execute(
                    insert(seats),
                    [
                        {"table_id": table_id, "seat": s, "account_id": None, "stack": 0}
                        for s in range(1, config.max_seats + 1)
                    ],
                )
        except IntegrityError:
            raise NameTakenError(f"a table named {config.name!r} exists") from None
        return TableRecord(table_id, config)

    @staticmethod
    def _table_record(row: Any) -> TableRecord:
        mapping = row._mapping
        return TableRecord(int(mapping["id"]), TableConfig(**{key: mapping[key] for key in _TABLE_FIELDS}))

    async def list_tables(self) -> list[TableRecord]:
        async with self._read() as conn:
            rows = (await conn.execute(select(tables).order_by(tables.c.id))).all()
        return [self._table_record(row) for row in rows]

    async def table(self, table_id: int) -> TableRecord:
        async with self._read() as conn:
            return await self._table(conn, table_id)

    async def table_by_name(self, name: str) -> TableRecord | None:
        async with self._read() as conn:
            row = (await conn.execute(select(tables).where(tables.c.name == name))).first()
        return None if row is None else self._table_record(row)

    async def _table(self, conn: AsyncConnection, table_id: int) -> TableRecord:
        row = (await conn.execute(select(tables).where(tables.c.id == table_id))).first()
        if row is None:
            raise NotFoundError(f"no table with id {table_id!r}")
        return self._table_record(row)

    async def _seat_row(self, conn: AsyncConnection, table_id: int, seat: int) -> Any:
        row = (
            await conn.execute(
                select(seats.c.account_id, seats.c.stack)
                .where(seats.c.table_id == table_id, seats.c.seat == seat)
                .with_for_update()
            )
        ).first()
        if row is None:
            raise NotFoundError(f"table {table_id} has no seat {seat!r}")
        return row

    async def _check_not_in_hand(self, conn: AsyncConnection, table_id: int, seat: int, what: str) -> None:
        busy = await conn.scalar(
            select(hands.c.id)
            .join(hand_seats, hand_seats.c.hand_id == hands.c.id)
            .where(hands.c.table_id == table_id, hands.c.status == "in_progress", hand_seats.c.seat == seat)
            .limit(1)
        )
        if busy is not None:
            raise StoreError(f"cannot {what} during hand {busy}: wait until it is over")

    async def _seat_record(self, conn: AsyncConnection, table_id: int, seat: int) -> SeatRecord:
        row = (
            await conn.execute(
                select(seats.c.account_id, seats.c.stack, accounts.c.name)
                .join(accounts, accounts.c.id == seats.c.account_id)
                .where(seats.c.table_id == table_id, seats.c.seat == seat)
            )
        ).one()
        return SeatRecord(table_id, seat, int(row.account_id), str(row.name), int(row.stack))

    async def buy_in(self, account_id: int, table_id: int, seat: int, amount: int) -> SeatRecord:
        """Take an empty seat with ``amount`` from the bankroll (within the table's buy-in limits)."""
        _check_amount(amount, "buy-in")
        async with self._write() as conn:
            table = await self._table(conn, table_id)
            config = table.config
            if not isinstance(seat, int) or not 1 <= seat <= config.max_seats:
                raise InvalidInputError(
                    f"table {config.name!r} has seats 1 to {config.max_seats}, not {seat!r}"
                )
            if not config.min_buy_in <= amount <= config.max_buy_in:
                raise InvalidInputError(
                    f"buy-in at {config.name!r} must be from {config.min_buy_in}"
                    f" to {config.max_buy_in} units, not {amount}"
                )
            await self._account(conn, account_id, lock=True)
            row = await self._seat_row(conn, table_id, seat)
            if row.account_id is not None:
                raise StoreError(f"seat {seat} at {config.name!r} is taken")
            already = await conn.scalar(
                select(seats.c.seat).where(seats.c.table_id == table_id, seats.c.account_id == account_id)
            )
            if already is not None:
                raise StoreError(f"you already sit in seat {already} at {config.name!r}")
            await self._debit_bankroll(conn, account_id, amount)
            await conn.execute(
                update(seats)
                .where(seats.c.table_id == table_id, seats.c.seat == seat)
                .values(account_id=account_id, stack=amount)
            )
            await self._post(
                conn,
                "buy_in",
                [_bankroll(account_id, -amount), _seat(table_id, seat, account_id, amount)],
                account_id=account_id,
                table_id=table_id,
            )
            return await self._seat_record(conn, table_id, seat)

    async def _own_seat(
        self, conn: AsyncConnection, account_id: int, table_id: int, seat: int
    ) -> tuple[TableRecord, int]:
        table = await self._table(conn, table_id)
        # Lock order everywhere: the account row, then seat rows (no deadlocks on PostgreSQL).
        await self._account(conn, account_id, lock=True)
        row = await self._seat_row(conn, table_id, seat)
        if row.account_id != account_id:
            raise StoreError(f"seat {seat} at {table.name!r} is not yours")
        return table, int(row.stack)

    async def add_chips(self, account_id: int, table_id: int, seat: int, amount: int) -> SeatRecord:
        """Top up a seat from the bankroll between hands; the stack may not pass the maximum buy-in."""
        _check_amount(amount, "amount")
        async with self._write() as conn:
            table, stack = await self._own_seat(conn, account_id, table_id, seat)
            await self._check_not_in_hand(conn, table_id, seat, "add chips")
            if stack + amount > table.config.max_buy_in:
                raise InvalidInputError(
                    f"a stack at {table.name!r} may hold at most {table.config.max_buy_in} units:"
                    f" you can add up to {max(0, table.config.max_buy_in - stack)}"
                )
            await self._debit_bankroll(conn, account_id, amount)
            await conn.execute(
                update(seats)
                .where(seats.c.table_id == table_id, seats.c.seat == seat)
                .values(stack=seats.c.stack + amount)
            )
            await self._post(
                conn,
                "add_chips",
                [_bankroll(account_id, -amount), _seat(table_id, seat, account_id, amount)],
                account_id=account_id,
                table_id=table_id,
            )
            return await self._seat_record(conn, table_id, seat)

    async def cash_out(self, account_id: int, table_id: int, seat: int) -> int:
        """Leave the seat: its whole stack goes back to the bankroll. Returns the amount."""
        async with self._write() as conn:
            _, stack = await self._own_seat(conn, account_id, table_id, seat)
            await self._check_not_in_hand(conn, table_id, seat, "leave the table")
            await conn.execute(
                update(seats)
                .where(seats.c.table_id == table_id, seats.c.seat == seat)
                .values(account_id=None, stack=0)
            )
            if stack:
                await self._credit_bankroll(conn, account_id, stack)
                await self._post(
                    conn,
                    "cash_out",
                    [_seat(table_id, seat, account_id, -stack), _bankroll(account_id, stack)],
                    account_id=account_id,
                    table_id=table_id,
                )
        return stack

    async def seats(self, table_id: int) -> dict[int, SeatRecord]:
        """The occupied seats of a table."""
        async with self._read() as conn:
            await self._table(conn, table_id)
            rows = (
                await conn.execute(
                    select(seats.c.seat, seats.c.account_id, seats.c.stack, accounts.c.name)
                    .join(accounts, accounts.c.id == seats.c.account_id)
                    .where(seats.c.table_id == table_id)
                    .order_by(seats.c.seat)
                )
            ).all()
        return {
            int(r.seat): SeatRecord(table_id, int(r.seat), int(r.account_id), str(r.name), int(r.stack))
            for r in rows
        }

    async def seats_of_account(self, account_id: int) -> list[SeatRecord]:
        """Every seat the account holds, at any table."""
        async with self._read() as conn:
            rows = (
                await conn.execute(
                    select(seats.c.table_id, seats.c.seat, seats.c.stack, accounts.c.name)
                    .join(accounts, accounts.c.id == seats.c.account_id)
                    .where(seats.c.account_id == account_id)
                    .order_by(seats.c.table_id)
                )
            ).all()
        return [SeatRecord(int(r.table_id), int(r.seat), account_id, str(r.name), int(r.stack)) for r in rows]

    # ------------------------------------------------------------------ hands
    async def start_hand(
        self,
        hand_id: str,
        table_id: int,
        commitment: str,
        seats: Mapping[int, int],
        *,
        deal: DealSeeds | None = None,
    ) -> dict[int, int]:
        """Record a hand in progress (one transaction): its deck commitment and each seat's
        starting stack. ``seats`` maps seat -> account id. Returns seat -> starting stack.

        ``deal``: the seeds of a verifiable deal (docs/fairness.md); ``commitment`` must then be
        the deck root they give. The seeds, the seed commitment and the root are stored with
        the hand. Without ``deal``, ``commitment`` is an older whole-deck commitment."""
        op = self.start_hand_op(hand_id, table_id, commitment, seats, deal=deal)
        async with self._write() as conn:
            return await op(conn)

    def start_hand_op(
        self,
        hand_id: str,
        table_id: int,
        commitment: str,
        seats: Mapping[int, int],
        *,
        deal: DealSeeds | None = None,
    ) -> WriteOp[dict[int, int]]:
        """:meth:`start_hand` as one write of a :meth:`write_batch` (the input checked now)."""
        if not isinstance(hand_id, str) or not _HAND_ID_RE.match(hand_id):
            raise InvalidInputError(f"hand id must be 1 to 64 of [A-Za-z0-9_.:-], not {hand_id!r}")
        if not isinstance(commitment, str) or not _HEX64_RE.match(commitment.lower()):
            raise InvalidInputError("the commitment must be a SHA-256 in hex (64 characters)")
        if len(seats) < 2:
            raise InvalidInputError("a hand needs at least two players")
        seats = dict(seats)
        values: dict[str, Any] = {"commitment": commitment.lower()}
        if deal is not None:
            values.update(_deal_values(deal, commitment.lower()))
        return lambda conn: self._start_hand(conn, hand_id, table_id, values, seats)

    async def _start_hand(
        self,
        conn: AsyncConnection,
        hand_id: str,
        table_id: int,
        values: dict[str, Any],
        seats: Mapping[int, int],
    ) -> dict[int, int]:
        starting: dict[int, int] = {}
        await self._table(conn, table_id)
        if await conn.scalar(select(hands.c.id).where(hands.c.id == hand_id)) is not None:
            raise StoreError(f"hand {hand_id} already exists")
        busy = await conn.scalar(
            select(hands.c.id).where(hands.c.table_id == table_id, hands.c.status == "in_progress").limit(1)
        )
        if busy is not None:
            raise StoreError(f"table {table_id} already has hand {busy} in progress")
        rows = {
            int(r.seat): r
            for r in (
                await conn.execute(
                    select(schema.seats.c.seat, schema.seats.c.account_id, schema.seats.c.stack)
                    .where(schema.seats.c.table_id == table_id, schema.seats.c.seat.in_(list(seats)))
                    .with_for_update()
                )
            ).all()
        }
        for seat, account_id in seats.items():
            row = rows.get(seat)
            if row is None or row.account_id != account_id:
                raise StoreError(f"seat {seat} at table {table_id} is not held by account {account_id}")
            starting[seat] = int(row.stack)
        await conn.execute(
            insert(hands).values(
                id=hand_id,
                table_id=table_id,
                status="in_progress",
                started_at=self._now(),
                **values,
            )
        )
        await conn.execute(
            insert(hand_seats),
            [
                {
                    "hand_id": hand_id,
                    "seat": seat,
                    "account_id": account_id,
                    "starting_stack": starting[seat],
                    "contribution": 0,
                    "award": 0,
                }
                for seat, account_id in sorted(seats.items())
            ],
        )
        return starting

    async def _open_hand(
        self, conn: AsyncConnection, hand_id: str
    ) -> tuple[Any, dict[int, Any], dict[int, int]]:
        """Lock an in-progress hand; returns it, its seats and the chips each seat has in its pot."""
        hand = (await conn.execute(select(hands).where(hands.c.id == hand_id).with_for_update())).first()
        if hand is None:
            raise NotFoundError(f"no hand {hand_id!r}")
        if hand.status != "in_progress":
            raise StoreError(f"hand {hand_id} is already {hand.status}")
        players = {
            int(r.seat): r
            for r in (await conn.execute(select(hand_seats).where(hand_seats.c.hand_id == hand_id))).all()
        }
        in_pot: dict[int, int] = {}
        for r in (
            await conn.execute(
                select(ledger_entries.c.seat, func.sum(ledger_entries.c.amount).label("amount"))
                .where(ledger_entries.c.book == "pot", ledger_entries.c.hand_id == hand_id)
                .group_by(ledger_entries.c.seat)
            )
        ).all():
            if r.amount:
                in_pot[int(r.seat)] = int(r.amount)
        return hand, players, in_pot

    async def contribute(self, hand_id: str, contributions: Mapping[int, int]) -> None:
        """Optional: move chips from seats into the pot while the hand runs (one transaction).
        :meth:`finish_hand` then moves only what is left; :meth:`void_hand` refunds these."""
        chips = _check_chips(contributions, "contribution")
        async with self._write() as conn:
            hand, players, _ = await self._open_hand(conn, hand_id)
            entries: list[Entry] = []
            for seat, amount in sorted(chips.items()):
                if seat not in players:
                    raise StoreError(f"seat {seat} is not in hand {hand_id}")
                if amount:
                    row = await self._seat_row(conn, hand.table_id, seat)
                    if int(row.stack) < amount:
                        raise StoreError(f"seat {seat} has {row.stack} units, cannot put {amount} in the pot")
                    account_id = int(players[seat].account_id)
                    entries += [
                        _seat(hand.table_id, seat, account_id, -amount),
                        _pot(hand_id, hand.table_id, seat, account_id, amount),
                    ]
            await self._move_seats(conn, hand.table_id, {s: -a for s, a in chips.items() if a})
            await self._post(conn, "contribute", entries, table_id=hand.table_id, hand_id=hand_id)

    async def _move_seats(self, conn: AsyncConnection, table_id: int, deltas: Mapping[int, int]) -> None:
        if not deltas:
            return
        await conn.execute(
            update(seats)
            .where(seats.c.table_id == bindparam("t"), seats.c.seat == bindparam("s"))
            .values(stack=seats.c.stack + bindparam("d")),
            [{"t": table_id, "s": seat, "d": delta} for seat, delta in sorted(deltas.items())],
        )

    async def finish_hand(
        self,
        hand_id: str,
        *,
        contributions: Mapping[int, int],
        awards: Mapping[int, int],
        phh: str,
        text: str,
        deck_order: str | Sequence[int | str],
        salt: str | None = None,
    ) -> dict[int, int]:
        """Settle a hand in ONE transaction: a ``hand`` ledger transaction moving each seat's
        contribution into the pot and each award out of it, the new stacks, the PHH and text
        histories, and the deck dealt (which must be the one its seeds give; for a hand dealt
        before verifiable deals, the order and ``salt`` must match its whole-deck commitment).
        ``contributions`` are each seat's total for the hand; awards must sum to them exactly,
        else :class:`StoreError` and nothing is written. Returns seat -> new stack for the hand's seats."""
        op = self.finish_hand_op(
            hand_id,
            contributions=contributions,
            awards=awards,
            phh=phh,
            text=text,
            deck_order=deck_order,
            salt=salt,
        )
        async with self._write() as conn:
            return await op(conn)

    def finish_hand_op(
        self,
        hand_id: str,
        *,
        contributions: Mapping[int, int],
        awards: Mapping[int, int],
        phh: str,
        text: str,
        deck_order: str | Sequence[int | str],
        salt: str | None = None,
    ) -> WriteOp[dict[int, int]]:
        """:meth:`finish_hand` as one write of a :meth:`write_batch` (the input checked now)."""
        put = _check_chips(contributions, "contribution")
        won = _check_chips(awards, "award")
        if sum(put.values()) != sum(won.values()):
            raise StoreError(
                f"hand {hand_id}: awards ({sum(won.values())}) must equal contributions ({sum(put.values())})"
            )
        order = canonical_order(deck_order)
        if salt is not None and (not isinstance(salt, str) or not 0 < len(salt) <= 200):
            raise InvalidInputError("the salt must be 1 to 200 characters")
        return lambda conn: self._finish_hand(
            conn, hand_id, put=put, won=won, phh=phh, text=text, order=order, salt=salt
        )

    def void_hand_op(self, hand_id: str, reason: str) -> WriteOp[dict[int, int]]:
        """:meth:`void_hand` as one write of a :meth:`write_batch`."""
        return lambda conn: self._void(conn, hand_id, reason)

    async def write_batch(self, ops: Sequence[WriteOp[Any]]) -> list[Any]:
        """Group commit: run several writes (``*_op`` methods) in ONE transaction, each in its own
        savepoint, so that one write refused (its exception is returned in its place) leaves the
        others whole. When the transaction itself fails (BEGIN or COMMIT: a full disk, a locked
        database), nothing is written and every write gets that exception."""
        results: list[Any] = []
        if len(ops) == 1:  # alone: the transaction is its savepoint
            try:
                async with self._write() as conn:
                    return [await ops[0](conn)]
            except Exception as exc:
                return [exc]
        try:
            async with self._write() as conn:
                for op in ops:
                    try:
                        async with conn.begin_nested():
                            results.append(await op(conn))
                    except Exception as exc:  # this write is rolled back alone
                        results.append(exc)
        except Exception as exc:
            return [exc] * len(ops)
        return results

    async def _finish_hand(
        self,
        conn: AsyncConnection,
        hand_id: str,
        *,
        put: dict[int, int],
        won: dict[int, int],
        phh: str,
        text: str,
        order: str,
        salt: str | None,
    ) -> dict[int, int]:
        hand, players, in_pot = await self._open_hand(conn, hand_id)
        if hand.server_seed is not None:
            seeds = parse_client_seeds(hand.client_seeds)
            dealt = fairness.deck_from_seeds(bytes.fromhex(hand.server_seed), seeds).order
            if order.split() != [str(c) for c in dealt]:
                raise StoreError(f"hand {hand_id}: the deck order is not the one its seeds give")
            salt = None
        elif salt is None or not cards.verify(hand.commitment, order.split(), salt):
            raise StoreError(f"hand {hand_id}: the deck order and salt do not match the commitment")
        for seat in (*put, *won):
            if seat not in players:
                raise StoreError(f"seat {seat} is not in hand {hand_id}")
        table_id = int(hand.table_id)
        stacks = {
            int(r.seat): r
            for r in (
                await conn.execute(
                    select(seats.c.seat, seats.c.account_id, seats.c.stack)
                    .where(seats.c.table_id == table_id, seats.c.seat.in_(list(players)))
                    .with_for_update()
                )
            ).all()
        }
        entries: list[Entry] = []
        deltas: dict[int, int] = {}
        for seat, player in sorted(players.items()):
            account_id = int(player.account_id)
            already = in_pot.get(seat, 0)
            total = put.get(seat, 0)
            more = total - already
            if more < 0:
                raise StoreError(f"seat {seat} already put {already} in the pot, more than {total}")
            row = stacks[seat]
            if row.account_id != account_id:  # pragma: no cover - cash_out refuses during a hand
                raise StoreError(f"seat {seat} changed hands during hand {hand_id}")
            if more > int(row.stack):
                raise StoreError(f"seat {seat} has {row.stack} units, cannot put {more} more in the pot")
            if more:
                entries += [
                    _seat(table_id, seat, account_id, -more),
                    _pot(hand_id, table_id, seat, account_id, more),
                ]
            award = won.get(seat, 0)
            if award:
                entries += [
                    _pot(hand_id, table_id, seat, account_id, -award),
                    _seat(table_id, seat, account_id, award),
                ]
            if award - more:
                deltas[seat] = award - more
        await self._post(conn, "hand", entries, table_id=table_id, hand_id=hand_id)
        await self._move_seats(conn, table_id, deltas)
        await conn.execute(
            update(hand_seats)
            .where(hand_seats.c.hand_id == hand_id, hand_seats.c.seat == bindparam("s"))
            .values(contribution=bindparam("c"), award=bindparam("a")),
            [{"s": seat, "c": put.get(seat, 0), "a": won.get(seat, 0)} for seat in sorted(players)],
        )
        await conn.execute(
            update(hands)
            .where(hands.c.id == hand_id)
            .values(
                status="finished",
                finished_at=self._now(),
                phh=phh,
                text=text,
                deck_order=order,
                salt=salt,
            )
        )
        return {seat: int(stacks[seat].stack) + deltas.get(seat, 0) for seat in sorted(players)}

    async def void_hand(self, hand_id: str, reason: str) -> dict[int, int]:
        """Void a hand in progress: every chip in its pot goes back to its owner (seat, or bankroll
        if he no longer holds the seat) and the hand is recorded as ``void``. Returns the refunds."""
        async with self._write() as conn:
            return await self._void(conn, hand_id, reason)

    async def _void(self, conn: AsyncConnection, hand_id: str, reason: str) -> dict[int, int]:
        hand, players, in_pot = await self._open_hand(conn, hand_id)
        table_id = int(hand.table_id)
        entries: list[Entry] = []
        back_to_seat: dict[int, int] = {}
        for seat, amount in sorted(in_pot.items()):
            account_id = int(players[seat].account_id)
            entries.append(_pot(hand_id, table_id, seat, account_id, -amount))
            row = await self._seat_row(conn, table_id, seat)
            if row.account_id == account_id:
                entries.append(_seat(table_id, seat, account_id, amount))
                back_to_seat[seat] = amount
            else:  # pragma: no cover - cash_out refuses during a hand
                entries.append(_bankroll(account_id, amount))
                await self._credit_bankroll(conn, account_id, amount)
        await self._move_seats(conn, table_id, back_to_seat)
        # Always recorded, with no entries when nothing had reached the pot (the batched design:
        # the stacks were never debited, so every contribution is back with its owner already).
        await self._post(conn, "void", entries, table_id=table_id, hand_id=hand_id, memo=str(reason)[:400])
        await conn.execute(
            update(hands)
            .where(hands.c.id == hand_id)
            .values(status="void", finished_at=self._now(), void_reason=str(reason)[:400])
        )
        return dict(in_pot)

    async def void_unfinished_hands(self, reason: str = "the server restarted during the hand") -> list[str]:
        """At startup: void every hand still in progress (refunding its pot). Returns their ids."""
        async with self._write() as conn:
            ids = list(
                (
                    await conn.scalars(
                        select(hands.c.id).where(hands.c.status == "in_progress").order_by(hands.c.started_at)
                    )
                ).all()
            )
            for hand_id in ids:
                await self._void(conn, hand_id, reason)
        return [str(i) for i in ids]

    async def hand(self, hand_id: str) -> HandRecord:
        async with self._read() as conn:
            found = await self._hands(conn, [hand_id])
        if not found:
            raise NotFoundError(f"no hand {hand_id!r}")
        return found[0]

    async def hands_for_account(self, account_id: int, limit: int = 50, offset: int = 0) -> list[HandRecord]:
        """The account's hands (only those he was dealt into), newest first."""
        async with self._read() as conn:
            ids = (
                await conn.scalars(
                    select(hands.c.id)
                    .join(hand_seats, hand_seats.c.hand_id == hands.c.id)
                    .where(hand_seats.c.account_id == account_id)
                    .order_by(hands.c.started_at.desc(), hands.c.id.desc())
                    .limit(max(0, limit))
                    .offset(max(0, offset))
                )
            ).all()
            return await self._hands(conn, list(ids))

    async def hands_for_table(self, table_id: int, limit: int = 50) -> list[HandRecord]:
        async with self._read() as conn:
            ids = (
                await conn.scalars(
                    select(hands.c.id)
                    .where(hands.c.table_id == table_id)
                    .order_by(hands.c.started_at.desc(), hands.c.id.desc())
                    .limit(max(0, limit))
                )
            ).all()
            return await self._hands(conn, list(ids))

    async def recent_hand_pots(self, since: datetime) -> dict[int, list[tuple[datetime, int]]]:
        """Per table, ``(finished_at, pot)`` of every hand finished (not voided) that started at
        ``since`` or later, oldest first; the pot is the sum of the players' contributions.
        One query over the (table, started_at) index: the lobby's average pot and hands/hour."""
        pot = func.coalesce(func.sum(hand_seats.c.contribution), 0)
        query = (
            select(hands.c.table_id, hands.c.finished_at, pot.label("pot"))
            .join(hand_seats, hand_seats.c.hand_id == hands.c.id)
            .where(hands.c.status == "finished", hands.c.started_at >= since)
            .group_by(hands.c.id, hands.c.table_id, hands.c.finished_at)
            .order_by(hands.c.finished_at, hands.c.id)
        )
        out: dict[int, list[tuple[datetime, int]]] = {}
        async with self._read() as conn:
            for row in (await conn.execute(query)).all():
                if row.finished_at is not None:
                    out.setdefault(int(row.table_id), []).append((row.finished_at, int(row.pot)))
        return out

    async def _hands(self, conn: AsyncConnection, ids: Iterable[str]) -> list[HandRecord]:
        wanted = list(ids)
        if not wanted:
            return []
        rows = {r.id: r for r in (await conn.execute(select(hands).where(hands.c.id.in_(wanted)))).all()}
        players: dict[str, dict[int, HandSeat]] = {hand_id: {} for hand_id in rows}
        for r in (
            await conn.execute(
                select(hand_seats, accounts.c.name)
                .join(accounts, accounts.c.id == hand_seats.c.account_id)
                .where(hand_seats.c.hand_id.in_(wanted))
                .order_by(hand_seats.c.seat)
            )
        ).all():
            players[r.hand_id][int(r.seat)] = HandSeat(
                int(r.seat),
                int(r.account_id),
                str(r.name),
                int(r.starting_stack),
                int(r.contribution),
                int(r.award),
            )
        return [
            HandRecord(
                id=str(h.id),
                table_id=int(h.table_id),
                status=str(h.status),
                commitment=str(h.commitment),
                started_at=h.started_at,
                finished_at=h.finished_at,
                seats=players[h.id],
                phh=h.phh,
                text=h.text,
                deck_order=h.deck_order,
                salt=h.salt,
                void_reason=h.void_reason,
                server_seed=h.server_seed,
                seed_commitment=h.seed_commitment,
                deck_root=h.deck_root,
                client_seeds=tuple((s, seed.hex()) for s, seed in parse_client_seeds(h.client_seeds)),
            )
            for hand_id in wanted
            if (h := rows.get(hand_id)) is not None
        ]

    # ------------------------------------------------------------------ audit
    async def audit(self) -> AuditReport:
        """Check the books; see :func:`studpoker.store.audit.audit`."""
        from .audit import run_audit

        async with self._read(snapshot=True) as conn:
            return await run_audit(conn)


def _deal_values(deal: DealSeeds, commitment: str) -> dict[str, Any]:
    """The columns of a verifiable deal, checked: the seeds must give ``commitment`` as root."""
    try:
        root = fairness.deck_from_seeds(deal.server_seed, deal.client_seeds).tree().root.hex()
    except fairness.FairnessError as exc:
        raise InvalidInputError(f"the deal's seeds are not usable: {exc}") from None
    if root != commitment:
        raise InvalidInputError("the commitment is not the deck root the deal's seeds give")
    return {
        "server_seed": deal.server_seed.hex(),
        "seed_commitment": fairness.seed_commitment(deal.server_seed),
        "deck_root": root,
        "client_seeds": json.dumps([{"seat": seat, "seed": seed.hex()} for seat, seed in deal.client_seeds]),
    }


def parse_client_seeds(stored: str | None) -> list[tuple[int, bytes]]:
    """The ``client_seeds`` column (JSON) as ``(seat, seed)`` pairs; a column that is not such
    a list reads as a :class:`StoreError` (``studpoker verify`` reports it)."""
    if not stored:
        return []
    try:
        return [(int(item["seat"]), bytes.fromhex(str(item["seed"]))) for item in json.loads(stored)]
    except (ValueError, TypeError, KeyError) as exc:
        raise StoreError(f"the stored client seeds are not readable: {exc}") from None


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
