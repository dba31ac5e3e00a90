"""The HTTP layer under abuse (issue 10): half-open requests, one address holding many
connections, forged X-Forwarded-For, and tokens in the logs.

Clients bind to other loopback addresses (127.0.0.2, 127.0.0.3: all of 127.0.0.0/8 is
loopback on Linux) to stand for other machines. The assertions count connections closed or
answered; the waits only bound how long the test may take.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import re
import resource
import signal
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from pathlib import Path

import httpx
import pytest
import websockets

from studpoker.cli import main as cli_main
from studpoker.loadtest import LoadConfig, run_load
from studpoker.server.http import (
    HEAD_TOO_LARGE,
    ConnectionGuard,
    check_settings,
    hardening_of,
    parse_trusted_proxies,
)
from studpoker.server.redact import redact
from studpoker.server.settings import Settings
from tests.server.conftest import Harness, make_settings, running_server
from tests.server.test_crash import start_server

HEALTH = b"GET /api/health HTTP/1.1\r\nHost: room\r\n\r\n"
PARTIAL_HEAD = b"GET /api/health HTTP/1.1\r\nHost: room\r\n"  # the blank line never comes


class Raw:
    """A plain TCP connection to the room, from a chosen local address."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader = reader
        self.writer = writer

    @classmethod
    async def open(cls, room: Harness | str, local: str = "127.0.0.1") -> Raw:
        host, port = (room if isinstance(room, str) else room.base).split(":")
        reader, writer = await asyncio.open_connection(host, int(port), local_addr=(local, 0))
        return cls(reader, writer)

    async def send(self, data: bytes) -> None:
        self.writer.write(data)
        await self.writer.drain()

    async def read_response(self, timeout: float = 10.0) -> bytes:
        """One response; its head (the body is read and dropped)."""
        head = await asyncio.wait_for(self.reader.readuntil(b"\r\n\r\n"), timeout)
        length = int(re.search(rb"content-length: (\d+)", head, re.I).group(1))  # type: ignore[union-attr]
        await asyncio.wait_for(self.reader.readexactly(length), timeout)
        return head

    async def answered(self, timeout: float = 10.0) -> bool:
        """Send a whole request; True if a 200 response came back (the connection stays open)."""
        try:
            await self.send(HEALTH)
            head = await self.read_response(timeout)
        except (asyncio.IncompleteReadError, ConnectionError):
            return False
        return head.startswith(b"HTTP/1.1 200")

    async def closed_by_server(self, timeout: float = 10.0) -> bool:
        """True once the server closed the connection without answering; False if it is still
        open after ``timeout`` or sent something."""
        try:
            data = await asyncio.wait_for(self.reader.read(1024), timeout)
        except ConnectionError:
            return True
        except TimeoutError:
            return False
        return data == b""

    async def response(self, timeout: float = 10.0) -> bytes:
        """Everything the server sends until it closes the connection."""
        data = b""
        with contextlib.suppress(ConnectionError):
            while chunk := await asyncio.wait_for(self.reader.read(65536), timeout):
                data += chunk
        return data

    async def close(self) -> None:
        self.writer.close()
        with contextlib.suppress(Exception):
            await self.writer.wait_closed()


async def wait_until(predicate: Callable[[], bool], timeout: float = 10.0) -> bool:
    for _ in range(int(timeout / 0.02)):
        if predicate():
            return True
        await asyncio.sleep(0.02)
    return predicate()


def open_from(harness: Harness, address: str) -> Callable[[], int]:
    guard: ConnectionGuard = hardening_of(harness.server.config).guard
    return lambda: guard.open_connections(address)


@contextlib.asynccontextmanager
async def http_from(harness: Harness, local: str) -> AsyncIterator[httpx.AsyncClient]:
    transport = httpx.AsyncHTTPTransport(local_address=local)
    async with httpx.AsyncClient(base_url=f"http://{harness.base}", transport=transport, timeout=10) as http:
        yield http


