"""The games: one frozen record per game holding every fact of it, and the one registry.

>>> game = find_game("stud")  # a code or an alias, any case
>>> game.code, game.name, [s.name for s in game.streets]
('7S', 'Seven Card Stud', ['third', 'fourth', 'fifth', 'sixth', 'seventh'])
>>> game.phh_variant, game.pokerstars_title, game.max_players
('F7S', '7 Card Stud', 8)
>>> Stakes.from_bets(500, 1000, game)
Stakes(ante=100, bring_in=250, small_bet=500, big_bet=1000, small_blind=0, big_blind=0)
>>> game.default_house.with_overrides(["max_raises=4"]).max_raises
4

Every other module reads the games from :data:`GAMES` (code -> :class:`Game`), :func:`find_game`,
:func:`game_of_phh_variant` and :func:`game_of_pokerstars_title`; none keeps a table of its own
(``tests/test_games_registry.py`` checks that), and the browser reads them from ``GET /api/games``.

Adding a game is one new :class:`Game` record in ``_RECORDS`` below, with every field given, plus
its rules where they are new:

* nothing more when it is dealt and ranked as a game already here (another stud game with the
  known hand types, say): the engine, the store's stakes and seats, PHH and PokerStars
  histories, equity, the lobby and the browser all follow the record;
* a new hand type (:data:`HandType`): its evaluators in :mod:`studpoker.evaluate` (scalar
  ``NAME`` and ``NAME_value``, batch ``batch_NAME``) and its place in the engine's showdown
  (``engine/showdown.py``);
* a new bring-in or first-to-act rule (:data:`BringInRule`, :data:`FirstToAct`): the engine's
  showing (``engine/showing.py``, ``engine/state.py``);
* a new kind of deal (:data:`GameKind`, as hold'em's two hole cards were): every place that
  branches on ``Game.kind`` / ``is_stud`` / ``has_button`` / ``two_plus_three`` / ``hole_cards`` /
  ``board`` (the engine's dealing, showing and showdown, the PHH
  deal order in ``history/phh/deal.py``, the PokerStars street markers, the equity solvers in
  ``equity/``);
* and its rules in docs/rules.md, with the tests those rules name.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Literal

GameKind = Literal["stud", "omaha", "holdem"]
"""How cards are dealt and used: ``stud`` (each player's own down and up cards, best five of
them), ``omaha`` (four hole cards and a board; exactly two of the hole cards and three of the
board make a hand) or ``holdem`` (two hole cards and a board; the best five of the seven, in any
combination)."""
HandType = Literal["high", "low8", "razz"]
"""A ranking; each names its evaluators in :mod:`studpoker.evaluate` (``high`` / ``high_value`` /
``batch_high``, likewise ``low8`` and ``razz``; Omaha's two plus three is ``omaha8`` /
``batch_omaha8``). The first hand type of a game wins the (high) half, a second one the low half."""
LowKind = Literal["eight_or_better", "ace_to_five"]
BringInRule = Literal["lowest_up_ace_high", "highest_up_ace_low", "none"]
FirstToAct = Literal["best_high_board", "best_low_board", "left_of_button"]
BringInTie = Literal["suit", "position"]
ShowdownFirst = Literal["seat", "board"]
OddChip = Literal["high_card_by_suit", "seat_order"]


class UnknownGameError(ValueError):
    """Raised for a game name (code, alias, PHH variant, PokerStars game) that is none of :data:`GAMES`."""


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

        The game's :class:`ForcedBetRule` says how (stud: ante = big bet / 10, bring-in = small
        bet / 2; Omaha: blinds = small bet / 2 and the small bet; all rounded down); any of them
        can be given in ``overrides``.
        """
        record = find_game(game) if isinstance(game, str) else game
        values = record.forced_bets.amounts(small_bet, big_bet)
        unknown = set(overrides) - {"ante", "bring_in", "small_blind", "big_blind"}
        if unknown:
            raise StakesError(f"unknown stakes field(s): {', '.join(sorted(unknown))}")
        values.update(overrides)
        return cls(small_bet=small_bet, big_bet=big_bet, **values)

    def to_dict(self) -> dict[str, int]:
        return {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}


