"""Golden playthroughs (as OpenSpiel's): for a few seeded hands per game, the legal options and
the action at every step, every seat's redacted events and the result, compared with the files
in ``golden/``. Regenerate after an intended change with ``STUDPOKER_UPDATE_GOLDEN=1``.
"""

from __future__ import annotations

import json
import os
import random
from pathlib import Path
from typing import Any

import pytest

from studpoker.cards import Deck
from studpoker.engine import Hand
from studpoker.games import Stakes, get_game

GOLDEN = Path(__file__).parent / "golden"
# Seeds chosen to reach a showdown with side pots and a mucked hand.
CASES = [("7S", 6, 6), ("7S8", 4, 76), ("RZ", 8, 19), ("O8", 5, 8)]


def playthrough(code: str, players: int, seed: int) -> dict[str, Any]:
    game = get_game(code)
    rng = random.Random(seed)
    stakes = Stakes.from_bets(10, 20, game)
    stacks = [rng.choice([40, 120, 400]) for _ in range(players)]
    seats = [(i + 1, s) for i, s in enumerate(stacks)]
    deck = Deck.shuffled(rng, salt="golden")
    hand = Hand(game, stakes, seats, deck=deck, button=players if game.kind == "omaha" else None)
    steps: list[dict[str, Any]] = []
    while not hand.is_over:
        legal = hand.legal_actions()
        option = rng.choice(legal.options)
        steps.append({"legal": legal.to_dict(), "action": option.to_dict()})
        assert legal.seat is not None
        hand.apply(legal.seat, option.action)
    return {
        "game": code,
        "seats": seats,
        "deck": " ".join(str(c) for c in deck.order),
        "steps": steps,
        "events": {
            str(viewer): [e.to_dict() for e in hand.events_for(viewer)]
            for viewer in (None, *hand.seat_numbers)
        },
        "result": hand.result.to_dict(),
    }


@pytest.mark.parametrize(("code", "players", "seed"), CASES)
def test_golden_playthrough(code: str, players: int, seed: int) -> None:
    path = GOLDEN / f"{code.lower()}-{players}p-{seed}.json"
    got = json.loads(json.dumps(playthrough(code, players, seed)))
    if os.environ.get("STUDPOKER_UPDATE_GOLDEN"):
        path.write_text(json.dumps(got, indent=1) + "\n", encoding="utf-8")
    if not path.exists():
        pytest.fail(f"{path} is missing: run with STUDPOKER_UPDATE_GOLDEN=1 to write it")
    want = json.loads(path.read_text(encoding="utf-8"))
    assert got["steps"] == want["steps"]
    assert got["events"] == want["events"]
    assert got["result"] == want["result"]
