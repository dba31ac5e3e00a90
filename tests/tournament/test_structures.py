"""Level structures: every game's stakes from one big bet, level times and breaks, the shipped
structures and the refusals (docs/tournaments.md, R-TOURNAMENT-STRUCTURE)."""

from __future__ import annotations

import doctest

import pytest

import studpoker.tournament.structure as structure_module
from studpoker.games import GAMES, Stakes, find_game
from studpoker.tournament.rotation import find_rotation
from studpoker.tournament.standard import REGULAR, STRUCTURES, TURBO, find_structure
from studpoker.tournament.structure import Break, Level, Structure, StructureError


def test_stakes_of_every_game_follow_from_one_big_bet_by_the_games_ratios() -> None:
    level = Level(big_bet=400, seconds=600)
    assert level.limits == (200, 400)
    for game in GAMES.values():
        assert level.stakes(game) == Stakes.from_bets(200, 400, game)
    stud = level.stakes(find_game("7S"))
    assert (stud.ante, stud.bring_in, stud.small_blind, stud.big_blind) == (40, 100, 0, 0)
    omaha = level.stakes(find_game("O8"))
    assert (omaha.ante, omaha.bring_in, omaha.small_blind, omaha.big_blind) == (0, 0, 100, 200)


def test_a_rotation_plays_every_game_at_the_level_s_limits() -> None:
    level = TURBO.level(3)
    stakes = [level.stakes(game) for game in find_rotation("HORSE").games]
    assert {(s.small_bet, s.big_bet) for s in stakes} == {(40, 80)}
    assert [(s.ante, s.bring_in, s.small_blind, s.big_blind) for s in stakes] == [
        (0, 0, 20, 40),  # LHE
        (0, 0, 20, 40),  # O8
        (8, 20, 0, 0),  # RZ
        (8, 20, 0, 0),  # 7S
        (8, 20, 0, 0),  # 7S8
    ]


def test_a_level_may_give_its_forced_bets_and_limits_outright() -> None:
    level = Level(big_bet=300, small_bet=150, ante=25, bring_in=50, small_blind=50, big_blind=150, seconds=60)
    stud = level.stakes(find_game("razz"))
    assert (stud.ante, stud.bring_in, stud.small_bet, stud.big_bet) == (25, 50, 150, 300)
    omaha = level.stakes(find_game("O8"))
    assert (omaha.ante, omaha.small_blind, omaha.big_blind) == (0, 50, 150)
    Structure(name="wsop-like", title="", starting_stack=4500, periods=(level,))  # 150/300 is exact so


def test_the_standard_structures_are_valid_and_go_up() -> None:
    assert set(STRUCTURES) == {"turbo", "regular"}
    for structure in STRUCTURES.values():
        big_bets = [level.big_bet for level in structure.levels]
        assert big_bets == sorted(set(big_bets)) and all(b % 20 == 0 for b in big_bets)
        assert structure.starting_stack // big_bets[0] >= 30  # at least 30 big bets to start
        assert structure.to_dict()["name"] == structure.name
    assert {level.seconds for level in TURBO.levels} == {300} and not any(
        isinstance(p, Break) for p in TURBO.periods
    )
    kinds = ["break" if isinstance(p, Break) else "level" for p in REGULAR.periods]
    assert kinds[:10] == ["level"] * 4 + ["break"] + ["level"] * 4 + ["break"]
    assert {p.seconds for p in REGULAR.periods if isinstance(p, Break)} == {300}
    assert find_structure("TURBO") is TURBO
    with pytest.raises(StructureError, match=r"unknown structure 'deep'; known structures: turbo, regular"):
        find_structure("deep")


def test_past_its_last_level_a_structure_stays_at_it() -> None:
    last = TURBO.levels[-1]
    assert TURBO.level(len(TURBO.levels)) is last and TURBO.level(1000) is last
    with pytest.raises(StructureError):
        TURBO.level(0)


def _one(level: Level) -> tuple[Level | Break, ...]:
    return (level,)


@pytest.mark.parametrize(
    ("periods", "stack", "message"),
    [
        ((Break(seconds=60), Level(big_bet=40, seconds=60)), 1000, "starts and ends with a level"),
        ((Level(big_bet=40, seconds=60), Break(seconds=60)), 1000, "starts and ends with a level"),
        ((), 1000, "starts and ends with a level"),
        (
            (
                Level(big_bet=40, seconds=60),
                Break(seconds=5),
                Break(seconds=5),
                Level(big_bet=60, seconds=60),
            ),
            1000,
            "two breaks in a row",
        ),
        (_one(Level(big_bet=40, seconds=0)), 1000, "whole number of seconds"),
        (_one(Level(big_bet=40, seconds=60)), 0, "starting stack"),
        (_one(Level(big_bet=50, seconds=60)), 1000, "the bring-in would be 12.5"),  # the ante 5 is whole
        (_one(Level(big_bet=60, small_bet=25, seconds=60)), 1000, "the bring-in would be 12.5"),
        (_one(Level(big_bet=41, seconds=60)), 1000, "is odd; give the small bet"),
        (_one(Level(big_bet=40, small_bet=60, seconds=60)), 1000, "not above the big"),
        ((Level(big_bet=80, seconds=60), Level(big_bet=40, seconds=60)), 1000, "go down from 40/80"),
        (_one(Level(big_bet=40, bring_in=20, seconds=60)), 1000, "bring-in"),
        (_one(Level(big_bet=40, ante=-1, seconds=60)), 1000, "ante must be a whole number"),
        (_one(Level(big_bet=40.0, seconds=60)), 1000, "big_bet must be a whole number"),  # type: ignore[arg-type]
    ],
)
def test_a_structure_that_cannot_be_played_is_refused(
    periods: tuple[Level | Break, ...], stack: int, message: str
) -> None:
    with pytest.raises(StructureError) as caught:
        Structure(name="bad", title="", starting_stack=stack, periods=periods)
    assert str(caught.value).startswith("bad")
    assert message in str(caught.value)


def test_docstring_examples() -> None:
    result = doctest.testmod(structure_module)
    assert result.attempted > 0 and result.failed == 0
