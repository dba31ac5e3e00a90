"""Table balancing, breaking, the final table and hand for hand (R-TOURNAMENT-BALANCE,
R-TOURNAMENT-BREAK-TABLES, R-TOURNAMENT-HAND-FOR-HAND), with hypothesis over fields of 2 to 200."""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from studpoker.tournament.balancing import Move, hand_for_hand, rebalance
from studpoker.tournament.seating import Seating, SeatingError, TableSeats, draw_seats, tables_needed


def _sizes(seating: Seating) -> list[int]:
    return [len(t) for t in seating.tables]


def _check(seating: Seating, players: set[int]) -> None:
    seated = [p for t in seating.tables for p in t.seats.values()]
    assert sorted(seated) == sorted(players), "a player lost or seated twice"
    assert len(seating.tables) == tables_needed(len(players), seating.size)
    assert max(_sizes(seating)) - min(_sizes(seating)) <= 1
    assert all(1 <= seat <= seating.size for t in seating.tables for seat in t.seats)
    assert seating.final_table == (len(players) <= seating.size)


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    entrants=st.integers(2, 200),
    size=st.integers(2, 10),
    uses_button=st.booleans(),
    seed=st.integers(0, 2**32 - 1),
)
def test_tables_stay_within_one_and_fewest_after_every_bust(
    entrants: int, size: int, uses_button: bool, seed: int
) -> None:
    rng = random.Random(seed)  # the busts and buttons, hand after hand, from one drawn seed
    players = set(range(1, entrants + 1))
    seating = draw_seats(sorted(players), size, seed=rng.randrange(2**32), uses_button=uses_button)
    _check(seating, players)
    while len(players) > 1:
        # a hand at each table: any of its players but one may bust; buttons move on
        busted: list[int] = []
        tables = []
        for table in seating.tables:
            count = min(rng.choice([0, 0, 1, len(table)]), len(table) - 1)  # mostly one at a time
            losers = rng.sample(table.players, rng.randint(0, count))
            busted += losers[: len(players) - len(busted) - 1]
            tables.append(table.with_button(rng.choice([None, *table.occupied])))
        seating = seating.replace(*tables).remove(busted)
        players -= set(busted)
        before = {p: seating.where(p) for p in players}
        seating, moves = rebalance(seating, seed=rng.randrange(2**32))
        _check(seating, players)
        for move in moves:  # each move starts where the player was and ends in an empty seat
            assert before[move.player] == (move.from_table, move.from_seat)
            before[move.player] = (move.to_table, move.to_seat)
        assert all(seating.where(p) == where for p, where in before.items())


def test_the_player_due_the_big_blind_moves_to_the_worst_seat_of_the_short_table() -> None:
    long = TableSeats(1, {1: 11, 2: 12, 3: 13, 4: 14, 5: 15}, last_button=1)  # blinds 3 and 4 next
    short = TableSeats(2, {1: 21, 2: 22, 6: 26}, last_button=6)  # button 1, blinds 2 and 6 next
    seating, moves = rebalance(Seating(6, (long, short), uses_button=True), seed=1)
    assert moves == (Move(14, 1, 4, 2, 3, "balance"),)  # 3, between the blinds: the next big blind
    assert seating.table(2).seats == {1: 21, 2: 22, 3: 14, 6: 26}


def test_stud_tables_are_balanced_by_position() -> None:
    long = TableSeats(1, {1: 11, 2: 12, 3: 13, 4: 14, 5: 15, 6: 16})
    short = TableSeats(2, {1: 21, 2: 22, 3: 23, 4: 24, 5: 25, 6: 26}).without(5).without(2)
    seating, moves = rebalance(Seating(8, (long, short)), seed=1)
    assert moves == (Move(12, 1, 2, 2, 2, "balance"),)  # the last seat opened, from the same seat
    assert seating.table(2).seats[2] == 12 and 2 not in seating.table(1).seats
    gap = TableSeats(1, {1: 11, 3: 13, 4: 14, 6: 16, 7: 17, 8: 18})
    _, moves = rebalance(Seating(8, (gap, TableSeats(2, {1: 21, 3: 23, 5: 25, 7: 27}).without(5))), seed=1)
    assert moves == (Move(16, 1, 6, 2, 5, "balance"),)  # seat 5 empty at the long table: the next


def test_the_highest_numbered_table_breaks_into_the_short_tables() -> None:
    tables = (
        TableSeats(1, {1: 1, 2: 2, 3: 3, 4: 4}),
        TableSeats(2, {1: 5, 2: 6, 3: 7}),
        TableSeats(3, {1: 8, 2: 9}),
    )
    seating, moves = rebalance(Seating(5, tables), seed=7)
    assert [t.number for t in seating.tables] == [1, 2] and sorted(_sizes(seating)) == [4, 5]
    assert sorted(m.player for m in moves if m.reason == "break") == [8, 9]
    assert {m.from_table for m in moves} == {3}


def test_the_final_table_when_everyone_fits() -> None:
    tables = (TableSeats(1, {1: 1, 4: 2, 6: 3}), TableSeats(2, {2: 4, 5: 5}))
    seating, moves = rebalance(Seating(6, tables), seed=3)
    assert seating.final_table and len(seating) == 5 and len(moves) == 2
    assert sorted(seating.players) == [1, 2, 3, 4, 5]


