"""Level structures: the stakes of every level, the level times and the breaks.

A level is written as one **big bet**; every game's stakes follow from it (docs/tournaments.md,
R-TOURNAMENT-STRUCTURE): the small bet is half the big bet, and the forced bets come from the
game's own :class:`~studpoker.games.ForcedBetRule` through :meth:`Stakes.from_bets
<studpoker.games.Stakes.from_bets>`, the ratios the room's cash tables use (stud: ante a tenth of
the big bet, bring-in half the small bet; board games: blinds of half the small bet and the small
bet). So one structure serves a single game and a whole rotation alike. A level may also give
its amounts outright (a stud structure's own ante and bring-in, a board structure's own blinds).

>>> from studpoker.games import find_game
>>> level = Level(big_bet=200, seconds=300)
>>> level.stakes(find_game("stud"))
Stakes(ante=20, bring_in=50, small_bet=100, big_bet=200, small_blind=0, big_blind=0)
>>> level.stakes(find_game("omaha8"))
Stakes(ante=0, bring_in=0, small_bet=100, big_bet=200, small_blind=50, big_blind=100)
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from fractions import Fraction

from studpoker.games import GAMES, Game, Stakes, StakesError


class StructureError(ValueError):
    """Raised for a structure that cannot be played: the message names the level and the reason."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Level:
    """One level: its big bet (the small bet is half of it unless given), optional forced bets
    given outright, and how long it lasts in seconds."""

    big_bet: int
    seconds: int
    small_bet: int | None = None
    ante: int | None = None  # stud games
    bring_in: int | None = None  # stud games
    small_blind: int | None = None  # board games
    big_blind: int | None = None  # board games

    @property
    def limits(self) -> tuple[int, int]:
        """The small and the big bet."""
        small = self.small_bet if self.small_bet is not None else self.big_bet // 2
        return small, self.big_bet

    def stakes(self, game: Game) -> Stakes:
        """This level's stakes in ``game`` (a stud game's ante and bring-in, a board game's blinds)."""
        small, big = self.limits
        given = (
            {"ante": self.ante, "bring_in": self.bring_in}
            if game.is_stud
            else {"small_blind": self.small_blind, "big_blind": self.big_blind}
        )
        return Stakes.from_bets(small, big, game, **{k: v for k, v in given.items() if v is not None})


@dataclass(frozen=True, slots=True, kw_only=True)
class Break:
    """A pause between two levels: no hand is dealt."""

    seconds: int


Period = Level | Break


@dataclass(frozen=True, slots=True, kw_only=True)
class Structure:
    """A named schedule of levels and breaks with the starting stack (tournament chips).

    After its last level the structure goes on at that level for ever. Building one checks it
    (:class:`StructureError` otherwise): a level first and last, no two breaks together, whole
    positive amounts and times, bets that never go down, and stakes every game of the registry
    can be dealt at, each derived amount exact (no level whose ratios would round a chip away).
    """

    name: str
    title: str
    starting_stack: int
    periods: tuple[Period, ...]

    def __post_init__(self) -> None:
        _check_structure(self)

    @property
    def levels(self) -> tuple[Level, ...]:
        return tuple(p for p in self.periods if isinstance(p, Level))

    def level(self, number: int) -> Level:
        """Level ``number`` (1 for the first); past the last, the last level."""
        if number < 1:
            raise StructureError(f"levels are numbered from 1, not {number}")
        levels = self.levels
        return levels[min(number, len(levels)) - 1]

    def to_dict(self) -> dict[str, object]:
        periods: list[dict[str, object]] = []
        number = 0
        for period in self.periods:
            if isinstance(period, Break):
                periods.append({"break": True, "seconds": period.seconds})
                continue
            number += 1
            small, big = period.limits
            periods.append({"level": number, "small_bet": small, "big_bet": big, "seconds": period.seconds})
        return {
            "name": self.name,
            "title": self.title,
            "starting_stack": self.starting_stack,
            "periods": periods,
        }


