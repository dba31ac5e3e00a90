"""The tournament clock as a pure state: seconds played, and since when it runs.

Given "now" (seconds on any wall clock: the room passes ``time.time()``) the clock says the
level in play, whether it is a break, and the time to the next period (R-TOURNAMENT-CLOCK). The
state is two numbers, stored as they are (:meth:`ClockState.to_dict`); after a restart the room
takes the last stored state back with :meth:`ClockState.restored`, which by default does not
count the time the room was down (the tournament resumes where it stopped).

>>> from studpoker.tournament.standard import TURBO
>>> state = ClockState.started(1000.0)
>>> reading = read(TURBO, state.played_at(1000.0 + 7 * 60))
>>> reading.level_number, reading.on_break, reading.into, reading.left
(2, False, 120.0, 180.0)
>>> stored = state.checkpoint(1000.0 + 7 * 60).to_dict()
>>> ClockState.from_dict(stored).restored(5000.0).played_at(5000.0)
420.0
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

from .structure import Break, Level, Structure


class ClockError(ValueError):
    """Raised for a clock state that cannot be (negative time, a time before the clock's start)."""


@dataclass(frozen=True, slots=True)
class ClockReading:
    """Where the clock is: the period (an index into the structure's periods; the last level
    goes on for ever), the level in play (at a break, the one that follows it), the seconds into
    the period and to its end (None in the last level)."""

    period: int
    level_number: int
    level: Level
    on_break: bool
    into: float
    left: float | None

    def to_dict(self) -> dict[str, object]:
        small, big = self.level.limits
        return {
            "level": self.level_number,
            "small_bet": small,
            "big_bet": big,
            "on_break": self.on_break,
            "seconds_into": self.into,
            "seconds_left": self.left,
        }


def read(structure: Structure, played: float) -> ClockReading:
    """The reading after ``played`` seconds of tournament time."""
    if not math.isfinite(played) or played < 0:
        raise ClockError(f"seconds played must be 0 or more, not {played!r}")
    start = 0.0
    number = 0
    last = len(structure.periods) - 1
    for index, period in enumerate(structure.periods):
        if isinstance(period, Level):
            number += 1
        end = start + period.seconds
        if played < end or index == last:
            if isinstance(period, Break):
                return ClockReading(
                    index, number + 1, structure.level(number + 1), True, played - start, end - played
                )
            left = end - played if index < last else None
            return ClockReading(index, number, period, False, played - start, left)
        start = end
    raise AssertionError("a structure has a level")  # pragma: no cover


@dataclass(frozen=True, slots=True)
class ClockState:
    """``played`` seconds of tournament time up to ``since``, the wall time from which it runs
    (None: stopped, e.g. before the start or while the room pauses the tournament)."""

    played: float = 0.0
    since: float | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.played, int | float) or not math.isfinite(self.played) or self.played < 0:
            raise ClockError(f"seconds played must be 0 or more, not {self.played!r}")
        if self.since is not None and (
            not isinstance(self.since, int | float) or not math.isfinite(self.since)
        ):
            raise ClockError(f"the clock's start must be a time, not {self.since!r}")

    @classmethod
    def started(cls, now: float) -> ClockState:
        return cls(0.0, now)

    @property
    def running(self) -> bool:
        return self.since is not None

    def played_at(self, now: float) -> float:
        """Seconds of tournament time at ``now``."""
        if self.since is None:
            return self.played
        if now < self.since:
            raise ClockError(f"{now} is before the clock's start {self.since}")
        return self.played + (now - self.since)

    def stopped(self, now: float) -> ClockState:
        return ClockState(self.played_at(now), None)

    def resumed(self, now: float) -> ClockState:
        return self if self.running else ClockState(self.played, now)

    def checkpoint(self, now: float) -> ClockState:
        """The same clock with its time folded in at ``now`` (the state to store)."""
        return ClockState(self.played_at(now), now if self.running else None)

    def restored(self, now: float, *, count_downtime: bool = False) -> ClockState:
        """This stored state taken back at ``now`` after a restart: a running clock runs on from
        its stored time (``count_downtime``: from its stored start, the outage counted)."""
        if not self.running or count_downtime:
            return self
        return ClockState(self.played, now)

    def to_dict(self) -> dict[str, float | None]:
        return {"played": self.played, "since": self.since}

    @classmethod
    def from_dict(cls, data: Mapping[str, object]) -> ClockState:
        if not isinstance(data, Mapping) or set(data) != {"played", "since"}:
            raise ClockError(f"a stored clock has played and since, not {data!r}")
        played, since = data["played"], data["since"]
        if isinstance(played, bool) or not isinstance(played, int | float):
            raise ClockError(f"played must be a number, not {played!r}")
        if since is not None and (isinstance(since, bool) or not isinstance(since, int | float)):
            raise ClockError(f"since must be a number or null, not {since!r}")
        return cls(float(played), None if since is None else float(since))
