"""What a replay is made of: its steps, the table after each, the equity, a stored hand's public
view and a dropped file's replays.

Plain frozen records, and the one definition of the replay routes' JSON (server/api/replays.py
names them as response models): a field's docstring is its description in /openapi.json.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from pydantic import ConfigDict, with_config

Viewer = int | Literal["all"] | None
"""A seat number (his cards and what he was shown), ``None`` (a watcher) or ``"all"`` (every card
a history file knows)."""
Sees = Literal["seat", "watcher", "everything"]
Units = Literal["cents", "chips"]


class ReplayFileError(ValueError):
    """A dropped file that cannot be replayed at all (the reason names the hand and line)."""


class ReplayBusyError(RuntimeError):
    """Every replay slot is taken: try again shortly."""


# As the routes' JSON: an attribute's docstring is its description in the OpenAPI document, and
# every field is in every answer (a default makes no field optional there).
_AS_JSON = ConfigDict(use_attribute_docstrings=True, json_schema_serialization_defaults_required=True)

# ----------------------------------------------------------------------------- the steps


@with_config(_AS_JSON)
@dataclass(frozen=True, slots=True)
class StepEvent:
    """One engine event as the viewer may read it (cards he may not see are None)."""

    kind: str
    seat: int | None = None
    street: str | None = None
    cards: tuple[str | None, ...] | None = None
    amount: int | None = None
    action: str | None = None
    all_in: bool = False
    pot: int | None = None
    detail: str | None = None


@with_config(_AS_JSON)
@dataclass(frozen=True, slots=True)
class SeatState:
    seat: int
    stack: int
    bet: int
    contributed: int
    folded: bool
    all_in: bool
    mucked: bool
    shown: bool
    down: tuple[str | None, ...]
    """down cards in dealing order; null: not seen by the viewer"""
    up: tuple[str | None, ...]


@with_config(_AS_JSON)
@dataclass(frozen=True, slots=True)
class PotState:
    amount: int
    eligible: tuple[int, ...]


@with_config(_AS_JSON)
@dataclass(frozen=True, slots=True)
class PlayerEquity:
    seat: int
    equity: float
    """share of the pot (hi/lo: both halves), 0 to 1"""
    high: float | None
    """hi/lo: expected share of the high half"""
    low: float | None
    """hi/lo: expected share of the low half"""
    margin95: float
    """half-width of the 95 % interval of equity (0 when exact)"""


@with_config(_AS_JSON)
@dataclass(frozen=True, slots=True)
class StepEquity:
    exact: bool
    method: str
    """inclusion-exclusion, enumeration, monte-carlo, or result (the last step: shares won)"""
    deals: int
    """runouts counted (exact) or deals sampled"""
    players: tuple[PlayerEquity, ...]


@with_config(_AS_JSON)
@dataclass(frozen=True, slots=True)
class ReplayStep:
    index: int
    version: int
    """the engine's event version after the step"""
    kind: str
    """post, deal, action, timeout, expose, show, muck, return or award"""
    street: str
    seat: int | None  # who acted (single-seat steps)
    action: str | None
    amount: int | None
    """an action's 'to' amount (the round total); a return's or award's chips"""
    added: int | None
    """chips the action put in"""
    all_in: bool
    timeout: str | None
    """the clock's doing: check, fold, bring_in or protected_all_in"""
    events: tuple[StepEvent, ...]
    seats: tuple[SeatState, ...]
    pots: tuple[PotState, ...]
    board: tuple[str, ...]
    equity: StepEquity | None = None
    """each live player's equity from the cards the viewer saw: after each street, a show, the end"""
    equity_note: str | None = None
    """why a step that should have equity has none"""
    time_bank: float | None = None
    """the seconds of his time bank the player used on this decision (R-TIME-BANK)"""
    notes: tuple[str, ...] = ()
    """what the table said of this step, in words: the time bank used, what the clock did"""


@with_config(_AS_JSON)
@dataclass(frozen=True, slots=True)
class ReplayPlayer:
    seat: int
    name: str
    starting_stack: int


@with_config(_AS_JSON)
@dataclass(frozen=True, slots=True)
class ReplayStakes:
    small_bet: int
    big_bet: int
    ante: int
    bring_in: int
    small_blind: int
    big_blind: int


@with_config(_AS_JSON)
@dataclass(frozen=True, slots=True)
class Replay:
    hand: str  # the hand's id or number
    game: str
    game_name: str
    table: str | None
    viewer: int | None
    """the seat whose view this is (null: a watcher's or everything)"""
    sees: Sees
    units: Units  # amounts in cents (shown as money) or in chips
    currency_symbol: str
    stakes: ReplayStakes
    max_seats: int
    button: int | None
    bring_in_seat: int | None
    players: tuple[ReplayPlayer, ...]
    steps: tuple[ReplayStep, ...]
    final_stacks: dict[int, int]
    result: dict[str, object]  # engine/result.py HandResult.to_dict()
    """the hand's result: pots and shares, hands shown, mucked seats"""
    rake: int = 0
    equity_complete: bool = True
    """false: some steps have no equity (the request's time ran out)"""
    number: int | None = None
    """a dropped file's hand: its place in the file (for ?hand=N)"""


@with_config(_AS_JSON)
@dataclass(frozen=True, slots=True)
class PublicHand:
    """What a watcher of a finished hand saw: his PHH copy and text, and the replay."""

    id: str
    table_id: int
    table: str
    started_at: str
    finished_at: str | None
    phh: str
    """a watcher's PHH copy: down cards never shown are ??"""
    text: str
    replay: Replay


@with_config(_AS_JSON)
@dataclass(frozen=True, slots=True)
class FileReplay:
    """A dropped file's hands; ``problems`` are the hands left out (errors and skips)."""

    format: Literal["phh", "pokerstars"]
    hands: tuple[Replay, ...]
    problems: tuple[str, ...]
    """hands left out: each error or skip with its hand and line"""
    total_hands: int
