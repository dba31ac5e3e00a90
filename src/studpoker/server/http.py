"""The HTTP layer: the uvicorn server of the room, built from :class:`Settings` in one place
(``studpoker serve`` and the test harnesses run the same server), with the hardening uvicorn
lacks (issue 10):

- A request must have arrived whole (head and body) ``http_request_timeout_seconds`` after
  its connection opened or after its first byte; a half-open request is closed. uvicorn
  closes idle kept-alive connections, but never a request that does not finish. A request
  head may not grow past ``http_max_head_bytes`` (431, closed).
- At most ``max_connections_per_address`` open connections per client address, HTTP and
  WebSocket alike (the slot follows the connection through the upgrade); a connection beyond
  it is closed at once, so one address cannot use up the file descriptors of everyone else.
  New connections per address are also metered (``new_connections_per_address_per_second``,
  with a burst): a storm of handshakes from one address, each refused later by the room's
  socket caps, would still stall the event loop for seconds while it is read and answered.
  Connections from a trusted proxy are not counted: it carries everyone's.
- ``X-Forwarded-For`` / ``X-Forwarded-Proto`` are believed only from ``trusted_proxies``
  (uvicorn believes them from 127.0.0.1 by default); none by default.
- Tokens never reach a log line (:mod:`studpoker.server.redact`).

The protocol classes are pinned: httptools for HTTP/1.1 (what uvicorn's "auto" picks with
``uvicorn[standard]``, and the faster parser) and websockets' sans-I/O protocol for
WebSockets (also "auto"'s pick), so the server runs the classes that carry the hardening
whatever happens to be installed.
"""

from __future__ import annotations

import asyncio
import functools
import ipaddress
import logging
import socket
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Literal

import uvicorn
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
from uvicorn.server import ServerState
from websockets.exceptions import InvalidState
from websockets.http11 import Request
from websockets.protocol import OPEN

from .ratelimit import TokenBucket, address_key
from .redact import install_token_redaction
from .settings import Settings

log = logging.getLogger(__name__)

# uvicorn's limit on a WebSocket frame: above the app's own max_message_bytes, so that an
# oversized message gets the app's clear error rather than a bare close.
WS_MAX_FRAME_BYTES = 64 * 1024

HEAD_TOO_LARGE = (
    b"HTTP/1.1 431 Request Header Fields Too Large\r\ncontent-length: 0\r\nconnection: close\r\n\r\n"
)

Network = ipaddress.IPv4Network | ipaddress.IPv6Network


def parse_trusted_proxies(values: Iterable[str]) -> tuple[Network, ...]:
    """The networks of ``trusted_proxies``; ValueError naming a bad entry."""
    networks: list[Network] = []
    for value in values:
        try:
            networks.append(ipaddress.ip_network(value.strip(), strict=False))
        except ValueError:
            raise ValueError(
                f"trusted proxy {value!r} is not an IP address or network (e.g. 10.0.0.5, 10.0.0.0/24)"
            ) from None
    return tuple(networks)


def check_settings(settings: Settings) -> tuple[Network, ...]:
    """Refuse HTTP-layer settings that cannot work (ValueError); the trusted proxy networks."""
    if not settings.http_request_timeout_seconds > 0:
        raise ValueError("http_request_timeout_seconds must be positive")
    if settings.http_max_head_bytes < 1024:
        raise ValueError("http_max_head_bytes must be at least 1024")
    if settings.max_connections_per_address < 1:
        raise ValueError("max_connections_per_address must be at least 1")
    if not settings.new_connections_per_address_per_second > 0:
        raise ValueError("new_connections_per_address_per_second must be positive")
    if settings.new_connections_burst_per_address < 1:
        raise ValueError("new_connections_burst_per_address must be at least 1")
    if settings.http_keep_alive_seconds < 1:
        raise ValueError("http_keep_alive_seconds must be at least 1")
    if settings.listen_backlog < 1:
        raise ValueError("listen_backlog must be at least 1")
    if settings.ws_compress_min_bytes < 0:
        raise ValueError("ws_compress_min_bytes must be 0 or more")
    if settings.ws_receive_queue_pause < 1:
        raise ValueError("ws_receive_queue_pause must be at least 1")
    return parse_trusted_proxies(settings.trusted_proxies)


