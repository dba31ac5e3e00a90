"""Coalesced seat updates (issue 10, point 2): a table sends its seat list at most once per
``interval`` seconds, however many seats change in between.

Every seat change used to send the whole seat list to every watcher at once: players toggling
``sit_out`` / ``sit_in`` made the room encode and send one frame per toggle per watcher. Here
the first change of a quiet table still goes out at once (no delay in normal play); changes
within the next ``interval`` are gathered, and go out together in one frame when it ends (or
earlier, just before any other message of the table, so that messages keep their order).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

# (seat, reason) of each seat that changed, in the order of their last change.
SeatChangeList = list[tuple[int | None, str]]


class SeatChanges:
    """The seat changes of one table waiting to be published; ``publish`` sends one frame."""

    def __init__(self, interval: float, publish: Callable[[SeatChangeList], None]) -> None:
        self.interval = interval
        self._publish = publish
        # The last reason per seat (``None``: several seats, e.g. busted players cashed out).
        self._pending: dict[int | None, str] = {}
        self._timer: asyncio.TimerHandle | None = None
        self.frames = 0

    @property
    def pending(self) -> bool:
        return bool(self._pending)

    def add(self, reason: str, seat: int | None) -> None:
        """A seat changed: publish now if no frame went out within ``interval``, else later."""
        self._pending.pop(seat, None)
        self._pending[seat] = reason
        if self._timer is None:
            self.flush()
            if self.interval > 0:
                self._timer = asyncio.get_running_loop().call_later(self.interval, self._tick)

    def flush(self) -> None:
        """Publish the pending changes now (one frame), if any."""
        if not self._pending:
            return
        changes = list(self._pending.items())
        self._pending.clear()
        self.frames += 1
        self._publish(changes)

    def cancel(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        self._pending.clear()

    def _tick(self) -> None:
        self._timer = None
        if self._pending:
            # Changes came in during the interval: send them, and keep the pace for the next ones.
            self.flush()
            self._timer = asyncio.get_running_loop().call_later(self.interval, self._tick)
