"""A table's lobby statistics: its recent pots, the average pot and hands per hour."""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable


def table_stats(
    recent: Iterable[tuple[float, int]], *, watched_since: float, now: float, window: float = 3600.0
) -> tuple[int | None, int]:
    """The average pot and hands per hour over the hands (``(finished at, pot)``, oldest first)
    finished in the last ``window`` seconds (an hour).

    While the table has been watched for less than the window (a fresh start with no earlier
    hands in the store), the rate is extrapolated from the time it has been watched, at least
    five minutes of it, so that the first hands do not promise thousands an hour.
    """
    window = max(60.0, window)
    start = now - window
    recent = list(recent)
    pots = [pot for at, pot in recent if at >= start]
    if not pots:
        return None, 0
    watched = now - max(start, min(watched_since, recent[0][0]))
    span = min(window, max(300.0, watched))
    return round(sum(pots) / len(pots)), round(len(pots) * 3600.0 / span)


class RecentPots:
    """(finished at, pot) of a table's recent hands: seeded from the store at startup
    (``Room.start``), appended at every finished hand."""

    def __init__(self, *, since: float, window: float, keep: int = 2000) -> None:
        self.pots: deque[tuple[float, int]] = deque(maxlen=keep)
        self.since = since
        self.window = window

    def record(self, pot: int, at: float) -> None:
        self.pots.append((at, int(pot)))

    def stats(self, now: float) -> tuple[int | None, int]:
        """The average pot and hands per hour (see :func:`table_stats`)."""
        return table_stats(self.pots, watched_since=self.since, now=now, window=self.window)
