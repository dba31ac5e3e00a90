"""The money of tournaments beyond a registration: late entries and re-entries (a buy-in while
it runs), the refunds of a cancelled tournament, and the audit's check of pools and chips.

Every buy-in is one ledger transaction: ``buy_in + fee`` from the bankroll, the buy-in to the
tournament's ``pool`` book and the fee to the ``house`` book; a refund is its reverse. Tournament
chips are not money: an entry's starting stack is written on its row, and the audit checks that
the chips of a running tournament add up to its entries' starting stacks.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import func, insert, select, update
from sqlalchemy.ext.asyncio import AsyncConnection

from studpoker.money import format_money as _m

from . import ledger
from .accounts import load_account
from .schema import ledger_entries, tournament_entries, tournaments
from .tournament_records import (
    TournamentRecord,
    TournamentStateError,
    bankroll,
    house,
    load,
    load_entries,
    pool,
    pool_balance,
    record_of,
    require,
)


async def buy_in(
    conn: AsyncConnection, now: datetime, record: TournamentRecord, account_id: int, kind: str
) -> None:
    """``buy_in + fee`` from the bankroll to the pool and the house (refused, changing nothing,
    when the bankroll is short: the caller's transaction is rolled back)."""
    await _move(conn, now, record, account_id, kind, paid_in=True)


async def refund(
    conn: AsyncConnection, now: datetime, record: TournamentRecord, account_id: int, kind: str
) -> None:
    """One buy-in back to the bankroll: the buy-in out of the pool, the fee out of the house."""
    await _move(conn, now, record, account_id, kind, paid_in=False)


async def _move(
    conn: AsyncConnection,
    now: datetime,
    record: TournamentRecord,
    account_id: int,
    kind: str,
    *,
    paid_in: bool,
) -> None:
    await load_account(conn, account_id, lock=True)
    cost = record.buy_in + record.fee
    if paid_in:
        await ledger.debit_bankroll(conn, account_id, cost)
    else:
        await ledger.credit_bankroll(conn, account_id, cost)
    sign = 1 if paid_in else -1
    entries = [
        bankroll(account_id, -sign * cost),
        pool(record.id, account_id, sign * record.buy_in),
        house(record.id, sign * record.fee),
    ]
    await ledger.post(conn, now, kind, entries, account_id=account_id, memo=f"tournament {record.id}")


async def next_entry_no(conn: AsyncConnection, tournament_id: int) -> int:
    e = tournament_entries
    last = await conn.scalar(
        select(func.coalesce(func.max(e.c.entry_no), 0)).where(e.c.tournament_id == tournament_id)
    )
    return int(last or 0) + 1


async def enter_late(
    conn: AsyncConnection, now: datetime, tournament_id: int, account_id: int, *, table_no: int, seat: int
) -> TournamentRecord:
    """A new entry while the tournament runs (R-TOURNAMENT-LATE-REGISTRATION): a player's
    first, or a re-entry once his latest entry is out (R-TOURNAMENT-REENTRY-LIMIT), at ``(table_no,
    seat)`` with the starting stack. Every entry already out finishes one place lower: the new
    entry outlasts it. Whether late registration is still open (the clock) is the caller's."""
    record = await load(conn, tournament_id, lock=True)
    require(record, "running", "enter")
    if record.late_levels == 0:
        raise TournamentStateError(f"{record.name!r} has no late registration")
    if len(record.entries) >= record.seats:
        raise TournamentStateError(f"{record.name!r} is full ({record.seats} entries)")
    mine = record.entries_of(account_id)
    latest = record.entry(account_id)
    if latest is not None:
        if latest.place is None:
            raise TournamentStateError(f"you are still in {record.name!r}")
        if len(mine) > record.reentries:
            allowed = "no re-entry" if record.reentries == 0 else f"{record.reentries} re-entries at most"
            raise TournamentStateError(f"{record.name!r} allows {allowed}")
    await buy_in(conn, now, record, account_id, "reentry" if mine else "late_register")
    e = tournament_entries
    await conn.execute(
        update(e)
        .where(e.c.tournament_id == tournament_id, e.c.place.is_not(None))
        .values(place=e.c.place + 1)
    )
    await conn.execute(
        insert(e).values(
            tournament_id=tournament_id, entry_no=await next_entry_no(conn, tournament_id),
            account_id=account_id, registered_at=now, table_no=table_no, seat=seat,
            stack=record.starting_stack, prize=0,
        )
    )  # fmt: skip
    return await load(conn, tournament_id)


async def cancel(conn: AsyncConnection, now: datetime, tournament_id: int) -> TournamentRecord:
    """Below its smallest field at the start time (R-TOURNAMENT-SCHEDULED-CANCEL): every entry's
    buy-in and fee back to its bankroll, the tournament cancelled (its pool empty)."""
    record = await load(conn, tournament_id, lock=True)
    require(record, "registering", "cancel")
    for entry in record.entries:
        await refund(conn, now, record, entry.account_id, "cancel")
    await conn.execute(
        update(tournaments)
        .where(tournaments.c.id == tournament_id)
        .values(status="cancelled", finished_at=now)
    )
    return await load(conn, tournament_id)


async def audit_tournaments(conn: AsyncConnection) -> tuple[int, list[str]]:
    """The money held in tournament pools and house fees, and what is wrong: a finished or
    cancelled tournament's pool not empty, a pool not its entries' buy-ins, a running
    tournament's chips not its entries' starting stacks (the audit's check 6)."""
    details: list[str] = []
    e = ledger_entries
    held = int(
        await conn.scalar(
            select(func.coalesce(func.sum(e.c.amount), 0)).where(e.c.book.in_(("pool", "house")))
        )
        or 0
    )
    for row in (await conn.execute(select(tournaments))).all():
        record = record_of(row, await load_entries(conn, int(row.id)))
        balance = await pool_balance(conn, record.id)
        expected = 0 if record.status in ("finished", "cancelled") else record.prize_pool
        if balance != expected:
            details.append(
                f"tournament {record.id} ({record.status}): its pool holds {_m(balance)}, not {_m(expected)}"
            )
        if record.status == "running":
            chips = sum(entry.stack for entry in record.entries)
            if chips != record.starting_stack * len(record.entries):
                details.append(
                    f"tournament {record.id}: {chips} chips in play, not"
                    f" {record.starting_stack * len(record.entries)} ({len(record.entries)} entries)"
                )
    return held, details
