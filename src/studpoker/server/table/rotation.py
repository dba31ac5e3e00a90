"""A mixed-game cash table's schedule (issue 16, R-MIXED-ROTATION): which game of its rotation
the next hand is dealt in, with what stakes, and how many hands of that game are left.

The rotation is the tournament core's (:mod:`studpoker.tournament.rotation`: HORSE, HOSE or a
list of games, ``hands_per_game`` hands each, counted at the table); the stakes of every game
follow from the table's one level (:class:`studpoker.tournament.structure.Level`: the room's
R-STAKES ratios), so nothing here restates a ratio. This module gives the config of each hand
(``config_now``) and the lobby and snapshot fields (``info``); :mod:`.mixed_seats` applies them
to the table actor between hands (``TableActor.set_config``) and counts the hands.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from studpoker.store.models import TableConfig
from studpoker.tournament.rotation import Rotation
from studpoker.tournament.structure import Level


@dataclass(slots=True)
class MixedSchedule:
    """``base`` is the table's config (name, seats, buy-ins, clock); its ``big_bet`` (and
    ``small_bet``) is the one level every game's stakes are derived from."""

    rotation: Rotation
    base: TableConfig
    hands_dealt: int = 0

    @property
    def level(self) -> Level:
        # ``seconds`` has no meaning at a cash table: the level never changes.
        return Level(big_bet=self.base.big_bet, small_bet=self.base.small_bet, seconds=0)

    def config_now(self) -> TableConfig:
        """The config the next hand is dealt with: the game of the moment at the level's stakes,
        the seats capped at the fewest any game of the rotation takes."""
        game = self.rotation.game_for_hand(self.hands_dealt)
        stakes = self.level.stakes(game)
        return replace(
            self.base,
            game=game.code,
            ante=stakes.ante,
            bring_in=stakes.bring_in,
            small_blind=stakes.small_blind,
            big_blind=stakes.big_blind,
            max_seats=min(self.base.max_seats, self.rotation.max_seats),
        )

    def dealt(self) -> None:
        """One hand played (counted as it ends, finished or voided: a void moves the rotation on)."""
        self.hands_dealt += 1

    def info(self) -> dict[str, Any]:
        """The lobby line's and the snapshot's fields: the rotation, the game now, its hands left."""
        return {
            "rotation": self.rotation.name,
            "games": [game.code for game in self.rotation.games],
            "game_now": self.rotation.game_for_hand(self.hands_dealt).code,
            "hands_left": self.rotation.hands_left(self.hands_dealt),
            "hands_per_game": self.rotation.hands_per_game,
        }
