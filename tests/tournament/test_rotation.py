"""One game or a rotation: HORSE and HOSE from the games that exist, the game after every set
number of hands, custom lists (R-MIXED-ROTATION)."""

from __future__ import annotations

import doctest

import pytest

import studpoker.tournament.rotation as rotation_module
from studpoker.games import GAMES, Game, UnknownGameError, find_game
from studpoker.tournament.rotation import (
    DEFAULT_HANDS_PER_GAME,
    NOT_YET_PLAYED,
    Rotation,
    RotationError,
    find_rotation,
)


def test_horse_and_hose_rotate_their_games_limit_holdem_first() -> None:
    horse = find_rotation("HORSE")
    assert [g.code for g in horse.games] == ["LHE", "O8", "RZ", "7S", "7S8"]
    assert horse.skipped == () and horse.describe() == "HORSE (LHE, O8, RZ, 7S, 7S8, 8 hands each)"
    hose = find_rotation("hose")
    assert [g.code for g in hose.games] == ["LHE", "O8", "7S", "7S8"] and hose.skipped == ()
    assert horse.mixed and horse.uses_button and horse.max_seats == 8


def test_the_game_changes_after_the_set_number_of_hands() -> None:
    horse = find_rotation("HORSE")
    assert DEFAULT_HANDS_PER_GAME == horse.hands_per_game == 8
    codes = [horse.game_for_hand(n).code for n in range(40)]
    assert codes == ["LHE"] * 8 + ["O8"] * 8 + ["RZ"] * 8 + ["7S"] * 8 + ["7S8"] * 8
    assert [horse.hands_left(n) for n in (0, 7, 8, 13)] == [8, 1, 8, 3]
    short = find_rotation("7S,RZ", hands_per_game=3)
    assert [short.game_for_hand(n).code for n in range(7)] == ["7S", "7S", "7S", "RZ", "RZ", "RZ", "7S"]


def test_lhe_joins_horse_as_soon_as_the_registry_has_it(monkeypatch: pytest.MonkeyPatch) -> None:
    """Adding Hold'em was its record in games.py: the rotations find it there; without the
    record (a registry that lacks it, LHE listed as not played yet) HORSE skips it, saying so."""
    assert find_rotation("HORSE").games[0] is GAMES["LHE"]

    def registry_without_holdem(name: str) -> Game:
        if name.upper() in GAMES["LHE"].names():
            raise UnknownGameError(f"unknown game {name!r}")
        return find_game(name)

    monkeypatch.setattr(rotation_module, "find_game", registry_without_holdem)
    monkeypatch.setattr(rotation_module, "NOT_YET_PLAYED", frozenset({"LHE"}))
    horse = find_rotation("HORSE")
    assert [g.code for g in horse.games] == ["O8", "RZ", "7S", "7S8"] and horse.skipped == ("LHE",)
    assert "LHE is not a game here yet and is skipped" in horse.describe()


def test_single_games_and_lists_of_games() -> None:
    razz = find_rotation("razz")
    assert [g.code for g in razz.games] == ["RZ"] and not razz.mixed and razz.describe() == "RZ"
    assert not razz.uses_button and razz.max_seats == 8
    assert find_rotation("O8").uses_button and find_rotation("O8").max_seats == 10
    mixed = find_rotation("stud, O8")
    assert mixed.name == "7S,O8" and mixed.max_seats == 8 and mixed.uses_button


@pytest.mark.parametrize("name", ["", "  ", "7S,,RZ", "7S,"])
def test_a_rotation_without_games_is_refused(name: str) -> None:
    with pytest.raises(RotationError):
        find_rotation(name)


def test_unknown_games_are_refused_except_those_not_played_yet(monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(UnknownGameError, match="'razzz'"):
        Rotation("typo", ("stud", "razzz"))
    with pytest.raises(UnknownGameError, match="'draw'"):
        find_rotation("draw")
    assert find_rotation("holdem").games == (GAMES["LHE"],)
    assert frozenset() == NOT_YET_PLAYED
    monkeypatch.setattr(rotation_module, "NOT_YET_PLAYED", frozenset({"DRAW"}))
    with pytest.raises(RotationError, match="no game the room plays"):
        Rotation("later", ("draw",))
    for bad in (0, -1, True):
        with pytest.raises(RotationError):
            find_rotation("HORSE", hands_per_game=bad)


def test_docstring_examples() -> None:
    result = doctest.testmod(rotation_module)
    assert result.attempted > 0 and result.failed == 0
