"""``studpoker simulate``: random legal play, JSON summary, PHH output."""

from __future__ import annotations

import argparse
import json
import random
from collections.abc import Callable
from pathlib import Path

import pytest

from studpoker.cli import simulate
from studpoker.engine import Hand


def run(argv: list[str]) -> int:
    parser = argparse.ArgumentParser()
    simulate.register(parser.add_subparsers())
    args = parser.parse_args(["simulate", *argv])
    status: int = args.func(args)
    return status


def test_simulate_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["--game", "7S", "--players", "6", "--hands", "30", "--seed", "1", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["hands"] == 30 and data["seconds"] > 0 and data["hands_per_second"] > 0


def finals_of(out: list[dict[int, int]]) -> Callable[[Hand], None]:
    def record(hand: Hand) -> None:
        out.append(hand.result.final_stacks)

    return record


@pytest.mark.parametrize("code", ["7S", "7S8", "RZ", "O8"])
def test_simulate_is_reproducible(code: str) -> None:
    stacks: list[list[dict[int, int]]] = []
    for _ in range(2):
        finals: list[dict[int, int]] = []
        simulate.play_random(code, players=5, hands=20, rng=random.Random(9), on_hand=finals_of(finals))
        stacks.append(finals)
    assert stacks[0] == stacks[1]
    assert all(sum(f.values()) == 5000 for f in stacks[0])


def test_simulate_errors(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["--game", "XX"]) == 2
    assert "known games" in capsys.readouterr().err
    assert run(["--game", "7S", "--players", "9"]) == 2
    assert run(["--house", "max_raises=x"]) == 2


def test_simulate_writes_phh(tmp_path: Path) -> None:
    phh = pytest.importorskip("studpoker.history.phh")
    if not hasattr(phh, "dump_hand"):
        pytest.skip("no PHH writer in this build")
    assert run(["--game", "RZ", "--players", "3", "--hands", "3", "--seed", "2", "--phh", str(tmp_path)]) == 0
    files = sorted(tmp_path.glob("*.phh"))
    assert len(files) == 3
    assert all(phh.load_hands(f) for f in files)
