"""Player actions, the legal-action view and the error for an illegal action."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from enum import StrEnum


class ActionKind(StrEnum):
    FOLD = "fold"
    CHECK = "check"
    CALL = "call"
    BRING_IN = "bring_in"
    COMPLETE = "complete"
    BET = "bet"
    RAISE = "raise"


AGGRESSIVE = frozenset({ActionKind.COMPLETE, ActionKind.BET, ActionKind.RAISE})

# The kinds as module names, for the hot paths of the betting round (betting.py, options.py):
# a global look-up is cheaper than the enum's attribute.
FOLD, CHECK, CALL = ActionKind.FOLD, ActionKind.CHECK, ActionKind.CALL
BRING_IN, COMPLETE, BET, RAISE = ActionKind.BRING_IN, ActionKind.COMPLETE, ActionKind.BET, ActionKind.RAISE


@dataclass(frozen=True, slots=True, kw_only=True)
class Action:
    """What a player does. ``amount`` is his total bet in this round after the action.

    For fold and check ``amount`` may be left out; for the others it is the "to" amount,
    as in PHH ``cbr`` (a call's amount may be left out too: it is implied).
    """

    kind: ActionKind
    amount: int | None = None

    def __str__(self) -> str:
        return self.kind.value if self.amount is None else f"{self.kind.value} {self.amount}"


@dataclass(frozen=True, slots=True, kw_only=True)
class LegalOption:
    """One legal action with its exact "to" amount (the player's round total after it)."""

    kind: ActionKind
    amount: int
    all_in: bool = False
    # The option as an Action, made on first use: the engine interns its options, so drivers
    # that apply ``option.action`` share one Action per option.
    _action: Action | None = field(default=None, init=False, repr=False, compare=False)

    @property
    def action(self) -> Action:
        action = self._action
        if action is None:
            action = Action(kind=self.kind, amount=self.amount)
            object.__setattr__(self, "_action", action)
        return action

    def to_dict(self) -> dict[str, object]:
        return {"kind": self.kind.value, "amount": self.amount, "all_in": self.all_in}


@dataclass(frozen=True, slots=True, kw_only=True)
class LegalActions:
    """Who acts and what he may do; empty when the hand is over.

    ``action in legal`` tests an :class:`Action`; iterate for the options.
    """

    seat: int | None
    options: tuple[LegalOption, ...] = ()

    def __iter__(self) -> Iterator[LegalOption]:
        return iter(self.options)

    def __len__(self) -> int:
        return len(self.options)

    def __contains__(self, action: object) -> bool:
        if not isinstance(action, Action):
            return False
        for option in self.options:
            if option.kind is action.kind and (
                (action.amount is None and option.kind in _AMOUNT_OPTIONAL) or option.amount == action.amount
            ):
                return True
        return False

    def kinds(self) -> tuple[ActionKind, ...]:
        return tuple(dict.fromkeys(o.kind for o in self.options))

    def find(self, kind: ActionKind, amount: int | None = None) -> LegalOption | None:
        """The option of this kind (and amount, when several amounts are legal), or None."""
        for option in self.options:
            if option.kind is kind and (amount is None or option.amount == amount):
                return option
        return None

    def to_dict(self) -> dict[str, object]:
        return {"seat": self.seat, "options": [o.to_dict() for o in self.options]}


_AMOUNT_OPTIONAL = frozenset({ActionKind.FOLD, ActionKind.CHECK, ActionKind.CALL, ActionKind.BRING_IN})


class IllegalActionError(ValueError):
    """An action that the rules do not allow now; the message names the action, seat and reason."""

    def __init__(self, message: str, *, seat: int | None = None, action: Action | None = None) -> None:
        super().__init__(message)
        self.seat = seat
        self.action = action
