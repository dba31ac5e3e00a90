"""``studpoker tournament create``: a tournament in the store, open for registration. Without
``--start`` a sit-and-go (it starts in the room when full); with it a scheduled tournament (it
starts at that time, or is cancelled and refunded below ``--min-players``), with late
registration (``--late-levels``) and re-entries (``--reentries``). ``--game`` is one game or a
rotation (HORSE, HOSE, ``7S,RZ``), ``--hands-per-game`` hands of each. Amounts are in units
(cents), as the REST API's. The options are checked by the room's ``operator_tournament``, as a
schedule file's lines are. ``studpoker tournament schedule`` (:mod:`.tournament_schedule`) creates them
from a file."""

from __future__ import annotations

import argparse
import json
from typing import Any

from studpoker.games import GAMES
from studpoker.tournament.rotation import DEFAULT_HANDS_PER_GAME, ROTATION_NAMES
from studpoker.tournament.standard import DEFAULT_GAME, SCHEDULED_MAX_PLAYERS, SIT_AND_GO_SEATS, STRUCTURES

from .audit import DB_HELP
from .tournament_schedule import add_schedule, on_store


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
    create.add_argument(
        "--game",
        default=DEFAULT_GAME,
        help=f"the game: {', '.join(GAMES)}, or a rotation: {', '.join(ROTATION_NAMES)} or games "
        f"joined by commas, e.g. 7S,RZ (default {DEFAULT_GAME})",
    )
    create.add_argument(
        "--hands-per-game",
        type=int,
        default=DEFAULT_HANDS_PER_GAME,
        help=f"a rotation: hands of each game, counted at each table (default {DEFAULT_HANDS_PER_GAME})",
    )
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


async def _create(args: argparse.Namespace, url: str) -> dict[str, Any]:
    from studpoker.server.tournaments.creating import operator_tournament
    from studpoker.server.tournaments.schedule import parse_start
    from studpoker.store import Store

    start = None if args.start is None else parse_start(args.start)
    store = await Store.open(url)
    try:
        new = operator_tournament(
            args.name, now=store.now(), structure=args.structure, buy_in=args.buy_in, game=args.game,
            fee=args.fee, starts_at=start, seats=args.seats, min_players=args.min_players,
            max_players=args.max_players, late_levels=args.late_levels, reentries=args.reentries,
            hands_per_game=args.hands_per_game,
        )  # fmt: skip
        record = await store.tournaments.add(new)
    finally:
        await store.close()
    return {
        "id": record.id, "name": record.name, "game": record.game, "structure": record.structure,
        "buy_in": record.buy_in, "fee": record.fee, "seats": record.seats, "status": record.status,
        "starts_at": None if record.starts_at is None else record.starts_at.isoformat(),
        "min_players": record.min_players, "max_players": record.seats,
        "late_levels": record.late_levels, "reentries": record.reentries,
        "hands_per_game": record.hands_per_game,
    }  # fmt: skip


def run_create(args: argparse.Namespace) -> int:
    made = on_store("create", args.database_url, lambda url: _create(args, url))
    if made is None:
        return 2
    # A rotation says how long each game lasts (one game is a code of GAMES).
    game = (
        made["game"] if made["game"] in GAMES else f"{made['game']} ({made['hands_per_game']} hands a game)"
    )
    if args.json:
        print(json.dumps(made))
    elif made["starts_at"] is None:
        print(
            f"tournament {made['id']} {made['name']!r}: {game} {made['structure']}, "
            f"{made['seats']} seats, buy-in {made['buy_in']} + fee {made['fee']}: registering"
        )
    else:
        late = f", late registration to level {made['late_levels']}" if made["late_levels"] else ""
        again = f", {made['reentries']} re-entries" if made["reentries"] else ""
        print(
            f"tournament {made['id']} {made['name']!r}: {game} {made['structure']}, starts "
            f"{made['starts_at']}, {made['min_players']} to {made['max_players']} players{late}{again}, "
            f"buy-in {made['buy_in']} + fee {made['fee']}: registering"
        )
    return 0
