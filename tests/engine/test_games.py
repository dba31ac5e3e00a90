"""Games, house switches and stakes (docs/rules.md: "Games", "Money and betting", "House switches")."""

from __future__ import annotations

import pytest

from studpoker.games import GAMES, HouseRuleError, HouseRules, Stakes, StakesError, UnknownGameError, get_game


def test_five_games_by_code() -> None:
    assert set(GAMES) == {"7S", "7S8", "RZ", "O8", "LHE"}
    assert get_game("7s8").code == "7S8"
    assert get_game("RZ").hand_types == ("razz",)
    assert get_game("7S8").hand_types == ("high", "low8")
    assert get_game("O8").kind == "omaha"
    assert get_game("O8").max_players == 10
    assert get_game("7S").max_players == 8
    assert get_game("limit holdem").code == "LHE" and get_game("LHE").hand_types == ("high",)
    assert get_game("LHE").kind == "holdem" and get_game("LHE").hole_cards == 2
    assert get_game("LHE").max_players == 10


def test_unknown_game_names_known_codes() -> None:
    with pytest.raises(UnknownGameError, match="7S, 7S8, RZ, O8, LHE"):
        get_game("XX")
    assert issubclass(UnknownGameError, ValueError)


def test_bet_sizes_per_street() -> None:
    stud = [s.big_bet for s in get_game("7S").streets]
    assert stud == [False, False, True, True, True]
    omaha = [s.big_bet for s in get_game("O8").streets]
    assert omaha == [False, False, True, True]


def test_stakes_from_bets_seed_example() -> None:
    stakes = Stakes.from_bets(500, 1000, "7S")
    assert (stakes.ante, stakes.bring_in, stakes.small_bet, stakes.big_bet) == (100, 250, 500, 1000)
    assert Stakes.from_bets(100, 200, "7S", ante=25).ante == 25
    omaha = Stakes.from_bets(10, 20, "O8")
    assert (omaha.small_blind, omaha.big_blind, omaha.ante, omaha.bring_in) == (5, 10, 0, 0)
    assert Stakes.from_bets(5, 10, "O8").small_blind == 2  # rounded down


def test_stakes_are_integers() -> None:
    with pytest.raises(StakesError):
        Stakes(small_bet=10, big_bet=20, ante=1.5)  # type: ignore[arg-type]
    with pytest.raises(StakesError):
        Stakes.from_bets(10, 20, "7S", blind=3)


def test_house_defaults_per_game() -> None:
    assert get_game("7S").default_house.fourth_street_double_bet
    assert not get_game("7S8").default_house.fourth_street_double_bet
    assert not get_game("RZ").default_house.fourth_street_double_bet
    house = get_game("7S").default_house
    assert (house.max_raises, house.heads_up_uncapped, house.bring_in_tie) == (3, True, "suit")
    assert (house.burn_cards, house.showdown_first, house.odd_chip) == (False, "seat", "high_card_by_suit")
    assert get_game("O8").default_house.odd_chip == "seat_order"


def test_house_switch_overrides() -> None:
    house = HouseRules().with_overrides(
        [
            "fourth_street_double_bet=on",
            "heads_up_uncapped=off",
            "max_raises=4",
            "bring_in_tie=position",
            "burn_cards=on",
            "showdown_first=board",
            "odd_chip=seat_order",
        ]
    )
    assert house == HouseRules(
        fourth_street_double_bet=True,
        heads_up_uncapped=False,
        max_raises=4,
        bring_in_tie="position",
        burn_cards=True,
        showdown_first="board",
        odd_chip="seat_order",
    )


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("max_raises", "NAME=VALUE"),
        ("colour=red", "unknown house switch 'colour'"),
        ("max_raises=lots", "whole number"),
        ("burn_cards=maybe", "on or off"),
        ("odd_chip=dealer", "high_card_by_suit | seat_order"),
    ],
)
def test_house_switch_errors(text: str, message: str) -> None:
    with pytest.raises(HouseRuleError, match=message):
        HouseRules().with_overrides([text])


def test_pokerkit_compat() -> None:
    house = HouseRules.pokerkit_compat("7S")
    assert not house.heads_up_uncapped
    assert house.odd_chip == "seat_order"
    assert house.showdown_first == "board"
    assert house.fourth_street_double_bet  # PokerKit hands never use it: they stay legal
