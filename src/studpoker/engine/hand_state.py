"""The hand's state: every fact of one hand that the engine's parts read and write, in one record.

:class:`~studpoker.engine.state.Hand` holds a :class:`HandState` and answers the public API from
it; the parts it calls (betting, rounds, streets, showdown, views) are given the state, not the
hand, so that none of them needs ``Hand``. The fields are the engine's own: callers read
``Hand``'s properties, which copy the lists they return.

Players are indexed 0..n-1 in seat order (clockwise from seat 1); every per-player list is
indexed that way, and the public API speaks in table seat numbers.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from operator import itemgetter
from typing import Any

from studpoker.cards import Card, Deck
from studpoker.engine.actions import LegalActions
from studpoker.engine.events import EventLog, RawRecord
from studpoker.engine.forced import ForcedBets
from studpoker.engine.options import NO_OFFER, Offer
from studpoker.engine.plan import GamePlan, StreetPlan, plan_of
from studpoker.engine.pots import Pot, build_pots
from studpoker.engine.result import HandResult
from studpoker.engine.showing import (
    HIGH_RANK_BY_SIGNATURE,
    LOW_RANK_BY_SIGNATURE,
    high_signature_rank,
    low_signature_rank,
)
from studpoker.games import Game, HouseRules, Stakes

# How a finished hand builds its result when first asked: (builder, the facts it needs); the
# builder is given the state then (holding it in the facts would make a reference cycle).
Ending = tuple[Callable[["HandState", Any], HandResult], Any]

# Tables shared by every hand (read only), by table size: clockwise orders, all-False and
# all-zero rows, every player index.
_AFTER: dict[int, tuple[tuple[int, ...], ...]] = {
    n: tuple(tuple((i + step) % n for step in range(1, n)) for i in range(n)) for n in range(2, 11)
}
_NOBODY: dict[int, list[bool]] = {n: [False] * n for n in range(2, 11)}
_ZEROS: dict[int, list[int]] = {n: [0] * n for n in range(2, 11)}
_EVERYONE: dict[int, list[int]] = {n: list(range(n)) for n in range(2, 11)}
# Seat numbers -> {seat: player index}, shared by the hands at one set of seats (read only).
_INDEXES: dict[tuple[int, ...], dict[int, int]] = {}
_NONE: frozenset[int] = frozenset()
_SEAT, _STACK = itemgetter(0), itemgetter(1)  # of a (seat number, stack) pair


def _index_of(seat_numbers: tuple[int, ...]) -> dict[int, int]:
    index = _INDEXES.get(seat_numbers)
    if index is None:
        index = _INDEXES[seat_numbers] = {s: i for i, s in enumerate(seat_numbers)}
    return index


# A dataclass for the slots it makes from the fields, with an __init__ of its own: the one a
# dataclass writes takes each field by keyword (2.5 us, a third of a hand's whole set-up).
@dataclass(slots=True, init=False, eq=False, repr=False)
class HandState:
    """One hand's state (see the module docstring), before its first event: the seats already
    checked (``seating.check_table``). Slots: the hot paths read these fields once or twice per
    decision, and a slot is the cheapest attribute to read.

    Raises ForcedBetsError for forced bets this table cannot post, and ValueError for a
    conceding seat that is not dealt in.
    """

    # The table, fixed for the hand.
    game: Game
    plan: GamePlan
    stakes: Stakes
    house: HouseRules
    deck: Deck
    button: int | None
    forced: ForcedBets | None
    seat_numbers: tuple[int, ...]
    index: dict[int, int]  # seat number -> player index (shared by hands at these seats: read only)
    n: int
    stud: bool  # the plan's, read on the hot paths
    razz: bool
    streets: tuple[StreetPlan, ...]
    after: tuple[tuple[int, ...], ...]  # after[i]: the other players clockwise from i
    nobody: list[bool]  # [False] * n (shared, read only): clears ``acted`` in one slice assignment
    zeros: list[int]  # [0] * n (shared, read only)
    everyone: list[int]  # every player index (shared, read only)
    antes: list[int] | None  # per-seat forced bets (ForcedBets); None: the stakes'
    blinds: list[int] | None
    dead: dict[int, int] | None  # seat -> the per-seat ante he paid: dead money
    concede: frozenset[int]  # replays only: players whose unknown hands the history mucks
    # Per player.
    starting: tuple[int, ...]  # the stacks before the antes and blinds
    stacks: list[int]  # chips behind
    bets: list[int]  # chips in this betting round
    put: list[int]  # chips in this hand's pots (after any uncalled bet came back)
    folded: list[bool]
    in_hand: list[int]  # the players not folded, in seat order
    all_in: list[bool]
    cannot_act: list[bool]  # folded or all-in: one look-up on the hot paths
    protected: list[bool]  # all-in by the clock (disconnect protection)
    acted: list[bool]  # in this betting round
    down: list[list[Card]]
    up: list[list[Card]]
    up_signature: list[int]  # see showing.RANK_UNIT
    # The hand.
    eventlog: EventLog
    log: list[RawRecord]  # eventlog.raw, appended to directly on the hot paths
    board: list[Card]
    exposed: bool  # the hands are face up for an all-in run-out
    unknown_cards: frozenset[Card]  # see Hand.forget_cards
    street: int  # index into ``streets``; -1 before the first
    to_act: int | None
    bring_in_player: int | None
    final_aggressor: int | None  # the last bettor or raiser of the last round: shows first
    ending: Ending | None  # set when the hand ends (see Hand.result)
    # The betting round (set up by rounds.begin_round; see betting.py).
    unit: int  # this street's bet
    cap: int  # bets and raises a round allows: the bet (or completion) and house.max_raises
    current: int  # the bet to call
    level: int  # the last full bet or raise (or an all-in that counts as one)
    bet_count: int  # bets and raises toward the cap
    aggressor: int | None
    uncapped: bool  # the round began heads-up
    double: bool  # 7S 4th street after an open pair: the big bet may be made
    big_locked: bool  # ... and it was: every raise is big
    bring_in_due: bool
    deep: bool  # nobody can go all-in nor lose his turn to protection (Betting.legal_actions)
    offer: Offer  # the bet or raise open to a player who may still raise
    legal: LegalActions | None  # the current decision's options (None: not worked out yet)

    # Positional only: keywords to a class reach __init__ through a dict (0.4 % of a hand's time).
    def __init__(  # noqa: PLR0917
        self,
        game: Game,
        stakes: Stakes,
        house: HouseRules,
        seats: Sequence[tuple[int, int]],
        deck: Deck,
        button: int | None,
        forced: ForcedBets | None,
        concede: Collection[int],
        /,
    ) -> None:
        plan = self.plan = plan_of(game)
        self.game = game
        self.stakes = stakes
        self.house = house
        self.deck = deck
        self.button = button
        self.forced = forced
        n = self.n = len(seats)
        seat_numbers = self.seat_numbers = tuple(map(_SEAT, seats))
        self.index = _index_of(seat_numbers)
        self.stud = plan.stud
        self.razz = plan.razz
        self.streets = plan.streets
        self.after = _AFTER[n]
        self.nobody = _NOBODY[n]
        self.zeros = _ZEROS[n]
        self.everyone = _EVERYONE[n]
        self.antes = self.blinds = self.dead = None
        if forced is not None:
            forced.check(game, stakes, seat_numbers)
            self.antes = forced.seat_antes(seat_numbers)
            self.blinds = forced.seat_blinds(seat_numbers)
            if self.antes is not None:
                self.dead = {}
        self.concede = frozenset(self.seat_index(s) for s in concede) if concede else _NONE
        starting = self.starting = tuple(map(_STACK, seats))
        self.stacks = list(starting)
        self.bets = [0] * n
        self.put = [0] * n
        self.folded = [False] * n
        self.in_hand = _EVERYONE[n][:]
        self.all_in = [False] * n
        self.cannot_act = [False] * n
        self.protected = [False] * n
        self.acted = [False] * n
        self.down = [[] for _ in seats]
        self.up = [[] for _ in seats]
        self.up_signature = [0] * n
        eventlog = self.eventlog = EventLog()
        self.log = eventlog.raw
        self.board = []
        self.exposed = False
        self.unknown_cards = frozenset()
        self.street = -1
        self.to_act = self.bring_in_player = self.final_aggressor = None
        self.ending = None
        self.unit = stakes.small_bet
        self.cap = 1 + house.max_raises
        self.offer = NO_OFFER
        self.clear_round()

    def clear_round(self) -> None:
        """The betting round's amounts and flags before anybody bets (each street)."""
        self.current = 0
        self.level = 0
        self.bet_count = 0
        self.aggressor = None
        self.uncapped = False
        self.double = False
        self.big_locked = False
        self.bring_in_due = False
        self.deep = False
        self.legal = None

    def seat_index(self, seat: int) -> int:
        i = self.index.get(seat)
        if i is None:
            raise ValueError(f"seat {seat} is not in this hand; seats: {list(self.seat_numbers)}")
        return i

    def seats_of(self, players: list[int]) -> tuple[int, ...]:
        seats = self.seat_numbers
        return seats if players == self.everyone else tuple([seats[i] for i in players])

    def version(self) -> int:
        """The version of the latest event."""
        return len(self.log) + self.eventlog.extra

    def street_name(self) -> str:
        return self.streets[self.street].name

    def contributions(self) -> dict[int, int]:
        """Chips each seat has put into this hand's pots."""
        return dict(zip(self.seat_numbers, self.put, strict=True))

    def pots(self) -> tuple[Pot, ...]:
        """The pots as they stand (bets of the current round included)."""
        seats = self.seat_numbers
        return build_pots(self.contributions(), [seats[i] for i in self.in_hand], dead=self.dead)

    def best_showing(self) -> int:
        """The player still in whose up cards show best (stud); exact ties go to the lowest seat."""
        if self.razz:
            known, work_out = LOW_RANK_BY_SIGNATURE, low_signature_rank
        else:
            known, work_out = HIGH_RANK_BY_SIGNATURE, high_signature_rank
        signatures = self.up_signature
        best = -1
        best_rank = -1  # below every rank
        for i in self.in_hand:
            signature = signatures[i]
            rank = known.get(signature)
            if rank is None:
                rank = work_out(signature)
            if rank > best_rank:
                best, best_rank = i, rank
        return best

    def next_live(self, i: int, *, include_self: bool) -> int:
        """The first player from ``i`` clockwise (after it unless ``include_self``) not folded."""
        n = self.n
        start = 0 if include_self else 1
        for step in range(start, n + 1):
            j = (i + step) % n
            if not self.folded[j]:
                return j
        raise AssertionError("no live player")
