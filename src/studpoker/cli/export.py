"""``studpoker export --format phh|pokerstars [--kind cash|tournament|all] [--account NAME]
[--since DATE] DIR``: the operator's bulk export of the room's finished hands from the store.

One file per table and day (UTC), ``DIR/<table>-<YYYY-MM-DD>.phhs`` or ``.txt``, the hands in
the order they were played; a tournament table's is ``<tournament>_<id>_T<table>-<day>``, its
hands in chips with the tournament header a player's download writes (``--kind``: cash or
tournament hands only; default both, cash first). Each stored hand is replayed through the
engine (with its table's house switches) and written again, with its time bank and timeout
notes: PHH with its time, or PokerStars text for trackers. Without ``--account`` every card
is written (the room's complete record); with it, only the account's hands, each as the account
saw it from his seat (the cards he never saw are ``??`` in PHH and absent from the PokerStars
text, where he is the hero). A hand that cannot be written is
reported on stderr and the exit status is 1; a file of the same name in DIR is replaced.
"""

from __future__ import annotations

import argparse
import asyncio
import datetime
import json
import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from studpoker.cli.audit import DB_HELP, missing_database

if TYPE_CHECKING:
    from studpoker.store import TableRecord
    from studpoker.store.exports import Format, Kind
    from studpoker.store.models import HandRecord


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "export",
        help="write the stored hands as PHH or PokerStars hand histories (one file per table and day)",
        description=(
            "Export the finished hands of the store into DIR, one file per table and day (UTC): "
            "PHH (.phhs) or PokerStars text (.txt) for trackers."
        ),
    )
    parser.add_argument("directory", metavar="DIR", help="where the files go (created if missing)")
    parser.add_argument("--format", choices=("phh", "pokerstars"), required=True, help="the file format")
    parser.add_argument(
        "--kind",
        choices=("cash", "tournament", "all"),
        default="all",
        help="cash tables' hands, tournament hands, or all (default; cash first)",
    )
    parser.add_argument("--account", metavar="NAME", help="only this account's hands, as he saw them")
    parser.add_argument(
        "--since", metavar="DATE", help="only hands started at or after DATE (YYYY-MM-DD or ISO time, UTC)"
    )
    parser.add_argument("--database-url", metavar="URL", default=None, help=DB_HELP)
    parser.set_defaults(func=run)


def parse_since(text: str) -> datetime.datetime:
    """``YYYY-MM-DD`` or an ISO date and time; a time without a zone is UTC."""
    try:
        when = datetime.datetime.fromisoformat(text)
    except ValueError:
        raise ValueError(f"--since {text!r} is not a date (YYYY-MM-DD) or an ISO date and time") from None
    return when if when.tzinfo is not None else when.replace(tzinfo=datetime.UTC)


def file_stem(table: str, day: datetime.date) -> str:
    """``<table>-<day>`` with only letters, digits, ``_`` and ``-`` (a safe file name)."""
    return f"{re.sub(r'[^A-Za-z0-9_-]+', '_', table).strip('_') or 'table'}-{day.isoformat()}"


@dataclass(slots=True)
class _Output:
    """The file being written: one table and day."""

    key: tuple[str, datetime.date]
    path: Path
    stream: TextIO
    hands: int = 0


def _place(record: HandRecord, table: TableRecord) -> tuple[str, str]:
    """Where a hand was dealt: a key for its file, and the name the file takes."""
    held = record.tournament
    if held is None:
        return f"table{record.table_id}", table.name
    return f"tournament{held.id}-{held.table_no}", f"{held.name}_{held.id}_T{held.table_no}"


async def _export(
    url: str,
    fmt: Format,
    account: str | None,
    since: datetime.datetime | None,
    folder: Path,
    *,
    kind: Kind = "all",
) -> tuple[list[_Output], list[str]]:
    from studpoker.store import Store
    from studpoker.store.exports import join, written_hands

    outputs: list[_Output] = []
    errors: list[str] = []
    store = await Store.open(url)
    current: _Output | None = None
    try:
        account_id = None if account is None else (await store.account_by_name(account)).id
        suffix = "txt" if fmt == "pokerstars" else "phhs"
        # The same hands, written the same way, as a player's download (studpoker.store.exports).
        async for hand in written_hands(store, fmt, account_id, since, kind):
            record, table, text = hand.record, hand.table, hand.text
            if text is None or table is None:
                errors.append(f"hand {record.id}: {hand.error}")
                continue
            day = record.started_at.astimezone(datetime.UTC).date()
            place, name = _place(record, table)
            key = (place, day)
            if current is None or current.key != key:
                if current is not None:
                    current.stream.close()
                stem = file_stem(name, day)
                if any(o.path.stem == stem for o in outputs):  # two names that clean up alike
                    stem = f"{stem}-{place}"
                path = folder / f"{stem}.{suffix}"
                current = _Output(key, path, path.open("w", encoding="utf-8"))
                outputs.append(current)
            current.stream.write(join(fmt, current.hands, text))
            current.hands += 1
    finally:
        if current is not None:
            current.stream.close()
        await store.close()
    return outputs, errors


def run(args: argparse.Namespace) -> int:
    from sqlalchemy.exc import SQLAlchemyError

    from studpoker.store import StoreError, database_url

    try:
        since = None if args.since is None else parse_since(args.since)
    except ValueError as exc:
        print(f"studpoker export: {exc}", file=sys.stderr)
        return 2
    url = database_url(args.database_url)
    problem = missing_database(url)
    if problem is not None:
        print(f"studpoker export: {problem}", file=sys.stderr)
        return 2
    folder = Path(args.directory)
    try:
        folder.mkdir(parents=True, exist_ok=True)
        outputs, errors = asyncio.run(_export(url, args.format, args.account, since, folder, kind=args.kind))
    except (StoreError, SQLAlchemyError, OSError) as exc:
        print(f"studpoker export: {exc}", file=sys.stderr)
        return 2
    for output in outputs:
        print(json.dumps({"file": str(output.path), "hands": output.hands}))
    for error in errors:
        print(f"studpoker export: {error}", file=sys.stderr)
    return 1 if errors else 0
