"""What a table plays: one game, or a rotation of games changing after a set number of hands.

A rotation names its games as :func:`~studpoker.games.find_game` takes them and finds them in
the registry when it is played, so a game is in HORSE as soon as its record is in
``games.py`` (Limit Hold'em, ``LHE``, is: HORSE plays all five games). A name listed in
:data:`NOT_YET_PLAYED` (none now) would be skipped, saying so, until its record exists
(R-MIXED-ROTATION). The game changes after ``hands_per_game`` hands (default 8), counted at the
table; the button of the board games is frozen through the stud games (:mod:`.positions`,
R-MIXED-BUTTON).

>>> horse = find_rotation("horse")
>>> [game.code for game in horse.games], horse.skipped
(['LHE', 'O8', 'RZ', '7S', '7S8'], ())
>>> horse.game_for_hand(0).code, horse.game_for_hand(8).code, horse.hands_left(13)
('LHE', 'O8', 3)
"""

from __future__ import annotations

from dataclasses import dataclass, field

from studpoker.games import Game, UnknownGameError, find_game

DEFAULT_HANDS_PER_GAME = 8

NOT_YET_PLAYED: frozenset[str] = frozenset()
"""Names a rotation may hold before the registry knows them: skipped, not refused (none now:
Limit Hold'em, the last game of HORSE the room lacked, has its record)."""

# Each letter's game as find_game names it (H O R S E: hold'em, omaha8, razz, stud, stud8).
_NAMED = {
    "HORSE": ("LHE", "omaha8", "razz", "stud", "stud8"),
    "HOSE": ("LHE", "omaha8", "stud", "stud8"),
}


ROTATION_NAMES = tuple(_NAMED)
"""The named rotations :func:`find_rotation` knows."""


class RotationError(ValueError):
    """Raised for a rotation that cannot be played (no game, a bad hand count)."""


@dataclass(frozen=True, slots=True)
class Rotation:
    """A named list of games played in turn, ``hands_per_game`` hands each."""

    name: str
    names: tuple[str, ...]
    hands_per_game: int = DEFAULT_HANDS_PER_GAME
    games: tuple[Game, ...] = field(init=False)
    skipped: tuple[str, ...] = field(init=False)

    def __post_init__(self) -> None:
        if isinstance(self.hands_per_game, bool) or not isinstance(self.hands_per_game, int):
            raise RotationError(f"hands per game must be a whole number, not {self.hands_per_game!r}")
        if self.hands_per_game < 1:
            raise RotationError(f"a game of a rotation lasts 1 hand or more, not {self.hands_per_game}")
        games: list[Game] = []
        skipped: list[str] = []
        for name in self.names:
            try:
                games.append(find_game(name))
            except UnknownGameError:
                if name.upper() not in NOT_YET_PLAYED:
                    raise
                skipped.append(name.upper())
        if not games:
            raise RotationError(f"{self.name} has no game the room plays")
        object.__setattr__(self, "games", tuple(games))
        object.__setattr__(self, "skipped", tuple(skipped))

    @property
    def mixed(self) -> bool:
        return len(self.games) > 1

    @property
    def max_seats(self) -> int:
        """The most players a table of it seats: the fewest any of its games takes."""
        return min(game.max_players for game in self.games)

    @property
    def uses_button(self) -> bool:
        """Whether a board game is in it (then tables move players by the button: R-TOURNAMENT-BALANCE)."""
        return any(not game.is_stud for game in self.games)

    def game_for_hand(self, number: int) -> Game:
        """The game of the table's hand ``number`` (0 for its first)."""
        return self.games[(number // self.hands_per_game) % len(self.games)]

    def hands_left(self, number: int) -> int:
        """Hands of the current game left at hand ``number``, this one included."""
        return self.hands_per_game - number % self.hands_per_game

    def describe(self) -> str:
        codes = ", ".join(game.code for game in self.games)
        if not self.mixed:
            return codes
        text = f"{self.name} ({codes}, {self.hands_per_game} hands each)"
        if self.skipped:  # only while a name of NOT_YET_PLAYED has no record
            text += f"; {', '.join(self.skipped)} is not a game here yet and is skipped"
        return text


def find_rotation(name: str, *, hands_per_game: int = DEFAULT_HANDS_PER_GAME) -> Rotation:
    """HORSE or HOSE (any case), one game by any name of it, or games joined by commas (``7S,RZ``)."""
    if not isinstance(name, str) or not name.strip():
        raise RotationError("name a game or a rotation (HORSE, HOSE, or games joined by commas)")
    key = name.strip().upper()
    if key in _NAMED:
        return Rotation(key, _NAMED[key], hands_per_game)
    parts = tuple(part.strip() for part in name.split(","))
    if any(not part for part in parts):
        raise RotationError(f"{name!r}: an empty game name in the list")
    games = [find_game(part) for part in parts]  # an unknown name is refused, naming the known ones
    return Rotation(",".join(game.code for game in games), tuple(game.code for game in games), hands_per_game)
