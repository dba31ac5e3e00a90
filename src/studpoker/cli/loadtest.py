"""``studpoker loadtest``: many bot players over real WebSockets; latency, throughput, audit."""

from __future__ import annotations

import argparse
import sys
import tempfile
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from studpoker.loadtest import LoadReport


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "loadtest",
        help="play many bot clients over WebSockets against a room; report latency and throughput",
        description=(
            "Register one account per player through the REST API, seat PLAYERS-PER-TABLE of them at "
            "each of TABLES empty tables, play real hands over the WebSocket protocol with the given "
            "think time, then report hands/s, actions/s, the p50/p95/p99/max latency from sending an "
            "action to receiving its event, the errors, and the ledger audit (with --database-url). "
            "With --spawn the command starts its own server on a fresh SQLite database with enough "
            "tables (see docs/load.md)."
        ),
    )
    parser.add_argument("--url", default=None, help="the room, e.g. ws://127.0.0.1:8000 (or use --spawn)")
    parser.add_argument("--tables", type=int, default=4)
    parser.add_argument("--players-per-table", type=int, default=6)
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument("--think-time", type=float, default=1.0, help="seconds before each action (0: none)")
    parser.add_argument("--jitter", type=float, default=0.5, help="think time varies by +- this fraction")
    parser.add_argument("--buy-in", type=int, default=None, help="cents (default: twice the minimum)")
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument(
        "--setup-timeout", type=float, default=900.0, help="seconds to register, connect and seat everyone"
    )
    parser.add_argument(
        "--database-url", default=None, help="the server's database, to run the audit at the end"
    )
    parser.add_argument(
        "--spawn",
        action="store_true",
        help="start a server (python -m studpoker.loadtest.server) on a fresh SQLite file for this run",
    )
    parser.add_argument("--profile", default=None, metavar="FILE", help="with --spawn: profile the server")
    parser.add_argument(
        "--processes",
        type=int,
        default=1,
        help="load client processes, each driving its share of the tables (results merged)",
    )
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    import httpx

    from studpoker.loadtest import LoadConfig, run_load
    from studpoker.loadtest.processes import WorkerError, run_load_processes
    from studpoker.loadtest.server import spawn
    from studpoker.loadtest.worker import run_fast

    if args.url is None and not args.spawn:
        print("studpoker loadtest: give --url ws://HOST:PORT or --spawn")
        return 2
    if args.processes < 1:
        print("studpoker loadtest: --processes is 1 or more")
        return 2
    server = None
    tmp = None
    url, database_url = args.url, args.database_url
    if args.spawn:
        tmp = tempfile.TemporaryDirectory(prefix="studpoker-load-")
        database_url = f"sqlite+aiosqlite:///{tmp.name}/load.sqlite3"
        server = spawn(database_url, tables=args.tables, profile=args.profile)
        url = server.ws_url
    try:
        config = LoadConfig(
            url=url,
            tables=args.tables,
            players_per_table=args.players_per_table,
            seconds=args.seconds,
            think_time=args.think_time,
            jitter=args.jitter,
            buy_in=args.buy_in,
            seed=args.seed,
            setup_timeout=args.setup_timeout,
            database_url=database_url,
            tune_gc=True,
        )
        reports: list[LoadReport] = []

        async def measure() -> None:
            if args.processes > 1:
                reports.append(await run_load_processes(config, args.processes))
            else:
                reports.append(await run_load(config))

        try:
            run_fast(measure())
        except (OSError, httpx.HTTPError) as exc:
            print(f"studpoker loadtest: cannot reach the room at {url}: {exc}", file=sys.stderr)
            return 2
        except WorkerError as exc:
            print(f"studpoker loadtest: {exc}", file=sys.stderr)
            return 2
        report = reports[0]
    finally:
        if server is not None:
            server.terminate()
        if tmp is not None:
            tmp.cleanup()
    print(report.to_json() if args.json else report.render())
    if report.audit_balanced is False:
        return 1
    return 0 if report.error_count == 0 else 3
