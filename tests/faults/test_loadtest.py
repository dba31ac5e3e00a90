"""The load client itself: percentiles, the report, and a short run that ends with the audit."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

from studpoker.loadtest import LoadConfig, Metrics, choose, percentile, run_load
from studpoker.loadtest.report import LoadReport
from tests.server.conftest import make_settings, running_server


def test_percentile_nearest_rank() -> None:
    values = [float(v) for v in range(1, 101)]
    assert percentile(values, 0.5) == 50.0
    assert percentile(values, 0.99) == 99.0
    assert percentile(values, 1.0) == 100.0
    assert percentile([], 0.5) == 0.0
    assert percentile([7.0], 0.99) == 7.0


def test_policy_only_picks_offered_options() -> None:
    rng = random.Random(1)
    options: list[dict[str, Any]] = [
        {"kind": "fold"},
        {"kind": "call", "amount": 200},
        {"kind": "raise", "amount": 400},
    ]
    for _ in range(200):
        assert choose(options, rng) in options


def test_report_bar() -> None:
    metrics = Metrics(latencies=[0.01] * 99 + [0.2], actions=100, hands={"a", "b"})
    report = LoadReport.build(
        metrics,
        url="ws://x",
        tables=1,
        players_per_table=2,
        think_time=1.0,
        seconds=10.0,
        players=2,
        seated=2,
        tables_available=1,
        setup_seconds=1.0,
    )
    assert report.latency_ms["p99"] == 10.0 and report.meets()
    metrics.error("stale", "x")
    report.errors = dict(metrics.errors)
    assert not report.meets() and "errors            1" in report.render()
    assert '"meets_bar": false' in report.to_json()


async def test_short_load_run_ends_balanced(tmp_path: Path) -> None:
    settings = make_settings(tmp_path, hand_pause_seconds=0.1)
    async with running_server(settings) as harness:
        for _ in range(2):
            await harness.add_table()
        report = await run_load(
            LoadConfig(
                url=f"ws://{harness.base}",
                tables=3,
                players_per_table=3,
                seconds=4.0,
                think_time=0.05,
                seed=3,
                database_url=settings.database_url,
            )
        )
    assert report.tables_available == 2 and any("only 2" in n for n in report.notes)
    assert report.seated == 6 and report.actions > 0 and report.latency_samples > 0
    assert report.error_count == 0, report.render()
    assert report.audit_balanced is True
