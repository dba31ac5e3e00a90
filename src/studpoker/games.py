"""The four games as frozen data records, their house rules and their stakes.

>>> game = get_game("7S")
>>> game.name, [s.name for s in game.streets]
('Seven Card Stud', ['third', 'fourth', 'fifth', 'sixth', 'seventh'])
>>> Stakes.from_bets(500, 1000, game)
Stakes(ante=100, bring_in=250, small_bet=500, big_bet=1000, small_blind=0, big_blind=0)
>>> game.default_house.with_overrides(["max_raises=4"]).max_raises
4
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Literal

GameKind = Literal["stud", "omaha"]
HandType = Literal["high", "low8", "razz"]
BringInRule = Literal["lowest_up_ace_high", "highest_up_ace_low", "none"]
FirstToAct = Literal["best_high_board", "best_low_board", "left_of_button"]
BringInTie = Literal["suit", "position"]
ShowdownFirst = Literal["seat", "board"]
OddChip = Literal["high_card_by_suit", "seat_order"]


class UnknownGameError(ValueError):
    """Raised for a game code that is not one of :data:`GAMES`."""


class HouseRuleError(ValueError):
    """Raised for a house switch that does not exist or a value it cannot take."""


class StakesError(ValueError):
    """Raised for stakes that cannot be played (negative, zero bets, bring-in above the bet)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Street:
    """One street: the cards each player gets (down, up), the board cards, and the bet size.

    ``big_bet`` says whether the round is played in big bets; ``board`` counts community
    cards (Omaha flop 3, turn 1, river 1).
    """

    name: str
    down: int = 0
    up: int = 0
    board: int = 0
    big_bet: bool = False


@dataclass(frozen=True, slots=True, kw_only=True)
class HouseRules:
    """The house switches (docs/rules.md, R-HOUSE-SWITCHES); every field has the rule book's default."""

    fourth_street_double_bet: bool = False
    heads_up_uncapped: bool = True
    max_raises: int = 3
    bring_in_tie: BringInTie = "suit"
    burn_cards: bool = False
    showdown_first: ShowdownFirst = "seat"
    odd_chip: OddChip = "high_card_by_suit"

    def __post_init__(self) -> None:
        if not isinstance(self.max_raises, int) or isinstance(self.max_raises, bool) or self.max_raises < 0:
            raise HouseRuleError(f"max_raises must be a whole number 0 or more, not {self.max_raises!r}")
        for name, allowed in _CHOICES.items():
            value = getattr(self, name)
            if value not in allowed:
                raise HouseRuleError(f"{name} must be one of {' | '.join(allowed)}, not {value!r}")

    def with_overrides(self, items: Iterable[str] | Mapping[str, object]) -> HouseRules:
        """A copy with switches set from ``NAME=VALUE`` texts (or a mapping of typed values).

        >>> HouseRules().with_overrides(["heads_up_uncapped=off", "odd_chip=seat_order"]).odd_chip
        'seat_order'
        """
        changes: dict[str, object] = {}
        if isinstance(items, Mapping):
            for name, value in items.items():
                changes[name] = _parse_switch(name, value)
        else:
            for item in items:
                if not isinstance(item, str) or "=" not in item:
                    raise HouseRuleError(f"house switch {item!r} must be written NAME=VALUE (max_raises=4)")
                name, _, value = item.partition("=")
                name = name.strip()
                changes[name] = _parse_switch(name, value.strip())
        return dataclasses.replace(self, **changes)  # type: ignore[arg-type]

    @staticmethod
    def pokerkit_compat(game: Game | str) -> HouseRules:
        """The game's default house rules switched to PokerKit's behaviour (R-POKERKIT-COMPAT)."""
        record = get_game(game) if isinstance(game, str) else game
        return dataclasses.replace(
            record.default_house, heads_up_uncapped=False, odd_chip="seat_order", showdown_first="board"
        )

    def to_dict(self) -> dict[str, object]:
        return {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}


_CHOICES: dict[str, tuple[str, ...]] = {
    "bring_in_tie": ("suit", "position"),
    "showdown_first": ("seat", "board"),
    "odd_chip": ("high_card_by_suit", "seat_order"),
}
_BOOLEANS = ("fourth_street_double_bet", "heads_up_uncapped", "burn_cards")
_ON = {"on": True, "true": True, "yes": True, "1": True}
_ON.update({"off": False, "false": False, "no": False, "0": False})


def _parse_switch(name: str, value: object) -> object:
    known = (*_BOOLEANS, "max_raises", *_CHOICES)
    if name not in known:
        raise HouseRuleError(f"unknown house switch {name!r}; known switches: {', '.join(known)}")
    if name in _BOOLEANS:
        if isinstance(value, bool):
            return value
        if isinstance(value, str) and value.lower() in _ON:
            return _ON[value.lower()]
        raise HouseRuleError(f"house switch {name} takes on or off, not {value!r}")
    if name == "max_raises":
        if isinstance(value, int) and not isinstance(value, bool):
            number = value
        elif isinstance(value, str) and value.isdigit():
            number = int(value)
        else:
            raise HouseRuleError(f"house switch max_raises takes a whole number 0 or more, not {value!r}")
        return number
    if value not in _CHOICES[name]:
        raise HouseRuleError(f"house switch {name} takes {' | '.join(_CHOICES[name])}, not {value!r}")
    return value


