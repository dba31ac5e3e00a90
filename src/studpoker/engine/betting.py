"""Betting: the legal options of the player to act, applying an action, the clock rule.

:class:`Betting` holds the methods of :class:`~studpoker.engine.state.Hand` that run a betting
round (fixed limit: the cap, heads-up rounds, short all-ins of §129 (docs/rules.md), the 4th
street double bet) on the hand's :class:`~studpoker.engine.hand_state.HandState`; the round is
set up by :mod:`~studpoker.engine.rounds`, and when it ends :mod:`~studpoker.engine.streets`
deals on or ends the hand.
"""

from __future__ import annotations

from typing import NoReturn

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
from studpoker.engine.events import Event, EventKind
from studpoker.engine.hand_state import HandState
from studpoker.engine.options import LEGAL, NO_OFFER, NOBODY_TO_ACT, intern
from studpoker.engine.rounds import set_offer
from studpoker.engine.streets import end_round, finish_uncontested

_E_ACTION = EventKind.ACTION
_AMOUNT_OPTIONAL = (FOLD, CHECK, CALL, BRING_IN)


class Betting:
    """The betting methods of :class:`~studpoker.engine.state.Hand`, on its state."""

    __slots__ = ("_state",)

    _state: HandState  # set by Hand.__init__

    # ----------------------------------------------------------------- legal actions

    def legal_actions(self) -> LegalActions:
        """Who acts and the exact legal options (empty when the hand is over)."""
        # Worked out once per decision (the view is interned by the amounts the options depend
        # on, and by seat) and kept until the next action; NOBODY_TO_ACT once the hand is over.
        s = self._state
        legal = s.legal  # not ``or``: that would call LegalActions.__len__
        if legal is not None:
            return legal
        i = s.to_act
        if i is None:
            s.legal = NOBODY_TO_ACT
            return NOBODY_TO_ACT
        bet = s.bets[i]
        seat = s.seat_numbers[i]
        if s.bring_in_due:  # the first action of the round: the player's bet is 0
            stakes = s.stakes
            small = stakes.small_bet
            most = bet + s.stacks[i]
            key = (seat, bet, -1, most if most <= small else -1, 0, stakes.bring_in, small)
        elif s.deep:
            # Every stack covers the most this round can cost, and nobody is all-in: the others
            # left can all call a raise, and the player's own stack limits nothing.
            offer = NO_OFFER if s.acted[i] else s.offer
            key = (seat, bet, s.current, -1, offer[0], offer[1], offer[2])
        else:
            stacks = s.stacks
            most = bet + stacks[i]  # all he has: it may limit his options
            current = s.current
            offer = s.offer
            if offer is not NO_OFFER:
                if most <= current or s.acted[i]:
                    offer = NO_OFFER
                else:
                    cannot_act, bets = s.cannot_act, s.bets
                    for j in s.after[i]:
                        # Somebody else still in must be able to call more than the current bet.
                        if not cannot_act[j] and bets[j] + stacks[j] > current:
                            break
                    else:
                        offer = NO_OFFER
            if most > current and most > (offer[2] or offer[1]):
                most = -1  # covers every amount: the same options as any other deep stack
            key = (seat, bet, current, most, offer[0], offer[1], offer[2])
        legal = LEGAL.get(key)
        if legal is None:
            legal = intern(key)
        s.legal = legal
        return legal

    # ----------------------------------------------------------------- actions

    def apply(self, seat: int, action: Action) -> tuple[Event, ...]:
        """Apply ``action`` for ``seat``; return the events it caused (its own first).

        Raises :class:`IllegalActionError` (nothing changes) when it is not that seat's turn or
        the action or its amount is not among :meth:`legal_actions`.
        """
        if action.__class__ is not Action and not isinstance(action, Action):
            raise IllegalActionError(f"seat {seat}: {action!r} is not an Action", seat=seat)
        eventlog = self._state.eventlog
        start = len(eventlog.raw) + eventlog.extra  # the version before it
        self.act(seat, action.kind, action.amount)  # raises (nothing changed) when illegal
        return eventlog.since(start)

    def act(self, seat: int, kind: ActionKind, amount: int | None = None) -> None:
        """Like :meth:`apply` without building the returned events (fast path for simulations)."""
        s = self._state
        legal = s.legal
        if legal is None:
            legal = self.legal_actions()
        option = None
        if legal.seat == seat and (amount is None or amount.__class__ is int):
            for candidate in legal.options:
                if candidate.kind is kind and (
                    candidate.amount == amount or (amount is None and kind in _AMOUNT_OPTIONAL)
                ):
                    option = candidate
                    break
        if option is None:
            _refuse(s, seat, Action(kind=kind, amount=amount), legal.options)
        # Legal: move the chips, log the action, pass the turn.
        i = s.to_act
        assert i is not None and legal.seat is not None
        seat = legal.seat
        amount = option.amount
        s.legal = None
        if kind is FOLD:
            s.folded[i] = s.cannot_act[i] = True
            in_hand = s.in_hand
            in_hand.remove(i)
            s.log.append((_E_ACTION, None, seat, None, None, amount, kind, False, None, None))
            if len(in_hand) == 1:
                s.to_act = None
                finish_uncontested(s)
                return
        else:  # check, call, bring-in, completion, bet or raise to ``amount``
            bets = s.bets
            delta = amount - bets[i]
            all_in = False
            if delta:
                stacks = s.stacks
                stack = stacks[i] - delta
                stacks[i] = stack
                bets[i] = amount
                s.put[i] += delta
                if not stack:
                    all_in = s.all_in[i] = s.cannot_act[i] = True
            s.acted[i] = True
            s.log.append((_E_ACTION, None, seat, None, None, amount, kind, all_in, None, None))
            if kind is CALL or kind is CHECK:
                pass
            elif kind is BRING_IN:
                s.bring_in_due = False
                bring_in = s.stakes.bring_in
                s.current = bring_in if amount < bring_in else amount
            else:
                _aggress(s, i, kind, amount)
        _advance(s, i)

    def timeout(self, seat: int, *, protection_allowed: bool = True) -> tuple[Event, ...]:
        """The clock ran out for ``seat`` (docs/rules.md, R-TIMEOUT).

        Check if checking is free (a due bring-in is posted: it is forced); otherwise, when the
        seat has chips in this hand and ``protection_allowed``, it is all-in for what it has put
        in (disconnect protection); otherwise it folds. The TIMEOUT event says which.
        """
        s = self._state
        i = s.to_act
        if i is None or s.seat_numbers[i] != seat:
            who = "the hand is over" if i is None else f"it is seat {s.seat_numbers[i]}'s turn"
            raise IllegalActionError(f"seat {seat} cannot time out: {who}", seat=seat)
        eventlog = s.eventlog
        start = len(eventlog.raw) + eventlog.extra
        options = self.legal_actions().options
        if s.bring_in_due:
            self._clock_takes(options[0], "bring_in")
        elif options[0].kind is CHECK:
            self._clock_takes(options[0], "check")
        elif protection_allowed and s.put[i] > 0:
            s.legal = None
            s.all_in[i] = s.cannot_act[i] = True
            s.protected[i] = True
            s.deep = False
            eventlog.add(EventKind.TIMEOUT, seat=seat, detail="protected_all_in", amount=s.put[i])
            _advance(s, i)
        else:
            self._clock_takes(options[0], "fold")
        return eventlog.since(start)

    def _clock_takes(self, option: LegalOption, why: str) -> None:
        """The player to act takes ``option`` on the clock, after a TIMEOUT event saying ``why``."""
        s = self._state
        i = s.to_act
        assert i is not None
        seat = s.seat_numbers[i]
        s.eventlog.add(EventKind.TIMEOUT, seat=seat, detail=why)
        self.act(seat, option.kind, option.amount)


