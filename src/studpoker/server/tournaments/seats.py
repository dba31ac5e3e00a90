"""A tournament table's seats: every seat with chips is dealt in.

At a cash table a player sitting out or leaving is skipped; in a tournament an absent player still
antes or posts and is folded by the clock (R-TOURNAMENT-ABSENT-PLAYS in docs/rules.md), so the
flags that would skip him are cleared as the hand is dealt. ``before_deal`` runs first: the
tournament takes the level of the moment there (the stakes of the hand about to be dealt), moves
players between its tables, and may hold the table back (hand for hand): then nobody is dealt in.
"""

from __future__ import annotations

from collections.abc import Callable

from ..table.seats import Seats, SeatState
from ..table.time_bank import TimeBankPolicy


class TournamentSeats(Seats):
    def __init__(self, banks: TimeBankPolicy, *, before_deal: Callable[[], bool]) -> None:
        super().__init__(banks)
        self.before_deal = before_deal

    def eligible(self) -> list[SeatState]:
        """Every seat with chips, in seat order, none sitting out or leaving (none at all while
        the tournament holds the table back)."""
        if not self.before_deal():
            return []
        players = []
        for _, state in sorted(self.items()):
            if state.stack > 0:
                state.sitting_out = state.sit_out_next_hand = state.leaving = state.leave_after_hand = False
                players.append(state)
        return players
