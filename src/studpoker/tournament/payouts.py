"""Payouts: how many places a field pays, each place's share, and the amounts in whole units.

The standard table (docs/tournaments.md#payouts, R-TOURNAMENT-PAYOUTS):

* 2 or 3 entrants: the winner takes all (a 3-handed sit-and-go is too short to pay two);
* 4 to 6: 65 / 35, the short-handed sit-and-go table;
* 7 to 10: 50 / 30 / 20, the full-ring sit-and-go table;
* 11 or more: about 15 % of the field paid (``round(0.15 n)``, at least 3), place ``i`` in
  proportion to ``1 / i``: a harmonic curve, smooth from place to place, that gives the winner
  55 % with 3 paid, 30 % of the pool at 100 entrants and 25 % at 200, and the last paid place
  twice the buy-in at 100 entrants, 1.7 times at 200, and more than the buy-in up to about 2,900.

Amounts are whole units that add up to the pool exactly: each place gets its share rounded
down, and the units left (fewer than the places paid) go one each to the best places, first
place first. Amounts never grow down the table.

>>> prize_amounts(9, 1003)
(502, 301, 200)
>>> split_ties([Finish(1, 2, tied=2), Finish(2, 2, tied=2), Finish(3, 1)], (502, 301, 200))
{1: 251, 2: 250, 3: 502}
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from fractions import Fraction

from .seating import PlayerId
from .standings import Finish

_FIXED: tuple[tuple[int, tuple[int, ...]], ...] = (
    (3, (100,)),
    (6, (65, 35)),
    (10, (50, 30, 20)),
)  # (largest field, percentages by place)
CURVE_SHARE_PAID = Fraction(15, 100)


class PayoutError(ValueError):
    """Raised for a field or a pool that cannot be paid (fewer than 2 entrants, a negative pool)."""


def payout_shares(entrants: int) -> tuple[Fraction, ...]:
    """Each paid place's share of the pool, best first; they add up to 1."""
    if isinstance(entrants, bool) or not isinstance(entrants, int) or entrants < 2:
        raise PayoutError(f"a tournament has 2 entrants or more, not {entrants!r}")
    for largest, percentages in _FIXED:
        if entrants <= largest:
            return tuple(Fraction(p, 100) for p in percentages)
    paid = max(3, int(CURVE_SHARE_PAID * entrants + Fraction(1, 2)))
    weights = [Fraction(1, place) for place in range(1, paid + 1)]
    total = sum(weights, Fraction(0))
    return tuple(w / total for w in weights)


def paid_places(entrants: int) -> int:
    return len(payout_shares(entrants))


def prize_amounts(entrants: int, pool: int) -> tuple[int, ...]:
    """The amount of each paid place, best first, in whole units adding up to ``pool``."""
    if isinstance(pool, bool) or not isinstance(pool, int) or pool < 0:
        raise PayoutError(f"the prize pool must be a whole number of units 0 or more, not {pool!r}")
    shares = payout_shares(entrants)
    amounts = [int(pool * share) for share in shares]  # rounded down: shares are positive
    for place in range(pool - sum(amounts)):  # fewer left than places: one each from the top
        amounts[place] += 1
    return tuple(amounts)


def split_ties(finishes: Sequence[Finish], amounts: Sequence[int]) -> dict[PlayerId, int]:
    """What each finisher is paid: a tie shares the amounts of the places it spans equally; the
    units left go one each to the tied players in table and seat order (decided here).

    ``finishes`` lists every finisher, ties included (each with his best place and the tie's
    size); unpaid places are worth 0.
    """
    groups: dict[tuple[int, int], list[Finish]] = {}
    for finish in finishes:
        groups.setdefault((finish.place, finish.tied), []).append(finish)
    paid: dict[PlayerId, int] = {}
    for (place, tied), group in groups.items():
        if len(group) != tied:
            raise PayoutError(f"place {place} is shared by {tied} players, but {len(group)} are listed")
        total = sum(amounts[p - 1] for p in range(place, place + tied) if p <= len(amounts))
        each, left = divmod(total, tied)
        for index, finish in enumerate(sorted(group, key=lambda f: (f.table, f.seat, f.player))):
            paid[finish.player] = each + (1 if index < left else 0)
    return paid


def total_paid(paid: Mapping[PlayerId, int]) -> int:
    return sum(paid.values())
