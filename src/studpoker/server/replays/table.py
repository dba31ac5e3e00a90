"""The table as the viewer's events leave it: stacks, bets, pots, the cards he knows."""

from __future__ import annotations

from studpoker.cards import Card
from studpoker.engine import ActionKind, Event, EventKind, Hand
from studpoker.engine.pots import build_pots

from .equity import PositionKey
from .models import PotState, SeatState


def card_text(card: Card | None) -> str | None:
    return None if card is None else str(card)


class ReplayTable:
    """The table as the viewer's events leave it (the engine's own bookkeeping, from events)."""

    def __init__(self, hand: Hand) -> None:
        self.hand = hand
        self.order = hand.seat_numbers
        self.stack = dict(hand.initial_stacks)
        self.bet = dict.fromkeys(self.order, 0)
        self.put = dict.fromkeys(self.order, 0)
        self.folded: set[int] = set()
        self.all_in: set[int] = set()
        self.mucked: set[int] = set()
        self.shown: set[int] = set()
        self.down: dict[int, list[Card | None]] = {s: [] for s in self.order}
        self.up: dict[int, list[Card | None]] = {s: [] for s in self.order}
        self.board: list[Card | None] = []
        self.street = hand.game.streets[0].name
        # Antes posted seat by seat (ForcedBets) are dead money in the main pot, as in Hand.pots.
        forced = hand.forced
        self.dead: dict[int, int] | None = {} if forced is not None and forced.antes is not None else None

    def apply(self, ev: Event) -> int | None:
        """Move the table on by one event; the chips an action put in."""
        if ev.kind is EventKind.STREET:
            self.street = ev.street or self.street
            self.bet = dict.fromkeys(self.order, 0)
        elif ev.kind is EventKind.DEAL_BOARD:
            self.board.extend(ev.cards or ())
        elif ev.seat is not None:
            if ev.kind is EventKind.ACTION:
                return self._act(ev.seat, ev)
            self._seat_event(ev.seat, ev)
        return None

    def _act(self, seat: int, ev: Event) -> int:
        if ev.action is ActionKind.FOLD:
            self.folded.add(seat)
            return 0
        added = max(0, (ev.amount or 0) - self.bet[seat])
        self._pay(seat, added, bet=True)
        if ev.all_in:
            self.all_in.add(seat)
        return added

    def _seat_event(self, seat: int, ev: Event) -> None:
        kind = ev.kind
        if kind in (EventKind.POST_ANTE, EventKind.POST_BLIND):
            self._post(seat, ev)
        elif kind is EventKind.DEAL:
            into = self.up if ev.detail == "up" else self.down
            into[seat].extend(ev.cards or (None,))
        elif kind is EventKind.TIMEOUT and ev.detail == "protected_all_in":
            self.all_in.add(seat)
        elif kind is EventKind.EXPOSE:
            self.down[seat] = list(ev.cards or ())
        elif kind is EventKind.SHOW:
            self._show(seat, ev)
        elif kind is EventKind.MUCK:
            self.mucked.add(seat)
        elif kind is EventKind.RETURN:
            amount = ev.amount or 0
            self.stack[seat] += amount
            self.put[seat] -= amount
            self.bet[seat] = max(0, self.bet[seat] - amount)
        elif kind is EventKind.AWARD:
            self.stack[seat] += ev.amount or 0

    def _post(self, seat: int, ev: Event) -> None:
        # An ante is dead money, not a bet; a blind is a bet.
        ante = ev.kind is EventKind.POST_ANTE
        self._pay(seat, ev.amount or 0, bet=not ante)
        if ante and self.dead is not None:
            self.dead[seat] = ev.amount or 0
        if ev.all_in:
            self.all_in.add(seat)

    def _show(self, seat: int, ev: Event) -> None:
        self.shown.add(seat)
        up = set(self.up[seat])
        hidden = [c for c in ev.cards or () if c not in up]
        if len(hidden) == len(self.down[seat]):
            self.down[seat] = hidden

    def _pay(self, seat: int, amount: int, *, bet: bool) -> None:
        self.stack[seat] -= amount
        self.put[seat] += amount
        if bet:
            self.bet[seat] += amount

    def seats(self) -> tuple[SeatState, ...]:
        return tuple(
            SeatState(
                seat=s,
                stack=self.stack[s],
                bet=self.bet[s],
                contributed=self.put[s],
                folded=s in self.folded,
                all_in=s in self.all_in and s not in self.folded,
                mucked=s in self.mucked,
                shown=s in self.shown,
                down=tuple(card_text(c) for c in self.down[s]),
                up=tuple(card_text(c) for c in self.up[s]),
            )
            for s in self.order
        )

    def pots(self) -> tuple[PotState, ...]:
        live = [s for s in self.order if s not in self.folded]
        return tuple(
            PotState(amount=p.amount, eligible=p.eligible) for p in build_pots(self.put, live, dead=self.dead)
        )

    def live(self) -> list[int]:
        """Players still contesting the pot (not folded, not mucked)."""
        return [s for s in self.order if s not in self.folded and s not in self.mucked]

    def position_key(self) -> PositionKey:
        """The equity position of the live players from what the viewer saw (the calculator
        refuses one it cannot take, the stud community card among them)."""
        game = self.hand.game
        live = self.live()

        def known(seat: int) -> list[str]:
            return [str(c) for c in (*self.down[seat], *self.up[seat]) if c is not None]

        hands = tuple(
            tuple("??" if c is None else str(c) for c in (*self.down[s], *self.up[s])) for s in live
        )
        dead = tuple(sorted(c for s in self.order if s not in live for c in known(s)))
        board = tuple(str(c) for c in self.board if c is not None)
        return game.code, hands, dead, board
