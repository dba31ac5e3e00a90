"""The standard structures the room ships (docs/tournaments.md#the-standard-structures).

Each is written as its big bets, every one a multiple of 20 so that the ratios of
:mod:`.structure` give whole chips in every game (ante a tenth of the big bet, bring-in and small
blind a quarter of it), and checked when this module is imported.
"""

from __future__ import annotations

from .structure import Structure, StructureError, levels_from_big_bets, with_breaks

# A sit-and-go turbo: 5-minute levels from 37.5 big bets, no break.
_TURBO_BIG_BETS = (
    40, 60, 80, 120, 160, 200, 300, 400, 600, 800, 1_000, 1_200, 1_600, 2_000, 3_000, 4_000,
    6_000, 8_000, 10_000, 12_000, 16_000, 20_000, 30_000, 40_000,
)  # fmt: skip

# A regular multi-table tournament: 15-minute levels from 75 big bets, a 5-minute break each hour.
_REGULAR_BIG_BETS = (
    40, 60, 80, 100, 120, 160, 200, 240, 300, 400, 500, 600, 800, 1_000, 1_200, 1_600, 2_000,
    2_400, 3_000, 4_000, 5_000, 6_000, 8_000, 10_000, 12_000, 16_000, 20_000, 24_000, 30_000,
    40_000, 50_000, 60_000, 80_000, 100_000,
)  # fmt: skip

TURBO = Structure(
    name="turbo",
    title="Sit-and-go turbo: 1,500 chips, 5-minute levels",
    starting_stack=1_500,
    periods=levels_from_big_bets(_TURBO_BIG_BETS, seconds=5 * 60),
)
REGULAR = Structure(
    name="regular",
    title="Multi-table regular: 3,000 chips, 15-minute levels, a 5-minute break every hour",
    starting_stack=3_000,
    periods=with_breaks(levels_from_big_bets(_REGULAR_BIG_BETS, seconds=15 * 60), every=4, seconds=5 * 60),
)

STRUCTURES: dict[str, Structure] = {s.name: s for s in (TURBO, REGULAR)}
"""The standard structures by name."""

# The operator's defaults for a new tournament (``tournament create``, a schedule file's line).
DEFAULT_GAME = "7S"
SIT_AND_GO_SEATS = 6
SCHEDULED_MAX_PLAYERS = 100


def find_structure(name: str) -> Structure:
    """A standard structure by name, any case."""
    structure = STRUCTURES.get(name.lower()) if isinstance(name, str) else None
    if structure is None:
        raise StructureError(f"unknown structure {name!r}; known structures: {', '.join(STRUCTURES)}")
    return structure
