"""The end of a hand: showing order and mucking, pot-by-pot awards, hi/lo splits, odd units.

The chips move and the events are logged when the hand ends; the result records (pots,
shares, shown hands and their evaluator objects) are built from plain facts only when
``hand.result`` is read (simulations finish hands without reading it).
"""

from __future__ import annotations

from bisect import bisect_left
from typing import TYPE_CHECKING, NamedTuple

from studpoker import evaluate
from studpoker.cards import Card
from studpoker.engine.events import EventKind
from studpoker.engine.pots import build_pots
from studpoker.engine.result import HandResult, PotResult, Share, ShownHand
from studpoker.evaluate import HighHand, LowHand

if TYPE_CHECKING:
    from studpoker.engine.hand_state import Ending, HandState
    from studpoker.engine.plan import GamePlan, Ranking

_E_AWARD = EventKind.AWARD
_E_SHOW = EventKind.SHOW
_E_MUCK = EventKind.MUCK

# As the showdown works them out: a pot (amount, the eligible player indexes in seat order) and
# a share of one (player index, amount, half).
_Pot = tuple[int, tuple[int, ...]]
_Share = tuple[int, int, str]


def _result(
    s: HandState,
    *,
    pots: tuple[PotResult, ...],
    shown: tuple[ShownHand, ...],
    mucked: tuple[int, ...],
    returned: dict[int, int],
    showdown: bool,
) -> HandResult:
    final = dict(zip(s.seat_numbers, s.stacks, strict=True))
    initial = dict(zip(s.seat_numbers, s.starting, strict=True))
    return HandResult(
        pots=pots,
        shown=shown,
        mucked=mucked,
        returned=returned,
        final_stacks=final,
        net={seat: final[seat] - initial[seat] for seat in final},
        showdown=showdown,
    )


# ----------------------------------------------------------------- all but one folded


def award_uncontested(s: HandState, returned: dict[int, int]) -> Ending:
    """All but one folded: the last player takes every pot without showing."""
    i = s.folded.index(False)
    winner = s.seat_numbers[i]
    total = sum(s.put)
    if total:
        s.stacks[i] += total
        s.log.append((_E_AWARD, None, winner, None, None, total, None, False, 0, "uncontested"))
    return _uncontested_result, (winner, total, returned)


def _uncontested_result(s: HandState, facts: tuple[int, int, dict[int, int]]) -> HandResult:
    winner, total, returned = facts
    pots: tuple[PotResult, ...] = ()
    if total:
        share = Share(seat=winner, amount=total, half="uncontested")
        pots = (PotResult(index=0, amount=total, eligible=(winner,), shares=(share,)),)
    return _result(s, pots=pots, shown=(), mucked=(), returned=returned, showdown=False)


# ----------------------------------------------------------------- the showdown


class _Holding:
    """One live player's cards at the showdown and the evaluator's hands of them, made when
    first asked for (the result, the SHOW text, an odd unit by the high card)."""

    __slots__ = ("_hands", "cards", "hi_lo", "ranking", "seat", "shown_cards")

    def __init__(
        self,
        seat: int,
        plan: GamePlan,
        cards: tuple[Card, ...],
        shown_cards: tuple[Card, ...],
        hands: tuple[HighHand | None, LowHand | None] | None = None,
    ) -> None:
        self.seat = seat
        self.ranking: Ranking = plan.ranking
        self.hi_lo = plan.hi_lo
        self.cards = cards  # what the evaluator takes (stud: down, up, board; Omaha: hole, board)
        self.shown_cards = shown_cards  # as the SHOW event and the result list them
        self._hands = hands

    def hands(self) -> tuple[HighHand | None, LowHand | None]:
        """(high hand, low hand): razz's one low hand is in the high slot (the hand that wins)."""
        if self._hands is None:
            ranking, cards = self.ranking, self.cards
            if ranking == "razz":
                self._hands = (evaluate.razz(cards), None)  # type: ignore[assignment]
            elif ranking == "high_low8":
                self._hands = (evaluate.high(cards), evaluate.low8(cards))
            else:
                self._hands = (evaluate.high(cards), None)
        assert self._hands is not None
        return self._hands

    def shown_hand(self) -> ShownHand:
        high, low = self.hands()
        razz = self.ranking == "razz"
        return ShownHand(
            seat=self.seat,
            cards=self.shown_cards,
            high_hand=None if razz else high,
            low_hand=high if razz else low,  # type: ignore[arg-type]
        )

    def names(self) -> str:
        """The SHOW event's text ("Flush, Ace high; Seven-Five low")."""
        shown = self.shown_hand()
        names = [n for n in (shown.high, shown.low) if n is not None]
        if self.hi_lo and shown.low is None:
            names.append("no low")
        return "; ".join(names)


