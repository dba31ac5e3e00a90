"""Forced bets and the start of each betting round: antes, blinds, the bring-in, who acts first,
and the bet or raise open to the players (docs/rules.md).

Functions of the hand's :class:`~studpoker.engine.hand_state.HandState`; the round itself (the
options, the actions) is run by :mod:`studpoker.engine.betting`.
"""

from __future__ import annotations

from studpoker.engine.events import EventKind
from studpoker.engine.hand_state import HandState
from studpoker.engine.options import NO_OFFER, RAISE_BET, RAISE_COMPLETE, RAISE_RAISE
from studpoker.engine.plan import StreetPlan
from studpoker.engine.showing import bring_in_table

_E_ANTE = EventKind.POST_ANTE
_E_BRING_IN = EventKind.BRING_IN_PLAYER

# bring_in_key's (rank, suit) pairs as ints of the same order (smaller brings in), by
# (razz, ties broken by suit).
_BRING_IN_RANKS = {
    (razz, by_suit): tuple(a * 8 + b for a, b in bring_in_table(razz=razz, by_suit=by_suit))
    for razz in (False, True)
    for by_suit in (False, True)
}


def post_antes(s: HandState) -> None:
    """Every seat antes (the stakes' ante, or its own from ForcedBets); a short one is all-in."""
    ante = s.stakes.ante
    antes = s.antes
    dead = s.dead
    log = s.log.append
    stacks, put, all_in, cannot_act = s.stacks, s.put, s.all_in, s.cannot_act
    for i, seat in enumerate(s.seat_numbers):
        if antes is not None:
            ante = antes[i]
            if not ante:
                continue
        stack = stacks[i]
        paid = ante if ante < stack else stack
        stacks[i] = stack - paid
        put[i] = paid
        is_all_in = paid == stack
        if is_all_in:
            all_in[i] = cannot_act[i] = True
        if dead is not None:
            dead[seat] = paid
        dead_blind = antes is not None and s.forced is not None and seat in s.forced.dead_blinds
        detail = "dead_blind" if dead_blind else None
        log((_E_ANTE, None, seat, None, None, paid, None, is_all_in, None, detail))


def begin_round(s: HandState, street: StreetPlan, k: int) -> bool:
    """Set up the betting round of street ``k``; False when there is nobody to bet against."""
    stakes = s.stakes
    house = s.house
    s.unit = stakes.big_bet if street.big_bet else stakes.small_bet
    s.bets[:] = s.zeros
    s.acted[:] = s.nobody
    s.clear_round()
    cannot_act = s.cannot_act
    active = cannot_act.count(False)
    s.uncapped = house.heads_up_uncapped and active == 2
    first: int | None
    if s.stud:
        if k == 0:
            if active < 2:
                return False
            first = _pick_bring_in(s)
            if stakes.bring_in:
                s.bring_in_due = True
                s.level = stakes.bring_in
            s.bring_in_player = first
            detail = "bring_in" if stakes.bring_in else "first_to_act"
            seat = s.seat_numbers[first]
            s.log.append((_E_BRING_IN, None, seat, street.name, None, None, None, False, None, detail))
        else:
            if k == 1 and house.fourth_street_double_bet:
                s.double = _open_pair_showing(s)
            leader = s.best_showing()
            if active < 2:
                return False
            first = leader if not cannot_act[leader] else next_active(s, leader, include_self=False)
    else:
        b = s.index[s.button] if s.button is not None else 0
        if k == 0:
            first = _post_blinds(s, b)
            if first is None:
                return False
        else:
            if active < 2:
                return False
            first = next_active(s, b, include_self=False)
    set_offer(s)
    # No bet this round can reach anybody's stack (a margin of a bet over the cap): the
    # options skip the all-in checks (Betting.legal_actions).
    s.deep = not s.uncapped and min(s.stacks) > (s.cap + 1) * stakes.big_bet
    s.to_act = first
    return True


