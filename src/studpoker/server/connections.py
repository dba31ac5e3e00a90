"""Connections: what the room knows of a client (a WebSocket or an in-process bot).

A connection is identified by its account; the room sends it server messages with
:meth:`Connection.send`, which never blocks (an outgoing queue per WebSocket, drained by a
writer task; a client that falls too far behind is disconnected).
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging

from starlette.websockets import WebSocket, WebSocketState

from .protocol import _Out, encode
from .ratelimit import TokenBucket

log = logging.getLogger(__name__)

_ids = itertools.count(1)


class Connection:
    """Base for a client session: one account, the tables it watches, a rate limit."""

    is_bot = False

    def __init__(self, account_id: int, name: str, bucket: TokenBucket) -> None:
        self.id = next(_ids)
        # A guest watches without an account (``account_id`` is negative, unique to the
        # connection): it may join tables and the lobby push, never sit or act.
        self.is_guest = False
        self.address = ""
        self.account_id = account_id
        self.name = name
        self.bucket = bucket
        self.tables: set[int] = set()
        self.closed = False
        self.rejected = 0
        # The session the socket was opened with, and when it expires (Unix seconds on the
        # store's clock): a logout or the expiry closes the socket (bots have neither).
        self.token: str | None = None
        self.session_expires_at: float | None = None

    def send(self, message: _Out) -> None:  # pragma: no cover - overridden
        raise NotImplementedError

    def send_encoded(self, text: str, message: _Out) -> None:
        """Send a message already encoded as ``text`` (the same text goes to many watchers);
        an in-process client takes the model."""
        self.send(message)

    def close(self, code: int = 1000, reason: str = "") -> None:
        self.closed = True

    def __repr__(self) -> str:
        return f"<{type(self).__name__} #{self.id} {self.name}>"


class WebSocketConnection(Connection):
    """A browser or program on a WebSocket; sends go through a bounded queue."""

    def __init__(
        self, websocket: WebSocket, account_id: int, name: str, bucket: TokenBucket, queue_size: int
    ) -> None:
        super().__init__(account_id, name, bucket)
        self.websocket = websocket
        self._queue: asyncio.Queue[str | None] = asyncio.Queue(maxsize=queue_size)
        self._writer: asyncio.Task[None] | None = None

    def start(self) -> None:
        self._writer = asyncio.get_running_loop().create_task(self._write_loop(), name=f"ws-writer-{self.id}")

    def send(self, message: _Out) -> None:
        if self.closed:
            return
        try:
            self._queue.put_nowait(encode(message))
        except asyncio.QueueFull:
            log.warning("%r: send queue full, disconnecting", self)
            self.close(1008, "too slow")

    def send_encoded(self, text: str, message: _Out) -> None:
        if self.closed:
            return
        try:
            self._queue.put_nowait(text)
        except asyncio.QueueFull:
            log.warning("%r: send queue full, disconnecting", self)
            self.close(1008, "too slow")

    def close(self, code: int = 1000, reason: str = "") -> None:
        if self.closed:
            return
        self.closed = True
        with contextlib.suppress(asyncio.QueueFull):
            self._queue.put_nowait(None)
        self._close_args = (code, reason)

    async def _write_loop(self) -> None:
        try:
            while True:
                text = await self._queue.get()
                if text is None:
                    break
                await self.websocket.send_text(text)
        except Exception:  # the socket went away: the reader notices and cleans up
            log.debug("%r: writer stopped", self, exc_info=True)
        finally:
            self.closed = True
            if self.websocket.application_state == WebSocketState.CONNECTED:
                code, reason = getattr(self, "_close_args", (1000, ""))
                with contextlib.suppress(Exception):
                    await self.websocket.close(code, reason)

    async def finish(self) -> None:
        """Stop the writer (after the reader loop ended)."""
        self.close()
        if self._writer is not None:
            with contextlib.suppress(asyncio.TimeoutError, asyncio.CancelledError, Exception):
                await asyncio.wait_for(self._writer, 2.0)
