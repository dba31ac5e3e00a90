"""The board games' button at a tournament table: how it moves, the blinds it makes, and the
worst seat for a player moved in (R-MIXED-BUTTON, R-TOURNAMENT-BALANCE)."""

from __future__ import annotations

import doctest

import pytest

import studpoker.tournament.positions as positions_module
from studpoker.tournament.positions import (
    blinds,
    clockwise_after,
    hands_until_big_blind,
    next_big_blind,
    next_button,
    worst_seat,
)


def test_the_button_moves_one_player_a_hand_over_empty_seats() -> None:
    occupied = [1, 3, 4, 8]
    buttons = [next_button(None, occupied)]
    for _ in range(5):
        buttons.append(next_button(buttons[-1], occupied))
    assert buttons == [1, 3, 4, 8, 1, 3]
    assert next_button(5, occupied) == 8  # the last button's seat emptied: the next player on
    assert blinds(8, occupied) == (1, 3) and blinds(1, [1, 8]) == (1, 8)
    assert next_big_blind(3, occupied) == 1  # button 4, small blind 8, big blind 1
    assert clockwise_after(8, occupied) == 1
    with pytest.raises(ValueError):
        clockwise_after(1, [])


def test_hands_until_the_big_blind() -> None:
    occupied = [1, 2, 5, 6]  # next button 1: blinds 2 and 5
    assert [hands_until_big_blind(None, occupied, s) for s in occupied] == [2, 3, 0, 1]
    with pytest.raises(ValueError, match="seat 3 is empty"):
        hands_until_big_blind(None, occupied, 3)


def test_the_worst_seat_is_the_next_big_blind_never_the_small_blind() -> None:
    # button 1, small blind 2, big blind 5: a player in 3 or 4 posts the next big blind alone
    assert worst_seat(None, [1, 2, 5, 6], [3, 4, 7, 8]) == 3
    # button 1, small blind 3, big blind 4: seat 2 would be the small blind; seat 5 posts soonest
    assert worst_seat(None, [1, 3, 4], [2, 5, 6]) == 5
    assert worst_seat(None, [1, 3, 4], [2]) == 2  # the small blind only when nothing else is free
    assert worst_seat(4, [1, 3, 4], [6, 7]) == 6  # button 1 again: 6 before 7
    assert worst_seat(None, [], [4, 2]) == 2
    with pytest.raises(ValueError):
        worst_seat(None, [1, 2], [])


def test_docstring_examples() -> None:
    result = doctest.testmod(positions_module)
    assert result.attempted > 0 and result.failed == 0
