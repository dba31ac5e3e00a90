"""A tournament's tables in the room: the table actors and the pure seating kept in step.

The seating (tournament.seating) says who sits where; the table actors hold the seats the hands
are dealt from. A move (tournament.balancing) takes a player's seat, stack and all, from a table
between hands to an empty seat at another (which may be in a hand: he is dealt in at its next),
so no chip is created or lost: the stack that leaves one table is the stack that sits at the next.
"""

from __future__ import annotations

from collections.abc import Iterable

from studpoker.tournament.balancing import Move
from studpoker.tournament.seating import Seating, SeatingError, TableSeats

from ..table import SeatState, TableActor

# Tournament tables' ids: above every cash table's, inside the protocol's table ids (2**31 - 1).
# Table 1 of tournament t is BASE + t, table n is that plus (n - 1) * TABLE_STRIDE.
TABLE_ID_BASE = 2_000_000_000
TABLE_STRIDE = 1_000_000
MAX_TABLES = 140  # (2**31 - 1 - BASE) // STRIDE, less a margin


def table_id_of(tournament_id: int, table_no: int = 1) -> int:
    return TABLE_ID_BASE + tournament_id + (table_no - 1) * TABLE_STRIDE


def seating_of(actors: dict[int, TableActor], size: int, *, uses_button: bool) -> Seating:
    """The seating the actors hold now (players are account ids; busted seats left out)."""
    tables = []
    for number in sorted(actors):
        seats = {seat: state.account_id for seat, state in actors[number].seats.items() if state.stack > 0}
        tables.append(TableSeats(number, seats, actors[number].dealer.last_button))
    return Seating(size, tuple(tables), uses_button)


def free_prefix(moves: Iterable[Move], busy: set[int]) -> list[Move]:
    """The moves that can be made now: in order, up to the first from a table in a hand (the
    later ones were drawn on the seating that move makes: they are drawn again later)."""
    ready = []
    for move in moves:
        if move.from_table in busy:
            break
        ready.append(move)
    return ready


def make_move(actors: dict[int, TableActor], move: Move) -> SeatState:
    """Carry one player, stack and all, from his seat to the new one (the origin is between
    hands; a busted seat not yet cleared at the destination is taken over)."""
    origin, target = actors[move.from_table], actors[move.to_table]
    state = origin.seats.get(move.from_seat)
    if state is None:
        raise SeatingError(f"no player in seat {move.from_seat} of table {move.from_table}")
    taken = target.seats.get(move.to_seat)
    if taken is not None and taken.stack > 0:
        raise SeatingError(f"seat {move.to_seat} of table {move.to_table} is taken")
    del origin.seats[move.from_seat]
    origin.seating.changed("stood_up", move.from_seat)
    moved = SeatState(seat=move.to_seat, account_id=state.account_id, name=state.name, stack=state.stack)
    target.seats[move.to_seat] = moved
    target.seating.changed("sat_down", move.to_seat)
    return moved


def seat_entrant(actor: TableActor, state: SeatState) -> None:
    """A late entry (or a re-entry) sits down at an empty seat, from between hands or during one
    (he is dealt in at the next): his chips are his new entry's starting stack."""
    if state.seat in actor.seats:
        raise SeatingError(f"seat {state.seat} of table {actor.table_id} is taken")
    actor.seats[state.seat] = state
    actor.seating.changed("sat_down", state.seat)
