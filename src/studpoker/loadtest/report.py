"""What a load run measured, and how it is printed (text table or JSON)."""

from __future__ import annotations

import json
import math
from collections import Counter
from dataclasses import asdict, dataclass, field
from typing import Any


def percentile(values: list[float], q: float) -> float:
    """The ``q`` quantile (0..1) of ``values`` by the nearest-rank method; 0.0 when empty."""
    if not values:
        return 0.0
    ordered = sorted(values)
    rank = max(1, math.ceil(q * len(ordered)))
    return ordered[min(rank, len(ordered)) - 1]


@dataclass
class Metrics:
    """Shared counters that every load client writes into (one event loop, no locks needed)."""

    active: bool = False
    latencies: list[float] = field(default_factory=list)
    actions: int = 0
    hands: set[str] = field(default_factory=set)
    voided: set[str] = field(default_factory=set)
    errors: Counter[str] = field(default_factory=Counter)
    error_samples: list[str] = field(default_factory=list)
    reconnects: int = 0
    drops: int = 0
    timeouts: int = 0
    sat_in: int = 0
    busted: int = 0
    messages_received: int = 0

    def error(self, code: str, text: str) -> None:
        self.errors[code] += 1
        if len(self.error_samples) < 20:
            self.error_samples.append(text[:300])

    def to_json(self) -> dict[str, Any]:
        """What a load worker process measured, for the process that merges the run."""
        data = asdict(self)
        data["hands"], data["voided"] = sorted(self.hands), sorted(self.voided)
        data["errors"] = dict(self.errors)
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Metrics:
        return cls(
            **{
                **data,
                "hands": set(data["hands"]),
                "voided": set(data["voided"]),
                "errors": Counter(data["errors"]),
            }
        )

    def merge(self, other: Metrics) -> None:
        """Add another process's measurements to these (a hand seen by both counts once)."""
        self.latencies.extend(other.latencies)
        self.hands |= other.hands
        self.voided |= other.voided
        self.errors.update(other.errors)
        self.error_samples.extend(other.error_samples[: max(0, 20 - len(self.error_samples))])
        for name in ("actions", "reconnects", "drops", "timeouts", "sat_in", "busted", "messages_received"):
            setattr(self, name, getattr(self, name) + getattr(other, name))


