"""The load client's measured window ends before its players stand up (issue 17): the server's
CPU at the end is read first, so the stand-ups of every player at once are not counted."""

from __future__ import annotations

import asyncio
import time

from studpoker.loadtest.config import Control


async def test_the_window_is_read_before_anyone_hears_the_deadline() -> None:
    control = Control()
    order: list[str] = []
    reading = asyncio.Event()

    async def read_the_window() -> None:
        order.append("read")
        await reading.wait()
        order.append("read done")

    control.before_stop = read_the_window
    control.listen(1, lambda: order.append("stand up"))
    control.stop_at = time.monotonic() + 0.05
    await asyncio.sleep(0.15)
    assert control.over and order == ["read"]  # past the deadline, nobody told yet
    reading.set()
    await asyncio.sleep(0.01)
    assert order == ["read", "read done", "stand up"]


async def test_an_explicit_stop_does_not_wait_for_the_reading() -> None:
    control = Control()
    order: list[str] = []

    async def never_called() -> None:
        order.append("read")

    control.before_stop = never_called
    control.listen(1, lambda: order.append("stand up"))
    control.stop()
    await asyncio.sleep(0.01)
    assert order == ["stand up"]
