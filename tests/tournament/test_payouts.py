"""The payout table by field size, amounts in whole units adding up to the pool, ties sharing
(R-TOURNAMENT-PAYOUTS, R-TOURNAMENT-TIE-PAYOUT)."""

from __future__ import annotations

import doctest
from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

import studpoker.tournament.payouts as payouts_module
from studpoker.tournament.payouts import PayoutError, paid_places, payout_shares, prize_amounts, split_ties
from studpoker.tournament.standings import Finish


def test_the_table_by_field_size() -> None:
    percent = {n: [int(s * 100) for s in payout_shares(n)] for n in (2, 3, 4, 6, 7, 10)}
    assert percent == {2: [100], 3: [100], 4: [65, 35], 6: [65, 35], 7: [50, 30, 20], 10: [50, 30, 20]}
    assert [paid_places(n) for n in (11, 23, 24, 50, 100, 200)] == [3, 3, 4, 8, 15, 30]
    shares = payout_shares(100)
    assert shares[0] / shares[1] == 2 and shares[0] / shares[14] == 15  # place i in proportion to 1/i
    assert round(float(shares[0]), 3) == 0.301 and round(float(payout_shares(200)[0]), 3) == 0.25


@given(entrants=st.integers(2, 400), pool=st.integers(0, 10**9))
def test_amounts_add_up_to_the_pool_with_odd_units_to_the_top(entrants: int, pool: int) -> None:
    amounts = prize_amounts(entrants, pool)
    assert sum(amounts) == pool
    assert list(amounts) == sorted(amounts, reverse=True)
    extra = [a - int(pool * s) for a, s in zip(amounts, payout_shares(entrants), strict=True)]
    assert set(extra) <= {0, 1} and extra == sorted(extra, reverse=True)  # one each, from the top
    assert sum(payout_shares(entrants), Fraction(0)) == 1


def test_a_tie_shares_the_places_it_spans_and_its_odd_units_go_in_table_and_seat_order() -> None:
    amounts = prize_amounts(9, 1003)
    assert amounts == (502, 301, 200)
    tie = [Finish(4, 2, tied=2, table=2, seat=1), Finish(7, 2, tied=2, table=1, seat=6), Finish(1, 1)]
    assert split_ties(tie, amounts) == {7: 251, 4: 250, 1: 502}  # table 1 before table 2
    bubble = [Finish(1, 1), Finish(2, 2), Finish(3, 3, tied=2), Finish(5, 3, tied=2, seat=2)]
    assert split_ties(bubble, amounts) == {1: 502, 2: 301, 3: 100, 5: 100}  # 3rd and 4th: 200 + 0
    assert split_ties([Finish(8, 5, tied=3), Finish(9, 5, tied=3), Finish(6, 5, tied=3)], amounts) == {
        6: 0,
        8: 0,
        9: 0,
    }


def test_bad_fields_pools_and_ties_are_refused() -> None:
    for entrants in (1, 0, True, 2.0):
        with pytest.raises(PayoutError):
            payout_shares(entrants)  # type: ignore[arg-type]
    for pool in (-1, 1.5, False):
        with pytest.raises(PayoutError):
            prize_amounts(9, pool)  # type: ignore[arg-type]
    with pytest.raises(PayoutError, match="shared by 2 players, but 1"):
        split_ties([Finish(1, 2, tied=2)], (60, 40))


def test_docstring_examples() -> None:
    result = doctest.testmod(payouts_module)
    assert result.attempted > 0 and result.failed == 0
