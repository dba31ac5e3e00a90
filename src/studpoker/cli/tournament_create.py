"""``studpoker tournament create``: a tournament in the store, open for registration. Without
``--start`` a sit-and-go (it starts in the room when full); with it a scheduled tournament (it
starts at that time, or is cancelled and refunded below ``--min-players``), with late
registration (``--late-levels``) and re-entries (``--reentries``). Amounts are in units (cents),
as the REST API's. ``studpoker tournament schedule`` (:mod:`.tournament_schedule`) creates them
from a file."""

from __future__ import annotations

import argparse
import json
from typing import Any

from studpoker.games import GAMES
from studpoker.tournament.standard import STRUCTURES

from .audit import DB_HELP
from .tournament_schedule import add_schedule, on_store

SIT_AND_GO_SEATS = 6
SCHEDULED_MAX_PLAYERS = 100


def add_create(commands: Any) -> None:
    """``tournament create`` (and ``tournament schedule``, the operator's other command)."""
    create = commands.add_parser(
        "create",
        help="create a sit-and-go (it starts when full) or a scheduled tournament (--start)",
        description="Create a tournament: players register in the lobby (buy-in + fee from their "
        "bankroll). A sit-and-go starts when its seats are taken; with --start a scheduled tournament "
        "starts at that time (UTC) with the field it has, or is cancelled and refunded below "
        "--min-players. Amounts in units (cents).",
    )
    create.add_argument("--name", required=True, help="its name in the lobby")
    create.add_argument("--game", default="7S", help=f"the game: {', '.join(GAMES)} (default 7S)")
    create.add_argument(
        "--structure", default="turbo", help=f"level structure: {', '.join(STRUCTURES)} (default turbo)"
    )
    create.add_argument("--buy-in", type=int, required=True, help="units each entry puts in the pool")
    create.add_argument("--fee", type=int, default=0, help="units each entry pays the house (default 0)")
    create.add_argument(
        "--seats",
        type=int,
        default=None,
        help=f"a sit-and-go's entrants, 2 to 1,000 (default {SIT_AND_GO_SEATS})",
    )
    create.add_argument(
        "--start",
        metavar="ISO-TIME",
        default=None,
        help="a scheduled tournament's start, e.g. 2026-12-06T18:00Z",
    )
    create.add_argument(
        "--min-players", type=int, default=None, help="scheduled: the smallest field (default 2)"
    )
    create.add_argument(
        "--max-players",
        type=int,
        default=None,
        help=f"scheduled: the largest field, entries and re-entries (default {SCHEDULED_MAX_PLAYERS})",
    )
    create.add_argument(
        "--late-levels",
        type=int,
        default=0,
        help="scheduled: late registration to the end of this level (0: none)",
    )
    create.add_argument(
        "--reentries",
        type=int,
        default=0,
        help="scheduled: buy-ins again for a busted player during late registration",
    )
    create.add_argument("--database-url", metavar="URL", default=None, help=DB_HELP)
    create.add_argument("--json", action="store_true", help="print the tournament as JSON")
    create.set_defaults(func=run_create)
    add_schedule(commands)


def _field(args: argparse.Namespace) -> int:
    """The seats: a sit-and-go's --seats, a scheduled tournament's --max-players."""
    from studpoker.store import InvalidInputError

    if args.start is None:
        if args.max_players is not None:
            raise InvalidInputError(
                "--max-players is a scheduled tournament's (give --start); a sit-and-go has --seats"
            )
        return SIT_AND_GO_SEATS if args.seats is None else int(args.seats)
    if args.seats is not None:
        raise InvalidInputError("a scheduled tournament has --min-players and --max-players, not --seats")
    return SCHEDULED_MAX_PLAYERS if args.max_players is None else int(args.max_players)


async def _create(args: argparse.Namespace, url: str) -> dict[str, Any]:
    from studpoker.server.tournaments import create_tournament
    from studpoker.server.tournaments.schedule import parse_start
    from studpoker.store import Store

    seats = _field(args)
    start = None if args.start is None else parse_start(args.start)
    store = await Store.open(url)
    try:
        record = await create_tournament(
            store, args.name, args.game, args.structure, buy_in=args.buy_in, fee=args.fee, seats=seats,
            starts_at=start, min_players=args.min_players, late_levels=args.late_levels,
            reentries=args.reentries,
        )  # fmt: skip
    finally:
        await store.close()
    return {
        "id": record.id, "name": record.name, "game": record.game, "structure": record.structure,
        "buy_in": record.buy_in, "fee": record.fee, "seats": record.seats, "status": record.status,
        "starts_at": None if record.starts_at is None else record.starts_at.isoformat(),
        "min_players": record.min_players, "max_players": record.seats,
        "late_levels": record.late_levels, "reentries": record.reentries,
    }  # fmt: skip


def run_create(args: argparse.Namespace) -> int:
    made = on_store("create", args.database_url, lambda url: _create(args, url))
    if made is None:
        return 2
    if args.json:
        print(json.dumps(made))
    elif made["starts_at"] is None:
        print(
            f"tournament {made['id']} {made['name']!r}: {made['game']} {made['structure']}, "
            f"{made['seats']} seats, buy-in {made['buy_in']} + fee {made['fee']}: registering"
        )
    else:
        late = f", late registration to level {made['late_levels']}" if made["late_levels"] else ""
        again = f", {made['reentries']} re-entries" if made["reentries"] else ""
        print(
            f"tournament {made['id']} {made['name']!r}: {made['game']} {made['structure']}, starts "
            f"{made['starts_at']}, {made['min_players']} to {made['max_players']} players{late}{again}, "
            f"buy-in {made['buy_in']} + fee {made['fee']}: registering"
        )
    return 0
