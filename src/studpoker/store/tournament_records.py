"""What the store keeps of a tournament, as records: the tournament, its entries, and how they
are read (studpoker.store.tournaments writes them).

An entry is one buy-in: ``entry_no`` numbers the entries of a tournament in the order they were
made, and an account that re-enters holds several (only its latest can be in play: a player
re-enters once his entry is out). What happens at a table is the account's (its latest entry);
places and prizes are the entry's.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from typing import Any, Required, TypedDict

from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncConnection

from . import ledger
from .errors import InvalidInputError, NotFoundError, StoreError
from .schema import accounts, ledger_entries, tournament_entries, tournaments

STATUSES = ("registering", "running", "finished", "cancelled")
MIN_SEATS, MAX_SEATS = 2, 1_000  # above one table's size: several tables
MAX_REENTRIES = 100
MAX_LATE_LEVELS = 1_000
MAX_HANDS_PER_GAME = 1_000
DEFAULT_HANDS_PER_GAME = 8  # as tournament.rotation's (the store does not import the game core)


class TournamentStateError(StoreError, code="tournament_conflict", status=409):
    """The tournament is not in a state that allows it (registered twice, started already...)."""


def pool(tournament_id: int, account_id: int | None, amount: int) -> ledger.Entry:
    return {
        "book": "pool", "account_id": account_id, "table_id": None, "seat": None, "hand_id": None,
        "tournament_id": tournament_id, "amount": amount,
    }  # fmt: skip


def house(tournament_id: int, amount: int) -> ledger.Entry:
    return {
        "book": "house", "account_id": None, "table_id": None, "seat": None, "hand_id": None,
        "tournament_id": tournament_id, "amount": amount,
    }  # fmt: skip


def bankroll(account_id: int, amount: int) -> ledger.Entry:
    return {**ledger.bankroll(account_id, amount), "tournament_id": None}


def whole_number(value: object, what: str, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise InvalidInputError(f"{what} is a whole number from {low} to {high}, not {value!r}")
    return value


class TournamentOptions(TypedDict, total=False):
    """What a new tournament is, beside its name, game and structure (:class:`NewTournament`)."""

    buy_in: Required[int]
    fee: Required[int]
    seats: Required[int]
    starts_at: datetime | None
    min_players: int | None
    late_levels: int
    reentries: int
    schedule_key: str | None
    hands_per_game: int


@dataclass(frozen=True, slots=True)
class NewTournament:
    """A tournament to create: a sit-and-go (``seats`` entrants, started when full), or with
    ``starts_at`` a scheduled one (``seats`` its largest field, ``min_players`` its smallest,
    late registration to the end of level ``late_levels``, ``reentries`` per player). ``game``
    names one game or a rotation (the caller checks it), ``hands_per_game`` hands of each."""

    name: str
    game: str
    structure: str
    buy_in: int
    fee: int
    seats: int
    starting_stack: int
    starts_at: datetime | None = None
    min_players: int | None = None
    late_levels: int = 0
    reentries: int = 0
    schedule_key: str | None = None
    hands_per_game: int = DEFAULT_HANDS_PER_GAME

    def checked(self, now: datetime) -> NewTournament:
        """The same tournament with its name stripped, its start in UTC and its smallest field
        given, or :class:`InvalidInputError` naming what is wrong (the game and the structure
        are the caller's to check)."""
        if not isinstance(self.name, str) or not 1 <= len(self.name.strip()) <= 60:
            raise InvalidInputError(f"a tournament name has 1 to 60 characters, not {self.name!r}")
        ledger.check_amount(self.buy_in, "the buy-in")
        if not isinstance(self.fee, int) or isinstance(self.fee, bool) or self.fee < 0:
            raise InvalidInputError(f"the fee must be a whole number of units >= 0, not {self.fee!r}")
        whole_number(self.seats, "a tournament's seats", MIN_SEATS, MAX_SEATS)
        ledger.check_amount(self.starting_stack, "the starting stack")
        whole_number(self.hands_per_game, "hands per game", 1, MAX_HANDS_PER_GAME)
        key = self.schedule_key
        if key is not None and (not isinstance(key, str) or not 1 <= len(key) <= 120):
            raise InvalidInputError(f"a schedule key has 1 to 120 characters, not {key!r}")
        start, smallest = self._schedule(now)
        return replace(self, name=self.name.strip(), starts_at=start, min_players=smallest)

    def _schedule(self, now: datetime) -> tuple[datetime | None, int]:
        if self.starts_at is None:
            # (a sit-and-go's smallest field is its seats: the 2 a checked one carries is no choice)
            if self.min_players not in (None, MIN_SEATS) or self.late_levels or self.reentries:
                raise InvalidInputError(
                    "a smallest field, late registration and re-entries are for scheduled tournaments"
                    " (give a start time)"
                )
            return None, MIN_SEATS
        if not isinstance(self.starts_at, datetime):
            raise InvalidInputError(f"the start time is a date and time, not {self.starts_at!r}")
        at = self.starts_at
        start = at.replace(tzinfo=UTC) if at.tzinfo is None else at.astimezone(UTC)
        if start <= now:
            raise InvalidInputError(f"the start time {start.isoformat()} has passed (now {now.isoformat()})")
        smallest = MIN_SEATS if self.min_players is None else self.min_players
        whole_number(smallest, "the smallest field", MIN_SEATS, self.seats)
        whole_number(self.late_levels, "late registration (levels)", 0, MAX_LATE_LEVELS)
        whole_number(self.reentries, "re-entries", 0, MAX_REENTRIES)
        if self.reentries and not self.late_levels:
            raise InvalidInputError("re-entry is during late registration: give late registration levels too")
        return start, smallest


@dataclass(frozen=True, slots=True)
class EntryRecord:
    account_id: int
    name: str
    table_no: int | None
    seat: int | None
    stack: int
    place: int | None
    tied: int | None
    prize: int
    entry_no: int = 0


@dataclass(frozen=True, slots=True)
class TournamentRecord:
    id: int
    name: str
    game: str
    structure: str
    buy_in: int
    fee: int
    seats: int  # a sit-and-go's field (it starts when full); a scheduled one's largest
    status: str
    starting_stack: int
    clock: dict[str, Any] | None
    hands_played: int
    created_at: datetime
    started_at: datetime | None
    finished_at: datetime | None
    entries: tuple[EntryRecord, ...] = field(default=())
    starts_at: datetime | None = None
    min_players: int = 2
    late_levels: int = 0
    reentries: int = 0
    schedule_key: str | None = None
    hands_per_game: int = DEFAULT_HANDS_PER_GAME  # of each game of the rotation ``game`` names

    @property
    def scheduled(self) -> bool:
        """It starts at ``starts_at`` (else it is a sit-and-go, started when full)."""
        return self.starts_at is not None

    @property
    def prize_pool(self) -> int:
        return self.buy_in * len(self.entries)

    def entry(self, account_id: int) -> EntryRecord | None:
        """The account's latest entry (the one in play, if any is)."""
        return max(self.entries_of(account_id), key=lambda e: e.entry_no, default=None)

    def entries_of(self, account_id: int) -> tuple[EntryRecord, ...]:
        return tuple(e for e in self.entries if e.account_id == account_id)

    def by_number(self, entry_no: int) -> EntryRecord | None:
        return next((e for e in self.entries if e.entry_no == entry_no), None)

    @property
    def player_names(self) -> list[str]:
        """Each player once, in the order of his first entry."""
        return list(dict.fromkeys(e.name for e in self.entries))


def record_of(row: Any, entries: Sequence[EntryRecord]) -> TournamentRecord:
    m = row._mapping
    return TournamentRecord(
        id=int(m["id"]),
        name=str(m["name"]),
        game=str(m["game"]),
        structure=str(m["structure"]),
        buy_in=int(m["buy_in"]),
        fee=int(m["fee"]),
        seats=int(m["seats"]),
        status=str(m["status"]),
        starting_stack=int(m["starting_stack"]),
        clock=None if m["clock"] is None else json.loads(m["clock"]),
        hands_played=int(m["hands_played"]),
        created_at=m["created_at"],
        started_at=m["started_at"],
        finished_at=m["finished_at"],
        entries=tuple(entries),
        starts_at=m["starts_at"],
        min_players=int(m["min_players"]),
        late_levels=int(m["late_levels"]),
        reentries=int(m["reentries"]),
        schedule_key=m["schedule_key"],
        hands_per_game=int(m["hands_per_game"]),
    )


async def load_entries(conn: AsyncConnection, tournament_id: int) -> list[EntryRecord]:
    e = tournament_entries
    rows = (
        await conn.execute(
            select(e, accounts.c.name)
            .join(accounts, accounts.c.id == e.c.account_id)
            .where(e.c.tournament_id == tournament_id)
            .order_by(e.c.entry_no)
        )
    ).all()
    return [
        EntryRecord(
            int(r.account_id), str(r.name), r.table_no, r.seat, int(r.stack), r.place, r.tied, int(r.prize),
            int(r.entry_no),
        )
        for r in rows
    ]  # fmt: skip


async def load(conn: AsyncConnection, tournament_id: int, *, lock: bool = False) -> TournamentRecord:
    query = select(tournaments).where(tournaments.c.id == tournament_id)
    row = (await conn.execute(query.with_for_update() if lock else query)).first()
    if row is None:
        raise NotFoundError(f"no tournament with id {tournament_id!r}")
    return record_of(row, await load_entries(conn, tournament_id))


def require(record: TournamentRecord, status: str, what: str) -> None:
    if record.status != status:
        raise TournamentStateError(f"cannot {what}: tournament {record.name!r} is {record.status}")


async def latest_entries(
    conn: AsyncConnection, tournament_id: int, account_ids: Iterable[int]
) -> dict[int, int]:
    """Account -> the number of its latest entry (the one at a table), for those that have one."""
    e = tournament_entries
    rows = (
        await conn.execute(
            select(e.c.account_id, func.max(e.c.entry_no))
            .where(e.c.tournament_id == tournament_id, e.c.account_id.in_(list(account_ids)))
            .group_by(e.c.account_id)
        )
    ).all()
    return {int(account): int(number) for account, number in rows}


async def pool_balance(conn: AsyncConnection, tournament_id: int) -> int:
    total = await conn.scalar(
        select(func.coalesce(func.sum(ledger_entries.c.amount), 0)).where(
            ledger_entries.c.book == "pool", ledger_entries.c.tournament_id == tournament_id
        )
    )
    return int(total or 0)
