"""The time bank (R-TIME-BANK): seconds a seat holds for the decisions that outlast the clock.

A seat's bank runs after the countdown of a decision it has not made yet; what ran is spent,
and only once it is empty does the clock rule apply (``ActionClock``, ``Decision.bank_used``).
It fills at sit-down and grows with the hands the seat plays, up to a cap (house settings:
``time_bank_*`` in :class:`~studpoker.server.settings.Settings`). It lives with the seat, in
memory, and is the player's at that table: one who gives his seat up and takes one there again
within ``time_bank_kept_seconds`` gets back the bank he left, not a full one
(R-TIME-BANK-KEPT). A restart (which cashes out every seat) starts every bank again.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..settings import Settings

# The house's defaults (Settings has the same): 30 s, 5 s more every 10 hands, 60 s at most; a
# bank given up waits a day for its player.
START_SECONDS = 30.0
KEPT_SECONDS = 86_400.0


@dataclass(slots=True)
class TimeBank:
    """One seat's bank: the seconds left, and the hands played since the seat was taken."""

    seconds: float = START_SECONDS
    hands: int = 0

    def spend(self, seconds: float) -> float:
        """Take ``seconds`` (at most what is left) out of the bank; the seconds taken."""
        used = min(self.seconds, max(0.0, seconds))
        self.seconds -= used
        return used


@dataclass(frozen=True, slots=True)
class TimeBankPolicy:
    """How a table's banks fill: ``start_seconds`` at sit-down, ``add_seconds`` more after every
    ``every_hands`` hands played, never over ``max_seconds`` (0 turns the bank off); and the banks
    its players gave up, each kept ``kept_seconds`` (by ``now``) for its player's return (0: none
    is kept). One per table: a bank is kept for the table it was left at."""

    start_seconds: float = START_SECONDS
    add_seconds: float = 5.0
    every_hands: int = 10
    max_seconds: float = 60.0
    kept_seconds: float = KEPT_SECONDS
    now: Callable[[], float] = field(default=time.time, compare=False, repr=False)
    # Account id -> the bank he gave up here, and when.
    given_up: dict[int, tuple[TimeBank, float]] = field(default_factory=dict, compare=False, repr=False)

    @classmethod
    def of(cls, settings: Settings, now: Callable[[], float] = time.time) -> TimeBankPolicy:
        """The house's policy for one table whose clock is ``now``."""
        return cls(
            start_seconds=max(0.0, settings.time_bank_seconds),
            add_seconds=max(0.0, settings.time_bank_add_seconds),
            every_hands=max(1, settings.time_bank_every_hands),
            max_seconds=max(0.0, settings.time_bank_max_seconds),
            kept_seconds=max(0.0, settings.time_bank_kept_seconds),
            now=now,
        )

    def new_bank(self) -> TimeBank:
        """A full bank, as a player new to the table gets."""
        return TimeBank(seconds=min(self.start_seconds, self.max_seconds))

    def bank_for(self, account_id: int) -> TimeBank:
        """The bank of the seat ``account_id`` takes: the one he gave up at this table less than
        ``kept_seconds`` ago, as he left it (its seconds and its hands), else a full one: standing
        up and sitting again does not fill a bank (R-TIME-BANK-KEPT)."""
        self._forget_old()
        kept = self.given_up.pop(account_id, None)
        return self.new_bank() if kept is None else kept[0]

    def give_up(self, account_id: int, bank: TimeBank) -> None:
        """He gave his seat up (stood up, freed or busted): his bank waits for his return."""
        self._forget_old()
        if self.kept_seconds > 0:
            self.given_up[account_id] = (bank, self.now())

    def _forget_old(self) -> None:
        now = self.now()
        for account_id, (_, since) in list(self.given_up.items()):
            if now - since >= self.kept_seconds:
                del self.given_up[account_id]

    def hand_played(self, bank: TimeBank) -> bool:
        """The seat played a hand to its end: every ``every_hands`` hands the bank grows.
        Whether it grew."""
        bank.hands += 1
        if bank.hands % self.every_hands or bank.seconds >= self.max_seconds:
            return False
        grown = min(self.max_seconds, bank.seconds + self.add_seconds)
        changed = grown > bank.seconds
        bank.seconds = grown
        return changed
