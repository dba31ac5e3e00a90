"""The end of a hand: showing order and mucking, pot-by-pot awards, hi/lo splits, odd units."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING, Any, NamedTuple

from studpoker import evaluate
from studpoker.cards import Card
from studpoker.engine.events import EventKind
from studpoker.engine.pots import build_pots
from studpoker.engine.result import HandResult, PotResult, Share, ShownHand

if TYPE_CHECKING:
    from studpoker.engine.state import Hand


def _finish(
    hand: Hand,
    *,
    pots: list[PotResult],
    shown: list[ShownHand],
    mucked: list[int],
    returned: dict[int, int],
    showdown: bool,
) -> Callable[[], HandResult]:
    """Pay the shares into the stacks now; the result record is built when first asked for."""
    stacks, index = hand._stack, hand._index
    for pot in pots:
        for share in pot.shares:
            stacks[index[share.seat]] += share.amount
    return partial(
        _result,
        _Table.of(hand),
        pots=tuple(pots),
        shown=tuple(shown),
        mucked=tuple(mucked),
        returned=returned,
        showdown=showdown,
    )


class _Table(NamedTuple):
    """What the result needs from the hand, without the hand: a result builder holding the
    hand would make a reference cycle, and every finished hand would wait for the collector."""

    seat_numbers: tuple[int, ...]
    stacks: list[int]  # the hand's own list: read when the result is built
    initial_stacks: dict[int, int]

    @staticmethod
    def of(hand: Hand) -> _Table:
        return _Table(hand.seat_numbers, hand._stack, hand.initial_stacks)


def _result(
    table: _Table,
    *,
    pots: tuple[PotResult, ...],
    shown: tuple[ShownHand, ...],
    mucked: tuple[int, ...],
    returned: dict[int, int],
    showdown: bool,
) -> HandResult:
    final = dict(zip(table.seat_numbers, table.stacks, strict=True))
    initial = table.initial_stacks
    return HandResult(
        pots=pots,
        shown=shown,
        mucked=mucked,
        returned=returned,
        final_stacks=final,
        net={seat: final[seat] - initial[seat] for seat in final},
        showdown=showdown,
    )


def _uncontested_pot(winner: int, total: int) -> tuple[PotResult, ...]:
    if not total:
        return ()
    share = Share(seat=winner, amount=total, half="uncontested")
    return (PotResult(index=0, amount=total, eligible=(winner,), shares=(share,)),)


def award_uncontested(hand: Hand, returned: dict[int, int]) -> Callable[[], HandResult]:
    """All but one folded: the last player takes every pot without showing."""
    folded = hand._folded
    i = next(i for i in range(hand._n) if not folded[i])
    winner = hand.seat_numbers[i]
    total = sum(hand._put)
    if total:
        hand._stack[i] += total
        hand._log_event(EventKind.AWARD, seat=winner, amount=total, pot=0, detail="uncontested")

    return partial(_uncontested_result, _Table.of(hand), winner, total, returned)


def _uncontested_result(table: _Table, winner: int, total: int, returned: dict[int, int]) -> HandResult:
    pots = _uncontested_pot(winner, total)
    return _result(table, pots=pots, shown=(), mucked=(), returned=returned, showdown=False)


class _Eval:
    """One live player's hands: values (greater is better; low 0 = none) and the hand objects."""

    __slots__ = ("high", "high_value", "low", "low_value")

    def __init__(self, high: Any, low: Any) -> None:
        self.high = high
        self.low = low
        self.high_value: int = 0 if high is None else high.value
        self.low_value: int = 0 if low is None else low.value


class _Names:
    """The SHOW event's text ("Flush, Ace high; Seven-Five low"), worked out only when read."""

    __slots__ = ("hilo", "shown")

    def __init__(self, shown: ShownHand, *, hilo: bool) -> None:
        self.shown = shown
        self.hilo = hilo

    def __call__(self) -> str:
        names = [n for n in (self.shown.high, self.shown.low) if n is not None]
        if self.hilo and self.shown.low is None:
            names.append("no low")
        return "; ".join(names)


def _evaluate(hand: Hand, i: int) -> _Eval:
    types = hand.game.hand_types
    if hand.game.kind == "omaha":
        hi, lo = evaluate.omaha8(tuple(hand._down[i]), tuple(hand._board))
        return _Eval(hi, lo)
    cards = (*hand._down[i], *hand._up[i], *hand._board)
    if types == ("razz",):
        # Razz: one low hand, no qualifier; kept in the "high" slot as the only hand that wins.
        return _Eval(evaluate.razz(cards), None)
    hi = evaluate.high(cards)
    lo = evaluate.low8(cards) if "low8" in types else None
    return _Eval(hi, lo)


def _low_card_key(card: int) -> int:
    return (((card >> 2) + 1) % 13) * 4 + (card & 3)


