"""Per-address budgets of free play money: how many new accounts (each one a starting grant) and
how many daily top-ups one client address may claim per UTC day.

The counts live in ``address_budgets``, one row per address per day, so they hold across
restarts and across processes sharing a PostgreSQL database. A claim is one conditional
``UPDATE ... SET n = n + 1 WHERE n < limit`` in the transaction that pays the grant: on SQLite
the writes are serialized, on PostgreSQL the row lock makes concurrent claims wait and then
re-check the condition, so no more than the budget is ever paid, however many ask at once.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Literal

from sqlalchemy import delete, select, update
from sqlalchemy.dialects.postgresql import insert as postgresql_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.ext.asyncio import AsyncConnection

from .errors import InvalidInputError, LimitError
from .schema import address_budgets

Kind = Literal["accounts", "topups"]
_WHAT = {"accounts": "new accounts", "topups": "daily top-ups"}


@dataclass(frozen=True, slots=True)
class AddressBudget:
    """At most ``per_day`` claims of a kind per UTC day from ``address`` (the server's address
    key: an IPv4 address or an IPv6 /64)."""

    address: str
    per_day: int

    def __post_init__(self) -> None:
        if not isinstance(self.address, str) or not 0 < len(self.address) <= 64:
            raise InvalidInputError("an address budget needs an address key of 1 to 64 characters")


async def spent(conn: AsyncConnection, budget: AddressBudget, kind: Kind, day: str) -> int:
    """Claims of ``kind`` already made on ``day`` from the budget's address."""
    count = await conn.scalar(
        select(address_budgets.c[kind]).where(
            address_budgets.c.address == budget.address, address_budgets.c.day == day
        )
    )
    return int(count or 0)


async def check_left(conn: AsyncConnection, budget: AddressBudget, kind: Kind, now: datetime) -> None:
    """:class:`LimitError` if the budget is spent today (a read: the claim itself is :func:`claim`)."""
    if await spent(conn, budget, kind, now.date().isoformat()) >= budget.per_day:
        raise spent_error(budget, kind, now)


async def claim(conn: AsyncConnection, budget: AddressBudget, kind: Kind, day: str) -> bool:
    """Count one claim of ``kind`` for today; False (nothing counted) when the budget is spent."""
    if budget.per_day <= 0:
        return False
    dialect_insert = postgresql_insert if conn.dialect.name == "postgresql" else sqlite_insert
    created = await conn.execute(
        dialect_insert(address_budgets)
        .values(address=budget.address, day=day, accounts=0, topups=0)
        .on_conflict_do_nothing()
    )
    if created.rowcount == 1:  # the address's first claim today: the days before are done with
        await conn.execute(delete(address_budgets).where(address_budgets.c.day < day))
    column = address_budgets.c[kind]
    counted = await conn.execute(
        update(address_budgets)
        .where(
            address_budgets.c.address == budget.address,
            address_budgets.c.day == day,
            column < budget.per_day,
        )
        .values({kind: column + 1})
    )
    return counted.rowcount == 1


def spent_error(budget: AddressBudget, kind: Kind, now: datetime) -> LimitError:
    """The error for a spent budget, with the seconds until the next UTC day."""
    tomorrow = datetime.combine(now.date() + timedelta(days=1), datetime.min.time(), tzinfo=now.tzinfo)
    return LimitError(
        f"your address has had its {budget.per_day} {_WHAT[kind]} for today: try again tomorrow (UTC)",
        retry_after=max(1.0, (tomorrow - now).total_seconds()),
    )
