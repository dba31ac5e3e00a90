"""A mixed-game cash table's seats (issue 16, R-MIXED-ROTATION): before each deal the table takes
the config of the game of the moment from its :class:`~.rotation.MixedSchedule`.

The dealer asks :meth:`Seats.eligible` twice per hand (whether two can play, when it schedules;
who is dealt, when it deals), so the hands are not counted there: the actor's ``hand_ended``
hook counts each hand once, when it ends (finished or voided, so a voided hand still moves the
rotation on). A hand in play keeps the game it was dealt in; the next one takes the new config.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .rotation import MixedSchedule
from .seats import Seats, SeatState
from .time_bank import TimeBankPolicy

if TYPE_CHECKING:
    from .actor import TableActor


class MixedSeats(Seats):
    def __init__(self, banks: TimeBankPolicy, schedule: MixedSchedule) -> None:
        super().__init__(banks)
        self.schedule = schedule
        self._actor: TableActor | None = None

    def attach(self, actor: TableActor) -> None:
        """Drive ``actor`` (built with these seats): its config is the first game's at once (the
        lobby shows the game before any hand), its hands are counted and its lines say the game."""
        self._actor = actor
        actor.hand_ended = self.schedule.dealt
        actor.rotation_info = self.schedule.info
        actor.set_config(self.schedule.config_now())

    def eligible(self) -> list[SeatState]:
        """The seats dealt into the next hand, once the table has the next hand's config."""
        if self._actor is not None:
            self._actor.set_config(self.schedule.config_now())
        return super().eligible()
