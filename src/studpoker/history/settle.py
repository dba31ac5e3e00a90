"""Who ends the hand with what, once the room's rake is taken: the replay's awards less the rake.

The engine plays no rake: it awards every chip of the pot. A real-money history says how much
the room took (PokerStars: ``| Rake $0.15``) and what each player collected after it; a PHH
record keeps these as ``winnings`` (what each player collected) and the user-defined field
``_rake``. :func:`settle` takes the rake from the replay's awards as the record says, checking
that each player collects no more than the replay awards him and that what is missing is
exactly the rake, so finishing stacks and winnings come out net of rake and no chip is created
or lost on the way.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from studpoker.history.phh import PhhError, PhhHand, finishing_stacks

if TYPE_CHECKING:
    from studpoker.engine import Hand

RAKE_FIELD = "_rake"


@dataclass(frozen=True, slots=True)
class Settlement:
    """The end of a hand net of rake, in PHH player order."""

    finishing_stacks: list[int]
    winnings: list[int]
    rake: int


def rake_of(phh: PhhHand) -> int:
    """The rake a PHH record says the room took (0 when it says nothing)."""
    rake = phh.extra.get(RAKE_FIELD, 0)
    if isinstance(rake, bool) or not isinstance(rake, int) or rake < 0:
        raise PhhError(
            f"{RAKE_FIELD} must be a whole number of units 0 or more, not {rake!r}", file=phh.source
        )
    return rake


def settle(phh: PhhHand, hand: Hand, *, check_finishing_stacks: bool = True) -> Settlement:
    """The replayed ``hand``'s end net of the record's rake; raises :class:`PhhError` when the
    record's winnings and rake do not account for the replay's awards, or when its
    ``finishing_stacks`` differ from the result."""
    seats = phh.seats or list(range(1, phh.player_count + 1))
    awarded = [hand.result.won(seat) for seat in seats]
    rake = rake_of(phh)
    given = phh.extra.get("winnings")
    if given is None:
        if rake:
            raise PhhError(f"a rake of {rake} needs 'winnings': who paid it?", file=phh.source)
        winnings = awarded
    else:
        if (
            not isinstance(given, list)
            or len(given) != len(seats)
            or not all(isinstance(w, int) and not isinstance(w, bool) and w >= 0 for w in given)
        ):
            raise PhhError(
                f"'winnings' must be {len(seats)} whole numbers 0 or more, not {given!r}", file=phh.source
            )
        winnings = list(given)
    for index, (won, paid) in enumerate(zip(awarded, winnings, strict=True)):
        if paid > won:
            raise PhhError(
                f"p{index + 1} collects {paid}, more than the {won} the replay awards him", file=phh.source
            )
    taken = sum(awarded) - sum(winnings)
    if taken != rake:
        raise PhhError(
            f"the winnings {winnings} leave {taken} of the awards {awarded}, but the rake is {rake}",
            file=phh.source,
        )
    final = [
        stack - (won - paid)
        for stack, won, paid in zip(finishing_stacks(hand, seats), awarded, winnings, strict=True)
    ]
    if check_finishing_stacks and phh.finishing_stacks is not None and final != phh.finishing_stacks:
        raise PhhError(
            f"finishing_stacks {phh.finishing_stacks} differ from the replay's {final} (net of rake {rake})",
            file=phh.source,
        )
    return Settlement(finishing_stacks=final, winnings=winnings, rake=rake)
