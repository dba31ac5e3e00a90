"""A real server for the tests: uvicorn on a free port in the test's event loop, real WebSocket
clients (the ``websockets`` library) and an httpx client for REST. The ledger audit must be
balanced at the end of every test, before and after the shutdown."""

from __future__ import annotations

import asyncio
import contextlib
import json
import socket
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest
import websockets
from argon2 import PasswordHasher

from studpoker.server import Settings, create_app
from studpoker.server.http import build_server, listening_socket
from studpoker.server.room import Room
from studpoker.server.table import TableActor
from studpoker.store import Store, TableConfig

FAST_HASHER = PasswordHasher(time_cost=1, memory_cost=8, parallelism=1)


async def fast_store(settings: Settings) -> Store:
    return await Store.open(settings.database_url, password_hasher=FAST_HASHER)


class Client:
    """A WebSocket client that records every message it receives."""

    def __init__(self, ws: Any, name: str) -> None:
        self.ws = ws
        self.name = name
        self.log: list[dict[str, Any]] = []
        self.raw: list[str] = []
        self._queue: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        self._reader = asyncio.get_running_loop().create_task(self._read())
        self._beat: asyncio.Task[None] | None = None
        self.closed = asyncio.Event()

    def keep_alive(self) -> None:
        """Ping as the browser does (socket.js: every 0.6 of the welcome's heartbeat, at least
        2 s), so that a player who only watches for a while (busted in a tournament, waiting) is
        not dropped by the server's heartbeat time-out. The pongs come to the queue as well."""
        if self._beat is None:
            self._beat = asyncio.get_running_loop().create_task(self._ping())

    async def _ping(self) -> None:
        welcome = next((m for m in self.log if m.get("type") == "welcome"), {})
        every = max(2.0, float(welcome.get("heartbeat_seconds", 25.0)) * 0.6)
        with contextlib.suppress(websockets.ConnectionClosed):
            while not self.closed.is_set():
                await asyncio.sleep(every)
                await self.ws.send(json.dumps({"type": "ping"}))

    async def _read(self) -> None:
        try:
            async for text in self.ws:
                self.raw.append(text)
                message = json.loads(text)
                self.log.append(message)
                await self._queue.put(message)
        except websockets.ConnectionClosed:
            pass
        finally:
            self.closed.set()

    async def send(self, **message: Any) -> None:
        await self.ws.send(json.dumps(message))

    async def send_raw(self, text: str | bytes) -> None:
        await self.ws.send(text)

    async def recv(self, timeout: float = 5.0) -> dict[str, Any]:
        return await asyncio.wait_for(self._queue.get(), timeout)

    async def wait_for(
        self, predicate: Callable[[dict[str, Any]], bool] | str, timeout: float = 10.0
    ) -> dict[str, Any]:
        """The next message (in arrival order) for which ``predicate`` holds (or of that type)."""
        if isinstance(predicate, str):
            kind = predicate

            def predicate(m: dict[str, Any]) -> bool:
                return m.get("type") == kind

        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError(f"{self.name}: no matching message; last: {self.log[-5:]}")
            message = await asyncio.wait_for(self._queue.get(), left)
            if predicate(message):
                return message

    async def request(self, timeout: float = 5.0, **message: Any) -> dict[str, Any]:
        """Send a message tagged with an id; return the ack or error answering it."""
        ref = f"r{time.monotonic_ns()}"
        await self.send(id=ref, **message)
        return await self.wait_for(
            lambda m: m.get("ref") == ref and m["type"] in ("ack", "error", "pong"), timeout
        )

    def drain(self) -> list[dict[str, Any]]:
        out = []
        while not self._queue.empty():
            out.append(self._queue.get_nowait())
        return out

    async def close(self) -> None:
        if self._beat is not None:
            self._beat.cancel()
        await self.ws.close()
        self._reader.cancel()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await self._reader


class AppRoom:
    """The room and the store of a running app (set in its lifespan), for the test harnesses."""

    app: Any

    @property
    def room(self) -> Room:
        room: Room = self.app.state.room
        return room

    @property
    def store(self) -> Store:
        store: Store = self.app.state.store
        return store

    async def open_table(self, game: str, small: int, big: int, **kw: Any) -> TableActor:
        """A new table in the store, run by the room (named after its stakes unless ``name``)."""
        name = kw.pop("name", f"{game} {small}/{big} #{self.room.table_count + 1}")
        record = await self.store.create_table(TableConfig.derive(name, game, small, big, **kw))
        return self.room.add_actor(record)


