"""Tournament hands read back as hand records, so that a player's history, the replayer, the
downloads and the statistics read them beside his cash hands (docs/tournaments.md, "Hand
histories"). Their amounts are tournament chips, not money.

A tournament hand is stored in ``tournament_hands`` (:mod:`.tournaments`) with the operator's
PHH, and no row per seat: its players are the PHH's ``players`` (account names, which never
change and are unique), its seats and stacks the PHH's, and the chips each put in and won come
from replaying it. So a hand is a player's when his name is among its players. The SQL keeps
the finished hands of the tournaments he entered whose ``players`` array holds his name as the
PHH writer quotes it (the field comes after every other text field of the room's PHH), and the
parse decides. A hand still in play has no PHH: it is in no one's history yet. A voided hand
has none either, but its row keeps who was dealt in as it started (``players``, written by
``start_hand``: :func:`seated_players`): it is in their histories, marked void, each stack as it
was (a void gives every chip back: nothing in, nothing won), as a voided cash hand is.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any

from sqlalchemy import Select, select, union_all
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from .models import HandRecord, HandSeat, HandTournament, TableConfig, TableRecord
from .schema import accounts, tournament_entries, tournament_hands, tournaments

if TYPE_CHECKING:
    from studpoker.history.phh import PhhHand

log = logging.getLogger(__name__)

_LIKE_ESCAPE = "!"
_PAGE = 200  # histories read and parsed at a time (a player's statistics)


@dataclass(frozen=True, slots=True)
class TournamentHandRow:
    """A ``tournament_hands`` row with what its tournament says of it."""

    id: str
    status: str
    started_at: datetime
    finished_at: datetime | None
    phh: str | None
    text: str | None
    void_reason: str | None
    tournament: HandTournament
    players: str | None = None  # who was dealt in (JSON: account id -> [seat, stack])


@dataclass(frozen=True, slots=True)
class PlayedSeat:
    """One player of a finished tournament hand as its PHH says, without a replay."""

    seat: int
    name: str
    starting_stack: int
    finishing_stack: int

    @property
    def net(self) -> int:
        return self.finishing_stack - self.starting_stack


def name_in_players(name: str) -> str:
    """The LIKE pattern of a PHH whose ``players`` array holds ``name``, quoted as written."""
    from studpoker.history.phh.toml_out import value

    quoted = value(name)
    for special in (_LIKE_ESCAPE, "%", "_"):
        quoted = quoted.replace(special, _LIKE_ESCAPE + special)
    return f"%players = [%{quoted}%"


def hands_naming(account_id: int, name: str) -> Select[Any]:
    """The id, start, place and PHH of every finished tournament hand whose history names the
    account (``name`` is his), of the tournaments he entered."""
    th = tournament_hands
    entered = select(tournament_entries.c.tournament_id).where(tournament_entries.c.account_id == account_id)
    return select(th.c.id, th.c.started_at, th.c.tournament_id, th.c.table_no, th.c.phh).where(
        th.c.status == "finished",
        th.c.tournament_id.in_(entered),
        th.c.phh.like(name_in_players(name), escape=_LIKE_ESCAPE),
    )


async def seated_players(conn: AsyncConnection, tournament_id: int, table_no: int) -> str:
    """Who sits at the table now (as a hand starts there), as ``tournament_hands.players``
    keeps them: JSON, account id -> [seat, stack], of the entries seated at it."""
    e = tournament_entries
    rows = await conn.execute(
        select(e.c.account_id, e.c.seat, e.c.stack).where(
            e.c.tournament_id == tournament_id, e.c.table_no == table_no, e.c.seat.is_not(None)
        )
    )
    seated = {str(int(r.account_id)): [int(r.seat), int(r.stack)] for r in rows}
    return json.dumps(seated, separators=(",", ":"), sort_keys=True)


def _player_key(account_id: int) -> str:
    """How an account is written among a hand's ``players`` (the LIKE pattern finds it: the
    quote before the id keeps 12 from matching 112)."""
    return f'"{int(account_id)}":'


def voided_naming(account_id: int) -> Select[Any]:
    """Like :func:`hands_naming`, the voided tournament hands he was dealt into (no PHH)."""
    th = tournament_hands
    entered = select(tournament_entries.c.tournament_id).where(tournament_entries.c.account_id == account_id)
    return select(th.c.id, th.c.started_at, th.c.tournament_id, th.c.table_no, th.c.phh).where(
        th.c.status == "void",
        th.c.tournament_id.in_(entered),
        th.c.players.like(f"%{_player_key(account_id)}%"),
    )


def history_naming(account_id: int, name: str) -> Select[Any]:
    """His tournament hands for his history: the finished ones his name is in, the voided ones
    he was dealt into."""
    both = union_all(hands_naming(account_id, name), voided_naming(account_id)).subquery()
    return select(both.c.id, both.c.started_at, both.c.tournament_id, both.c.table_no, both.c.phh)


def dealt_in(players: str | None) -> dict[int, tuple[int, int]]:
    """A row's ``players``: account id -> (seat, stack); none when absent or unreadable."""
    try:
        found = json.loads(players) if players else {}
        return {int(a): (int(seat), int(stack)) for a, (seat, stack) in found.items()}
    except (ValueError, TypeError, AttributeError) as exc:
        log.warning("a tournament hand's players are not readable: %s", exc)
        return {}


