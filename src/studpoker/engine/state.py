"""The hand state machine: deal, forced bets, betting rounds, run-outs and the end of the hand.

Internally players are indexed 0..n-1 in seat order (clockwise from seat 1); the public API
speaks in table seat numbers. Events are kept as plain tuples and turned into
:class:`~studpoker.engine.events.Event` records when asked for (a hand creates many).
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence

from studpoker.cards import Card, Deck
from studpoker.engine.betting import Betting
from studpoker.engine.events import Event, EventKind, EventLog, RawEvent
from studpoker.engine.forced import ForcedBets
from studpoker.engine.pots import Pot, build_pots
from studpoker.engine.result import HandResult
from studpoker.engine.seating import check_table
from studpoker.engine.showdown import award_uncontested, showdown
from studpoker.engine.showing import (
    HIGH_BY_SIGNATURE,
    LOW_BY_SIGNATURE,
    RANK_UNIT,
    bring_in_table,
    high_signature_key,
    low_signature_key,
)
from studpoker.engine.views import HandView, build_view
from studpoker.games import Game, HouseRules, Stakes, get_game

_E_DEAL = EventKind.DEAL
_E_STREET = EventKind.STREET
_E_ANTE = EventKind.POST_ANTE
_E_BRING_IN = EventKind.BRING_IN_PLAYER

# Per-hand tables shared by every hand: clockwise orders by table size, bring-in keys by rule.
_AFTER: dict[int, tuple[tuple[int, ...], ...]] = {
    n: tuple(tuple((i + step) % n for step in range(1, n)) for i in range(n)) for n in range(2, 11)
}
_BRING_IN_KEYS = {
    (razz, by_suit): bring_in_table(razz=razz, by_suit=by_suit)
    for razz in (False, True)
    for by_suit in (False, True)
}

NOBODY = 0  # visibility of burnt cards: no seat may see them
_NONE: frozenset[int] = frozenset()


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

    __slots__ = ()  # the state is in Betting.__slots__

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
        self.game: Game = game
        self.stakes: Stakes = stakes
        self.house: HouseRules = game.default_house if house is None else house
        blinds_given = forced is not None and forced.blinds is not None
        check_table(game, stakes, seats, button, blinds_given=blinds_given)  # then seats are (int, int)
        self.deck: Deck = Deck() if deck is None else deck
        n = len(seats)
        self._n = n
        self.seat_numbers: tuple[int, ...] = tuple([s for s, _ in seats])
        self._index: dict[int, int] = {s: i for i, s in enumerate(self.seat_numbers)}
        self.forced: ForcedBets | None = forced
        self._antes: list[int] | None = None  # per-seat forced bets (ForcedBets); None: the stakes'
        self._blinds: list[int] | None = None
        self._dead: dict[int, int] | None = None  # seat -> the per-seat ante he paid: dead money
        if forced is not None:
            forced.check(game, stakes, self.seat_numbers)
            self._antes = forced.seat_antes(self.seat_numbers)
            self._blinds = forced.seat_blinds(self.seat_numbers)
            if self._antes is not None:
                self._dead = {}
        # Replays only: seats whose unknown hands the history mucks (see the class docstring).
        self._concede: frozenset[int] = frozenset(self._seat_index(s) for s in concede) if concede else _NONE
        self._unknown_cards: frozenset[Card] = frozenset()  # see forget_cards
        self.initial_stacks: dict[int, int] = dict(seats)
        self.button: int | None = button
        self._stud = game.kind == "stud"
        self._razz = game.first_to_act == "best_low_board"
        self._streets = game.streets
        self._after = _AFTER[n]
        self._nobody = [False] * n
        self._zeros = [0] * n
        self._stack = [c for _, c in seats]
        self._bet = [0] * n
        self._put = [0] * n
        self._folded = [False] * n
        self._allin = [False] * n
        self._cannot_act = [False] * n  # folded or all-in: one look-up on the hot paths
        self._protected = [False] * n
        self._acted = [False] * n
        self._down: list[list[Card]] = [[] for _ in range(n)]
        self._up: list[list[Card]] = [[] for _ in range(n)]
        self._up_signature = [0] * n  # see showing.RANK_UNIT
        self._board: list[Card] = []
        self._exposed = False
        self._eventlog = EventLog()
        self._log: list[RawEvent] = self._eventlog.raw  # appended to directly on the hot path
        self._log_event = self._eventlog.add
        self._street = -1
        self._to_act: int | None = None
        self._clear_round()
        self._offer = (0, 0, 0)
        self._final_aggressor: int | None = None
        self._leader: int | None = None
        self._bring_in_player: int | None = None
        self._result: HandResult | None = None
        self._result_of: Callable[[], HandResult] | None = None  # set when the hand ends
        self._unit = stakes.small_bet
        self._cap = 1 + self.house.max_raises
        self._live = n
        self._log.append((EventKind.HAND_START, None, None, None, None, None, None, False, None, game.code))
        self._start()

    # ----------------------------------------------------------------- setup

    def _start(self) -> None:
        ante = self.stakes.ante
        antes = self._antes
        dead = self._dead
        if ante or antes is not None:
            log = self._log.append
            stacks, put, allin, cannot_act = self._stack, self._put, self._allin, self._cannot_act
            for i, seat in enumerate(self.seat_numbers):
                if antes is not None:
                    ante = antes[i]
                    if not ante:
                        continue
                stack = stacks[i]
                paid = ante if ante < stack else stack
                stacks[i] = stack - paid
                put[i] = paid
                all_in = paid == stack
                if all_in:
                    allin[i] = cannot_act[i] = True
                if dead is not None:
                    dead[seat] = paid
                log((_E_ANTE, None, seat, None, None, paid, None, all_in, None, None))
        self._next_street()

    # ----------------------------------------------------------------- events

    @property
    def events(self) -> tuple[Event, ...]:
        """Every event so far, in order, unredacted (the full history; never send it to a client)."""
        return self._eventlog.since(0)

    @property
    def version(self) -> int:
        """The version of the latest event."""
        return len(self._log)

    def events_for(self, seat: int | None, after_version: int = 0) -> tuple[Event, ...]:
        """The events ``seat`` may see (None: a spectator), with hidden cards replaced by None."""
        if seat is not None and seat not in self._index:
            raise ValueError(f"seat {seat} is not in this hand; seats: {list(self.seat_numbers)}")
        return self._eventlog.visible_to(seat, after_version)

    # ----------------------------------------------------------------- public state

    @property
    def to_act(self) -> int | None:
        """The seat number to act, or None when the hand is over."""
        i = self._to_act
        return None if i is None else self.seat_numbers[i]

    @property
    def is_over(self) -> bool:
        return self._result_of is not None

    @property
    def result(self) -> HandResult:
        """The outcome; built on first use (simulations finish hands without reading it)."""
        if self._result is None:
            if self._result_of is None:
                raise ValueError("the hand is not over yet")
            self._result = self._result_of()
        return self._result

    @property
    def street(self) -> str:
        return self.game.streets[self._street].name

    @property
    def contributions(self) -> dict[int, int]:
        """Chips each seat has put into this hand's pots (after any uncalled bet came back)."""
        return dict(zip(self.seat_numbers, self._put, strict=True))

    @property
    def stacks(self) -> dict[int, int]:
        """Chips each seat has behind (not in the pot)."""
        return dict(zip(self.seat_numbers, self._stack, strict=True))

    @property
    def board(self) -> tuple[Card, ...]:
        return tuple(self._board)

    def pots(self) -> tuple[Pot, ...]:
        """The pots as they stand (bets of the current round included)."""
        live = [s for i, s in enumerate(self.seat_numbers) if not self._folded[i]]
        return build_pots(self.contributions, live, dead=self._dead)

    def cards_of(self, seat: int) -> tuple[tuple[Card, ...], tuple[Card, ...]]:
        """(down cards, up cards) of a seat: the full truth; views decide who may see them."""
        i = self._seat_index(seat)
        return tuple(self._down[i]), tuple(self._up[i])

    # ----------------------------------------------------------------- replaying histories

    @property
    def unknown_cards(self) -> frozenset[Card]:
        """The stand-ins of a replayed history's unknown cards (see :meth:`forget_cards`); empty
        when every card of the hand is known."""
        return self._unknown_cards

    def forget_cards(self, cards: Collection[Card]) -> None:
        """Replaying a history with unknown cards (PHH ``??``), dealt as stand-ins: from now on
        the events and the views carry ``None`` for them, as for a card a seat may not see, so
        every history written from this hand keeps them unknown."""
        unknown = frozenset(cards)
        self._unknown_cards = self._unknown_cards | unknown
        self._eventlog.forget(unknown)

    def _seat_index(self, seat: int) -> int:
        i = self._index.get(seat)
        if i is None:
            raise ValueError(f"seat {seat} is not in this hand; seats: {list(self.seat_numbers)}")
        return i

    # ----------------------------------------------------------------- dealing

    def _deal_round(self, players: list[int], up: bool, street: str) -> None:
        """One card to each of ``players`` in turn, face up or down."""
        deal = self.deck.deal
        cards = [deal() for _ in players]
        log = self._log.append
        seats = self.seat_numbers
        if up:
            hands = self._up
            signatures = self._up_signature
            for i, card in zip(players, cards, strict=True):
                hands[i].append(card)
                signatures[i] += RANK_UNIT[card]
                log((_E_DEAL, None, seats[i], street, (card,), None, None, False, None, "up"))
        else:
            hands = self._down
            exposed = self._exposed  # after a run-out turned the hands up, down cards are public
            for i, card in zip(players, cards, strict=True):
                hands[i].append(card)
                seat = seats[i]
                visibility = None if exposed else seat
                log((_E_DEAL, visibility, seat, street, (card,), None, None, False, None, "down"))

    def _burn(self, street: str) -> None:
        if self.deck.remaining >= 2:
            card = self.deck.deal()
            self._log_event(EventKind.BURN, visibility=NOBODY, street=street, cards=(card,))

    def _deal_street(self, k: int) -> None:
        street = self._streets[k]
        name = street.name
        folded = self._folded
        live = [i for i in range(self._n) if not folded[i]]
        if k and self.house.burn_cards:
            self._burn(name)
        if self._stud:
            if street.down == 1 and street.up == 0 and self.deck.remaining < len(live):
                card = self.deck.deal()
                self._board.append(card)
                self._log_event(EventKind.DEAL_BOARD, street=name, cards=(card,), detail="community")
                return
            for _ in range(street.down):
                self._deal_round(live, False, name)
            for _ in range(street.up):
                self._deal_round(live, True, name)
        elif street.down:
            b = self._index[self.button] if self.button is not None else 0
            order = [(b + 1 + j) % self._n for j in range(self._n)]
            for _ in range(street.down):
                self._deal_round(order, False, name)
        else:
            cards = tuple(self.deck.deal() for _ in range(street.board))
            self._board.extend(cards)
            self._log_event(EventKind.DEAL_BOARD, street=name, cards=cards)

    def _next_street(self) -> None:
        """Deal the next street and start its betting round (or run out, or go to showdown)."""
        while True:
            k = self._street + 1
            streets = self._streets
            if k >= len(streets):
                self._finish_showdown()
                return
            self._street = k
            self._log.append((_E_STREET, None, None, streets[k].name, None, None, None, False, None, None))
            self._deal_street(k)
            if self._exposed:
                self._bet[:] = [0] * self._n
                continue
            if self._begin_round(k):
                return
            if self._live > 1 and k + 1 < len(streets):
                self._expose()

    def _expose(self) -> None:
        """All but one (or all) of the players left are all-in: turn every hand face up."""
        if self._exposed:
            return
        self._exposed = True
        for i in range(self._n):
            if not self._folded[i]:
                self._log_event(EventKind.EXPOSE, seat=self.seat_numbers[i], cards=tuple(self._down[i]))

    # ----------------------------------------------------------------- betting rounds

    def _clear_round(self) -> None:
        """The betting round's amounts and flags before anybody bets (a hand's start, each street)."""
        self._cur = 0
        self._full = 0
        self._bets = 0
        self._aggressor = None
        self._uncapped = False
        self._double = False
        self._big_locked = False
        self._bring_in_due = False
        self._legal = None

    def _begin_round(self, k: int) -> bool:
        """Set up the betting round of street ``k``; False when there is nobody to bet against."""
        n = self._n
        street = self._streets[k]
        stakes = self.stakes
        self._unit = stakes.big_bet if street.big_bet else stakes.small_bet
        self._bet[:] = self._zeros
        self._acted[:] = self._nobody
        self._clear_round()
        folded, cannot_act = self._folded, self._cannot_act
        active = cannot_act.count(False)
        self._uncapped = self.house.heads_up_uncapped and active == 2
        if self._stud and k == 1 and self.house.fourth_street_double_bet:
            up = self._up
            for i in range(n):
                if not folded[i] and up[i][0] >> 2 == up[i][1] >> 2:
                    self._double = True
                    break
        first: int | None
        if self._stud:
            if k == 0:
                if active < 2:
                    return False
                first = self._pick_bring_in()
                if stakes.bring_in:
                    self._bring_in_due = True
                    self._full = stakes.bring_in
                self._bring_in_player = first
                detail = "bring_in" if stakes.bring_in else "first_to_act"
                seat = self.seat_numbers[first]
                self._log.append(
                    (_E_BRING_IN, None, seat, street.name, None, None, None, False, None, detail)
                )
            else:
                leader = self._best_showing()
                self._leader = leader
                if active < 2:
                    return False
                first = self._next_active(leader, include_self=True)
        else:
            b = self._index[self.button] if self.button is not None else 0
            if k == 0:
                if self._blinds is None:
                    sb, bb = (b, (b + 1) % n) if n == 2 else ((b + 1) % n, (b + 2) % n)
                    self._post_blind(sb, stakes.small_blind, "small")
                    self._post_blind(bb, stakes.big_blind, "big")
                    self._cur = self._full = stakes.big_blind
                    self._bets = 1
                else:
                    bb = self._post_forced_blinds(self._blinds, b)
                able = [i for i in range(n) if not cannot_act[i]]
                # The round begins once the blinds are in: a blind all-in leaves it to the others.
                self._uncapped = self.house.heads_up_uncapped and len(able) == 2
                if not able or (len(able) == 1 and self._bet[able[0]] >= self._cur):
                    return False
                first = self._next_active(bb, include_self=False)
            else:
                self._leader = self._next_live(b, include_self=False)
                if active < 2:
                    return False
                first = self._next_active(b, include_self=False)
        self._set_offer()
        self._to_act = first
        return True

    def _post_forced_blinds(self, blinds: list[int], b: int) -> int:
        """Post per-seat blinds (ForcedBets) from the button's left; return the big blind's index:
        the last of the largest blinds, whom the first player to act follows (the button when
        nobody posts, so that the player left of the button acts first)."""
        n = self._n
        top = max(blinds)
        big = b
        for step in range(1, n + 1):
            i = (b + step) % n
            amount = blinds[i]
            if amount:
                self._post_blind(i, amount, "big" if amount == top else "small")
                if amount == top:
                    big = i
        self._cur = self._full = top
        self._bets = 1 if top else 0
        return big

    def _post_blind(self, i: int, amount: int, which: str) -> None:
        paid = amount if amount < self._stack[i] else self._stack[i]
        self._stack[i] -= paid
        self._bet[i] += paid
        self._put[i] += paid
        if not self._stack[i]:
            self._allin[i] = self._cannot_act[i] = True
        self._log_event(
            EventKind.POST_BLIND, seat=self.seat_numbers[i], amount=paid, all_in=self._allin[i], detail=which
        )

    def _pick_bring_in(self) -> int:
        keys = _BRING_IN_KEYS[self._razz, self.house.bring_in_tie == "suit"]
        folded, up = self._folded, self._up
        best = -1
        best_key = (99, 99)
        for i in range(self._n):
            if not folded[i]:
                key = keys[up[i][0]]
                if key < best_key:  # strict: an exact tie goes to the first in seat order
                    best, best_key = i, key
        if self._allin[best]:
            return self._next_active(best, include_self=False)
        return best

    def _best_showing(self) -> int:
        """The live player with the best up cards; exact ties go to the lowest seat."""
        if self._razz:
            known, work_out = LOW_BY_SIGNATURE, low_signature_key
        else:
            known, work_out = HIGH_BY_SIGNATURE, high_signature_key
        folded, signatures = self._folded, self._up_signature
        best = -1
        best_key: tuple[int, ...] = ()
        for i in range(self._n):
            if folded[i]:
                continue
            signature = signatures[i]
            k = known.get(signature) or work_out(signature)
            if best < 0 or k > best_key:
                best, best_key = i, k
        return best

    def _next_active(self, i: int, *, include_self: bool) -> int:
        """The first player from ``i`` clockwise (after it unless ``include_self``) who can act."""
        if include_self and not self._cannot_act[i]:
            return i
        cannot_act = self._cannot_act
        for j in self._after[i]:
            if not cannot_act[j]:
                return j
        if not cannot_act[i]:
            return i
        raise AssertionError("no active player")

    def _next_live(self, i: int, *, include_self: bool) -> int:
        n = self._n
        start = 0 if include_self else 1
        for step in range(start, n + 1):
            j = (i + step) % n
            if not self._folded[j]:
                return j
        raise AssertionError("no live player")

    # ----------------------------------------------------------------- end of a round

    def _end_round(self) -> None:
        if self._street == len(self._streets) - 1:
            self._final_aggressor = self._aggressor
            self._finish_showdown()
            return
        if self._cannot_act.count(False) < 2:
            self._expose()
        self._next_street()

    # ----------------------------------------------------------------- the end

    def _return_uncalled(self) -> dict[int, int]:
        put = live = self._put
        if self._dead:  # dead money is never uncalled: compare the live bets
            dead = self._dead
            live = [p - dead.get(s, 0) for p, s in zip(put, self.seat_numbers, strict=True)]
        top, most, second = 0, live[0], 0  # the first largest contribution and the next one
        for i in range(1, self._n):
            if live[i] > most:
                top, most, second = i, live[i], most
            elif live[i] > second:
                second = live[i]
        returned: dict[int, int] = {}
        if live[top] > second:
            extra = live[top] - second
            put[top] -= extra
            self._stack[top] += extra
            seat = self.seat_numbers[top]
            returned[seat] = extra
            self._log_event(EventKind.RETURN, seat=seat, amount=extra)
        return returned

    def _finish_uncontested(self) -> None:
        self._to_act = None
        returned = self._return_uncalled()
        self._result_of = award_uncontested(self, returned)
        self._log_event(EventKind.HAND_END)

    def _finish_showdown(self) -> None:
        self._to_act = None
        returned = self._return_uncalled()
        self._result_of = showdown(self, returned)
        self._log_event(EventKind.HAND_END)

    def __repr__(self) -> str:
        state = "over" if self.is_over else f"{self.street} street, seat {self.to_act} to act"
        return f"<Hand {self.game.code} {len(self.seat_numbers)} players, {state}, version {self.version}>"

    # ----------------------------------------------------------------- views

    def view(self, seat: int | None = None) -> HandView:
        """What ``seat`` may see (None: a spectator). See :class:`~studpoker.engine.views.HandView`."""
        return build_view(self, seat)
