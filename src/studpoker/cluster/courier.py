"""A gateway's table commands, delivered at least once and in order per table (docs/cluster.md
"Commands across a takeover").

Core NATS drops a message no one is subscribed to. A table has no subscriber for a few seconds
when its owner changes (a dead worker's lease running out, a move between hands, an owner that
could not renew in time): a join, a seat or an action sent then would be lost, and the player
would wait for an answer that never comes (his clock running). So each command is a request:
the owner answers as soon as its actor has the command, and the courier sends it again, after
``retry_seconds``, while no one answers (no responders, or no answer within ``reply_timeout``:
an owner stopped or starved). The commands of one table leave one after the other, each once
the one before it was taken, so a retry never overtakes a later command. The owner drops a
command it already took (the sequence number: :func:`studpoker.cluster.remote.encode_command`),
so a command sent again because its answer was late is acted on once.

A command not taken within ``give_up_seconds`` is dropped and its sender told
(``on_undelivered``): the table is unavailable, not silently deaf.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass

from .bus import Bus, BusClosedError, BusError

log = logging.getLogger(__name__)


@dataclass(slots=True)
class _Parcel:
    subject: str
    payload: bytes
    sent_at: float
    on_undelivered: Callable[[], None] | None


class Courier:
    """Requests on ``bus``, one lane per key (a table id), each lane in order."""

    def __init__(
        self,
        bus: Bus,
        *,
        reply_timeout: float,
        retry_seconds: float,
        give_up_seconds: float,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.bus = bus
        self.reply_timeout = reply_timeout
        self.retry_seconds = retry_seconds
        self.give_up_seconds = give_up_seconds
        self._clock = clock
        self._lanes: dict[int, deque[_Parcel]] = {}
        self._tasks: dict[int, asyncio.Task[None]] = {}
        self.retries = 0  # sends after the first (for the operator and the tests)
        self.undelivered = 0

    def send(
        self, key: int, subject: str, payload: bytes, *, on_undelivered: Callable[[], None] | None = None
    ) -> None:
        """Queue ``payload`` for ``subject`` behind the lane's earlier commands; never waits."""
        lane = self._lanes.setdefault(key, deque())
        lane.append(_Parcel(subject, payload, self._clock(), on_undelivered))
        if key not in self._tasks:
            self._tasks[key] = asyncio.get_running_loop().create_task(self._run(key), name=f"courier-{key}")

    @property
    def waiting(self) -> int:
        """Commands not yet taken, over every lane."""
        return sum(len(lane) for lane in self._lanes.values())

    async def _run(self, key: int) -> None:
        lane = self._lanes[key]
        try:
            while lane:
                await self._deliver(lane[0])
                lane.popleft()
        finally:
            # No await between the empty check and here: a send in between found the task.
            self._lanes.pop(key, None)
            self._tasks.pop(key, None)

    async def _deliver(self, parcel: _Parcel) -> None:
        while True:
            try:
                await self.bus.request(parcel.subject, parcel.payload, timeout=self.reply_timeout)
                return
            except BusClosedError:
                return  # the gateway is stopping
            except BusError as exc:  # no responders, no answer in time, the broker away
                reason = str(exc) or type(exc).__name__
            if self._clock() - parcel.sent_at >= self.give_up_seconds:
                self.undelivered += 1
                log.warning("no one took a command on %s in %s s (%s): dropped", parcel.subject,
                            self.give_up_seconds, reason)  # fmt: skip
                if parcel.on_undelivered is not None:
                    parcel.on_undelivered()
                return
            self.retries += 1
            await asyncio.sleep(self.retry_seconds)

    async def close(self, timeout: float = 2.0) -> None:
        """Let the lanes deliver what they hold for at most ``timeout`` s, then stop them."""
        with contextlib.suppress(asyncio.TimeoutError):
            async with asyncio.timeout(timeout):
                while self._tasks:
                    await asyncio.sleep(0.01)
        for task in list(self._tasks.values()):
            task.cancel()
        for task in list(self._tasks.values()):
            with contextlib.suppress(asyncio.CancelledError):
                await task


class TakenCommands:
    """The owner's side: the number of the last command taken from each gateway's run, so that
    one the courier sent again (its answer was late) is answered but acted on once. A lane
    sends in order, so a command numbered at most the last one taken is a repeat."""

    __slots__ = ("_last",)

    def __init__(self) -> None:
        self._last: dict[tuple[str, str], int] = {}

    def first_time(self, gateway: str, boot: str, seq: int) -> bool:
        """Whether the command ``seq`` of ``gateway``'s run ``boot`` is new (and mark it taken);
        an unnumbered command (``seq`` 0) is always new."""
        if seq == 0:
            return True
        key = (gateway, boot)
        if seq <= self._last.get(key, 0):
            return False
        self._last[key] = seq
        return True
