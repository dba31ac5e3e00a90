"""``studpoker tournament simulate`` end to end, for every game and rotation."""

from __future__ import annotations

import json

import pytest

from studpoker.cli import main


def _simulate(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    status = main(["tournament", "simulate", *args])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


@pytest.mark.parametrize("game", ["7S", "7S8", "RZ", "O8", "HORSE", "HOSE"])
def test_every_game_plays_a_tournament_and_pays_the_pool(
    capsys: pytest.CaptureFixture[str], game: str
) -> None:
    status, out, err = _simulate(
        capsys,
        "--game",
        game,
        "--players",
        "10",
        "--seed",
        "3",
        "--bots",
        "random",
        "--table-size",
        "6",
        "--json",
    )
    assert status == 0 and err == ""
    result = json.loads(out)  # one object
    assert result["entrants"] == 10 and result["tables"] == 2 and result["structure"] == "turbo"
    places = result["places"]
    assert sorted(p["player"] for p in places) == list(range(1, 11))
    assert [p["place"] for p in places] == sorted(p["place"] for p in places) and places[0]["place"] == 1
    assert sum(p["payout"] for p in places) == result["prize_pool"] == 1000
    assert result["paid"] == 3 and [p["payout"] for p in places[:3]] == [500, 300, 200]
    if game == "HORSE":
        assert result["games"] == ["LHE", "O8", "RZ", "7S", "7S8"] and result["skipped"] == []


def test_the_report_lists_places_and_payouts_and_the_games(
    capsys: pytest.CaptureFixture[str],
) -> None:
    status, out, _ = _simulate(
        capsys,
        "--game",
        "horse",
        "--players",
        "5",
        "--seed",
        "9",
        "--bots",
        "random,calling",
        "--buy-in",
        "7",
    )
    assert status == 0
    lines = out.splitlines()
    assert lines[0].startswith("HORSE (LHE, O8, RZ, 7S, 7S8, 8 hands each): 5 players")
    assert "prize pool 35 (5 x 7), 2 paid" in out
    assert lines[3].startswith("1. player ") and lines[3].endswith("  23")
    assert lines[4].startswith("2. player ") and lines[4].endswith("  12")
    assert len(lines) == 3 + 5 and "(calling)" in out and "(random)" in out


def test_the_same_seed_prints_the_same_tournament(capsys: pytest.CaptureFixture[str]) -> None:
    args = (
        "--game",
        "RZ",
        "--players",
        "4",
        "--seed",
        "21",
        "--bots",
        "random",
        "--structure",
        "regular",
        "--json",
    )
    first = _simulate(capsys, *args)
    assert first == _simulate(capsys, *args)
    assert json.loads(first[1])["structure"] == "regular"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["--game", "DRAW"],
            "unknown game 'DRAW'; known games: 7S, 7S8, RZ, O8, LHE; or a rotation: HORSE, HOSE",
        ),
        (["--structure", "deep"], "unknown structure 'deep'"),
        (["--bots", "shark"], "unknown bot 'shark'"),
        (["--bots", ","], "unknown bot ','"),
        (["--players", "1"], "entrants must be a whole number 2 or more"),
        (["--game", "O8", "--table-size", "11"], "tables seat 2 to 10 players"),
        (["--hands-per-game", "0"], "lasts 1 hand or more"),
        (["--hands-per-level", "0"], "hands per level"),
    ],
)
def test_bad_input_is_refused_with_a_clear_message(
    capsys: pytest.CaptureFixture[str], args: list[str], message: str
) -> None:
    status, out, err = _simulate(capsys, "--bots", "random", "--seed", "1", *args)
    assert status == 2 and out == ""
    assert err.startswith("tournament simulate: ") and message in err


def test_tournament_alone_shows_its_commands(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["tournament"]) == 2
    assert "simulate" in capsys.readouterr().out
