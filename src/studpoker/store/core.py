"""The store: one object the rest of the code holds, composed of the store's modules.

Each call is one database transaction and lives in its module; :class:`Store` wires them to one
:class:`~studpoker.store.database.Database` and names their calls:

- :mod:`~studpoker.store.accounts`: register, bot accounts, lookups, top-ups, protected all-ins
- :mod:`~studpoker.store.sessions`: login, sessions, logout
- :mod:`~studpoker.store.tables`: tables, buy-in, add chips, cash out, seats
- :mod:`~studpoker.store.hands`: the writes of a hand (``*_op``) and the group commit that runs them
- :mod:`~studpoker.store.queries`: hand records, the lobby's recent pots, the audit
- :mod:`~studpoker.store.moderation`: mutes, bans and reported chat lines (``store.moderation``)
- :mod:`~studpoker.store.leases`: the cluster's table leases and their fences (``store.leases``)
- :mod:`~studpoker.store.tournaments`: sit-and-go tournaments, their entries, pools and payouts
  (``store.tournaments``)
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta

from argon2 import PasswordHasher
from sqlalchemy.ext.asyncio import AsyncEngine

from . import migrate
from .accounts import DEFAULT_GRANT, Accounts
from .database import DEFAULT_URL, Database, database_url, make_engine, utcnow
from .hands import Hands, WriteOp, canonical_order
from .hashing import PasswordHashing
from .leases import Leases
from .login_attempts import LoginAttempts
from .moderation import Moderation
from .queries import Queries
from .sessions import Sessions
from .tables import Tables
from .tournament_leases import TournamentLeases
from .tournaments import Tournaments

__all__ = [
    "DEFAULT_GRANT",
    "DEFAULT_URL",
    "Store",
    "WriteOp",
    "canonical_order",
    "database_url",
    "make_engine",
]


class Store:
    """The room's persistence. Open with :meth:`open`, close with :meth:`close`."""

    def __init__(
        self,
        engine: AsyncEngine,
        *,
        starting_grant: int = DEFAULT_GRANT,
        topup_threshold: int | None = None,
        session_ttl: timedelta = timedelta(days=1),
        clock: Callable[[], datetime] = utcnow,
        password_hasher: PasswordHasher | None = None,
        hash_workers: int = 1,
        hash_max_waiting: int = 64,
    ) -> None:
        self.engine = engine
        self.database = Database(engine, clock)
        # Every hash and check on a bounded pool of threads (studpoker.store.hashing).
        self.hashing = PasswordHashing(
            password_hasher or PasswordHasher(), workers=hash_workers, max_waiting=hash_max_waiting
        )
        self.accounts = Accounts(
            self.database, self.hashing, starting_grant=starting_grant, topup_threshold=topup_threshold
        )
        self.sessions = Sessions(self.database, self.hashing, session_ttl=session_ttl)
        self.tables = Tables(self.database)
        self.hands = Hands(self.database)
        self.queries = Queries(self.database)
        # The operator's mutes and bans, each account's own chat mutes, reported chat lines.
        self.moderation = Moderation(self.database)
        # Which worker acts for each table in the cluster (docs/cluster.md, Ownership).
        self.leases = Leases(self.database)
        self.tournament_leases = TournamentLeases(self.database)
        # Login attempts shared by a cluster's gateways (docs/cluster.md, Shared state).
        self.login_attempts = LoginAttempts(self.database)
        # Sit-and-go tournaments: buy-ins and fees through the ledger, entries, payouts.
        self.tournaments = Tournaments(self.database)

        self.register = self.accounts.register
        self.create_bot_account = self.accounts.create_bot_account
        self.account = self.accounts.account
        self.account_by_name = self.accounts.account_by_name
        self.daily_topup = self.accounts.daily_topup
        self.use_protected_all_in = self.accounts.use_protected_all_in
        self.protected_all_ins_left = self.accounts.protected_all_ins_left

        self.login = self.sessions.login
        self.open_session = self.sessions.open_session
        self.authenticate = self.sessions.authenticate
        self.revoke = self.sessions.revoke
        self.revoke_all = self.sessions.revoke_all
        self.session_expires_at = self.sessions.session_expires_at

        self.create_table = self.tables.create_table
        self.list_tables = self.tables.list_tables
        self.table = self.tables.table
        self.table_by_name = self.tables.table_by_name
        self.buy_in = self.tables.buy_in
        self.add_chips = self.tables.add_chips
        self.cash_out = self.tables.cash_out
        self.seats = self.tables.seats
        self.seats_of_account = self.tables.seats_of_account

        self.start_hand_op = self.hands.start_hand_op
        self.finish_hand_op = self.hands.finish_hand_op
        self.void_hand_op = self.hands.void_hand_op
        self.write_batch = self.hands.write_batch
        self.void_unfinished_hands = self.hands.void_unfinished_hands
        self.void_interrupted = self.hands.void_interrupted

        self.hand = self.queries.hand
        self.hands_for_account = self.queries.hands_for_account
        self.hands_for_table = self.queries.hands_for_table
        self.recent_hand_pots = self.queries.recent_hand_pots
        self.audit = self.queries.audit

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
        clock: Callable[[], datetime] = utcnow,
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
        await self.database.dispose()

    async def __aenter__(self) -> Store:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    # ------------------------------------------------------------------ settings and seams
    @property
    def starting_grant(self) -> int:
        return self.accounts.starting_grant

    @property
    def topup_threshold(self) -> int:
        return self.accounts.topup_threshold

    @property
    def session_ttl(self) -> timedelta:
        return self.sessions.session_ttl

    @property
    def is_sqlite(self) -> bool:
        return self.database.is_sqlite

    @property
    def clock(self) -> Callable[[], datetime]:
        """The store's clock (tests set a fake one)."""
        return self.database.clock

    @clock.setter
    def clock(self, clock: Callable[[], datetime]) -> None:
        self.database.clock = clock

    def now(self) -> datetime:
        """The clock's time in UTC: what the store writes as ``created_at``."""
        return self.database.now()

    @property
    def hasher(self) -> PasswordHasher:
        """The argon2 parameters (the hashing itself runs on :attr:`hashing`'s pool)."""
        return self.hashing.hasher

    @hasher.setter
    def hasher(self, hasher: PasswordHasher) -> None:
        self.hashing.hasher = hasher
