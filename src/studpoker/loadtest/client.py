"""The load client: many bot players over real WebSockets, each its own account.

Every player registers through the REST API (or logs in, on a second run with the same names),
then plays at its seat (:mod:`.player`) until the run's deadline; the run measures a window
and reports it (:mod:`.report`). Optional chaos: a fraction of players drop their socket at
random moments.
"""

from __future__ import annotations

import asyncio
import os
import random
import secrets
import time
from collections.abc import Awaitable, Callable
from typing import Any

import httpx

from studpoker.server.gc_policy import tune_load_client

from .config import PASSWORD, Control, LoadConfig, http_base, ws_base
from .cpu import CpuReading
from .player import LoadPlayer, SessionFatalError, choose
from .report import LoadReport, Metrics, audit

# The names this module has always offered (docs/tools.md names ``client.choose``).
__all__ = [
    "PASSWORD",
    "Control",
    "LoadConfig",
    "LoadPlayer",
    "LoadRun",
    "SessionFatalError",
    "choose",
    "http_base",
    "register",
    "run_load",
    "usable_tables",
    "ws_base",
]


async def register(
    http: httpx.AsyncClient, name: str, password: str, gate: asyncio.Semaphore, deadline: float
) -> str:
    async with gate:
        while True:
            try:
                response = await http.post("/api/register", json={"name": name, "password": password})
                if response.status_code == 409:
                    response = await http.post("/api/login", json={"name": name, "password": password})
                    if response.status_code == 200:
                        return str(response.json()["token"])
            except httpx.TransportError:
                # A kept-alive connection the server closed as it was reused (likelier when
                # thousands register on a busy machine): again on a fresh one.
                if time.monotonic() > deadline:
                    raise
                await asyncio.sleep(0.5)
                continue
            if response.status_code == 201:
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


class LoadRun:
    """A run: set up with :meth:`setup`, play with :meth:`play`; tests may reach the players."""

    def __init__(self, config: LoadConfig) -> None:
        self.config = config
        self.metrics = Metrics()
        self.control = Control(asyncio.Semaphore(config.connect_concurrency))
        self.rng = random.Random(config.seed)
        self.players: list[LoadPlayer] = []
        self.tasks: list[asyncio.Task[None]] = []
        self.http: httpx.AsyncClient | None = None
        self.tables_available = 0
        self.setup_seconds = 0.0
        self.notes: list[str] = []
        self.started = 0.0
        self.cpu: tuple[float | None, float, float | None] | None = None

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
        names = [f"{prefix}-{config.first_index + i:05d}" for i in range(len(specs))]
        tokens = await asyncio.gather(
            *(register(self.http, n, config.password, gate, deadline) for n in names)
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

    async def play(
        self, seconds: float | None = None, *, release: Callable[[], Awaitable[object]] | None = None
    ) -> None:
        """Measure for ``seconds`` (default: the config's), then every player stands up: once
        the CPU at the window's end is read and ``release`` (if given) has returned, so that
        the stand-ups are not counted in the window."""
        seconds = self.config.seconds if seconds is None else seconds
        assert self.http is not None
        start = await CpuReading.take(self.http)

        async def window_over() -> None:
            await self._read_cpu(start)
            if release is not None:
                await release()

        self.control.before_stop = window_over
        self.metrics.active = True
        self.started = time.monotonic()
        self.control.stop_at = self.started + seconds
        if self.tasks:
            await asyncio.wait(self.tasks, timeout=seconds + 30)
        if self.cpu is None:  # stopped without the deadline (``Control.stop``)
            await self._read_cpu(start)
        await self.stop()

    async def _read_cpu(self, start: CpuReading) -> None:
        assert self.http is not None
        self.cpu = (await CpuReading.take(self.http)).since(start)

    async def stop(self) -> None:
        self.control.stop()
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
        if self.cpu is not None:
            server, client, machine = self.cpu
            report.server_cpu_seconds = None if server is None else round(server, 2)
            report.client_cpu_seconds = round(client, 2)
            report.client_cpu_by_process = [report.client_cpu_seconds]
            report.machine_cpu_seconds = None if machine is None else round(machine, 2)
            report.cores = os.cpu_count()
        return report


async def run_load(config: LoadConfig) -> LoadReport:
    """Set up, play for ``config.seconds``, stand everyone up, audit when a database URL is given."""
    async with LoadRun(config) as run:
        tune_load_client(config.tune_gc, after_setup=False)
        await run.setup()
        tune_load_client(config.tune_gc, after_setup=True)
        await run.play()
        report = run.report()
    if config.database_url:
        # Let the tables finish or void what the leavers were in before checking the books.
        await asyncio.sleep(1.0)
        report.audit_balanced, report.audit_text = await audit(config.database_url)
    return report
