"""Tables and seats: creating tables, buying in, adding chips and cashing out (bankroll <-> seat,
each one ledger transaction), and who sits where."""

from __future__ import annotations

from typing import Any

from sqlalchemy import insert, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncConnection

from . import ledger
from .accounts import load_account
from .database import Database, new_id
from .errors import (
    AlreadySeatedError,
    BadBuyInError,
    InvalidInputError,
    NameTakenError,
    NotFoundError,
    NotYourSeatError,
    SeatInHandError,
    SeatTakenError,
)
from .leases import Fence, check_fence
from .models import SeatRecord, TableConfig, TableRecord
from .schema import accounts, hand_seats, hands, seats, tables

TABLE_FIELDS = (
    "name", "game", "small_bet", "big_bet", "ante", "bring_in", "small_blind", "big_blind",
    "max_seats", "min_buy_in", "max_buy_in", "think_seconds", "countdown_seconds", "house",
)  # fmt: skip


def table_record(row: Any) -> TableRecord:
    mapping = row._mapping
    return TableRecord(int(mapping["id"]), TableConfig(**{key: mapping[key] for key in TABLE_FIELDS}))


async def load_table(conn: AsyncConnection, table_id: int) -> TableRecord:
    """The table; :class:`NotFoundError` if there is none."""
    row = (await conn.execute(select(tables).where(tables.c.id == table_id))).first()
    if row is None:
        raise NotFoundError(f"no table with id {table_id!r}")
    return table_record(row)


async def lock_seat(conn: AsyncConnection, table_id: int, seat: int) -> Any:
    """The seat's row (``account_id``, ``stack``), locked; :class:`NotFoundError` if there is none."""
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


async def _check_not_in_hand(conn: AsyncConnection, table_id: int, seat: int, what: str) -> None:
    busy = await conn.scalar(
        select(hands.c.id)
        .join(hand_seats, hand_seats.c.hand_id == hands.c.id)
        .where(hands.c.table_id == table_id, hands.c.status == "in_progress", hand_seats.c.seat == seat)
        .limit(1)
    )
    if busy is not None:
        raise SeatInHandError(f"cannot {what} during hand {busy}: wait until it is over")


async def _seat_record(conn: AsyncConnection, table_id: int, seat: int) -> SeatRecord:
    row = (
        await conn.execute(
            select(seats.c.account_id, seats.c.stack, accounts.c.name)
            .join(accounts, accounts.c.id == seats.c.account_id)
            .where(seats.c.table_id == table_id, seats.c.seat == seat)
        )
    ).one()
    return SeatRecord(table_id, seat, int(row.account_id), str(row.name), int(row.stack))


async def occupied_seats(conn: AsyncConnection, table_id: int) -> dict[int, SeatRecord]:
    """The table's occupied seats (who sits there, with what), in the caller's transaction."""
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


async def _own_seat(
    conn: AsyncConnection, account_id: int, table_id: int, seat: int
) -> tuple[TableRecord, int]:
    """The table and the seat's stack, the account and seat rows locked; :class:`NotYourSeatError`
    unless the account holds the seat."""
    table = await load_table(conn, table_id)
    # Lock order everywhere: the account row, then seat rows (no deadlocks on PostgreSQL).
    await load_account(conn, account_id, lock=True)
    row = await lock_seat(conn, table_id, seat)
    if row.account_id != account_id:
        raise NotYourSeatError(f"seat {seat} at {table.name!r} is not yours")
    return table, int(row.stack)


