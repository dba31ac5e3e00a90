"""Connections: what the room knows of a client (a WebSocket or an in-process bot).

A connection is identified by its account; the room sends it server messages with
:meth:`Connection.send`, which never blocks (a WebSocket's frames are written to its transport
at once, or queued for a writer task where the server offers no frame sink; a client that
falls too far behind is disconnected).
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import logging
from typing import Any, Protocol, cast

from starlette.websockets import WebSocket, WebSocketState

from .http import FRAME_SINK_EXTENSION
from .protocol import ServerMsg, encode
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

    def send(self, message: ServerMsg) -> None:  # pragma: no cover - overridden
        raise NotImplementedError

    def send_encoded(self, text: str, message: ServerMsg) -> None:
        """Send a message already encoded as ``text`` (the same text goes to many watchers);
        an in-process client takes the model."""
        self.send(message)

    def close(self, code: int = 1000, reason: str = "") -> None:
        self.closed = True

    def __repr__(self) -> str:
        return f"<{type(self).__name__} #{self.id} {self.name}>"


class FrameSink(Protocol):
    """What the room's WebSocket protocol offers a connection (``server/http.py``
    ``GuardedWebSocketProtocol``): a text frame written at once, in order; how many frames wait
    behind a client that does not read (0 while it keeps up), or None when the socket takes no
    more."""

    def send_text_now(self, data: bytes) -> int | None: ...


_last_text: list[Any] = [None, b""]  # the last message encoded, and its bytes


def utf8(text: str) -> bytes:
    """A message's UTF-8 bytes (the same text sent to many watchers one after the other is
    encoded once); a lone surrogate (not Unicode, cannot be sent as is) is escaped as
    ``\\udXXX`` by encoding the JSON again, as :func:`~.protocol.encode` does."""
    last = _last_text
    if text is last[0]:
        return cast(bytes, last[1])
    try:
        data = text.encode()
    except UnicodeEncodeError:
        data = json.dumps(json.loads(text), separators=(",", ":"), ensure_ascii=True).encode()
    last[0], last[1] = text, data
    return data


def frame_sink(websocket: WebSocket) -> FrameSink | None:
    """The socket's frame sink, when the server offers one (the room's uvicorn protocol; not,
    e.g., Starlette's test client, whose sockets take the ASGI path)."""
    extension = websocket.scope.get("extensions", {}).get(FRAME_SINK_EXTENSION)
    return None if extension is None else cast(FrameSink, extension["sink"])


class WebSocketConnection(Connection):
    """A browser or program on a WebSocket. A send never waits: on the room's own server it
    writes the frame to the socket's transport at once (the frames of one loop turn leave in
    one system call), elsewhere it goes through a bounded queue drained by a writer task. A
    client ``queue_size`` frames behind is disconnected."""

    def __init__(
        self, websocket: WebSocket, account_id: int, name: str, bucket: TokenBucket, queue_size: int
    ) -> None:
        super().__init__(account_id, name, bucket)
        self.websocket = websocket
        self._queue_size = queue_size
        self._sink = frame_sink(websocket)
        self._queue: asyncio.Queue[str | None] = asyncio.Queue(maxsize=queue_size)
        self._writer: asyncio.Task[None] | None = None

    def start(self) -> None:
        if self._sink is None:
            self._writer = asyncio.get_running_loop().create_task(
                self._write_loop(), name=f"ws-writer-{self.id}"
            )

    def send(self, message: ServerMsg) -> None:
        if not self.closed:
            self._push(encode(message))

    def send_encoded(self, text: str, message: ServerMsg) -> None:
        if not self.closed:
            self._push(text)

    def _push(self, text: str) -> None:
        sink = self._sink
        if sink is not None:
            backlog = sink.send_text_now(utf8(text))
            if backlog is None:
                self.closed = True  # the socket is going: the reader notices and cleans up
            elif backlog > self._queue_size:
                log.warning("%r: %s frames behind, disconnecting", self, backlog)
                self.close(1008, "too slow")
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
        self._close_args = (code, reason)
        if self._sink is not None:
            # The close frame goes the ASGI way, after every frame written before it.
            self._writer = asyncio.get_running_loop().create_task(
                self._close_socket(), name=f"ws-close-{self.id}"
            )
            return
        with contextlib.suppress(asyncio.QueueFull):
            self._queue.put_nowait(None)

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
            await self._close_socket()

    async def _close_socket(self) -> None:
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
