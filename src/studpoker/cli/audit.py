"""``studpoker audit``: check the chip ledger; exit 0 when the books balance, 1 otherwise."""

from __future__ import annotations

import argparse
import asyncio
import sys

DB_HELP = (
    "database URL (default: $STUDPOKER_DATABASE_URL, else sqlite+aiosqlite:///studpoker.sqlite3"
    " in the working directory)"
)


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "audit",
        help="prove that bankrolls + table chips + open pots equal all grants ever made",
        description=(
            "Check the double-entry chip ledger: every transaction sums to zero, every cached "
            "balance agrees with the ledger, and bankrolls + chips on table seats + chips in "
            "unfinished hands equal all play money ever granted. Exit 0 when balanced, 1 otherwise."
        ),
    )
    parser.add_argument("--database-url", metavar="URL", default=None, help=DB_HELP)
    parser.set_defaults(func=run)


async def _audit(url: str | None) -> tuple[bool, str]:
    from studpoker.store import Store

    store = await Store.open(url)
    try:
        report = await store.audit()
    finally:
        await store.close()
    return report.balanced, report.render()


def missing_database(url: str) -> str | None:
    """A message when ``url`` names a SQLite file that does not exist (opening would create it)."""
    from pathlib import Path

    from sqlalchemy.engine import make_url

    parsed = make_url(url)
    on_disk = parsed.get_backend_name() == "sqlite" and parsed.database not in (None, "", ":memory:")
    if on_disk and not Path(str(parsed.database)).exists():
        return f"no database at {parsed.database} (give --database-url or set STUDPOKER_DATABASE_URL)"
    return None


def run(args: argparse.Namespace) -> int:
    from sqlalchemy.exc import SQLAlchemyError

    from studpoker.store import StoreError, database_url

    url = database_url(args.database_url)
    problem = missing_database(url)
    if problem is not None:
        print(f"studpoker audit: {problem}", file=sys.stderr)
        return 2
    try:
        balanced, text = asyncio.run(_audit(url))
    except (StoreError, SQLAlchemyError, OSError) as exc:
        print(f"studpoker audit: cannot read the database: {exc}", file=sys.stderr)
        return 2
    print(f"database: {_redact(url)}")
    print(text)
    return 0 if balanced else 1


def _redact(url: str) -> str:
    from sqlalchemy.engine import make_url

    return make_url(url).render_as_string(hide_password=True)
