"""A load run over several processes (``studpoker loadtest --processes N``): each one a
:mod:`.worker` that drives its share of the tables, all measured over one window and merged
into one report.

One Python process holds a core at most, and thousands of players' messages keep it busy: 10,000
players on one machine need the load spread. The coordinator (this process) picks the tables,
gives each worker every N-th of them and a block of player numbers, waits until every worker
has seated its players, starts the measured window in all of them at once, reads the CPU of
the server, of each worker and of the machine at its start and end, and merges what the
workers measured (latencies, hands, errors, ...) into one :class:`~.report.LoadReport`.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import os
import secrets
import sys
import time
from typing import Any

import httpx

from .client import usable_tables
from .config import LoadConfig, http_base
from .cpu import CpuReading, process_cpu_seconds
from .report import LoadReport, Metrics, audit

# Seconds a worker may take to answer after its window ends (standing up, the last messages).
_RESULT_GRACE = 90.0


class WorkerError(RuntimeError):
    """A worker process that stopped or said something else than the protocol expects."""


class Worker:
    """One worker process and its pipe."""

    def __init__(self, process: asyncio.subprocess.Process, number: int) -> None:
        self.process = process
        self.number = number

    @classmethod
    async def start(cls, number: int, config: LoadConfig) -> Worker:
        process = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "studpoker.loadtest.worker",
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            env={**os.environ, "PYTHONUNBUFFERED": "1"},
            limit=2**28,  # the result line holds every latency the worker measured
        )
        worker = cls(process, number)
        worker.tell({"config": dataclasses.asdict(config)})
        return worker

    def tell(self, message: dict[str, Any]) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write((json.dumps(message) + "\n").encode())

    async def hear(self, key: str, timeout: float) -> dict[str, Any]:
        assert self.process.stdout is not None
        async with asyncio.timeout(timeout):
            line = await self.process.stdout.readline()
        if not line:
            code = await self.process.wait()
            raise WorkerError(f"load worker {self.number} exited ({code}) before its {key!r}")
        message: dict[str, Any] = json.loads(line)
        if key not in message:
            raise WorkerError(f"load worker {self.number} said {line[:200]!r}, not {key!r}")
        return message

    def cpu_seconds(self) -> float:
        return process_cpu_seconds(self.process.pid) or 0.0

    async def stop(self) -> None:
        if self.process.returncode is None:
            if self.process.stdin is not None:
                self.process.stdin.close()
            try:
                async with asyncio.timeout(30):
                    await self.process.wait()
            except TimeoutError:
                self.process.kill()
                await self.process.wait()


def shares(tables: list[dict[str, Any]], processes: int) -> list[list[dict[str, Any]]]:
    """Every ``processes``-th table to each worker (the last ones get one fewer at most); no
    worker without a table."""
    return [share for share in (tables[k::processes] for k in range(processes)) if share]


async def run_load_processes(config: LoadConfig, processes: int) -> LoadReport:
    """Set up, play and measure ``config`` with ``processes`` worker processes; the audit at the
    end when a database URL is given."""
    async with httpx.AsyncClient(base_url=http_base(config.url), timeout=120) as http:
        begin = time.monotonic()
        tables, total = await usable_tables(http, config)
        notes = []
        if len(tables) < config.tables:
            notes.append(
                f"only {len(tables)} empty tables with {config.players_per_table}+ seats (of {total})"
            )
        prefix = config.name_prefix or f"lt{secrets.token_hex(3)}"
        workers: list[Worker] = []
        first = 0
        try:
            for number, share in enumerate(shares(tables, processes)):
                part = dataclasses.replace(
                    config,
                    tables=len(share),
                    table_ids=[int(t["id"]) for t in share],
                    name_prefix=prefix,
                    first_index=first,
                    seed=None if config.seed is None else config.seed * 1000 + number,
                    database_url=None,
                    # The run's registrations and handshakes at once, shared out: the server
                    # sees as many as one process would send.
                    register_concurrency=max(1, config.register_concurrency // processes),
                    connect_concurrency=max(1, config.connect_concurrency // processes),
                )
                first += len(share) * config.players_per_table
                workers.append(await Worker.start(number, part))
            # All at once: a worker that fails its setup ends the run now, not after the others.
            ready = await asyncio.gather(*(w.hear("ready", config.setup_timeout + 60) for w in workers))
            setup_seconds = time.monotonic() - begin
            start = await CpuReading.take(http)
            started = [w.cpu_seconds() for w in workers]
            for w in workers:
                w.tell({"go": config.seconds})
            await asyncio.sleep(config.seconds)
            end = await CpuReading.take(http)
            ended = [w.cpu_seconds() for w in workers]
            for w in workers:  # the window is read: now the players stand up
                w.tell({"stop": True})
            results = await asyncio.gather(*(w.hear("result", _RESULT_GRACE) for w in workers))
        finally:
            for w in workers:
                await w.stop()
    metrics = Metrics()
    for result in results:
        metrics.merge(Metrics.from_json(result["result"]))
    report = LoadReport.build(
        metrics,
        url=config.url,
        tables=config.tables,
        players_per_table=config.players_per_table,
        think_time=config.think_time,
        seconds=min(r["seconds"] for r in results),
        players=sum(r["players"] for r in ready),
        seated=sum(r["seated"] for r in ready),
        tables_available=sum(r["tables_available"] for r in ready),
        setup_seconds=setup_seconds,
    )
    report.notes.extend(notes + [n for r in ready for n in r["notes"]])
    server, coordinator, machine = end.since(start)
    by_process = [round(coordinator, 2)] + [round(b - a, 2) for a, b in zip(started, ended, strict=True)]
    report.server_cpu_seconds = None if server is None else round(server, 2)
    report.client_cpu_seconds = round(sum(by_process), 2)
    report.client_cpu_by_process = by_process
    report.client_processes = len(workers)
    report.machine_cpu_seconds = None if machine is None else round(machine, 2)
    report.cores = os.cpu_count()
    if config.database_url:
        await asyncio.sleep(1.0)  # the tables finish or void what the leavers were in
        report.audit_balanced, report.audit_text = await audit(config.database_url)
    return report
