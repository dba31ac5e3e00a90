"""Creating the room's tournaments: the game and the structure checked, then the store's record.

A sit-and-go starts when its ``seats`` are taken. A scheduled tournament (``starts_at``) starts at
that time with the field it has, from ``min_players`` up to ``seats`` entries; it takes late
entries until the end of level ``late_levels`` and lets a busted player buy in again
``reentries`` times during that time (docs/tournaments.md "Scheduled tournaments").

The game is one game or a rotation (HORSE, HOSE, codes joined by commas: tournament.rotation),
``hands_per_game`` hands of each counted at each table; ``tournaments.game`` keeps the
rotation's name (:func:`rotation_of` reads it back), so every reader of the game shows it.
"""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Unpack

from studpoker.games import UnknownGameError
from studpoker.store.errors import InvalidInputError
from studpoker.store.tournaments import NewTournament, TournamentOptions, TournamentRecord
from studpoker.tournament.rotation import (
    DEFAULT_HANDS_PER_GAME,
    ROTATION_NAMES,
    Rotation,
    RotationError,
    find_rotation,
)
from studpoker.tournament.standard import (
    DEFAULT_GAME,
    SCHEDULED_MAX_PLAYERS,
    SIT_AND_GO_SEATS,
    find_structure,
)
from studpoker.tournament.structure import StructureError

if TYPE_CHECKING:
    from studpoker.store import Store


GAME_COLUMN = 16  # the length of tournaments.game (store.schema): a rotation's name fits it


def rotation_of(record: TournamentRecord) -> Rotation:
    """The games ``record`` plays (one game is a rotation of one), as stored."""
    return find_rotation(record.game, hands_per_game=record.hands_per_game)


def check_rotation(game: object, hands_per_game: object = DEFAULT_HANDS_PER_GAME) -> Rotation:
    """``game`` as a tournament plays it (a game, HORSE, HOSE, ``7S,RZ``), or
    :class:`InvalidInputError` naming what is wrong."""
    if not isinstance(game, str):
        raise InvalidInputError(f"a game is a name (7S, HORSE, 7S,RZ...), not {game!r}")
    if isinstance(hands_per_game, bool) or not isinstance(hands_per_game, int):
        raise InvalidInputError(f"hands per game is a whole number, not {hands_per_game!r}")
    try:
        rotation = find_rotation(game, hands_per_game=hands_per_game)
    except UnknownGameError as exc:
        raise InvalidInputError(f"{exc}; or a rotation: {', '.join(ROTATION_NAMES)}") from None
    except RotationError as exc:
        raise InvalidInputError(str(exc)) from None
    if len(rotation.name) > GAME_COLUMN:
        raise InvalidInputError(
            f"a list of games has at most {GAME_COLUMN} characters ({rotation.name!r} has more)"
        )
    return rotation


def prepare_tournament(
    name: str, game: str, structure: str, *, now: datetime, **options: Unpack[TournamentOptions]
) -> NewTournament:
    """A tournament to create, checked at ``now`` (nothing is written): a known game and
    structure, and late registration ending with a level before the structure's last (which
    never ends: registration would never close); :class:`InvalidInputError` names what is wrong.
    ``game`` may be a rotation (``hands_per_game`` hands of each game, default 8)."""
    rotation = check_rotation(game, options.get("hands_per_game", DEFAULT_HANDS_PER_GAME))
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
    new = NewTournament(name, rotation.name, found.name, starting_stack=found.starting_stack, **options)
    return new.checked(now)


def operator_tournament(
    name: str,
    *,
    now: datetime,
    structure: str,
    buy_in: int,
    game: str = DEFAULT_GAME,
    fee: int = 0,
    starts_at: datetime | None = None,
    seats: int | None = None,
    min_players: int | None = None,
    max_players: int | None = None,
    late_levels: int = 0,
    reentries: int = 0,
    hands_per_game: int = DEFAULT_HANDS_PER_GAME,
    schedule_key: str | None = None,
) -> NewTournament:
    """A tournament as the operator gives it (``tournament create``'s options, a schedule file's
    line: both come here): a sit-and-go has ``seats``, a scheduled one (``starts_at``) its
    smallest and largest field; then :func:`prepare_tournament`'s checks."""
    # (A schedule file's line is always scheduled and has no seats: the words are the CLI's.)
    if starts_at is None:
        if max_players is not None:
            raise InvalidInputError(
                "--max-players is a scheduled tournament's (give --start); a sit-and-go has --seats"
            )
        field = SIT_AND_GO_SEATS if seats is None else seats
    elif seats is not None:
        raise InvalidInputError("a scheduled tournament has --min-players and --max-players, not --seats")
    else:
        field = SCHEDULED_MAX_PLAYERS if max_players is None else max_players
    return prepare_tournament(
        name, game, structure, now=now, buy_in=buy_in, fee=fee, seats=field, starts_at=starts_at,
        min_players=min_players, late_levels=late_levels, reentries=reentries,
        hands_per_game=hands_per_game, schedule_key=schedule_key,
    )  # fmt: skip


async def create_tournament(
    store: Store, name: str, game: str, structure: str, **options: Unpack[TournamentOptions]
) -> TournamentRecord:
    """A new tournament in ``store`` (:func:`prepare_tournament`), registering."""
    return await store.tournaments.add(prepare_tournament(name, game, structure, now=store.now(), **options))


async def create_sit_and_go(
    store: Store,
    name: str,
    game: str,
    structure: str,
    *,
    buy_in: int,
    fee: int,
    seats: int,
    hands_per_game: int = DEFAULT_HANDS_PER_GAME,
) -> TournamentRecord:
    """A new sit-and-go: it starts when its ``seats`` are taken (a field larger than the game's
    table size plays at several tables)."""
    return await create_tournament(
        store, name, game, structure, buy_in=buy_in, fee=fee, seats=seats, hands_per_game=hands_per_game
    )
