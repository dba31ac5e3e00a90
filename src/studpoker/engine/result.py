"""The outcome of a finished hand: pots, shares, shown hands, final stacks and net results."""

from __future__ import annotations

from dataclasses import dataclass

from studpoker.cards import Card
from studpoker.evaluate import HighHand, LowHand


@dataclass(frozen=True, slots=True, kw_only=True)
class Share:
    """Chips a seat won from one pot: ``half`` is high, low, whole (no split) or uncontested."""

    seat: int
    amount: int
    half: str

    def to_dict(self) -> dict[str, object]:
        return {"seat": self.seat, "amount": self.amount, "half": self.half}


@dataclass(frozen=True, slots=True, kw_only=True)
class PotResult:
    index: int  # 0 = main pot, 1.. = side pots
    amount: int
    eligible: tuple[int, ...]
    shares: tuple[Share, ...]

    @property
    def winners(self) -> tuple[int, ...]:
        return tuple(dict.fromkeys(s.seat for s in self.shares))

    def to_dict(self) -> dict[str, object]:
        return {
            "index": self.index,
            "amount": self.amount,
            "eligible": list(self.eligible),
            "shares": [s.to_dict() for s in self.shares],
        }


@dataclass(frozen=True, slots=True, kw_only=True)
class ShownHand:
    """A hand shown at showdown: all the seat's cards and its best hands.

    ``high_hand`` / ``low_hand`` are the evaluator's values (razz: the low only); the names and
    the five cards used are worked out when first asked for.
    """

    seat: int
    cards: tuple[Card, ...]
    high_hand: HighHand | None = None
    low_hand: LowHand | None = None

    @property
    def high(self) -> str | None:
        return None if self.high_hand is None else self.high_hand.name

    @property
    def high_cards(self) -> tuple[Card, ...]:
        return () if self.high_hand is None else self.high_hand.cards

    @property
    def low(self) -> str | None:
        return None if self.low_hand is None else self.low_hand.name

    @property
    def low_cards(self) -> tuple[Card, ...]:
        return () if self.low_hand is None else self.low_hand.cards

    def to_dict(self) -> dict[str, object]:
        return {
            "seat": self.seat,
            "cards": [str(c) for c in self.cards],
            "high": self.high,
            "high_cards": [str(c) for c in self.high_cards],
            "low": self.low,
            "low_cards": [str(c) for c in self.low_cards],
        }


@dataclass(frozen=True, slots=True, kw_only=True)
class HandResult:
    pots: tuple[PotResult, ...]
    shown: tuple[ShownHand, ...]
    mucked: tuple[int, ...]
    returned: dict[int, int]
    final_stacks: dict[int, int]
    net: dict[int, int]
    showdown: bool

    def won(self, seat: int) -> int:
        """Chips ``seat`` collected from the pots (returned uncalled chips not included)."""
        return sum(s.amount for p in self.pots for s in p.shares if s.seat == seat)

    def to_dict(self) -> dict[str, object]:
        return {
            "pots": [p.to_dict() for p in self.pots],
            "shown": [h.to_dict() for h in self.shown],
            "mucked": list(self.mucked),
            "returned": {str(k): v for k, v in self.returned.items()},
            "final_stacks": {str(k): v for k, v in self.final_stacks.items()},
            "net": {str(k): v for k, v in self.net.items()},
            "showdown": self.showdown,
        }
