"""The hand: the public API of one hand, from the antes to the awards (docs/engine.md).

:class:`Hand` holds the hand's :class:`~studpoker.engine.hand_state.HandState` and answers
from it; the parts do the work on that state: :mod:`~studpoker.engine.rounds` (forced bets, the
start of each betting round), :mod:`~studpoker.engine.betting` (the round: options, actions,
the clock), :mod:`~studpoker.engine.streets` (dealing, run-outs, the end of the hand),
:mod:`~studpoker.engine.showdown` and :mod:`~studpoker.engine.views`. Internally players are
indexed 0..n-1 in seat order; the public API speaks in table seat numbers. Events are kept as
plain tuples and turned into :class:`~studpoker.engine.events.Event` records when asked for.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

from studpoker.cards import Card, Deck
from studpoker.engine.actions import LegalActions
from studpoker.engine.betting import Betting
from studpoker.engine.events import Event
from studpoker.engine.forced import ForcedBets
from studpoker.engine.hand_state import HandState
from studpoker.engine.pots import Pot
from studpoker.engine.result import HandResult
from studpoker.engine.rounds import post_antes
from studpoker.engine.seating import check_table
from studpoker.engine.streets import next_street
from studpoker.engine.views import HandView, build_view
from studpoker.games import Game, HouseRules, Stakes, get_game


class Hand(Betting):
    """One hand of a game, from the antes to the awards. See docs/engine.md.

    ``seats`` lists ``(seat_number, stack)`` in clockwise order (ascending seat numbers 1..10).
    The hand deals at once up to the first decision; then call :meth:`apply` (or
    :meth:`timeout`) for the seat in :attr:`to_act` until :attr:`is_over`.

    ``forced`` posts per-seat antes and Omaha blinds in place of the stakes' ones
    (:class:`~studpoker.engine.forced.ForcedBets`). ``concede`` is for replaying a history that
    does not know some hands and has them mucked: at a showdown those seats muck unseen and win
    nothing (not for live play, where a hand that could win is shown); a pot that only such
    hands contest is still decided on their cards as dealt, so a replay must refuse it.
    """

    __slots__ = ("_initial_stacks", "_result")  # the state is Betting's ``_state``

    def __init__(
        self,
        game: Game | str,
        stakes: Stakes,
        seats: Sequence[tuple[int, int]],
        *,
        deck: Deck | None = None,
        house: HouseRules | None = None,
        button: int | None = None,
        forced: ForcedBets | None = None,
        concede: Collection[int] = (),
    ) -> None:
        game = get_game(game) if isinstance(game, str) else game
        house = game.default_house if house is None else house
        blinds_given = forced is not None and forced.blinds is not None
        check_table(game, stakes, seats, button, blinds_given=blinds_given)  # then seats are (int, int)
        deck = Deck() if deck is None else deck
        s = self._state = HandState(game, stakes, house, seats, deck, button, forced, concede)
        self._result: HandResult | None = None
        self._initial_stacks: dict[int, int] | None = None  # see initial_stacks
        s.log.append(s.plan.hand_start)
        if stakes.ante or s.antes is not None:
            post_antes(s)
        next_street(s)

    # ----------------------------------------------------------------- the table

    @property
    def game(self) -> Game:
        return self._state.game

    @property
    def stakes(self) -> Stakes:
        return self._state.stakes

    @property
    def house(self) -> HouseRules:
        return self._state.house

    @property
    def deck(self) -> Deck:
        return self._state.deck

    @property
    def button(self) -> int | None:
        return self._state.button

    @property
    def forced(self) -> ForcedBets | None:
        """The irregular forced bets the hand was dealt with, or None."""
        return self._state.forced

    @property
    def seat_numbers(self) -> tuple[int, ...]:
        return self._state.seat_numbers

    # ----------------------------------------------------------------- events

    @property
    def events(self) -> tuple[Event, ...]:
        """Every event so far, in order, unredacted (the full history; never send it to a client)."""
        return self._state.eventlog.since(0)

    @property
    def version(self) -> int:
        """The version of the latest event."""
        return self._state.version()

    def events_for(self, seat: int | None, after_version: int = 0) -> tuple[Event, ...]:
        """The events ``seat`` may see (None: a spectator), with hidden cards replaced by None."""
        s = self._state
        if seat is not None:
            s.seat_index(seat)  # raises for a seat not in the hand
        return s.eventlog.visible_to(seat, after_version)

    # ----------------------------------------------------------------- public state

    @property
    def initial_stacks(self) -> dict[int, int]:
        """The stacks each seat had before the antes and blinds (made on first use)."""
        if self._initial_stacks is None:
            s = self._state
            self._initial_stacks = dict(zip(s.seat_numbers, s.starting, strict=True))
        return self._initial_stacks

    @property
    def to_act(self) -> int | None:
        """The seat number to act, or None when the hand is over."""
        s = self._state
        i = s.to_act
        return None if i is None else s.seat_numbers[i]

    @property
    def is_over(self) -> bool:
        return self._state.ending is not None

    @property
    def result(self) -> HandResult:
        """The outcome; built on first use (simulations finish hands without reading it)."""
        if self._result is None:
            ending = self._state.ending
            if ending is None:
                raise ValueError("the hand is not over yet")
            build, facts = ending
            self._result = build(self._state, facts)
        return self._result

    @property
    def street(self) -> str:
        return self._state.street_name()

    @property
    def contributions(self) -> dict[int, int]:
        """Chips each seat has put into this hand's pots (after any uncalled bet came back)."""
        return self._state.contributions()

    @property
    def stacks(self) -> dict[int, int]:
        """Chips each seat has behind (not in the pot)."""
        s = self._state
        return dict(zip(s.seat_numbers, s.stacks, strict=True))

    @property
    def board(self) -> tuple[Card, ...]:
        return tuple(self._state.board)

    def pots(self) -> tuple[Pot, ...]:
        """The pots as they stand (bets of the current round included)."""
        return self._state.pots()

    def cards_of(self, seat: int) -> tuple[tuple[Card, ...], tuple[Card, ...]]:
        """(down cards, up cards) of a seat: the full truth; views decide who may see them."""
        s = self._state
        i = s.seat_index(seat)
        return tuple(s.down[i]), tuple(s.up[i])

    def view(self, seat: int | None = None) -> HandView:
        """What ``seat`` may see (None: a spectator). See :class:`~studpoker.engine.views.HandView`."""
        if seat is not None:
            self._state.seat_index(seat)  # raises for a seat not in the hand
        result = self.result if self.is_over else None
        to_act = self.to_act
        legal = self.legal_actions() if to_act is not None and to_act == seat else None
        return build_view(self._state, seat, result=result, legal=legal)

    # ----------------------------------------------------------------- checking the shortcuts

    @property
    def deep_round(self) -> bool:
        """Whether this betting round takes the deep-stack shortcut (docs/engine.md, "Speed"):
        every stack covers the most the round can cost and nobody is all-in or protected."""
        return self._state.deep

    def legal_actions_in_full(self) -> LegalActions:
        """:meth:`legal_actions` worked out with every all-in check, the deep-round shortcut
        left out: for tests that the shortcut changes nothing. The hand is left as it was."""
        s = self._state
        deep, legal = s.deep, s.legal
        s.deep, s.legal = False, None
        try:
            return self.legal_actions()
        finally:
            s.deep, s.legal = deep, legal

    # ----------------------------------------------------------------- replaying histories

    @property
    def unknown_cards(self) -> frozenset[Card]:
        """The stand-ins of a replayed history's unknown cards (see :meth:`forget_cards`); empty
        when every card of the hand is known."""
        return self._state.unknown_cards

    def forget_cards(self, cards: Collection[Card]) -> None:
        """Replaying a history with unknown cards (PHH ``??``), dealt as stand-ins: from now on
        the events and the views carry ``None`` for them, as for a card a seat may not see, so
        every history written from this hand keeps them unknown."""
        s = self._state
        unknown = frozenset(cards)
        s.unknown_cards = s.unknown_cards | unknown
        s.eventlog.forget(unknown)

    def __repr__(self) -> str:
        state = "over" if self.is_over else f"{self.street} street, seat {self.to_act} to act"
        return f"<Hand {self.game.code} {len(self.seat_numbers)} players, {state}, version {self.version}>"