class _Values(NamedTuple):
    """Each live player's high value and low value (0: no low; razz: the low in the high slot),
    evaluated once each, and his holding; by player index."""

    high: list[int]
    low: list[int]
    holdings: dict[int, _Holding]


def _values(s: HandState, live: list[int]) -> _Values:
    plan = s.plan
    ranking = plan.ranking
    n = s.n
    seats = s.seat_numbers
    down, up, board = s.down, s.up, tuple(s.board)
    high = [0] * n
    low = [0] * n
    holdings: dict[int, _Holding] = {}
    for i in live:
        if ranking == "omaha8":
            hole = tuple(down[i])
            hi, lo = evaluate.omaha8(hole, board)
            high[i] = hi.value
            low[i] = 0 if lo is None else lo.value
            holdings[i] = _Holding(seats[i], plan, (*hole, *board), hole, (hi, lo))
            continue
        cards = (*down[i], *up[i], *board)
        if ranking == "razz":
            high[i] = evaluate.razz_value(cards)
        else:
            high[i] = evaluate.high_value(cards)
            if ranking == "high_low8":
                low[i] = evaluate.low8_value(cards)
        # Down cards first as dealt: two down, the up cards, then the seventh (down) card.
        mine = down[i]
        shown = (*mine[:2], *up[i], *mine[2:]) if up[i] else tuple(mine)
        holdings[i] = _Holding(seats[i], plan, cards, shown)
    return _Values(high, low, holdings)


def _pots(s: HandState, live: list[int]) -> list[_Pot]:
    """The pots as (amount, eligible player indexes)."""
    all_in = s.all_in
    if not s.dead and True not in map(all_in.__getitem__, live):
        # Everyone left called every bet: one pot, all of them eligible (build_pots' answer).
        total = sum(s.put)
        return [(total, tuple(live))] if total else []
    seats, index = s.seat_numbers, s.index
    pots = build_pots(s.contributions(), [seats[i] for i in live], dead=s.dead)
    return [(p.amount, tuple(index[seat] for seat in p.eligible)) for p in pots]


def showdown(s: HandState, returned: dict[int, int]) -> Ending:
    """Show or muck in order, award each pot, log it all; the result is built when read."""
    live = s.in_hand
    pots = _pots(s, live)
    values = _values(s, live)
    order = _showing_order(s, live, pots)
    shown, mucked = _show_or_muck(s, order, pots, values)
    awards = _award(s, pots, values, set(shown))
    holdings, seats = values.holdings, s.seat_numbers
    shown_holdings = tuple(holdings[i] for i in shown)
    return _showdown_result, (awards, tuple(pots), shown_holdings, tuple(seats[i] for i in mucked), returned)


def _showing_order(s: HandState, live: list[int], pots: list[_Pot]) -> list[int]:
    """Who shows first: the last bettor or raiser of the final round, else by the
    showdown_first rule; then clockwise, the players contesting side pots first."""
    start = s.final_aggressor
    if start is None:
        if s.house.showdown_first == "board":
            if s.stud:
                start = s.best_showing()
            else:
                b = s.index[s.button] if s.button is not None else 0
                start = s.next_live(b, include_self=False)
        else:
            start = live[0]
    first = bisect_left(live, start)  # clockwise from ``start``: the live players from it on, then before it
    order = live[first:] + live[:first]
    if len(pots) > 1:
        # Players contesting side pots show before a player all-in for the main pot only.
        pot_count = {i: sum(1 for _, players in pots if i in players) for i in live}
        order.sort(key=lambda i: -pot_count[i])
    return order


def _show_or_muck(
    s: HandState,
    order: list[int],
    pots: list[_Pot],
    values: _Values,
) -> tuple[list[int], list[int]]:
    """Each player in ``order`` shows, or mucks a hand that cannot win any part of a pot he is
    in against the hands shown before (after a run-out every hand is face up already); the
    SHOW and MUCK events. The players who showed, and those who mucked, in that order."""
    log = s.log.append
    seats = s.seat_numbers
    high, low, holdings = values
    best_high: list[int | None] = [None] * len(pots)
    best_low: list[int | None] = [None] * len(pots)
    shown: list[int] = []
    mucked: list[int] = []
    conceding = s.concede  # a replayed history mucks these unknown hands (Hand's concede=)
    exposed = s.exposed
    for i in order:
        hv, lv = high[i], low[i]
        must = exposed and i not in conceding
        if not must and i not in conceding:
            for p, (_, players) in enumerate(pots):
                if i not in players or len(players) < 2:
                    continue
                bh, bl = best_high[p], best_low[p]
                if bh is None or hv >= bh or (lv and (bl is None or lv >= bl)):
                    must = True
                    break
        if not must:
            mucked.append(i)
            log((_E_MUCK, None, seats[i], None, None, None, None, False, None, None))
            continue
        for p, (_, players) in enumerate(pots):
            if i in players:
                if best_high[p] is None or hv > (best_high[p] or 0):
                    best_high[p] = hv
                if lv and (best_low[p] is None or lv > (best_low[p] or 0)):
                    best_low[p] = lv
        shown.append(i)
        holding = holdings[i]
        log((_E_SHOW, None, seats[i], None, holding.shown_cards, None, None, False, None, holding.names))
    return shown, mucked


