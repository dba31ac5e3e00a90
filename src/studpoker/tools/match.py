"""The bot-match runner behind ``studpoker simulate --bots``.

Plays ``hands`` hands of a game with one bot per seat; every hand starts from the same stacks
(a cash-game session with re-buys), the Omaha button moves every hand, and one seeded
generator shuffles the decks so a run is reproducible. Results are win rates in units (big
bets) per 100 hands with a 95 % confidence interval; ``plot`` draws each seat's bankroll.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from studpoker.bots import Bot, make_bot, play_hand
from studpoker.cards import Deck
from studpoker.engine import Hand
from studpoker.games import HouseRules, Stakes, get_game

__all__ = ["MatchResult", "SeatResult", "parse_bots", "plot", "render", "run_match"]

Z95 = 1.959963984540054


@dataclass(frozen=True)
class SeatResult:
    seat: int
    bot: str
    net: int  # chips won over the match
    per100: float  # big bets per 100 hands
    ci95: float  # half-width of the 95 % interval of per100

    def as_dict(self) -> dict[str, Any]:
        return {
            "seat": self.seat,
            "bot": self.bot,
            "net": self.net,
            "bb_per_100": round(self.per100, 3),
            "ci95": round(self.ci95, 3),
        }


@dataclass
class MatchResult:
    game: str
    stakes: Stakes
    bots: list[str]
    hands: int = 0
    seconds: float = 0.0
    history: list[list[int]] = field(default_factory=list)  # per hand: each seat's net

    def seats(self) -> list[SeatResult]:
        unit = self.stakes.big_bet
        out = []
        for i, name in enumerate(self.bots):
            nets = [h[i] for h in self.history]
            n = len(nets)
            total = sum(nets)
            mean = total / n if n else 0.0
            var = sum((x - mean) ** 2 for x in nets) / (n - 1) if n > 1 else 0.0
            ci = Z95 * math.sqrt(var / n) if n > 1 else math.inf
            out.append(SeatResult(i + 1, name, total, 100 * mean / unit, 100 * ci / unit))
        return out

    @property
    def hands_per_second(self) -> float:
        return self.hands / self.seconds if self.seconds > 0 else 0.0

    def as_dict(self) -> dict[str, Any]:
        return {
            "game": self.game,
            "hands": self.hands,
            "seconds": round(self.seconds, 4),
            "hands_per_second": round(self.hands_per_second, 1),
            "big_bet": self.stakes.big_bet,
            "seats": [s.as_dict() for s in self.seats()],
        }


def parse_bots(text: str) -> list[str]:
    """``"equity,random"`` or ``"equity*2,random"`` -> one bot name per seat."""
    names: list[str] = []
    for raw in text.split(","):
        part = raw.strip()
        if not part:
            continue
        name, _, count = part.partition("*")
        names += [name.strip()] * (int(count) if count else 1)
    return names


def run_match(
    game_code: str,
    bots: Sequence[str | Bot],
    hands: int,
    *,
    small_bet: int = 10,
    stack: int = 1000,
    seed: int | None = None,
    house: HouseRules | None = None,
    on_hand: Callable[[Hand], None] | None = None,
    progress: Callable[[int], None] | None = None,
) -> MatchResult:
    """Play the match; ``progress(done)`` is called after every hand."""
    game = get_game(game_code)
    stakes = Stakes.from_bets(small_bet, 2 * small_bet, game)
    rng = random.Random(seed)
    players: list[Bot] = [make_bot(b, rng.randrange(2**32)) if isinstance(b, str) else b for b in bots]
    if not game.min_players <= len(players) <= game.max_players:
        raise ValueError(
            f"{game.code} takes {game.min_players}-{game.max_players} players, not {len(players)}"
        )
    seats = [(i + 1, stack) for i in range(len(players))]
    by_seat = {i + 1: bot for i, bot in enumerate(players)}
    result = MatchResult(game.code, stakes, [getattr(b, "name", type(b).__name__) for b in players])
    omaha = game.has_button
    start = time.perf_counter()
    for number in range(hands):
        button = seats[number % len(seats)][0] if omaha else None
        hand = Hand(game, stakes, seats, deck=Deck.shuffled(rng), house=house, button=button)
        play_hand(hand, by_seat)
        assert hand.result is not None
        result.history.append([hand.result.net.get(s, 0) for s, _ in seats])
        result.hands += 1
        if on_hand is not None:
            on_hand(hand)
        if progress is not None:
            progress(result.hands)
    result.seconds = time.perf_counter() - start
    return result


def render(result: MatchResult) -> Any:
    from rich.table import Table

    table = Table(
        title=f"{result.game}: {result.hands:,} hands, big bet {result.stakes.big_bet}",
        caption=f"{result.seconds:.1f} s, {result.hands_per_second:,.0f} hands/s",
    )
    table.add_column("seat", justify="right")
    table.add_column("bot")
    table.add_column("net", justify="right")
    table.add_column("BB/100", justify="right", style="bold")
    table.add_column("±95 %", justify="right")
    for s in result.seats():
        colour = "green" if s.per100 - s.ci95 > 0 else "red" if s.per100 + s.ci95 < 0 else ""
        rate = f"[{colour}]{s.per100:+.2f}[/]" if colour else f"{s.per100:+.2f}"
        table.add_row(str(s.seat), s.bot, f"{s.net:+,}", rate, f"{s.ci95:.2f}")
    return table


def plot(result: MatchResult, path: str | Path) -> None:
    """Each seat's bankroll (in big bets) over the hands, written as an image (Agg backend)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(8, 4.5), dpi=100)
    unit = result.stakes.big_bet
    for i, name in enumerate(result.bots):
        running, total = [0.0], 0
        for h in result.history:
            total += h[i]
            running.append(total / unit)
        ax.plot(range(len(running)), running, label=f"seat {i + 1}: {name}", linewidth=1.2)
    ax.axhline(0, color="grey", linewidth=0.6)
    ax.set_xlabel("hands")
    ax.set_ylabel("bankroll (big bets)")
    ax.set_title(f"{result.game}: {result.hands:,} hands")
    ax.legend(loc="best")
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


