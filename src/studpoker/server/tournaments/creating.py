"""Creating the room's tournaments: the game and the structure checked, then the store's record.

A sit-and-go starts when its ``seats`` are taken. A scheduled tournament (``starts_at``) starts at
that time with the field it has, from ``min_players`` up to ``seats`` entries; it takes late
entries until the end of level ``late_levels`` and lets a busted player buy in again
``reentries`` times during that time (docs/tournaments.md "Scheduled tournaments").
"""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Unpack

from studpoker.games import GAMES
from studpoker.store.errors import InvalidInputError
from studpoker.store.tournaments import NewTournament, TournamentOptions, TournamentRecord
from studpoker.tournament.standard import find_structure
from studpoker.tournament.structure import StructureError

if TYPE_CHECKING:
    from studpoker.store import Store


def prepare_tournament(
    name: str, game: str, structure: str, *, now: datetime, **options: Unpack[TournamentOptions]
) -> NewTournament:
    """A tournament to create, checked at ``now`` (nothing is written): a known game and
    structure, and late registration ending with a level before the structure's last (which
    never ends: registration would never close); :class:`InvalidInputError` names what is wrong."""
    record = GAMES.get(game.upper()) if isinstance(game, str) else None
    if record is None:
        raise InvalidInputError(f"unknown game {game!r}; known games: {', '.join(GAMES)}")
    try:
        found = find_structure(structure)
    except StructureError as exc:
        raise InvalidInputError(str(exc)) from None
    last = len(found.levels)
    late_levels = options.get("late_levels", 0)
    if not isinstance(late_levels, bool) and isinstance(late_levels, int) and late_levels >= last:
        raise InvalidInputError(
            f"late registration ends with a level before the last of {found.name!r} (1 to {last - 1}),"
            f" not {late_levels}"
        )
    new = NewTournament(name, record.code, found.name, starting_stack=found.starting_stack, **options)
    return new.checked(now)


async def create_tournament(
    store: Store, name: str, game: str, structure: str, **options: Unpack[TournamentOptions]
) -> TournamentRecord:
    """A new tournament in ``store`` (:func:`prepare_tournament`), registering."""
    return await store.tournaments.add(prepare_tournament(name, game, structure, now=store.now(), **options))


async def create_sit_and_go(
    store: Store, name: str, game: str, structure: str, *, buy_in: int, fee: int, seats: int
) -> TournamentRecord:
    """A new sit-and-go: it starts when its ``seats`` are taken (a field larger than the game's
    table size plays at several tables)."""
    return await create_tournament(store, name, game, structure, buy_in=buy_in, fee=fee, seats=seats)
