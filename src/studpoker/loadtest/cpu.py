"""CPU readings for a load run's measured window: the server's own (its ``/api/health`` reports
``cpu_seconds``), this process's and its worker processes' (Linux ``/proc``), and the whole
machine's busy time (``/proc/stat``)."""

from __future__ import annotations

import os
import time
from dataclasses import dataclass

import httpx


def machine_busy_seconds() -> float | None:
    """CPU seconds every core of the machine has spent busy since boot (not idle, not waiting
    for I/O); None where ``/proc/stat`` cannot be read."""
    try:
        with open("/proc/stat") as f:
            fields = f.readline().split()
    except OSError:
        return None
    if not fields or fields[0] != "cpu":
        return None
    ticks = [int(x) for x in fields[1:]]
    idle = ticks[3] + (ticks[4] if len(ticks) > 4 else 0)
    return (sum(ticks[:8]) - idle) / os.sysconf("SC_CLK_TCK")


def process_cpu_seconds(pid: int) -> float | None:
    """User + system CPU seconds of process ``pid`` so far (Linux ``/proc``); None where it
    cannot be read."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def server_cpu_seconds(http: httpx.AsyncClient) -> float | None:
    """The server's CPU seconds so far, or None when its health answer has none."""
    try:
        answer = await http.get("/api/health")
        value = answer.json().get("cpu_seconds")
    except (httpx.HTTPError, ValueError, AttributeError):
        return None
    return float(value) if isinstance(value, int | float) else None


@dataclass(frozen=True)
class CpuReading:
    server: float | None
    client: float
    machine: float | None

    @classmethod
    async def take(cls, http: httpx.AsyncClient) -> CpuReading:
        return cls(
            server=await server_cpu_seconds(http), client=time.process_time(), machine=machine_busy_seconds()
        )

    def since(self, start: CpuReading) -> tuple[float | None, float, float | None]:
        """(server, client, machine) CPU seconds from ``start`` to this reading."""
        server = None if self.server is None or start.server is None else self.server - start.server
        machine = None if self.machine is None or start.machine is None else self.machine - start.machine
        return server, self.client - start.client, machine