@dataclass(frozen=True, slots=True, kw_only=True)
class ForcedBetRule:
    """How a game's forced bets follow from its two bet sizes (docs/rules.md, R-STAKES), each
    rounded down: the ante a fraction of the big bet, the bring-in and the blinds fractions of
    the small bet (0: the game has none)."""

    ante: Fraction = Fraction(0)
    bring_in: Fraction = Fraction(0)
    small_blind: Fraction = Fraction(0)
    big_blind: Fraction = Fraction(0)

    def amounts(self, small_bet: int, big_bet: int) -> dict[str, int]:
        """``{ante, bring_in, small_blind, big_blind}`` for these bets.

        >>> ForcedBetRule(ante=Fraction(1, 10), bring_in=Fraction(1, 2)).amounts(25, 50)
        {'ante': 5, 'bring_in': 12, 'small_blind': 0, 'big_blind': 0}
        """
        return {
            "ante": math.floor(big_bet * self.ante),
            "bring_in": math.floor(small_bet * self.bring_in),
            "small_blind": math.floor(small_bet * self.small_blind),
            "big_blind": math.floor(small_bet * self.big_blind),
        }


@dataclass(frozen=True, slots=True, kw_only=True)
class Game:
    """One game with every fact of it: names, how it is dealt, bet and won, seats, stakes, house
    rules and how histories name it. Look it up with :func:`find_game`."""

    code: str  # the room's code: tables, protocol, CLI
    aliases: tuple[str, ...]  # other names find_game accepts (any case)
    name: str  # the full name (histories, tools)
    short_name: str  # the lobby's name (default table names, the browser)
    phh_variant: str  # the PHH ``variant`` code
    pokerstars_titles: tuple[str, ...]  # PokerStars game strings (before " Limit"): the first is written
    kind: GameKind
    streets: tuple[Street, ...]
    hand_types: tuple[HandType, ...]  # the rankings, which name the evaluators
    bring_in: BringInRule
    first_to_act: FirstToAct
    min_players: int = 2
    max_players: int  # also a table's most seats
    forced_bets: ForcedBetRule
    default_house: HouseRules

    @property
    def is_stud(self) -> bool:
        return self.kind == "stud"

    @property
    def has_button(self) -> bool:
        """A button game (the board games): blinds left of the button, not antes and a bring-in."""
        return self.kind != "stud"

    @property
    def two_plus_three(self) -> bool:
        """A hand is exactly two hole cards and three board cards (Omaha), not the best five of all."""
        return self.kind == "omaha"

    @property
    def hole_cards(self) -> int:
        """The cards each player is dealt face down before the first round (hold'em 2, Omaha 4, stud 2)."""
        return self.streets[0].down

    @property
    def board(self) -> bool:
        """A board game: the players share community cards (stud deals one only if the deck runs short)."""
        return any(s.board for s in self.streets)

    @property
    def hi_lo(self) -> bool:
        """A split game: half the pot to the best high, half to the best qualifying low."""
        return "low8" in self.hand_types

    @property
    def low_kind(self) -> LowKind | None:
        """The low it ranks: eight or better (a half of a split pot), ace to five (razz, the whole pot)."""
        if "low8" in self.hand_types:
            return "eight_or_better"
        return "ace_to_five" if "razz" in self.hand_types else None

    @property
    def cards_per_player(self) -> int:
        return sum(s.down + s.up for s in self.streets)

    @property
    def board_sizes(self) -> tuple[int, ...]:
        """The board's sizes street by street, from none: Omaha (0, 3, 4, 5), stud (0,)."""
        sizes = [0]
        for street in self.streets:
            if street.board:
                sizes.append(sizes[-1] + street.board)
        return tuple(sizes)

    @property
    def pokerstars_title(self) -> str:
        """The game string a PokerStars history is written with (followed by " Limit")."""
        return self.pokerstars_titles[0]

    def names(self) -> tuple[str, ...]:
        """Every name :func:`find_game` takes for this game (upper case)."""
        return tuple(n.upper() for n in (self.code, *self.aliases))


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
_HOLDEM_STREETS = (
    Street(name="preflop", down=2),
    Street(name="flop", board=3),
    Street(name="turn", board=1, big_bet=True),
    Street(name="river", board=1, big_bet=True),
)
_ANTE_AND_BRING_IN = ForcedBetRule(ante=Fraction(1, 10), bring_in=Fraction(1, 2))
_BLINDS = ForcedBetRule(small_blind=Fraction(1, 2), big_blind=Fraction(1))

