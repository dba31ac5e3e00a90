"""A tournament table's stakes at a level: the game of the rotation for its next hand and that
game's stakes from the level's one big bet (docs/tournaments.md "Structures")."""

from __future__ import annotations

from studpoker.store.models import TableConfig
from studpoker.store.tournaments import TournamentRecord
from studpoker.tournament.clock import ClockReading

from .creating import rotation_of


def level_config(
    record: TournamentRecord,
    reading: ClockReading,
    think: int,
    countdown: int,
    table_no: int = 1,
    *,
    hands: int = 0,
) -> TableConfig:
    """A table's stakes at the level read for its hand number ``hands`` (0 its first): the game
    of the rotation then, its stakes from the level's one big bet; the seats the fewest any
    game of the rotation takes."""
    rotation = rotation_of(record)
    game = rotation.game_for_hand(hands)
    stakes = reading.level.stakes(game)
    small, big = reading.level.limits
    suffix = f" T{table_no} L{reading.level_number}"
    return TableConfig(
        name=record.name[: 40 - len(suffix)] + suffix,
        game=game.code, small_bet=small, big_bet=big, ante=stakes.ante, bring_in=stakes.bring_in,
        small_blind=stakes.small_blind, big_blind=stakes.big_blind, max_seats=rotation.max_seats,
        min_buy_in=1, max_buy_in=record.starting_stack * max(2, len(record.entries)),
        think_seconds=think, countdown_seconds=countdown,
    )  # fmt: skip
