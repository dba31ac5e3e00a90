"""Persistence for the room: accounts, sessions, play-money bankrolls, a double-entry chip ledger,
tables and seats, hand records with their histories and deck commitments. See docs/store.md.

    store = await Store.open("sqlite+aiosqlite:///studpoker.sqlite3")
    account = await store.register("alice", "correct horse")
"""

from __future__ import annotations

from .core import DEFAULT_GRANT, DEFAULT_URL, Store, WriteOp, canonical_order, database_url, make_engine
from .errors import (
    AlreadySeatedError,
    AuthError,
    BadBuyInError,
    BusyError,
    HandStateError,
    InsufficientFundsError,
    InvalidInputError,
    LeaseLost,
    LimitError,
    NameTakenError,
    NotFoundError,
    NotYourSeatError,
    SeatInHandError,
    SeatTakenError,
    SettlementError,
    StoreError,
    StoreInternalError,
)
from .leases import Fence, Lease, Takeover
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
    "AlreadySeatedError",
    "AuditReport",
    "AuthError",
    "BadBuyInError",
    "BusyError",
    "DealSeeds",
    "Fence",
    "HandRecord",
    "HandSeat",
    "HandStateError",
    "InsufficientFundsError",
    "InvalidInputError",
    "Lease",
    "LeaseLost",
    "LimitError",
    "NameTakenError",
    "NotFoundError",
    "NotYourSeatError",
    "SeatInHandError",
    "SeatRecord",
    "SeatTakenError",
    "Session",
    "SettlementError",
    "Store",
    "StoreError",
    "StoreInternalError",
    "TableConfig",
    "TableRecord",
    "Takeover",
    "WriteOp",
    "canonical_order",
    "database_url",
    "make_engine",
]
