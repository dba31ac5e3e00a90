"""``studpoker replay FILE...``: replay PHH hand histories through the engine.

Per hand, one JSON line ``{"file": ..., "variant": ..., "finishing_stacks": [...]}`` (or the
readable history with ``--text``). An illegal file is reported on stderr as
``FILE: action N: reason``; the other files are still replayed and the exit status is 1.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Any

from studpoker.games import HouseRuleError, HouseRules, get_game
from studpoker.history.phh import PhhError, PhhHand, finishing_stacks, load_hands, replay
from studpoker.history.text import text_history


def register(subparsers: Any) -> None:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "replay",
        help="replay PHH hand histories (.phh, .phhs) through the engine",
        description=(
            "Replay PHH hand histories through the engine. Prints one JSON line per hand, or the "
            "readable history with --text. Exit status 1 if any file is illegal."
        ),
    )
    parser.add_argument("files", nargs="+", metavar="FILE", help=".phh or .phhs files")
    parser.add_argument("--text", action="store_true", help="print the readable hand history instead of JSON")
    parser.add_argument(
        "--compat",
        choices=["pokerkit"],
        help="set the house switches to PokerKit's behaviour (RULES.md, last section)",
    )
    parser.add_argument(
        "--house",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="set one house switch (repeatable), e.g. --house max_raises=4",
    )
    parser.add_argument(
        "--no-check-stacks",
        action="store_true",
        help="do not compare the file's finishing_stacks with the replay",
    )
    parser.set_defaults(func=run)


def _house_for(phh: PhhHand, compat: str | None, overrides: list[str]) -> HouseRules:
    game = get_game(phh.game_code)
    rules = HouseRules.pokerkit_compat(game) if compat == "pokerkit" else game.default_house
    return rules.with_overrides(overrides) if overrides else rules


def run(args: argparse.Namespace) -> int:
    try:
        return _run(args)
    except BrokenPipeError:  # e.g. piped into head: stop quietly
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 1


def _run(args: argparse.Namespace) -> int:
    status = 0
    try:  # reject a bad --house switch once, before reading any file
        HouseRules().with_overrides(args.house)
    except HouseRuleError as exc:
        print(f"studpoker replay: {exc}", file=sys.stderr)
        return 2
    for name in args.files:
        try:
            hands = load_hands(name)
        except PhhError as exc:
            print(exc, file=sys.stderr)
            status = 1
            continue
        for phh in hands:
            try:
                house = _house_for(phh, args.compat, args.house)
                hand = replay(phh, house=house, check_finishing_stacks=not args.no_check_stacks)
            except PhhError as exc:
                print(exc, file=sys.stderr)
                status = 1
                continue
            seats = phh.seats or list(range(1, phh.player_count + 1))
            if args.text:
                print(text_history(hand, reveal=True, players=_names(phh, seats), hand_id=_hand_id(phh)))
            else:
                line = {
                    "file": phh.source,
                    "variant": phh.variant,
                    "finishing_stacks": finishing_stacks(hand, seats),
                }
                print(json.dumps(line))
    return status


def _names(phh: PhhHand, seats: list[int]) -> dict[int, str] | None:
    if not phh.players:
        return None
    return {seat: name for seat, name in zip(seats, phh.players, strict=True) if name}


def _hand_id(phh: PhhHand) -> str | None:
    value = phh.extra.get("hand")
    return None if value is None else str(value)