class Tables:
    """The tables of the room and the chips on their seats."""

    def __init__(self, db: Database) -> None:
        self.db = db

    async def create_table(self, config: TableConfig) -> TableRecord:
        """Store a new table with ``max_seats`` empty seats (numbered from 1)."""
        config.validate()
        try:
            async with self.db.write() as conn:
                taken = await conn.scalar(select(tables.c.id).where(tables.c.name == config.name))
                if taken is not None:
                    raise NameTakenError(f"a table named {config.name!r} exists")
                values = {key: getattr(config, key) for key in TABLE_FIELDS}
                result = await conn.execute(insert(tables).values(**values, created_at=self.db.now()))
                table_id = new_id(result)
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

    async def list_tables(self) -> list[TableRecord]:
        async with self.db.read() as conn:
            rows = (await conn.execute(select(tables).order_by(tables.c.id))).all()
        return [table_record(row) for row in rows]

    async def table(self, table_id: int) -> TableRecord:
        async with self.db.read() as conn:
            return await load_table(conn, table_id)

    async def table_by_name(self, name: str) -> TableRecord | None:
        async with self.db.read() as conn:
            row = (await conn.execute(select(tables).where(tables.c.name == name))).first()
        return None if row is None else table_record(row)

    async def buy_in(
        self, account_id: int, table_id: int, seat: int, amount: int, *, fence: Fence | None = None
    ) -> SeatRecord:
        """Take an empty seat with ``amount`` from the bankroll (within the table's buy-in limits).
        A taken seat is :class:`SeatTakenError`, a second seat at the table :class:`AlreadySeatedError`.
        ``fence``: the table owner's lease in the cluster (studpoker.store.leases): the write is
        refused with :class:`LeaseLost` unless the owner still holds it."""
        ledger.check_amount(amount, "buy-in", BadBuyInError)
        async with self.db.write() as conn:
            if fence is not None:
                await check_fence(conn, fence, table_id)
            config = (await load_table(conn, table_id)).config
            if not isinstance(seat, int) or not 1 <= seat <= config.max_seats:
                raise InvalidInputError(
                    f"table {config.name!r} has seats 1 to {config.max_seats}, not {seat!r}"
                )
            if not config.min_buy_in <= amount <= config.max_buy_in:
                raise BadBuyInError(
                    f"buy-in at {config.name!r} must be from {config.min_buy_in}"
                    f" to {config.max_buy_in} units, not {amount}"
                )
            await load_account(conn, account_id, lock=True)
            row = await lock_seat(conn, table_id, seat)
            if row.account_id is not None:
                raise SeatTakenError(f"seat {seat} at {config.name!r} is taken")
            already = await conn.scalar(
                select(seats.c.seat).where(seats.c.table_id == table_id, seats.c.account_id == account_id)
            )
            if already is not None:
                raise AlreadySeatedError(f"you already sit in seat {already} at {config.name!r}")
            await ledger.debit_bankroll(conn, account_id, amount)
            await conn.execute(
                update(seats)
                .where(seats.c.table_id == table_id, seats.c.seat == seat)
                .values(account_id=account_id, stack=amount)
            )
            await ledger.post(
                conn,
                self.db.now(),
                "buy_in",
                [ledger.bankroll(account_id, -amount), ledger.seat(table_id, seat, account_id, amount)],
                account_id=account_id,
                table_id=table_id,
            )
            return await _seat_record(conn, table_id, seat)

    async def add_chips(
        self, account_id: int, table_id: int, seat: int, amount: int, *, fence: Fence | None = None
    ) -> SeatRecord:
        """Top up a seat from the bankroll between hands; the stack may not pass the maximum buy-in.
        ``fence``: as for :meth:`buy_in`."""
        ledger.check_amount(amount, "amount", BadBuyInError)
        async with self.db.write() as conn:
            if fence is not None:
                await check_fence(conn, fence, table_id)
            table, stack = await _own_seat(conn, account_id, table_id, seat)
            await _check_not_in_hand(conn, table_id, seat, "add chips")
            if stack + amount > table.config.max_buy_in:
                raise BadBuyInError(
                    f"a stack at {table.name!r} may hold at most {table.config.max_buy_in} units:"
                    f" you can add up to {max(0, table.config.max_buy_in - stack)}"
                )
            await ledger.debit_bankroll(conn, account_id, amount)
            await conn.execute(
                update(seats)
                .where(seats.c.table_id == table_id, seats.c.seat == seat)
                .values(stack=seats.c.stack + amount)
            )
            await ledger.post(
                conn,
                self.db.now(),
                "add_chips",
                [ledger.bankroll(account_id, -amount), ledger.seat(table_id, seat, account_id, amount)],
                account_id=account_id,
                table_id=table_id,
            )
            return await _seat_record(conn, table_id, seat)

    async def cash_out(self, account_id: int, table_id: int, seat: int, *, fence: Fence | None = None) -> int:
        """Leave the seat: its whole stack goes back to the bankroll. Returns the amount.
        ``fence``: as for :meth:`buy_in`."""
        async with self.db.write() as conn:
            if fence is not None:
                await check_fence(conn, fence, table_id)
            _, stack = await _own_seat(conn, account_id, table_id, seat)
            await _check_not_in_hand(conn, table_id, seat, "leave the table")
            await conn.execute(
                update(seats)
                .where(seats.c.table_id == table_id, seats.c.seat == seat)
                .values(account_id=None, stack=0)
            )
            if stack:
                await ledger.credit_bankroll(conn, account_id, stack)
                await ledger.post(
                    conn,
                    self.db.now(),
                    "cash_out",
                    [ledger.seat(table_id, seat, account_id, -stack), ledger.bankroll(account_id, stack)],
                    account_id=account_id,
                    table_id=table_id,
                )
        return stack

    async def seats(self, table_id: int) -> dict[int, SeatRecord]:
        """The occupied seats of a table."""
        async with self.db.read() as conn:
            await load_table(conn, table_id)
            return await occupied_seats(conn, table_id)

    async def seats_of_account(self, account_id: int) -> list[SeatRecord]:
        """Every seat the account holds, at any table."""
        async with self.db.read() as conn:
            rows = (
                await conn.execute(
                    select(seats.c.table_id, seats.c.seat, seats.c.stack, accounts.c.name)
                    .join(accounts, accounts.c.id == seats.c.account_id)
                    .where(seats.c.account_id == account_id)
                    .order_by(seats.c.table_id)
                )
            ).all()
        return [SeatRecord(int(r.table_id), int(r.seat), account_id, str(r.name), int(r.stack)) for r in rows]
