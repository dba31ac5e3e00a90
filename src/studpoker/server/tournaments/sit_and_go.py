"""One running sit-and-go: its tables (each a :class:`TableActor` behind the tournament's store
port), the level clock, the balancing between hands, the busts and their places, the payouts.

- The tables are ordinary table actors: the clock, disconnection, the histories are the cash
  tables'. Their seats are taken from the entries (tournament chips), and before each hand every
  seat with chips is dealt in, sitting out or not: an absent player antes or posts and the
  action clock folds him.
- The field is seated at the fewest tables (tournament.seating). Before a table deals its next
  hand (its last one finished), the tables are broken and balanced (tournament.balancing): a
  player moves only from a table between hands, his stack with him (:mod:`.tables`); a move from
  a table still in its hand waits for that hand's end.
- Hand for hand (one player off the money, more than one table): a table that finished its hand
  waits until every table has; the busts of that round are placed together.
- The level is read from the tournament clock when each hand is dealt: the stakes go up between
  hands, never during one.
- A rotation (HORSE, HOSE, a list of games: :func:`.creating.rotation_of`) is played at each
  table as at a mixed cash table: the table's own count of hands (finished or void) gives the
  game of its next hand, at the level's stakes for that game; a moved player plays the game of
  the table he joins. The count resumes from the table's stored hands after a restart.
- Each finished hand writes the entries' stacks and the clock in one transaction: a restart
  voids the hands being played and deals again from those stacks, the clock resumed where it was
  stored (the outage not counted).
- Players out in the same hand are placed by their stacks at its start (tournament.standings);
  when one is left the pool is paid by the payout table (tournament.payouts) through the ledger.
- Late registration (a scheduled tournament, to the end of level ``late_levels``): a new entry,
  or a busted player's re-entry, is seated at the table with the fewest players (:mod:`.late`)
  with the starting stack; the field, the pool and the payout table grow with it, and every
  entry already out finishes one place lower. While it is open the last player left does not
  win yet: he waits for an opponent, and wins when it closes with nobody come.
- Places are the entries' (numbers in the store): a player who re-entered has one for each.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import time
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from studpoker.store.models import TableConfig, TableRecord
from studpoker.store.tournaments import TournamentRecord, TournamentStateError
from studpoker.tournament.balancing import hand_for_hand, rebalance
from studpoker.tournament.clock import ClockReading, ClockState, read
from studpoker.tournament.payouts import prize_amounts, split_ties
from studpoker.tournament.standard import find_structure
from studpoker.tournament.standings import Bust, Finish, Standings
from studpoker.tournament.structure import Structure

from ..store_adapter import operator_histories
from ..table import SeatState, TableActor, TablePorts
from ..table.adapters import LoopClock
from ..table.commands import StartHand
from ..table.ports import HandEnd
from ..table.rotation import MixedSchedule
from ..table.time_bank import TimeBankPolicy
from .creating import rotation_of
from .host import Host
from .late import TableNow, late_registration_open, late_seat
from .levels import level_config
from .links import TableLinks
from .ports import TournamentTableStore
from .seats import TournamentSeats
from .tables import MAX_TABLES, TABLE_ID_BASE, free_prefix, make_move, seat_entrant, seating_of, table_id_of

if TYPE_CHECKING:
    from studpoker.store import Store

__all__ = ["TABLE_ID_BASE", "SitAndGo", "level_config", "table_id_of"]

log = logging.getLogger(__name__)


def rebuilt_standings(record: TournamentRecord) -> Standings:
    """The finishing order so far, from the places stored (worst first, one group per place);
    the players are the entries' numbers."""
    standings = Standings(len(record.entries))
    by_place: dict[int, list[int]] = {}
    for entry in record.entries:
        if entry.place is not None and entry.place > 1:
            by_place.setdefault(entry.place, []).append(entry.entry_no)
    for place in sorted(by_place, reverse=True):
        standings.bust([Bust(player, 0) for player in by_place[place]])
    return standings


