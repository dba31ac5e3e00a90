"""The load client: many bot players over real WebSockets, each its own account.

Every player registers through the REST API, connects to ``/ws`` and authenticates with a first
``auth`` message (a token in the URL would end up in access logs), joins its table,
sits, and then plays whatever it is asked (``your_turn``) after a think time, choosing among the
legal options it was sent. The latency of an action is the time from sending it to receiving the
engine event that records it (``event`` of kind ``action`` for the player's seat).

A player whose connection drops (server killed, network storm) reconnects with backoff, joins
its table again and sits again if the server cleared its seat; everything is bounded by the
run's deadline. Optional chaos: a fraction of players drop their socket at random moments.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import math
import random
import secrets
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import httpx
import websockets

from .report import LoadReport, Metrics

PASSWORD = "loadtest-password"
AGGRESSIVE = ("complete", "bet", "raise")


def http_base(url: str) -> str:
    """``ws://host:port[/...]`` -> ``http://host:port``."""
    rest = url.split("://", 1)[-1].split("/", 1)[0]
    scheme = "https" if url.startswith("wss://") else "http"
    return f"{scheme}://{rest}"


def ws_base(url: str) -> str:
    rest = url.split("://", 1)[-1].split("/", 1)[0]
    scheme = "wss" if url.startswith(("wss://", "https://")) else "ws"
    return f"{scheme}://{rest}"


def choose(options: Sequence[dict[str, Any]], rng: random.Random) -> dict[str, Any]:
    """A mostly passive policy over the legal options: check / call, sometimes bet, rarely fold."""
    by_kind = {o["kind"]: o for o in options}
    aggressive = [o for o in options if o["kind"] in AGGRESSIVE]
    roll = rng.random()
    if "check" in by_kind:
        if aggressive and roll < 0.15:
            return rng.choice(aggressive)
        return by_kind["check"]
    passive = by_kind.get("bring_in") or by_kind.get("call")
    if passive is not None:
        if "fold" in by_kind and roll < 0.06:
            return by_kind["fold"]
        if aggressive and roll > 0.93:
            return rng.choice(aggressive)
        return passive
    return rng.choice(list(options))


@dataclass
class LoadConfig:
    url: str
    tables: int
    players_per_table: int
    seconds: float
    think_time: float = 1.0
    # Think time drawn uniformly from think_time * [1 - jitter, 1 + jitter].
    jitter: float = 0.5
    buy_in: int | None = None
    seed: int | None = None
    name_prefix: str | None = None
    password: str = PASSWORD
    register_concurrency: int = 8
    connect_concurrency: int = 64
    setup_timeout: float = 900.0
    # Chaos: this fraction of the players drops its socket about every ``drop_every`` seconds
    # and comes back after up to ``max_away`` seconds.
    drop_fraction: float = 0.0
    drop_every: float = 5.0
    max_away: float = 3.0
    database_url: str | None = None
    # Only tables with these ids (None: the empty tables of the lobby with enough seats).
    table_ids: list[int] | None = None


@dataclass
class Control:
    """Shared deadline: ``stop_at`` is infinite until the setup is done."""

    stop_at: float = math.inf
    stopping: bool = False
    connect_gate: asyncio.Semaphore = field(default_factory=lambda: asyncio.Semaphore(64))


class SessionFatalError(Exception):
    """The server refused the player for good (e.g. its token)."""


