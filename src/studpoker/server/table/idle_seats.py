"""Seats nobody uses: a seat whose player is disconnected and sitting out is freed after the
house's ``idle_seat_seconds`` (R-IDLE-SEAT-FREED). This keeps one timer per such seat; the
seating reviews a seat at each of its changes and cashes it out when its timer's command
(``FreeIdleSeat``) arrives and the seat is still idle."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import dataclass

from .commands import Command, FreeIdleSeat
from .ports import Clock, Timer
from .seats import SeatState


@dataclass(frozen=True, slots=True)
class _Idle:
    account_id: int
    spell: int  # this idle spell's number: its timer's command must carry it
    timer: Timer


class IdleSeats:
    """The idle seats' timers: ``seconds`` from when a seat became idle (None: never freed)."""

    def __init__(self, seconds: float | None, clock: Clock, submit: Callable[[Command], None]) -> None:
        self.seconds = seconds
        self._clock = clock
        self._submit = submit
        self._idle: dict[int, _Idle] = {}
        self._spells = itertools.count(1)

    def review(self, state: SeatState, idle: bool) -> None:
        """``state`` changed: its timer starts when it became idle, and goes when it no longer is
        (a reconnect, sit_in); a seat that stays idle keeps the timer it had."""
        held = self._idle.get(state.seat)
        if idle and held is not None and held.account_id == state.account_id:
            return
        self.forget(state.seat)
        if not idle or self.seconds is None:
            return
        seat, account_id, spell = state.seat, state.account_id, next(self._spells)
        timer = self._clock.call_later(
            self.seconds, lambda: self._submit(FreeIdleSeat(seat=seat, account_id=account_id, spell=spell))
        )
        self._idle[seat] = _Idle(account_id, spell, timer)

    def due(self, cmd: FreeIdleSeat) -> bool:
        """Whether ``cmd``'s seat has been idle for the whole time: its timer is the one of the
        seat's idle spell now (a command of a timer since cancelled, or of an earlier spell, is
        not; the spell, not the clock, decides: a loop timer may run a hair early)."""
        held = self._idle.get(cmd.seat)
        return held is not None and held.account_id == cmd.account_id and held.spell == cmd.spell

    def forget(self, seat: int) -> None:
        held = self._idle.pop(seat, None)
        if held is not None:
            held.timer.cancel()

    def cancel(self) -> None:
        for seat in list(self._idle):
            self.forget(seat)