async def account_name(conn: AsyncConnection, account_id: int) -> str | None:
    return await conn.scalar(select(accounts.c.name).where(accounts.c.id == account_id))


async def read_rows(conn: AsyncConnection, ids: Iterable[str]) -> list[TournamentHandRow]:
    """The tournament hands ``ids`` that exist, in that order."""
    wanted = list(ids)
    if not wanted:
        return []
    th, t = tournament_hands, tournaments
    query = (
        select(th, t.c.name, t.c.buy_in, t.c.fee)
        .join(t, t.c.id == th.c.tournament_id)
        .where(th.c.id.in_(wanted))
    )
    rows = {str(r.id): r for r in (await conn.execute(query)).all()}
    return [
        TournamentHandRow(
            id=str(r.id),
            status=str(r.status),
            started_at=r.started_at,
            finished_at=r.finished_at,
            phh=r.phh,
            text=r.text,
            void_reason=r.void_reason,
            players=r.players,
            tournament=HandTournament(
                id=int(r.tournament_id),
                name=str(r.name),
                table_no=int(r.table_no),
                level=max(1, int(r.level)),
                buy_in=int(r.buy_in),
                fee=int(r.fee),
            ),
        )
        for hand_id in wanted
        if (r := rows.get(hand_id)) is not None
    ]


def _parsed(phh_text: str | None, source: str) -> PhhHand | None:
    from studpoker.history.phh import loads

    if not phh_text:
        return None
    try:
        (phh,) = loads(phh_text, source=source)
    except Exception as exc:  # an unreadable history names nobody, and is said so
        log.warning("%s: its PHH does not parse: %s", source, exc)
        return None
    return phh


def _seats_of(phh: PhhHand | None) -> list[PlayedSeat]:
    if phh is None or not phh.players or not phh.seats or phh.finishing_stacks is None:
        return []
    return [
        PlayedSeat(seat, name, start, finish)
        for seat, name, start, finish in zip(
            phh.seats, phh.players, phh.starting_stacks, phh.finishing_stacks, strict=True
        )
    ]


def played_seats(phh_text: str | None, source: str) -> list[PlayedSeat]:
    """The players of a stored PHH by seat (none when it has no usable ``players`` and ``seats``)."""
    return _seats_of(_parsed(phh_text, source))


@dataclass(frozen=True, slots=True)
class PlayedHand:
    """A finished tournament hand as one of its players played it (for his statistics)."""

    hand_id: str
    started_at: datetime
    game: str
    big_bet: int
    seat: int
    net: int
    phh: str


def played_hand(hand_id: str, started_at: datetime, phh_text: str | None, name: str) -> PlayedHand | None:
    """The hand as the player ``name`` played it, from its PHH; None when it does not name him."""
    phh = _parsed(phh_text, f"tournament hand {hand_id}")
    seat = next((p for p in _seats_of(phh) if p.name == name), None)
    if phh is None or seat is None or phh_text is None:
        return None
    return PlayedHand(hand_id, started_at, phh.game_code, phh.big_bet or 0, seat.seat, seat.net, phh_text)


async def hands_played(
    engine: AsyncEngine, account_id: int, *, game: str | None, since: datetime | None, limit: int
) -> tuple[list[PlayedHand], bool]:
    """His last ``limit`` finished tournament hands (of ``game``, started at ``since`` or later),
    oldest first, and whether there were more. The game and his seat are in each hand's history,
    so the hands are read newest first a page at a time, parsed off the event loop."""
    async with engine.connect() as conn:
        name = await account_name(conn, account_id)
    if name is None:
        return [], False
    mine = hands_naming(account_id, name).subquery()
    query = select(mine.c.id, mine.c.started_at, mine.c.phh).order_by(
        mine.c.started_at.desc(), mine.c.id.desc()
    )
    if since is not None:
        query = query.where(mine.c.started_at >= since)
    found: list[PlayedHand] = []
    offset = 0
    while len(found) <= limit:
        async with engine.connect() as conn:
            result = await conn.execute(query.limit(_PAGE).offset(offset))
            page = [(str(r.id), r.started_at, r.phh) for r in result]
        played = await asyncio.to_thread(_played_page, page, name)
        found += [h for h in played if h is not None and (game is None or h.game == game)]
        if len(page) < _PAGE:
            break
        offset += _PAGE
    return found[:limit][::-1], len(found) > limit