def test_hand_for_hand_one_off_the_money_at_several_tables() -> None:
    assert hand_for_hand(remaining=16, paid=15, tables=2)
    assert not hand_for_hand(remaining=17, paid=15, tables=2)
    assert not hand_for_hand(remaining=15, paid=15, tables=2)
    assert not hand_for_hand(remaining=4, paid=3, tables=1)


def test_the_first_draw_is_balanced_and_replays_from_its_seed() -> None:
    seating = draw_seats(list(range(1, 20)), 8, seed=5)
    assert _sizes(seating) == [7, 6, 6]
    assert seating == draw_seats(list(range(1, 20)), 8, seed=5) != draw_seats(list(range(1, 20)), 8, seed=6)


def test_impossible_seatings_are_refused() -> None:
    with pytest.raises(SeatingError, match="seated twice"):
        Seating(6, (TableSeats(1, {1: 1, 2: 2}), TableSeats(2, {1: 2})))
    with pytest.raises(SeatingError, match="no seat 7"):
        Seating(6, (TableSeats(1, {7: 1}),))
    with pytest.raises(SeatingError, match="2 players or more"):
        Seating(1, ())
    with pytest.raises(SeatingError, match="entered twice"):
        draw_seats([1, 1, 2], 6, seed=1)
    with pytest.raises(SeatingError, match="2 players or more"):
        draw_seats([1], 6, seed=1)
    with pytest.raises(SeatingError, match="taken"):
        TableSeats(1, {1: 1}).with_player(1, 2)
    with pytest.raises(SeatingError, match="not seated"):
        Seating(6, (TableSeats(1, {1: 1}),)).where(2)


# --------------------------------------------------------------------------- the button (issue 16)
# An independent model of the room's moving button (server/table/hand.py, tournament/positions.py):
# the next button is the first player clockwise after the last one (the lowest seat at first), the
# blinds the two players after it (heads-up the button posts the small blind).


def _model_next_button(last: int | None, occupied: list[int]) -> int:
    seats = sorted(occupied)
    if last is None:
        return seats[0]
    return next((s for s in seats if s > last), seats[0])


def _model_blinds(button: int, occupied: list[int]) -> tuple[int, int]:
    seats = sorted(occupied)
    at = seats.index(button)
    if len(seats) == 2:
        return button, seats[1 - at]
    return seats[(at + 1) % len(seats)], seats[(at + 2) % len(seats)]


def _model_wait(last: int | None, occupied: list[int], seat: int) -> tuple[bool, int]:
    """Dealing hand after hand: whether ``seat`` posts the next hand's small blind, and how many
    hands are dealt before he posts a big blind."""
    button = _model_next_button(last, occupied)
    small_next = _model_blinds(button, occupied)[0] == seat
    for hands in range(len(occupied) + 1):
        if _model_blinds(button, occupied)[1] == seat:
            return small_next, hands
        button = _model_next_button(button, occupied)
    raise AssertionError(f"seat {seat} never posts the big blind")


def _apply(seating: Seating, move: Move) -> Seating:
    """The seating after one move (a broken table leaves the seating with its first mover)."""
    if move.reason == "break":
        if move.from_table in [t.number for t in seating.tables]:
            seating = seating.without_table(move.from_table)
    else:
        seating = seating.replace(seating.table(move.from_table).without(move.from_seat))
    return seating.replace(seating.table(move.to_table).with_player(move.to_seat, move.player))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    entrants=st.integers(2, 200),
    size=st.integers(3, 10),
    seed=st.integers(0, 2**32 - 1),
)
def test_r_tournament_balance_button_no_free_pass_over_the_blinds(
    entrants: int, size: int, seed: int
) -> None:
    """Board games, fields of 2 to 200 busting hand after hand: every balancing move takes the
    player who posts the long table's next big blind, and seats him where he posts a big blind
    soonest (never the next small blind while another seat is free), by each table's button
    (the last hand's, possibly on a seat emptied since)."""
    rng = random.Random(seed)
    players = set(range(1, entrants + 1))
    seating = draw_seats(sorted(players), size, seed=rng.randrange(2**32), uses_button=True)
    while len(players) > 1:
        tables = [t.with_button(rng.choice([None, *t.occupied])) for t in seating.tables]
        busted = [p for t in tables for p in t.players if rng.random() < 0.05][: len(players) - 1]
        seating = seating.replace(*tables).remove(busted)
        players -= set(busted)
        after, moves = rebalance(seating, seed=rng.randrange(2**32))
        state = seating
        for move in moves:
            if move.reason == "balance":
                long, short = state.table(move.from_table), state.table(move.to_table)
                occupied = list(long.occupied)
                button = _model_next_button(long.last_button, occupied)
                assert move.from_seat == _model_blinds(button, occupied)[1], "not the next big blind"
                empty = short.empty_seats(state.size)
                waits = {s: _model_wait(short.last_button, [*short.occupied, s], s) for s in empty}
                best = min(waits.values())
                assert waits[move.to_seat] == best, f"seat {move.to_seat} of {waits}: a free pass"
            state = _apply(state, move)
        assert {p: state.where(p) for p in players} == {p: after.where(p) for p in players}
        seating = after