def _award(
    s: HandState,
    pots: list[_Pot],
    values: _Values,
    shown: set[int],
) -> tuple[tuple[int, int, tuple[_Share, ...]], ...]:
    """Each pot to the best of the ``shown`` hands in it (hi/lo: half each, the high half the
    odd unit), the chips moved and the AWARD events logged; (amount, pot, shares) per pot."""
    log = s.log.append
    seats = s.seat_numbers
    high, low, holdings = values
    hilo = s.plan.hi_lo
    razz = s.plan.ranking == "razz"
    stacks = s.stacks
    awards: list[tuple[int, int, tuple[_Share, ...]]] = []
    for p, (amount, players) in enumerate(pots):
        shares: list[_Share] = []
        if len(players) == 1:
            shares.append((players[0], amount, "uncontested"))
        else:
            # Nobody shown in this pot only when every hand in it conceded: decide it on their cards.
            contenders = [i for i in players if i in shown] or list(players)
            high_winners = _best(contenders, high)
            low_winners: list[int] = []
            if hilo and any(low[i] for i in contenders):
                low_winners = _best(contenders, low)
            if low_winners:
                low_amount = amount // 2
                shares += _split(s, amount - low_amount, high_winners, holdings, "high", low=False)
                shares += _split(s, low_amount, low_winners, holdings, "low", low=True)
            else:
                shares += _split(s, amount, high_winners, holdings, "whole", low=razz)
        for i, won, half in shares:
            stacks[i] += won
            log((_E_AWARD, None, seats[i], None, None, won, None, False, p, half))
        awards.append((amount, p, tuple(shares)))
    return tuple(awards)


def _showdown_result(
    s: HandState,
    facts: tuple[
        tuple[tuple[int, int, tuple[_Share, ...]], ...],
        tuple[_Pot, ...],
        tuple[_Holding, ...],
        tuple[int, ...],
        dict[int, int],
    ],
) -> HandResult:
    awards, pots, shown, mucked, returned = facts
    seats = s.seat_numbers
    results = tuple(
        PotResult(
            index=p,
            amount=amount,
            eligible=tuple(seats[i] for i in pots[p][1]),
            shares=tuple(Share(seat=seats[i], amount=won, half=half) for i, won, half in shares),
        )
        for amount, p, shares in awards
    )
    shown_hands = tuple(h.shown_hand() for h in shown)
    return _result(s, pots=results, shown=shown_hands, mucked=mucked, returned=returned, showdown=True)


def _best(players: list[int], values: list[int]) -> list[int]:
    """The players with the greatest value."""
    top = -1
    best: list[int] = []
    for i in players:
        value = values[i]
        if value > top:
            top, best = value, [i]
        elif value == top:
            best.append(i)
    return best


def _low_card_key(card: int) -> int:
    return (((card >> 2) + 1) % 13) * 4 + (card & 3)


def _split(
    s: HandState, amount: int, winners: list[int], holdings: dict[int, _Holding], half: str, *, low: bool
) -> list[_Share]:
    """Equal shares; the odd units one each to the winners in odd-chip order."""
    each, odd = divmod(amount, len(winners))
    if odd:
        winners = _odd_chip_order(s, winners, holdings, low=low)
    return [(i, each + (1 if k < odd else 0), half) for k, i in enumerate(winners)]


def _odd_chip_order(
    s: HandState, winners: list[int], holdings: dict[int, _Holding], *, low: bool
) -> list[int]:
    n = s.n
    if s.house.odd_chip == "seat_order":
        if s.button is None:
            return sorted(winners)
        b = s.index[s.button]
        return sorted(winners, key=lambda i: (i - b - 1) % n)
    if low:

        def low_key(i: int) -> int:
            high_hand, low_hand = holdings[i].hands()
            best = low_hand if low_hand is not None else high_hand
            assert best is not None
            return min(_low_card_key(c) for c in best.cards)

        return sorted(winners, key=low_key)

    def high_key(i: int) -> int:
        high_hand = holdings[i].hands()[0]
        assert high_hand is not None
        return -max(int(c) for c in high_hand.cards)

    return sorted(winners, key=high_key)
