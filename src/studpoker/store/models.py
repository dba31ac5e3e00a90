"""Value types the store returns: frozen dataclasses, amounts in integer units (cents)."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from .errors import InvalidInputError

GAMES: tuple[str, ...] = ("7S", "7S8", "RZ", "O8")
MIN_PASSWORD = 8
MAX_PASSWORD = 256


@dataclass(frozen=True, slots=True)
class Account:
    """A player's account; ``bankroll`` is the play money off the tables."""

    id: int
    name: str
    bankroll: int


@dataclass(frozen=True, slots=True)
class Session:
    """A login. Only the holder has ``token``; the database keeps its SHA-256."""

    token: str
    account_id: int
    expires_at: datetime


@dataclass(frozen=True, slots=True)
class TableConfig:
    """Everything that defines a table. Amounts in units (cents), times in seconds.

    ``house`` holds house switches as text (``"max_raises=4 burn_cards=on"``), passed through.
    Use :meth:`derive` to get the rule book's defaults (docs/rules.md, R-STAKES) from the two bet sizes.
    """

    name: str
    game: str
    small_bet: int
    big_bet: int
    ante: int
    bring_in: int
    small_blind: int
    big_blind: int
    max_seats: int
    min_buy_in: int
    max_buy_in: int
    think_seconds: int = 10
    countdown_seconds: int = 20
    house: str = ""

    @classmethod
    def derive(
        cls,
        name: str,
        game: str,
        small_bet: int,
        big_bet: int,
        *,
        max_seats: int | None = None,
        ante: int | None = None,
        bring_in: int | None = None,
        min_buy_in: int | None = None,
        max_buy_in: int | None = None,
        think_seconds: int = 10,
        countdown_seconds: int = 20,
        house: str = "",
    ) -> TableConfig:
        """The rule book's defaults (R-STAKES): ante = big bet / 10, bring-in = small bet / 2,
        blinds = small bet / 2 and small bet (O8), buy-in from 10 to 50 big bets, 8 seats (10 in O8)."""
        is_omaha = game == "O8"
        return cls(
            name=name,
            game=game,
            small_bet=small_bet,
            big_bet=big_bet,
            ante=(0 if is_omaha else big_bet // 10) if ante is None else ante,
            bring_in=(0 if is_omaha else small_bet // 2) if bring_in is None else bring_in,
            small_blind=small_bet // 2 if is_omaha else 0,
            big_blind=small_bet if is_omaha else 0,
            max_seats=(10 if is_omaha else 8) if max_seats is None else max_seats,
            min_buy_in=10 * big_bet if min_buy_in is None else min_buy_in,
            max_buy_in=50 * big_bet if max_buy_in is None else max_buy_in,
            think_seconds=think_seconds,
            countdown_seconds=countdown_seconds,
            house=house,
        )

    def validate(self) -> None:
        """Raise :class:`InvalidInputError` naming the first bad field."""
        if not isinstance(self.name, str) or not 1 <= len(self.name.strip()) <= 40:
            raise InvalidInputError(f"table name must be 1 to 40 characters, not {self.name!r}")
        if self.game not in GAMES:
            raise InvalidInputError(f"unknown game {self.game!r}: use one of {', '.join(GAMES)}")
        for key in (
            "small_bet", "big_bet", "ante", "bring_in", "small_blind", "big_blind",
            "max_seats", "min_buy_in", "max_buy_in", "think_seconds", "countdown_seconds",
        ):  # fmt: skip
            value = getattr(self, key)
            if not isinstance(value, int) or isinstance(value, bool) or value < 0:
                raise InvalidInputError(f"table {key} must be a whole number >= 0, not {value!r}")
        if self.small_bet <= 0 or self.big_bet < self.small_bet:
            raise InvalidInputError(
                f"bets must satisfy 0 < small bet <= big bet, not {self.small_bet}/{self.big_bet}"
            )
        most = 10 if self.game == "O8" else 8
        if not 2 <= self.max_seats <= most:
            raise InvalidInputError(f"{self.game} tables seat 2 to {most} players, not {self.max_seats}")
        if not 0 < self.min_buy_in <= self.max_buy_in:
            raise InvalidInputError(
                f"buy-in limits must satisfy 0 < min <= max, not {self.min_buy_in}..{self.max_buy_in}"
            )
        if self.think_seconds <= 0 or self.countdown_seconds < 0:
            raise InvalidInputError("the clock needs think_seconds > 0 and countdown_seconds >= 0")


@dataclass(frozen=True, slots=True)
class TableRecord:
    """A table as stored: its id and its configuration."""

    id: int
    config: TableConfig

    @property
    def name(self) -> str:
        return self.config.name

    @property
    def game(self) -> str:
        return self.config.game


@dataclass(frozen=True, slots=True)
class SeatRecord:
    """An occupied seat: who sits there and the chips in front of him."""

    table_id: int
    seat: int
    account_id: int
    name: str
    stack: int


@dataclass(frozen=True, slots=True)
class HandSeat:
    """One player's part in a hand: stack at the start, chips put in and won (0 until finished)."""

    seat: int
    account_id: int
    name: str
    starting_stack: int
    contribution: int = 0
    award: int = 0

    @property
    def net(self) -> int:
        return self.award - self.contribution


@dataclass(frozen=True, slots=True)
class DealSeeds:
    """The seeds a verifiable deal's deck comes from (``studpoker.fairness.deck_from_seeds``):
    the server's secret seed and the players' ``(seat, seed)`` pairs in seat order."""

    server_seed: bytes
    client_seeds: tuple[tuple[int, bytes], ...] = ()


@dataclass(frozen=True, slots=True)
class HandRecord:
    """A hand: ``status`` is ``in_progress``, ``finished`` or ``void``.

    ``deck_order`` (the 52 cards, top first, e.g. ``"As Kd ..."``) is stored when the hand
    finishes. A verifiable deal (docs/fairness.md) has its ``server_seed`` (hex: the operator's
    and the auditor's only), ``seed_commitment``, ``deck_root`` (also in ``commitment``) and the
    ``client_seeds`` (seat, hex) that went into the deck, all from the start of the hand. A hand
    dealt before them (migration 0003) has none of these but a ``salt``: its ``commitment`` is
    the SHA-256 of the whole deck (``studpoker.cards.commitment``).
    """

    id: str
    table_id: int
    status: str
    commitment: str
    started_at: datetime
    finished_at: datetime | None
    seats: dict[int, HandSeat]
    phh: str | None = None
    text: str | None = None
    deck_order: str | None = None
    salt: str | None = None
    void_reason: str | None = None
    server_seed: str | None = None
    seed_commitment: str | None = None
    deck_root: str | None = None
    client_seeds: tuple[tuple[int, str], ...] = ()

    @property
    def verifiable(self) -> bool:
        """Dealt from seeds, with per-card openings (not the older whole-deck commitment)."""
        return self.server_seed is not None


@dataclass(frozen=True, slots=True)
class AuditReport:
    """The result of :meth:`Store.audit`. ``balanced`` is True only when every check passes."""

    balanced: bool
    grants: int
    bankrolls: int
    seats: int
    in_hands: int
    transactions: int
    entries: int
    details: list[str] = field(default_factory=list)

    def render(self) -> str:
        """The report as text, one line per figure and one per problem."""
        lines = [
            f"grants ever made      {_money(self.grants)}",
            f"bankrolls             {_money(self.bankrolls)}",
            f"chips on table seats  {_money(self.seats)}",
            f"chips in open hands   {_money(self.in_hands)}",
            f"held in total         {_money(self.bankrolls + self.seats + self.in_hands)}",
            f"ledger                {self.transactions} transactions, {self.entries} entries",
            "BALANCED" if self.balanced else "NOT BALANCED",
        ]
        lines.extend(f"  - {d}" for d in self.details)
        return "\n".join(lines)


def _money(units: int) -> str:
    sign = "-" if units < 0 else ""
    whole, cents = divmod(abs(units), 100)
    return f"{sign}{whole:,}.{cents:02d} ({units} units)"
