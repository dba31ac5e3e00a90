"""Per-seat views: the one place that decides what a seat (or a spectator) may see."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from studpoker.cards import Card
from studpoker.engine.actions import LegalActions
from studpoker.engine.pots import Pot
from studpoker.engine.result import HandResult

if TYPE_CHECKING:
    from studpoker.engine.hand_state import HandState


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


def build_view(
    s: HandState, viewer: int | None, *, result: HandResult | None, legal: LegalActions | None
) -> HandView:
    """The view of ``viewer`` (a seat of the hand, or None), given the hand's ``result`` (None
    until it is over) and the viewer's ``legal`` options (None unless it is his turn)."""
    shown = {h.seat for h in result.shown} if result is not None else set()
    unknown = s.unknown_cards  # a replayed history's stand-ins for its unknown cards
    exposed, folded = s.exposed, s.folded
    seats: list[SeatView] = []
    for i, seat in enumerate(s.seat_numbers):
        visible = seat == viewer or seat in shown or (exposed and not folded[i])
        if visible:
            down = tuple(None if c in unknown else c for c in s.down[i])
        else:
            down = tuple(None for _ in s.down[i])
        seats.append(
            SeatView(
                seat=seat,
                stack=s.stacks[i],
                bet=s.bets[i],
                contributed=s.put[i],
                folded=folded[i],
                all_in=s.all_in[i] and not folded[i],
                protected=s.protected[i],
                down=down,
                up=tuple(None if c in unknown else c for c in s.up[i]) if unknown else tuple(s.up[i]),
                shown=seat in shown,
            )
        )
    to_act = s.to_act
    bring_in = s.bring_in_player
    return HandView(
        viewer=viewer,
        game=s.game.code,
        street=s.street_name(),
        version=s.version(),
        button=s.button,
        bring_in_seat=None if bring_in is None else s.seat_numbers[bring_in],
        seats=tuple(seats),
        board=tuple(s.board),
        pots=s.pots() if result is None else (),
        to_act=None if to_act is None else s.seat_numbers[to_act],
        legal=legal,
        is_over=result is not None,
        result=result,
    )