class LoadPlayer:
    """One account at one seat of one table."""

    def __init__(
        self,
        *,
        index: int,
        name: str,
        token: str,
        table_id: int,
        seat: int,
        buy_in: int,
        min_buy_in: int | None = None,
        config: LoadConfig,
        metrics: Metrics,
        control: Control,
        http: httpx.AsyncClient,
        rng: random.Random,
        flaky: bool = False,
    ) -> None:
        self.index = index
        self.name = name
        self.token = token
        self.table_id = table_id
        self.seat = seat
        self.buy_in = buy_in
        self.min_buy_in = buy_in if min_buy_in is None else min_buy_in
        self.config = config
        self.metrics = metrics
        self.control = control
        self.http = http
        self.rng = rng
        self.flaky = flaky
        self.account_id: int | None = None
        self.ready = asyncio.Event()
        self.seated = False
        self.gave_up = False
        self.sessions = 0
        self.ws: Any = None
        self._turn: dict[str, Any] | None = None
        self._due = math.inf
        self._pending: float | None = None
        self._next_ping = 0.0
        self._next_drop = math.inf
        self._sit_sent = 0.0
        self._topped_up = False
        self._sit_in_due = False
        self.hands_seen: set[str] = set()

    # -- the run ----------------------------------------------------------------------------

    async def run(self) -> None:
        backoff = 0.1
        while not self.control.stopping and time.monotonic() < self.control.stop_at and not self.gave_up:
            try:
                await self._session()
                if self.control.stopping or time.monotonic() >= self.control.stop_at:
                    break
                self.metrics.drops += 1
            except SessionFatalError as exc:
                self.metrics.error("fatal", f"{self.name}: {exc}")
                self.gave_up = True
                break
            except (OSError, websockets.ConnectionClosed, websockets.InvalidHandshake, TimeoutError) as exc:
                if self.control.stopping:
                    break
                self.metrics.drops += 1
                del exc
            away = backoff
            if self.flaky and self._dropped_on_purpose:
                away = self.rng.uniform(0.0, self.config.max_away)
            else:
                backoff = min(backoff * 2, 2.0)
            left = self.control.stop_at - time.monotonic()
            if left <= 0:
                break
            await asyncio.sleep(min(away, left))

    _dropped_on_purpose = False

    async def _session(self) -> None:
        self._dropped_on_purpose = False
        url = f"{ws_base(self.config.url)}/ws"
        async with self.control.connect_gate:
            ws = await websockets.connect(
                url, open_timeout=20, close_timeout=2, max_size=2**22, ping_interval=None
            )
        self.ws = ws
        self.sessions += 1
        if self.sessions > 1:
            self.metrics.reconnects += 1
        self._turn = None
        self._pending = None
        self._due = math.inf
        self.seated = False
        self._sit_sent = 0.0  # a sit sent on the last connection may never have been answered
        try:
            await ws.send(json.dumps({"type": "auth", "token": self.token}))
            welcome = json.loads(await asyncio.wait_for(ws.recv(), 20))
            if welcome.get("type") != "welcome":
                raise SessionFatalError(f"no welcome: {welcome}")
            self.account_id = int(welcome["account_id"])
            await self._send({"type": "join_table", "table_id": self.table_id})
            self._schedule_drop()
            await self._loop()
        finally:
            self.ws = None
            with contextlib.suppress(Exception):
                await asyncio.wait_for(ws.close(), 2)

    def _schedule_drop(self) -> None:
        if self.flaky and self.config.drop_every > 0:
            self._next_drop = time.monotonic() + self.rng.expovariate(1.0 / self.config.drop_every)
        else:
            self._next_drop = math.inf

    async def _loop(self) -> None:
        ws = self.ws
        assert ws is not None
        while True:
            now = time.monotonic()
            if now >= self.control.stop_at or self.control.stopping:
                await self._leave()
                return
            if now >= self._next_drop and self.control.stop_at - now > 2 * self.config.max_away:
                self._dropped_on_purpose = True
                ws.transport.abort()
                return
            if now >= self._due:
                await self._act()
                continue
            if now >= self._next_ping:
                await self._send({"type": "ping"})
            wake = min(self._due, self._next_ping, self.control.stop_at, self._next_drop)
            try:
                text = await asyncio.wait_for(ws.recv(), max(0.001, wake - now))
            except TimeoutError:
                continue
            stamp = time.perf_counter()
            self._handle(json.loads(text), stamp)
            if self.seated is False and self._want_sit():
                await self._sit()
            elif self._sit_in_due and self.seated and not self.control.stopping:
                # Timed out (sat out by the clock rule): a present player comes back.
                self._sit_in_due = False
                self.metrics.sat_in += 1
                await self._send({"type": "sit_in", "id": "back", "table_id": self.table_id})

    async def _send(self, message: dict[str, Any]) -> None:
        assert self.ws is not None
        self._next_ping = time.monotonic() + 20.0
        await self.ws.send(json.dumps(message))

    def _want_sit(self) -> bool:
        return (
            not self.gave_up
            and self._sit_sent == 0.0
            and not self.control.stopping
            and time.monotonic() < self.control.stop_at
        )

    async def _sit(self) -> None:
        self._sit_sent = time.monotonic()
        await self._send(
            {"type": "sit", "id": "sit", "table_id": self.table_id, "seat": self.seat, "buy_in": self.buy_in}
        )

    async def _act(self) -> None:
        turn = self._turn
        self._turn = None
        self._due = math.inf
        if turn is None:
            return
        option = choose(turn["options"], self.rng)
        self._pending = time.perf_counter()
        if self.metrics.active:
            self.metrics.actions += 1
        await self._send(
            {
                "type": "action",
                "table_id": self.table_id,
                "hand_id": turn["hand_id"],
                "kind": option["kind"],
                "amount": option.get("amount"),
                "version": turn["version"],
            }
        )

    async def _leave(self) -> None:
        """Stand up (cashed out at once, or after the hand) and wait briefly for the ack."""
        if not self.seated or self.ws is None:
            return
        with contextlib.suppress(Exception):
            await self._send({"type": "stand_up", "id": "bye", "table_id": self.table_id})
            deadline = time.monotonic() + 3
            while time.monotonic() < deadline:
                message = json.loads(await asyncio.wait_for(self.ws.recv(), deadline - time.monotonic()))
                if message.get("ref") == "bye":
                    break
        self.seated = False

    # -- messages ---------------------------------------------------------------------------

    def _handle(self, message: dict[str, Any], stamp: float) -> None:
        metrics = self.metrics
        metrics.messages_received += 1
        kind = message.get("type")
        if kind == "event":
            self._on_event(message.get("event") or {}, stamp)
        elif kind == "your_turn":
            self._on_turn(message)
        elif kind == "table_state":
            self.seated = message.get("your_seat") is not None
            self._check_sitting_out(message.get("seats") or ())
            if self.seated:
                self._sit_sent = 0.0
                self.ready.set()
            turn = message.get("your_turn")
            if turn:
                self._on_turn(turn)
        elif kind == "hand_finished":
            self._turn, self._due = None, math.inf
            hand_id = str(message.get("hand_id"))
            if metrics.active and hand_id not in self.hands_seen:
                metrics.hands.add(hand_id)
            self.hands_seen.add(hand_id)
        elif kind == "ack":
            if message.get("request") == "sit":
                self.seated = True
                self._sit_sent = 0.0
                self.ready.set()
        elif kind == "error":
            self._on_error(message)

    def _on_turn(self, turn: dict[str, Any]) -> None:
        if turn.get("seat") != self.seat:
            return
        self._turn = turn
        think = self.config.think_time
        if think > 0:
            j = self.config.jitter
            think = self.rng.uniform(think * (1 - j), think * (1 + j))
        self._due = time.monotonic() + think

    def _on_event(self, event: dict[str, Any], stamp: float) -> None:
        metrics = self.metrics
        kind = event.get("kind") or event.get("type")
        if kind in ("action", "timeout") and event.get("seat") == self.seat:
            if kind == "action" and self._pending is not None and metrics.active:
                metrics.latencies.append(stamp - self._pending)
            if kind == "timeout":
                if metrics.active:
                    metrics.timeouts += 1
                self._turn, self._due = None, math.inf
            self._pending = None
        elif kind == "hand_voided":
            if metrics.active:
                metrics.voided.add(str(event.get("hand_id")))
            self._turn, self._due, self._pending = None, math.inf, None
        elif kind == "seats":
            mine = any(s.get("account_id") == self.account_id for s in event.get("seats") or ())
            if self.seated and not mine:
                self.seated = False  # busted (cashed out after the hand): sit again
            self._check_sitting_out(event.get("seats") or ())

    def _check_sitting_out(self, seats: Any) -> None:
        for info in seats:
            if info.get("account_id") == self.account_id:
                self._sit_in_due = bool(info.get("sitting_out"))

    def _on_error(self, message: dict[str, Any]) -> None:
        code = str(message.get("code"))
        text = f"{self.name} seat {self.seat} table {self.table_id}: {code}: {message.get('message')}"
        if message.get("ref") == "sit":
            self._sit_sent = 0.0
            if code == "already_seated":
                self.seated = True
                self.ready.set()
                return
            if code == "insufficient_funds":
                # Broke after busting: buy in for the table minimum, then ask for the daily top-up,
                # then leave the table (a player out of money is not a server error).
                if self.buy_in > self.min_buy_in:
                    self.buy_in = self.min_buy_in
                    return
                if not self._topped_up:
                    self._topped_up = True
                    asyncio.get_running_loop().create_task(self._topup())
                    self._sit_sent = time.monotonic()  # hold the re-sit until the top-up is done
                    return
                self.gave_up = True
                self.metrics.busted += 1
                return
            if code == "seat_taken":
                self.gave_up = True
        if message.get("ref") == "bye":
            return
        self.metrics.error(code, text)

    async def _topup(self) -> None:
        with contextlib.suppress(Exception):
            await self.http.post("/api/topup", headers={"Authorization": f"Bearer {self.token}"})
        self._sit_sent = 0.0


