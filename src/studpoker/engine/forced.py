"""Forced bets that differ from the table's usual ones: per-seat antes and Omaha blinds.

A table posts one ante for everyone (stud) and a small and a big blind left of the button
(Omaha). Real hands, mostly tournament hands replayed from histories, have others: a button
ante or a dead blind (dead money: an ante of that seat only), a hand with a single blind or
no small blind (the small blind's seat was empty), two big blinds (a player posting to come
in). :class:`ForcedBets` gives them seat by seat; ``Hand(..., forced=...)`` posts them in
place of the stakes' ante and blinds (the bets, the bring-in and every other rule stay).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from studpoker.games import Game, Stakes


class ForcedBetsError(ValueError):
    """Forced bets that cannot be posted at this table (unknown seat, negative, a straddle...)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class ForcedBets:
    """Per-seat forced bets; ``None`` keeps the table's usual ones.

    ``antes``: seat -> ante (dead money, not part of the seat's bet); a seat not named antes 0.
    ``blinds`` (Omaha only): seat -> live blind, posted before the deal as the seat's bet in the
    pre-flop round; a seat not named posts none. The largest blind is the big blind: it is the
    bet for the cap and the amount to call (a short one stands, as a short big blind does), and
    the first player after it (clockwise; of equal largest blinds, the last one from the
    button's left) acts first. No blind may exceed the small bet: a straddle is not played.
    """

    antes: Mapping[int, int] | None = None
    blinds: Mapping[int, int] | None = None
    # The table's big blind when others post a big blind too (R-O8-POST-TO-COME-IN): the action
    # starts left of him, not of the last poster. None: the last of the largest blinds.
    big_blind: int | None = None
    # Seats whose ante is a missed small blind posted dead (R-O8-MISSED-BLINDS): its events say so.
    dead_blinds: frozenset[int] = frozenset()

    def seat_antes(self, seat_numbers: Sequence[int]) -> list[int] | None:
        """The ante of each seat in ``seat_numbers`` order, or None for the stakes' ante."""
        return None if self.antes is None else [self.antes.get(s, 0) for s in seat_numbers]

    def seat_blinds(self, seat_numbers: Sequence[int]) -> list[int] | None:
        """The blind of each seat in ``seat_numbers`` order, or None for the usual blinds."""
        return None if self.blinds is None else [self.blinds.get(s, 0) for s in seat_numbers]

    def check(self, game: Game, stakes: Stakes, seat_numbers: Sequence[int]) -> None:
        """Raise :class:`ForcedBetsError` naming what cannot be posted at this table."""
        seats = set(seat_numbers)
        for name, amounts in (("antes", self.antes), ("blinds", self.blinds)):
            if amounts is None:
                continue
            for seat, amount in amounts.items():
                if seat not in seats:
                    raise ForcedBetsError(f"{name}: seat {seat} is not dealt in; seats: {sorted(seats)}")
                if not isinstance(amount, int) or isinstance(amount, bool) or amount < 0:
                    raise ForcedBetsError(
                        f"{name}: seat {seat} must post a whole number of units 0 or more, not {amount!r}"
                    )
        if self.big_blind is not None and (self.blinds is None or not self.blinds.get(self.big_blind)):
            raise ForcedBetsError(f"big_blind: seat {self.big_blind} posts no blind")
        if self.blinds is not None:
            if not game.has_button:
                raise ForcedBetsError(f"{game.code} has a bring-in, not blinds")
            too_big = {s: a for s, a in self.blinds.items() if a > stakes.small_bet}
            if too_big:
                raise ForcedBetsError(
                    f"blinds {too_big} are above the small bet {stakes.small_bet}: straddles are not played"
                )
