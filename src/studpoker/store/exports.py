"""Stored hands written out in bulk: the operator's ``studpoker export`` and a player's
``GET /api/me/hands`` both read the finished hands a page at a time and write each one again,
as PHH or as PokerStars text, either whole (the operator's) or as one seat saw it.

Each hand is replayed through the engine from its stored PHH (with its table's house switches)
and checked against the stacks the ledger settled before it is written, with the notes its PHH
keeps (the time bank a decision used, the timeouts), as a player's copy of one hand has them.
Both hold the tournament hands too, after the cash ones (:func:`written_hands`, ``kind``),
written in tournament chips: PokerStars with its tournament header, PHH with the tournament as
its ``event``.
"""

from __future__ import annotations

import asyncio
import datetime
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from typing import Literal

from . import tournament_hand_reads as tournament_reads
from .core import Store
from .models import HandRecord, TableRecord

Format = Literal["phh", "pokerstars"]
FORMATS: tuple[Format, ...] = ("phh", "pokerstars")
# Which hands: the cash tables', the tournaments', or both (cash first).
Kind = Literal["cash", "tournament", "all"]
KINDS: tuple[Kind, ...] = ("cash", "tournament", "all")

# Hands are read from the database this many at a time (memory stays flat on a big room).
PAGE = 500


async def finished_hand_ids(
    store: Store, account_id: int | None, since: datetime.datetime | None
) -> AsyncIterator[str]:
    """Finished hands (the account's only, when given) by table, then by start time, a page at a
    time (keyset pagination)."""
    from sqlalchemy import select, tuple_

    from .schema import hand_seats, hands

    query = select(hands.c.table_id, hands.c.started_at, hands.c.id).where(hands.c.status == "finished")
    if since is not None:
        query = query.where(hands.c.started_at >= since)
    if account_id is not None:
        mine = select(hand_seats.c.hand_id).where(hand_seats.c.account_id == account_id)
        query = query.where(hands.c.id.in_(mine))
    query = query.order_by(hands.c.table_id, hands.c.started_at, hands.c.id)
    last: tuple[int, datetime.datetime, str] | None = None
    while True:
        page = (
            query
            if last is None
            else query.where(tuple_(hands.c.table_id, hands.c.started_at, hands.c.id) > last)
        )
        async with store.engine.connect() as conn:
            rows = (await conn.execute(page.limit(PAGE))).all()
        for row in rows:
            yield str(row.id)
        if len(rows) < PAGE:
            return
        last = (rows[-1].table_id, rows[-1].started_at, rows[-1].id)


async def finished_tournament_hand_ids(
    store: Store, account_id: int | None, since: datetime.datetime | None
) -> AsyncIterator[str]:
    """Finished tournament hands (the account's only, when given) by tournament, table and
    start time, a page at a time (keyset pagination)."""
    from sqlalchemy import select, tuple_

    from .schema import tournament_hands as th

    if account_id is None:
        every = select(th.c.id, th.c.started_at, th.c.tournament_id, th.c.table_no)
        mine = every.where(th.c.status == "finished").subquery()
    else:
        async with store.engine.connect() as conn:
            name = await tournament_reads.account_name(conn, account_id)
        if name is None:
            return
        mine = tournament_reads.hands_naming(account_id, name).subquery()
    key = tuple_(mine.c.tournament_id, mine.c.table_no, mine.c.started_at, mine.c.id)
    query = select(mine.c.id, mine.c.started_at, mine.c.tournament_id, mine.c.table_no)
    if since is not None:
        query = query.where(mine.c.started_at >= since)
    query = query.order_by(mine.c.tournament_id, mine.c.table_no, mine.c.started_at, mine.c.id)
    last: tuple[int, int, datetime.datetime, str] | None = None
    while True:
        async with store.engine.connect() as conn:
            page = query if last is None else query.where(key > last)
            rows = (await conn.execute(page.limit(PAGE))).all()
        for row in rows:
            yield str(row.id)
        if len(rows) < PAGE:
            return
        last = (rows[-1].tournament_id, rows[-1].table_no, rows[-1].started_at, rows[-1].id)


@dataclass(frozen=True, slots=True)
class Written:
    """One stored hand written out: its text, or why it could not be (``error``)."""

    record: HandRecord
    table: TableRecord | None
    text: str | None
    error: str | None = None