# ----------------------------------------------------------------------------- setup and the run


async def _register(
    http: httpx.AsyncClient, name: str, password: str, gate: asyncio.Semaphore, deadline: float
) -> str:
    async with gate:
        while True:
            response = await http.post("/api/register", json={"name": name, "password": password})
            if response.status_code == 201:
                return str(response.json()["token"])
            if response.status_code == 409:
                response = await http.post("/api/login", json={"name": name, "password": password})
                if response.status_code == 200:
                    return str(response.json()["token"])
            if response.status_code < 500 or time.monotonic() > deadline:
                raise RuntimeError(f"cannot register {name}: {response.status_code} {response.text[:200]}")
            await asyncio.sleep(0.5)


async def usable_tables(http: httpx.AsyncClient, config: LoadConfig) -> tuple[list[dict[str, Any]], int]:
    """The tables to play at (empty ones with enough seats), and how many exist in all."""
    response = await http.get("/api/tables")
    response.raise_for_status()
    tables: list[dict[str, Any]] = response.json()
    if config.table_ids is not None:
        wanted = set(config.table_ids)
        tables = [t for t in tables if t["id"] in wanted]
    usable = [t for t in tables if t["max_seats"] >= config.players_per_table and t["seated"] == 0]
    usable.sort(key=lambda t: t["id"])
    return usable[: config.tables], len(tables)


