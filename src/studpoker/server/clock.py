"""The action clock: think time, then a visible countdown, then the engine's timeout rule.

The clock only measures time and calls back; the table actor decides what a timeout does
(it asks the engine, ``hand.timeout``). Deadlines sent to clients are wall-clock Unix times.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from dataclasses import dataclass


@dataclass
class Decision:
    """The decision the clock is running for."""

    serial: int
    hand_id: str
    seat: int
    think_ends: float
    countdown_ends: float
    extended: bool = False


class ActionClock:
    """One running decision at a time; ``on_expire(serial)`` is called when its countdown ends."""

    def __init__(
        self,
        think_seconds: float,
        countdown_seconds: float,
        on_expire: Callable[[int], None],
        *,
        now: Callable[[], float] = time.time,
    ) -> None:
        self.think_seconds = think_seconds
        self.countdown_seconds = countdown_seconds
        self._on_expire = on_expire
        self._now = now
        self._serial = 0
        self._handle: asyncio.TimerHandle | None = None
        self.current: Decision | None = None

    def start(self, hand_id: str, seat: int) -> Decision:
        self.cancel()
        self._serial += 1
        now = self._now()
        think_ends = now + self.think_seconds
        decision = Decision(
            serial=self._serial,
            hand_id=hand_id,
            seat=seat,
            think_ends=think_ends,
            countdown_ends=think_ends + self.countdown_seconds,
        )
        self.current = decision
        self._schedule(decision)
        return decision

    def extend(self) -> bool:
        """Reconnection while the clock runs: ``countdown_seconds`` more from now, once per decision."""
        decision = self.current
        if decision is None or decision.extended:
            return False
        now = self._now()
        decision.extended = True
        decision.countdown_ends = max(decision.countdown_ends, now + self.countdown_seconds)
        decision.think_ends = min(decision.think_ends, decision.countdown_ends)
        self._schedule(decision)
        return True

    def cancel(self) -> None:
        if self._handle is not None:
            self._handle.cancel()
            self._handle = None
        self.current = None

    def is_current(self, serial: int) -> bool:
        return self.current is not None and self.current.serial == serial

    def _schedule(self, decision: Decision) -> None:
        if self._handle is not None:
            self._handle.cancel()
        delay = max(0.0, decision.countdown_ends - self._now())
        loop = asyncio.get_running_loop()
        self._handle = loop.call_later(delay, self._on_expire, decision.serial)
