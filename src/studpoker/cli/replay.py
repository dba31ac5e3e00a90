"""``studpoker replay FILE...``: replay PHH hand histories through the engine.

Per hand, one JSON line ``{"file": ..., "variant": ..., "finishing_stacks": [...]}`` (or the
readable history with ``--text``). An illegal file is reported on stderr as
``FILE: action N: reason``; the other files are still replayed and the exit status is 1.

A ``.txt`` file is read as PokerStars hand histories: each hand is converted to PHH, replayed,
and every amount the file states is checked against the replay (``FILE: hand #N, line L:
reason`` when one differs); its JSON line adds ``winnings`` and ``rake``, and the finishing
stacks are net of rake. A PHH record with a ``_rake`` field is settled the same way.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Any

from studpoker.games import HouseRuleError, HouseRules, get_game
from studpoker.history.phh import PhhError, PhhHand, finishing_stacks, load_hands, replay_with_time_banks
from studpoker.history.pokerstars.check import ReplayedHand, import_file
from studpoker.history.pokerstars.parsed import SkippedHand
from studpoker.history.settle import RAKE_FIELD, Settlement, settle
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
    parser.add_argument(
        "files", nargs="+", metavar="FILE", help=".phh or .phhs files, or PokerStars hand histories (.txt)"
    )
    parser.add_argument("--text", action="store_true", help="print the readable hand history instead of JSON")
    parser.add_argument(
        "--chips",
        action="store_true",
        help="--text: write amounts as whole chips (a tournament's PHH file), not the room's money with"
        " two decimals (a PokerStars file says which it is)",
    )
    parser.add_argument(
        "--compat",
        choices=["pokerkit"],
        help="set the house switches to PokerKit's behaviour (docs/rules.md, R-POKERKIT-COMPAT)",
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
        if name.lower().endswith(".txt"):
            status = max(status, _replay_pokerstars(name, args))
            continue
        try:
            hands = load_hands(name)
        except PhhError as exc:
            print(exc, file=sys.stderr)
            status = 1
            continue
        for phh in hands:
            try:
                house = _house_for(phh, args.compat, args.house)
                raked = RAKE_FIELD in phh.extra  # the finishing stacks are net of the rake
                check = not args.no_check_stacks
                # with the time banks and timeouts the file's commentaries record (the text says them)
                noted = replay_with_time_banks(phh, house=house, check_finishing_stacks=check and not raked)
                hand = noted.hand
                settlement = settle(phh, hand, check_finishing_stacks=check) if raked else None
            except PhhError as exc:
                print(exc, file=sys.stderr)
                status = 1
                continue
            seats = phh.seats or list(range(1, phh.player_count + 1))
            if args.text:
                names = _names(phh, seats)
                text = text_history(
                    hand, reveal=True, players=names, hand_id=_hand_id(phh), chips=args.chips,
                    time_banks=noted.time_banks, protected_counts=noted.protected_counts,
                )  # fmt: skip
                print(text)
            else:
                line: dict[str, Any] = {
                    "file": phh.source,
                    "variant": phh.variant,
                    "finishing_stacks": finishing_stacks(hand, seats),
                }
                if settlement is not None:
                    line.update(_net(settlement))
                print(json.dumps(line))
    return status


def _net(settlement: Settlement) -> dict[str, Any]:
    return {
        "finishing_stacks": settlement.finishing_stacks,
        "winnings": settlement.winnings,
        "rake": settlement.rake,
    }


def _replay_pokerstars(name: str, args: argparse.Namespace) -> int:
    """Replay the hands of a PokerStars file, checking every amount; 1 when a hand is bad."""
    status = 0
    for outcome in import_file(name, house=lambda phh: _house_for(phh, args.compat, args.house)):
        if isinstance(outcome, SkippedHand):
            print(outcome, file=sys.stderr)
            continue
        if not isinstance(outcome, ReplayedHand):
            print(outcome, file=sys.stderr)
            status = 1
            continue
        phh = outcome.imported.phh
        if args.text:  # every card, unless some were never seen: the replay's stand-ins stay hidden
            seats = phh.seats or []
            known = not outcome.hand.unknown_cards  # a ?? that a show fills is known
            chips = args.chips or outcome.imported.parsed.money.chips  # a tournament's chips
            names = _names(phh, seats)
            print(text_history(outcome.hand, reveal=known, players=names, hand_id=_hand_id(phh), chips=chips))
            continue
        line = {"file": phh.source, "variant": phh.variant, **_net(outcome.settlement)}
        print(json.dumps(line))
    return status


def _names(phh: PhhHand, seats: list[int]) -> dict[int, str] | None:
    if not phh.players:
        return None
    return {seat: name for seat, name in zip(seats, phh.players, strict=True) if name}


def _hand_id(phh: PhhHand) -> str | None:
    value = phh.extra.get("hand")
    return None if value is None else str(value)
