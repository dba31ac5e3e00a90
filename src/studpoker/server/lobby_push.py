"""The lobby push (docs/protocol.md "The lobby"): connections subscribed to the lobby get every
table's line on ``subscribe_lobby``, then the lines of the tables that changed.

The tables tell it of a change through the lobby port (:meth:`LobbyPush.lobby_changed`, the
``LobbyNotifier`` of ``table/ports.py``); changes within ``push_seconds`` are coalesced into one
``lobby_update``, each table once, as it is when the message goes out.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Mapping
from typing import Any, Protocol

from .connections import Connection
from .protocol import LobbyMsg, LobbyUpdateMsg


class TableLine(Protocol):
    """A table as the lobby reads it (a ``TableActor``)."""

    @property
    def stopped(self) -> bool: ...

    def summary(self) -> dict[str, Any]: ...


class LobbyPush:
    """The subscribers, the tables changed since the last push, and its timer."""

    def __init__(self, tables: Mapping[int, TableLine], push_seconds: float) -> None:
        self.tables = tables
        self.push_seconds = push_seconds
        self.subscribers: dict[int, Connection] = {}
        self._dirty: set[int] = set()
        self._timer: asyncio.TimerHandle | None = None

    def lines(self) -> list[dict[str, Any]]:
        """Every open table's line, by table id (as ``GET /api/tables`` gives them)."""
        return [t.summary() for _, t in sorted(self.tables.items()) if not t.stopped]

    def subscribe(self, conn: Connection) -> None:
        self.subscribers[conn.id] = conn
        conn.send(LobbyMsg(tables=self.lines(), server_time=time.time()))

    def unsubscribe(self, conn: Connection) -> None:
        self.subscribers.pop(conn.id, None)

    def lobby_changed(self, table_id: int) -> None:
        """A table's line changed: pushed to the subscribers within ``push_seconds``."""
        if not self.subscribers:
            return
        self._dirty.add(table_id)
        if self._timer is None:
            self._timer = asyncio.get_running_loop().call_later(self.push_seconds, self._push)

    def close(self) -> None:
        """The room stops: no push pending, nobody subscribed."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        self.subscribers.clear()

    def _push(self) -> None:
        self._timer = None
        dirty, self._dirty = self._dirty, set()
        if not self.subscribers:
            return
        lines = []
        for table_id in sorted(dirty):
            table = self.tables.get(table_id)
            if table is not None and not table.stopped:
                lines.append(table.summary())
        if not lines:
            return
        message = LobbyUpdateMsg(tables=lines, server_time=time.time())
        for conn in list(self.subscribers.values()):
            if conn.closed:
                self.subscribers.pop(conn.id, None)
            else:
                conn.send(message)
