"""``studpoker equity``: each player's share of the pot in each game of :mod:`studpoker.games`.

studpoker equity --game 7S "AsKs Qh" "7c7d 2s" --dead "Qd 2h"
studpoker equity --game O8 "As2s3h4h" "KcKd????" --board "2c 7d 9h" --json
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from studpoker.equity import EquityError, EquityResult, equity
from studpoker.games import GAMES, get_game


def render(result: EquityResult) -> Any:
    """A rich table of the result."""
    from rich.table import Table

    pos = result.position
    game = get_game(pos.game)
    split = game.hi_lo
    how = (
        f"exact, {result.deals:,} runouts ({result.method})"
        if result.exact
        else f"Monte Carlo, {result.deals:,} deals, ±{max(p.margin for p in result.players):.2%} (95 %)"
    )
    title = game.name
    if pos.board:
        title += f", board {' '.join(map(str, pos.board))}"
    if pos.dead:
        title += f", dead {' '.join(map(str, pos.dead))}"
    table = Table(title=title, caption=f"{how} in {result.seconds:.2f} s ({result.cpu_seconds:.2f} s CPU)")
    table.add_column("player")
    table.add_column("cards", no_wrap=True)
    table.add_column("equity", justify="right", style="bold")
    if not result.exact:
        table.add_column("±95 %", justify="right")
    table.add_column("win", justify="right")
    table.add_column("tie", justify="right")
    if split:
        table.add_column("scoop", justify="right")
        table.add_column("high half", justify="right")
        table.add_column("low half", justify="right")
    for i, (hand, p) in enumerate(zip(pos.hands, result.players, strict=True), 1):
        cards = " ".join("??" if c is None else str(c) for c in hand)
        row = [str(i), cards, f"{p.equity:.2%}"]
        if not result.exact:
            row.append(f"{p.margin:.2%}")
        row += [f"{p.win:.2%}", f"{p.tie:.2%}"]
        if split:
            row += [f"{p.scoop:.2%}", f"{p.high or 0:.2%}", f"{p.low or 0:.2%}"]
        table.add_row(*row)
    return table


def _receive(text: str | None) -> int | list[int] | None:
    if text is None:
        return None
    parts = [p.strip() for p in text.split(",")]
    try:
        numbers = [int(p) for p in parts]
    except ValueError:
        raise EquityError(f"--receive takes a number or one number per player, not {text!r}") from None
    return numbers[0] if len(numbers) == 1 else numbers


def run(args: argparse.Namespace) -> int:
    exact = True if args.exact else (False if args.sample else None)
    try:
        result = equity(
            args.game,
            args.hands,
            dead=args.dead,
            board=args.board,
            exact=exact,
            precision=args.precision,
            max_deals=args.max_deals,
            seed=args.seed,
            receive=_receive(args.receive),
        )
    except (EquityError, ValueError) as error:
        print(f"equity: {error}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(result.as_dict(), indent=2))
        return 0
    from rich.console import Console

    Console().print(render(result))
    return 0


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "equity",
        help="each player's share of the pot (exact or Monte Carlo)",
        description=(
            f"Equity of {', '.join(f'{g.short_name} ({g.code})' for g in GAMES.values())} hands. "
            "Give each player's known cards "
            "(down and up) as one argument, ?? for a card dealt but not seen; the cards still to "
            "come are dealt from the unseen ones. Exact when the runouts are few (heads-up stud "
            "always), otherwise Monte Carlo with a 95 % interval."
        ),
    )
    parser.add_argument(
        "hands", nargs="+", metavar="HAND", help='a player\'s cards, e.g. "AsKs Qh" or "?? ?? 7d"'
    )
    parser.add_argument("--game", default="7S", help=f"game code or alias: {', '.join(GAMES)} (default 7S)")
    parser.add_argument("--dead", default="", help='dead cards seen (folded up cards), e.g. "Qd 2h"')
    parser.add_argument("--board", default="", help="board cards (Omaha: 0, 3, 4 or 5)")
    parser.add_argument(
        "--receive",
        metavar="N[,N...]",
        help="stud: cards each player still receives (one number, or one per player); default: up to 7",
    )
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--exact", action="store_true", help="insist on exact enumeration")
    mode.add_argument("--sample", action="store_true", help="force Monte Carlo")
    parser.add_argument(
        "--precision",
        type=float,
        default=0.001,
        help="Monte Carlo: stop when every equity is within this (95 %%), default 0.001",
    )
    parser.add_argument(
        "--max-deals", type=int, default=20_000_000, help="Monte Carlo: at most this many deals"
    )
    parser.add_argument("--seed", type=int, default=None, help="Monte Carlo seed")
    parser.add_argument("--json", action="store_true", help="print the result as JSON")
    parser.set_defaults(func=run)
