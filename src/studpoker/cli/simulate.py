"""``studpoker simulate``: play random legal actions, for speed and fuzzing.

One seeded ``random.Random`` drives the run, so it is reproducible from its seed: it picks every
action uniformly among the legal options and seeds the numpy generator that shuffles the decks
(:func:`random_decks`, a few hundred at a time: a Python shuffle would cost as much as the hand).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np

from studpoker.cards import ALL_CARDS, Deck
from studpoker.engine import Hand
from studpoker.games import GAMES, HouseRuleError, HouseRules, Stakes, UnknownGameError, get_game

_CARD_ROW = np.array(ALL_CARDS, dtype=object)


def random_decks(rng: random.Random, batch: int = 256) -> Iterator[Deck]:
    """Uniformly shuffled decks for ever, from a numpy generator seeded by ``rng``.

    ``Generator.permuted`` runs an unbiased Fisher-Yates on each row of ``batch`` copies of the
    52 cards at once. The salt is empty: these decks are for simulations, not for a table.
    """
    shuffler = np.random.default_rng(rng.getrandbits(64))
    while True:
        for order in shuffler.permuted(np.tile(_CARD_ROW, (batch, 1)), axis=1).tolist():
            yield Deck(order, salt="")


def play_random(
    game_code: str,
    *,
    players: int,
    hands: int,
    rng: random.Random,
    stack: int = 1000,
    small_bet: int = 10,
    house: HouseRules | None = None,
    on_hand: Callable[[Hand], None] | None = None,
) -> int:
    """Play ``hands`` hands with random legal actions; return the number of actions taken."""
    game = get_game(game_code)
    stakes = Stakes.from_bets(small_bet, 2 * small_bet, game)
    seats = [(i, stack) for i in range(1, players + 1)]
    omaha = game.kind == "omaha"
    decks = random_decks(rng)
    uniform = rng.random  # options[int(uniform() * len(options))]: a cheaper rng.choice
    actions = 0
    for number in range(hands):
        button = seats[number % players][0] if omaha else None
        hand = Hand(game, stakes, seats, deck=next(decks), house=house, button=button)
        while True:
            legal = hand.legal_actions()
            seat = legal.seat
            if seat is None:
                break
            options = legal.options
            option = options[int(uniform() * len(options))]
            hand.act(seat, option.kind, option.amount)
            actions += 1
        if on_hand is not None:
            on_hand(hand)
    return actions


def _phh_writer(directory: str) -> Callable[[Hand], None]:
    try:
        from studpoker.history import phh
    except ImportError as error:  # pragma: no cover - the module ships with the package
        raise SystemExit(f"simulate: --phh needs studpoker.history.phh ({error})") from None
    dump: Any = getattr(phh, "dump_hand", None)
    if dump is None:
        raise SystemExit(
            "simulate: --phh needs studpoker.history.phh.dump_hand, which this build does not have"
        )
    path = Path(directory)
    path.mkdir(parents=True, exist_ok=True)
    counter = [0]

    def write(hand: Hand) -> None:
        counter[0] += 1
        (path / f"hand-{counter[0]:06d}.phh").write_text(dump(hand), encoding="utf-8")

    return write


def run(args: argparse.Namespace) -> int:
    try:
        game = get_game(args.game)
        house = game.default_house.with_overrides(args.house) if args.house else None
    except (UnknownGameError, HouseRuleError) as error:
        print(f"simulate: {error}", file=sys.stderr)
        return 2
    if not game.min_players <= args.players <= game.max_players:
        print(
            f"simulate: {game.code} takes {game.min_players}-{game.max_players} players, not {args.players}",
            file=sys.stderr,
        )
        return 2
    if args.hands < 0:
        print("simulate: --hands must be 0 or more", file=sys.stderr)
        return 2
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(2**32)
    rng = random.Random(seed)
    on_hand = _phh_writer(args.phh) if args.phh else None
    if args.bots:  # the bot-match runner (issue 6)
        from studpoker.tools.match import run_cli

        return run_cli(args, game.code, house, seed, on_hand)
    start = time.perf_counter()
    actions = play_random(
        game.code,
        players=args.players,
        hands=args.hands,
        rng=rng,
        stack=args.stack,
        house=house,
        on_hand=on_hand,
    )
    seconds = time.perf_counter() - start
    rate = args.hands / seconds if seconds > 0 else 0.0
    if args.json:
        print(
            json.dumps(
                {"hands": args.hands, "seconds": round(seconds, 4), "hands_per_second": round(rate, 1)}
            )
        )
    else:
        print(
            f"{args.hands} hands of {game.code}, {args.players} players, seed {seed}: "
            f"{actions} actions in {seconds:.3f} s ({rate:,.0f} hands/s)"
        )
    return 0


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "simulate",
        help="play random legal actions (speed, fuzzing)",
        description="Play hands with random legal actions from one seeded generator (deck and actions).",
    )
    parser.add_argument("--game", default="7S", help=f"game code: {', '.join(GAMES)} (default 7S)")
    parser.add_argument("--players", type=int, default=6, help="players at the table (default 6)")
    parser.add_argument("--hands", type=int, default=1000, help="hands to play (default 1000)")
    parser.add_argument("--seed", type=int, default=None, help="seed for the deck and the actions")
    parser.add_argument(
        "--stack", type=int, default=1000, help="each player's stack at every hand (default 1000)"
    )
    parser.add_argument(
        "--house", action="append", default=[], metavar="NAME=VALUE", help="set a house switch"
    )
    parser.add_argument("--json", action="store_true", help='print {"hands", "seconds", "hands_per_second"}')
    parser.add_argument("--phh", metavar="DIR", help="write each hand as a PHH file into DIR")
    parser.add_argument(
        "--bots",
        metavar="LIST",
        help="bot match: one bot per seat, e.g. equity,random or equity*2,random (bots: random, calling, "
        "equity); reports BB/100 with 95%% intervals",
    )
    parser.add_argument("--small-bet", type=int, default=10, help="bot match: the small bet (default 10)")
    parser.add_argument("--plot", metavar="PNG", help="bot match: draw each bot's bankroll over the hands")
    parser.set_defaults(func=run)
