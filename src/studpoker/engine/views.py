"""Per-seat views: the one place that decides what a seat (or a spectator) may see."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from studpoker.cards import Card
from studpoker.engine.actions import LegalActions
from studpoker.engine.pots import Pot
from studpoker.engine.result import HandResult

if TYPE_CHECKING:
    from studpoker.engine.state import Hand


@dataclass(frozen=True, slots=True, kw_only=True)
class SeatView:
    """One seat as the viewer sees it; hidden down cards are None (their number still shows), and
    so are the cards a replayed history does not know (PHH ``??``, even an up card)."""

    seat: int
    stack: int
    bet: int
    contributed: int
    folded: bool
    all_in: bool
    protected: bool
    down: tuple[Card | None, ...]
    up: tuple[Card | None, ...]
    shown: bool

    def to_dict(self) -> dict[str, object]:
        return {
            "seat": self.seat,
            "stack": self.stack,
            "bet": self.bet,
            "contributed": self.contributed,
            "folded": self.folded,
            "all_in": self.all_in,
            "protected": self.protected,
            "down": [None if c is None else str(c) for c in self.down],
            "up": [None if c is None else str(c) for c in self.up],
            "shown": self.shown,
        }


@dataclass(frozen=True, slots=True, kw_only=True)
class HandView:
    """The hand as ``viewer`` may see it (None: a spectator). JSON-friendly via :meth:`to_dict`."""

    viewer: int | None
    game: str
    street: str
    version: int
    button: int | None
    bring_in_seat: int | None
    seats: tuple[SeatView, ...]
    board: tuple[Card, ...]
    pots: tuple[Pot, ...]
    to_act: int | None
    legal: LegalActions | None
    is_over: bool
    result: HandResult | None

    def seat(self, number: int) -> SeatView:
        for s in self.seats:
            if s.seat == number:
                return s
        raise KeyError(number)

    def to_dict(self) -> dict[str, object]:
        return {
            "viewer": self.viewer,
            "game": self.game,
            "street": self.street,
            "version": self.version,
            "button": self.button,
            "bring_in_seat": self.bring_in_seat,
            "seats": [s.to_dict() for s in self.seats],
            "board": [str(c) for c in self.board],
            "pots": [p.to_dict() for p in self.pots],
            "to_act": self.to_act,
            "legal": None if self.legal is None else self.legal.to_dict(),
            "is_over": self.is_over,
            "result": None if self.result is None else self.result.to_dict(),
        }


def build_view(hand: Hand, viewer: int | None) -> HandView:
    if viewer is not None:
        hand._seat_index(viewer)
    result = hand.result if hand.is_over else None
    shown = {h.seat for h in result.shown} if result is not None else set()
    unknown = hand._unknown_cards  # a replayed history's stand-ins for its unknown cards
    seats: list[SeatView] = []
    for i, seat in enumerate(hand.seat_numbers):
        visible = seat == viewer or seat in shown or (hand._exposed and not hand._folded[i])
        if visible:
            down = tuple(None if c in unknown else c for c in hand._down[i])
        else:
            down = tuple(None for _ in hand._down[i])
        seats.append(
            SeatView(
                seat=seat,
                stack=hand._stack[i],
                bet=hand._bet[i],
                contributed=hand._put[i],
                folded=hand._folded[i],
                all_in=hand._allin[i] and not hand._folded[i],
                protected=hand._protected[i],
                down=down,
                up=tuple(None if c in unknown else c for c in hand._up[i]) if unknown else tuple(hand._up[i]),
                shown=seat in shown,
            )
        )
    to_act = hand.to_act
    legal = hand.legal_actions() if to_act is not None and to_act == viewer else None
    bring_in = hand._bring_in_player
    return HandView(
        viewer=viewer,
        game=hand.game.code,
        street=hand.street,
        version=hand.version,
        button=hand.button,
        bring_in_seat=None if bring_in is None else hand.seat_numbers[bring_in],
        seats=tuple(seats),
        board=tuple(hand._board),
        pots=hand.pots() if result is None else (),
        to_act=to_act,
        legal=legal,
        is_over=result is not None,
        result=result,
    )
