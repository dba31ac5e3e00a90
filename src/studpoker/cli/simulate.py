"""``studpoker simulate``: play random legal actions, for speed and fuzzing.

One seeded ``random.Random`` drives the run, so it is reproducible from its seed: it picks every
action uniformly among the legal options and seeds the numpy generator that shuffles the decks
(:func:`random_decks`, a few hundred at a time: a Python shuffle would cost as much as the hand).

``--game`` takes one game or a rotation (HORSE, HOSE, codes joined by commas): the rotation is
the tournament core's (:mod:`studpoker.tournament.rotation`), and every game's stakes follow from
one level (:class:`studpoker.tournament.structure.Level`), as at a mixed-game table.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from studpoker.cards import ALL_CARDS, Deck
from studpoker.engine import Hand
from studpoker.games import GAMES, HouseRuleError, HouseRules, Stakes, StakesError, UnknownGameError, get_game
from studpoker.tournament.positions import next_button
from studpoker.tournament.rotation import DEFAULT_HANDS_PER_GAME, Rotation, RotationError, find_rotation
from studpoker.tournament.structure import Level

_CARD_ROW = np.array(ALL_CARDS, dtype=object)


@dataclass(frozen=True, slots=True)
class GamePlayed:
    """One game of a run: how many hands of it were dealt, at what stakes."""

    game: str
    hands: int
    stakes: Stakes

    def describe(self) -> str:
        s = self.stakes
        forced = (
            f"blinds {s.small_blind}/{s.big_blind}"
            if s.big_blind
            else f"ante {s.ante}, bring-in {s.bring_in}"
        )
        return f"{self.game:<4}{self.hands:>6,} hands: {forced}, bets {s.small_bet}/{s.big_bet}"

    def to_dict(self) -> dict[str, object]:
        return {"game": self.game, "hands": self.hands, "stakes": self.stakes.to_dict()}


@dataclass(frozen=True, slots=True)
class RandomRun:
    """What :func:`play_rotation` played: the hands and actions, and each game's share."""

    rotation: Rotation
    hands: int
    actions: int
    games: tuple[GamePlayed, ...]  # in the rotation's order


def random_decks(rng: random.Random, batch: int = 256) -> Iterator[Deck]:
    """Uniformly shuffled decks for ever, from a numpy generator seeded by ``rng``.

    ``Generator.permuted`` runs an unbiased Fisher-Yates on each row of ``batch`` copies of the
    52 cards at once. The salt is empty: these decks are for simulations, not for a table.
    """
    shuffler = np.random.default_rng(rng.getrandbits(64))
    while True:
        for order in shuffler.permuted(np.tile(_CARD_ROW, (batch, 1)), axis=1).tolist():
            yield Deck(order, salt="")


def play_rotation(
    rotation: Rotation,
    *,
    players: int,
    hands: int,
    rng: random.Random,
    stack: int = 1000,
    small_bet: int = 10,
    houses: Mapping[str, HouseRules] | None = None,
    on_hand: Callable[[Hand], None] | None = None,
) -> RandomRun:
    """Play ``hands`` hands of ``rotation`` (one game is a rotation of one) with random legal
    actions, every hand from ``stack``; ``houses`` gives a game code's house switches.

    The game of each hand is the rotation's (R-MIXED-ROTATION: ``hands_per_game`` hands each),
    its stakes those the one level of ``small_bet`` / twice it gives that game (R-STAKES); the
    board games' button moves a player a hand and stays where it is through the stud games
    (R-MIXED-BUTTON), as at the room's tables.
    """
    level = Level(big_bet=2 * small_bet, small_bet=small_bet, seconds=0)
    stakes = {game.code: level.stakes(game) for game in rotation.games}
    seats = [(i, stack) for i in range(1, players + 1)]
    occupied = [seat for seat, _ in seats]
    decks = random_decks(rng)
    uniform = rng.random  # options[int(uniform() * len(options))]: a cheaper rng.choice
    counts = dict.fromkeys(stakes, 0)
    last_button: int | None = None
    actions = 0
    for number in range(hands):
        game = rotation.game_for_hand(number)
        button = None
        if game.has_button:
            button = last_button = next_button(last_button, occupied)
        house = None if houses is None else houses[game.code]
        hand = Hand(game, stakes[game.code], seats, deck=next(decks), house=house, button=button)
        while True:
            legal = hand.legal_actions()
            seat = legal.seat
            if seat is None:
                break
            options = legal.options
            option = options[int(uniform() * len(options))]
            hand.act(seat, option.kind, option.amount)
            actions += 1
        counts[game.code] += 1
        if on_hand is not None:
            on_hand(hand)
    played = tuple(GamePlayed(code, counts[code], stakes[code]) for code in stakes)
    return RandomRun(rotation, hands, actions, played)


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
    """Play ``hands`` hands of one game with random legal actions; return the number of actions."""
    game = get_game(game_code)
    run = play_rotation(
        Rotation(game.code, (game.code,)),
        players=players,
        hands=hands,
        rng=rng,
        stack=stack,
        small_bet=small_bet,
        houses=None if house is None else {game.code: house},
        on_hand=on_hand,
    )
    return run.actions


def _phh_writer(directory: str) -> Callable[[Hand], None]:
    from studpoker.history.phh import dump_hand

    path = Path(directory)
    path.mkdir(parents=True, exist_ok=True)
    counter = [0]

    def write(hand: Hand) -> None:
        counter[0] += 1
        (path / f"hand-{counter[0]:06d}.phh").write_text(dump_hand(hand), encoding="utf-8")

    return write


