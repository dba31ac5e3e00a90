"""The load client's WebSocket: websockets' sans-I/O client protocol on a bare asyncio protocol.

It speaks what ``websockets.connect`` speaks by default (the same handshake, permessage-deflate
offered with the same settings, masked frames, compressed sends), so the server does the same
work for it as for that client or a browser; what it saves is on the client's side: no reader
task, no message queue and no ``wait_for`` task per message, and each message is handed to
its player at once, from the protocol's ``data_received``. 10,000 players on two cores share
the machine with the server they measure.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import cast
from urllib.parse import urlsplit

from websockets.client import ClientProtocol
from websockets.exceptions import InvalidHandshake, InvalidURI
from websockets.extensions.permessage_deflate import enable_client_permessage_deflate
from websockets.frames import Frame, Opcode
from websockets.http11 import Response
from websockets.uri import parse_uri

# What a message handler gets: the message's bytes (UTF-8 JSON) and when they arrived.
MessageHandler = Callable[[bytes, float], None]


class LightSocket(asyncio.Protocol):
    """One client WebSocket. :meth:`open` connects and shakes hands; every complete text or
    binary message then goes to ``on_message``; ``closed`` is done once the connection is gone."""

    def __init__(self, url: str, on_message: MessageHandler, max_size: int) -> None:
        self.protocol = ClientProtocol(
            parse_uri(url), extensions=enable_client_permessage_deflate(None), max_size=max_size
        )
        self.on_message = on_message
        loop = asyncio.get_running_loop()
        self.handshake: asyncio.Future[None] = loop.create_future()
        self.closed: asyncio.Future[None] = loop.create_future()
        self.transport: asyncio.Transport | None = None
        self._fragments: list[bytes] = []
        self._give_up: asyncio.TimerHandle | None = None

    @classmethod
    async def open(
        cls, url: str, on_message: MessageHandler, *, timeout: float, max_size: int
    ) -> LightSocket:
        """Connect to ``url`` (``ws://host:port/path``) and complete the opening handshake;
        OSError, TimeoutError or InvalidHandshake when that fails."""
        parts = urlsplit(url)
        if parts.scheme != "ws" or not parts.hostname:
            raise InvalidURI(url, "the load client speaks ws:// only")
        loop = asyncio.get_running_loop()
        async with asyncio.timeout(timeout):
            _transport, socket = await loop.create_connection(
                lambda: cls(url, on_message, max_size), parts.hostname, parts.port or 80
            )
            try:
                await asyncio.shield(socket.handshake)
            except BaseException:
                socket.abort()
                raise
        return socket

    # -- asyncio.Protocol ---------------------------------------------------------------------

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = cast(asyncio.Transport, transport)  # (uvloop's is not a subclass)
        self.protocol.send_request(self.protocol.connect())
        self._write_out()

    def data_received(self, data: bytes) -> None:
        stamp = time.perf_counter()
        protocol = self.protocol
        protocol.receive_data(data)
        for event in protocol.events_received():
            if isinstance(event, Frame):
                self._on_frame(event, stamp)
            elif isinstance(event, Response):
                self._on_response()
        self._write_out()  # pongs, the answer to a close

    def connection_lost(self, exc: Exception | None) -> None:
        self.protocol.receive_eof()
        if self._give_up is not None:
            self._give_up.cancel()
        if not self.handshake.done():
            self.handshake.set_exception(ConnectionError("the connection closed during the handshake"))
        if not self.closed.done():
            self.closed.set_result(None)

    # -- sending ------------------------------------------------------------------------------

    @property
    def is_open(self) -> bool:
        return self.transport is not None and not self.transport.is_closing() and not self.closed.done()

    def send(self, data: bytes) -> None:
        """One text message (UTF-8 JSON), compressed as the extension says, now."""
        if self.is_open:
            self.protocol.send_text(data)
            self._write_out()

    def close(self) -> None:
        """A close handshake; the transport closes when the server has answered (or now, if
        the connection is not open)."""
        if not self.is_open:
            self.abort()
            return
        self.protocol.send_close(1000)
        self._write_out()
        self._abort_later()

    def abort(self) -> None:
        if self.transport is not None:
            self.transport.abort()

    def _abort_later(self) -> None:
        """Give a closing connection 2 s to end by itself (a server that never answers)."""
        if self._give_up is None:
            self._give_up = asyncio.get_running_loop().call_later(2.0, self.abort)

    # -- internals ----------------------------------------------------------------------------

    def _on_response(self) -> None:
        error = self.protocol.handshake_exc
        if self.handshake.done():
            return
        if error is None:
            self.handshake.set_result(None)
        else:
            self.handshake.set_exception(InvalidHandshake(str(error)))

    def _on_frame(self, frame: Frame, stamp: float) -> None:
        opcode = frame.opcode
        if opcode is Opcode.TEXT or opcode is Opcode.BINARY:
            if frame.fin:
                self.on_message(bytes(frame.data), stamp)
            else:
                self._fragments = [bytes(frame.data)]
        elif opcode is Opcode.CONT:
            self._fragments.append(bytes(frame.data))
            if frame.fin:
                data, self._fragments = b"".join(self._fragments), []
                self.on_message(data, stamp)

    def _write_out(self) -> None:
        transport = self.transport
        if transport is None:
            return
        for chunk in self.protocol.data_to_send():
            if chunk:
                transport.write(chunk)
            elif not transport.is_closing():  # the protocol's end of stream: half-close
                transport.write_eof()
        if self.protocol.close_expected():
            self._abort_later()
