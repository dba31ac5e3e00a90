"""Fixtures for the cluster tests: real nats-server processes (installed with apt-get when
missing, as root; under CI a missing one fails, never skips), the bus on both transports, and a
whole ``studpoker cluster up`` (:func:`running_cluster`, the ``launch_cluster`` fixture)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from studpoker.cluster import services
from studpoker.cluster.bus import Bus, InProcessBus
from studpoker.cluster.nats_bus import NatsBus
from tests import provision
from tests.pg import PostgresServer, postgres_server  # noqa: F401  (a fixture)


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


@dataclass
class ClusterUp:
    """A running ``studpoker cluster up``: its directory, process, output and database."""

    directory: Path
    process: subprocess.Popen[bytes]
    log: Path
    database_url: str

    def info(self) -> dict[str, Any]:
        info: dict[str, Any] = json.loads((self.directory / "cluster.json").read_text())
        return info

    def child(self, name: str) -> dict[str, Any]:
        return next(p for p in self.info()["processes"] if p["name"] == name)

    def pids(self) -> list[int]:
        return [p["pid"] for p in self.info()["processes"] if p["pid"] is not None]


@contextlib.contextmanager
def running_cluster(
    where: Path, url: str, *, gateways: int, workers: int, sets: dict[str, object], args: tuple[str, ...] = ()
) -> Iterator[ClusterUp]:
    """``cluster up`` in ``where/cluster`` on database ``url`` (``--set`` each of ``sets``), once
    its ``cluster.json`` is written; stopped (SIGTERM, then SIGKILL) at the end, with any child
    a failed test left behind (each runs in its own session)."""
    directory = where / "cluster"
    command = [
        sys.executable, "-m", "studpoker", "cluster", "up", "--dir", str(directory),
        "--gateways", str(gateways), "--workers", str(workers), "--port", str(services.free_port()),
        "--database-url", url, *(a for name, value in sets.items() for a in ("--set", f"{name}={value}")),
        *args,
    ]  # fmt: skip
    log = where / "up.log"
    with log.open("wb") as output:
        process = subprocess.Popen(command, stdout=output, stderr=subprocess.STDOUT, start_new_session=True)
    running = ClusterUp(directory, process, log, url)
    seen: set[int] = set()
    try:
        deadline = time.monotonic() + 90
        while not (directory / "cluster.json").exists():
            if process.poll() is not None or time.monotonic() > deadline:
                raise AssertionError(f"cluster up did not start: {log.read_text()}")
            time.sleep(0.1)
        seen.update(running.pids())
        yield running
    finally:
        with contextlib.suppress(OSError, ValueError):
            seen.update(running.pids())
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
            try:
                process.wait(60)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
        for pid in seen:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)


LaunchCluster = Callable[..., ClusterUp]


@pytest.fixture
def launch_cluster(
    tmp_path: Path,
    postgres_server: PostgresServer,  # noqa: F811
    nats_binary: Path,
    haproxy_binary: Path,
) -> Iterator[LaunchCluster]:
    """``launch_cluster(gateways=G, workers=W, sets={...}, prepare=None, args=())``: a cluster on
    a fresh database of the suites' PostgreSQL (``prepare(url)`` runs on it first; ``args``: more
    ``cluster up`` options), stopped at the end."""
    with contextlib.ExitStack() as stack:

        def launch(
            *,
            gateways: int,
            workers: int,
            sets: dict[str, object],
            prepare: Callable[[str], Any] | None = None,
            args: tuple[str, ...] = (),
        ) -> ClusterUp:
            url = asyncio.run(postgres_server.new_database())
            if prepare is not None:
                asyncio.run(prepare(url))
            return stack.enter_context(
                running_cluster(tmp_path, url, gateways=gateways, workers=workers, sets=sets, args=args)
            )

        yield launch
