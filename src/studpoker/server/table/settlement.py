"""Settling a hand with the store: its end (or its void) written, and retried while refused.

A hand is over for the players when its last event is sent, but the table goes on only once
the store has its end: until then the hand stays pending and the write is tried again with
backoff. While the database is what fails the end is kept (it is what the players saw); after
``refusals_before_void`` refusals of another kind the hand is voided instead.
"""

from __future__ import annotations

import enum
import logging
from collections.abc import Callable
from dataclasses import dataclass

from sqlalchemy.exc import SQLAlchemyError

from .ports import Clock, HandEnd, HandStatus, TableStore, Timer

log = logging.getLogger(__name__)


def is_database_error(exc: BaseException) -> bool:
    """Whether ``exc`` is the store failing (disk full, database locked or gone)."""
    return isinstance(exc, SQLAlchemyError | OSError | ConnectionError)


@dataclass(frozen=True, slots=True)
class RetryPolicy:
    """The backoff of a refused hand write: ``base * 2 ** failures`` seconds, at most
    ``max_delay`` (0.5 s after the first refusal, doubling up to 10 s)."""

    base: float = 0.25
    max_delay: float = 10.0
    refusals_before_void: int = 4

    def delay(self, failures: int) -> float:
        return min(self.max_delay, self.base * float(2 ** min(failures, 8)))


class Retry(enum.Enum):
    """What a retry does, once the store was asked what it has of the hand."""

    RECORDED = "recorded"  # the end committed although its write was reported failed
    VOIDED = "voided"  # the store voided it already
    WRITE_END = "write_end"  # write the end again
    VOID = "void"  # give up on the end: void the hand


class Settlement:
    """The hand writes of one table and the state of their retry."""

    def __init__(
        self,
        table_id: int,
        store: TableStore,
        clock: Clock,
        retry_due: Callable[[str], None],
        policy: RetryPolicy | None = None,
    ) -> None:
        self.table_id = table_id
        self._store = store
        self._clock = clock
        self._retry_due = retry_due
        self.policy = policy or RetryPolicy()
        self.failures = 0
        self.error: BaseException | None = None
        self._timer: Timer | None = None
        self._stopped = False  # the table shut down: nothing is retried any more

    async def finish(self, end: HandEnd) -> None:
        """Write the end of the hand. Raises if the store refused it: nothing was written (one
        transaction), the hand stays pending and the caller reports :meth:`refused`."""
        await self._store.finish_hand(end)
        self.settled()

    async def void(self, hand_id: str, reason: str) -> None:
        """Void the hand (raises if the store refuses: the caller retries or recovers)."""
        await self._store.void_hand(hand_id, reason)
        self.settled()

    def refused(self, hand_id: str, exc: BaseException) -> None:
        """The store refused the hand's end or void: try again after the backoff."""
        self.failures += 1
        self.error = exc
        if self._timer is None and not self._stopped:
            self._timer = self._clock.call_later(self.policy.delay(self.failures), lambda: self._due(hand_id))

    def _due(self, hand_id: str) -> None:
        self._timer = None
        self._retry_due(hand_id)

    def settled(self) -> None:
        self.failures = 0
        self.error = None
        self.cancel()

    def cancel(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def stop(self) -> None:
        self._stopped = True
        self.cancel()

    async def plan(self, hand_id: str, *, over: bool) -> tuple[Retry, str | None]:
        """What to do for a pending hand (``over``: its end is known), and a void's reason.

        A write can commit and still be reported as failed (the reply lost, a COMMIT that timed
        out on the client side): the store is asked first, or the retry is refused for ever.
        """
        try:
            status: HandStatus | None = await self._store.hand_status(hand_id)
        except Exception:
            # Unreadable: the database is still what fails; the write is tried again.
            status = None
        if status is not None and status.status == "finished":
            log.warning("table %s: hand %s was recorded already; settling it", self.table_id, hand_id)
            return Retry.RECORDED, None
        if status is not None and status.status == "void":
            log.warning("table %s: hand %s was voided already; settling it", self.table_id, hand_id)
            return Retry.VOIDED, status.void_reason or "could not be recorded"
        error = self.error
        database = error is not None and is_database_error(error)
        if over and (self.failures < self.policy.refusals_before_void or database):
            return Retry.WRITE_END, None
        return Retry.VOID, "could not be recorded"
