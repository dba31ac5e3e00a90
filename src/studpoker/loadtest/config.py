"""A load run's settings (``LoadConfig``), the deadline its players share, and the server's URLs."""

from __future__ import annotations

import asyncio
import logging
import math
import time
from collections.abc import Callable, Coroutine
from dataclasses import dataclass
from typing import Any

log = logging.getLogger(__name__)

PASSWORD = "loadtest-password"


def http_base(url: str) -> str:
    """``ws://host:port[/...]`` -> ``http://host:port``."""
    rest = url.split("://", 1)[-1].split("/", 1)[0]
    scheme = "https" if url.startswith("wss://") else "http"
    return f"{scheme}://{rest}"


def ws_base(url: str) -> str:
    rest = url.split("://", 1)[-1].split("/", 1)[0]
    scheme = "wss" if url.startswith(("wss://", "https://")) else "ws"
    return f"{scheme}://{rest}"


@dataclass
class LoadConfig:
    url: str
    tables: int
    players_per_table: int
    seconds: float
    think_time: float = 1.0
    # Think time drawn uniformly from think_time * [1 - jitter, 1 + jitter].
    jitter: float = 0.5
    buy_in: int | None = None
    seed: int | None = None
    name_prefix: str | None = None
    password: str = PASSWORD
    register_concurrency: int = 8
    connect_concurrency: int = 64
    setup_timeout: float = 900.0
    # Chaos: this fraction of the players drops its socket about every ``drop_every`` seconds
    # and comes back after up to ``max_away`` seconds.
    drop_fraction: float = 0.0
    drop_every: float = 5.0
    max_away: float = 3.0
    database_url: str | None = None
    # Only tables with these ids (None: the empty tables of the lobby with enough seats).
    table_ids: list[int] | None = None
    # This process's collector tuned as a room's (its pauses would count in the latencies).
    tune_gc: bool = False
    # The number of the first player in the account names (``PREFIX-NNNNN``): each worker
    # process of a run numbers its players after those of the workers before it.
    first_index: int = 0


class Control:
    """What a run's players share: the deadline (``stop_at``, infinite until the setup is done),
    whether the run is stopping, and the gate that spaces out their connections.

    A player in play registers with :meth:`listen` and is told once when the deadline comes
    (or :meth:`stop` is called): one timer for the whole run, not one wake-up per player."""

    def __init__(self, connect_gate: asyncio.Semaphore | None = None) -> None:
        self.connect_gate = connect_gate or asyncio.Semaphore(64)
        self.stopping = False
        self._stop_at = math.inf
        self._timer: asyncio.TimerHandle | None = None
        self._listeners: dict[int, Callable[[], None]] = {}
        # Awaited once the deadline comes, before the players hear it (``stop`` does not wait).
        self.before_stop: Callable[[], Coroutine[Any, Any, None]] | None = None
        self._hook: asyncio.Task[None] | None = None

    @property
    def stop_at(self) -> float:
        return self._stop_at

    @stop_at.setter
    def stop_at(self, when: float) -> None:
        self._stop_at = when
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if when != math.inf:
            self._timer = asyncio.get_running_loop().call_later(max(0.0, when - time.monotonic()), self._due)

    @property
    def over(self) -> bool:
        return self.stopping or time.monotonic() >= self._stop_at

    def listen(self, key: int, on_stop: Callable[[], None]) -> None:
        """``on_stop`` is called once when the run ends (at once if it has)."""
        if self.over:
            on_stop()
            return
        self._listeners[key] = on_stop

    def unlisten(self, key: int) -> None:
        self._listeners.pop(key, None)

    def stop(self) -> None:
        self.stopping = True
        if self._stop_at == math.inf:
            self._stop_at = time.monotonic()
        if self._timer is not None:
            self._timer.cancel()
        self._due()

    def _due(self) -> None:
        self._timer = None
        early = self._stop_at - time.monotonic()
        if early > 0 and not self.stopping:  # the loop's timer rounds: wait the rest
            self._timer = asyncio.get_running_loop().call_later(early, self._due)
            return
        hook, self.before_stop = self.before_stop, None
        if hook is not None and not self.stopping:
            # The window's end is read before anyone stands up: 2,000 stand-ups at once (timeouts,
            # cash-outs, seat lists) cost the server seconds that are no part of the play.
            self._hook = asyncio.get_running_loop().create_task(hook())
            self._hook.add_done_callback(self._hook_done)
            return
        self._tell()

    def _hook_done(self, hook: asyncio.Task[None]) -> None:
        # Retrieved here (else asyncio's "never retrieved"); LoadRun.play reads the CPU again.
        if not hook.cancelled() and hook.exception() is not None:
            log.warning("the end of the load window could not be read: %r", hook.exception())
        self._tell()

    def _tell(self) -> None:
        listeners, self._listeners = self._listeners, {}
        for on_stop in listeners.values():
            on_stop()