async def ws_from(room: Harness | str, local: str, path: str = "/ws?guest=1") -> websockets.ClientConnection:
    base = room if isinstance(room, str) else room.base
    return await websockets.connect(f"ws://{base}{path}", local_addr=(local, 0), open_timeout=10)


async def ws_welcome(ws: websockets.ClientConnection) -> dict[str, object]:
    message: dict[str, object] = json.loads(await asyncio.wait_for(ws.recv(), 10))
    return message


async def gather(coros: list[Awaitable[bool]]) -> list[bool]:
    return list(await asyncio.gather(*coros))


# -- point 3: half-open requests, connections per address ---------------------------------------


async def test_half_open_requests_are_closed_after_the_request_timeout(tmp_path: Path) -> None:
    settings = make_settings(tmp_path, http_request_timeout_seconds=0.3, http_keep_alive_seconds=60)
    async with running_server(settings) as harness:
        silent = [await Raw.open(harness) for _ in range(5)]  # connect, send nothing
        partial = [await Raw.open(harness) for _ in range(20)]  # a head that never ends
        for conn in partial:
            await conn.send(PARTIAL_HEAD)
        slow_body = [await Raw.open(harness) for _ in range(3)]  # the body never arrives
        for conn in slow_body:
            await conn.send(b"POST /api/login HTTP/1.1\r\nHost: room\r\nContent-Length: 100\r\n\r\n{")
        # A kept-alive connection whose second request never ends (uvicorn's keep-alive timer
        # stops at its first byte).
        kept = [await Raw.open(harness) for _ in range(3)]
        assert await gather([conn.answered() for conn in kept]) == [True] * 3
        for conn in kept:
            await conn.send(PARTIAL_HEAD)

        everyone = silent + partial + slow_body + kept
        closed = await gather([conn.closed_by_server() for conn in everyone])
        assert closed.count(True) == len(everyone) == 31
        assert await wait_until(lambda: open_from(harness, "127.0.0.1")() == 0)
        # Whole requests are answered; between them an idle kept-alive connection is left to
        # the keep-alive timer (60 s here), not cut by the request timeout.
        fresh = await Raw.open(harness)
        assert await fresh.answered()
        await asyncio.sleep(0.6)
        assert await fresh.answered()
        for conn in [*everyone, fresh]:
            await conn.close()


async def test_a_request_head_that_keeps_growing_is_cut_off(tmp_path: Path) -> None:
    settings = make_settings(tmp_path, http_max_head_bytes=4096, http_request_timeout_seconds=30)
    async with running_server(settings) as harness:
        endless = await Raw.open(harness)
        await endless.send(b"GET /api/health HTTP/1.1\r\nHost: room\r\nX-Endless: ")
        with contextlib.suppress(ConnectionError):
            for _ in range(4):
                await endless.send(b"a" * 2048)
        answer = await endless.response()
        assert answer in (b"", HEAD_TOO_LARGE)  # the 431, unless the close reset the connection
        assert await wait_until(lambda: open_from(harness, "127.0.0.1")() == 0)
        # A head under the limit is answered, and a body does not count as head.
        fine = await Raw.open(harness)
        await fine.send(b"GET /api/health HTTP/1.1\r\nHost: room\r\nX-Pad: " + b"a" * 3000 + b"\r\n\r\n")
        assert (await fine.read_response()).startswith(b"HTTP/1.1 200")
        body = json.dumps({"name": "n" * 20000, "password": "p"}).encode()
        head = "POST /api/login HTTP/1.1\r\nHost: room\r\nContent-Type: application/json\r\n"
        await fine.send(head.encode() + f"Content-Length: {len(body)}\r\n\r\n".encode() + body)
        assert (await fine.read_response()).startswith(b"HTTP/1.1 422")
        await endless.close()
        await fine.close()


