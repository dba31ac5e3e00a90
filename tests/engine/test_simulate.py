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
from studpoker.games import Stakes
from studpoker.tournament.rotation import find_rotation


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
    from studpoker.history import phh

    assert run(["--game", "RZ", "--players", "3", "--hands", "3", "--seed", "2", "--phh", str(tmp_path)]) == 0
    files = sorted(tmp_path.glob("*.phh"))
    assert len(files) == 3
    assert all(phh.load_hands(f) for f in files)


# --------------------------------------------------------------------------- rotations (issue 16)

HORSE_ORDER = ["LHE", "O8", "RZ", "7S", "7S8"]


def test_a_horse_rotation_hand_by_hand_changes_game_every_eight_hands() -> None:
    """R-MIXED-ROTATION and R-MIXED-BUTTON in the random-play driver: eight hands of each game in
    HORSE order, the stakes of every game from the one level (small bet 10), and the board games'
    button moving one seat a board hand, frozen through the stud games."""
    hands: list[Hand] = []
    run = simulate.play_rotation(
        find_rotation("HORSE"), players=5, hands=90, rng=random.Random(4), on_hand=hands.append
    )
    assert [h.game.code for h in hands] == [HORSE_ORDER[(n // 8) % 5] for n in range(90)]
    board = [h for h in hands if not h.game.is_stud]
    assert [h.button for h in board] == [k % 5 + 1 for k in range(len(board))]
    assert all(h.button is None for h in hands if h.game.is_stud)
    # 16 board hands, then 24 stud hands (not a whole number of orbits of 5): the button goes on
    # from seat 1 as if the stud hands had not been dealt
    assert hands[40].game.code == "LHE" and hands[40].button == 16 % 5 + 1
    blinds = Stakes(small_bet=10, big_bet=20, small_blind=5, big_blind=10)
    stud = Stakes(small_bet=10, big_bet=20, ante=2, bring_in=5)
    assert all(h.stakes == (stud if h.game.is_stud else blinds) for h in hands)
    assert all(sum(h.result.final_stacks.values()) == 5 * 1000 for h in hands)
    assert [(g.game, g.hands) for g in run.games] == [
        ("LHE", 24), ("O8", 18), ("RZ", 16), ("7S", 16), ("7S8", 16)
    ]  # fmt: skip
    assert run.hands == 90 and run.actions > 90


def test_a_rotation_replays_from_its_seed() -> None:
    finals: list[list[dict[int, int]]] = []
    for _ in range(2):
        out: list[dict[int, int]] = []
        simulate.play_rotation(
            find_rotation("HOSE", hands_per_game=2), players=4, hands=20, rng=random.Random(8),
            on_hand=finals_of(out),
        )  # fmt: skip
        finals.append(out)
    assert finals[0] == finals[1] and len(finals[0]) == 20


def test_simulate_horse_says_the_hands_and_stakes_of_each_game(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["--game", "HORSE", "--hands", "45", "--seed", "1", "--small-bet", "20"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("45 hands of HORSE (LHE, O8, RZ, 7S, 7S8, 8 hands each), 6 players, seed 1:")
    assert [line.split() for line in lines[1:]] == [
        ["LHE", "13", "hands:", "blinds", "10/20,", "bets", "20/40"],
        ["O8", "8", "hands:", "blinds", "10/20,", "bets", "20/40"],
        ["RZ", "8", "hands:", "ante", "4,", "bring-in", "10,", "bets", "20/40"],
        ["7S", "8", "hands:", "ante", "4,", "bring-in", "10,", "bets", "20/40"],
        ["7S8", "8", "hands:", "ante", "4,", "bring-in", "10,", "bets", "20/40"],
    ]


def test_simulate_a_list_of_games_in_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["--game", "7s, razz", "--hands", "7", "--hands-per-game", "3", "--seed", "3", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert (data["game"], data["hands"], data["hands_per_game"]) == ("7S,RZ", 7, 3)
    assert [(g["game"], g["hands"]) for g in data["games"]] == [("7S", 4), ("RZ", 3)]
    assert data["games"][1]["stakes"] == Stakes(small_bet=10, big_bet=20, ante=2, bring_in=5).to_dict()
    assert run(["--game", "HOSE", "--hands", "9", "--seed", "3", "--json"]) == 0
    hose = json.loads(capsys.readouterr().out)
    assert [(g["game"], g["hands"]) for g in hose["games"]] == [("LHE", 8), ("O8", 1), ("7S", 0), ("7S8", 0)]


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (["--game", "HORSE", "--players", "9"], "HORSE takes 2-8 players, not 9"),  # stud seats 8
        (["--game", "7S,XX"], "unknown game 'XX'"),
        (["--game", "7S,,RZ"], "empty game name"),
        (["--game", "HORSE", "--hands-per-game", "0"], "1 hand or more"),
        (["--game", "HORSE", "--bots", "equity,random"], "--bots plays one game"),
        (["--game", "HORSE", "--house", "odd_chip=x"], "odd_chip"),
        (["--game", "HORSE", "--small-bet", "0"], "--small-bet 0"),
    ],
)
def test_a_rotation_that_cannot_be_played_is_refused(
    argv: list[str], said: str, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    assert run([*argv, "--hands", "3", "--phh", str(tmp_path / "out")]) == 2
    captured = capsys.readouterr()
    assert said in captured.err and captured.out == ""
    assert not list(tmp_path.glob("out/*.phh"))  # nothing played


def test_simulate_writes_each_hand_of_a_rotation_in_its_game(tmp_path: Path) -> None:
    from studpoker.history import phh

    argv = ["--game", "7S,O8", "--hands-per-game", "2", "--players", "3", "--hands", "5", "--seed", "2"]
    assert run([*argv, "--phh", str(tmp_path)]) == 0
    files = sorted(tmp_path.glob("*.phh"))
    assert [phh.load_hands(f)[0].game_code for f in files] == ["7S", "7S", "O8", "O8", "7S"]
