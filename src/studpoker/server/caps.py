"""Caps on what one client may make the room do (issue 10, point 2): a sliding-window counter
for the seat-state commands of an account at a table. The socket and watcher caps are counts the
room and the table actors keep themselves (:meth:`Room.attach`, the actor's ``Watch``)."""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field


@dataclass
class SlidingWindow:
    """At most ``limit`` events per key within any ``window`` seconds.

    Memory stays bounded by the keys active within the window: every ``prune_every`` new keys,
    the keys whose last event is older than the window are dropped.
    """

    limit: int
    window: float
    clock: Callable[[], float] = time.monotonic
    prune_every: int = 1024
    _events: dict[Hashable, deque[float]] = field(default_factory=dict)
    _new_keys: int = 0

    def allow(self, key: Hashable) -> bool:
        """Count one event for ``key`` if it is within the limit; False (not counted) if not."""
        now = self.clock()
        stamps = self._events.get(key)
        if stamps is None:
            self._new_keys += 1
            if self._new_keys >= self.prune_every:
                self._prune(now)
            stamps = self._events[key] = deque()
        while stamps and now - stamps[0] >= self.window:
            stamps.popleft()
        if len(stamps) >= self.limit:
            return False
        stamps.append(now)
        return True

    def retry_after(self, key: Hashable) -> float:
        """Seconds until ``key`` may send again (0 when it may now)."""
        stamps = self._events.get(key)
        if not stamps or len(stamps) < self.limit:
            return 0.0
        return max(0.0, self.window - (self.clock() - stamps[-self.limit]))

    def _prune(self, now: float) -> None:
        self._new_keys = 0
        for key in [k for k, s in self._events.items() if not s or now - s[-1] >= self.window]:
            del self._events[key]

    def __len__(self) -> int:
        return len(self._events)
