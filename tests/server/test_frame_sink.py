"""The room's sockets write their frames at once (``server/http.py`` ``GuardedWebSocketProtocol.
send_text_now``, used by ``server/connections.py``): no writer task, no ASGI layers, small frames
not compressed, the frames of one loop turn in one write, a client that does not read cut off,
and the socket read on while a few messages wait for the app."""

from __future__ import annotations

import asyncio
import base64
import json
import os
import struct
import zlib
from typing import Any

import pytest
import uvicorn
from starlette.websockets import WebSocketState
from uvicorn.server import ServerState
from websockets.extensions.permessage_deflate import PerMessageDeflate
from websockets.protocol import State
from websockets.server import ServerProtocol

from studpoker.server.connections import WebSocketConnection
from studpoker.server.http import (
    FRAME_SINK_EXTENSION,
    ConnectionGuard,
    GuardedWebSocketProtocol,
    HardenedConfig,
    Hardening,
    build_server,
    check_settings,
)
from studpoker.server.ratelimit import TokenBucket
from studpoker.server.settings import Settings

from .conftest import Harness

# ----------------------------------------------------------------------------- on the wire


async def read_frame(reader: asyncio.StreamReader) -> tuple[bool, int, bytes]:
    """One server frame: (RSV1, the compressed bit; opcode; payload). A server never masks."""
    head = await reader.readexactly(2)
    length = head[1] & 0x7F
    assert not head[1] & 0x80, "a server frame is never masked"
    if length == 126:
        length = struct.unpack("!H", await reader.readexactly(2))[0]
    elif length == 127:
        length = struct.unpack("!Q", await reader.readexactly(8))[0]
    return bool(head[0] & 0x40), head[0] & 0x0F, await reader.readexactly(length)


def client_frame(message: dict[str, Any]) -> bytes:
    """A masked, uncompressed text frame (a client may send any message uncompressed)."""
    payload = json.dumps(message).encode()
    mask = os.urandom(4)
    masked = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
    assert len(payload) < 126
    return bytes((0x81, 0x80 | len(payload))) + mask + masked


async def test_small_frames_leave_plain_and_large_ones_compressed_in_order(harness: Harness) -> None:
    for n in range(8):  # a lobby well over ws_compress_min_bytes
        await harness.add_table(name=f"a table with a long name, {n}")
    host, port = harness.base.split(":")
    reader, writer = await asyncio.open_connection(host, int(port))
    key = base64.b64encode(os.urandom(16)).decode()
    writer.write(
        (
            f"GET /ws?guest=1 HTTP/1.1\r\nHost: {harness.base}\r\nUpgrade: websocket\r\n"
            f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n"
            "Sec-WebSocket-Extensions: permessage-deflate; client_max_window_bits\r\n\r\n"
        ).encode()
    )
    head = (await reader.readuntil(b"\r\n\r\n")).decode().lower()
    assert head.startswith("http/1.1 101") and "permessage-deflate" in head
    inflate = zlib.decompressobj(wbits=-15)  # the server's context carries over (no no_context_takeover)

    async def message() -> tuple[bool, dict[str, Any]]:
        compressed, opcode, payload = await read_frame(reader)
        assert opcode == 1
        if compressed:
            payload = inflate.decompress(payload + b"\x00\x00\xff\xff")
        return compressed, json.loads(payload)

    try:
        compressed, welcome = await message()
        assert welcome["type"] == "welcome" and not compressed
        writer.write(client_frame({"type": "subscribe_lobby", "id": "l"}))
        writer.write(client_frame({"type": "ping", "id": "p"}))
        answers = [await message() for _ in range(3)]
        assert [m["type"] for _, m in answers] == ["ack", "lobby", "pong"]
        assert [c for c, _ in answers] == [False, True, False]
        lobby = answers[1][1]
        assert len(json.dumps(lobby)) >= Settings().ws_compress_min_bytes and len(lobby["tables"]) == 8
    finally:
        writer.close()


# ----------------------------------------------------------------------------- the connection


