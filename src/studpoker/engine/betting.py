"""Betting: the legal options of the player to act, applying an action, the clock rule.

:class:`Betting` is the part of :class:`~studpoker.engine.state.Hand` that runs a betting
round (fixed limit: the cap, heads-up rounds, short all-ins of §129 (docs/rules.md), the 4th street
double bet); the hand's other parts (dealing, streets, showdown) live in ``state.py``.
"""

from __future__ import annotations

from collections.abc import Callable

from studpoker.engine.actions import (
    BRING_IN,
    CALL,
    CHECK,
    COMPLETE,
    FOLD,
    Action,
    ActionKind,
    IllegalActionError,
    LegalActions,
    LegalOption,
)
from studpoker.engine.events import Event, EventKind, EventLog, RawEvent
from studpoker.engine.options import (
    LEGAL,
    NO_OFFER,
    NOBODY_TO_ACT,
    RAISE_BET,
    RAISE_COMPLETE,
    RAISE_RAISE,
    Legal,
    Offer,
    intern,
)
from studpoker.games import Game, HouseRules, Stakes

_E_ACTION = EventKind.ACTION
_AMOUNT_OPTIONAL = (FOLD, CHECK, CALL, BRING_IN)


class Betting:
    """Betting-round state and actions; mixed into :class:`~studpoker.engine.state.Hand`."""

    # Slots for the whole hand's state (Hand adds none): a hand has more attributes than CPython
    # shares in an instance dict (30), and slot access is much cheaper on the hot paths.
    __slots__ = (
        "_acted",
        "_after",
        "_aggressor",
        "_allin",
        "_antes",
        "_bet",
        "_bets",
        "_big_locked",
        "_blinds",
        "_board",
        "_bring_in_due",
        "_bring_in_player",
        "_cannot_act",
        "_cap",
        "_concede",
        "_cur",
        "_dead",
        "_double",
        "_down",
        "_eventlog",
        "_exposed",
        "_final_aggressor",
        "_folded",
        "_full",
        "_index",
        "_leader",
        "_legal",
        "_live",
        "_log",
        "_log_event",
        "_n",
        "_nobody",
        "_offer",
        "_protected",
        "_put",
        "_razz",
        "_result",
        "_result_of",
        "_stack",
        "_street",
        "_streets",
        "_stud",
        "_to_act",
        "_uncapped",
        "_unit",
        "_unknown_cards",
        "_up",
        "_up_signature",
        "_zeros",
        "button",
        "deck",
        "forced",
        "game",
        "house",
        "initial_stacks",
        "seat_numbers",
        "stakes",
    )

    # The hand's state this part reads and writes (set up by Hand.__init__).
    game: Game
    stakes: Stakes
    house: HouseRules
    seat_numbers: tuple[int, ...]
    _n: int
    _stud: bool
    _street: int
    _stack: list[int]
    _bet: list[int]
    _put: list[int]
    _folded: list[bool]
    _allin: list[bool]
    _cannot_act: list[bool]  # folded or all-in
    _protected: list[bool]
    _acted: list[bool]
    _live: int
    _to_act: int | None
    _cur: int
    _full: int
    _bets: int
    _cap: int
    _unit: int
    _uncapped: bool
    _double: bool
    _big_locked: bool
    _bring_in_due: bool
    _aggressor: int | None
    _offer: Offer
    _legal: Legal | None  # the current decision's options (None: not worked out yet)
    _after: tuple[tuple[int, ...], ...]  # _after[i]: the other players clockwise from i
    _eventlog: EventLog
    _log: list[RawEvent]
    _log_event: Callable[..., None]
    # Parts of the hand this one hands over to.
    _nobody: list[bool]  # [False] * n, to clear ``_acted`` in one slice assignment
    _end_round: Callable[[], None]
    _finish_uncontested: Callable[[], None]

    # ----------------------------------------------------------------- legal actions

    def legal_actions(self) -> LegalActions:
        """Who acts and the exact legal options (empty when the hand is over)."""
        i = self._to_act
        if i is None:
            return NOBODY_TO_ACT
        legal = self._legal or self._work_out_legal()
        seat = self.seat_numbers[i]
        view = legal.views[seat]  # not ``or``: that would call LegalActions.__len__
        return legal.view(seat) if view is None else view

    def _options(self) -> tuple[LegalOption, ...]:
        return (self._legal or self._work_out_legal()).options

    def _work_out_legal(self) -> Legal:
        """The options of the player to act, interned by the amounts they depend on."""
        i = self._to_act
        assert i is not None
        bet = self._bet[i]
        most = bet + self._stack[i]
        stakes = self.stakes
        if self._bring_in_due:  # the first action of the round: the player's bet is 0
            small = stakes.small_bet
            key = (bet, -1, most if most <= small else -1, 0, stakes.bring_in, small)
            legal = self._legal = LEGAL.get(key) or intern(key)
            return legal
        cur = self._cur
        offer = self._offer
        if offer is not NO_OFFER and (most <= cur or self._acted[i]):
            offer = NO_OFFER
        if offer is not NO_OFFER:
            cannot_act, bets, stacks = self._cannot_act, self._bet, self._stack
            for j in self._after[i]:
                # Somebody else still in must be able to call more than the current bet.
                if not cannot_act[j] and bets[j] + stacks[j] > cur:
                    break
            else:
                offer = NO_OFFER
        top = offer[2] or offer[1]
        if most > cur and most > top:
            most = -1  # covers every amount: the same options as any other deep stack
        key = (bet, cur, most, *offer)
        legal = self._legal = LEGAL.get(key) or intern(key)
        return legal

    def _set_offer(self) -> None:
        """The bet or raise open to a player who may still raise in this round (after the cap:
        none). Set when the round begins and after each completion, bet or raise."""
        if not self._uncapped and self._bets >= self._cap:
            self._offer = NO_OFFER
            return
        stakes = self.stakes
        if self._bets == 0 and self._stud and self._street == 0 and stakes.bring_in:
            self._offer = (RAISE_COMPLETE, stakes.small_bet, 0)
            return
        kind = RAISE_BET if self._bets == 0 else RAISE_RAISE
        full = self._full
        if not self._double:
            self._offer = (kind, full + self._unit, 0)
        elif self._big_locked:
            self._offer = (kind, full + stakes.big_bet, 0)
        else:
            self._offer = (kind, full + stakes.small_bet, full + stakes.big_bet)

    # ----------------------------------------------------------------- actions

    def apply(self, seat: int, action: Action) -> tuple[Event, ...]:
        """Apply ``action`` for ``seat``; return the events it caused (its own first).

        Raises :class:`IllegalActionError` (nothing changes) when it is not that seat's turn or
        the action or its amount is not among :meth:`legal_actions`.
        """
        if action.__class__ is not Action and not isinstance(action, Action):
            raise IllegalActionError(f"seat {seat}: {action!r} is not an Action", seat=seat)
        start = len(self._log)
        self.act(seat, action.kind, action.amount)  # raises (nothing changed) when illegal
        return self._eventlog.since(start)

    def act(self, seat: int, kind: ActionKind, amount: int | None = None) -> None:
        """Like :meth:`apply` without building the returned events (fast path for simulations)."""
        i = self._to_act
        if i is not None and self.seat_numbers[i] == seat and (amount is None or amount.__class__ is int):
            for option in (self._legal or self._work_out_legal()).options:
                if option.kind is kind and (
                    option.amount == amount or (amount is None and kind in _AMOUNT_OPTIONAL)
                ):
                    self._do(option, None)
                    return
        self._check_turn(seat, Action(kind=kind, amount=amount))  # raises the right error
        raise AssertionError("unreachable")  # pragma: no cover

    def _check_turn(self, seat: int, action: Action) -> LegalOption:
        i = self._to_act
        if i is None:
            raise IllegalActionError(
                f"seat {seat} cannot {action}: the hand is over", seat=seat, action=action
            )
        if self.seat_numbers[i] != seat:
            raise IllegalActionError(
                f"seat {seat} cannot {action}: it is seat {self.seat_numbers[i]}'s turn",
                seat=seat,
                action=action,
            )
        kind, amount = action.kind, action.amount
        if amount is not None and (not isinstance(amount, int) or isinstance(amount, bool)):
            raise IllegalActionError(
                f"seat {seat} cannot {action}: amounts are whole numbers of units, not {amount!r}",
                seat=seat,
                action=action,
            )
        same_kind: list[int] = []
        for option in self._options():
            if option.kind is kind:
                if (amount is None and kind in _AMOUNT_OPTIONAL) or option.amount == amount:
                    return option
                same_kind.append(option.amount)
        legal = ", ".join(f"{o.kind.value} {o.amount}" for o in self._options())
        if same_kind:
            amounts = " or ".join(str(a) for a in same_kind)
            why = f"a {kind.value} now goes to {amounts} (a 'to' amount: his round total after it)"
        else:
            why = f"{kind.value} is not allowed now"
        street = self.game.streets[self._street].name
        raise IllegalActionError(
            f"seat {seat} cannot {action} on {street} street: {why}; legal: {legal}",
            seat=seat,
            action=action,
        )

    def _do(self, option: LegalOption, timeout: str | None) -> None:
        i = self._to_act
        assert i is not None
        seat = self.seat_numbers[i]
        kind = option.kind
        amount = option.amount
        self._legal = None
        if timeout is not None:
            self._log_event(EventKind.TIMEOUT, seat=seat, detail=timeout)
        bets = self._bet
        if kind is FOLD:
            self._folded[i] = self._cannot_act[i] = True
            self._live -= 1
            self._log.append((_E_ACTION, None, seat, None, None, amount, kind, False, None, None))
            if self._live == 1:
                self._to_act = None
                self._finish_uncontested()
                return
        else:  # check, call, bring-in, completion, bet or raise to ``amount``
            delta = amount - bets[i]
            all_in = False
            if delta:
                stack = self._stack[i] - delta
                self._stack[i] = stack
                bets[i] = amount
                self._put[i] += delta
                if not stack:
                    all_in = self._allin[i] = self._cannot_act[i] = True
            self._acted[i] = True
            self._log.append((_E_ACTION, None, seat, None, None, amount, kind, all_in, None, None))
            if kind is BRING_IN:
                self._bring_in_due = False
                bring_in = self.stakes.bring_in
                self._cur = bring_in if amount < bring_in else amount
            elif kind is not CALL and kind is not CHECK:
                self._aggress(i, kind, amount)
        self._advance(i)

    def _aggress(self, i: int, kind: ActionKind, amount: int) -> None:
        """A completion, bet or raise to ``amount`` (docs/rules.md, R-SHORT-ALL-IN-ADD-UP).

        The level (``_full``) is the last full bet or raise, or all-in of half of one or more
        over the level before it: reaching it counts toward the cap and sizes the next raise.
        Reopening is per player: one who already acted may raise again only when what he faces
        since his own last action is at least half of the bet or raise due now (several short
        all-ins add up that way). A full one always reopens for everyone: nobody who acted can
        face less than half of it, as no short all-in left the bet half a bet over the level.
        """
        self._bring_in_due = False
        self._aggressor = i
        base = self._full
        stakes = self.stakes
        if kind is COMPLETE:
            target = stakes.small_bet
        elif not self._double:
            target = base + self._unit
        elif self._big_locked:
            target = base + stakes.big_bet
        else:
            target = base + stakes.small_bet
        acted = self._acted
        if amount >= target:  # a full bet or raise: counts, reopens for everyone
            self._full = amount
            self._bets += 1
            if self._double and amount - base >= stakes.big_bet:
                self._big_locked = True
            acted[:] = self._nobody
            acted[i] = True
            self._set_offer()
        else:  # an all-in for less (rare): judged against the level and each player's own bet
            step = target - base  # the full bet or raise due now; half of it reopens
            if 2 * (amount - base) >= step:  # half a bet or more over the level: counts
                self._full = amount
                self._bets += 1
                self._set_offer()
            bets = self._bet
            for j in self._after[i]:
                if acted[j] and 2 * (amount - bets[j]) >= step:
                    acted[j] = False
        self._cur = amount

    def _advance(self, i: int) -> None:
        """Pass the turn clockwise from ``i``; end the round when nobody has to act.

        A player who has not acted yet but owes nothing (the big blind) has a decision only while
        somebody else may still bet: when he is the only player left with chips, the round is
        over (docs/rules.md, R-NO-DECISION-BETTING-OVER; e.g. heads-up O8, the button calls
        all-in for no more than the big blind).
        """
        cur = self._cur
        cannot_act, acted, bet = self._cannot_act, self._acted, self._bet
        for j in self._after[i]:
            if not cannot_act[j]:
                if bet[j] < cur:
                    self._to_act = j
                    return
                if not acted[j]:
                    if cannot_act.count(False) > 1:
                        self._to_act = j
                        return
                    break
        self._advance_to_self_or_end(i)

    def _advance_to_self_or_end(self, i: int) -> None:
        """Nobody after ``i`` has to act: ``i`` himself, or the round is over."""
        if not self._cannot_act[i] and (not self._acted[i] or self._bet[i] < self._cur):
            self._to_act = i
            return
        self._to_act = None
        self._end_round()

    def timeout(self, seat: int, *, protection_allowed: bool = True) -> tuple[Event, ...]:
        """The clock ran out for ``seat`` (docs/rules.md, R-TIMEOUT).

        Check if checking is free (a due bring-in is posted: it is forced); otherwise, when the
        seat has chips in this hand and ``protection_allowed``, it is all-in for what it has put
        in (disconnect protection); otherwise it folds. The TIMEOUT event says which.
        """
        i = self._to_act
        if i is None or self.seat_numbers[i] != seat:
            who = "the hand is over" if i is None else f"it is seat {self.seat_numbers[i]}'s turn"
            raise IllegalActionError(f"seat {seat} cannot time out: {who}", seat=seat)
        start = len(self._log)
        options = self._options()
        if self._bring_in_due:
            self._do(options[0], "bring_in")
        elif options[0].kind is CHECK:
            self._do(options[0], "check")
        elif protection_allowed and self._put[i] > 0:
            self._legal = None
            self._allin[i] = self._cannot_act[i] = True
            self._protected[i] = True
            self._log_event(EventKind.TIMEOUT, seat=seat, detail="protected_all_in", amount=self._put[i])
            self._advance(i)
        else:
            self._do(options[0], "fold")
        return self._eventlog.since(start)
