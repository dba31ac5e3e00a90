"""Who sits where in a tournament: tables of numbered seats, the first draw, the busts.

Records here are immutable; each change makes a new one. Players are numbers (their entry
numbers); seats run from 1 to the table size. :mod:`.balancing` moves players between tables.
"""

from __future__ import annotations

import random
from collections.abc import Collection, Iterator, Mapping, Sequence
from dataclasses import dataclass, field

PlayerId = int


class SeatingError(ValueError):
    """Raised for a seating that cannot be (a player twice, a seat out of range, a bad size)."""


@dataclass(frozen=True, slots=True)
class TableSeats:
    """One table: its number, seat -> player, the board games' button (:mod:`.positions`), and
    the seats its players left, oldest first (stud tables are filled at the last one opened)."""

    number: int
    seats: Mapping[int, PlayerId]
    last_button: int | None = None
    vacated: tuple[int, ...] = ()

    @property
    def players(self) -> tuple[PlayerId, ...]:
        """The players in seat order."""
        return tuple(self.seats[s] for s in sorted(self.seats))

    @property
    def occupied(self) -> tuple[int, ...]:
        return tuple(sorted(self.seats))

    def __len__(self) -> int:
        return len(self.seats)

    def empty_seats(self, size: int) -> tuple[int, ...]:
        return tuple(s for s in range(1, size + 1) if s not in self.seats)

    def seat_of(self, player: PlayerId) -> int:
        for seat, who in self.seats.items():
            if who == player:
                return seat
        raise SeatingError(f"player {player} is not at table {self.number}")

    def without(self, seat: int) -> TableSeats:
        """The table after the player in ``seat`` left it."""
        seats = {s: p for s, p in self.seats.items() if s != seat}
        vacated = (*(s for s in self.vacated if s != seat), seat)
        return TableSeats(self.number, seats, self.last_button, vacated)

    def with_player(self, seat: int, player: PlayerId) -> TableSeats:
        """The table after ``player`` sat down in the empty ``seat``."""
        if seat in self.seats:
            raise SeatingError(f"seat {seat} of table {self.number} is taken")
        seats = {**self.seats, seat: player}
        return TableSeats(self.number, seats, self.last_button, tuple(s for s in self.vacated if s != seat))

    def with_button(self, last_button: int | None) -> TableSeats:
        return TableSeats(self.number, self.seats, last_button, self.vacated)


@dataclass(frozen=True, slots=True)
class Seating:
    """Every table still in play, by number; ``size`` is the most seats a table has; with
    ``uses_button`` players are moved by the button (board or mixed games), else by position."""

    size: int
    tables: tuple[TableSeats, ...]
    uses_button: bool = False
    _where: dict[PlayerId, tuple[int, int]] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if isinstance(self.size, bool) or not isinstance(self.size, int) or self.size < 2:
            raise SeatingError(f"a table seats 2 players or more, not {self.size!r}")
        where: dict[PlayerId, tuple[int, int]] = {}
        numbers = [t.number for t in self.tables]
        if numbers != sorted(set(numbers)):
            raise SeatingError(f"tables must be listed once each, by number: {numbers}")
        for table in self.tables:
            for seat, player in table.seats.items():
                if not 1 <= seat <= self.size:
                    raise SeatingError(f"table {table.number} has no seat {seat} (seats 1 to {self.size})")
                if player in where:
                    raise SeatingError(f"player {player} is seated twice")
                where[player] = (table.number, seat)
        object.__setattr__(self, "_where", where)

    @property
    def players(self) -> tuple[PlayerId, ...]:
        return tuple(p for t in self.tables for p in t.players)

    def __len__(self) -> int:
        return len(self._where)

    def __iter__(self) -> Iterator[TableSeats]:
        return iter(self.tables)

    def table(self, number: int) -> TableSeats:
        for table in self.tables:
            if table.number == number:
                return table
        raise SeatingError(f"no table {number}")

    def where(self, player: PlayerId) -> tuple[int, int]:
        """(table, seat) of a player still in."""
        try:
            return self._where[player]
        except KeyError:
            raise SeatingError(f"player {player} is not seated") from None

    @property
    def final_table(self) -> bool:
        """One table holds everyone left."""
        return len(self.tables) == 1

    def replace(self, *tables: TableSeats) -> Seating:
        """This seating with these tables in place of those of the same numbers."""
        new = {t.number: t for t in tables}
        return Seating(self.size, tuple(new.get(t.number, t) for t in self.tables), self.uses_button)

    def without_table(self, number: int) -> Seating:
        return Seating(self.size, tuple(t for t in self.tables if t.number != number), self.uses_button)

    def remove(self, busted: Collection[PlayerId]) -> Seating:
        """The seating after these players busted (their seats are opened, in the order given)."""
        changed: dict[int, TableSeats] = {}
        for player in busted:
            number, seat = self.where(player)
            changed[number] = changed.get(number, self.table(number)).without(seat)
        return self.replace(*changed.values())


def tables_needed(players: int, size: int) -> int:
    """The fewest tables that seat ``players`` at ``size`` seats each."""
    return max(1, -(-players // size))


def draw_seats(players: Sequence[PlayerId], size: int, *, seed: int, uses_button: bool = False) -> Seating:
    """The first seating: as few tables as hold everyone, sizes within one, every player at a
    seat drawn at random (from ``seed``: the same seed, the same draw)."""
    if len(players) < 2:
        raise SeatingError(f"a tournament needs 2 players or more, not {len(players)}")
    if len(set(players)) != len(players):
        raise SeatingError("a player is entered twice")
    rng = random.Random(seed)
    order = list(players)
    rng.shuffle(order)
    count = tables_needed(len(order), size)
    tables = []
    for number in range(1, count + 1):
        group = order[number - 1 :: count]
        seats = rng.sample(range(1, size + 1), len(group))
        tables.append(TableSeats(number, dict(zip(seats, group, strict=True))))
    return Seating(size, tuple(tables), uses_button)
