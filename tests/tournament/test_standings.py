"""The finishing order: busts of one hand by their starting stacks, equal stacks tied, hand for
hand across tables (R-TOURNAMENT-FINISH-ORDER, R-TOURNAMENT-HAND-FOR-HAND)."""

from __future__ import annotations

import doctest

import pytest

import studpoker.tournament.standings as standings_module
from studpoker.tournament.standings import Bust, Finish, Standings, StandingsError, bust_groups


def test_players_busting_in_one_hand_finish_by_their_stacks_at_its_start() -> None:
    standings = Standings(6)
    finishes = standings.bust([Bust(1, 200, 1, 1), Bust(2, 900, 1, 2), Bust(3, 450, 1, 3)])
    assert [(f.player, f.place, f.tied) for f in finishes] == [(2, 4, 1), (3, 5, 1), (1, 6, 1)]
    assert standings.remaining == 3


def test_equal_stacks_tie_and_share_the_places() -> None:
    standings = Standings(6)
    finishes = standings.bust([Bust(1, 300, 1, 5), Bust(2, 300, 1, 2), Bust(3, 700, 1, 3)])
    assert [(f.player, f.place, f.tied) for f in finishes] == [(3, 4, 1), (2, 5, 2), (1, 5, 2)]
    assert list(finishes[1].places) == [5, 6]
    standings.bust([Bust(4, 100)])
    standings.bust([Bust(5, 100)])
    assert standings.win(6) == Finish(6, 1)
    assert standings.complete
    assert [(f.place, f.player) for f in standings.finishes] == [
        (1, 6),
        (2, 5),
        (3, 4),
        (4, 3),
        (5, 2),
        (5, 1),
    ]


def test_hand_for_hand_busts_at_different_tables_bust_together() -> None:
    table_1 = [Bust(1, 500, table=1, seat=3)]
    table_2 = [Bust(2, 800, table=2, seat=1), Bust(3, 500, table=2, seat=6)]
    assert bust_groups([table_1, [], table_2], hand_for_hand=False) == [table_1, table_2]
    assert bust_groups([table_1, [], table_2], hand_for_hand=True) == [[*table_1, *table_2]]
    assert bust_groups([[], []], hand_for_hand=True) == []
    standings = Standings(8)
    finishes = standings.bust(bust_groups([table_1, table_2], hand_for_hand=True)[0])
    assert [(f.player, f.place, f.tied) for f in finishes] == [(2, 6, 1), (1, 7, 2), (3, 7, 2)]


def test_impossible_busts_are_refused_and_change_nothing() -> None:
    standings = Standings(3)
    with pytest.raises(StandingsError, match="someone must win"):
        standings.bust([Bust(1, 10), Bust(2, 10), Bust(3, 10)])
    with pytest.raises(StandingsError, match="only once"):
        standings.bust([Bust(1, 10), Bust(1, 10)])
    assert standings.remaining == 3 and standings.finishes == ()
    standings.bust([Bust(1, 10)])
    with pytest.raises(StandingsError, match="only once"):
        standings.bust([Bust(1, 10)])
    with pytest.raises(StandingsError, match="one player is left"):
        standings.win(2)
    standings.bust([Bust(2, 10)])
    with pytest.raises(StandingsError, match="already out"):
        standings.win(1)
    with pytest.raises(StandingsError):
        Standings(1)
    assert standings.bust([]) == ()


def test_docstring_examples() -> None:
    result = doctest.testmod(standings_module)
    assert result.attempted > 0 and result.failed == 0
