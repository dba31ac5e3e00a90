"""Replaying a PokerStars hand and holding every amount the file states against the replay.

The PHH record of the hand (:func:`~studpoker.history.pokerstars.phh_record.to_phh`) is played through
the engine; then each ante, blind, bring-in, call, bet and raise the file writes must be what
the engine took, the uncalled bet the one it returned, each collection what it awarded (less
the rake, :mod:`~studpoker.history.settle`). A difference is a :class:`PokerStarsError` naming
the hand and the line.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from studpoker.engine.actions import ActionKind
from studpoker.engine.events import Event, EventKind
from studpoker.games import HouseRules
from studpoker.history.phh import PhhError, PhhHand, replay
from studpoker.history.pokerstars.convert import Stated
from studpoker.history.pokerstars.parsed import ParsedHand, PokerStarsError, SkippedHand
from studpoker.history.pokerstars.phh_record import ImportedHand, to_phh
from studpoker.history.pokerstars.read import read_pokerstars, read_pokerstars_file
from studpoker.history.settle import Settlement, settle

if TYPE_CHECKING:
    from studpoker.engine import Hand


@dataclass(frozen=True, slots=True)
class ReplayedHand:
    """A PokerStars hand, its PHH record, the engine's replay and the end net of rake."""

    imported: ImportedHand
    hand: Hand
    settlement: Settlement


_VERB_KIND = {
    "bring_in": (ActionKind.BRING_IN,),
    "folds": (ActionKind.FOLD,),
    "checks": (ActionKind.CHECK,),
    "calls": (ActionKind.CALL,),
    "bets": (ActionKind.BET, ActionKind.COMPLETE),
    "raises": (ActionKind.RAISE, ActionKind.COMPLETE, ActionKind.BET),
}


def _check_action(hand: ParsedHand, stated: Stated, event: Event, added: int) -> None:
    kind = event.action
    total = event.amount or 0
    assert kind is not None

    def fail(reason: str) -> PokerStarsError:
        return hand.error(f"{stated.name} {stated.verb}: {reason}", stated.line)

    if kind not in _VERB_KIND[stated.verb]:
        raise fail(f"the replay plays a {kind.value} here")
    if stated.verb == "raises" and stated.to != total:
        raise fail(f"to {stated.to}, but the replay raises to {total}")
    if stated.verb in ("bring_in", "calls", "bets") and stated.added != added:
        raise fail(f"{stated.added}, but the replay puts in {added}")
    if stated.all_in and not event.all_in:
        raise fail("the file says all-in, but the replay leaves him chips")


def check_amounts(imported: ImportedHand, hand: Hand) -> None:
    """Every amount of the file against the replayed ``hand``; raises :class:`PokerStarsError`."""
    parsed = imported.parsed
    stated = iter(imported.stated)
    round_bet: dict[int, int] = dict.fromkeys(hand.seat_numbers, 0)
    forced = {seat: list(bets) for seat, bets in imported.forced.items()}
    returned: tuple[int, int] | None = None
    for event in hand.events:
        kind = event.kind
        seat = event.seat
        if kind is EventKind.STREET:
            round_bet = dict.fromkeys(hand.seat_numbers, 0)
        elif kind in (EventKind.POST_ANTE, EventKind.POST_BLIND):
            assert seat is not None and event.amount is not None
            what = "ante" if kind is EventKind.POST_ANTE else event.detail
            mine = [b for b in forced.get(seat, []) if b[0] == what]
            if not mine or mine[0][1] != event.amount:
                posted = mine[0][1] if mine else "nothing"
                raise parsed.error(
                    f"seat {seat} posts {posted} as the {what}, the replay {event.amount}"
                    + ("" if what == "ante" else " blind"),
                    mine[0][2] if mine else parsed.first_line,
                )
            forced[seat].remove(mine[0])
            if kind is EventKind.POST_BLIND:
                round_bet[seat] = event.amount
        elif kind is EventKind.ACTION:
            assert seat is not None and event.action is not None
            total = event.amount or 0
            added = total - round_bet[seat] if event.action is not ActionKind.FOLD else 0
            _check_action(parsed, next(stated), event, added)
            if event.action is not ActionKind.FOLD:
                round_bet[seat] = total
        elif kind is EventKind.RETURN:
            assert seat is not None and event.amount is not None
            returned = (seat, event.amount)
    left = [bet for bets in forced.values() for bet in bets]
    if left:
        raise parsed.error(f"the replay posts no {left[0][0]} here", left[0][2])
    file_return = None if imported.uncalled is None else imported.uncalled[:2]
    if file_return != returned:
        where = imported.uncalled[2] if imported.uncalled is not None else parsed.summary_line
        said = "no uncalled bet" if file_return is None else f"{file_return[1]} back to seat {file_return[0]}"
        done = "nothing" if returned is None else f"{returned[1]} to seat {returned[0]}"
        raise parsed.error(f"the file returns {said}; the replay returns {done}", where)
    for seat in imported.seats:
        won = hand.result.won(seat)
        got = imported.collected.get(seat, 0)
        if got > won or (won and not got and not imported.rake):
            raise parsed.error(
                f"seat {seat} collects {got}, the replay awards {won}",
                imported.collected_line.get(seat, parsed.summary_line),
            )


HouseFor = Callable[[PhhHand], HouseRules]


def replay_imported(imported: ImportedHand, *, house: HouseFor | None = None) -> ReplayedHand:
    """Replay an imported hand and check it line by line; raises :class:`PokerStarsError`.

    ``house`` gives the house rules of a hand (default: its game's); a file may mix games.
    """
    parsed = imported.parsed
    try:
        rules = None if house is None else house(imported.phh)
        hand = replay(imported.phh, house=rules, check_finishing_stacks=False)
    except PhhError as exc:
        line = imported.line_of(exc.action)
        said = parsed.line_text(line) if exc.action is not None else ""
        reason = f"{said!r} cannot be replayed: {exc.reason} (amounts in units)" if said else exc.reason
        raise parsed.error(reason, line) from None
    check_amounts(imported, hand)
    try:
        settlement = settle(imported.phh, hand)
    except PhhError as exc:
        raise parsed.error(exc.reason, parsed.summary_line) from None
    return ReplayedHand(imported=imported, hand=hand, settlement=settlement)


Outcome = ImportedHand | ReplayedHand | PokerStarsError | SkippedHand


def _outcomes(
    parsed_hands: Iterator[ParsedHand | PokerStarsError | SkippedHand], *, check: bool, house: HouseFor | None
) -> Iterator[Outcome]:
    for item in parsed_hands:
        if not isinstance(item, ParsedHand):
            yield item
            continue
        try:
            imported = to_phh(item)
            yield replay_imported(imported, house=house) if check else imported
        except PokerStarsError as exc:
            yield exc


def import_text(
    text: str, *, source: str = "<pokerstars>", check: bool = True, house: HouseFor | None = None
) -> Iterator[Outcome]:
    """Each hand of a PokerStars text: replayed and checked (or only converted, ``check=False``),
    or the error or skip in its place."""
    yield from _outcomes(read_pokerstars(text, source=source), check=check, house=house)


def import_file(path: str | Path, *, check: bool = True, house: HouseFor | None = None) -> Iterator[Outcome]:
    """:func:`import_text` of a file on disk."""
    yield from _outcomes(read_pokerstars_file(path), check=check, house=house)
