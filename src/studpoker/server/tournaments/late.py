"""Late entries in a running tournament: whether late registration is open, and the seat a new
entry takes (R-TOURNAMENT-LATE-REGISTRATION, R-TOURNAMENT-LATE-SEAT in docs/rules.md).

Late registration runs from the start to the end of level ``late_levels`` (a break after that
level is past it). A late entry, or a re-entry, sits at the table with the fewest players (of
equal tables, the lowest-numbered), at an empty seat; in the board games, where one is free, a
seat that the next hand's blinds do not reach, so that he is dealt in at the next hand without
posting out of turn. When every table is full a new table is opened for him (balancing fills it
before it deals).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from studpoker.store.tournaments import TournamentRecord
from studpoker.tournament.clock import ClockReading
from studpoker.tournament.positions import blinds, next_button


def late_registration_open(record: TournamentRecord, reading: ClockReading) -> bool:
    """Late entries are taken: the tournament runs and the level of the moment is at most
    ``late_levels`` (at a break, the level that follows counts)."""
    return record.status == "running" and 0 < reading.level_number <= record.late_levels


@dataclass(frozen=True, slots=True)
class TableNow:
    """A table as a late entry sees it: its number, the seats held (with chips or not: a seat is
    free only when nobody holds it), the seats with chips, and in the board games
    (``blinds``) the button of its last hand (None before its first)."""

    number: int
    taken: frozenset[int]
    occupied: frozenset[int]
    blinds: bool = False
    last_button: int | None = None


def in_next_blinds(seat: int, table: TableNow) -> bool:
    """An empty ``seat`` would post a blind in the table's next hand if taken now (the button
    moving on from its last hand's, tournament.positions)."""
    seated = table.occupied | {seat}
    if not table.blinds or len(seated) < 2:
        return False
    return seat in blinds(next_button(table.last_button, seated), seated)


def late_seat(tables: Sequence[TableNow], size: int, *, new_table: int) -> tuple[int, int]:
    """(table, seat) for a new entry: the table with the fewest players and an empty seat, the
    first seat there out of the next hand's blinds (else its first empty seat); every table
    full, seat 1 of table ``new_table`` (a number not in use)."""
    for table in sorted(tables, key=lambda t: (len(t.occupied), t.number)):
        empty = [seat for seat in range(1, size + 1) if seat not in table.taken]
        if empty:
            clear = [seat for seat in empty if not in_next_blinds(seat, table)]
            return table.number, (clear or empty)[0]
    return new_table, 1