class SitAndGo:
    """A running sit-and-go (see the module docstring). ``now`` is wall time in seconds;
    ``registry`` is the room's map of tournament table ids to actors (kept up to date here);
    ``table_hands`` the hands each table has played (a restart resumes its rotation there)."""

    def __init__(
        self,
        room: Host,
        record: TournamentRecord,
        clock: ClockState,
        *,
        now: Callable[[], float] = time.time,
        finished: Callable[[SitAndGo], None] | None = None,
        registry: dict[int, TableActor] | None = None,
        table_hands: Mapping[int, int] | None = None,
        links: TableLinks | None = None,
    ) -> None:
        self.room = room
        self.store: Store = room.store
        # The room around the tables (a cluster's worker: fenced writes, its lobby, its bus).
        self.links = TableLinks() if links is None else links
        self.tournaments = self.links.writes or self.store.tournaments
        self.record = record
        self.structure: Structure = find_structure(record.structure)
        self.clock = clock
        self.now = now
        self.standings = rebuilt_standings(record)
        self.registry: dict[int, TableActor] = {} if registry is None else registry
        self.level = 0
        self.done = False
        self.moves = 0
        self.hand_for_hand_rounds = 0
        self._finished = finished
        self.rotation = rotation_of(record)
        # Each table's hands that ended (finished or void): the game of its next hand.
        self.hands_at: dict[int, int] = dict(table_hands or {})
        self.size = self.rotation.max_seats
        self.uses_button = self.rotation.uses_button
        self.tables: dict[int, TableActor] = {}
        # The highest table number opened (a new table takes the next; after a restart, past
        # every table that dealt a hand: a number, its hands and its count are never reused).
        self.highest_table = max(self.hands_at, default=0)
        # Late entries and placings, one at a time: a late entry moves every place stored.
        self.entry_lock = asyncio.Lock()
        self.dealing: set[int] = set()  # tables dealing a hand (its end not written yet)
        self.in_hand: set[int] = set()  # tables from a hand's start until they are settled after it
        self.released: set[int] = set()  # hand for hand: tables let deal this round's hand
        self.round_busts: list[Bust] = []  # hand for hand: the busts of the round, placed together
        settings = room.settings
        self._think = 10 if settings.think_seconds is None else max(1, round(settings.think_seconds))
        self._countdown = (
            20 if settings.countdown_seconds is None else max(0, round(settings.countdown_seconds))
        )
        for entry in record.entries:
            if entry.place is None and entry.seat is not None and entry.stack > 0:
                actor = self.tables.get(entry.table_no or 1) or self._new_table(entry.table_no or 1)
                seat = entry.seat
                if seat in actor.seats:  # a move not stored before a crash: any empty seat
                    seat = next(s for s in range(1, self.size + 1) if s not in actor.seats)
                actor.seats[seat] = SeatState(
                    seat=seat, account_id=entry.account_id, name=entry.name, stack=entry.stack
                )

    @property
    def paid(self) -> int:
        """Places paid for the field so far (it grows with late entries)."""
        return sum(
            1 for amount in prize_amounts(len(self.record.entries), self.record.prize_pool) if amount > 0
        )

    @property
    def table_id(self) -> int:
        """The first table's id (the one table of a short field)."""
        return table_id_of(self.record.id, min(self.tables, default=1))

    @property
    def table_ids(self) -> list[int]:
        return [table_id_of(self.record.id, n) for n in sorted(self.tables)]

    def _new_table(self, number: int) -> TableActor:
        settings = self.room.settings
        config = self._config(number, self.reading())
        actor = TableActor(
            TableRecord(table_id_of(self.record.id, number), config),
            TablePorts(
                store=TournamentTableStore(self, number),
                lobby=self.links.lobby,
                presence=self.room,
                clock=LoopClock(),
            ),
            settings,
            think_seconds=settings.think_seconds,
            countdown_seconds=settings.countdown_seconds,
            hand_pause_seconds=settings.hand_pause_seconds,
            seats=TournamentSeats(TimeBankPolicy.of(settings), before_deal=lambda: self._before_deal(number)),
        )
        # The mixed cash table's hooks (server/table/mixed_seats.py): each hand counted as it
        # ends, and the rotation's fields in the snapshot and the lobby line.
        actor.hand_ended = lambda: self._hand_ended(number)
        if self.rotation.mixed:
            actor.rotation_info = lambda: self.rotation_info(number)
        self.tables[number] = actor
        self.registry[actor.table_id] = actor
        self.highest_table = max(self.highest_table, number)
        self.links.opened(actor)
        return actor

    def _config(self, number: int, reading: ClockReading) -> TableConfig:
        hands = self.hands_at.get(number, 0)
        return level_config(self.record, reading, self._think, self._countdown, number, hands=hands)

    def _hand_ended(self, number: int) -> None:
        self.hands_at[number] = self.hands_at.get(number, 0) + 1

    def rotation_info(self, number: int) -> dict[str, Any] | None:
        """Table ``number``'s rotation, its game now and the hands of it left (a cash mixed
        table's fields: the browser draws them alike); None for a tournament of one game."""
        actor = self.tables.get(number)
        if not self.rotation.mixed or actor is None:
            return None
        return MixedSchedule(self.rotation, actor.config, self.hands_at.get(number, 0)).info()

    # -- what the lobby reads ---------------------------------------------------------------------

    def reading(self) -> ClockReading:
        return read(self.structure, self.clock.played_at(self.now()))

    def info(self) -> dict[str, Any]:
        reading = self.reading()
        stacks = [s.stack for actor in self.tables.values() for s in actor.seats.values() if s.stack > 0]
        return {
            **reading.to_dict(),
            "table_id": self.table_id,
            "table_ids": self.table_ids,
            "players_left": len(stacks),
            "average_stack": sum(stacks) // len(stacks) if stacks else 0,
            "hand_for_hand": self._hand_for_hand(),
            "late_registration_open": self.late_registration_open(),
        }

    def late_registration_open(self) -> bool:
        return not self.done and late_registration_open(self.record, self.reading())

    # -- life ---------------------------------------------------------------------------------------

    def start(self) -> None:
        for actor in self.tables.values():
            actor.start()
            actor.dealer.schedule()

    async def stop(self) -> None:
        for actor in list(self.tables.values()):
            await actor.stop()

    def _hand_for_hand(self) -> bool:
        return hand_for_hand(self.standings.remaining, self.paid, len(self.tables))

    def _before_deal(self, number: int) -> bool:
        """Table ``number`` is between hands and would deal: the level, the moves, and whether
        it may deal now (hand for hand: only once every table has finished its hand)."""
        self.in_hand.discard(number)  # settled: its stacks are the hand's, its busted gone
        if self.done or number not in self.tables:
            return False
        self._take_level(number)
        if not self._hand_for_hand():
            self._balance()
            return number in self.tables
        if number in self.released:
            return True
        if not self.in_hand and not self.round_busts:
            self._release()
        return number in self.released

    def _release(self) -> None:
        """Hand for hand: every table has finished; balance, then all deal the next hand."""
        self._balance()
        self.hand_for_hand_rounds += 1
        self.released = set(self.tables)
        for actor in self.tables.values():
            actor.submit(StartHand())

    def _balance(self) -> None:
        """Break and balance the tables (the moves from tables between hands are made now)."""
        seating = seating_of(self.tables, self.size, uses_button=self.uses_button)
        if len(seating) < 2:
            return
        _, planned = rebalance(seating, seed=secrets.randbits(64))
        moves = free_prefix(planned, self.in_hand)
        if not moves:
            return
        placed: dict[int, tuple[int, int]] = {}
        for move in moves:
            state = make_move(self.tables, move)
            placed[state.account_id] = (move.to_table, move.to_seat)
            for conn in self.room.connections.get(state.account_id, {}).values():
                self.room.rejoin(conn, self.tables[move.to_table])
        self.moves += len(moves)
        log.info("tournament %s: %s player(s) moved", self.record.id, len(moves))
        asyncio.get_running_loop().create_task(self.tournaments.save_seats(self.record.id, placed))
        for number in [n for n, actor in self.tables.items() if not actor.seats]:
            self._close_table(number)
        for number, actor in self.tables.items():
            if number not in self.in_hand and any(m.to_table == number for m in moves):
                actor.submit(StartHand())  # it may have been waiting for a second player

    def _close_table(self, number: int) -> None:
        """A table broken: it leaves the room's map at once and stops outside its own command."""
        actor = self.tables.pop(number)
        self.registry.pop(actor.table_id, None)
        self.links.closed(actor)

        async def close() -> None:
            await asyncio.sleep(0)
            with contextlib.suppress(Exception):
                await actor.stop()

        asyncio.get_running_loop().create_task(close(), name=f"sng-{self.record.id}-table-{number}-close")

    def _take_level(self, dealing: int) -> None:
        """The level of the moment, read as table ``dealing``'s next hand is dealt: its stakes
        for the tables (a table in a hand keeps its hand's), and that table's game of the moment."""
        reading = self.reading()
        if reading.level_number != self.level:
            self.level = reading.level_number
            for number, actor in self.tables.items():
                actor.set_config(self._config(number, reading))
        actor = self.tables[dealing]
        config = self._config(dealing, reading)
        if actor.config != config:
            actor.set_config(config)

    async def hand_started(self, number: int, hand_id: str) -> None:
        self.dealing.add(number)
        self.in_hand.add(number)
        self.released.discard(number)
        await self.tournaments.start_hand(self.record.id, hand_id, number, self.level)

    async def hand_voided(self, number: int, hand_id: str, reason: str) -> None:
        self.dealing.discard(number)
        await self.tournaments.void_hand(hand_id, reason)

    async def hand_finished(self, number: int, end: HandEnd) -> None:
        """The hand's stacks and the clock, then its busts (hand for hand: the round's, once
        every table has finished); the prizes when one is left."""
        result = end.hand.result
        start = end.hand.initial_stacks
        stacks = {end.accounts[seat]: result.final_stacks[seat] for seat in end.accounts}
        actor = self.tables[number]
        names = {seat: state.name for seat, state in actor.seats.items()}
        counts = end.protected_counts  # the day's protected all-ins, as the table said them
        phh, text = operator_histories(
            end.hand, end.hand_id, names, end.table_name, end.time_banks, protected_counts=counts
        )
        await self.tournaments.finish_hand(
            self.record.id,
            end.hand_id,
            stacks,
            self.clock.checkpoint(self.now()).to_dict(),
            phh=phh,
            text=text,
        )
        busted = [
            Bust(self._entry_no(end.accounts[seat]), start[seat], table=number, seat=seat)
            for seat in sorted(end.accounts)
            if result.final_stacks[seat] == 0
        ]
        self.dealing.discard(number)
        if self._hand_for_hand():
            # The round's busts are placed together once every table's hand has ended; the
            # tables deal again once all are settled (the last one's _before_deal).
            self.round_busts.extend(busted)
            if self.dealing:
                return
            busted, self.round_busts = self.round_busts, []
        if busted:
            await self._place(busted)

    def _entry_no(self, account_id: int) -> int:
        entry = self.record.entry(account_id)
        if entry is None:  # pragma: no cover - every seat is an entry's
            raise TournamentStateError(f"account {account_id} has no entry in {self.record.name!r}")
        return entry.entry_no

    async def _place(self, busted: list[Bust]) -> None:
        async with self.entry_lock:
            finishes = list(self.standings.bust(busted))
            await self._name_winner(finishes)

    async def _name_winner(self, finishes: list[Finish]) -> None:
        """The places of ``finishes`` stored, with the win when one entry is left (not while
        late registration is open: an opponent may still come); then the prizes."""
        if self.standings.remaining == 1 and not self.late_registration_open():
            out = {f.player for f in self.standings.finishes}
            winner = next(e.entry_no for e in self.record.entries if e.entry_no not in out)
            finishes.append(self.standings.win(winner))
        if finishes:
            await self.tournaments.place(self.record.id, {f.player: (f.place, f.tied) for f in finishes})
            self.record = await self.tournaments.get(self.record.id)  # the places, for re-entries
        if self.standings.complete:
            await self._pay_out(self.standings.finishes)

    async def late_registration_check(self) -> None:
        """Late registration closed with one entry left (nobody came to play him): he wins."""
        async with self.entry_lock:
            if not self.done and self.standings.remaining == 1 and not self.late_registration_open():
                await self._name_winner([])

    async def place_unplaced(self) -> None:
        """After a restart: entries out of chips whose bust was not stored before the stop are
        placed now, together (their stacks at the start of that hand are not known: a tie)."""
        started = self.record.started_at is not None
        out = [e for e in self.record.entries if started and e.stack == 0 and e.place is None]
        if out:
            async with self.entry_lock:
                await self._name_winner(list(self.standings.bust([Bust(e.entry_no, 0) for e in out])))

    # -- late entries -------------------------------------------------------------------------------

    def _late_seat(self) -> tuple[int, int]:
        tables = [
            TableNow(
                number, frozenset(actor.seats), frozenset(n for n, s in actor.seats.items() if s.stack > 0),
                self.uses_button, actor.dealer.last_button,
            )
            for number, actor in self.tables.items()
        ]  # fmt: skip
        table_no, seat = late_seat(tables, self.size, new_table=self.highest_table + 1)
        if table_no > MAX_TABLES:
            raise TournamentStateError(f"{self.record.name!r} has no table left for another entry")
        return table_no, seat

    async def enter(self, account_id: int) -> TournamentRecord:
        """A late entry or a re-entry (R-TOURNAMENT-LATE-REGISTRATION, R-TOURNAMENT-REENTRY-LIMIT): the
        buy-in through the store, then a seat at the table with the fewest players."""
        async with self.entry_lock:
            if not self.late_registration_open():
                closed = (
                    "has no late registration"
                    if self.record.late_levels == 0
                    else "is closed to late entries"
                )
                raise TournamentStateError(f"{self.record.name!r} {closed}: it is {self.record.status}")
            latest = self.record.entry(account_id)
            if latest is not None and latest.place is None:
                raise TournamentStateError(f"you are still in {self.record.name!r}")
            if any(actor.seat_of(account_id) is not None for actor in self.tables.values()):
                # His busted seat is cleared when his last hand is settled, a moment after it.
                raise TournamentStateError("your last hand is being settled: enter again in a moment")
            table_no, seat = self._late_seat()
            record = await self.tournaments.enter_late(self.record.id, account_id, table_no, seat)
            self.record = record
            self.standings = rebuilt_standings(record)
            entry = record.entry(account_id)
            assert entry is not None and entry.place is None
            if table_no in self.tables and seat in self.tables[table_no].seats:
                # Taken by a move while the store wrote the entry (or the table broke): seat again.
                table_no, seat = self._late_seat()
                await self.tournaments.save_seats(record.id, {account_id: (table_no, seat)})
            actor = self.tables.get(table_no)
            if actor is None:
                actor = self._new_table(table_no)
                actor.start()
            seat_entrant(
                actor, SeatState(seat=seat, account_id=account_id, name=entry.name, stack=entry.stack)
            )
            log.info(
                "tournament %s: entry %s (%s) at table %s", record.id, entry.entry_no, entry.name, table_no
            )
        for conn in self.room.connections.get(account_id, {}).values():
            self.room.rejoin(conn, actor)
        if table_no not in self.in_hand:
            actor.submit(StartHand())  # it may have been waiting for a second player
        return record

    async def _pay_out(self, finishes: tuple[Finish, ...]) -> None:
        entrants = len(self.record.entries)  # every entry, re-entries too
        prizes = split_ties(finishes, prize_amounts(entrants, self.record.prize_pool))
        self.record = await self.tournaments.finish(self.record.id, prizes)
        self.done = True
        log.info("tournament %s finished: %s", self.record.id, prizes)
        # The tables close after this hand's end is told (not from inside its own command).
        asyncio.get_running_loop().create_task(self._close(), name=f"sng-{self.record.id}-close")

    async def _close(self) -> None:
        await asyncio.sleep(max(0.5, self.room.settings.hand_pause_seconds))
        for actor in list(self.tables.values()):
            with contextlib.suppress(Exception):
                await actor.stop()
        if self._finished is not None:
            self._finished(self)
