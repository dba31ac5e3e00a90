"""Reading hands back: hand records (with their seats and histories), a player's or a table's
hands, the recent pots the lobby shows, and the audit of the books.

A player's hands and a hand by its id include his tournament hands
(:mod:`.tournament_hand_reads`: ``HandRecord.tournament`` set, amounts in tournament chips), the
voided ones too, as his voided cash hands are."""

from __future__ import annotations

import asyncio
from collections.abc import Iterable
from datetime import datetime

from sqlalchemy import func, literal, select, union_all
from sqlalchemy.ext.asyncio import AsyncConnection

from . import tournament_hand_reads as tournament_reads
from .audit import run_audit
from .database import Database
from .errors import NotFoundError
from .hands import parse_client_seeds
from .models import AuditReport, HandRecord, HandSeat
from .schema import accounts, hand_seats, hands


async def load_hands(conn: AsyncConnection, ids: Iterable[str]) -> list[HandRecord]:
    """The records of the hands ``ids`` that exist, in that order (two queries in all)."""
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


class Queries:
    """What the room reads about its hands, and the audit."""

    def __init__(self, db: Database) -> None:
        self.db = db

    async def hand(self, hand_id: str) -> HandRecord:
        """A cash hand, or else a tournament hand, by its id."""
        async with self.db.read() as conn:
            found = await load_hands(conn, [hand_id])
            if found:
                return found[0]
            rows = await tournament_reads.read_rows(conn, [hand_id])
            names = await tournament_reads.account_ids(conn, rows)
        if not rows:
            raise NotFoundError(f"no hand {hand_id!r}")
        # Its seats come from replaying its history: CPU work, off the event loop.
        return await asyncio.to_thread(tournament_reads.tournament_record, rows[0], names)

    async def hands_for_account(self, account_id: int, limit: int = 50, offset: int = 0) -> list[HandRecord]:
        """The account's hands (only those he was dealt into), cash and tournament, newest first."""
        async with self.db.read() as conn:
            found = await _hand_ids_of(conn, account_id, max(0, limit), max(0, offset))
            cash = await load_hands(conn, [hand_id for hand_id, tournament in found if not tournament])
            rows = await tournament_reads.read_rows(
                conn, [hand_id for hand_id, tournament in found if tournament]
            )
            names = await tournament_reads.account_ids(conn, rows)
        played = await asyncio.to_thread(lambda: [tournament_reads.tournament_record(r, names) for r in rows])
        by_id = {r.id: r for r in cash}
        # A tournament hand whose history does not name him after all (never seen) is left out.
        by_id.update((r.id, r) for r in played if any(s.account_id == account_id for s in r.seats.values()))
        return [by_id[hand_id] for hand_id, _ in found if hand_id in by_id]

    async def hands_for_table(self, table_id: int, limit: int = 50) -> list[HandRecord]:
        async with self.db.read() as conn:
            ids = (
                await conn.scalars(
                    select(hands.c.id)
                    .where(hands.c.table_id == table_id)
                    .order_by(hands.c.started_at.desc(), hands.c.id.desc())
                    .limit(max(0, limit))
                )
            ).all()
            return await load_hands(conn, list(ids))

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
        async with self.db.read() as conn:
            for row in (await conn.execute(query)).all():
                if row.finished_at is not None:
                    out.setdefault(int(row.table_id), []).append((row.finished_at, int(row.pot)))
        return out

    async def audit(self) -> AuditReport:
        """Check the books in one snapshot; see :func:`studpoker.store.audit.run_audit`."""
        async with self.db.read(snapshot=True) as conn:
            return await run_audit(conn)


async def _hand_ids_of(
    conn: AsyncConnection, account_id: int, limit: int, offset: int
) -> list[tuple[str, bool]]:
    """(id, is a tournament hand) of the account's hands, newest first, one page of them."""
    cash = (
        select(hands.c.id, hands.c.started_at, literal(False).label("tournament"))
        .join(hand_seats, hand_seats.c.hand_id == hands.c.id)
        .where(hand_seats.c.account_id == account_id)
    )
    name = await tournament_reads.account_name(conn, account_id)
    if name is None:
        return []
    mine = tournament_reads.history_naming(account_id, name).subquery()
    both = union_all(cash, select(mine.c.id, mine.c.started_at, literal(True))).subquery()
    query = (
        select(both.c.id, both.c.tournament)
        .order_by(both.c.started_at.desc(), both.c.id.desc())
        .limit(limit)
        .offset(offset)
    )
    return [(str(r.id), bool(r.tournament)) for r in (await conn.execute(query)).all()]
