"""The tables, as SQLAlchemy Core metadata. Alembic migrations create the same schema.

Ledger books (``ledger_entries.book``):
- ``bank``: the issuer of play money; its balance is minus every grant ever made.
- ``bankroll``: an account's money off the tables (``account_id``).
- ``seat``: chips in front of a player at a table (``table_id``, ``seat``, ``account_id``).
- ``pot``: chips put into a hand (``hand_id``, with the ``seat``/``account_id`` they came from
  or went to).
Every transaction's entries sum to zero. ``accounts.bankroll`` and ``seats.stack`` are cached
balances that the audit checks against the ledger.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from sqlalchemy import (
    BigInteger,
    Boolean,
    Column,
    DateTime,
    Dialect,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    UniqueConstraint,
    false,
)
from sqlalchemy.types import TypeDecorator


class UTCDateTime(TypeDecorator[datetime]):
    """Aware UTC datetimes on every backend (SQLite keeps them naive, in UTC)."""

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            value = value.replace(tzinfo=UTC)
        value = value.astimezone(UTC)
        return value.replace(tzinfo=None) if dialect.name == "sqlite" else value

    def process_result_value(self, value: Any, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        assert isinstance(value, datetime)
        return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


BigId = BigInteger().with_variant(Integer(), "sqlite")

metadata = MetaData(
    naming_convention={
        "ix": "ix_%(column_0_label)s",
        "uq": "uq_%(table_name)s_%(column_0_name)s",
        "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
        "pk": "pk_%(table_name)s",
    }
)

accounts = Table(
    "accounts",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    # The name as shown (NFKC); see studpoker.store.names for the two keys.
    Column("name", String(20), nullable=False),
    # NFKC + case folding: what logins look up.
    Column("name_key", String(20), nullable=False, unique=True),
    # The look-alike skeleton (TR39). NULL only for an account of an older database whose name
    # looks like an older account's: both keep working, and the older one holds the skeleton.
    Column("name_skeleton", String(80)),
    # A bot's password_hash is BOT_PASSWORD_HASH, which no password matches.
    Column("password_hash", String(200), nullable=False),
    Column("bankroll", BigInteger, nullable=False),
    Column("created_at", UTCDateTime, nullable=False),
    Column("last_topup_day", String(10)),
    Column("protected_day", String(10)),
    Column("protected_count", Integer, nullable=False, default=0),
    # Created by the server for its bots (never by registration); cannot log in.
    Column("is_bot", Boolean, nullable=False, default=False, server_default=false()),
    Index("ix_accounts_name_skeleton", "name_skeleton", unique=True),
)

# Free play money per client address per UTC day (docs/store.md "Grants and farming"): the
# new accounts (each one a starting grant) and the daily top-ups claimed from that address.
address_budgets = Table(
    "address_budgets",
    metadata,
    Column("address", String(64), primary_key=True),
    Column("day", String(10), primary_key=True),
    Column("accounts", Integer, nullable=False, default=0),
    Column("topups", Integer, nullable=False, default=0),
)

sessions = Table(
    "sessions",
    metadata,
    Column("token_hash", String(64), primary_key=True),
    Column("account_id", Integer, ForeignKey("accounts.id"), nullable=False, index=True),
    Column("created_at", UTCDateTime, nullable=False),
    Column("expires_at", UTCDateTime, nullable=False),
    Column("revoked", Boolean, nullable=False, default=False),
)

tables = Table(
    "tables",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("name", String(40), nullable=False, unique=True),
    Column("game", String(8), nullable=False),
    Column("small_bet", BigInteger, nullable=False),
    Column("big_bet", BigInteger, nullable=False),
    Column("ante", BigInteger, nullable=False),
    Column("bring_in", BigInteger, nullable=False),
    Column("small_blind", BigInteger, nullable=False),
    Column("big_blind", BigInteger, nullable=False),
    Column("max_seats", Integer, nullable=False),
    Column("min_buy_in", BigInteger, nullable=False),
    Column("max_buy_in", BigInteger, nullable=False),
    Column("think_seconds", Integer, nullable=False),
    Column("countdown_seconds", Integer, nullable=False),
    Column("house", String(400), nullable=False, default=""),
    Column("created_at", UTCDateTime, nullable=False),
)

seats = Table(
    "seats",
    metadata,
    Column("table_id", Integer, ForeignKey("tables.id"), primary_key=True),
    Column("seat", Integer, primary_key=True),
    Column("account_id", Integer, ForeignKey("accounts.id")),
    Column("stack", BigInteger, nullable=False, default=0),
    # One seat per account per table (NULLs, i.e. empty seats, never collide).
    UniqueConstraint("table_id", "account_id", name="uq_seats_table_account"),
)

hands = Table(
    "hands",
    metadata,
    Column("id", String(64), primary_key=True),
    Column("table_id", Integer, ForeignKey("tables.id"), nullable=False),
    Column("status", String(12), nullable=False),
    Column("commitment", String(64), nullable=False),
    Column("started_at", UTCDateTime, nullable=False),
    Column("finished_at", UTCDateTime),
    Column("phh", Text),
    Column("text", Text),
    Column("deck_order", String(200)),
    Column("salt", String(200)),
    Column("void_reason", String(400)),
    # Verifiable deals (migration 0003, docs/fairness.md); NULL for the hands dealt before.
    Column("server_seed", String(64)),
    Column("seed_commitment", String(64)),
    Column("deck_root", String(64)),
    Column("client_seeds", Text),
    # The epoch of the lease its table's owner started it under (migration 0006,
    # studpoker.store.leases); NULL for a hand of the one-process room.
    Column("epoch", BigInteger),
    Index("ix_hands_status", "status"),
    Index("ix_hands_table_started", "table_id", "started_at"),
)

hand_seats = Table(
    "hand_seats",
    metadata,
    Column("hand_id", String(64), ForeignKey("hands.id"), primary_key=True),
    Column("seat", Integer, primary_key=True),
    Column("account_id", Integer, ForeignKey("accounts.id"), nullable=False),
    Column("starting_stack", BigInteger, nullable=False),
    Column("contribution", BigInteger, nullable=False, default=0),
    Column("award", BigInteger, nullable=False, default=0),
    Index("ix_hand_seats_account", "account_id", "hand_id"),
)

ledger_transactions = Table(
    "ledger_transactions",
    metadata,
    Column("id", BigId, primary_key=True, autoincrement=True),
    Column("kind", String(16), nullable=False),
    Column("created_at", UTCDateTime, nullable=False),
    Column("account_id", Integer, ForeignKey("accounts.id")),
    Column("table_id", Integer, ForeignKey("tables.id")),
    Column("hand_id", String(64), ForeignKey("hands.id")),
    Column("memo", String(400)),
)

ledger_entries = Table(
    "ledger_entries",
    metadata,
    Column("id", BigId, primary_key=True, autoincrement=True),
    Column("txn_id", BigId, ForeignKey("ledger_transactions.id"), nullable=False, index=True),
    Column("book", String(10), nullable=False),
    Column("account_id", Integer, ForeignKey("accounts.id")),
    Column("table_id", Integer, ForeignKey("tables.id")),
    Column("seat", Integer),
    Column("hand_id", String(64), ForeignKey("hands.id")),
    Column("amount", BigInteger, nullable=False),
    # The tournament of a ``pool`` or ``house`` entry (migration 0007, store/tournaments.py; no
    # foreign key: SQLite cannot add one to an existing table).
    Column("tournament_id", Integer),
    Index("ix_ledger_entries_book_account", "book", "account_id"),
    Index("ix_ledger_entries_hand", "hand_id"),
)

TRANSACTION_KINDS = (
    "grant", "topup", "buy_in", "add_chips", "cash_out", "hand", "contribute", "void",
    "register", "late_register", "reentry", "unregister", "cancel", "payout",
)  # fmt: skip
# ``pool``: a tournament's prize pool (the buy-ins, until paid out); ``house``: the fees it kept.
BOOKS = ("bank", "bankroll", "seat", "pot", "pool", "house")

# Player notes and colour tags (migration 0004, studpoker.store.notes): what one account wrote
# about another player, read by its writer only. ``text`` may be empty when a colour is set.
player_notes = Table(
    "player_notes",
    metadata,
    Column("account_id", Integer, ForeignKey("accounts.id"), primary_key=True),
    Column("player_id", Integer, ForeignKey("accounts.id"), primary_key=True),
    Column("text", Text, nullable=False),
    Column("colour", String(16)),
    Column("updated_at", UTCDateTime, nullable=False),
)

# An account's client preferences (migration 0004): its keyboard shortcuts, JSON
# ``{action: key}``, only the bindings it changed from the defaults.
account_preferences = Table(
    "account_preferences",
    metadata,
    Column("account_id", Integer, ForeignKey("accounts.id"), primary_key=True),
    Column("shortcuts", Text, nullable=False),
    Column("updated_at", UTCDateTime, nullable=False),
)

# Moderation (migration 0005, studpoker.store.moderation). The operator's mute or ban of an
# account (one row per account ever moderated) and the log of those decisions, whose ids tell a
# running server what changed since it last looked.
account_moderation = Table(
    "account_moderation",
    metadata,
    Column("account_id", Integer, ForeignKey("accounts.id"), primary_key=True),
    Column("muted", Boolean, nullable=False, default=False),
    Column("banned", Boolean, nullable=False, default=False),
    Column("reason", String(400)),
    Column("updated_at", UTCDateTime, nullable=False),
)

moderation_log = Table(
    "moderation_log",
    metadata,
    Column("id", BigId, primary_key=True, autoincrement=True),
    Column("account_id", Integer, ForeignKey("accounts.id"), nullable=False),
    # mute, unmute, ban or unban
    Column("action", String(8), nullable=False),
    Column("reason", String(400)),
    Column("created_at", UTCDateTime, nullable=False),
)

# The players an account muted for itself at the tables' chat (its client hides their lines).
chat_mutes = Table(
    "chat_mutes",
    metadata,
    Column("account_id", Integer, ForeignKey("accounts.id"), primary_key=True),
    Column("muted_id", Integer, ForeignKey("accounts.id"), primary_key=True),
    Column("created_at", UTCDateTime, nullable=False),
)

# Chat lines reported to the operator: the text as the server had it, its table and time.
chat_reports = Table(
    "chat_reports",
    metadata,
    Column("id", BigId, primary_key=True, autoincrement=True),
    Column("reporter_id", Integer, ForeignKey("accounts.id"), nullable=False),
    Column("speaker_id", Integer, ForeignKey("accounts.id"), nullable=False),
    Column("table_id", Integer, ForeignKey("tables.id"), nullable=False),
    # The line's number at its table in the run of the server that said it.
    Column("line_id", Integer, nullable=False),
    Column("text", Text, nullable=False),
    Column("said_at", UTCDateTime, nullable=False),
    Column("reason", String(400)),
    Column("created_at", UTCDateTime, nullable=False),
    Index("ix_chat_reports_created_at", "created_at"),
)

# Table ownership in the cluster (migration 0006, studpoker.store.leases, docs/cluster.md): one
# lease per table, its owner a worker id (NULL: unowned) and the epoch each claim raises; the
# times are the database's clock. ``workers``: each live worker's heartbeat.
table_leases = Table(
    "table_leases",
    metadata,
    Column("table_id", Integer, ForeignKey("tables.id"), primary_key=True),
    Column("owner", String(64)),
    Column("epoch", BigInteger, nullable=False, default=0),
    Column("expires_at", UTCDateTime),
)

# Tournament ownership in the cluster (migration 0012, studpoker.store.tournament_leases): one
# lease per tournament, its director and all its tables on the owner; as ``table_leases``.
tournament_leases = Table(
    "tournament_leases",
    metadata,
    Column("tournament_id", Integer, ForeignKey("tournaments.id"), primary_key=True),
    Column("owner", String(64)),
    Column("epoch", BigInteger, nullable=False, default=0),
    Column("expires_at", UTCDateTime),
)

workers = Table(
    "workers",
    metadata,
    Column("id", String(64), primary_key=True),
    Column("started_at", UTCDateTime, nullable=False),
    Column("expires_at", UTCDateTime, nullable=False),
)

# Login attempts counted in the database (migration 0008, studpoker.store.login_attempts): one
# row per attempt, ``key`` the SHA-256 of what it counts, ``at`` by the database's clock, so the
# gateways of a cluster share one login limit.
login_attempts = Table(
    "login_attempts",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("key", String(64), nullable=False),
    Column("at", UTCDateTime, nullable=False),
    Index("ix_login_attempts_key_at", "key", "at"),
)

# Sit-and-go tournaments (migration 0007, studpoker.store.tournaments, docs/tournaments.md).
# ``game``: a game code or a rotation name; ``structure``: a standard structure's name;
# ``clock``: the tournament clock's stored state (JSON); ``status``: registering, running or
# finished. Tournament chips live on ``tournament_entries.stack`` (as of the last finished hand),
# never on the ledger: only the buy-ins, fees and prizes are money.
tournaments = Table(
    "tournaments",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("name", String(60), nullable=False, unique=True),
    Column("game", String(16), nullable=False),
    Column("structure", String(20), nullable=False),
    Column("buy_in", BigInteger, nullable=False),
    Column("fee", BigInteger, nullable=False),
    Column("seats", Integer, nullable=False),
    Column("status", String(12), nullable=False),
    Column("starting_stack", BigInteger, nullable=False),
    Column("clock", Text),
    Column("hands_played", Integer, nullable=False, default=0),
    Column("created_at", UTCDateTime, nullable=False),
    Column("started_at", UTCDateTime),
    Column("finished_at", UTCDateTime),
    # Scheduled tournaments (migration 0009): the start time (NULL: a sit-and-go, started when
    # full), the smallest field it starts with, late registration until the end of level
    # ``late_levels`` (0: none), re-entries allowed, the schedule line it was created from.
    Column("starts_at", UTCDateTime),
    Column("min_players", Integer, nullable=False, server_default="2"),
    Column("late_levels", Integer, nullable=False, server_default="0"),
    Column("reentries", Integer, nullable=False, server_default="0"),
    Column("schedule_key", String(120)),
    # A rotation's hands per game, counted at each table (migration 0010; ``game`` names it).
    Column("hands_per_game", Integer, nullable=False, server_default="8"),
    Index("uq_tournaments_schedule_key", "schedule_key", unique=True),
)

# One row per entry (migration 0009): ``entry_no`` numbers them within the tournament, and a
# re-entry is a new row of the same account.
tournament_entries = Table(
    "tournament_entries",
    metadata,
    Column("tournament_id", Integer, ForeignKey("tournaments.id"), primary_key=True),
    Column("entry_no", Integer, primary_key=True, autoincrement=False),
    Column("account_id", Integer, ForeignKey("accounts.id"), nullable=False),
    Column("registered_at", UTCDateTime, nullable=False),
    Column("table_no", Integer),
    Column("seat", Integer),
    Column("stack", BigInteger, nullable=False, default=0),
    # Set when he busts (or wins): his place, how many share it, what he was paid.
    Column("place", Integer),
    Column("tied", Integer),
    Column("prize", BigInteger, nullable=False, default=0),
    Index("ix_tournament_entries_tournament_id_account_id", "tournament_id", "account_id"),
)

# The hands of the tournament tables: their histories (no ledger rows: tournament chips).
tournament_hands = Table(
    "tournament_hands",
    metadata,
    Column("id", String(64), primary_key=True),
    Column("tournament_id", Integer, ForeignKey("tournaments.id"), nullable=False, index=True),
    Column("table_no", Integer, nullable=False),
    Column("status", String(12), nullable=False),
    Column("level", Integer, nullable=False),
    Column("started_at", UTCDateTime, nullable=False),
    Column("finished_at", UTCDateTime),
    Column("phh", Text),
    Column("text", Text),
    Column("void_reason", String(400)),
    # Who was dealt in, from the start (migration 0011): account id -> [seat, stack], as JSON.
    Column("players", Text),
)