class _CommandLineError(ValueError):
    """A bad command line: said on stderr, exit status 2, nothing played."""


def _rotation_and_houses(args: argparse.Namespace) -> tuple[Rotation, dict[str, HouseRules] | None]:
    """The rotation ``--game`` names, checked against ``--players`` and ``--bots``, and each of
    its games' house rules with the ``--house`` switches."""
    try:
        rotation = find_rotation(args.game, hands_per_game=args.hands_per_game)
        houses = (
            {game.code: game.default_house.with_overrides(args.house) for game in rotation.games}
            if args.house
            else None
        )
    except (UnknownGameError, RotationError, HouseRuleError) as error:
        raise _CommandLineError(str(error)) from None
    fewest = max(game.min_players for game in rotation.games)
    if not fewest <= args.players <= rotation.max_seats:
        seats = f"{fewest}-{rotation.max_seats}"
        raise _CommandLineError(f"{rotation.name} takes {seats} players, not {args.players}")
    if args.hands < 0:
        raise _CommandLineError("--hands must be 0 or more")
    if args.bots and rotation.mixed:
        raise _CommandLineError(
            f"--bots plays one game, not the rotation {rotation.name}: play it without --bots, "
            "or as a tournament of bots (studpoker tournament simulate)"
        )
    return rotation, houses


def run(args: argparse.Namespace) -> int:
    try:
        rotation, houses = _rotation_and_houses(args)
    except _CommandLineError as error:
        print(f"simulate: {error}", file=sys.stderr)
        return 2
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(2**32)
    rng = random.Random(seed)
    on_hand = _phh_writer(args.phh) if args.phh else None
    if args.bots:  # the bot-match runner (issue 6), one game
        from studpoker.tools.match import run_cli

        code = rotation.games[0].code
        return run_cli(args, code, None if houses is None else houses[code], seed, on_hand)
    start = time.perf_counter()
    try:
        played = play_rotation(
            rotation,
            players=args.players,
            hands=args.hands,
            rng=rng,
            stack=args.stack,
            small_bet=args.small_bet,
            houses=houses,
            on_hand=on_hand,
        )
    except StakesError as error:  # raised before the first hand: nothing was played
        print(f"simulate: --small-bet {args.small_bet}: {error}", file=sys.stderr)
        return 2
    seconds = time.perf_counter() - start
    _report(args, played, seed, seconds)
    return 0


def _report(args: argparse.Namespace, played: RandomRun, seed: int, seconds: float) -> None:
    rate = played.hands / seconds if seconds > 0 else 0.0
    rotation = played.rotation
    if args.json:
        data: dict[str, object] = {
            "hands": played.hands,
            "seconds": round(seconds, 4),
            "hands_per_second": round(rate, 1),
            "game": rotation.name,
            "hands_per_game": rotation.hands_per_game,
            "games": [game.to_dict() for game in played.games],
        }
        print(json.dumps(data))
        return
    print(
        f"{played.hands} hands of {rotation.describe()}, {args.players} players, seed {seed}: "
        f"{played.actions} actions in {seconds:.3f} s ({rate:,.0f} hands/s)"
    )
    if rotation.mixed:  # one game's stakes are its table's: said only for a rotation
        for game in played.games:
            print(f"  {game.describe()}")


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "simulate",
        help="play random legal actions (speed, fuzzing)",
        description="Play hands with random legal actions from one seeded generator (deck and actions).",
    )
    parser.add_argument(
        "--game",
        default="7S",
        help=f"a game ({', '.join(GAMES)}) or a rotation: HORSE, HOSE, or games joined by commas "
        "(7S,RZ) (default 7S)",
    )
    parser.add_argument(
        "--hands-per-game",
        type=int,
        default=DEFAULT_HANDS_PER_GAME,
        help=f"a rotation: hands of each game before the next (default {DEFAULT_HANDS_PER_GAME})",
    )
    parser.add_argument("--players", type=int, default=6, help="players at the table (default 6)")
    parser.add_argument("--hands", type=int, default=1000, help="hands to play (default 1000)")
    parser.add_argument("--seed", type=int, default=None, help="seed for the deck and the actions")
    parser.add_argument(
        "--stack", type=int, default=1000, help="each player's stack at every hand (default 1000)"
    )
    parser.add_argument(
        "--house", action="append", default=[], metavar="NAME=VALUE", help="set a house switch"
    )
    parser.add_argument(
        "--json",
        action="store_true",
        help='print {"hands", "seconds", "hands_per_second", "game", "hands_per_game", "games"}',
    )
    parser.add_argument("--phh", metavar="DIR", help="write each hand as a PHH file into DIR")
    parser.add_argument(
        "--bots",
        metavar="LIST",
        help="bot match (one game): one bot per seat, e.g. equity,random or equity*2,random (bots: "
        "random, calling, equity); reports BB/100 with 95%% intervals",
    )
    parser.add_argument(
        "--small-bet",
        type=int,
        default=10,
        help="the small bet (default 10); the big bet is twice it and every game's forced bets follow",
    )
    parser.add_argument("--plot", metavar="PNG", help="bot match: draw each bot's bankroll over the hands")
    parser.set_defaults(func=run)
