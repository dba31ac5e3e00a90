"""Load sweep: a fresh server per row, the load client in this process, one table of results.

``python -m bench load`` runs the default sweep; ``python -m bench.load --rows 25x8@1,250x8@1,16x8@0
--seconds 60 --json out.json`` runs the rows given as TABLESxPLAYERS@THINK. Each row gets its own
SQLite database and server (``python -m studpoker.loadtest.server --fast-hash``) and ends with
the ledger audit.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import sys
import tempfile
import time
from typing import Any

from studpoker.loadtest import LoadConfig, LoadReport, run_load
from studpoker.loadtest.server import spawn

DEFAULT_ROWS = "10x8@1,50x8@1,100x8@1,250x8@1,16x8@0"


def parse_rows(text: str) -> list[tuple[int, int, float]]:
    rows = []
    for item in text.split(","):
        shape, think = item.split("@")
        tables, players = shape.split("x")
        rows.append((int(tables), int(players), float(think)))
    return rows


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of a process so far (Linux /proc)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except OSError:
        return 0.0


def run_row(
    tables: int, players: int, think: float, seconds: float, profile: str | None = None
) -> tuple[LoadReport, float]:
    with tempfile.TemporaryDirectory(prefix="studpoker-bench-") as tmp:
        url = f"sqlite+aiosqlite:///{tmp}/load.sqlite3"
        server = spawn(url, tables=tables, profile=profile)
        try:
            load_before = os.getloadavg()[0]
            server_cpu = cpu_seconds(server.process.pid)
            client_cpu = time.process_time()
            report = asyncio.run(
                run_load(
                    LoadConfig(
                        url=server.ws_url,
                        tables=tables,
                        players_per_table=players,
                        seconds=seconds,
                        think_time=think,
                        seed=tables * 1000 + players,
                        database_url=url,
                        tune_gc=True,
                    )
                )
            )
            report.notes.append(
                f"CPU seconds during setup + run: server {cpu_seconds(server.process.pid) - server_cpu:.1f},"
                f" load client {time.process_time() - client_cpu:.1f}; load average before {load_before:.1f}"
            )
        finally:
            server.terminate(60)
        return report, load_before


def table(results: list[dict[str, Any]]) -> str:
    lines = [
        "| tables x players | think s | seconds | hands/s | actions/s | p50 ms | p95 ms | p99 ms | max ms"
        " | server CPU us/action | errors | audit | bar met |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in results:
        lat = r["latency_ms"]
        errors = sum(r["errors"].values())
        audit = "balanced" if r["audit_balanced"] else "NOT balanced"
        bar = "yes" if r["meets_bar"] else "no"
        lines.append(
            f"| {r['tables_available']} x {r['players_per_table']} | {r['think_time']:g} | {r['seconds']:.0f}"
            f" | {r['hands_per_second']:.2f} | {r['actions_per_second']:.1f} | {lat['p50']:.1f}"
            f" | {lat['p95']:.1f} | {lat['p99']:.1f} | {lat['max']:.1f}"
            f" | {r.get('server_cpu_us_per_action') or 'n/a'} | {errors}"
            f" | {audit} | {bar} |"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.load")
    parser.add_argument("--rows", default=DEFAULT_ROWS, help="TABLESxPLAYERS@THINK,...")
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--json", default=None, help="append each row's report to this JSON file")
    parser.add_argument("--profile-dir", default=None, help="write a pyinstrument profile per row here")
    args = parser.parse_args(argv if argv is not None else [])
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}")
    results: list[dict[str, Any]] = []
    for tables, players, think in parse_rows(args.rows):
        profile = None
        if args.profile_dir:
            profile = os.path.join(args.profile_dir, f"server-{tables}x{players}@{think:g}.txt")
        began = time.monotonic()
        report, load_before = run_row(tables, players, think, args.seconds, profile)
        data = report.to_dict()
        data["load_average_before"] = load_before
        data["wall_seconds"] = round(time.monotonic() - began, 1)
        results.append(data)
        print(report.render(), flush=True)
        if args.json:
            existing: list[Any] = []
            if os.path.exists(args.json):
                with open(args.json) as f:
                    existing = json.load(f)
            with open(args.json, "w") as f:
                json.dump([*existing, data], f, indent=2)
    print()
    print(table(results))


if __name__ == "__main__":
    main(sys.argv[1:])
    sys.exit(0)