def _refuse(s: HandState, seat: int, action: Action, options: tuple[LegalOption, ...]) -> NoReturn:
    """Raise the IllegalActionError that says why ``action`` is not legal for ``seat`` now."""
    i = s.to_act
    if i is None:
        raise IllegalActionError(f"seat {seat} cannot {action}: the hand is over", seat=seat, action=action)
    if s.seat_numbers[i] != seat:
        raise IllegalActionError(
            f"seat {seat} cannot {action}: it is seat {s.seat_numbers[i]}'s turn",
            seat=seat,
            action=action,
        )
    kind, amount = action.kind, action.amount
    if amount is not None and amount.__class__ is not int:  # a bool, a float, an int subclass...
        raise IllegalActionError(
            f"seat {seat} cannot {action}: amounts are whole numbers of units, not {amount!r}",
            seat=seat,
            action=action,
        )
    same_kind = [o.amount for o in options if o.kind is kind]
    legal = ", ".join(f"{o.kind.value} {o.amount}" for o in options)
    if same_kind:
        amounts = " or ".join(str(a) for a in same_kind)
        why = f"a {kind.value} now goes to {amounts} (a 'to' amount: his round total after it)"
    else:
        why = f"{kind.value} is not allowed now"
    raise IllegalActionError(
        f"seat {seat} cannot {action} on {s.street_name()} street: {why}; legal: {legal}",
        seat=seat,
        action=action,
    )


