"""The WebSocket's transport sends the frames written in one event-loop turn in one write."""

from __future__ import annotations

import asyncio

from studpoker.server.http import CoalescingTransport


class RecordingTransport(asyncio.Transport):
    def __init__(self) -> None:
        super().__init__()
        self.writes: list[bytes] = []
        self.closed = False
        self.aborted = False

    def write(self, data: bytes | bytearray | memoryview) -> None:
        self.writes.append(bytes(data))

    def is_closing(self) -> bool:
        return self.closed

    def close(self) -> None:
        self.closed = True

    def abort(self) -> None:
        self.aborted = True

    def get_extra_info(self, name: str, default: object = None) -> object:
        return ("203.0.113.9", 4242) if name == "peername" else default


async def test_writes_of_one_turn_leave_in_one_write_in_order() -> None:
    raw = RecordingTransport()
    transport = CoalescingTransport(raw, asyncio.get_running_loop())
    for frame in (b"one", b"", b"two", b"three"):
        transport.write(frame)
    assert raw.writes == []
    await asyncio.sleep(0)
    assert raw.writes == [b"onetwothree"]
    transport.write(b"four")
    await asyncio.sleep(0)
    assert raw.writes == [b"onetwothree", b"four"]


async def test_close_sends_what_waits_first_and_abort_drops_it() -> None:
    raw = RecordingTransport()
    transport = CoalescingTransport(raw, asyncio.get_running_loop())
    transport.write(b"bye")
    transport.close()
    assert raw.writes == [b"bye"] and raw.closed
    await asyncio.sleep(0)
    assert raw.writes == [b"bye"]

    other = RecordingTransport()
    dropped = CoalescingTransport(other, asyncio.get_running_loop())
    dropped.write(b"lost")
    dropped.abort()
    await asyncio.sleep(0)
    assert other.writes == [] and other.aborted


async def test_nothing_is_written_to_a_closing_transport_and_the_rest_passes_through() -> None:
    raw = RecordingTransport()
    transport = CoalescingTransport(raw, asyncio.get_running_loop())
    transport.write(b"late")
    raw.closed = True
    await asyncio.sleep(0)
    assert raw.writes == []
    assert transport.get_extra_info("peername") == ("203.0.113.9", 4242)
