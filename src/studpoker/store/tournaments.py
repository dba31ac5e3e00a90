"""Tournaments in the store: creating one (a sit-and-go, or a scheduled tournament with its start
time, smallest field, late registration and re-entries), registering and unregistering (buy-in
and fee through the ledger), the start or the cancellation, late entries and re-entries, each
finished hand's stacks, busts and the payouts.

Money moves on two books of the ledger (studpoker.store.schema): a buy-in takes ``buy_in + fee``
from the bankroll, the buy-in to the tournament's ``pool`` book and the fee to the ``house``
book; an unregistration or a cancellation gives both back; at the end the pool is paid out to
the bankrolls and must be empty. Tournament chips are not money: they live on
``tournament_entries.stack`` (as of the last finished hand, which is what a restart deals from)
and the audit checks that they add up to the entries' starting stacks.

Entries are numbered (:mod:`.tournament_records`): what happens at a table (the start's seats,
a hand's stacks, a move) names the account and lands on its latest entry; places and prizes name
the entry (a player who re-entered has a place for each).

In the cluster a tournament runs on the worker that holds its lease (:mod:`.tournament_leases`):
its writes go through :meth:`Tournaments.fenced`, whose owner writes check the fence first in
their transaction (:class:`LeaseLost`, nothing written, once the lease is lost). A player's
registration is his own, from any gateway, and is never fenced.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, Unpack

from sqlalchemy import func, insert, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncConnection

from . import ledger
from .accounts import load_account
from .database import Database, new_id
from .errors import HandStateError, InvalidInputError, NameTakenError, NotFoundError
from .schema import tournament_entries, tournament_hands, tournaments
from .tournament_hand_reads import seated_players
from .tournament_leases import TournamentFence, check_tournament_fence
from .tournament_money import audit_tournaments, buy_in, cancel, enter_late, next_entry_no, refund
from .tournament_records import (
    MAX_SEATS,
    MIN_SEATS,
    STATUSES,
    EntryRecord,
    NewTournament,
    TournamentOptions,
    TournamentRecord,
    TournamentStateError,
    bankroll,
    latest_entries,
    load,
    load_entries,
    pool,
    pool_balance,
    record_of,
    require,
    whole_number,
)

__all__ = [
    "MAX_SEATS",
    "MIN_SEATS",
    "STATUSES",
    "EntryRecord",
    "NewTournament",
    "TournamentOptions",
    "TournamentRecord",
    "TournamentStateError",
    "Tournaments",
    "audit_tournaments",
]


class Tournaments:
    """The tournaments of the room (see the module docstring). ``fence`` None (``store.tournaments``,
    the one-process room): no write is checked."""

    def __init__(self, db: Database, fence: TournamentFence | None = None) -> None:
        self.db = db
        self.fence = fence

    def fenced(self, fence: TournamentFence) -> Tournaments:
        """The same tournaments for the owner of ``fence``: its writes (start, cancel,
        enter_late, the hands, places, seats, clock, finish) raise :class:`LeaseLost`, writing
        nothing, unless the fence still holds in their transaction."""
        if not isinstance(fence, TournamentFence):
            raise InvalidInputError(f"a tournament fence is a TournamentFence, not {fence!r}")
        return Tournaments(self.db, fence)

    async def _check_fence(self, conn: AsyncConnection, tournament_id: int) -> None:
        if self.fence is not None:
            await check_tournament_fence(conn, self.fence, tournament_id)

    async def create(
        self,
        name: str,
        game: str,
        structure: str,
        *,
        starting_stack: int,
        **options: Unpack[TournamentOptions],
    ) -> TournamentRecord:
        """A new tournament, registering: a sit-and-go (``seats`` entrants, started when full), or
        with ``starts_at`` a scheduled one (``seats`` the largest field). The caller checks the
        game and structure names."""
        return await self.add(NewTournament(name, game, structure, starting_stack=starting_stack, **options))

    async def add(self, new: NewTournament) -> TournamentRecord:
        """``new`` checked (:meth:`NewTournament.checked`) and stored, registering."""
        now = self.db.now()
        t = new.checked(now)
        try:
            async with self.db.write() as conn:
                taken = await conn.scalar(select(tournaments.c.id).where(tournaments.c.name == t.name))
                if taken is not None:
                    raise NameTakenError(f"a tournament named {t.name!r} exists")
                result = await conn.execute(
                    insert(tournaments).values(
                        name=t.name, game=t.game, structure=t.structure, buy_in=t.buy_in, fee=t.fee,
                        seats=t.seats, status="registering", starting_stack=t.starting_stack, clock=None,
                        hands_played=0, created_at=now, starts_at=t.starts_at, min_players=t.min_players,
                        late_levels=t.late_levels, reentries=t.reentries, schedule_key=t.schedule_key,
                        hands_per_game=t.hands_per_game,
                    )
                )  # fmt: skip
                return await load(conn, new_id(result))
        except IntegrityError:
            raise NameTakenError(f"a tournament named {t.name!r} (or of that schedule line) exists") from None

    async def get(self, tournament_id: int) -> TournamentRecord:
        async with self.db.read() as conn:
            return await load(conn, tournament_id)

    async def find_scheduled(self, schedule_key: str) -> TournamentRecord | None:
        """The tournament a schedule line created for one start time, if it was."""
        async with self.db.read() as conn:
            row = (
                await conn.execute(select(tournaments).where(tournaments.c.schedule_key == schedule_key))
            ).first()
            return None if row is None else record_of(row, await load_entries(conn, int(row.id)))

    async def list(self, status: str | None = None) -> list[TournamentRecord]:
        if status is not None and status not in STATUSES:
            raise InvalidInputError(f"status is one of {', '.join(STATUSES)}, not {status!r}")
        async with self.db.read(snapshot=True) as conn:
            query = select(tournaments).order_by(tournaments.c.id)
            if status is not None:
                query = query.where(tournaments.c.status == status)
            rows = (await conn.execute(query)).all()
            return [record_of(r, await load_entries(conn, int(r.id))) for r in rows]

    async def register(self, tournament_id: int, account_id: int) -> TournamentRecord:
        """Buy in before the start: ``buy_in + fee`` from the bankroll (the buy-in to the pool,
        the fee to the house). Entries while it runs are :meth:`enter_late`'s."""
        async with self.db.write() as conn:
            record = await load(conn, tournament_id, lock=True)
            require(record, "registering", "register")
            if record.entry(account_id) is not None:
                raise TournamentStateError(f"you are registered for {record.name!r} already")
            if len(record.entries) >= record.seats:
                raise TournamentStateError(f"{record.name!r} is full")
            now = self.db.now()
            await buy_in(conn, now, record, account_id, "register")
            await conn.execute(
                insert(tournament_entries).values(
                    tournament_id=tournament_id, entry_no=await next_entry_no(conn, tournament_id),
                    account_id=account_id, registered_at=now, stack=0, prize=0,
                )
            )  # fmt: skip
            return await load(conn, tournament_id)

    async def unregister(self, tournament_id: int, account_id: int) -> TournamentRecord:
        """Before the start only: the buy-in and the fee go back to the bankroll."""
        async with self.db.write() as conn:
            record = await load(conn, tournament_id, lock=True)
            require(record, "registering", "unregister")
            if record.entry(account_id) is None:
                raise TournamentStateError(f"you are not registered for {record.name!r}")
            await conn.execute(
                tournament_entries.delete().where(
                    tournament_entries.c.tournament_id == tournament_id,
                    tournament_entries.c.account_id == account_id,
                )
            )
            await refund(conn, self.db.now(), record, account_id, "unregister")
            return await load(conn, tournament_id)

    async def enter_late(
        self, tournament_id: int, account_id: int, table_no: int, seat: int
    ) -> TournamentRecord:
        """While it runs: a late entry or a re-entry at ``(table_no, seat)`` (:mod:`.tournament_money`)."""
        whole_number(table_no, "the table", 1, 10_000)
        whole_number(seat, "the seat", 1, 10)
        async with self.db.write() as conn:
            await self._check_fence(conn, tournament_id)
            return await enter_late(
                conn, self.db.now(), tournament_id, account_id, table_no=table_no, seat=seat
            )

    async def cancel(self, tournament_id: int) -> TournamentRecord:
        """Cancelled before the start: every buy-in and fee refunded."""
        async with self.db.write() as conn:
            await self._check_fence(conn, tournament_id)
            return await cancel(conn, self.db.now(), tournament_id)

    async def start(
        self, tournament_id: int, seating: Mapping[int, tuple[int, int]], clock: Mapping[str, Any]
    ) -> TournamentRecord:
        """Running: every entrant (account) at his (table, seat) with the starting stack."""
        async with self.db.write() as conn:
            await self._check_fence(conn, tournament_id)
            record = await load(conn, tournament_id, lock=True)
            require(record, "registering", "start")
            if set(seating) != {e.account_id for e in record.entries} or len(record.entries) < MIN_SEATS:
                raise InvalidInputError("the seating must place every entrant (2 or more)")
            e = tournament_entries
            for account_id, (table_no, seat) in seating.items():
                await conn.execute(
                    update(e)
                    .where(e.c.tournament_id == tournament_id, e.c.account_id == account_id)
                    .values(table_no=table_no, seat=seat, stack=record.starting_stack)
                )
            await conn.execute(
                update(tournaments)
                .where(tournaments.c.id == tournament_id)
                .values(status="running", started_at=self.db.now(), clock=json.dumps(dict(clock)))
            )
            return await load(conn, tournament_id)

    async def start_hand(self, tournament_id: int, hand_id: str, table_no: int, level: int) -> None:
        async with self.db.write() as conn:
            await self._check_fence(conn, tournament_id)
            await conn.execute(
                insert(tournament_hands).values(
                    id=hand_id,
                    tournament_id=tournament_id,
                    table_no=table_no,
                    status="in_progress",
                    level=level,
                    started_at=self.db.now(),
                    # who is dealt in: a voided hand has no PHH to name them
                    players=await seated_players(conn, tournament_id, table_no),
                )
            )

    async def finish_hand(
        self,
        tournament_id: int,
        hand_id: str,
        stacks: Mapping[int, int],
        clock: Mapping[str, Any],
        *,
        phh: str = "",
        text: str = "",
    ) -> None:
        """A hand's end: the stacks of the accounts dealt in (their latest entries; conserved:
        checked), the clock. :class:`HandStateError`, nothing written, unless the hand is this
        tournament's and in progress (a voided hand is never finished too)."""
        async with self.db.write() as conn:
            await self._check_fence(conn, tournament_id)
            await _lock_hand_in_progress(conn, tournament_id, hand_id)
            e = tournament_entries
            numbers = await latest_entries(conn, tournament_id, stacks)
            before = {
                int(r.account_id): int(r.stack)
                for r in (
                    await conn.execute(
                        select(e.c.account_id, e.c.stack).where(
                            e.c.tournament_id == tournament_id, e.c.entry_no.in_(list(numbers.values()))
                        )
                    )
                ).all()
            }
            if set(before) != set(stacks) or sum(before.values()) != sum(stacks.values()):
                raise InvalidInputError(f"hand {hand_id}: its stacks do not keep the chips of its players")
            for account_id, stack in stacks.items():
                await conn.execute(
                    update(e)
                    .where(e.c.tournament_id == tournament_id, e.c.entry_no == numbers[account_id])
                    .values(stack=stack)
                )
            await conn.execute(
                update(tournament_hands)
                .where(tournament_hands.c.id == hand_id)
                .values(status="finished", finished_at=self.db.now(), phh=phh, text=text)
            )
            await conn.execute(
                update(tournaments)
                .where(tournaments.c.id == tournament_id)
                .values(hands_played=tournaments.c.hands_played + 1, clock=json.dumps(dict(clock)))
            )

    async def void_hand(self, hand_id: str, reason: str) -> None:
        """The hand void if it is in progress. Under a fence, only a hand of the fence's
        tournament (:class:`LeaseLost` for another's)."""
        async with self.db.write() as conn:
            if self.fence is not None:
                found = await conn.scalar(
                    select(tournament_hands.c.tournament_id).where(tournament_hands.c.id == hand_id)
                )
                await self._check_fence(conn, self.fence.tournament_id if found is None else int(found))
            await conn.execute(
                update(tournament_hands)
                .where(tournament_hands.c.id == hand_id, tournament_hands.c.status == "in_progress")
                .values(status="void", finished_at=self.db.now(), void_reason=reason[:400])
            )

    async def void_interrupted(self, tournament_id: int) -> int:
        """After a restart: the hands left in progress are void (the stacks are the last finished
        hand's already). How many."""
        async with self.db.write() as conn:
            await self._check_fence(conn, tournament_id)
            result = await conn.execute(
                update(tournament_hands)
                .where(
                    tournament_hands.c.tournament_id == tournament_id,
                    tournament_hands.c.status == "in_progress",
                )
                .values(status="void", finished_at=self.db.now(), void_reason="server restart")
            )
            return int(result.rowcount or 0)

    async def hands_by_table(self, tournament_id: int) -> dict[int, int]:
        """Table number -> the hands it has dealt that ended, finished or void (a rotation's count
        at that table resumes from it after a restart)."""
        h = tournament_hands
        async with self.db.read() as conn:
            rows = (
                await conn.execute(
                    select(h.c.table_no, func.count())
                    .where(h.c.tournament_id == tournament_id, h.c.status != "in_progress")
                    .group_by(h.c.table_no)
                )
            ).all()
        return {int(table_no): int(count) for table_no, count in rows}

    async def hand_status(self, hand_id: str) -> tuple[str, str | None]:
        async with self.db.read() as conn:
            row = (
                await conn.execute(
                    select(tournament_hands.c.status, tournament_hands.c.void_reason).where(
                        tournament_hands.c.id == hand_id
                    )
                )
            ).first()
        if row is None:
            raise NotFoundError(f"no tournament hand {hand_id!r}")
        return str(row.status), row.void_reason

    async def place(self, tournament_id: int, places: Mapping[int, tuple[int, int]]) -> None:
        """Busts (and the win): entry number -> (place, tied)."""
        async with self.db.write() as conn:
            await self._check_fence(conn, tournament_id)
            e = tournament_entries
            for entry_no, (place, tied) in places.items():
                await conn.execute(
                    update(e)
                    .where(e.c.tournament_id == tournament_id, e.c.entry_no == entry_no)
                    .values(place=place, tied=tied, table_no=None, seat=None)
                )

    async def save_seats(self, tournament_id: int, seats: Mapping[int, tuple[int, int]]) -> None:
        """Players moved (balancing): account -> (table, seat), on its latest entry."""
        async with self.db.write() as conn:
            await self._check_fence(conn, tournament_id)
            e = tournament_entries
            numbers = await latest_entries(conn, tournament_id, seats)
            for account_id, (table_no, seat) in seats.items():
                await conn.execute(
                    update(e)
                    .where(e.c.tournament_id == tournament_id, e.c.entry_no == numbers[account_id])
                    .values(table_no=table_no, seat=seat)
                )

    async def save_clock(self, tournament_id: int, clock: Mapping[str, Any]) -> None:
        async with self.db.write() as conn:
            await self._check_fence(conn, tournament_id)
            await conn.execute(
                update(tournaments)
                .where(tournaments.c.id == tournament_id)
                .values(clock=json.dumps(dict(clock)))
            )

    async def finish(self, tournament_id: int, prizes: Mapping[int, int]) -> TournamentRecord:
        """Finished: the pool paid out to the bankrolls, entry number -> prize (the prizes must
        add up to the pool exactly)."""
        async with self.db.write() as conn:
            await self._check_fence(conn, tournament_id)
            record = await load(conn, tournament_id, lock=True)
            require(record, "running", "finish")
            held = await pool_balance(conn, tournament_id)
            if sum(prizes.values()) != held or any(p < 0 for p in prizes.values()):
                raise InvalidInputError(f"the prizes add up to {sum(prizes.values())}, the pool holds {held}")
            owners = {e.entry_no: e.account_id for e in record.entries}
            if not set(prizes) <= set(owners):
                raise InvalidInputError("a prize goes to an entry the tournament does not have")
            now = self.db.now()
            for entry_no, amount in sorted(prizes.items()):
                if amount == 0:
                    continue
                account_id = owners[entry_no]
                await load_account(conn, account_id, lock=True)
                await ledger.credit_bankroll(conn, account_id, amount)
                await ledger.post(
                    conn,
                    now,
                    "payout",
                    [pool(tournament_id, account_id, -amount), bankroll(account_id, amount)],
                    account_id=account_id,
                    memo=f"tournament {tournament_id}",
                )
                e = tournament_entries
                await conn.execute(
                    update(e)
                    .where(e.c.tournament_id == tournament_id, e.c.entry_no == entry_no)
                    .values(prize=amount)
                )
            await conn.execute(
                update(tournaments)
                .where(tournaments.c.id == tournament_id)
                .values(status="finished", finished_at=now)
            )
            return await load(conn, tournament_id)


async def _lock_hand_in_progress(conn: AsyncConnection, tournament_id: int, hand_id: str) -> None:
    """:class:`HandStateError` unless ``hand_id`` is a hand of ``tournament_id`` in progress; its
    row stays locked to the end of the transaction, so a void cannot slip in before the finish."""
    h = tournament_hands
    row = (
        await conn.execute(select(h.c.tournament_id, h.c.status).where(h.c.id == hand_id).with_for_update())
    ).first()
    if row is None or int(row.tournament_id) != tournament_id:
        raise HandStateError(f"tournament {tournament_id} has no hand {hand_id!r}")
    if row.status != "in_progress":
        raise HandStateError(f"hand {hand_id!r} is {row.status}, not in progress")