def run_cli(
    args: Any, game_code: str, house: HouseRules | None, seed: int, on_hand: Callable[[Hand], None] | None
) -> int:
    """``studpoker simulate --bots ...``: play, show a progress bar, print the table or JSON."""
    import json
    import sys

    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

    from studpoker.bots import BOTS

    names = parse_bots(args.bots)
    unknown = [n for n in names if n not in BOTS]
    if unknown:
        print(f"simulate: unknown bot {unknown[0]!r}: use {', '.join(BOTS)}", file=sys.stderr)
        return 2
    err = Console(stderr=True)
    columns = (
        TextColumn(f"{game_code} {' v '.join(names)}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("{task.fields[rate]:>8,.0f} hands/s"),
        TimeRemainingColumn(),
    )
    started = time.perf_counter()
    with Progress(*columns, console=err, transient=True, disable=args.json or not err.is_terminal) as bar:
        task = bar.add_task("match", total=args.hands, rate=0.0)

        def tick(done: int) -> None:
            if done % 10 == 0 or done == args.hands:
                elapsed = time.perf_counter() - started
                bar.update(task, completed=done, rate=done / elapsed if elapsed > 0 else 0.0)

        try:
            result = run_match(
                game_code,
                names,
                args.hands,
                small_bet=args.small_bet,
                stack=args.stack,
                seed=seed,
                house=house,
                on_hand=on_hand,
                progress=tick,
            )
        except ValueError as error:
            print(f"simulate: {error}", file=sys.stderr)
            return 2
    if args.plot:
        plot(result, args.plot)
    if args.json:
        data = result.as_dict()
        data["seed"] = seed
        print(json.dumps(data))
    else:
        Console().print(render(result))
        print(f"seed {seed}" + (f", plot written to {args.plot}" if args.plot else ""))
    return 0
