"""``studpoker import FILE... [--out DIR]``: PokerStars hand histories into PHH files.

Each hand of each file (7 Card Stud, Stud Hi/Lo, Razz, limit Omaha Hi/Lo; cash or tournament,
play or real money) is converted to PHH and replayed through the engine, every amount the file
states checked against the replay; the good hands of ``FILE`` go to ``DIR/FILE-STEM.phhs``
(default: beside the file). A bad hand is reported on stderr as ``FILE: hand #N, line L:
reason`` and left out, the rest of the file is still read, and the exit status is 1; hands of
other games are reported as skipped. One JSON line per file says what was written.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from studpoker.games import HouseRuleError, HouseRules, get_game
from studpoker.history.phh import PhhHand, dumps_all
from studpoker.history.pokerstars.check import ReplayedHand, import_file
from studpoker.history.pokerstars.parsed import PokerStarsError, SkippedHand
from studpoker.history.pokerstars.phh_record import ImportedHand


def register(subparsers: Any) -> None:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "import",
        help="turn PokerStars hand histories (stud, razz, Omaha Hi/Lo) into PHH files",
        description=(
            "Convert PokerStars hand histories into PHH (.phhs, one per file). Every hand is "
            "replayed and its amounts checked unless --no-replay. Exit status 1 if any hand is bad."
        ),
    )
    parser.add_argument("files", nargs="+", metavar="FILE", help="PokerStars hand-history files (.txt)")
    parser.add_argument("--out", metavar="DIR", help="where the .phhs files go (default: beside each file)")
    parser.add_argument(
        "--no-replay", action="store_true", help="convert without replaying (the amounts are not checked)"
    )
    parser.add_argument(
        "--house",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="a house switch for the replay (repeatable), e.g. --house max_raises=4",
    )
    parser.set_defaults(func=run)


def _target(source: Path, out: str | None, taken: set[Path]) -> Path:
    """The .phhs path of ``source``; a second input with the same name gets ``-2``, ``-3``..."""
    folder = Path(out) if out else source.parent
    path = folder / f"{source.stem}.phhs"
    number = 2
    while path in taken:
        path = folder / f"{source.stem}-{number}.phhs"
        number += 1
    taken.add(path)
    return path


def run(args: argparse.Namespace) -> int:
    try:
        HouseRules().with_overrides(args.house)
    except HouseRuleError as exc:
        print(f"studpoker import: {exc}", file=sys.stderr)
        return 2

    def house(phh: PhhHand) -> HouseRules:
        return get_game(phh.game_code).default_house.with_overrides(args.house)

    if args.out:
        Path(args.out).mkdir(parents=True, exist_ok=True)
    status = 0
    taken: set[Path] = set()
    for name in args.files:
        good: list[PhhHand] = []
        errors = skipped = 0
        for outcome in import_file(name, check=not args.no_replay, house=house):
            if isinstance(outcome, ReplayedHand):
                good.append(outcome.imported.phh)
            elif isinstance(outcome, ImportedHand):
                good.append(outcome.phh)
            elif isinstance(outcome, SkippedHand):
                skipped += 1
                print(outcome, file=sys.stderr)
            else:
                assert isinstance(outcome, PokerStarsError)
                errors += 1
                print(outcome, file=sys.stderr)
        target: Path | None = None
        if good:
            target = _target(Path(name), args.out, taken)
            try:
                target.write_text(dumps_all(good), encoding="utf-8")
            except OSError as exc:
                print(f"studpoker import: cannot write {target}: {exc}", file=sys.stderr)
                target = None
                errors += 1
        if errors:
            status = 1
        report = {
            "file": name,
            "out": None if target is None else str(target),
            "hands": len(good) if target is not None else 0,
            "errors": errors,
            "skipped": skipped,
        }
        print(json.dumps(report))
    return status