class ConnectionGuard:
    """Counts the open connections of each client address (keyed by transport, so a release
    is counted once whichever protocol owns the connection when it ends)."""

    def __init__(
        self,
        max_per_address: int,
        exempt: tuple[Network, ...] = (),
        *,
        new_per_second: float = float("inf"),
        new_burst: float = float("inf"),
    ) -> None:
        self.max_per_address = max_per_address
        self.exempt = exempt
        self.new_per_second = new_per_second
        self.new_burst = new_burst
        self._address_of: dict[asyncio.BaseTransport, str] = {}
        self._open: Counter[str] = Counter()
        self._refusing: set[str] = set()  # addresses at the cap, logged once per episode
        self._arrivals: dict[str, TokenBucket] = {}  # the new-connection meter of each address
        self.refused_by_rate = 0

    def open_connections(self, host: str) -> int:
        return self._open[address_key(host)]

    def admit(self, transport: asyncio.BaseTransport, host: str | None) -> bool:
        """Count the connection; False (and not counted) when its address is at the cap."""
        if host is None or self._is_exempt(host):
            return True
        address = address_key(host)
        if not self._arrival_allowed(address):
            self.refused_by_rate += 1
            if address not in self._refusing:
                self._refusing.add(address)
                log.warning("%s opens connections too fast (new_connections_per_address_per_second)", address)
            return False
        if self._open[address] >= self.max_per_address:
            if address not in self._refusing:
                self._refusing.add(address)
                log.warning(
                    "%s holds %s connections (max_connections_per_address): refusing more",
                    address,
                    self._open[address],
                )
            return False
        self._open[address] += 1
        self._address_of[transport] = address
        return True

    def _arrival_allowed(self, address: str) -> bool:
        if self.new_per_second == float("inf"):
            return True
        bucket = self._arrivals.get(address)
        if bucket is None:
            if len(self._arrivals) >= 100_000:  # bound memory under a spray of addresses
                self.forget_idle_arrivals()
            bucket = self._arrivals[address] = TokenBucket(self.new_per_second, self.new_burst)
        return bucket.take()

    def forget_idle_arrivals(self) -> None:
        """Drop the meters of addresses with no open connection (a fresh one starts full,
        which such an address would have refilled to by now or soon)."""
        for address in [a for a in self._arrivals if not self._open[a]]:
            del self._arrivals[address]

    def meters_arrivals_of(self, host: str) -> bool:
        """Whether a new-connection meter is kept for ``host``'s address."""
        return address_key(host) in self._arrivals

    def release(self, transport: asyncio.BaseTransport) -> None:
        address = self._address_of.pop(transport, None)
        if address is None:
            return
        self._open[address] -= 1
        if self._open[address] <= 0:
            del self._open[address]
        self._refusing.discard(address)  # under the cap again: log the next refusal

    def _is_exempt(self, host: str) -> bool:
        if not self.exempt:
            return False
        try:
            ip = ipaddress.ip_address(host)
        except ValueError:
            return False
        return any(ip in network for network in self.exempt)


@dataclass(frozen=True)
class Hardening:
    """What the protocol classes need from the server they belong to (the WebSocket thresholds
    are the Settings fields of the same names, ``ws_...``)."""

    guard: ConnectionGuard
    request_timeout_seconds: float
    max_head_bytes: int
    compress_min_bytes: int = Settings.ws_compress_min_bytes
    receive_queue_pause: int = Settings.ws_receive_queue_pause


class HardenedConfig(uvicorn.Config):
    """A uvicorn Config that carries the :class:`Hardening` of its server to the protocols."""

    def __init__(self, app: Any, hardening: Hardening, **kwargs: Any) -> None:
        self.hardening = hardening
        super().__init__(app, http=GuardedHttpProtocol, ws=GuardedWebSocketProtocol, **kwargs)


def hardening_of(config: uvicorn.Config) -> Hardening:
    if not isinstance(config, HardenedConfig):
        raise TypeError(
            "the studpoker protocols need a HardenedConfig: use studpoker.server.http.build_server"
        )
    return config.hardening


