"""The action clock: think time, then a visible countdown, then the seat's time bank, then the
engine's timeout rule.

The clock only measures time and calls back; the table actor decides what a timeout does
(it asks the engine, ``hand.timeout``) and what a decision cost the seat's bank
(:meth:`Decision.bank_used`). Deadlines sent to clients are wall-clock Unix times.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from .protocol import ClockInfo


class _Timer(Protocol):
    def cancel(self) -> None: ...


def _loop_call_later(delay: float, callback: Callable[[], None]) -> _Timer:
    return asyncio.get_running_loop().call_later(delay, callback)


@dataclass
class Decision:
    """The decision the clock is running for.

    ``bank`` is the seat's time bank still to run after the countdown (R-TIME-BANK): the
    decision times out at ``bank_ends``. ``bank_spent`` is what ran of it before a reconnection
    pushed the countdown back (R-TIME-BANK-RECONNECT): spent even though the countdown runs
    again."""

    serial: int
    hand_id: str
    seat: int
    think_ends: float
    countdown_ends: float
    extended: bool = False
    bank: float = 0.0
    bank_spent: float = 0.0

    @property
    def bank_ends(self) -> float:
        return self.countdown_ends + self.bank

    def bank_used(self, now: float) -> float:
        """Seconds of the bank this decision has used if it ends at ``now``."""
        return self.bank_spent + min(self.bank, max(0.0, now - self.countdown_ends))

    def info(self) -> ClockInfo:
        """The decision as the clients are told it (``clock`` on events and snapshots)."""
        return ClockInfo(
            seat=self.seat,
            think_ends=self.think_ends,
            countdown_ends=self.countdown_ends,
            extended=self.extended,
            bank_ends=self.bank_ends,
        )


class ActionClock:
    """One running decision at a time; ``on_expire(serial)`` is called when its countdown and
    then its time bank have run out.

    ``now`` and ``call_later`` are the clock it reads and schedules on (the table's clock port;
    by default wall-clock time and the running event loop)."""

    def __init__(
        self,
        think_seconds: float,
        countdown_seconds: float,
        on_expire: Callable[[int], None],
        *,
        now: Callable[[], float] = time.time,
        call_later: Callable[[float, Callable[[], None]], _Timer] = _loop_call_later,
    ) -> None:
        self.think_seconds = think_seconds
        self.countdown_seconds = countdown_seconds
        self._on_expire = on_expire
        self._now = now
        self._call_later = call_later
        self._serial = 0
        self._handle: _Timer | None = None
        self.current: Decision | None = None

    def start(self, hand_id: str, seat: int, *, bank: float = 0.0) -> Decision:
        """A new decision for ``seat``, with ``bank`` seconds of his time bank after the countdown."""
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
            bank=max(0.0, bank),
        )
        self.current = decision
        self._schedule(decision)
        return decision

    def extend(self) -> bool:
        """Reconnection while the clock runs: ``countdown_seconds`` more from now, once per decision.
        Back during his time bank: what ran of it is spent, the rest runs after the new countdown."""
        decision = self.current
        if decision is None or decision.extended:
            return False
        now = self._now()
        ran = min(decision.bank, max(0.0, now - decision.countdown_ends))
        decision.bank -= ran
        decision.bank_spent += ran
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
        delay = max(0.0, decision.bank_ends - self._now())
        serial = decision.serial
        self._handle = self._call_later(delay, lambda: self._on_expire(serial))
