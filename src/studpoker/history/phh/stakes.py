"""What a PHH hand is played for and where: the players' table seats, the engine stakes and the
forced bets that differ from the table's usual ones."""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial

from studpoker.engine.forced import ForcedBets
from studpoker.games import Stakes

from .model import PhhError, PhhHand


def seat_numbers(phh: PhhHand, *, stud: bool) -> list[int]:
    """The table seat of each PHH player, checked against the player order of the variant."""
    n = phh.player_count
    seats = list(phh.seats) if phh.seats is not None else list(range(1, n + 1))
    if len(set(seats)) != n or min(seats) < 1:
        raise PhhError(f"'seats' must be {n} distinct seat numbers from 1, not {seats}", file=phh.source)
    ordered = sorted(seats)
    if stud:
        if seats != ordered:
            raise PhhError(
                f"'seats' {seats} must be increasing: p1, p2, ... are in seat order", file=phh.source
            )
    else:
        button = seats[-1]
        start = ordered.index(button) + 1
        expected = ordered[start:] + ordered[:start]
        if seats != expected:
            raise PhhError(
                f"'seats' {seats} must go clockwise from the seat left of the button (the last player)",
                file=phh.source,
            )
    return seats


def _usual_blinds(blinds: Sequence[int]) -> bool:
    """``[small, big, 0, ...]`` with both blinds posted: the table's usual blinds."""
    return len(blinds) >= 2 and 0 < blinds[0] <= blinds[1] and not any(blinds[2:])


def stakes_of(phh: PhhHand) -> Stakes:
    """The engine stakes of a PHH hand. Antes that differ between players and blinds other
    than ``[small, big, 0, ...]`` are posted seat by seat (:func:`forced_bets_of`): the stakes
    then carry no ante, and as big blind the largest blind."""
    fail = partial(PhhError, file=phh.source)
    antes = set(phh.antes)
    ante = antes.pop() if len(antes) == 1 else 0
    if phh.small_bet is None or phh.big_bet is None:
        raise fail("'small_bet' and 'big_bet' are required")
    try:
        if phh.game.is_stud:
            if phh.bring_in is None:
                raise fail("'bring_in' is required in stud")
            if phh.blinds_or_straddles and any(phh.blinds_or_straddles):
                raise fail("stud has a bring-in, not blinds: 'blinds_or_straddles' must be empty or zero")
            return Stakes(ante=ante, bring_in=phh.bring_in, small_bet=phh.small_bet, big_bet=phh.big_bet)
        blinds = phh.blinds_or_straddles or []
        if len(blinds) != phh.player_count:
            raise fail(f"blinds_or_straddles {blinds} must give one blind (or 0) for each of the players")
        if any(b > phh.small_bet for b in blinds):
            raise fail(
                f"blinds_or_straddles {blinds}: a blind above the small bet {phh.small_bet} is a straddle, "
                f"which {phh.game.name} does not play here"
            )
        if phh.bring_in:
            raise fail(f"{phh.game.name} has blinds, not a bring-in: 'bring_in' must be empty or zero")
        usual = _usual_blinds(blinds)
        return Stakes(
            ante=ante,
            small_bet=phh.small_bet,
            big_bet=phh.big_bet,
            small_blind=blinds[0] if usual else 0,
            big_blind=blinds[1] if usual else max(blinds),
        )
    except ValueError as exc:
        if isinstance(exc, PhhError):
            raise
        raise fail(f"stakes cannot be played: {exc}") from None


# A studpoker field (PHH's user-defined fields start with "_"): the table seat of the big blind
# the action follows when another player posted a big blind to come in (R-O8-POST-TO-COME-IN);
# PHH alone would start the action after the last of the largest blinds.
BIG_BLIND_SEAT_FIELD = "_big_blind_seat"


def forced_bets_of(phh: PhhHand, seats: Sequence[int]) -> ForcedBets | None:
    """Per-seat antes and blinds of a PHH hand whose forced bets are not the table's usual ones
    (None when they are). ``seats`` are the players' table seats in PHH order; heads-up, PHH
    assigns the antes and blinds in reverse (p1 posts the second entry), as PokerKit does."""

    def per_seat(values: Sequence[int]) -> dict[int, int]:
        ordered = list(values)[::-1] if len(seats) == 2 else list(values)
        return {seat: amount for seat, amount in zip(seats, ordered, strict=True) if amount}

    antes = per_seat(phh.antes) if len(set(phh.antes)) > 1 else None
    blinds = None
    if not phh.game.is_stud and not _usual_blinds(phh.blinds_or_straddles or []):
        blinds = per_seat(phh.blinds_or_straddles or [])
    if antes is None and blinds is None:
        return None
    big_blind = phh.extra.get(BIG_BLIND_SEAT_FIELD) if blinds is not None else None
    if big_blind is not None and (blinds is None or big_blind not in blinds):
        raise PhhError(
            f"{BIG_BLIND_SEAT_FIELD} = {big_blind!r} is not a seat posting a blind", file=phh.source
        )
    return ForcedBets(antes=antes, blinds=blinds, big_blind=big_blind)