class GuardedHttpProtocol(HttpToolsProtocol):
    """httptools HTTP/1.1 with a deadline for each request and the per-address cap."""

    def __init__(
        self,
        config: uvicorn.Config,
        server_state: ServerState,
        app_state: dict[str, Any],
        _loop: asyncio.AbstractEventLoop | None = None,
    ) -> None:
        super().__init__(config, server_state, app_state, _loop)
        self.hardening = hardening_of(config)
        self.request_deadline: asyncio.TimerHandle | None = None
        # Bytes received while the request head is incomplete (None: the head is whole). The
        # httptools parser has no limit of its own: a head that never ends would grow for ever.
        self.head_bytes: int | None = 0

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        if not self.hardening.guard.admit(transport, self.client[0] if self.client else None):
            transport.close()
            return
        # The first request must be whole within the timeout of the connection opening.
        self._arm_deadline()

    def connection_lost(self, exc: Exception | None) -> None:
        try:
            super().connection_lost(exc)
        finally:
            self._disarm_deadline()
            self.hardening.guard.release(self.transport)

    def data_received(self, data: bytes) -> None:
        if self.head_bytes is not None:
            self.head_bytes += len(data)
        super().data_received(data)
        limit = self.hardening.max_head_bytes
        if self.head_bytes is not None and self.head_bytes > limit and not self.transport.is_closing():
            log.debug("%s: request head over %s bytes: closing", self.client, limit)
            self.transport.write(HEAD_TOO_LARGE)
            self.transport.close()

    def on_message_begin(self) -> None:
        super().on_message_begin()
        # A later request on a kept-alive connection: its deadline runs from its first byte.
        if self.request_deadline is None:
            self._arm_deadline()

    def on_headers_complete(self) -> None:
        self.head_bytes = None
        super().on_headers_complete()

    def on_message_complete(self) -> None:
        super().on_message_complete()
        self._disarm_deadline()
        self.head_bytes = 0  # the next request's head

    def handle_websocket_upgrade(self) -> None:
        # The request is whole; from here the app's heartbeat looks after the connection.
        self._disarm_deadline()
        super().handle_websocket_upgrade()

    def _arm_deadline(self) -> None:
        self._disarm_deadline()
        self.request_deadline = self.loop.call_later(
            self.hardening.request_timeout_seconds, self._request_timed_out
        )

    def _disarm_deadline(self) -> None:
        if self.request_deadline is not None:
            self.request_deadline.cancel()
            self.request_deadline = None

    def _request_timed_out(self) -> None:
        self.request_deadline = None
        if not self.transport.is_closing():
            log.debug("%s: the request did not arrive whole in time: closing", self.client)
            self.transport.close()


class CoalescingTransport:
    """A transport whose writes of one event-loop turn leave in one ``write``: the frames a table
    sends a socket after an action (events, the clock, the openings) cost one system call, not
    one each. The bytes and their order are unchanged; ``close`` sends what is waiting first."""

    __slots__ = ("_loop", "_pending", "transport")

    def __init__(self, transport: asyncio.Transport, loop: asyncio.AbstractEventLoop) -> None:
        self.transport = transport
        self._loop = loop
        self._pending: list[bytes] = []

    def write(self, data: bytes | bytearray | memoryview) -> None:
        if not data:
            return
        if not self._pending:
            self._loop.call_soon(self.flush)
        self._pending.append(data if type(data) is bytes else bytes(data))

    def flush(self) -> None:
        if not self._pending:
            return
        data = b"".join(self._pending)
        self._pending.clear()
        if not self.transport.is_closing():
            self.transport.write(data)

    def close(self) -> None:
        self.flush()
        self.transport.close()

    def abort(self) -> None:
        self._pending.clear()
        self.transport.abort()

    def __getattr__(self, name: str) -> Any:
        return getattr(self.transport, name)


# The scope extension under which a socket of the room offers :meth:`GuardedWebSocketProtocol.
# send_text_now` to the app (``server/connections.py``): frames written at once, in order.
FRAME_SINK_EXTENSION = "studpoker.frame_sink"


def text_frame_header(length: int) -> bytes:
    """The head of an unmasked, final, uncompressed text frame of ``length`` bytes (RFC 6455
    5.2: a server never masks)."""
    if length < 126:
        return bytes((0x81, length))
    if length < 1 << 16:
        return bytes((0x81, 126)) + length.to_bytes(2, "big")
    return bytes((0x81, 127)) + length.to_bytes(8, "big")


_last_frame: list[bytes] = [b"", b"\x81\x00"]  # the last payload framed, and its frame


def plain_text_frame(data: bytes) -> bytes:
    """``data`` as an uncompressed text frame; the same payload sent to the watchers one after
    the other (every copy of an event) is framed once."""
    last = _last_frame
    if data is not last[0]:
        last[0], last[1] = data, text_frame_header(len(data)) + data
    return last[1]