async def test_an_address_at_its_cap_is_refused_while_others_are_served(tmp_path: Path) -> None:
    settings = make_settings(
        tmp_path, max_connections_per_address=5, http_request_timeout_seconds=30, http_keep_alive_seconds=60
    )
    async with running_server(settings) as harness:
        held = [await Raw.open(harness) for _ in range(5)]
        assert await gather([conn.answered() for conn in held]) == [True] * 5
        assert open_from(harness, "127.0.0.1")() == 5

        extra = [await Raw.open(harness) for _ in range(10)]
        for conn in extra:
            with contextlib.suppress(ConnectionError):
                await conn.send(HEALTH)
        assert (await gather([conn.closed_by_server() for conn in extra])).count(True) == 10
        assert open_from(harness, "127.0.0.1")() == 5

        # Another address gets REST answers and a WebSocket meanwhile.
        async with http_from(harness, "127.0.0.2") as other:
            response = await other.post("/api/register", json={"name": "other", "password": "password123"})
            assert response.status_code == 201, response.text
            token = response.json()["token"]
            assert (await other.get("/api/tables")).status_code == 200
        ws = await ws_from(harness, "127.0.0.2", "/ws")
        await ws.send(json.dumps({"type": "auth", "token": token}))
        assert (await ws_welcome(ws))["type"] == "welcome"
        await ws.close()

        # A closed connection gives its slot back.
        await held.pop().close()
        assert await wait_until(lambda: open_from(harness, "127.0.0.1")() == 4)
        again = await Raw.open(harness)
        assert await again.answered()
        for conn in [*held, *extra, again]:
            await conn.close()
        assert await wait_until(lambda: open_from(harness, "127.0.0.1")() == 0)


async def test_a_storm_of_new_connections_is_cut_off_while_others_are_served(tmp_path: Path) -> None:
    """Hundreds of WebSocket handshakes at once from one address: beyond the burst they are
    closed before anything is read, so the room's socket caps never have to read and answer
    them; another address is served meanwhile. (The rate is near zero here so that the refill
    during the test does not blur the count.)"""
    settings = make_settings(
        tmp_path, new_connections_per_address_per_second=0.001, new_connections_burst_per_address=20
    )
    async with running_server(settings) as harness:
        guard = hardening_of(harness.server.config).guard

        async def handshake() -> bool:
            try:
                ws = await ws_from(harness, "127.0.0.1")
            except (OSError, websockets.exceptions.WebSocketException, TimeoutError):
                return False
            welcomed = (await ws_welcome(ws))["type"] == "welcome"
            await ws.close()
            return welcomed

        results = await gather([handshake() for _ in range(200)])
        assert results.count(True) == 20
        assert guard.refused_by_rate == 180
        # Another address is not metered with this one.
        ws = await ws_from(harness, "127.0.0.2")
        assert (await ws_welcome(ws))["type"] == "welcome"
        await ws.close()
        async with http_from(harness, "127.0.0.3") as other:
            assert (await other.get("/api/health")).status_code == 200
        # The meters of addresses with no open connection are not kept for ever.
        assert await wait_until(lambda: guard.open_connections("127.0.0.1") == 0)
        assert guard.meters_arrivals_of("127.0.0.1")
        guard.forget_idle_arrivals()
        assert not guard.meters_arrivals_of("127.0.0.1")


async def test_websockets_hold_their_slot_until_they_close(tmp_path: Path) -> None:
    settings = make_settings(tmp_path, max_connections_per_address=3)
    async with running_server(settings) as harness:
        sockets = [await ws_from(harness, "127.0.0.3") for _ in range(3)]
        for ws in sockets:
            assert (await ws_welcome(ws))["type"] == "welcome"
        assert open_from(harness, "127.0.0.3")() == 3
        with pytest.raises((websockets.InvalidHandshake, ConnectionError, EOFError, TimeoutError)):
            await ws_from(harness, "127.0.0.3")
        await sockets.pop().close()
        assert await wait_until(lambda: open_from(harness, "127.0.0.3")() == 2)
        sockets.append(await ws_from(harness, "127.0.0.3"))
        assert (await ws_welcome(sockets[-1]))["type"] == "welcome"
        for ws in sockets:
            await ws.close()
        # Every slot came back through the WebSocket protocol's connection_lost.
        assert await wait_until(lambda: open_from(harness, "127.0.0.3")() == 0)


