"""``studpoker tournament simulate``: a whole tournament of bots in the engine, no server.

Prints the places and payouts (which add up to the prize pool), or one JSON object with
``--json``; the same seed plays the same tournament (docs/tournaments.md#the-simulate-command).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from typing import Any

from studpoker.bots import BOTS
from studpoker.games import GAMES, UnknownGameError
from studpoker.tools.match import parse_bots
from studpoker.tournament.rotation import DEFAULT_HANDS_PER_GAME, ROTATION_NAMES, RotationError, find_rotation
from studpoker.tournament.seating import SeatingError
from studpoker.tournament.simulate import DEFAULT_HANDS_PER_LEVEL, TournamentResult, simulate_tournament
from studpoker.tournament.standard import STRUCTURES, find_structure
from studpoker.tournament.structure import StructureError

from .tournament_create import add_create


def _fail(message: str) -> int:
    print(f"tournament simulate: {message}", file=sys.stderr)
    return 2


def run_simulate(args: argparse.Namespace) -> int:
    try:
        rotation = find_rotation(args.game, hands_per_game=args.hands_per_game)
        structure = find_structure(args.structure)
    except UnknownGameError as error:
        return _fail(f"{error}; or a rotation: {', '.join(ROTATION_NAMES)}")
    except (RotationError, StructureError) as error:
        return _fail(str(error))
    bots = parse_bots(args.bots)
    unknown = [name for name in bots if name not in BOTS]
    if not bots or unknown:
        return _fail(f"unknown bot {(unknown or [args.bots])[0]!r}: use {', '.join(BOTS)}")
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(2**32)
    try:
        result = simulate_tournament(
            rotation,
            args.players,
            seed=seed,
            structure=structure,
            bots=bots,
            hands_per_level=args.hands_per_level,
            buy_in=args.buy_in,
            table_size=args.table_size,
        )
    except (SeatingError, ValueError) as error:
        return _fail(str(error))
    if args.json:
        print(json.dumps(result.to_dict()))
    else:
        print(render(result))
    return 0


def render(result: TournamentResult) -> str:
    """The readable report: what was played, then every place with its payout."""
    lines = [
        f"{result.play}: {result.entrants} players, structure {result.structure}, seed {result.seed}",
        f"{result.tables} table(s) of {result.table_size}; {result.hands} hands in {result.rounds} rounds, "
        f"up to level {result.last_level}; {result.moves} players moved; hand for hand: "
        f"{result.hand_for_hand_rounds} round(s)",
        f"prize pool {result.prize_pool} ({result.entrants} x {result.buy_in}), {result.paid} paid",
    ]
    width = len(str(result.entrants))
    for place in result.places:
        tie = f" (tied, {place.tied} players)" if place.tied > 1 else ""
        payout = f"  {place.payout}" if place.payout else ""
        lines.append(f"{place.place:>{width}}. player {place.player} ({place.bot}){payout}{tie}")
    return "\n".join(lines)


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "tournament",
        help="tournaments: simulate one with bots, create a sit-and-go",
        description="Tournaments (docs/tournaments.md).",
    )
    commands = parser.add_subparsers(dest="tournament_command", metavar="COMMAND")

    def show_help(_args: argparse.Namespace) -> int:
        parser.print_help()
        return 2

    parser.set_defaults(func=show_help)
    simulate = commands.add_parser(
        "simulate",
        help="play a whole tournament of bots in the engine and print the places and payouts",
        description="Play a whole tournament of bots in the engine, without a server: levels advance "
        "by hands played, tables are balanced and broken, and the places are paid from the prize pool.",
    )
    games = ", ".join([*GAMES, *ROTATION_NAMES])
    simulate.add_argument(
        "--game", default="7S", help=f"a game or rotation: {games}, or games joined by commas (default 7S)"
    )
    simulate.add_argument("--players", type=int, default=9, help="entrants (default 9)")
    simulate.add_argument("--seed", type=int, default=None, help="seed for the seats, the decks and the bots")
    simulate.add_argument("--json", action="store_true", help="print one JSON object")
    simulate.add_argument(
        "--structure", default="turbo", help=f"level structure: {', '.join(STRUCTURES)} (default turbo)"
    )
    simulate.add_argument(
        "--bots",
        default="equity",
        help=f"bots given to the players in turn, e.g. equity or equity*2,random ({', '.join(BOTS)}; "
        "default equity; random is the fastest)",
    )
    simulate.add_argument(
        "--hands-per-level",
        type=int,
        default=DEFAULT_HANDS_PER_LEVEL,
        help=f"the simulated clock: hands a level lasts (default {DEFAULT_HANDS_PER_LEVEL})",
    )
    simulate.add_argument(
        "--hands-per-game",
        type=int,
        default=DEFAULT_HANDS_PER_GAME,
        help=f"rotations: hands of each game (default {DEFAULT_HANDS_PER_GAME})",
    )
    simulate.add_argument(
        "--buy-in", type=int, default=100, help="units each entrant puts in the pool (default 100)"
    )
    simulate.add_argument(
        "--table-size", type=int, default=None, help="seats a table (default: the game's most)"
    )
    simulate.set_defaults(func=run_simulate)
    add_create(commands)
