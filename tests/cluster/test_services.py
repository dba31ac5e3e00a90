"""The throwaway servers of a trial cluster (studpoker.cluster.services): HAProxy in front of two
tiny gateways, health checks, WebSocket tunnels, clean stops, and PostgreSQL in a directory."""

from __future__ import annotations

import asyncio
import http.server
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
import websockets
from websockets.asyncio.server import ServerConnection
from websockets.http11 import Request, Response

from studpoker.cluster import services
from studpoker.cluster.haproxy_config import Backend, ProxyTimeouts, render_haproxy_config
from tests import provision
from tests.cluster.conftest import need


class TinyGateway:
    """An HTTP server in a thread: ``/api/health`` (200 while healthy) and its name elsewhere."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.healthy = True
        self.forwarded_for: list[str | None] = []
        gateway = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                if self.path == "/api/health":
                    self.send_response(200 if gateway.healthy else 503)
                    body = b"{}"
                else:
                    gateway.forwarded_for.append(self.headers.get("X-Forwarded-For"))
                    self.send_response(200)
                    body = gateway.name.encode()
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, format: str, *args: object) -> None:
                pass

        self.server = http.server.ThreadingHTTPServer((services.LOCALHOST, 0), Handler)
        self.port = int(self.server.server_address[1])
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def backend(self) -> Backend:
        return Backend(self.name, services.LOCALHOST, self.port)

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def gateways() -> Iterator[tuple[TinyGateway, TinyGateway]]:
    pair = (TinyGateway("gw1"), TinyGateway("gw2"))
    yield pair
    for gateway in pair:
        gateway.close()


def fetch(url: str) -> str:
    # A connection per request, so that each one is balanced on its own.
    with httpx.Client(timeout=10) as client:
        return client.get(url, headers={"Connection": "close"}).text


async def test_haproxy_balances_http_over_the_gateways(
    haproxy_binary: Path, tmp_path: Path, gateways: tuple[TinyGateway, TinyGateway]
) -> None:
    first, second = gateways
    timeouts = ProxyTimeouts(check_interval=0.2)
    proxy = services.start_haproxy(tmp_path, [first.backend(), second.backend()], timeouts=timeouts)
    try:
        url = f"http://{proxy.address}/lobby"
        answers = [await asyncio.to_thread(fetch, url) for _ in range(10)]
        assert set(answers) == {"gw1", "gw2"}
        assert set(first.forwarded_for + second.forwarded_for) == {"127.0.0.1"}  # option forwardfor

        second.healthy = False  # its health check fails: HAProxy stops sending it clients
        # Two failed checks at 0.2 s mark it down; the deadline is generous.
        answers = []

        async def only_first() -> bool:
            answers.append(await asyncio.to_thread(fetch, url))
            return answers[-3:] == ["gw1"] * 3

        for _ in range(200):
            if await only_first():
                break
            await asyncio.sleep(0.05)
        assert answers[-3:] == ["gw1"] * 3
        assert "gw2" not in [await asyncio.to_thread(fetch, url) for _ in range(6)]
    finally:
        assert proxy.stop() != -signal.SIGKILL  # SIGTERM was enough
    assert not proxy.running


async def test_haproxy_tunnels_a_websocket(haproxy_binary: Path, tmp_path: Path) -> None:
    def health(connection: ServerConnection, request: Request) -> Response | None:
        if request.path == "/api/health":
            return connection.respond(200, "ok")
        return None

    async def echo(connection: ServerConnection) -> None:
        async for message in connection:
            await connection.send(f"echo {message}" if isinstance(message, str) else message)

    async with websockets.serve(echo, services.LOCALHOST, 0, process_request=health) as server:
        port = next(iter(server.sockets)).getsockname()[1]
        proxy = services.start_haproxy(tmp_path, [Backend("gw1", services.LOCALHOST, port)])
        try:
            async with websockets.connect(f"ws://{proxy.address}/ws") as client:
                for n in range(3):
                    await client.send(f"hello {n}")
                    assert await asyncio.wait_for(client.recv(), 10) == f"echo hello {n}"
        finally:
            proxy.stop()


def test_the_haproxy_config_has_the_design(tmp_path: Path) -> None:
    text = render_haproxy_config(
        [Backend("gw1", "127.0.0.1", 9001), Backend("gw2", "127.0.0.1", 9002)], port=8000
    )
    assert "balance leastconn" in text
    assert "timeout tunnel 3600000ms" in text
    assert "option httpchk GET /api/health" in text
    assert "bind 127.0.0.1:8000" in text
    assert "server gw2 127.0.0.1:9002 check" in text


@pytest.mark.parametrize(
    ("backends", "port", "message"),
    [
        ([], 8000, "at least one gateway"),
        ([Backend("gw1", "127.0.0.1", 9001), Backend("gw1", "127.0.0.1", 9002)], 8000, "repeat"),
        ([Backend("gw 1", "127.0.0.1", 9001)], 8000, "bad backend name"),
        ([Backend("gw1", "127.0.0.1\n    server evil", 9001)], 8000, "bad host"),
        ([Backend("gw1", "127.0.0.1", 70000)], 8000, "bad port"),
        ([Backend("gw1", "127.0.0.1", 9001)], 0, "bad port"),
    ],
)
def test_a_bad_haproxy_config_is_refused_before_anything_is_written(
    tmp_path: Path, backends: list[Backend], port: int, message: str
) -> None:
    with pytest.raises(ValueError, match=message):
        services.start_haproxy(tmp_path, backends, port=port)
    assert list(tmp_path.iterdir()) == []


def test_a_server_that_ignores_sigterm_is_killed(tmp_path: Path) -> None:
    code = (
        "import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); print('up', flush=True);"
        " time.sleep(600)"
    )
    process = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE)
    assert process.stdout is not None and process.stdout.readline() == b"up\n"  # SIGTERM is ignored now
    service = services.Service("stubborn", process, services.LOCALHOST, 1, tmp_path / "log")
    assert service.stop(timeout=0.5) == -signal.SIGKILL
    assert not service.running
    assert service.stop() == -signal.SIGKILL  # stopping a stopped one changes nothing


def test_nats_needs_its_config(nats_binary: Path, tmp_path: Path) -> None:
    with pytest.raises(services.ServiceError, match="no nats-server configuration"):
        services.start_nats(tmp_path, tmp_path / "missing.conf")


def test_a_nats_server_that_cannot_start_says_why(nats_binary: Path, tmp_path: Path) -> None:
    config = tmp_path / "bad.conf"
    config.write_text("authorization { users = [ { user: a, password: ")  # cut off
    with pytest.raises(services.ServiceError, match="nats-server exited at start"):
        services.start_nats(tmp_path, config)


def test_nats_stops_on_sigterm(nats_binary: Path, tmp_path: Path) -> None:
    config = tmp_path / "open.conf"
    config.write_text("\n")
    server = services.start_nats(tmp_path, config)
    assert server.url == f"nats://127.0.0.1:{server.port}"
    assert server.stop() != -signal.SIGKILL  # nats-server exits with 1 on SIGTERM
    assert "Server Exiting" in server.log.read_text()
    assert not services.listening(server.host, server.port)


@pytest.fixture
def postgres_bin_dir() -> Path:
    return need(provision.postgres, "PostgreSQL")


@pytest.fixture
def reachable_dir() -> Iterator[Path]:
    """A directory the ``postgres`` user can reach (pytest's own are root's alone, mode 0700)."""
    directory = Path(tempfile.mkdtemp(prefix="studpoker-test-"))
    directory.chmod(0o755)
    yield directory
    shutil.rmtree(directory, ignore_errors=True)


@pytest.mark.postgres
async def test_postgres_starts_in_a_given_directory_and_stops(
    postgres_bin_dir: Path, reachable_dir: Path
) -> None:
    directory = reachable_dir / "cluster" / "postgres"
    server = services.start_postgres(directory, bin_dir=postgres_bin_dir)
    try:
        assert server.directory == directory and (directory / "data" / "PG_VERSION").exists()
        url = await server.new_database("studpoker")
        assert url == f"postgresql+asyncpg://postgres@127.0.0.1:{server.port}/studpoker"
        with pytest.raises(ValueError, match="bad database name"):
            await server.new_database('x"; DROP DATABASE postgres; --')
    finally:
        services.stop_postgres(server, remove=False)
    assert not services.listening(server.host, server.port)
    assert (directory / "data" / "PG_VERSION").exists()  # kept when asked
    services.stop_postgres(server)  # stopping again only removes the directory
    assert not directory.exists()


@pytest.mark.postgres
@pytest.mark.skipif(os.geteuid() != 0, reason="only root runs initdb as another user")
def test_postgres_in_a_directory_its_user_cannot_reach_says_so(
    postgres_bin_dir: Path, tmp_path: Path
) -> None:
    tmp_path.parent.chmod(0o700)  # as pytest makes them for root
    with pytest.raises(services.ServiceError, match="cannot reach"):
        services.start_postgres(tmp_path / "postgres", bin_dir=postgres_bin_dir)
    assert not (tmp_path / "postgres").exists()