async def test_studpoker_serve_runs_the_hardened_server(tmp_path: Path) -> None:
    """The command itself (uvloop, the CLI options), not only the test harness."""
    process, base = start_server(
        f"sqlite+aiosqlite:///{tmp_path / 'serve.sqlite3'}",
        "--no-default-tables",
        "--request-timeout",
        "0.5",
        "--max-connections-per-address",
        "3",
        "--keep-alive",
        "60",
    )
    try:
        held = [await Raw.open(base) for _ in range(3)]
        assert await gather([conn.answered() for conn in held]) == [True] * 3
        extra = [await Raw.open(base) for _ in range(3)]
        assert await gather([conn.closed_by_server() for conn in extra]) == [True] * 3
        half_open = [await Raw.open(base, "127.0.0.2") for _ in range(2)]
        for conn in half_open:
            await conn.send(PARTIAL_HEAD)
        assert await gather([conn.closed_by_server() for conn in half_open]) == [True] * 2
        ws = await ws_from(base, "127.0.0.2")
        assert (await ws_welcome(ws))["type"] == "welcome"
        await ws.close()
        for conn in held + extra + half_open:
            await conn.close()
    finally:
        process.send_signal(signal.SIGTERM)
        process.wait(30)


def test_the_guard_counts_ipv6_by_its_64_and_releases_once() -> None:
    guard = ConnectionGuard(2, exempt=parse_trusted_proxies(["10.0.0.0/24"]))
    one, two, three = (asyncio.BaseTransport() for _ in range(3))
    # Two addresses of one IPv6 /64 share a budget; another /64 has its own.
    assert guard.admit(one, "2001:db8:1:2::1") and guard.admit(two, "2001:db8:1:2:ffff::9")
    assert not guard.admit(three, "2001:db8:1:2::77")
    assert guard.admit(three, "2001:db8:1:3::1")
    assert guard.open_connections("2001:db8:1:2::") == 2
    guard.release(one)
    guard.release(one)  # a second release of the same connection counts nothing
    assert guard.open_connections("2001:db8:1:2::") == 1
    # IPv4 mapped into IPv6 is the IPv4 address; a trusted proxy is not counted.
    four, five = asyncio.BaseTransport(), asyncio.BaseTransport()
    assert guard.admit(four, "::ffff:192.0.2.1") and guard.open_connections("192.0.2.1") == 1
    assert all(guard.admit(five, "10.0.0.7") for _ in range(5)) and guard.open_connections("10.0.0.7") == 0


@pytest.mark.slow
async def test_thousands_of_half_open_connections_leave_the_room_usable(tmp_path: Path) -> None:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = 8192 if hard == resource.RLIM_INFINITY else min(8192, hard)
    if soft < wanted:
        resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))
    if resource.getrlimit(resource.RLIMIT_NOFILE)[0] < 4000:
        pytest.skip("needs 4000 file descriptors (ulimit -n)")
    settings = make_settings(tmp_path, max_connections_per_address=200, http_request_timeout_seconds=2)
    async with running_server(settings) as harness:
        flood: list[Raw] = []
        for _ in range(3000):
            with contextlib.suppress(ConnectionError):
                conn = await Raw.open(harness)
                with contextlib.suppress(ConnectionError):
                    await conn.send(PARTIAL_HEAD)
                flood.append(conn)
        assert open_from(harness, "127.0.0.1")() <= 200
        async with http_from(harness, "127.0.0.2") as other:
            assert (await other.get("/api/health")).status_code == 200
        ws = await ws_from(harness, "127.0.0.2")
        assert (await ws_welcome(ws))["type"] == "welcome"
        await ws.close()
        closed = await gather([conn.closed_by_server(timeout=30) for conn in flood])
        assert closed.count(True) == len(flood)
        for conn in flood:
            await conn.close()