@dataclass
class Harness(AppRoom):
    settings: Settings
    app: Any
    base: str
    http: httpx.AsyncClient
    clients: list[Client] = field(default_factory=list)
    server: Any = None  # the uvicorn.Server (studpoker.server.http.build_server)

    async def add_table(self, game: str = "7S", small: int = 100, big: int = 200, **kw: Any) -> TableActor:
        return await self.open_table(game, small, big, **kw)

    async def register(self, name: str, password: str = "password123") -> str:
        response = await self.http.post("/api/register", json={"name": name, "password": password})
        assert response.status_code == 201, response.text
        token: str = response.json()["token"]
        return token

    async def connect(self, token: str, name: str = "client") -> Client:
        ws = await websockets.connect(f"ws://{self.base}/ws?token={token}", max_size=2**22)
        client = Client(ws, name)
        self.clients.append(client)
        welcome = await client.wait_for("welcome")
        assert welcome["protocol"] == 1
        return client

    async def player(self, name: str) -> Client:
        return await self.connect(await self.register(name), name)

    async def seat(self, client: Client, table_id: int, seat: int, buy_in: int) -> None:
        answer = await client.request(type="sit", table_id=table_id, seat=seat, buy_in=buy_in)
        assert answer["type"] == "ack", answer

    async def audit(self) -> None:
        report = await self.store.audit()
        assert report.balanced, report.render()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


@contextlib.asynccontextmanager
async def running_server(settings: Settings, log_level: str = "warning") -> AsyncIterator[Harness]:
    """The room of ``studpoker serve`` (the same uvicorn server, from the same builder)."""
    app = create_app(settings, store_factory=fast_store)
    sock = listening_socket("127.0.0.1", 0, settings.listen_backlog)
    port = sock.getsockname()[1]
    server = build_server(app, settings, log_level=log_level, ws_ping=False, graceful_shutdown_seconds=2)
    task = asyncio.get_running_loop().create_task(server.serve(sockets=[sock]))
    for _ in range(500):
        if server.started:
            break
        if task.done():
            task.result()
        await asyncio.sleep(0.01)
    base = f"127.0.0.1:{port}"
    async with httpx.AsyncClient(base_url=f"http://{base}", timeout=10) as http:
        harness = Harness(settings=settings, app=app, base=base, http=http, server=server)
        try:
            yield harness
            await harness.audit()
        finally:
            for client in harness.clients:
                with contextlib.suppress(Exception):
                    await client.close()
            server.should_exit = True
            with contextlib.suppress(Exception):
                await asyncio.wait_for(task, 15)
    # After the shutdown: every hand finished or voided, every seat cashed out, audit balanced.
    store = await Store.open(settings.database_url)
    try:
        report = await store.audit()
        assert report.balanced, report.render()
    finally:
        await store.close()


def make_settings(tmp_path: Path, **overrides: Any) -> Settings:
    values: dict[str, Any] = {
        "database_url": f"sqlite+aiosqlite:///{tmp_path / 'room.sqlite3'}",
        "default_tables": False,
        "hand_pause_seconds": 0.0,
        "think_seconds": 5.0,
        "countdown_seconds": 5.0,
        "bot_delay": (0.0, 0.0),
        "heartbeat_timeout_seconds": 30.0,
        # Every test client is 127.0.0.1: the per-address account limits are tested on their own
        # (tests/hostile/test_accounts_hardening.py), out of the way elsewhere.
        "registrations_per_address_per_hour": 100_000,
        "registrations_per_address_per_day": 100_000,
        "topups_per_address_per_day": 100_000,
        # Likewise the new-connection meter (tests/hostile/test_http_limits.py tests it).
        "new_connections_per_address_per_second": 1e9,
        "new_connections_burst_per_address": 10**9,
        # No time bank: a decision times out when its countdown ends (tests/server/test_time_bank.py
        # turns the bank on).
        "time_bank_max_seconds": 0.0,
    }
    values.update(overrides)
    return Settings(**values)


@pytest.fixture
async def harness(tmp_path: Path) -> AsyncIterator[Harness]:
    async with running_server(make_settings(tmp_path)) as h:
        yield h


def passive_choice(options: list[dict[str, Any]]) -> dict[str, Any]:
    by_kind = {o["kind"]: o for o in options}
    for kind in ("check", "call", "bring_in", "complete", "bet", "raise"):
        if kind in by_kind:
            return by_kind[kind]
    return options[0]


async def autoplay(
    client: Client,
    hands: int = 1,
    choose: Callable[[list[dict[str, Any]]], dict[str, Any] | None] = passive_choice,
    timeout: float = 20.0,
) -> list[dict[str, Any]]:
    """Play whatever the client is asked until ``hands`` hands have finished; their hand_finished."""
    finished: list[dict[str, Any]] = []
    deadline = time.monotonic() + timeout
    while len(finished) < hands:
        message = await client.recv(max(0.01, deadline - time.monotonic()))
        if message["type"] == "hand_finished":
            finished.append(message)
        elif message["type"] == "your_turn":
            option = choose(message["options"])
            if option is None:
                continue
            action = {
                "type": "action",
                "table_id": message["table_id"],
                "hand_id": message["hand_id"],
                "kind": option["kind"],
                "amount": option["amount"],
                "version": message["version"],
            }
            await client.send(**action)
        elif message["type"] == "error":
            raise AssertionError(f"{client.name}: {message}")
    return finished
