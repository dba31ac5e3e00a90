"""The finishing order: who busted when, and the places of players busting together.

Players who bust in the same hand (at one table, or at several during hand-for-hand) finish in
the order of their stacks at the start of that hand, the bigger stack higher; equal stacks tie
and share their places (TDA; R-TOURNAMENT-FINISH-ORDER). A tie is listed, and its odd units of
prize money paid, in table and seat order (:mod:`.payouts`).

>>> standings = Standings(entrants=5)
>>> standings.bust([Bust(1, 300, table=1, seat=2), Bust(2, 500, table=1, seat=4)])
(Finish(player=2, place=4, tied=1, table=1, seat=4), Finish(player=1, place=5, tied=1, table=1, seat=2))
>>> [(f.player, f.place, f.tied) for f in standings.bust([Bust(3, 400, 1, 1), Bust(4, 400, 1, 3)])]
[(3, 2, 2), (4, 2, 2)]
>>> standings.win(5).place, standings.complete
(1, True)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from .seating import PlayerId


class StandingsError(ValueError):
    """Raised for a bust or a win that cannot be (a player twice, more players than entered)."""


@dataclass(frozen=True, slots=True)
class Bust:
    """A player out: his stack at the start of the hand he lost, and where he sat in it."""

    player: PlayerId
    start_stack: int
    table: int = 0
    seat: int = 0


@dataclass(frozen=True, slots=True)
class Finish:
    """A player's place (the best of a tie) and how many share it (1: nobody)."""

    player: PlayerId
    place: int
    tied: int = 1
    table: int = 0
    seat: int = 0

    @property
    def places(self) -> range:
        """The places a tie shares (only this one when untied)."""
        return range(self.place, self.place + self.tied)


def bust_groups(per_table: Sequence[Sequence[Bust]], *, hand_for_hand: bool) -> list[list[Bust]]:
    """The busts of one round of hands (one hand at each table, in table order) as the groups
    that bust together: one group per table, placed in table order, or hand for hand all of
    them at once (R-TOURNAMENT-HAND-FOR-HAND)."""
    if hand_for_hand:
        together = [b for table in per_table for b in table]
        return [together] if together else []
    return [list(table) for table in per_table if table]


class Standings:
    """The finishing order built from the busts, last place first."""

    def __init__(self, entrants: int) -> None:
        if entrants < 2:
            raise StandingsError(f"a tournament has 2 entrants or more, not {entrants}")
        self.entrants = entrants
        self._finishes: list[Finish] = []
        self._out: set[PlayerId] = set()

    @property
    def remaining(self) -> int:
        return self.entrants - len(self._finishes)

    @property
    def complete(self) -> bool:
        return self.remaining == 0

    def bust(self, group: Sequence[Bust]) -> tuple[Finish, ...]:
        """Place players who busted together; returns their finishes, best first."""
        if not group:
            return ()
        players = [b.player for b in group]
        if len(set(players)) != len(players) or self._out & set(players):
            raise StandingsError(f"a player busts only once: {players}")
        if len(group) >= self.remaining:
            raise StandingsError(f"{len(group)} busts with {self.remaining} left: someone must win")
        ordered = sorted(group, key=lambda b: (-b.start_stack, b.table, b.seat))
        place = self.remaining - len(group) + 1
        finishes: list[Finish] = []
        index = 0
        while index < len(ordered):
            same = [b for b in ordered[index:] if b.start_stack == ordered[index].start_stack]
            for b in same:
                finishes.append(Finish(b.player, place + index, len(same), b.table, b.seat))
            index += len(same)
        self._record(finishes)
        return tuple(finishes)

    def win(self, player: PlayerId) -> Finish:
        """The last player left wins."""
        if self.remaining != 1:
            raise StandingsError(f"a winner is named when one player is left, not {self.remaining}")
        if player in self._out:
            raise StandingsError(f"player {player} is already out")
        finish = Finish(player, 1)
        self._record([finish])
        return finish

    def _record(self, finishes: Sequence[Finish]) -> None:
        # best first within the group; the whole list is kept best first
        self._finishes[:0] = finishes
        self._out.update(f.player for f in finishes)

    @property
    def finishes(self) -> tuple[Finish, ...]:
        """Every finish so far, best place first."""
        return tuple(self._finishes)