# -- point 7: forwarded headers ------------------------------------------------------------------


async def failed_logins(http: httpx.AsyncClient, forwarded_for: list[str]) -> list[int]:
    """One failed login (a different unknown name each time) per X-Forwarded-For value."""
    codes = []
    for i, address in enumerate(forwarded_for):
        response = await http.post(
            "/api/login",
            json={"name": f"nobody{i}", "password": "wrong-password"},
            headers={"X-Forwarded-For": address},
        )
        codes.append(response.status_code)
    return codes


ROTATING = [f"198.51.100.{i}" for i in range(1, 9)]


async def test_forwarded_for_is_ignored_without_trusted_proxies(tmp_path: Path) -> None:
    settings = make_settings(tmp_path, login_max_failures_per_address=3)
    async with running_server(settings) as harness:
        # From 127.0.0.1, uvicorn's default trusted proxy: rotating the header changes nothing.
        assert await failed_logins(harness.http, ROTATING) == [401] * 3 + [429] * 5


async def test_forwarded_for_counts_only_from_a_trusted_proxy(tmp_path: Path) -> None:
    settings = make_settings(tmp_path, login_max_failures_per_address=3, trusted_proxies=("127.0.0.1",))
    async with running_server(settings) as harness:
        # Through the proxy, each forwarded address has its own budget ...
        assert await failed_logins(harness.http, ROTATING) == [401] * 8
        # ... and the budget is the forwarded address's, not the proxy's.
        assert await failed_logins(harness.http, ["203.0.113.7"] * 4) == [401] * 3 + [429]
        # From anyone else the header is ignored.
        async with http_from(harness, "127.0.0.2") as other:
            assert await failed_logins(other, ROTATING) == [401] * 3 + [429] * 5


async def test_a_trusted_proxy_is_not_held_to_the_per_address_cap(tmp_path: Path) -> None:
    settings = make_settings(
        tmp_path, max_connections_per_address=2, trusted_proxies=("127.0.0.0/31",), http_keep_alive_seconds=60
    )
    async with running_server(settings) as harness:
        proxy = [await Raw.open(harness, "127.0.0.1") for _ in range(6)]
        assert await gather([conn.answered() for conn in proxy]) == [True] * 6
        client = [await Raw.open(harness, "127.0.0.2") for _ in range(3)]
        assert await gather([conn.answered() for conn in client]) == [True, True, False]
        for conn in proxy + client:
            await conn.close()


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        ({"trusted_proxies": ("10.0.0.300",)}, "'10.0.0.300' is not an IP address or network"),
        ({"trusted_proxies": ("*",)}, "'*' is not an IP address or network"),
        ({"http_request_timeout_seconds": 0.0}, "http_request_timeout_seconds must be positive"),
        ({"max_connections_per_address": 0}, "max_connections_per_address must be at least 1"),
        ({"new_connections_per_address_per_second": 0.0}, "new_connections_per_address_per_second must be"),
        ({"new_connections_burst_per_address": 0}, "new_connections_burst_per_address must be at least 1"),
    ],
)
def test_unusable_http_settings_are_refused(overrides: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError, match=re.escape(message)):
        check_settings(Settings(**overrides))  # type: ignore[arg-type]


