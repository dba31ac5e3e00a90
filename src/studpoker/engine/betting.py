"""Betting: the legal options of the player to act, applying an action, the clock rule.

:class:`Betting` is the part of :class:`~studpoker.engine.state.Hand` that runs a betting
round (fixed limit: the cap, heads-up rounds, short all-ins of RULES.md §129, the 4th street
double bet); the hand's other parts (dealing, streets, showdown) live in ``state.py``.
"""

from __future__ import annotations

from collections.abc import Callable

from studpoker.engine.actions import Action, ActionKind, IllegalActionError, LegalActions, LegalOption
from studpoker.engine.events import Event, EventKind, EventLog, RawEvent
from studpoker.games import Game, HouseRules, Stakes

_FOLD = ActionKind.FOLD
_CHECK = ActionKind.CHECK
_CALL = ActionKind.CALL
_BRING_IN = ActionKind.BRING_IN
_COMPLETE = ActionKind.COMPLETE
_BET = ActionKind.BET
_RAISE = ActionKind.RAISE
_E_ACTION = EventKind.ACTION
_AMOUNT_OPTIONAL = (_FOLD, _CHECK, _CALL, _BRING_IN)

# Legal options are immutable: share one object per (kind, amount, all_in).
_OPTIONS: dict[tuple[ActionKind, int, bool], LegalOption] = {}


def _option(kind: ActionKind, amount: int, all_in: bool = False) -> LegalOption:
    key = (kind, amount, all_in)
    option = _OPTIONS.get(key)
    if option is None:
        if len(_OPTIONS) > 50_000:
            _OPTIONS.clear()
        option = _OPTIONS[key] = LegalOption(kind=kind, amount=amount, all_in=all_in)
    return option


