"""Who may sit in a hand: player counts, seat numbers, stacks, stakes and the Omaha button."""

from __future__ import annotations

from collections.abc import Sequence

from studpoker.games import Game, Stakes


def check_table(
    game: Game,
    stakes: Stakes,
    seats: Sequence[tuple[int, int]],
    button: int | None,
    *,
    blinds_given: bool = False,
) -> None:
    """Raise ValueError (TypeError for stakes) naming what keeps this table from being dealt.

    ``blinds_given``: the Omaha blinds come seat by seat (ForcedBets), not from the stakes.
    """
    if not _plainly_valid_seats(seats):
        _check_seats(game, stakes, seats)
    _check_stakes_and_button(game, stakes, seats, button, blinds_given=blinds_given)


def _plainly_valid_seats(seats: Sequence[tuple[int, int]]) -> bool:
    """The usual case in one pass: (int, int) tuples, ascending seats 1..10, chips, 2..8 players
    (no bool: its class is not int).

    Anything else (even if valid, e.g. lists) goes through the checks that name the problem.
    """
    if not 2 <= len(seats) <= 8:
        return False
    previous = 0
    for entry in seats:
        if entry.__class__ is not tuple or len(entry) != 2:
            return False
        seat, stack = entry
        if seat.__class__ is not int or stack.__class__ is not int or not previous < seat <= 10 or stack <= 0:
            return False
        previous = seat
    return True


def _check_seats(game: Game, stakes: Stakes, seats: Sequence[tuple[int, int]]) -> None:
    if not isinstance(stakes, Stakes):
        raise TypeError(f"stakes must be a Stakes record, not {stakes!r}")
    if not game.min_players <= len(seats) <= game.max_players:
        raise ValueError(
            f"{game.code} is played by {game.min_players} to {game.max_players} players, not {len(seats)}"
        )
    previous = 0
    for entry in seats:
        if not isinstance(entry, (tuple, list)) or len(entry) != 2:
            raise ValueError(f"each seat is (seat_number, stack), not {entry!r}")
        seat, stack = entry
        for what, value in (("seat number", seat), ("stack", stack)):
            if not isinstance(value, int) or isinstance(value, bool):
                raise ValueError(f"{what} must be an integer, not {value!r}")
        if not 1 <= seat <= 10:
            raise ValueError(f"seat numbers run from 1 to 10, not {seat}")
        if seat <= previous:
            raise ValueError(f"seats must be given clockwise (ascending numbers): {seat} after {previous}")
        if stack <= 0:
            raise ValueError(f"seat {seat} has no chips ({stack}); only players with chips are dealt in")
        previous = seat


def _check_stakes_and_button(
    game: Game, stakes: Stakes, seats: Sequence[tuple[int, int]], button: int | None, *, blinds_given: bool
) -> None:
    if stakes.__class__ is not Stakes and not isinstance(stakes, Stakes):
        raise TypeError(f"stakes must be a Stakes record, not {stakes!r}")
    if not game.min_players <= len(seats) <= game.max_players:
        raise ValueError(
            f"{game.code} is played by {game.min_players} to {game.max_players} players, not {len(seats)}"
        )
    if game.kind == "stud":
        if stakes.bring_in >= stakes.small_bet:
            raise ValueError(f"the bring-in {stakes.bring_in} must be below the small bet {stakes.small_bet}")
        if button is not None:
            raise ValueError("stud has no button; leave button=None")
    else:
        if stakes.big_blind <= 0 and not blinds_given:
            raise ValueError(f"{game.short_name} needs a big blind above zero")
        if button is None or button not in {s for s, _ in seats}:
            raise ValueError(f"{game.short_name} needs button= one of the seats dealt in, not {button!r}")