@dataclass(frozen=True, slots=True, kw_only=True)
class Stakes:
    """Integer amounts in the table's smallest unit. Stud uses ante and bring-in, Omaha the blinds."""

    ante: int = 0
    bring_in: int = 0
    small_bet: int
    big_bet: int
    small_blind: int = 0
    big_blind: int = 0

    def __post_init__(self) -> None:
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            if not isinstance(value, int) or isinstance(value, bool) or value < 0:
                raise StakesError(f"stakes {f.name} must be a whole number of units 0 or more, not {value!r}")
        if self.small_bet <= 0 or self.big_bet <= 0:
            raise StakesError(f"the bets must be positive, not {self.small_bet}/{self.big_bet}")
        if self.bring_in > self.small_bet:
            raise StakesError(f"the bring-in {self.bring_in} is above the small bet {self.small_bet}")
        if self.small_blind > self.big_blind:
            raise StakesError(f"the small blind {self.small_blind} is above the big blind {self.big_blind}")

    @classmethod
    def from_bets(cls, small_bet: int, big_bet: int, game: Game | str, **overrides: int) -> Stakes:
        """Derive the forced bets from the two bet sizes (docs/rules.md, R-STAKES).

        Stud: ante = big bet / 10, bring-in = small bet / 2; Omaha: blinds = small bet / 2 and
        the small bet; all rounded down, and any of them can be given in ``overrides``.
        """
        record = get_game(game) if isinstance(game, str) else game
        if record.kind == "stud":
            values = {"ante": big_bet // 10, "bring_in": small_bet // 2, "small_blind": 0, "big_blind": 0}
        else:
            values = {"ante": 0, "bring_in": 0, "small_blind": small_bet // 2, "big_blind": small_bet}
        unknown = set(overrides) - {"ante", "bring_in", "small_blind", "big_blind"}
        if unknown:
            raise StakesError(f"unknown stakes field(s): {', '.join(sorted(unknown))}")
        values.update(overrides)
        return cls(small_bet=small_bet, big_bet=big_bet, **values)

    def to_dict(self) -> dict[str, int]:
        return {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}


@dataclass(frozen=True, slots=True, kw_only=True)
class Game:
    """One game: how it is dealt, bet and won. Look it up with :func:`get_game`."""

    code: str
    name: str
    kind: GameKind
    streets: tuple[Street, ...]
    hand_types: tuple[HandType, ...]
    bring_in: BringInRule
    first_to_act: FirstToAct
    min_players: int = 2
    max_players: int
    default_house: HouseRules

    @property
    def is_stud(self) -> bool:
        return self.kind == "stud"

    @property
    def hi_lo(self) -> bool:
        return "low8" in self.hand_types

    @property
    def cards_per_player(self) -> int:
        return sum(s.down + s.up for s in self.streets)


_STUD_STREETS = (
    Street(name="third", down=2, up=1),
    Street(name="fourth", up=1),
    Street(name="fifth", up=1, big_bet=True),
    Street(name="sixth", up=1, big_bet=True),
    Street(name="seventh", down=1, big_bet=True),
)
_OMAHA_STREETS = (
    Street(name="preflop", down=4),
    Street(name="flop", board=3),
    Street(name="turn", board=1, big_bet=True),
    Street(name="river", board=1, big_bet=True),
)

GAMES: dict[str, Game] = {
    "7S": Game(
        code="7S",
        name="Seven Card Stud",
        kind="stud",
        streets=_STUD_STREETS,
        hand_types=("high",),
        bring_in="lowest_up_ace_high",
        first_to_act="best_high_board",
        max_players=8,
        default_house=HouseRules(fourth_street_double_bet=True),
    ),
    "7S8": Game(
        code="7S8",
        name="Seven Card Stud Hi/Lo, eight or better",
        kind="stud",
        streets=_STUD_STREETS,
        hand_types=("high", "low8"),
        bring_in="lowest_up_ace_high",
        first_to_act="best_high_board",
        max_players=8,
        default_house=HouseRules(),
    ),
    "RZ": Game(
        code="RZ",
        name="Razz",
        kind="stud",
        streets=_STUD_STREETS,
        hand_types=("razz",),
        bring_in="highest_up_ace_low",
        first_to_act="best_low_board",
        max_players=8,
        default_house=HouseRules(),
    ),
    "O8": Game(
        code="O8",
        name="Fixed-limit Omaha Hi/Lo, eight or better",
        kind="omaha",
        streets=_OMAHA_STREETS,
        hand_types=("high", "low8"),
        bring_in="none",
        first_to_act="left_of_button",
        max_players=10,
        default_house=HouseRules(odd_chip="seat_order"),
    ),
}


def get_game(code: str) -> Game:
    """The game with this code (``7S``, ``7S8``, ``RZ``, ``O8``; case-insensitive)."""
    game = GAMES.get(code.upper()) if isinstance(code, str) else None
    if game is None:
        raise UnknownGameError(f"unknown game {code!r}; known games: {', '.join(GAMES)}")
    return game
