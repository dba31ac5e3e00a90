"""The ports of a table in one process. The clock is here: the event loop's. The others are the
room's (``Room.add_actor`` wires them, this package imports none of them): the store is
``server/store_adapter.StoreTableAdapter``, the lobby ``server/lobby_push.LobbyPush``, the
presence the ``Room`` itself (``is_connected``)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable

from .ports import Timer


class LoopClock:
    """Wall-clock time and the running event loop's timers."""

    def now(self) -> float:
        return time.time()

    def call_later(self, delay: float, callback: Callable[[], None]) -> Timer:
        return asyncio.get_running_loop().call_later(delay, callback)