async def written_hands(
    store: Store, fmt: Format, account_id: int | None, since: datetime.datetime | None, kind: Kind = "all"
) -> AsyncIterator[Written]:
    """The finished hands of ``kind`` (the account's, as he saw them, when given; else every
    card), cash ones first by table, then tournament ones by tournament and table, each in the
    order it was played. The replays run off the event loop, one hand at a time."""
    sources: list[Callable[[Store, int | None, datetime.datetime | None], AsyncIterator[str]]] = []
    if kind in ("cash", "all"):
        sources.append(finished_hand_ids)
    if kind in ("tournament", "all"):
        sources.append(finished_tournament_hand_ids)
    tables: dict[int, TableRecord] = {}
    for hand_ids in sources:
        async for hand_id in hand_ids(store, account_id, since):
            record = await store.hand(hand_id)
            table: TableRecord | None = None
            try:
                if record.tournament is not None:  # its table is in its own history
                    table = await table_of(store, record)
                else:
                    if record.table_id not in tables:
                        tables[record.table_id] = await store.table(record.table_id)
                    table = tables[record.table_id]
                text = await asyncio.to_thread(write_hand, record, table, fmt, account_id)
            except ValueError as exc:
                yield Written(record, table, None, str(exc))
                continue
            yield Written(record, table, text)


async def table_of(store: Store, record: HandRecord) -> TableRecord:
    """The table a stored hand was dealt at: a cash table's record, or the tournament table its
    history describes."""
    if record.tournament is not None:
        return tournament_reads.tournament_table(record)
    return await store.table(record.table_id)


def write_hand(record: HandRecord, table: TableRecord, fmt: Format, account_id: int | None) -> str:
    """The text of one stored hand: every card (``account_id`` None: the room's record) or as
    that account saw it from his seat. ``ValueError`` when it cannot be written."""
    from studpoker.games import get_game
    from studpoker.history.phh import EVERY_CARD, finishing_stacks, hand_to_phh, loads, replay_with_time_banks
    from studpoker.history.pokerstars import Tournament, pokerstars_history

    if not record.phh:
        raise ValueError("it was stored without its PHH history")
    (phh,) = loads(record.phh, source=f"hand {record.id}")
    game = get_game(phh.game_code)
    house = game.default_house.with_overrides(table.config.house.split()) if table.config.house else None
    # The notes the stored PHH keeps (time banks, timeouts) come back with the replay, and are
    # written again as a player's own copy of the hand writes them (server/hand_views.py).
    replayed = replay_with_time_banks(phh, house=house)
    hand = replayed.hand
    seats = list(phh.seats or [])
    if finishing_stacks(hand, seats) != [
        record.seats[s].starting_stack - record.seats[s].contribution + record.seats[s].award for s in seats
    ]:
        raise ValueError("its PHH history does not end with the stacks the ledger settled")
    names = {s: p.name for s, p in record.seats.items()}
    viewer = None
    if account_id is not None:
        viewer = next((s for s, p in record.seats.items() if p.account_id == account_id), None)
        if viewer is None:
            raise ValueError(f"account {account_id} was not dealt into it")
    held = record.tournament
    if fmt == "pokerstars":
        tournament = None
        if held is not None:
            tournament = Tournament.of_play_money(held.id, held.buy_in, held.fee, held.level)
        return pokerstars_history(
            hand,
            players=names,
            hand_id=record.id,
            # PokerStars names a tournament table by the tournament and the table's number.
            table=table.name if held is None else f"{held.id} {held.table_no}",
            time=record.started_at,
            viewer=viewer,
            reveal=viewer is None,
            tournament=tournament,
            seat_count=table.config.max_seats,
        )
    return hand_to_phh(
        hand,
        players=names,
        hand_id=record.id,
        table=table.name,
        time=record.started_at,
        event=None if held is None else f"{held.name} (tournament {held.id}, level {held.level})",
        seen_by=EVERY_CARD if viewer is None else viewer,
        time_banks=replayed.time_banks,
        protected_counts=replayed.protected_counts,
    ).dumps()


def join(fmt: Format, index: int, text: str) -> str:
    """One hand's text as it goes into a file of many: PokerStars hands apart by a blank line
    (trackers split on it), PHH as numbered sections of a ``.phhs`` file."""
    if fmt == "pokerstars":
        return ("\n\n" if index else "") + text
    return ("\n" if index else "") + f"[{index + 1}]\n{text}"
