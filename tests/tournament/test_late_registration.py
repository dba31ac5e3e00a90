"""Late registration as the room decides it (server/tournaments/late.py): open to the end of level
L (a break after it is past it), and the seat of a late entry: the table with the fewest players,
out of the next hand's blinds where a seat is free, a new table when every one is full
(R-TOURNAMENT-LATE-REGISTRATION, R-TOURNAMENT-LATE-SEAT)."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime

from studpoker.server.tournaments.late import TableNow, in_next_blinds, late_registration_open, late_seat
from studpoker.store.tournaments import TournamentRecord
from studpoker.tournament.clock import read
from studpoker.tournament.standard import REGULAR, TURBO

NOW = datetime(2026, 12, 1, 18, 0, tzinfo=UTC)


def _record(late_levels: int, status: str = "running") -> TournamentRecord:
    return TournamentRecord(
        id=1, name="MTT", game="7S", structure="regular", buy_in=100, fee=0, seats=100, status=status,
        starting_stack=3_000, clock=None, hands_played=0, created_at=NOW, started_at=NOW, finished_at=None,
        starts_at=NOW, late_levels=late_levels,
    )  # fmt: skip


def test_r_tournament_late_registration_is_open_to_the_end_of_its_level() -> None:
    record = _record(late_levels=4)
    # Regular: 15-minute levels, a 5-minute break after level 4.
    assert late_registration_open(record, read(REGULAR, 0))
    assert late_registration_open(record, read(REGULAR, 4 * 900 - 1))  # the last second of level 4
    assert not late_registration_open(record, read(REGULAR, 4 * 900 + 1))  # the break after it
    assert not late_registration_open(record, read(REGULAR, 6 * 900))
    # A break before level L is still within it; none at all without late levels, or not running.
    assert late_registration_open(_record(late_levels=5), read(REGULAR, 4 * 900 + 1))
    assert not late_registration_open(_record(late_levels=0), read(REGULAR, 0))
    assert not late_registration_open(replace(record, status="finished"), read(REGULAR, 0))
    assert late_registration_open(_record(late_levels=1), read(TURBO, 299))
    assert not late_registration_open(_record(late_levels=1), read(TURBO, 300))


def _table(number: int, seats: set[int], *, busted: frozenset[int] = frozenset(), **kw: object) -> TableNow:
    return TableNow(number, frozenset(seats | busted), frozenset(seats), **kw)  # type: ignore[arg-type]


def test_r_tournament_late_seat_at_the_table_with_the_fewest_players() -> None:
    tables = [_table(1, {1, 2, 3, 4, 5}), _table(2, {2, 3, 5, 7}), _table(3, {1, 2, 3, 6})]
    # Of the two short tables the lowest-numbered; its first empty seat (stud: no blinds).
    assert late_seat(tables, 8, new_table=4) == (2, 1)
    # A seat held by a player out of chips (not cleared yet) is not free: it counts as taken,
    # though not as a player.
    busted = [_table(1, {1}, busted=frozenset({2})), _table(2, {1, 2})]
    assert late_seat(busted, 8, new_table=3) == (1, 3)
    # Every table full: a new one.
    full = [_table(n, set(range(1, 9))) for n in (1, 2)]
    assert late_seat(full, 8, new_table=5) == (5, 1)
    assert late_seat([], 8, new_table=1) == (1, 1)


def test_r_tournament_late_seat_out_of_the_next_blinds() -> None:
    # Last button seat 1; players at 1, 3, 5, 8 (10 seats): the button moves to 3, the blinds
    # are 5 and 8. Seated at 4 he would be the small blind, at 6 or 7 the big blind; at 2 he
    # would have the button, at 9 or 10 nothing.
    table = _table(1, {1, 3, 5, 8}, blinds=True, last_button=1)
    assert [s for s in range(1, 11) if s not in table.taken and in_next_blinds(s, table)] == [4, 6, 7]
    assert late_seat([table], 10, new_table=2) == (1, 2)
    # Only a blind seat free: that one all the same (button 3, small blind 4, big blind 5).
    cramped = _table(1, set(range(1, 11)) - {5}, blinds=True, last_button=2)
    assert in_next_blinds(5, cramped) and late_seat([cramped], 10, new_table=2) == (1, 5)
    # Stud has no blinds: the first empty seat.
    assert late_seat([_table(1, {1, 3, 5, 8})], 10, new_table=2) == (1, 2)
    assert not in_next_blinds(4, _table(1, {1, 3, 5, 8}))
    # Before the first hand the lowest seat has the button: heads-up it posts the small blind.
    first = _table(1, {5}, blinds=True)
    assert in_next_blinds(8, first) and in_next_blinds(2, first)  # heads-up both post