def _played_page(page: list[tuple[str, datetime, str | None]], name: str) -> list[PlayedHand | None]:
    return [played_hand(hand_id, started_at, phh, name) for hand_id, started_at, phh in page]


async def account_ids(conn: AsyncConnection, rows: Sequence[TournamentHandRow]) -> dict[str, int]:
    """The accounts of the names the rows' histories hold, and of the players of voided ones."""
    names = {p.name for r in rows for p in played_seats(r.phh, f"tournament hand {r.id}")}
    ids = {a for r in rows if r.status == "void" for a in dealt_in(r.players)}
    if not names and not ids:
        return {}
    query = select(accounts.c.id, accounts.c.name).where(
        accounts.c.name.in_(sorted(names)) | accounts.c.id.in_(sorted(ids))
    )
    return {str(r.name): int(r.id) for r in (await conn.execute(query)).all()}


def tournament_record(row: TournamentHandRow, ids_by_name: dict[str, int]) -> HandRecord:
    """The hand record of a tournament hand (CPU work: its PHH is replayed for what each seat put
    in and won). A hand without a history that replays has no seats."""
    return HandRecord(
        id=row.id,
        table_id=0,
        status=row.status,
        commitment="",
        started_at=row.started_at,
        finished_at=row.finished_at,
        seats=_replayed_seats(row, ids_by_name),
        phh=row.phh,
        text=row.text,
        void_reason=row.void_reason,
        tournament=row.tournament,
    )


def _replayed_seats(row: TournamentHandRow, ids_by_name: dict[str, int]) -> dict[int, HandSeat]:
    from studpoker.history.phh import loads, replay

    source = f"tournament hand {row.id}"
    if row.status == "void":
        return _voided_seats(row, ids_by_name)
    if row.status != "finished" or not row.phh:
        return {}
    try:
        (phh,) = loads(row.phh, source=source)
        hand = replay(phh)  # a tournament table plays its game's default house rules
    except Exception as exc:
        log.warning("%s: its PHH does not replay, so it has no seats: %s", source, exc)
        return {}
    put, result = hand.contributions, hand.result
    seats: dict[int, HandSeat] = {}
    for played in _seats_of(phh):
        account_id = ids_by_name.get(played.name)
        if account_id is None:
            log.warning("%s: no account is named %r", source, played.name)
            continue
        seats[played.seat] = HandSeat(
            played.seat,
            account_id,
            played.name,
            played.starting_stack,
            put.get(played.seat, 0),
            result.won(played.seat),
        )
    return seats


def _voided_seats(row: TournamentHandRow, ids_by_name: dict[str, int]) -> dict[int, HandSeat]:
    """The players of a voided hand as it started: every chip went back (nothing in, nothing
    won), so each keeps the stack he had."""
    names = {account_id: name for name, account_id in ids_by_name.items()}
    return {
        seat: HandSeat(seat, account_id, names[account_id], stack, 0, 0)
        for account_id, (seat, stack) in sorted(dealt_in(row.players).items(), key=lambda p: p[1][0])
        if account_id in names
    }


def tournament_table(record: HandRecord) -> TableRecord:
    """The table a tournament hand was dealt at, as its history says (name, game, stakes,
    seats); its id is 0: no cash table. ``ValueError`` for a hand without a usable history."""
    from studpoker.history.phh import loads

    tournament = record.tournament
    if tournament is None:
        raise ValueError(f"hand {record.id} is not a tournament hand")
    if not record.phh:
        raise ValueError(f"tournament hand {record.id} has no history")
    (phh,) = loads(record.phh, source=f"tournament hand {record.id}")
    game = phh.game
    name = str(phh.extra.get("table") or f"{tournament.name} T{tournament.table_no}")[:40]
    small, big = phh.small_bet or 0, phh.big_bet or 0
    seat_count = phh.extra.get("seat_count")
    config = TableConfig.derive(
        name,
        game.code,
        small,
        big,
        max_seats=seat_count if isinstance(seat_count, int) else game.max_players,
        ante=max(phh.antes, default=0),
        bring_in=phh.bring_in or 0,
        min_buy_in=1,
        max_buy_in=max(1, sum(phh.starting_stacks)),
    )
    return TableRecord(id=0, config=config)


async def hands_in_progress(conn: AsyncConnection, tournament_id: int) -> dict[int, str]:
    """Table number -> the hand it has in progress (a new owner in the cluster voids them and
    tells the table's watchers which)."""
    h = tournament_hands
    rows = (
        await conn.execute(
            select(h.c.table_no, h.c.id).where(
                h.c.tournament_id == tournament_id, h.c.status == "in_progress"
            )
        )
    ).all()
    return {int(table_no): str(hand_id) for table_no, hand_id in rows}