def test_serve_refuses_a_bad_trusted_proxy(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    database = tmp_path / "never.sqlite3"
    code = cli_main(
        [
            "serve",
            "--port",
            "0",
            "--database-url",
            f"sqlite+aiosqlite:///{database}",
            "--trusted-proxy",
            "proxy1",
        ]
    )
    assert code == 2
    assert "trusted proxy 'proxy1' is not an IP address or network" in capsys.readouterr().err
    assert not database.exists()


# -- point 9: tokens in logs ------------------------------------------------------------------------


class Lines(logging.Handler):
    def __init__(self) -> None:
        super().__init__(level=1)
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(self.format(record))


@contextlib.contextmanager
def captured_logs() -> Iterator[list[str]]:
    """Every line logged by uvicorn (its access log does not propagate) and the rest."""
    handler = Lines()
    loggers = [logging.getLogger(name) for name in ("uvicorn.access", "uvicorn", "")]
    for logger in loggers:
        logger.addHandler(handler)
    try:
        yield handler.lines
    finally:
        for logger in loggers:
            logger.removeHandler(handler)


async def test_tokens_never_reach_the_log(tmp_path: Path) -> None:
    # "trace" is uvicorn's lowest level: the access log, the WebSocket lines and the ASGI trace
    # of every scope (with its query string).
    async with running_server(make_settings(tmp_path), log_level="trace") as harness:
        with captured_logs() as lines:
            token = await harness.register("alice")
            in_url = await harness.connect(token, "in url")  # /ws?token=...
            assert (await in_url.request(type="ping"))["type"] == "pong"
            ws = await websockets.connect(f"ws://{harness.base}/ws")
            await ws.send(json.dumps({"type": "auth", "token": token}))
            assert (await ws_welcome(ws))["type"] == "welcome"
            await ws.close()
            headers = {"Authorization": f"Bearer {token}"}
            assert (await harness.http.get("/api/me", headers=headers)).status_code == 200
            assert (await harness.http.get(f"/api/me?token={token}")).status_code == 401
            async with websockets.connect(f"ws://{harness.base}/ws?token={token}x") as refused:
                assert json.loads(await refused.recv())["code"] == "unauthorized"
    text = "\n".join(lines)
    assert "/ws?token=[redacted]" in text and "/api/me?token=[redacted]" in text  # the lines were logged
    assert token not in text


async def test_the_load_client_keeps_its_token_out_of_the_url(tmp_path: Path) -> None:
    settings = make_settings(tmp_path, hand_pause_seconds=0.1)
    async with running_server(settings, log_level="info") as harness:
        await harness.add_table()
        with captured_logs() as lines:
            report = await run_load(
                LoadConfig(
                    url=f"ws://{harness.base}",
                    tables=1,
                    players_per_table=2,
                    seconds=1.0,
                    think_time=0.05,
                    seed=1,
                )
            )
    assert report.seated == 2 and report.error_count == 0, report.render()
    accepted = [line for line in lines if '"WebSocket /ws' in line]
    assert len(accepted) >= 2 and all('"WebSocket /ws" [accepted]' in line for line in accepted), accepted


SECRET = "s3cret-D_1"


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        (f'127.0.0.1:5 - "WebSocket /ws?token={SECRET}" [accepted]', '"WebSocket /ws?token=[redacted]" [acc'),
        (f"GET /api/me?x=1&token={SECRET}&y=2 HTTP/1.1", "GET /api/me?x=1&token=[redacted]&y=2 HTTP/1.1"),
        (f"'query_string': b'token={SECRET}'", "'query_string': b'token=[redacted]'"),
        (f'{{"type": "auth", "token": "{SECRET}"}}', '{"type": "auth", "token": "[redacted]"}'),
        (
            f"AuthMsg(id=None, type='auth', token='{SECRET}')",
            "AuthMsg(id=None, type='auth', token='[redacted]')",
        ),
        (f"authorization: Bearer {SECRET}", "authorization: Bearer [redacted]"),
    ],
)
def test_redact_hides_token_values(line: str, expected: str) -> None:
    cleaned = redact(line)
    assert expected in cleaned and SECRET not in cleaned


def test_redact_leaves_other_lines_alone() -> None:
    line = '127.0.0.1:5 - "GET /api/tables?game=7S HTTP/1.1" 200 (the token is sent in a header)'
    assert redact(line) == line
