"""A PokerStars hand as the file writes it: the records the reader fills, and its errors.

:class:`ParsedHand` holds the header, the seats, one :class:`Entry` per understood line before
the summary and the summary's figures; :class:`PokerStarsError` names the file, the hand and the
line of whatever cannot be read or replayed; :class:`SkippedHand` stands for a hand that is not
ours to read (another game, a cancelled hand).
"""

from __future__ import annotations

import datetime
from dataclasses import dataclass, field

from studpoker.cards import Card
from studpoker.history.pokerstars.format import Denomination


class PokerStarsError(ValueError):
    """A hand that cannot be read or replayed: ``FILE: hand #N, line L: reason``."""

    def __init__(self, reason: str, *, file: str, hand: str | None = None, line: int | None = None) -> None:
        self.reason = reason
        self.file = file
        self.hand = hand
        self.line = line
        super().__init__(str(self))

    def __str__(self) -> str:
        where = []
        if self.hand is not None:
            where.append(f"hand #{self.hand}")
        if self.line is not None:
            where.append(f"line {self.line}")
        return f"{self.file}: {', '.join(where)}: {self.reason}" if where else f"{self.file}: {self.reason}"


@dataclass(frozen=True, slots=True)
class SkippedHand:
    """A hand that is not ours to read (another game, a cancelled hand): not an error."""

    file: str
    hand: str | None
    line: int
    reason: str

    def __str__(self) -> str:
        return f"{self.file}: hand #{self.hand or '?'}, line {self.line}: skipped: {self.reason}"


class HandSkippedError(Exception):
    """Raised while reading a hand that is not ours to read; the file's reader yields a
    :class:`SkippedHand` in its place (the reader knows the file's name, the raiser may not)."""

    def __init__(self, number: str | None, line: int, reason: str) -> None:
        super().__init__(reason)
        self.number = number
        self.line = line
        self.reason = reason


@dataclass(frozen=True, slots=True)
class SeatLine:
    seat: int
    name: str
    stack: int
    sitting_out: bool
    line: int


@dataclass(frozen=True, slots=True)
class Entry:
    """One understood line before the summary.

    ``kind``: ``street`` (``street`` set; ``cards`` the new board cards), ``dealt`` (``cards``
    the new cards, ``old`` the first bracket), ``ante``, ``blind`` (``verb`` small|big),
    ``bring_in``, ``action`` (``verb`` folds|checks|calls|bets|raises; ``amount`` the chips
    added, ``to`` the round total of a raise), ``timeout``, ``protected``, ``uncalled``,
    ``collected``, ``show`` (``cards``), ``muck``, ``showdown``.
    """

    line: int
    kind: str
    player: str | None = None
    verb: str | None = None
    amount: int | None = None
    to: int | None = None
    all_in: bool = False
    cards: tuple[Card, ...] = ()
    old: tuple[Card, ...] | None = None
    street: str | None = None


@dataclass(frozen=True, slots=True)
class SummarySeat:
    """A summary seat line: the amounts it says the player won, the cards it shows (``mucked``:
    the cards of a hand it says he mucked)."""

    line: int
    name: str
    won: tuple[int, ...]
    cards: tuple[Card, ...] | None
    mucked: bool = False


@dataclass(slots=True)
class ParsedHand:
    """One hand as the file writes it (amounts in units: cents, or chips in tournaments)."""

    source: str
    number: str
    first_line: int
    game: str
    money: Denomination
    small_bet: int
    big_bet: int
    table: str
    seat_count: int | None
    button: int | None
    time: datetime.datetime | None
    time_zone: str | None
    tournament: str | None = None  # "Tournament #N, <buy-in>"
    level: int | None = None
    seats: list[SeatLine] = field(default_factory=list)
    entries: list[Entry] = field(default_factory=list)
    total_pot: int | None = None
    rake: int = 0
    summary_line: int | None = None
    board: tuple[Card, ...] = ()
    summary_seats: dict[str, SummarySeat] = field(default_factory=dict)
    text: list[str] = field(default_factory=list)  # the hand's lines, from ``first_line``

    def line_text(self, line: int) -> str:
        index = line - self.first_line
        return self.text[index].strip() if 0 <= index < len(self.text) else ""

    def error(self, reason: str, line: int | None = None) -> PokerStarsError:
        return PokerStarsError(reason, file=self.source, hand=self.number, line=line)