def _post_blinds(s: HandState, b: int) -> int | None:
    """Omaha pre-flop, the button at ``b``: post the blinds; who acts first (None: nobody to
    bet against)."""
    n = s.n
    if s.blinds is None:
        stakes = s.stakes
        sb, bb = (b, (b + 1) % n) if n == 2 else ((b + 1) % n, (b + 2) % n)
        _post_blind(s, sb, stakes.small_blind, "small")
        _post_blind(s, bb, stakes.big_blind, "big")
        s.current = s.level = stakes.big_blind
        s.bet_count = 1
    else:
        bb = _post_forced_blinds(s, s.blinds, b)
    cannot_act = s.cannot_act
    able = [i for i in range(n) if not cannot_act[i]]
    # The round begins once the blinds are in: a blind all-in leaves it to the others.
    s.uncapped = s.house.heads_up_uncapped and len(able) == 2
    if not able or (len(able) == 1 and s.bets[able[0]] >= s.current):
        return None
    return next_active(s, bb, include_self=False)


def set_offer(s: HandState) -> None:
    """The bet or raise open to a player who may still raise in this round (after the cap:
    none). Set when the round begins and after each completion, bet or raise."""
    if not s.uncapped and s.bet_count >= s.cap:
        s.offer = NO_OFFER
        return
    stakes = s.stakes
    if s.bet_count == 0 and s.stud and s.street == 0 and stakes.bring_in:
        s.offer = (RAISE_COMPLETE, stakes.small_bet, 0)
        return
    kind = RAISE_BET if s.bet_count == 0 else RAISE_RAISE
    level = s.level
    if not s.double:
        s.offer = (kind, level + s.unit, 0)
    elif s.big_locked:
        s.offer = (kind, level + stakes.big_bet, 0)
    else:
        s.offer = (kind, level + stakes.small_bet, level + stakes.big_bet)


def _open_pair_showing(s: HandState) -> bool:
    """Somebody still in shows an open pair on 4th street (the double bet may be made)."""
    up = s.up
    return any(up[i][0] >> 2 == up[i][1] >> 2 for i in s.in_hand)


def _post_forced_blinds(s: HandState, blinds: list[int], b: int) -> int:
    """Post per-seat blinds (ForcedBets) from the button's left; return the big blind's index:
    the last of the largest blinds, whom the first player to act follows (the button when
    nobody posts, so that the player left of the button acts first)."""
    n = s.n
    top = max(blinds)
    big = b
    for step in range(1, n + 1):
        i = (b + step) % n
        amount = blinds[i]
        if amount:
            _post_blind(s, i, amount, "big" if amount == top else "small")
            if amount == top:
                big = i
    s.current = s.level = top
    s.bet_count = 1 if top else 0
    table_big = s.forced.big_blind if s.forced is not None else None
    return big if table_big is None else s.index[table_big]


def _post_blind(s: HandState, i: int, amount: int, which: str) -> None:
    stacks = s.stacks
    paid = amount if amount < stacks[i] else stacks[i]
    stacks[i] -= paid
    s.bets[i] += paid
    s.put[i] += paid
    if not stacks[i]:
        s.all_in[i] = s.cannot_act[i] = True
    s.eventlog.add(
        EventKind.POST_BLIND, seat=s.seat_numbers[i], amount=paid, all_in=s.all_in[i], detail=which
    )


def _pick_bring_in(s: HandState) -> int:
    ranks = _BRING_IN_RANKS[s.razz, s.house.bring_in_tie == "suit"]
    up = s.up
    best = -1
    best_rank = 1 << 10  # above every rank
    for i in s.in_hand:
        rank = ranks[up[i][0]]
        if rank < best_rank:  # strict: an exact tie goes to the first in seat order
            best, best_rank = i, rank
    if s.all_in[best]:
        return next_active(s, best, include_self=False)
    return best


def next_active(s: HandState, i: int, *, include_self: bool) -> int:
    """The first player from ``i`` clockwise (after it unless ``include_self``) who can act."""
    cannot_act = s.cannot_act
    if include_self and not cannot_act[i]:
        return i
    for j in s.after[i]:
        if not cannot_act[j]:
            return j
    if not cannot_act[i]:
        return i
    raise AssertionError("no active player")
