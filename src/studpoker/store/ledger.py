"""The double-entry chip ledger: its entries, posting a transaction, and the cached balances
(``accounts.bankroll``, ``seats.stack``) moved in the same transaction as the ledger rows.

Every chip movement is one ``ledger_transactions`` row and entries that sum to zero, each on one
of four books: ``bank`` (minus every grant), ``bankroll``, ``seat`` and ``pot`` (docs/store.md).
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any

from sqlalchemy import bindparam, insert, select, update
from sqlalchemy.ext.asyncio import AsyncConnection

from .database import new_id
from .errors import InsufficientFundsError, InvalidInputError, StoreInternalError
from .schema import TRANSACTION_KINDS, accounts, ledger_entries, ledger_transactions, seats

Entry = dict[str, Any]


def check_amount(
    amount: object, what: str = "amount", error: type[InvalidInputError] = InvalidInputError
) -> int:
    """``amount`` if it is a whole number of units above 0, else ``error``."""
    if not isinstance(amount, int) or isinstance(amount, bool) or amount <= 0:
        raise error(f"{what} must be a whole number of units above 0, not {amount!r}")
    return amount


def check_chips(mapping: Mapping[int, int], what: str) -> dict[int, int]:
    """Seat -> chips, each a whole number >= 0, else :class:`InvalidInputError`."""
    out: dict[int, int] = {}
    for seat, chips in mapping.items():
        if not isinstance(chips, int) or isinstance(chips, bool) or chips < 0:
            raise InvalidInputError(f"{what} for seat {seat} must be a whole number >= 0, not {chips!r}")
        out[int(seat)] = chips
    return out


def bank(amount: int) -> Entry:
    return {
        "book": "bank", "account_id": None, "table_id": None, "seat": None, "hand_id": None,
        "amount": amount,
    }  # fmt: skip


def bankroll(account_id: int, amount: int) -> Entry:
    return {
        "book": "bankroll", "account_id": account_id, "table_id": None, "seat": None,
        "hand_id": None, "amount": amount,
    }  # fmt: skip


def seat(table_id: int, seat: int, account_id: int, amount: int) -> Entry:
    return {
        "book": "seat", "account_id": account_id, "table_id": table_id, "seat": seat,
        "hand_id": None, "amount": amount,
    }  # fmt: skip


def pot(hand_id: str, table_id: int, seat: int, account_id: int, amount: int) -> Entry:
    return {
        "book": "pot", "account_id": account_id, "table_id": table_id, "seat": seat,
        "hand_id": hand_id, "amount": amount,
    }  # fmt: skip


async def post(
    conn: AsyncConnection,
    now: datetime,
    kind: str,
    entries: list[Entry],
    *,
    account_id: int | None = None,
    table_id: int | None = None,
    hand_id: str | None = None,
    memo: str | None = None,
) -> int:
    """Write one ledger transaction (its entries of 0 left out); they must sum to zero."""
    if kind not in TRANSACTION_KINDS:  # pragma: no cover - a bug in the store
        raise StoreInternalError(f"internal error: unknown ledger transaction kind {kind!r}")
    entries = [e for e in entries if e["amount"] != 0]
    if sum(e["amount"] for e in entries) != 0:  # pragma: no cover - a bug in the store
        raise StoreInternalError(f"internal error: ledger transaction {kind} does not balance")
    result = await conn.execute(
        insert(ledger_transactions).values(
            kind=kind,
            created_at=now,
            account_id=account_id,
            table_id=table_id,
            hand_id=hand_id,
            memo=memo,
        )
    )
    txn_id = new_id(result)
    if entries:
        await conn.execute(insert(ledger_entries), [{**e, "txn_id": txn_id} for e in entries])
    return txn_id


async def debit_bankroll(conn: AsyncConnection, account_id: int, amount: int) -> None:
    """Take ``amount`` from the cached bankroll; :class:`InsufficientFundsError` if it holds less."""
    result = await conn.execute(
        update(accounts)
        .where(accounts.c.id == account_id, accounts.c.bankroll >= amount)
        .values(bankroll=accounts.c.bankroll - amount)
    )
    if result.rowcount != 1:
        have = await conn.scalar(select(accounts.c.bankroll).where(accounts.c.id == account_id))
        raise InsufficientFundsError(f"the bankroll holds {have} units, not the {amount} asked for")


async def credit_bankroll(conn: AsyncConnection, account_id: int, amount: int) -> None:
    await conn.execute(
        update(accounts).where(accounts.c.id == account_id).values(bankroll=accounts.c.bankroll + amount)
    )


async def move_seats(conn: AsyncConnection, table_id: int, deltas: Mapping[int, int]) -> None:
    """Add each delta to its seat's cached stack (one batched ``UPDATE``)."""
    if not deltas:
        return
    await conn.execute(
        update(seats)
        .where(seats.c.table_id == bindparam("t"), seats.c.seat == bindparam("s"))
        .values(stack=seats.c.stack + bindparam("d")),
        [{"t": table_id, "s": s, "d": delta} for s, delta in sorted(deltas.items())],
    )