@dataclass
class LoadReport:
    url: str
    tables: int
    players_per_table: int
    think_time: float
    seconds: float
    players: int
    seated: int
    tables_available: int
    setup_seconds: float
    hands: int
    voided_hands: int
    actions: int
    hands_per_second: float
    actions_per_second: float
    latency_ms: dict[str, float]
    latency_samples: int
    errors: dict[str, int]
    error_samples: list[str]
    reconnects: int
    drops: int
    timeouts: int
    messages_received: int
    busted: int = 0
    # CPU seconds over the measured window: the server's (from /api/health), this load client's,
    # and the whole machine's (every process, from /proc/stat), with the machine's core count.
    server_cpu_seconds: float | None = None
    client_cpu_seconds: float | None = None
    machine_cpu_seconds: float | None = None
    cores: int | None = None
    # The load client's processes (``--processes``) and each one's CPU seconds in the window
    # (the coordinating process first when there are several); their sum is client_cpu_seconds.
    client_processes: int = 1
    client_cpu_by_process: list[float] = field(default_factory=list)
    audit_balanced: bool | None = None
    audit_text: str = ""
    notes: list[str] = field(default_factory=list)

    @classmethod
    def build(
        cls,
        metrics: Metrics,
        *,
        url: str,
        tables: int,
        players_per_table: int,
        think_time: float,
        seconds: float,
        players: int,
        seated: int,
        tables_available: int,
        setup_seconds: float,
    ) -> LoadReport:
        lat = [x * 1000.0 for x in metrics.latencies]
        span = max(seconds, 1e-9)
        return cls(
            url=url,
            tables=tables,
            players_per_table=players_per_table,
            think_time=think_time,
            seconds=round(seconds, 3),
            players=players,
            seated=seated,
            tables_available=tables_available,
            setup_seconds=round(setup_seconds, 3),
            hands=len(metrics.hands),
            voided_hands=len(metrics.voided),
            actions=metrics.actions,
            hands_per_second=round(len(metrics.hands) / span, 3),
            actions_per_second=round(metrics.actions / span, 3),
            latency_ms={
                "p50": round(percentile(lat, 0.50), 2),
                "p95": round(percentile(lat, 0.95), 2),
                "p99": round(percentile(lat, 0.99), 2),
                "max": round(max(lat, default=0.0), 2),
            },
            latency_samples=len(lat),
            errors=dict(metrics.errors),
            error_samples=list(metrics.error_samples),
            reconnects=metrics.reconnects,
            drops=metrics.drops,
            timeouts=metrics.timeouts,
            messages_received=metrics.messages_received,
            busted=metrics.busted,
        )

    @property
    def server_cpu_us_per_action(self) -> float | None:
        """The server's CPU per action in the measured window (microseconds)."""
        if self.server_cpu_seconds is None or not self.actions:
            return None
        return round(self.server_cpu_seconds / self.actions * 1e6, 1)

    @property
    def error_count(self) -> int:
        return sum(self.errors.values())

    def meets(self, p99_ms: float = 100.0) -> bool:
        """The bar of issue 7: p99 under ``p99_ms``, no error, the audit not unbalanced."""
        return (
            self.latency_samples > 0
            and self.error_count == 0
            and self.latency_ms["p99"] < p99_ms
            and self.audit_balanced is not False
        )

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["meets_bar"] = self.meets()
        data["server_cpu_us_per_action"] = self.server_cpu_us_per_action
        return data

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=2, sort_keys=True)

    def cpu_text(self) -> str:
        """Who used the machine in the measured window, and the server's CPU per action."""
        if self.server_cpu_seconds is None:
            return "server not measured (its /api/health gives no cpu_seconds)"
        span = max(self.seconds, 1e-9)
        parts = [
            f"server {self.server_cpu_seconds:.1f} s ({self.server_cpu_seconds / span:.0%} of a core),"
            f" {self.server_cpu_us_per_action or 0:.0f} us per action"
        ]
        if self.client_cpu_seconds is not None:
            share = self.client_cpu_seconds / span
            client = f"load client {self.client_cpu_seconds:.1f} s ({share:.0%} of a core"
            if self.client_processes > 1:
                coordinator, *workers = self.client_cpu_by_process
                each = ", ".join(f"{c:.1f}" for c in workers)
                client += f"; coordinator {coordinator:.1f} s, {self.client_processes} workers {each} s"
            parts.append(client + ")")
        if self.machine_cpu_seconds is not None and self.cores:
            busy = self.machine_cpu_seconds / (span * self.cores)
            parts.append(f"machine {busy:.0%} busy of {self.cores} cores")
        return "; ".join(parts)

    def render(self) -> str:
        lat = self.latency_ms
        audit = {None: "not run (give --database-url)", True: "balanced", False: "NOT BALANCED"}[
            self.audit_balanced
        ]
        lines = [
            f"load test against {self.url}",
            f"  tables            {self.tables} requested, {self.tables_available} usable,"
            f" {self.players_per_table} players each ({self.seated}/{self.players} seated)",
            f"  think time        {self.think_time:g} s",
            f"  setup             {self.setup_seconds:.1f} s (register, connect, sit)",
            f"  measured          {self.seconds:.1f} s",
            f"  hands             {self.hands} finished ({self.hands_per_second:.2f}/s),"
            f" {self.voided_hands} voided",
            f"  actions           {self.actions} ({self.actions_per_second:.1f}/s)",
            f"  latency ms        p50 {lat['p50']:.1f}  p95 {lat['p95']:.1f}  p99 {lat['p99']:.1f}"
            f"  max {lat['max']:.1f}  ({self.latency_samples} samples)",
            f"  errors            {self.error_count}"
            + (f" {dict(sorted(self.errors.items()))}" if self.errors else ""),
            f"  clock timeouts    {self.timeouts}",
            f"  reconnects        {self.reconnects} (drops {self.drops})",
            f"  out of money      {self.busted} players left their table",
            f"  messages received {self.messages_received}",
            f"  CPU               {self.cpu_text()}",
            f"  audit             {audit}",
            f"  p99 < 100 ms, zero errors: {'yes' if self.meets() else 'no'}",
        ]
        lines.extend(f"  error: {s}" for s in self.error_samples[:5])
        lines.extend(f"  note: {n}" for n in self.notes)
        return "\n".join(lines)


async def audit(database_url: str) -> tuple[bool, str]:
    """The ledger audit of the server's database after a run: (balanced, the report's text)."""
    from studpoker.store import Store

    store = await Store.open(database_url)
    try:
        report = await store.audit()
    finally:
        await store.close()
    return bool(report.balanced), report.render()
