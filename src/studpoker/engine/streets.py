"""Dealing the streets, the all-in run-out and the end of the hand.

Functions of the hand's :class:`~studpoker.engine.hand_state.HandState`: after each betting
round the hand deals the next street and starts its round (:mod:`~studpoker.engine.rounds`),
runs the rest out face up when betting is over, or ends: the uncalled bet back, then the
showdown or the award to the last player standing (:mod:`~studpoker.engine.showdown`).
"""

from __future__ import annotations

from studpoker.engine.events import HAND_END_EVENT, EventKind
from studpoker.engine.hand_state import HandState
from studpoker.engine.options import NOBODY_TO_ACT
from studpoker.engine.plan import StreetPlan
from studpoker.engine.rounds import begin_round
from studpoker.engine.showdown import award_uncontested, showdown
from studpoker.engine.showing import RANK_UNIT

NOBODY = 0  # visibility of burnt cards: no seat may see them


# ----------------------------------------------------------------- dealing


def _deal_down(s: HandState, players: list[int], street: str) -> None:
    """One card face down to each of ``players`` in turn (seen by its owner only, unless a
    run-out has turned the hands up)."""
    deal = s.deck.deal
    hands = s.down
    cards = []
    for i in players:
        card = deal()
        hands[i].append(card)
        cards.append(card)
    s.eventlog.add_deals(s.seats_of(players), street, tuple(cards), "down", not s.exposed)


def _deal_up(s: HandState, players: list[int], street: str) -> None:
    """One card face up to each of ``players`` in turn (stud)."""
    deal = s.deck.deal
    hands = s.up
    signatures = s.up_signature
    cards = []
    for i in players:
        card = deal()
        hands[i].append(card)
        signatures[i] += RANK_UNIT[card]
        cards.append(card)
    s.eventlog.add_deals(s.seats_of(players), street, tuple(cards), "up", False)


def _burn(s: HandState, street: str) -> None:
    if s.deck.remaining >= 2:
        card = s.deck.deal()
        s.eventlog.add(EventKind.BURN, visibility=NOBODY, street=street, cards=(card,))


def _deal_street(s: HandState, street: StreetPlan, k: int) -> None:
    name = street.name
    if k and s.house.burn_cards:
        _burn(s, name)
    if s.stud:
        live = s.in_hand
        if street.short_deal and s.deck.remaining < len(live):
            card = s.deck.deal()
            s.board.append(card)
            s.eventlog.add(EventKind.DEAL_BOARD, street=name, cards=(card,), detail="community")
            return
        for up in street.rounds:
            if up:
                _deal_up(s, live, name)
            else:
                _deal_down(s, live, name)
    elif street.down:
        n = s.n
        b = s.index[s.button] if s.button is not None else 0
        order = [(b + 1 + j) % n for j in range(n)]
        for _ in range(street.down):
            _deal_down(s, order, name)
    else:
        cards = tuple(s.deck.deal() for _ in range(street.board))
        s.board.extend(cards)
        s.eventlog.add(EventKind.DEAL_BOARD, street=name, cards=cards)


def next_street(s: HandState) -> None:
    """Deal the next street and start its betting round (or run out, or go to showdown)."""
    streets = s.streets
    while True:
        k = s.street + 1
        if k >= len(streets):
            _finish_showdown(s)
            return
        s.street = k
        street = streets[k]
        s.log.append(street.event)
        _deal_street(s, street, k)
        if s.exposed:
            s.bets[:] = s.zeros
            continue
        if begin_round(s, street, k):
            return
        if len(s.in_hand) > 1 and not street.last:
            _expose(s)


def _expose(s: HandState) -> None:
    """All but one (or all) of the players left are all-in: turn every hand face up."""
    if s.exposed:
        return
    s.exposed = True
    for i in range(s.n):
        if not s.folded[i]:
            s.eventlog.add(EventKind.EXPOSE, seat=s.seat_numbers[i], cards=tuple(s.down[i]))


def end_round(s: HandState) -> None:
    """Nobody has to act in this betting round any more: the next street, or the showdown."""
    if s.streets[s.street].last:
        s.final_aggressor = s.aggressor
        _finish_showdown(s)
        return
    if s.cannot_act.count(False) < 2:
        _expose(s)
    next_street(s)


# ----------------------------------------------------------------- the end


def _return_uncalled(s: HandState) -> dict[int, int]:
    put = live = s.put
    if s.dead:  # dead money is never uncalled: compare the live bets
        dead = s.dead
        live = [p - dead.get(seat, 0) for p, seat in zip(put, s.seat_numbers, strict=True)]
    ordered = sorted(live)
    most, second = ordered[-1], ordered[-2]  # the largest contribution and the next one
    returned: dict[int, int] = {}
    if most > second:  # the largest alone: its excess comes back
        top = live.index(most)
        extra = most - second
        put[top] -= extra
        s.stacks[top] += extra
        seat = s.seat_numbers[top]
        returned[seat] = extra
        s.log.append((EventKind.RETURN, None, seat, None, None, extra, None, False, None, None))
    return returned


def finish_uncontested(s: HandState) -> None:
    """All but one folded: he takes the pots without showing."""
    s.to_act = None
    s.legal = NOBODY_TO_ACT
    returned = _return_uncalled(s)
    s.ending = award_uncontested(s, returned)
    s.log.append(HAND_END_EVENT)


def _finish_showdown(s: HandState) -> None:
    s.to_act = None
    s.legal = NOBODY_TO_ACT
    returned = _return_uncalled(s)
    s.ending = showdown(s, returned)
    s.log.append(HAND_END_EVENT)