def showdown(hand: Hand, returned: dict[int, int]) -> Callable[[], HandResult]:
    n = hand._n
    seats = hand.seat_numbers
    razz = hand.game.hand_types == ("razz",)
    hilo = hand.game.hi_lo
    live = [i for i in range(n) if not hand._folded[i]]
    raw_pots = build_pots(hand.contributions, [seats[i] for i in live], dead=hand._dead)
    index = hand._index
    pot_players = [[index[s] for s in p.eligible] for p in raw_pots]
    evals = {i: _evaluate(hand, i) for i in live}

    # Who shows first: the last bettor/raiser of the final round, else by the showdown_first rule.
    start = hand._final_aggressor
    if start is None:
        if hand.house.showdown_first == "board":
            if hand.game.kind == "stud":
                start = hand._best_showing()
            else:
                b = index[hand.button] if hand.button is not None else 0
                start = hand._next_live(b, include_self=False)
        else:
            start = live[0]
    order = [(start + k) % n for k in range(n) if not hand._folded[(start + k) % n]]
    # Players contesting side pots show before a player all-in for the main pot only.
    pot_count = {i: sum(1 for p in pot_players if i in p) for i in live}
    order.sort(key=lambda i: -pot_count[i])

    best_high: list[int | None] = [None] * len(raw_pots)
    best_low: list[int | None] = [None] * len(raw_pots)
    shown_set: set[int] = set()
    shown: list[ShownHand] = []
    mucked: list[int] = []
    conceding = hand._concede  # a replayed history mucks these unknown hands (Hand's concede=)
    for i in order:
        e = evals[i]
        must = hand._exposed and i not in conceding
        if not must and i not in conceding:
            for p, players in enumerate(pot_players):
                if i not in players or len(players) < 2:
                    continue
                bh, bl = best_high[p], best_low[p]
                if bh is None or e.high_value >= bh or (e.low_value and (bl is None or e.low_value >= bl)):
                    must = True
                    break
        if not must:
            mucked.append(i)
            hand._log_event(EventKind.MUCK, seat=seats[i])
            continue
        shown_set.add(i)
        for p, players in enumerate(pot_players):
            if i in players:
                if best_high[p] is None or e.high_value > (best_high[p] or 0):
                    best_high[p] = e.high_value
                if e.low_value and (best_low[p] is None or e.low_value > (best_low[p] or 0)):
                    best_low[p] = e.low_value
        cards = (*hand._down[i], *hand._up[i])
        if hand.game.kind == "stud" and hand._up[i]:
            # Down cards first as dealt: two down, the up cards, then the seventh (down) card.
            cards = (*hand._down[i][:2], *hand._up[i], *hand._down[i][2:])
        shown_hand = ShownHand(
            seat=seats[i],
            cards=tuple(cards),
            high_hand=None if razz else e.high,
            low_hand=e.high if razz else e.low,
        )
        shown.append(shown_hand)
        hand._log_event(
            EventKind.SHOW, seat=seats[i], cards=tuple(cards), detail=_Names(shown_hand, hilo=hilo)
        )

    results: list[PotResult] = []
    for p, (pot, players) in enumerate(zip(raw_pots, pot_players, strict=True)):
        shares: list[Share] = []
        if len(players) == 1:
            shares.append(Share(seat=seats[players[0]], amount=pot.amount, half="uncontested"))
        else:
            # Nobody shown in this pot only when every hand in it conceded: decide it on their cards.
            contenders = [i for i in players if i in shown_set] or players
            top = max(evals[i].high_value for i in contenders)
            high_winners = [i for i in contenders if evals[i].high_value == top]
            low_winners: list[int] = []
            if hilo:
                lows = [evals[i].low_value for i in contenders if evals[i].low_value]
                if lows:
                    best = max(lows)
                    low_winners = [i for i in contenders if evals[i].low_value == best]
            if low_winners:
                low_amount = pot.amount // 2
                shares += _split(hand, pot.amount - low_amount, high_winners, evals, "high", low=False)
                shares += _split(hand, low_amount, low_winners, evals, "low", low=True)
            else:
                shares += _split(hand, pot.amount, high_winners, evals, "whole", low=razz)
        for share in shares:
            hand._log_event(EventKind.AWARD, seat=share.seat, amount=share.amount, pot=p, detail=share.half)
        results.append(PotResult(index=p, amount=pot.amount, eligible=pot.eligible, shares=tuple(shares)))
    return _finish(
        hand, pots=results, shown=shown, mucked=[seats[i] for i in mucked], returned=returned, showdown=True
    )


def _split(
    hand: Hand, amount: int, winners: list[int], evals: dict[int, _Eval], half: str, *, low: bool
) -> list[Share]:
    """Equal shares; the odd units one each to the winners in odd-chip order."""
    seats = hand.seat_numbers
    each, odd = divmod(amount, len(winners))
    if odd:
        winners = _odd_chip_order(hand, winners, evals, low=low)
    return [
        Share(seat=seats[i], amount=each + (1 if k < odd else 0), half=half) for k, i in enumerate(winners)
    ]


def _odd_chip_order(hand: Hand, winners: list[int], evals: dict[int, _Eval], *, low: bool) -> list[int]:
    n = hand._n
    if hand.house.odd_chip == "seat_order":
        if hand.button is None:
            return sorted(winners)
        b = hand._index[hand.button]
        return sorted(winners, key=lambda i: (i - b - 1) % n)
    if low:

        def low_key(i: int) -> int:
            e = evals[i]
            hand_cards: tuple[Card, ...] = (e.low if e.low is not None else e.high).cards
            return min(_low_card_key(c) for c in hand_cards)

        return sorted(winners, key=low_key)
    return sorted(winners, key=lambda i: -max(int(c) for c in evals[i].high.cards))
