"""``studpoker admin``: the operator's moderation of the room's chat and accounts.

``mute NAME`` refuses the account's chat at every table; ``ban NAME`` refuses its logins,
revokes its sessions and closes its sockets; ``unmute`` and ``unban`` lift them. They are written
to the database (kept across restarts, logged with ``--reason``); a running room reads them again
within its ``moderation_refresh_seconds`` (5 s). ``status NAME`` shows an account's standing and
history, ``reports`` the chat lines players reported. Exit 0 when done, 1 when the room refused
it (no such player, a bad reason), 2 when the database cannot be read.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from typing import Any

from .audit import DB_HELP, missing_database

# What each action says it did (the room's side of it).
DONE = {
    "mute": "muted: the room refuses its chat at every table",
    "unmute": "unmuted: it may chat again",
    "ban": "banned: its sessions are revoked, it cannot log in, its sockets close",
    "unban": "unbanned: it may log in again",
}


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "admin",
        help="moderate the room: mute, unmute, ban or unban an account; its status; chat reports",
        description=__doc__.split("\n\n")[1].replace("``", "") if __doc__ else None,
    )
    parser.add_argument("--database-url", metavar="URL", default=None, help=DB_HELP)
    actions = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    for action, text in DONE.items():
        sub = actions.add_parser(action, help=f"the account is {text}")
        sub.add_argument("name", metavar="NAME", help="the account's name")
        sub.add_argument("--reason", default=None, help="why (kept in the moderation log)")
    status = actions.add_parser("status", help="an account's standing and the decisions about it")
    status.add_argument("name", metavar="NAME")
    reports = actions.add_parser("reports", help="the chat lines players reported, newest first")
    reports.add_argument("--limit", type=int, default=50, help="at most this many (50)")
    for sub in (status, reports):
        sub.add_argument("--json", action="store_true", help="JSON instead of text")
    for sub in actions.choices.values():  # also after the action: admin ban alice --database-url ...
        sub.add_argument("--database-url", metavar="URL", default=argparse.SUPPRESS, help=DB_HELP)
    parser.set_defaults(func=run)


async def _moderate(url: str, args: argparse.Namespace) -> tuple[int, str]:
    from studpoker.store import Store, StoreError

    store = await Store.open(url)
    try:
        moderation = store.moderation
        try:
            if args.action in DONE:
                done = await moderation.moderate(args.name, args.action, reason=args.reason)
                return 0, f"{done.name} is {DONE[args.action]}" + (f" ({done.reason})" if done.reason else "")
            if args.action == "status":
                return 0, await _status(store, args.name, as_json=args.json)
            return 0, await _reports(store, args.limit, as_json=args.json)
        except StoreError as exc:
            return 1, f"studpoker admin {args.action}: {exc}"
    finally:
        await store.close()


async def _status(store: Any, name: str, *, as_json: bool) -> str:
    status, log = await store.moderation.status(name)
    standing = (
        ", ".join(w for w, on in (("muted", status.muted), ("banned", status.banned)) if on)
        or "in good standing"
    )
    if as_json:
        return json.dumps(
            {
                "name": status.name,
                "account_id": status.account_id,
                "muted": status.muted,
                "banned": status.banned,
                "reason": status.reason,
                "log": [
                    {"action": e.action, "reason": e.reason, "at": e.created_at.isoformat()} for e in log
                ],
            }
        )
    lines = [f"{status.name} (account {status.account_id}): {standing}"]
    lines += [
        f"  {e.created_at:%Y-%m-%d %H:%M:%S} UTC  {e.action}" + (f": {e.reason}" if e.reason else "")
        for e in log
    ]
    return "\n".join(lines)


async def _reports(store: Any, limit: int, *, as_json: bool) -> str:
    reports = await store.moderation.reports(limit=limit)
    if as_json:
        return json.dumps(
            [
                {
                    "id": r.id,
                    "reporter": r.reporter,
                    "speaker": r.speaker,
                    "table_id": r.table_id,
                    "table": r.table,
                    "line_id": r.line_id,
                    "text": r.text,
                    "said_at": r.said_at.isoformat(),
                    "reason": r.reason,
                    "reported_at": r.created_at.isoformat(),
                }
                for r in reports
            ]
        )
    if not reports:
        return "no chat line has been reported"
    # The text is the player's: shown quoted (repr), so that no terminal control gets through.
    return "\n".join(
        f"#{r.id} {r.said_at:%Y-%m-%d %H:%M:%S} UTC {r.table} (table {r.table_id}): {r.speaker}: {r.text!r}"
        f" - reported by {r.reporter}" + (f" ({r.reason!r})" if r.reason else "")
        for r in reports
    )


def run(args: argparse.Namespace) -> int:
    from sqlalchemy.exc import SQLAlchemyError

    from studpoker.store import database_url

    url = database_url(args.database_url)
    problem = missing_database(url)
    if problem is not None:
        print(f"studpoker admin: {problem}", file=sys.stderr)
        return 2
    try:
        status, text = asyncio.run(_moderate(url, args))
    except (SQLAlchemyError, OSError) as exc:
        print(f"studpoker admin: cannot use the database: {exc}", file=sys.stderr)
        return 2
    print(text, file=sys.stderr if status else sys.stdout)
    return status