class Betting:
    """Betting-round state and actions; mixed into :class:`~studpoker.engine.state.Hand`."""

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
    _legal: tuple[LegalOption, ...] | None
    _legal_view: LegalActions | None
    _eventlog: EventLog
    _log: list[RawEvent]
    _log_event: Callable[..., None]
    # Parts of the hand this one hands over to.
    _end_round: Callable[[], None]
    _finish_uncontested: Callable[[], None]

    # ----------------------------------------------------------------- legal actions

    def legal_actions(self) -> LegalActions:
        """Who acts and the exact legal options (empty when the hand is over)."""
        i = self._to_act
        if i is None:
            return LegalActions(seat=None)
        legal = self._legal_view
        if legal is None or legal.options is not self._legal:
            legal = self._legal_view = LegalActions(seat=self.seat_numbers[i], options=self._options())
        return legal

    def _options(self) -> tuple[LegalOption, ...]:
        cached = self._legal
        if cached is not None:
            return cached
        i = self._to_act
        assert i is not None
        stack = self._stack[i]
        bet = self._bet[i]
        most = bet + stack
        stakes = self.stakes
        options: list[LegalOption] = []
        if self._bring_in_due:
            bring = stakes.bring_in
            if stack <= bring:
                options.append(_option(_BRING_IN, most, True))
            else:
                options.append(_option(_BRING_IN, bring))
                target = stakes.small_bet
                options.append(_option(_COMPLETE, min(target, most), most <= target))
            self._legal = tuple(options)
            return self._legal
        cur = self._cur
        if cur > bet:
            options.append(_option(_FOLD, bet))
            if most <= cur:
                options.append(_option(_CALL, most, True))
            else:
                options.append(_option(_CALL, cur))
        else:
            options.append(_option(_CHECK, bet))
        if most > cur and not self._acted[i] and (self._uncapped or self._bets < self._cap):
            for j in range(self._n):
                if (
                    j != i
                    and not self._folded[j]
                    and not self._allin[j]
                    and self._bet[j] + self._stack[j] > cur
                ):
                    break
            else:
                self._legal = tuple(options)
                return self._legal
            if self._bets == 0 and self._stud and self._street == 0 and stakes.bring_in:
                kind = _COMPLETE
                targets = [stakes.small_bet]
            else:
                kind = _BET if self._bets == 0 else _RAISE
                full = self._full
                if not self._double:
                    targets = [full + self._unit]
                elif self._big_locked:
                    targets = [full + stakes.big_bet]
                else:
                    targets = [full + stakes.small_bet, full + stakes.big_bet]
            for target in targets:
                if most <= target:
                    options.append(_option(kind, most, True))
                    break
                options.append(_option(kind, target))
        self._legal = tuple(options)
        return self._legal

    # ----------------------------------------------------------------- actions

    def apply(self, seat: int, action: Action) -> tuple[Event, ...]:
        """Apply ``action`` for ``seat``; return the events it caused (its own first).

        Raises :class:`IllegalActionError` (nothing changes) when it is not that seat's turn or
        the action or its amount is not among :meth:`legal_actions`.
        """
        if not isinstance(action, Action):
            raise IllegalActionError(f"seat {seat}: {action!r} is not an Action", seat=seat)
        option = self._check_turn(seat, action)
        start = len(self._log)
        self._do(option, None)
        return self._eventlog.since(start)

    def act(self, seat: int, kind: ActionKind, amount: int | None = None) -> None:
        """Like :meth:`apply` without building the returned events (fast path for simulations)."""
        i = self._to_act
        if i is not None and self.seat_numbers[i] == seat and (amount is None or amount.__class__ is int):
            for option in self._legal or self._options():
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
        if kind is _FOLD:
            self._folded[i] = True
            self._live -= 1
            self._log.append((_E_ACTION, None, seat, None, None, amount, kind, False, None, None))
            if self._live == 1:
                self._to_act = None
                self._finish_uncontested()
                return
        else:
            delta = amount - self._bet[i]
            if delta:
                self._stack[i] -= delta
                self._bet[i] = amount
                self._put[i] += delta
                if not self._stack[i]:
                    self._allin[i] = True
            self._acted[i] = True
            all_in = self._allin[i]
            self._log.append((_E_ACTION, None, seat, None, None, amount, kind, all_in, None, None))
            if kind is _BRING_IN:
                self._bring_in_due = False
                self._cur = self.stakes.bring_in if amount < self.stakes.bring_in else amount
            elif kind is _COMPLETE or kind is _BET or kind is _RAISE:
                self._bring_in_due = False
                self._aggressor = i
                base = self._full
                if kind is _COMPLETE:
                    target = self.stakes.small_bet
                elif not self._double:
                    target = base + self._unit
                elif self._big_locked:
                    target = base + self.stakes.big_bet
                else:
                    target = base + self.stakes.small_bet
                if amount >= target or 2 * (amount - base) >= target - base:
                    # A full bet or raise (or an all-in of at least half of one): reopens, counts.
                    self._full = amount
                    self._bets += 1
                    if self._double and amount - base >= self.stakes.big_bet:
                        self._big_locked = True
                    acted = self._acted
                    for j in range(self._n):
                        acted[j] = False
                    acted[i] = True
                self._cur = amount
        self._advance(i)

    def _advance(self, i: int) -> None:
        """Pass the turn clockwise from ``i``; end the round when nobody has to act."""
        n = self._n
        cur = self._cur
        folded, allin, acted, bet = self._folded, self._allin, self._acted, self._bet
        for step in range(1, n + 1):
            j = (i + step) % n
            if not folded[j] and not allin[j] and (not acted[j] or bet[j] < cur):
                self._to_act = j
                return
        self._to_act = None
        self._end_round()

    def timeout(self, seat: int, *, protection_allowed: bool = True) -> tuple[Event, ...]:
        """The clock ran out for ``seat`` (RULES.md "Action clock").

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
        elif options[0].kind is _CHECK:
            self._do(options[0], "check")
        elif protection_allowed and self._put[i] > 0:
            self._legal = None
            self._allin[i] = True
            self._protected[i] = True
            self._log_event(EventKind.TIMEOUT, seat=seat, detail="protected_all_in", amount=self._put[i])
            self._advance(i)
        else:
            self._do(options[0], "fold")
        return self._eventlog.since(start)