class FakeSink:
    """The protocol's side: records the frames, and says how many the client has not taken."""

    def __init__(self, backlog: int = 0) -> None:
        self.frames: list[bytes] = []
        self.backlog = backlog
        self.open = True

    def send_text_now(self, data: bytes) -> int | None:
        if not self.open:
            return None
        self.frames.append(data)
        self.backlog += 1
        return self.backlog


class FakeWebSocket:
    def __init__(self, sink: FakeSink | None) -> None:
        extensions = {} if sink is None else {FRAME_SINK_EXTENSION: {"sink": sink}}
        self.scope: dict[str, Any] = {"extensions": extensions}
        self.application_state = WebSocketState.CONNECTED
        self.closed: tuple[int, str] | None = None
        self.sent: list[str] = []

    async def send_text(self, text: str) -> None:
        self.sent.append(text)

    async def close(self, code: int = 1000, reason: str = "") -> None:
        self.closed = (code, reason)
        self.application_state = WebSocketState.DISCONNECTED


def connection(websocket: FakeWebSocket, queue_size: int = 3) -> WebSocketConnection:
    conn = WebSocketConnection(websocket, 1, "p", TokenBucket(10, 10), queue_size)  # type: ignore[arg-type]
    conn.start()
    return conn


async def test_frames_go_to_the_sink_at_once_in_order_and_a_slow_client_is_cut_off() -> None:
    sink = FakeSink()
    websocket = FakeWebSocket(sink)
    conn = connection(websocket, queue_size=3)
    conn.send_encoded('{"n":1}', None)  # type: ignore[arg-type]
    conn.send_encoded('{"s":"\ud800"}', None)  # type: ignore[arg-type]
    conn.send_encoded('{"n":"é"}', None)  # type: ignore[arg-type]
    # At once: no task ran in between; a lone surrogate escaped, the rest UTF-8.
    assert sink.frames == [b'{"n":1}', b'{"s":"\\ud800"}', '{"n":"é"}'.encode()]
    assert (conn.closed, websocket.sent) == (False, [])
    conn.send_encoded('{"n":4}', None)  # type: ignore[arg-type]
    assert conn.closed  # a fourth frame not taken: over the queue size
    await conn.finish()
    assert websocket.closed == (1008, "too slow")
    conn.send_encoded('{"n":5}', None)  # type: ignore[arg-type]
    assert len(sink.frames) == 4


async def test_a_socket_that_takes_no_more_frames_closes_the_connection() -> None:
    sink = FakeSink()
    sink.open = False
    conn = connection(FakeWebSocket(sink))
    conn.send_encoded("{}", None)  # type: ignore[arg-type]
    assert conn.closed


async def test_without_a_sink_a_writer_task_sends_through_the_asgi_socket() -> None:
    websocket = FakeWebSocket(None)
    conn = connection(websocket)
    conn.send_encoded('{"n":1}', None)  # type: ignore[arg-type]
    assert websocket.sent == []
    await conn.finish()
    assert websocket.sent == ['{"n":1}'] and websocket.closed == (1000, "")


# ----------------------------------------------------------------------------- the transport


class BufferingTransport(asyncio.Transport):
    def __init__(self) -> None:
        super().__init__()
        self.writes: list[bytes] = []
        self.buffered = 0
        self.paused = 0
        self.resumed = 0

    def write(self, data: bytes | bytearray | memoryview) -> None:
        self.writes.append(bytes(data))

    def get_write_buffer_size(self) -> int:
        return self.buffered

    def is_closing(self) -> bool:
        return False

    def pause_reading(self) -> None:
        self.paused += 1

    def resume_reading(self) -> None:
        self.resumed += 1


