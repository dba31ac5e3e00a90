"""``studpoker tournament schedule FILE``: the tournaments of a schedule file (TOML or JSON;
docs/tournaments.md "The schedule file") created in the store, each once: one-off ones at their
start time, daily ones for the next days. Run it again (from cron, say) to create the days
that came into reach; a tournament it created before is listed as ``exists``."""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from collections.abc import Callable, Coroutine
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TypeVar

from .audit import DB_HELP, missing_database

T = TypeVar("T")


def add_schedule(commands: Any) -> None:
    schedule = commands.add_parser(
        "schedule",
        help="create the tournaments of a schedule file (TOML or JSON), each once",
        description="Create the scheduled tournaments a file lists: lines with start (one tournament) "
        "or daily = HH:MM (UTC; one a day for the next --days days). A tournament the file created "
        "before is not created again. The whole file is checked first: a bad one changes nothing.",
    )
    schedule.add_argument("file", type=Path, help="the schedule (.toml or .json)")
    schedule.add_argument(
        "--days",
        type=int,
        default=None,
        help="daily lines: days ahead, today included (default: the file's, else 7)",
    )
    schedule.add_argument("--database-url", metavar="URL", default=None, help=DB_HELP)
    schedule.add_argument("--json", action="store_true", help="print the report as one JSON list")
    schedule.set_defaults(func=run_schedule)


async def _schedule(args: argparse.Namespace, url: str) -> list[dict[str, Any]]:
    from studpoker.server.tournaments.schedule import apply_schedule, plan_schedule, read_schedule
    from studpoker.store import Store

    data = read_schedule(args.file)
    store = await Store.open(url)
    try:
        planned = plan_schedule(data, store.now(), days=args.days)
        return await apply_schedule(store, planned)
    finally:
        await store.close()


def on_store(command: str, database: str | None, work: Callable[[str], Coroutine[Any, Any, T]]) -> T | None:
    """``work`` on the store's URL; None when there is no database or the store refused, the
    reason printed after ``studpoker tournament COMMAND:`` (the caller exits with status 2)."""
    from studpoker.store import StoreError, database_url

    url = database_url(database)
    problem = missing_database(url)
    if problem is not None:
        print(f"tournament {command}: {problem}", file=sys.stderr)
        return None
    try:
        return asyncio.run(work(url))
    except StoreError as exc:
        print(f"tournament {command}: {exc}", file=sys.stderr)
        return None


def run_schedule(args: argparse.Namespace) -> int:
    report = on_store("schedule", args.database_url, lambda url: _schedule(args, url))
    if report is None:
        return 2
    if args.json:
        print(json.dumps(report))
    else:
        now = datetime.now(UTC).isoformat(timespec="minutes")
        print(f"schedule {args.file} at {now}: {len(report)} tournament(s)")
        for line in report:
            made = f" (id {line['id']})" if line["id"] is not None else ""
            error = f": {line['error']}" if "error" in line else ""
            print(f"  {line['status']:8} {line['starts_at']}  {line['name']}{made}{error}")
    return 0 if all(line["status"] != "failed" for line in report) else 2