def _aggress(s: HandState, i: int, kind: ActionKind, amount: int) -> None:
    """A completion, bet or raise to ``amount`` (docs/rules.md, R-SHORT-ALL-IN-ADD-UP).

    The level is the last full bet or raise, or all-in of half of one or more over the level
    before it: reaching it counts toward the cap and sizes the next raise. Reopening is per
    player: one who already acted may raise again only when what he faces since his own last
    action is at least half of the bet or raise due now (several short all-ins add up that
    way). A full one always reopens for everyone: nobody who acted can face less than half of
    it, as no short all-in left the bet half a bet over the level.
    """
    s.bring_in_due = False
    s.aggressor = i
    base = s.level
    stakes = s.stakes
    if kind is COMPLETE:
        target = stakes.small_bet
    elif not s.double:
        target = base + s.unit
    elif s.big_locked:
        target = base + stakes.big_bet
    else:
        target = base + stakes.small_bet
    acted = s.acted
    if amount >= target:  # a full bet or raise: counts, reopens for everyone
        s.level = amount
        s.bet_count += 1
        if s.double and amount - base >= stakes.big_bet:
            s.big_locked = True
        acted[:] = s.nobody
        acted[i] = True
        set_offer(s)
    else:  # an all-in for less (rare): judged against the level and each player's own bet
        step = target - base  # the full bet or raise due now; half of it reopens
        if 2 * (amount - base) >= step:  # half a bet or more over the level: counts
            s.level = amount
            s.bet_count += 1
            set_offer(s)
        bets = s.bets
        for j in s.after[i]:
            if acted[j] and 2 * (amount - bets[j]) >= step:
                acted[j] = False
    s.current = amount


def _advance(s: HandState, i: int) -> None:
    """Pass the turn clockwise from ``i``; end the round when nobody has to act.

    A player who has not acted yet but owes nothing (the big blind) has a decision only while
    somebody else may still bet: when he is the only player left with chips, the round is
    over (docs/rules.md, R-NO-DECISION-BETTING-OVER; e.g. heads-up O8, the button calls
    all-in for no more than the big blind).
    """
    current = s.current
    cannot_act, acted, bets = s.cannot_act, s.acted, s.bets
    for j in s.after[i]:
        if not cannot_act[j]:
            if bets[j] < current:
                s.to_act = j
                return
            if not acted[j]:
                if cannot_act.count(False) > 1:
                    s.to_act = j
                    return
                break
    # Nobody after ``i`` has to act: ``i`` himself, or the round is over.
    if not cannot_act[i] and (not acted[i] or bets[i] < current):
        s.to_act = i
        return
    s.to_act = None
    end_round(s)
