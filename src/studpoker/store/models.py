"""Value types the store returns: frozen dataclasses, amounts in integer units (cents)."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from studpoker.games import GAMES as GAME_RECORDS
from studpoker.games import Game
from studpoker.money import format_money

from .errors import InvalidInputError

GAMES: tuple[str, ...] = tuple(GAME_RECORDS)  # the codes a table may play (studpoker.games)
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
        """The rule book's defaults (R-STAKES): the forced bets by the game's rule
        (:class:`studpoker.games.ForcedBetRule`: stud ante = big bet / 10, bring-in = small bet / 2,
        Omaha blinds = small bet / 2 and small bet), the game's most seats, buy-in from 10 to 50
        big bets. An unknown game raises :class:`InvalidInputError`."""
        record = _game(game)
        forced = record.forced_bets.amounts(small_bet, big_bet)
        return cls(
            name=name,
            game=game,
            small_bet=small_bet,
            big_bet=big_bet,
            ante=forced["ante"] if ante is None else ante,
            bring_in=forced["bring_in"] if bring_in is None else bring_in,
            small_blind=forced["small_blind"],
            big_blind=forced["big_blind"],
            max_seats=record.max_players if max_seats is None else max_seats,
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
        record = _game(self.game)
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
        fewest, most = record.min_players, record.max_players
        if not fewest <= self.max_seats <= most:
            raise InvalidInputError(
                f"{self.game} tables seat {fewest} to {most} players, not {self.max_seats}"
            )
        if not 0 < self.min_buy_in <= self.max_buy_in:
            raise InvalidInputError(
                f"buy-in limits must satisfy 0 < min <= max, not {self.min_buy_in}..{self.max_buy_in}"
            )
        if self.think_seconds <= 0 or self.countdown_seconds < 0:
            raise InvalidInputError("the clock needs think_seconds > 0 and countdown_seconds >= 0")


def _game(code: object) -> Game:
    """The game a table plays: its exact code (aliases are for people, not stored tables)."""
    record = GAME_RECORDS.get(code) if isinstance(code, str) else None
    if record is None:
        raise InvalidInputError(f"unknown game {code!r}: use one of {', '.join(GAMES)}")
    return record


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
class HandTournament:
    """Where a tournament hand was dealt (its amounts are tournament chips, not money): the
    tournament, its table number, the level of the hand, the buy-in and fee (money units)."""

    id: int
    name: str
    table_no: int
    level: int
    buy_in: int
    fee: int


@dataclass(frozen=True, slots=True)
class HandRecord:
    """A hand: ``status`` is ``in_progress``, ``finished`` or ``void``.

    A tournament hand (``tournament`` set: ``store/tournament_hand_reads.py``) was dealt at no
    cash table: its ``table_id`` is 0 and its seats come from its history.

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
    tournament: HandTournament | None = None

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
    # the one money format of the table, the histories and the command line: two decimals
    return format_money(units)