async def audit(database_url: str) -> tuple[bool, str]:
    from studpoker.store import Store

    store = await Store.open(database_url)
    try:
        report = await store.audit()
    finally:
        await store.close()
    return bool(report.balanced), report.render()


class LoadRun:
    """A run: set up with :meth:`setup`, play with :meth:`play`; tests may reach the players."""

    def __init__(self, config: LoadConfig) -> None:
        self.config = config
        self.metrics = Metrics()
        self.control = Control(connect_gate=asyncio.Semaphore(config.connect_concurrency))
        self.rng = random.Random(config.seed)
        self.players: list[LoadPlayer] = []
        self.tasks: list[asyncio.Task[None]] = []
        self.http: httpx.AsyncClient | None = None
        self.tables_available = 0
        self.setup_seconds = 0.0
        self.notes: list[str] = []
        self.started = 0.0

    async def __aenter__(self) -> LoadRun:
        self.http = httpx.AsyncClient(base_url=http_base(self.config.url), timeout=120)
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.stop()
        if self.http is not None:
            await self.http.aclose()

    async def setup(self) -> None:
        config = self.config
        assert self.http is not None
        begin = time.monotonic()
        deadline = begin + config.setup_timeout
        tables, total = await usable_tables(self.http, config)
        self.tables_available = len(tables)
        if len(tables) < config.tables:
            self.notes.append(
                f"only {len(tables)} empty tables with {config.players_per_table}+ seats"
                f" (of {total}); the server cannot create tables on demand:"
                " start it with more (python -m studpoker.loadtest.server --tables N)"
            )
        prefix = config.name_prefix or f"lt{secrets.token_hex(3)}"
        gate = asyncio.Semaphore(config.register_concurrency)
        specs = [(table, seat) for table in tables for seat in range(1, config.players_per_table + 1)]
        names = [f"{prefix}-{i:05d}" for i in range(len(specs))]
        tokens = await asyncio.gather(
            *(_register(self.http, n, config.password, gate, deadline) for n in names)
        )
        flaky_count = round(len(specs) * config.drop_fraction)
        flaky = set(self.rng.sample(range(len(specs)), flaky_count)) if flaky_count else set()
        for i, ((table, seat), name, token) in enumerate(zip(specs, names, tokens, strict=True)):
            buy_in = config.buy_in or min(
                table["max_buy_in"], max(table["min_buy_in"], 2 * table["min_buy_in"])
            )
            self.players.append(
                LoadPlayer(
                    index=i,
                    name=name,
                    token=token,
                    table_id=int(table["id"]),
                    seat=seat,
                    buy_in=buy_in,
                    min_buy_in=int(table["min_buy_in"]),
                    config=config,
                    metrics=self.metrics,
                    control=self.control,
                    http=self.http,
                    rng=random.Random(self.rng.random()),
                    flaky=i in flaky,
                )
            )
        self.tasks = [
            asyncio.get_running_loop().create_task(p.run(), name=f"load-{p.name}") for p in self.players
        ]
        waits = [asyncio.create_task(p.ready.wait()) for p in self.players]
        if waits:
            _done, pending = await asyncio.wait(waits, timeout=max(1.0, deadline - time.monotonic()))
            for w in pending:
                w.cancel()
        self.setup_seconds = time.monotonic() - begin

    async def play(self, seconds: float | None = None) -> None:
        """Measure for ``seconds`` (default: the config's), then every player stands up."""
        seconds = self.config.seconds if seconds is None else seconds
        self.metrics.active = True
        self.started = time.monotonic()
        self.control.stop_at = self.started + seconds
        if self.tasks:
            await asyncio.wait(self.tasks, timeout=seconds + 30)
        await self.stop()

    async def stop(self) -> None:
        self.control.stopping = True
        if self.control.stop_at == math.inf:
            self.control.stop_at = time.monotonic()
        pending = [t for t in self.tasks if not t.done()]
        if pending:
            _done, still = await asyncio.wait(pending, timeout=10)
            for task in still:
                task.cancel()
            await asyncio.gather(*still, return_exceptions=True)
        for task in self.tasks:
            if task.done() and not task.cancelled() and task.exception() is not None:
                exc = task.exception()
                self.metrics.error("client", f"client crashed: {exc!r}")
        self.tasks = []

    def report(self) -> LoadReport:
        end = min(time.monotonic(), self.control.stop_at) if self.started else self.started
        report = LoadReport.build(
            self.metrics,
            url=self.config.url,
            tables=self.config.tables,
            players_per_table=self.config.players_per_table,
            think_time=self.config.think_time,
            seconds=max(0.0, end - self.started),
            players=len(self.players),
            seated=sum(p.ready.is_set() for p in self.players),
            tables_available=self.tables_available,
            setup_seconds=self.setup_seconds,
        )
        report.notes.extend(self.notes)
        return report


async def run_load(config: LoadConfig) -> LoadReport:
    """Set up, play for ``config.seconds``, stand everyone up, audit when a database URL is given."""
    async with LoadRun(config) as run:
        await run.setup()
        await run.play()
        report = run.report()
    if config.database_url:
        # Let the tables finish or void what the leavers were in before checking the books.
        await asyncio.sleep(1.0)
        report.audit_balanced, report.audit_text = await audit(config.database_url)
    return report
