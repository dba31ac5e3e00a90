"""Fixtures for the cluster tests: real nats-server processes (installed with apt-get when
missing, as root; under CI a missing one fails, never skips) and the bus on both transports."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path

import pytest

from studpoker.cluster import services
from studpoker.cluster.bus import Bus, InProcessBus
from studpoker.cluster.nats_bus import NatsBus
from tests import provision


def need(tool: Callable[[], tuple[Path | None, str]], name: str) -> Path:
    found, reason = tool()
    if found is None:
        provision.unavailable(f"the cluster tests need {name}: {reason}")
    return found


@pytest.fixture(scope="session")
def nats_binary() -> Path:
    return need(provision.nats_server, "nats-server")


@pytest.fixture(scope="session")
def haproxy_binary() -> Path:
    return need(provision.haproxy, "haproxy")


def start_open_nats(directory: Path) -> services.NatsService:
    """A nats-server with no users (anyone may do anything), for the bus contract."""
    directory.mkdir(parents=True, exist_ok=True)
    config = directory / "open.conf"
    config.write_text("# no authorization: the contract tests only\n")
    return services.start_nats(directory, config)


@pytest.fixture(scope="session")
def open_nats(nats_binary: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[services.NatsService]:
    server = start_open_nats(tmp_path_factory.mktemp("nats"))
    try:
        yield server
    finally:
        server.stop()


BusPair = tuple[Bus, Bus]


@pytest.fixture(params=["in-process", "nats"])
async def buses(request: pytest.FixtureRequest) -> AsyncIterator[BusPair]:
    """(publisher, subscriber): one bus in process; two connections, as two processes, on NATS."""
    if request.param == "in-process":
        bus = InProcessBus()
        yield bus, bus
        await bus.close()
        return
    server: services.NatsService = request.getfixturevalue("open_nats")
    publisher = await NatsBus.connect(server.url, name="publisher")
    subscriber = await NatsBus.connect(server.url, name="subscriber")
    yield publisher, subscriber
    await publisher.close()
    await subscriber.close()


async def until(condition: Callable[[], bool], what: str, timeout: float = 15.0) -> None:
    """Wait for ``condition``; fail naming ``what`` if it has not come by the deadline."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        await asyncio.sleep(0.01)