class GuardedWebSocketProtocol(WebSocketsSansIOProtocol):
    """The WebSocket that an upgraded connection becomes: it gives back the address slot the
    HTTP protocol took for the connection, writes through a :class:`CoalescingTransport`, and
    lets the app write text frames without the ASGI send path (:meth:`send_text_now`).

    Text frames shorter than ``ws_compress_min_bytes`` leave uncompressed even when the client
    asked for permessage-deflate (RFC 7692 compresses message by message; a frame without RSV1
    is plain), and the socket is read on while fewer than ``ws_receive_queue_pause`` messages
    wait for the app (the :class:`Hardening` of the server's config carries both)."""

    @functools.cached_property
    def compress_min_bytes(self) -> int:
        return hardening_of(self.config).compress_min_bytes

    @functools.cached_property
    def receive_queue_pause(self) -> int:
        return hardening_of(self.config).receive_queue_pause

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        self.raw_transport = transport
        super().connection_made(transport)
        self.coalescing = CoalescingTransport(transport, asyncio.get_running_loop())
        self.transport = self.coalescing  # type: ignore[assignment]
        # Frames written while the transport's buffer is over its high-water mark (the client
        # does not read): what the ASGI send would have queued behind ``writable``.
        self.unsent = 0

    def resume_writing(self) -> None:
        super().resume_writing()
        self.unsent = 0

    def connection_lost(self, exc: Exception | None) -> None:
        try:
            super().connection_lost(exc)
        finally:
            hardening_of(self.config).guard.release(self.raw_transport)

    def handle_connect(self, event: Request) -> None:
        super().handle_connect(event)
        scope: dict[str, Any] | None = getattr(self, "scope", None)  # none after a refusal
        if scope is not None:
            scope["extensions"][FRAME_SINK_EXTENSION] = {"sink": self}

    def send_receive_event_to_app(self) -> None:
        # uvicorn stops reading the socket after every message until the app has taken it: two
        # system calls per frame. Reading goes on while fewer than receive_queue_pause wait.
        if self.read_paused or self.queue.qsize() >= self.receive_queue_pause:
            super().send_receive_event_to_app()
            return
        self.read_paused = True  # (uvicorn pauses only when it is False)
        try:
            super().send_receive_event_to_app()
        finally:
            self.read_paused = False

    def send_text_now(self, data: bytes) -> int | None:
        """Write one text message (``data``: its UTF-8 bytes) now: it leaves with this loop
        turn's other frames, in order with everything else written to the socket. What the
        ASGI ``websocket.send`` does, less a task switch, the layers of middleware and the
        compression of small frames. The frames written since the transport's buffer went over
        its high-water mark (0 while the client keeps up), or None when the socket takes no
        more (closed, closing, not open yet)."""
        if self.close_sent or self.disconnected or not self.handshake_complete or self.conn.state is not OPEN:
            return None
        if len(data) < self.compress_min_bytes or not self.conn.extensions:
            self.coalescing.write(plain_text_frame(data))
        else:
            try:
                self.conn.send_text(data)
            except InvalidState:
                return None
            self.coalescing.write(b"".join(self.conn.data_to_send()))
        if not self.writable.is_set():
            self.unsent += 1
        return self.unsent


def listening_socket(host: str, port: int, backlog: int) -> socket.socket:
    """A bound, listening TCP socket (``port`` 0: a free one); connections wait in the
    backlog until the room has started."""
    sock = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, port))
    sock.listen(backlog)
    return sock


def build_server(
    app: Any,
    settings: Settings,
    *,
    log_level: str = "info",
    ws_ping: bool = True,
    graceful_shutdown_seconds: int | None = 5,
    lifespan: Literal["on", "off"] = "on",
) -> uvicorn.Server:
    """The room's uvicorn server for ``app`` (:func:`studpoker.server.create_app`); ValueError
    for settings that cannot work. Tests turn off the protocol pings (``ws_ping``)."""
    proxies = check_settings(settings)
    hardening = Hardening(
        guard=ConnectionGuard(
            settings.max_connections_per_address,
            exempt=proxies,
            new_per_second=settings.new_connections_per_address_per_second,
            new_burst=settings.new_connections_burst_per_address,
        ),
        request_timeout_seconds=settings.http_request_timeout_seconds,
        max_head_bytes=settings.http_max_head_bytes,
        compress_min_bytes=settings.ws_compress_min_bytes,
        receive_queue_pause=settings.ws_receive_queue_pause,
    )
    config = HardenedConfig(
        app,
        hardening,
        log_level=log_level,
        # Forwarded headers only from the proxies named in the settings (uvicorn's default
        # would believe them from 127.0.0.1, or from $FORWARDED_ALLOW_IPS).
        proxy_headers=bool(proxies),
        forwarded_allow_ips=[str(network) for network in proxies],
        ws_ping_interval=settings.ws_ping_interval if ws_ping else None,
        ws_ping_timeout=settings.ws_ping_timeout if ws_ping else None,
        ws_max_size=WS_MAX_FRAME_BYTES,
        timeout_keep_alive=settings.http_keep_alive_seconds,
        backlog=settings.listen_backlog,
        timeout_graceful_shutdown=graceful_shutdown_seconds,
        lifespan=lifespan,
    )
    # After the Config: it (re)configures uvicorn's logging.
    install_token_redaction()
    return uvicorn.Server(config)
