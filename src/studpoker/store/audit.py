"""The audit: the books balance and the cached balances agree with the ledger.

Checks, each failure adding a line to ``AuditReport.details``:
1. every ledger transaction sums to zero (double entry), and uses only the six books (``schema.BOOKS``);
2. each account's ``bankroll`` equals its ``bankroll`` book, and is not negative;
3. each seat's ``stack`` equals its ``seat`` book, an empty seat holds nothing, and no former
   occupant keeps a balance on a seat;
4. the pot of every finished or void hand is empty; pots of hands in progress are not negative;
   in every finished hand the awards equal the contributions;
5. bankrolls + chips on table seats + chips in unfinished hands + tournament prize pools and
   fees == all grants ever made (minus the ``bank`` book);
6. each tournament's pool holds its entrants' buy-ins (empty once paid out), and a running
   tournament's chips are its entrants' starting stacks (``store/tournaments.py``).

Amounts in the details are money with two decimals (``studpoker.money.format_money``), the one
format of the table, the histories and the command line.
"""

from __future__ import annotations

from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncConnection

from studpoker.money import format_money as _m

from .models import AuditReport
from .schema import BOOKS, accounts, hand_seats, hands, ledger_entries, ledger_transactions, seats
from .tournaments import audit_tournaments

_MAX_DETAILS = 50


# Over the complexity limits: one check per ledger rule, each reported.
async def run_audit(conn: AsyncConnection) -> AuditReport:  # noqa: C901, PLR0912
    details: list[str] = []
    e = ledger_entries

    transactions = int(await conn.scalar(select(func.count()).select_from(ledger_transactions)) or 0)
    entries = int(await conn.scalar(select(func.count()).select_from(e)) or 0)

    # 1. double entry
    for row1 in (
        await conn.execute(
            select(e.c.txn_id, func.sum(e.c.amount).label("total"))
            .group_by(e.c.txn_id)
            .having(func.sum(e.c.amount) != 0)
            .order_by(e.c.txn_id)
            .limit(_MAX_DETAILS)
        )
    ).all():
        details.append(f"ledger transaction {row1.txn_id} sums to {_m(int(row1.total))}, not 0.00")
    for row2 in (
        await conn.execute(
            select(e.c.book, func.count().label("n")).where(e.c.book.not_in(BOOKS)).group_by(e.c.book)
        )
    ).all():
        details.append(f"{row2.n} ledger entries use the unknown book {row2.book!r}")

    books = {
        str(r.book): int(r.total)
        for r in (
            await conn.execute(select(e.c.book, func.sum(e.c.amount).label("total")).group_by(e.c.book))
        ).all()
    }
    grants = -books.get("bank", 0)

    # 2. bankrolls
    ledger_bankrolls = {
        int(r.account_id): int(r.total)
        for r in (
            await conn.execute(
                select(e.c.account_id, func.sum(e.c.amount).label("total"))
                .where(e.c.book == "bankroll")
                .group_by(e.c.account_id)
            )
        ).all()
    }
    bankrolls = 0
    for row3 in (await conn.execute(select(accounts.c.id, accounts.c.name, accounts.c.bankroll))).all():
        cached = int(row3.bankroll)
        bankrolls += cached
        booked = ledger_bankrolls.pop(int(row3.id), 0)
        if cached != booked:
            details.append(
                f"account {row3.id} ({row3.name}): bankroll {_m(cached)}"
                f" but its ledger book says {_m(booked)}"
            )
        if cached < 0:
            details.append(f"account {row3.id} ({row3.name}): negative bankroll {_m(cached)}")
    for account_id, total in ledger_bankrolls.items():
        details.append(f"ledger bankroll book of unknown account {account_id} holds {_m(total)}")

    # 3. seats
    ledger_seats: dict[tuple[int, int], dict[int, int]] = {}
    for r in (
        await conn.execute(
            select(e.c.table_id, e.c.seat, e.c.account_id, func.sum(e.c.amount).label("total"))
            .where(e.c.book == "seat")
            .group_by(e.c.table_id, e.c.seat, e.c.account_id)
        )
    ).all():
        ledger_seats.setdefault((int(r.table_id), int(r.seat)), {})[int(r.account_id)] = int(r.total)
    seat_total = 0
    for row4 in (
        await conn.execute(select(seats.c.table_id, seats.c.seat, seats.c.account_id, seats.c.stack))
    ).all():
        key = (int(row4.table_id), int(row4.seat))
        stack = int(row4.stack)
        seat_total += stack
        by_account = ledger_seats.pop(key, {})
        where = f"table {key[0]} seat {key[1]}"
        if row4.account_id is None:
            if stack:
                details.append(f"{where} is empty but holds {_m(stack)}")
        else:
            booked = by_account.pop(int(row4.account_id), 0)
            if stack != booked:
                details.append(f"{where}: stack {_m(stack)} but its ledger book says {_m(booked)}")
        if stack < 0:
            details.append(f"{where}: negative stack {_m(stack)}")
        for account_id, total in by_account.items():
            if total:
                details.append(f"{where}: former occupant {account_id} still has {_m(total)} in the ledger")
    for (table_id, seat), by_account in ledger_seats.items():
        details.append(
            f"ledger seat book of unknown table {table_id} seat {seat} holds {_m(sum(by_account.values()))}"
        )

    # 4. pots
    in_hands = 0
    for row5 in (
        await conn.execute(
            select(hands.c.id, hands.c.status, func.sum(e.c.amount).label("total"))
            .join(e, (e.c.hand_id == hands.c.id) & (e.c.book == "pot"))
            .group_by(hands.c.id, hands.c.status)
            .having(func.sum(e.c.amount) != 0)
        )
    ).all():
        total = int(row5.total)
        if row5.status == "in_progress" and total > 0:
            in_hands += total
        else:
            details.append(f"hand {row5.id} ({row5.status}) has {_m(total)} left in its pot")
    for row6 in (
        await conn.execute(
            select(
                hands.c.id,
                func.sum(hand_seats.c.contribution).label("put"),
                func.sum(hand_seats.c.award).label("won"),
            )
            .join(hand_seats, hand_seats.c.hand_id == hands.c.id)
            .where(hands.c.status == "finished")
            .group_by(hands.c.id)
            .having(func.sum(hand_seats.c.contribution) != func.sum(hand_seats.c.award))
            .limit(_MAX_DETAILS)
        )
    ).all():
        won, put = _m(int(row6.won)), _m(int(row6.put))
        details.append(f"hand {row6.id}: awards {won} differ from contributions {put}")

    # 6. tournaments (their pools and fees count in the invariant)
    in_tournaments, tournament_details = await audit_tournaments(conn)
    details.extend(tournament_details)

    # 5. the invariant
    held = bankrolls + seat_total + in_hands + in_tournaments
    if held != grants:
        details.append(
            f"bankrolls {_m(bankrolls)} + seats {_m(seat_total)} + open pots {_m(in_hands)}"
            f" + tournament pools and fees {_m(in_tournaments)} = {_m(held)},"
            f" but grants ever made = {_m(grants)} (difference {_m(held - grants)})"
        )
    return AuditReport(
        balanced=not details,
        grants=grants,
        bankrolls=bankrolls,
        seats=seat_total,
        in_hands=in_hands,
        transactions=transactions,
        entries=entries,
        details=details,
    )