def levels_from_big_bets(big_bets: Iterable[int], *, seconds: int) -> tuple[Level, ...]:
    """Levels of the same length from their big bets."""
    return tuple(Level(big_bet=big, seconds=seconds) for big in big_bets)


def with_breaks(levels: Sequence[Level], *, every: int, seconds: int) -> tuple[Period, ...]:
    """The levels with a break after every ``every`` of them (none after the last)."""
    if every < 1:
        raise StructureError(f"a break comes after 1 level or more, not {every}")
    periods: list[Period] = []
    for index, level in enumerate(levels, start=1):
        periods.append(level)
        if index % every == 0 and index < len(levels):
            periods.append(Break(seconds=seconds))
    return tuple(periods)


def _whole(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _check_structure(structure: Structure) -> None:
    if not isinstance(structure.name, str) or not structure.name.strip():
        raise StructureError("a structure needs a name")
    if not _whole(structure.starting_stack) or structure.starting_stack <= 0:
        raise StructureError(f"{structure.name}: the starting stack must be a whole number above 0")
    periods = structure.periods
    if not periods or not isinstance(periods[0], Level) or not isinstance(periods[-1], Level):
        raise StructureError(f"{structure.name}: a structure starts and ends with a level")
    previous: Period | None = None
    last_limits = (0, 0)
    number = 0
    for period in periods:
        if not isinstance(period, Level | Break):
            raise StructureError(f"{structure.name}: {period!r} is neither a level nor a break")
        if not _whole(period.seconds) or period.seconds <= 0:
            raise StructureError(f"{structure.name}: every period lasts a whole number of seconds above 0")
        if isinstance(period, Break):
            if isinstance(previous, Break):
                raise StructureError(f"{structure.name}: two breaks in a row")
        else:
            number += 1
            _check_level(structure.name, number, period, last_limits)
            last_limits = period.limits
        previous = period


def _check_level(name: str, number: int, level: Level, last_limits: tuple[int, int]) -> None:
    where = f"{name} level {number}"
    for field in ("big_bet", "small_bet", "ante", "bring_in", "small_blind", "big_blind"):
        value = getattr(level, field)
        if value is not None and (not _whole(value) or value < 0):
            raise StructureError(f"{where}: {field} must be a whole number of chips, not {value!r}")
    if level.small_bet is None and level.big_bet % 2:
        raise StructureError(f"{where}: the big bet {level.big_bet} is odd; give the small bet")
    small, big = level.limits
    if not 0 < small <= big:
        raise StructureError(
            f"{where}: the bets {small}/{big} must be above 0, the small one not above the big"
        )
    if small < last_limits[0] or big < last_limits[1]:
        raise StructureError(
            f"{where}: the bets {small}/{big} go down from {last_limits[0]}/{last_limits[1]}"
        )
    for game in GAMES.values():
        try:
            stakes = level.stakes(game)
        except StakesError as error:
            raise StructureError(f"{where} in {game.code}: {error}") from None
        if game.is_stud and not 0 < stakes.bring_in < stakes.small_bet:
            raise StructureError(
                f"{where} in {game.code}: the bring-in must be above 0 and below the small bet"
            )
        if not game.is_stud and stakes.big_blind <= 0:
            raise StructureError(f"{where} in {game.code}: the big blind must be above 0")
        _check_exact(where, level, game)


def _check_exact(where: str, level: Level, game: Game) -> None:
    """The ratios give whole chips at this level: nothing is rounded away (decided here)."""
    small, big = level.limits
    rule = game.forced_bets
    derived = {
        "ante": (big * rule.ante, level.ante),
        "bring_in": (small * rule.bring_in, level.bring_in),
        "small_blind": (small * rule.small_blind, level.small_blind),
        "big_blind": (small * rule.big_blind, level.big_blind),
    }
    for field, (exact, given) in derived.items():
        if given is None and Fraction(exact).denominator != 1:
            raise StructureError(
                f"{where} in {game.code}: the {field.replace('_', '-')} would be {float(exact):g}: "
                "choose a big bet the ratios divide, or give it"
            )