_RECORDS = (
    Game(
        code="7S",
        aliases=("stud", "7cs", "seven-card-stud"),
        name="Seven Card Stud",
        short_name="Stud",
        phh_variant="F7S",
        pokerstars_titles=("7 Card Stud",),
        kind="stud",
        streets=_STUD_STREETS,
        hand_types=("high",),
        bring_in="lowest_up_ace_high",
        first_to_act="best_high_board",
        max_players=8,
        forced_bets=_ANTE_AND_BRING_IN,
        default_house=HouseRules(fourth_street_double_bet=True),
    ),
    Game(
        code="7S8",
        aliases=("stud8", "7cs8", "stud-hi-lo"),
        name="Seven Card Stud Hi/Lo, eight or better",
        short_name="Stud Hi/Lo",
        phh_variant="F7S/8",
        pokerstars_titles=("7 Card Stud Hi/Lo", "7 Card Stud Hi / Lo"),
        kind="stud",
        streets=_STUD_STREETS,
        hand_types=("high", "low8"),
        bring_in="lowest_up_ace_high",
        first_to_act="best_high_board",
        max_players=8,
        forced_bets=_ANTE_AND_BRING_IN,
        default_house=HouseRules(),
    ),
    Game(
        code="RZ",
        aliases=("razz",),
        name="Razz",
        short_name="Razz",
        phh_variant="FR",
        pokerstars_titles=("Razz",),
        kind="stud",
        streets=_STUD_STREETS,
        hand_types=("razz",),
        bring_in="highest_up_ace_low",
        first_to_act="best_low_board",
        max_players=8,
        forced_bets=_ANTE_AND_BRING_IN,
        default_house=HouseRules(),
    ),
    Game(
        code="O8",
        aliases=("omaha8", "omaha-hi-lo"),
        name="Fixed-limit Omaha Hi/Lo, eight or better",
        short_name="Omaha Hi/Lo",
        phh_variant="FO/8",
        pokerstars_titles=("Omaha Hi/Lo",),
        kind="omaha",
        streets=_OMAHA_STREETS,
        hand_types=("high", "low8"),
        bring_in="none",
        first_to_act="left_of_button",
        max_players=10,
        forced_bets=_BLINDS,
        default_house=HouseRules(odd_chip="seat_order"),
    ),
    Game(
        code="LHE",
        aliases=("holdem", "limit holdem", "limit-holdem", "fixed-limit-holdem"),
        name="Fixed-limit Texas Hold'em",
        short_name="Limit Hold'em",
        phh_variant="FT",
        pokerstars_titles=("Hold'em",),
        kind="holdem",
        streets=_HOLDEM_STREETS,
        hand_types=("high",),
        bring_in="none",
        first_to_act="left_of_button",
        max_players=10,
        forced_bets=_BLINDS,
        default_house=HouseRules(odd_chip="seat_order"),
    ),
)

GAMES: dict[str, Game] = {game.code: game for game in _RECORDS}
"""The registry: every game by its code, in the order the lobby lists them."""

_BY_NAME: dict[str, Game] = {name: game for game in _RECORDS for name in game.names()}
_BY_PHH_VARIANT: dict[str, Game] = {game.phh_variant: game for game in _RECORDS}
# PokerStars writes its game strings as they are and in capitals; a reader takes both.
_BY_POKERSTARS_TITLE: dict[str, Game] = {
    spelling: game
    for game in _RECORDS
    for title in game.pokerstars_titles
    for spelling in (title, title.upper())
}


def find_game(name: str) -> Game:
    """The game with this code or alias, any case (``7S``, ``stud``, ``omaha8``...).

    >>> find_game("razz").code
    'RZ'
    >>> find_game("limit holdem").code
    'LHE'
    >>> find_game("draw")
    Traceback (most recent call last):
    ...
    studpoker.games.UnknownGameError: unknown game 'draw'; known games: 7S, 7S8, RZ, O8, LHE
    """
    game = _BY_NAME.get(name.upper()) if isinstance(name, str) else None
    if game is None:
        raise UnknownGameError(f"unknown game {name!r}; known games: {', '.join(GAMES)}")
    return game


get_game = find_game  # the name the engine and its callers have always used


def game_of_phh_variant(variant: str) -> Game:
    """The game a PHH ``variant`` names (``F7S``, ``F7S/8``, ``FR``, ``FO/8``, ``FT``)."""
    game = _BY_PHH_VARIANT.get(variant) if isinstance(variant, str) else None
    if game is None:
        known = ", ".join(sorted(_BY_PHH_VARIANT))
        raise UnknownGameError(f"unknown variant {variant!r} (studpoker plays {known})")
    return game


def game_of_pokerstars_title(title: str) -> Game:
    """The game a PokerStars game string names (``7 Card Stud Hi/Lo``, ``RAZZ``...)."""
    game = _BY_POKERSTARS_TITLE.get(title) if isinstance(title, str) else None
    if game is None:
        raise UnknownGameError(f"{title!r} is not a game studpoker plays")
    return game


def pokerstars_titles() -> tuple[str, ...]:
    """Every PokerStars game string a reader accepts, longest first (for a pattern that must
    match ``7 Card Stud Hi/Lo`` before ``7 Card Stud``)."""
    return tuple(sorted(_BY_POKERSTARS_TITLE, key=len, reverse=True))