async def test_frames_written_behind_a_client_that_does_not_read_are_counted() -> None:
    protocol, transport = websocket_protocol()
    protocol.connection_made(transport)
    protocol.conn = ServerProtocol(state=State.OPEN)
    protocol.handshake_complete = True
    assert [protocol.send_text_now(b"one"), protocol.send_text_now(b"two")] == [0, 0]
    await asyncio.sleep(0)
    assert transport.writes == [b"\x81\x03one\x81\x03two"]  # one write for the loop turn
    protocol.pause_writing()  # the transport's buffer went over its high-water mark
    assert [protocol.send_text_now(b"3"), protocol.send_text_now(b"4")] == [1, 2]
    protocol.resume_writing()
    assert protocol.send_text_now(b"5") == 0
    protocol.close_sent = True
    assert protocol.send_text_now(b"6") is None


async def app_never_run(scope: Any, receive: Any, send: Any) -> None:
    raise AssertionError


def websocket_protocol(**thresholds: int) -> tuple[GuardedWebSocketProtocol, BufferingTransport]:
    hardening = Hardening(
        guard=ConnectionGuard(10), request_timeout_seconds=5, max_head_bytes=8192, **thresholds
    )
    protocol = GuardedWebSocketProtocol(HardenedConfig(app_never_run, hardening), ServerState(), {})
    transport = BufferingTransport()
    protocol.transport = transport
    return protocol, transport


@pytest.mark.parametrize("pause", [Settings().ws_receive_queue_pause, 1, 3])
async def test_the_socket_is_read_on_while_a_few_messages_wait_for_the_app(pause: int) -> None:
    protocol, transport = websocket_protocol(receive_queue_pause=pause)
    for n in range(pause):
        protocol.curr_msg_data_type = "text"
        protocol.frames = [f"message {n}".encode()]
        protocol.send_receive_event_to_app()
    assert transport.paused == 0 and protocol.queue.qsize() == pause
    protocol.frames = [b"one too many"]
    protocol.send_receive_event_to_app()
    assert transport.paused == 1 and protocol.read_paused
    for _ in range(pause + 1):
        await protocol.receive()
    assert transport.resumed == 1 and not protocol.read_paused


@pytest.mark.parametrize("threshold", [Settings().ws_compress_min_bytes, 0, 200])
async def test_frames_under_the_threshold_leave_plain_the_rest_compressed(threshold: int) -> None:
    protocol, transport = websocket_protocol(compress_min_bytes=threshold)
    protocol.connection_made(transport)
    protocol.conn = ServerProtocol(state=State.OPEN)
    protocol.conn.extensions = [PerMessageDeflate(False, False, 15, 15)]
    protocol.handshake_complete = True
    sizes = [n for n in (threshold - 1, threshold, threshold + 500) if n > 0]
    for size in sizes:
        protocol.send_text_now(b"x" * size)
    await asyncio.sleep(0)
    reader = asyncio.StreamReader()
    reader.feed_data(b"".join(transport.writes))
    reader.feed_eof()
    inflate = zlib.decompressobj(wbits=-15)
    for size in sizes:
        compressed, opcode, payload = await read_frame(reader)
        assert (opcode, compressed) == (1, size >= threshold), size
        if compressed:
            payload = inflate.decompress(payload + b"\x00\x00\xff\xff")
        assert payload == b"x" * size


async def test_the_thresholds_come_from_the_settings() -> None:
    settings = Settings(ws_compress_min_bytes=4096, ws_receive_queue_pause=2)
    server = build_server(app_never_run, settings, lifespan="off")
    protocol = GuardedWebSocketProtocol(server.config, ServerState(), {})
    assert (protocol.compress_min_bytes, protocol.receive_queue_pause) == (4096, 2)


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        ({"ws_compress_min_bytes": -1}, "ws_compress_min_bytes must be 0 or more"),
        ({"ws_receive_queue_pause": 0}, "ws_receive_queue_pause must be at least 1"),
    ],
)
def test_unusable_websocket_thresholds_are_refused(overrides: dict[str, int], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        check_settings(Settings(**overrides))  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=message):
        build_server(app_never_run, Settings(**overrides), lifespan="off")  # type: ignore[arg-type]


def test_the_protocol_is_uvicorns_sans_io_one() -> None:
    # The overrides above lean on its internals (read_paused, queue, frames): pinned with uvicorn.
    assert uvicorn.__version__ == "0.54.0"
