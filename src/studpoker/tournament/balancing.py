"""Table balancing as rooms do it (TDA; docs/tournaments.md#balancing; R-TOURNAMENT-BALANCE,
R-TOURNAMENT-BREAK-TABLES, R-TOURNAMENT-HAND-FOR-HAND).

After every hand (every round of hands, one at each table) :func:`rebalance`:

1. **breaks tables** while fewer would seat everyone at full tables: the highest-numbered table
   breaks first, and its players, in a random order, each take a random empty seat at one of the
   tables with the fewest players (TDA's two-step draw; any seat, blinds and button included);
2. **balances** the rest to within one player: one player at a time goes from the biggest table
   (of equal ones, the lowest-numbered) to the smallest (likewise). Who moves and where is the
   room's rule: in board and mixed games the player who would post the big blind next, into the
   worst seat of the short table (:func:`~.positions.worst_seat`), both read off each table's
   ``last_button`` (R-TOURNAMENT-BALANCE-BUTTON: the caller passes it); in stud-only games by
   position: the short table's last opened seat is filled by the player sitting in that seat
   number at the long table (or, that seat being empty there, the next player clockwise from it:
   decided here).

When one table holds everyone left it is the **final table**. Near the money the tables play
**hand for hand** (:func:`hand_for_hand`).
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Literal

from .positions import clockwise_after, next_big_blind, worst_seat
from .seating import PlayerId, Seating, TableSeats, tables_needed

MoveReason = Literal["break", "balance"]


@dataclass(frozen=True, slots=True)
class Move:
    """One player moved: from where to where, and why."""

    player: PlayerId
    from_table: int
    from_seat: int
    to_table: int
    to_seat: int
    reason: MoveReason

    def to_dict(self) -> dict[str, object]:
        return {
            "player": self.player,
            "from": [self.from_table, self.from_seat],
            "to": [self.to_table, self.to_seat],
            "reason": self.reason,
        }


def rebalance(seating: Seating, *, seed: int) -> tuple[Seating, tuple[Move, ...]]:
    """Break tables and balance the rest (module docstring); the random draws come from ``seed``."""
    rng = random.Random(seed)
    moves: list[Move] = []
    while len(seating.tables) > tables_needed(len(seating), seating.size):
        seating = _break_table(seating, seating.tables[-1], rng, moves)
    while True:
        sizes = [len(t) for t in seating.tables]
        if max(sizes) - min(sizes) <= 1:
            return seating, tuple(moves)
        long = seating.tables[sizes.index(max(sizes))]
        short = seating.tables[sizes.index(min(sizes))]
        seating = _move_one(seating, long, short, moves)


def hand_for_hand(remaining: int, paid: int, tables: int) -> bool:
    """Whether the tables play hand for hand: one player off the money, at more than one table.

    Every table then deals its hand at the same time, and players busting in that hand at
    different tables bust together (the tie rule of :mod:`.standings`).
    """
    return tables > 1 and remaining == paid + 1


def _break_table(seating: Seating, broken: TableSeats, rng: random.Random, moves: list[Move]) -> Seating:
    seating = seating.without_table(broken.number)
    movers = list(broken.players)
    rng.shuffle(movers)
    for player in movers:
        fewest = min(len(t) for t in seating.tables)
        table = rng.choice([t for t in seating.tables if len(t) == fewest])
        seat = rng.choice(table.empty_seats(seating.size))
        moves.append(Move(player, broken.number, broken.seat_of(player), table.number, seat, "break"))
        seating = seating.replace(table.with_player(seat, player))
    return seating


def _move_one(seating: Seating, long: TableSeats, short: TableSeats, moves: list[Move]) -> Seating:
    empty = short.empty_seats(seating.size)
    if seating.uses_button:
        from_seat = next_big_blind(long.last_button, long.occupied)
        to_seat = worst_seat(short.last_button, short.occupied, empty)
    else:
        opened = [s for s in short.vacated if s in empty]
        to_seat = opened[-1] if opened else empty[0]
        from_seat = to_seat if to_seat in long.seats else clockwise_after(to_seat, long.occupied)
    player = long.seats[from_seat]
    moves.append(Move(player, long.number, from_seat, short.number, to_seat, "balance"))
    return seating.replace(long.without(from_seat), short.with_player(to_seat, player))
