"""Who is dealt into a board game's hand, and what the blinds owed make each player post
(docs/rules.md: R-O8-MOVING-BUTTON, R-O8-NEW-PLAYER-WAITS, R-O8-POST-TO-COME-IN,
R-O8-MISSED-BLINDS, R-O8-SHORT-HANDED-NO-DEBT).

A seat owes the big blind when it sits down (a new player) or when the big blind passed it while
it sat out, and owes the small blind too when the small blind passed it. A seat that owes is dealt
in when the big blind reaches it (and then owes nothing), or at once when its player chose to
post: the big blind live and the owed small blind dead. Pure functions of the seats, the last
button and the stakes: the dealer calls :func:`plan_deal` before each hand and
:func:`note_missed_blinds` once it is dealt.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from studpoker.engine.forced import ForcedBets
from studpoker.games import Stakes

from .seats import SeatState

# Fewer regular players than this and nobody waits or posts: every willing seat is dealt in and
# its debts are dropped (R-O8-SHORT-HANDED-NO-DEBT; heads-up the blinds would never reach him).
_MIN_REGULARS = 3


@dataclass(frozen=True, slots=True)
class DealPlan:
    """The seats dealt in (seat order), the button, the blinds' seats and the extra posts."""

    players: list[SeatState]
    button: int | None
    small_blind: int | None
    big_blind: int | None
    forced: ForcedBets | None


def next_button(previous: int | None, seats: Sequence[int]) -> int:
    """The button moves to the next seat dealt in after the last one (the first seat at first)."""
    if previous is None:
        return seats[0]
    later = [s for s in seats if s > previous]
    return later[0] if later else seats[0]


def blind_seats(button: int, seats: Sequence[int]) -> tuple[int, int]:
    """The small and the big blind's seats of a hand dealt to ``seats`` (heads-up the button
    posts the small blind: R-O8-HEADS-UP)."""
    order = sorted(seats)
    b = order.index(button)
    n = len(order)
    if n == 2:
        return order[b], order[(b + 1) % n]
    return order[(b + 1) % n], order[(b + 2) % n]


def owes(state: SeatState) -> bool:
    """He may not be dealt in without posting until the big blind reaches him."""
    return state.owes_big_blind


def amount_owed(state: SeatState, stakes: Stakes) -> tuple[int, int]:
    """(dead, live): what he posts to be dealt in at once."""
    if not state.owes_big_blind:
        return 0, 0
    return (stakes.small_blind if state.owes_small_blind else 0), stakes.big_blind


def plan_deal(eligible: list[SeatState], last_button: int | None, stakes: Stakes) -> DealPlan:
    """Who of ``eligible`` (willing and with chips, seat order) is dealt in, and the posts."""
    regulars = [s for s in eligible if not owes(s)]
    if len(regulars) < _MIN_REGULARS:
        return _positions(eligible, last_button, forced=None)
    waiting = [s for s in eligible if owes(s)]
    base = _positions(regulars, last_button, forced=None)
    assert base.button is not None and base.small_blind is not None and base.big_blind is not None
    dealt = list(regulars)
    # The big blind reaches the first waiting seat between the small and the big blind.
    between = [s for s in waiting if _clockwise_between(s.seat, base.small_blind, base.big_blind)]
    if between:
        small = base.small_blind
        first = min(between, key=lambda s: (s.seat - small) % 11)  # seats 1-10
        dealt.append(first)
        waiting.remove(first)
    seats_now = sorted(s.seat for s in dealt)
    where = _where(seats_now, last_button)
    posters = [
        s for s in waiting if s.post_blind_now and _where(sorted([*seats_now, s.seat]), last_button) == where
    ]
    # A poster who would be the button or a blind this hand waits one more: nobody posts twice.
    if not posters:
        return _positions(sorted(dealt, key=lambda s: s.seat), last_button, forced=None)
    button, small, big = where
    blinds = {small: stakes.small_blind, big: stakes.big_blind}
    dead: dict[int, int] = {}
    for s in posters:
        blinds[s.seat] = stakes.big_blind
        if s.owes_small_blind:
            dead[s.seat] = stakes.small_blind
    forced = ForcedBets(antes=dead or None, blinds=blinds, big_blind=big, dead_blinds=frozenset(dead))
    players = sorted([*dealt, *posters], key=lambda s: s.seat)
    return DealPlan(players, button, small, big, forced)


def note_missed_blinds(
    seats: Mapping[int, SeatState], plan: DealPlan, previous: tuple[int, int] | None
) -> None:
    """The hand is dealt: those in it owe nothing more; a seat not in it that the big (small)
    blind passed since ``previous`` (the last hand's small and big blind seats) owes it."""
    dealt = {s.seat for s in plan.players}
    for state in plan.players:
        state.owes_big_blind = state.owes_small_blind = state.post_blind_now = False
        state.dealt_before = True
    if previous is None or plan.small_blind is None or plan.big_blind is None:
        return
    last_small, last_big = previous
    for seat, state in seats.items():
        if seat in dealt:
            continue
        if _clockwise_between(seat, last_big, plan.big_blind):
            state.owes_big_blind = True
        # A new player owes only the big blind (R-O8-NEW-PLAYER-WAITS).
        if state.dealt_before and _clockwise_between(seat, last_small, plan.small_blind):
            state.owes_small_blind = True


def _positions(players: list[SeatState], last_button: int | None, *, forced: ForcedBets | None) -> DealPlan:
    seats = [s.seat for s in players]
    if len(seats) < 2:
        return DealPlan(players, None, None, None, forced)
    button, small, big = _where(seats, last_button)
    return DealPlan(players, button, small, big, forced)


def _where(seats: list[int], last_button: int | None) -> tuple[int, int, int]:
    button = next_button(last_button, seats)
    return (button, *blind_seats(button, seats))


def _clockwise_between(seat: int, start: int, end: int) -> bool:
    """``seat`` is passed going clockwise from ``start`` (excluded) to ``end`` (included)."""
    if start == end:  # the blind did not move (heads-up to heads-up): it passed nobody
        return False
    if start < end:
        return start < seat <= end
    return seat > start or seat <= end


class OwedBlinds:
    """A table's blinds between hands: the last hand's blind seats, and the plan of the next."""

    def __init__(self, seats: Mapping[int, SeatState], stakes: Stakes, *, has_button: bool) -> None:
        self.seats = seats
        self.stakes = stakes
        self.has_button = has_button
        self.last_blinds: tuple[int, int] | None = None

    def plan(self, eligible: list[SeatState], last_button: int | None) -> DealPlan:
        """Who is dealt in and the extra posts (stud: every eligible seat, no posts)."""
        if not self.has_button:
            return DealPlan(eligible, None, None, None, None)
        return plan_deal(eligible, last_button, self.stakes)

    def dealt(self, plan: DealPlan) -> bool:
        """The hand of ``plan`` is dealt: debts paid or newly owed. Whether any seat changed."""
        if not self.has_button:
            return False
        before = [_debt(s) for _, s in sorted(self.seats.items())]
        note_missed_blinds(self.seats, plan, self.last_blinds)
        if plan.small_blind is not None and plan.big_blind is not None:
            self.last_blinds = (plan.small_blind, plan.big_blind)
        return before != [_debt(s) for _, s in sorted(self.seats.items())]


def _debt(state: SeatState) -> tuple[bool, bool, bool]:
    return state.owes_big_blind, state.owes_small_blind, state.post_blind_now
