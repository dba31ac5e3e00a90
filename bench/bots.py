"""Bots: the equity bot against the random and the calling bot, heads-up, per game.

Win rates in big bets per 100 hands with 95 % intervals (the same runner as
``studpoker simulate --bots``); ``HANDS`` hands a match (10,000 as the issue asks).
"""

from __future__ import annotations

import os

from studpoker.games import GAMES
from studpoker.tools.match import run_match

HANDS = int(os.environ.get("BENCH_BOT_HANDS", "10000"))


def main() -> None:
    print(f"{HANDS:,} hands a match, heads-up, bets 10/20 (big bet 20), stacks 1,000 every hand\n")
    print("| game | match | equity bot BB/100 | ±95 % | hands/s |")
    print("|---|---|--:|--:|--:|")
    for game in GAMES:
        for opponent in ("random", "calling"):
            result = run_match(game, ["equity", opponent], HANDS, seed=2026)
            me = result.seats()[0]
            print(
                f"| {game} | equity v {opponent} | {me.per100:+.1f} | {me.ci95:.1f} | "
                f"{result.hands_per_second:,.0f} |",
                flush=True,
            )


if __name__ == "__main__":
    main()
