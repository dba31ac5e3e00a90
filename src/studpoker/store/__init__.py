"""Persistence for the room: accounts, sessions, play-money bankrolls, a double-entry chip ledger,
tables and seats, hand records with their histories and deck commitments. See docs/store.md.

    store = await Store.open("sqlite+aiosqlite:///studpoker.sqlite3")
    account = await store.register("alice", "correct horse")
"""

from __future__ import annotations

from .core import DEFAULT_GRANT, DEFAULT_URL, Store, canonical_order, database_url, make_engine
from .errors import (
    AuthError,
    InsufficientFundsError,
    InvalidInputError,
    NameTakenError,
    NotFoundError,
    StoreError,
)
from .models import (
    GAMES,
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

__all__ = [
    "DEFAULT_GRANT",
    "DEFAULT_URL",
    "GAMES",
    "Account",
    "AuditReport",
    "AuthError",
    "DealSeeds",
    "HandRecord",
    "HandSeat",
    "InsufficientFundsError",
    "InvalidInputError",
    "NameTakenError",
    "NotFoundError",
    "SeatRecord",
    "Session",
    "Store",
    "StoreError",
    "TableConfig",
    "TableRecord",
    "canonical_order",
    "database_url",
    "make_engine",
]
