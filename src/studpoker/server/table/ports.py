"""The table actor's ports: all it needs of the world, as small typed protocols.

The actor imports no room, no store and no event loop timer: it is handed a :class:`TablePorts`.
In one process the room stands behind them (``adapters.py``); in a cluster a broker and
PostgreSQL can, without the actor changing. Each port says what its errors mean.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol

from studpoker.cards import Card
from studpoker.engine import Hand

from ..deals import DealInPlay
from ..protocol import ServerMsg
from .seats import SeatState


class Sender(Protocol):
    """Where a viewer's messages go. Never blocks (a slow client is dropped by its side)."""

    def send(self, message: ServerMsg) -> None: ...

    def send_encoded(self, text: str, message: ServerMsg) -> None:
        """``message`` already encoded as ``text`` (the same text goes to many viewers)."""
        ...


class Viewer(Sender, Protocol):
    """A connection as a table sees it: who it is, and where its messages go."""

    @property
    def id(self) -> int: ...

    @property
    def account_id(self) -> int: ...

    @property
    def name(self) -> str: ...

    @property
    def is_bot(self) -> bool: ...

    @property
    def tables(self) -> set[int]:
        """The tables it watches: a table adds itself on a watch and removes itself on leaving."""
        ...


@dataclass(frozen=True, slots=True)
class HandEnd:
    """A finished hand as the store records it (its money comes from the engine's result)."""

    hand: Hand
    hand_id: str
    contributions: dict[int, int]  # seat -> chips put in
    awards: dict[int, int]  # seat -> chips won from the pots
    deck_order: tuple[Card, ...]
    accounts: dict[int, int]  # seat -> account id of each seat dealt in
    table_name: str
    # Engine event version -> seconds of his time bank the seat used for the decision that event
    # ended (R-TIME-BANK): the histories note them on the action.
    time_banks: dict[int, float] = field(default_factory=dict)
    # A timeout's engine event version -> the day's protected all-ins (used, allowed) its words
    # counted (R-PROTECTED-ALL-INS-PER-DAY): the histories note them, and the replays say them.
    protected_counts: dict[int, tuple[int, int]] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class HandStatus:
    """A hand as the store has it: ``in_progress``, ``finished`` or ``void`` (and why)."""

    status: str
    void_reason: str | None = None


class TableStore(Protocol):
    """The store, for one table. A refusal the player is told about raises ``TableError`` (with
    its protocol code); any other exception means the store failed (the actor answers
    ``unavailable``, or keeps a finished hand pending and retries)."""

    async def buy_in(self, account_id: int, seat: int, amount: int) -> None: ...

    async def add_chips(self, account_id: int, seat: int, amount: int) -> None: ...

    async def cash_out(self, seat: SeatState) -> None: ...

    async def start_hand(self, hand_id: str, deal: DealInPlay, players: list[SeatState]) -> None: ...

    async def finish_hand(self, end: HandEnd) -> None: ...

    async def void_hand(self, hand_id: str, reason: str) -> None:
        """Abandon the hand: every contribution goes back to its seat."""
        ...

    async def hand_status(self, hand_id: str) -> HandStatus: ...

    async def use_protected_all_in(self, account_id: int) -> bool:
        """Spend one of the account's protected all-ins of the day; False when none is left."""
        ...

    async def protected_all_ins_today(self, account_id: int) -> tuple[int, int]:
        """The account's protected all-ins spent today and the daily limit: (used, allowed)."""
        ...


class LobbyNotifier(Protocol):
    """The lobby: told when a table's line (its summary, its seats) changed."""

    def lobby_changed(self, table_id: int) -> None: ...


class Presence(Protocol):
    """Who is connected: a seated player with no connection watching his table (and no bot
    connection) is shown disconnected."""

    def is_connected(self, account_id: int, table_id: int) -> bool: ...


class Timer(Protocol):
    def cancel(self) -> None: ...


class Clock(Protocol):
    """Time for the table: ``now`` in Unix seconds (the deadlines clients are sent), and timers."""

    def now(self) -> float: ...

    def call_later(self, delay: float, callback: Callable[[], None]) -> Timer: ...


@dataclass(frozen=True, slots=True)
class TablePorts:
    store: TableStore
    lobby: LobbyNotifier
    presence: Presence
    clock: Clock
