"""``studpoker play``: play against bots in the terminal.

studpoker play --game 7S8 --bots equity,equity
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from studpoker.games import GAMES, UnknownGameError, get_game


def run(args: argparse.Namespace) -> int:
    from studpoker.bots import BOTS
    from studpoker.tools.match import parse_bots
    from studpoker.tools.play import main_args

    try:
        game = get_game(args.game)
    except UnknownGameError as error:
        print(f"play: {error}", file=sys.stderr)
        return 2
    names = parse_bots(args.bots)
    unknown = [n for n in names if n not in BOTS]
    if unknown:
        print(f"play: unknown bot {unknown[0]!r}: use {', '.join(BOTS)}", file=sys.stderr)
        return 2
    if not game.min_players <= len(names) + 1 <= game.max_players:
        print(f"play: {game.code} takes {game.min_players}-{game.max_players} players", file=sys.stderr)
        return 2
    return main_args(args)


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "play",
        help="play against bots in the terminal",
        description=(
            "Play against bots in the terminal: you are seat 1. Type the key of an action and Enter "
            "(c checks, calls or posts the bring-in; f folds; o completes; b bets; r raises; capital B/R "
            "for the big bet on 7S 4th street after an open pair; q quits)."
        ),
    )
    parser.add_argument("--game", default="7S8", help=f"game code: {', '.join(GAMES)} (default 7S8)")
    parser.add_argument(
        "--bots", default="equity,equity", help="the bots, one per seat (default equity,equity)"
    )
    parser.add_argument("--hands", type=int, default=None, help="stop after this many hands")
    parser.add_argument("--small-bet", type=int, default=10, help="the small bet (default 10)")
    parser.add_argument("--stack", type=int, default=1000, help="starting stacks and re-buys (default 1000)")
    parser.add_argument(
        "--clock", type=float, default=30.0, help="seconds per decision, 0 for none (default 30)"
    )
    parser.add_argument("--seed", type=int, default=None, help="seed for the decks and the bots")
    parser.set_defaults(func=run)
